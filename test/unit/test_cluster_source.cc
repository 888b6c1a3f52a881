/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Cluster sources (core/cluster_source.cc) through the C face: what the
// glue gathers for each, the clusters a communicator gets, and the line and
// fallback for a file or a variable that does not fit.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <unistd.h>

#include "capi_helpers.h"
#include "cluster_source.h"
#include "hier_core.h"

namespace hier {
namespace {

// A file of the test's, removed when the test ends.
struct TempFile {
    explicit TempFile(const std::string &text)
    {
        char name[] = "/tmp/hier_cluster_source_XXXXXX";
        const int fd = mkstemp(name);
        EXPECT_GE(fd, 0);
        close(fd);
        path = name;
        std::ofstream(path) << text;
    }
    ~TempFile() { std::remove(path.c_str()); }
    std::string path;
};

// A communicator of one rank per field, node n rank n unless nodes says
// otherwise; the line the core wrote (error or notice) in *line.
struct Made {
    hier_comm_t *comm;
    std::string line;
    int clusters() const { return comm ? hier_comm_cluster_count(comm) : -1; }
    ~Made() { hier_comm_destroy(comm); }
};

Made make(const std::string &map, const std::vector<std::string> &fields, std::vector<int> nodes = {},
          int (*agree)(void *, double *, int) = nullptr)
{
    std::vector<char> gathered(fields.size() * HIER_HOST_NAME_WIDTH, '\0');
    for (size_t rank = 0; rank < fields.size(); ++rank) {
        std::memcpy(gathered.data() + rank * HIER_HOST_NAME_WIDTH, fields[rank].data(),
                    std::min<size_t>(fields[rank].size(), HIER_HOST_NAME_WIDTH));
    }
    if (nodes.empty()) {
        for (size_t rank = 0; rank < fields.size(); ++rank) {
            nodes.push_back(int(rank));
        }
    }
    hier_comm_input_t input{};
    input.settings = hier_test::settings([&](hier_settings_input_t &in) {
        in.cluster_map = map.c_str();
        in.world_size = int(fields.size());
    });
    input.size = int(fields.size());
    input.node_of_rank = nodes.data();
    input.host_names = gathered.data();
    input.agree_max = agree;
    char line[1024];
    hier_comm_t *comm = hier_comm_create(&input, line, sizeof line, nullptr);
    return {comm, line};
}

TEST(ClusterSource, WhatTheGlueGathers)
{
    const auto wants = [](const char *map) {
        return hier_settings_wants_host_names(
            hier_test::settings([&](hier_settings_input_t &in) { in.cluster_map = map; }));
    };
    EXPECT_EQ(wants("slurm"), HIER_GATHER_SLURM_ADDRESS);
    EXPECT_EQ(wants("slurm:2"), HIER_GATHER_SLURM_ADDRESS);
    EXPECT_EQ(wants("topology:/nonexistent"), HIER_GATHER_HOST_NAME);
    EXPECT_EQ(wants("coordinates:/nonexistent"), 0);
    // A bad level is the value's own error: every communicator falls back.
    const hier_settings_t *bad = hier_test::settings([](hier_settings_input_t &in) { in.cluster_map = "slurm:x"; });
    EXPECT_STREQ(hier_settings_unusable(bad), "invalid coll_hier_cluster_map");
    EXPECT_EQ(hier_test::problems(bad).find("coll_hier_cluster_map \"slurm:x\" is not slurm"), 0u);
    for (const char *map : {"topology:", "coordinates:"}) {
        const hier_settings_t *empty = hier_test::settings([&](hier_settings_input_t &in) { in.cluster_map = map; });
        EXPECT_NE(hier_test::problems(empty).find("names no file"), std::string::npos) << map;
    }
}

TEST(ClusterSource, SlurmGroupsByLeafOrLevel)
{
    const std::vector<std::string> addresses = {
        "s1.l1.n1\nswitch.switch.node", "s1.l1.n2\nswitch.switch.node", "s1.l2.n3", "s2.l3.n4"};
    EXPECT_EQ(make("slurm", addresses).clusters(), 3);
    EXPECT_EQ(make("slurm:leaf", addresses).clusters(), 3);
    EXPECT_EQ(make("slurm:1", addresses).clusters(), 2);
    const Made too_deep = make("slurm:3", addresses);
    EXPECT_EQ(too_deep.comm, nullptr);
    EXPECT_NE(too_deep.line.find("coll_hier_cluster_map \"slurm:3\" on rank 0: SLURM_TOPOLOGY_ADDR \"s1.l1.n1\" "
                                 "has 2 switch level(s), fewer than 3; expected SLURM_TOPOLOGY_ADDR"),
              std::string::npos)
        << too_deep.line;
    // One node (ranks 1 and 2) under two leaves.
    const Made split = make("slurm", addresses, {0, 1, 1, 2});
    EXPECT_EQ(split.comm, nullptr);
    EXPECT_NE(split.line.find("puts rank 2 in cluster \"s1.l2\""), std::string::npos) << split.line;
    EXPECT_NE(make("slurm", addresses, {0, 0, 1, 1}).line.find("puts rank 3 in cluster \"s2.l3\""),
              std::string::npos);
}

// Clusters from a switch (slurm, topology:) are leaves: with the backbone
// unknown, auto weighs leaf uplinks (link_costs.h, switch_clusters), so
// both sources compare alike, and unlike the same clusters typed by hand
// (a campus link and a wide-area one).
TEST(ClusterSource, SwitchSourcesWeighLeafUplinks)
{
    EXPECT_TRUE(switch_source(HIER_CLUSTER_MAP_SLURM) && switch_source(HIER_CLUSTER_MAP_TOPOLOGY));
    for (const hier_cluster_map_kind_t kind : {HIER_CLUSTER_MAP_NONE, HIER_CLUSTER_MAP_COUNTS, HIER_CLUSTER_MAP_HOSTS,
                                               HIER_CLUSTER_MAP_PROBE, HIER_CLUSTER_MAP_COORDINATES}) {
        EXPECT_FALSE(switch_source(kind)) << kind;
    }
    const TempFile conf("SwitchName=l1 Nodes=n[1-2]\nSwitchName=l2 Nodes=n[3-4]\n");
    // What auto compared at its first decision (kept until the next).
    const auto compared = [](const Made &made) {
        hier_decision_t decision;
        hier_comm_decide(made.comm, HIER_OP_ALLTOALL, HIER_ALG_AUTO, 0, 1, nullptr, 1, 2, &decision);
        return std::string(hier_comm_predictions(made.comm));
    };
    const Made slurm = make("slurm", {"s.l1.n1", "s.l1.n2", "s.l2.n3", "s.l2.n4"});
    const Made topology = make("topology:" + conf.path, {"n1", "n2", "n3", "n4"});
    const Made by_hand = make("2,2", {"n1", "n2", "n3", "n4"});
    ASSERT_TRUE(slurm.comm && topology.comm && by_hand.comm);
    EXPECT_EQ(slurm.clusters(), 2);
    const std::string leaves = compared(slurm);
    EXPECT_NE(leaves, "");
    EXPECT_EQ(leaves, compared(topology));
    EXPECT_NE(leaves, compared(by_hand));
}

TEST(ClusterSource, SlurmWithoutTheVariableRunsWithoutClusters)
{
    const Made made = make("slurm", {"s1.l1.n1", "", "s1.l1.n3"});
    ASSERT_NE(made.comm, nullptr);
    EXPECT_EQ(made.clusters(), 1);
    EXPECT_EQ(made.line, "coll_hier_cluster_map \"slurm\" finds no SLURM_TOPOLOGY_ADDR on rank 1 (not a Slurm job "
                         "under topology/tree?); running as without a cluster map");
    // Found everywhere: nothing to say.
    EXPECT_EQ(make("slurm", {"s1.l1.n1"}).line, "");
}

TEST(ClusterSource, TopologyConfMatchesHostNames)
{
    const TempFile conf("SwitchName=l1 Nodes=h[1-2]\nSwitchName=l2 Nodes=h[3-9]\nSwitchName=s Switches=l[1-2]\n");
    const std::string map = "topology:" + conf.path;
    const Made made = make(map, {"h1", "h2", "h3", "h4.example.org"});
    ASSERT_NE(made.comm, nullptr) << made.line;
    EXPECT_EQ(made.clusters(), 2);
    EXPECT_EQ(made.line, "");
    // Hosts of the file missing from the job are fine; a host missing from the file is not.
    const Made stranger = make(map, {"h1", "g1"});
    EXPECT_EQ(stranger.comm, nullptr);
    EXPECT_EQ(stranger.line.find("coll_hier_cluster_map \"" + map + "\" leaves host \"g1\" (rank 1) in no cluster; "
                                 "expected a Slurm topology.conf"),
              0u)
        << stranger.line;
}

TEST(ClusterSource, CoordinatesGroupTheRanksOfTheWorld)
{
    const TempFile file("0: 0, 0, 0\n1: 0, 1, 0\n2: 1, 0, 0\n3: 1, 0, 1\n");
    const std::string map = "coordinates:" + file.path;
    EXPECT_EQ(make(map, {"", "", "", ""}).clusters(), 2);
    const Made short_of_ranks = make(map, {"", "", "", "", ""});
    EXPECT_EQ(short_of_ranks.comm, nullptr);
    EXPECT_NE(short_of_ranks.line.find("does not name rank 4 of MPI_COMM_WORLD; expected an MPICH coordinates file"),
              std::string::npos)
        << short_of_ranks.line;
}

TEST(ClusterSource, ABadFileIsOneLineAndTheFallback)
{
    const TempFile conf("SwitchName=l1 Nodes=h[2-1]\n");
    const TempFile coordinates("0: 0, 0\n");
    const std::pair<std::string, std::string> cases[] = {
        {"topology:" + conf.path, "line 1 has Nodes=\"h[2-1]\", not a Slurm hostlist"},
        {"coordinates:" + coordinates.path, "line 1 is not \"RANK: GROUP"},
        {"topology:/nonexistent/topology.conf", "cannot be read: No such file or directory"},
    };
    for (const auto &[map, says] : cases) {
        const Made made = make(map, {"h1"});
        EXPECT_EQ(made.comm, nullptr) << map;
        EXPECT_EQ(made.line.find("coll_hier_cluster_map \"" + map + "\" "), 0u) << made.line;
        EXPECT_NE(made.line.find(says), std::string::npos) << made.line;
        EXPECT_NE(made.line.find("; expected "), std::string::npos) << made.line;
    }
}

// An agreement whose other ranks read another file.
int other_file_elsewhere(void *, double *values, int count)
{
    for (int i = 0; i < count; ++i) {
        values[i] += 1;
    }
    return 0;
}

int same_file_everywhere(void *, double *, int)
{
    return 0;
}

TEST(ClusterSource, RanksThatReadDifferentFilesFallBack)
{
    const TempFile conf("SwitchName=l1 Nodes=h1\n");
    const std::string map = "topology:" + conf.path;
    EXPECT_EQ(make(map, {"h1"}, {}, same_file_everywhere).clusters(), 1);
    const Made differ = make(map, {"h1"}, {}, other_file_elsewhere);
    EXPECT_EQ(differ.comm, nullptr);
    EXPECT_EQ(differ.line, "coll_hier_cluster_map \"" + map + "\" was not read alike on every rank; expected the "
                           "same file on every node");
}

} // namespace
} // namespace hier
