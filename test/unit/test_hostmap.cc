/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Cluster maps by host-name patterns: the parser, the matcher, and the C ABI.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "capi_helpers.h"
#include "hier_core.h"
#include "hostmap.h"

namespace hier {
namespace {

TEST(HostMap, ValidForms)
{
    for (const char *map : {"a:h1", "nancy:cvn[1-3];rennes:cvn[4-9]", "a:x[1,3,5-7]y,z;b:w[01-12].grid",
                            "edge-1:n-1_x.y", "a:[1-4]", "a:n[1-2][0-9]"}) {
        EXPECT_EQ(check_host_map(map), "") << map;
        EXPECT_TRUE(is_host_map(map));
    }
    EXPECT_FALSE(is_host_map("3,6"));
    EXPECT_FALSE(is_host_map("probe"));
}

struct BadMap {
    const char *text;
    const char *says;
};

TEST(HostMap, RejectsWithOneLineNamingTheParameterAndTheForm)
{
    const BadMap cases[] = {
        {"a:", "an empty host pattern in cluster \"a\""},
        {"a:h,,g", "an empty host pattern in cluster \"a\""},
        {":h", "a cluster without a name"},
        {"a:h;;b:g", "an empty cluster"},
        {"a:h;", "an empty cluster"},
        {"a:h;b", "\"b\", a cluster without ':'"},
        {"a b:h", "\"a b\", a cluster name with a character"},
        {"a:h;a:g", "names cluster \"a\" twice"},
        {"a:h[1-3", "\"h[1-3\", whose '[' is not closed"},
        {"a:h]", "\"h]\", a host pattern with ']'"},
        {"a:h h", "\"h h\", a host pattern with ' '"},
        {"a:h:g", "\"h:g\", a host pattern with ':'"},
        {"a:h[]", "\"h[]\", with empty brackets"},
        {"a:h[3-1]", "range \"3-1\" runs backwards"},
        {"a:h[x]", "range \"x\" is not N or N-M"},
        {"a:h[1-]", "range \"1-\" is not N or N-M"},
        {"a:h[1-2-3]", "range \"1-2-3\" is not N or N-M"},
        {"a:h[1234567890]", "numbers of at most 9 digits"},
        {"a:h[01-100]", "pads its start but not its end"},
    };
    for (const BadMap &bad : cases) {
        const std::string error = check_host_map(bad.text);
        EXPECT_NE(error.find("coll_hier_cluster_map \"" + std::string(bad.text) + "\""), std::string::npos) << error;
        EXPECT_NE(error.find("expected CLUSTER:HOSTS[;CLUSTER:HOSTS...]"), std::string::npos) << error;
        EXPECT_NE(error.find(bad.says), std::string::npos) << error;
        EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    }
}

// One rank per host: the cluster of each (node n is rank n), or the error.
std::vector<int> clusters_of(const char *map, const std::vector<std::string> &hosts, bool job_wide,
                             std::string *error)
{
    std::vector<int> node_of_rank(hosts.size());
    std::iota(node_of_rank.begin(), node_of_rank.end(), 0);
    error->clear();
    return clusters_from_host_map(map, Topology(node_of_rank), hosts, job_wide, error);
}

TEST(HostMap, MatchesHostsByPattern)
{
    std::string error;
    const std::vector<std::string> emulated = {"hier-n0", "hier-n1", "hier-n2", "hier-n3", "hier-n4",
                                               "hier-n5", "hier-n6", "hier-n7", "hier-n8"};
    EXPECT_EQ(clusters_of("nancy:hier-n[0-2];rennes:hier-n[3-8]", emulated, true, &error),
              (std::vector<int>{0, 0, 0, 1, 1, 1, 1, 1, 1}));
    EXPECT_EQ(error, "");
    // Lists, several patterns, clusters in any order.
    EXPECT_EQ(clusters_of("b:hier-n[3,5-8],hier-n4;a:hier-n[0-2]", emulated, true, &error),
              (std::vector<int>{1, 1, 1, 0, 0, 0, 0, 0, 0}));
    // Zero-padded ranges match padded numbers only, plain ranges plain ones.
    EXPECT_EQ(clusters_of("a:cvn[01-03];b:cvn[1-3]", {"cvn01", "cvn1", "cvn03", "cvn3"}, true, &error),
              (std::vector<int>{0, 1, 0, 1}));
    // A fully qualified name matches by its first label too.
    EXPECT_EQ(clusters_of("a:cvn[1-2];b:cvn3.rennes.grid5000.fr", {"cvn1.nancy.grid5000.fr", "cvn3.rennes.grid5000.fr"},
                          true, &error),
              (std::vector<int>{0, 1}));
    // Adjacent ranges: n[1-2][0-9] is n10..n29.
    EXPECT_EQ(clusters_of("a:n[1-2][0-9];b:n[3-9]", {"n15", "n3", "n29"}, true, &error),
              (std::vector<int>{0, 1, 0}));
    EXPECT_EQ(error, "");
}

TEST(HostMap, RejectsMapsThatDoNotFitTheHosts)
{
    const std::vector<std::string> hosts = {"h1", "h2", "h3"};
    const BadMap cases[] = {
        {"a:h[1-2]", "leaves host \"h3\" (rank 2) in no cluster"},
        {"a:h[1-2];b:h[2-3]", "puts host \"h2\" in clusters \"a\" and \"b\""},
        {"a:h[1-3];b:g[1-4]", "names \"g[1-4]\" (cluster \"b\"), which matches no host of the job"},
        {"a:h[1-3],h9", "names \"h9\" (cluster \"a\"), which matches no host of the job"},
        {"a:h[1-3];b", "a cluster without ':'"},
    };
    for (const BadMap &bad : cases) {
        std::string error;
        EXPECT_TRUE(clusters_of(bad.text, hosts, true, &error).empty()) << bad.text;
        EXPECT_NE(error.find(bad.says), std::string::npos) << error;
        EXPECT_NE(error.find("coll_hier_cluster_map"), std::string::npos) << error;
        EXPECT_NE(error.find("expected CLUSTER:HOSTS"), std::string::npos) << error;
    }
    // A communicator that does not hold the whole job may lack a cluster's hosts.
    std::string error;
    EXPECT_EQ(clusters_of("a:h[1-3];b:g[1-4]", hosts, false, &error), (std::vector<int>{0, 0, 0}));
    EXPECT_EQ(error, "");
}

TEST(HostMap, ANodeOnHostsOfTwoClustersIsRejected)
{
    // An imposed node (coll_hier_node_map) whose ranks sit on hosts of two clusters.
    std::string error;
    const auto clusters = clusters_from_host_map("a:h1;b:h2", Topology({0, 0, 1}), {"h1", "h2", "h2"}, true, &error);
    EXPECT_TRUE(clusters.empty());
    EXPECT_NE(error.find("puts the ranks of one node (coll_hier_node_map) in clusters \"a\" and \"b\""),
              std::string::npos)
        << error;
}

hier_comm_t *create_with_hosts(const std::vector<std::string> &hosts, const int *node_of_rank, const char *map,
                               int job_wide, char *error, size_t errlen)
{
    std::vector<char> names(hosts.size() * HIER_HOST_NAME_WIDTH, '\0');
    for (size_t rank = 0; rank < hosts.size(); ++rank) {
        std::memcpy(names.data() + rank * HIER_HOST_NAME_WIDTH, hosts[rank].data(),
                    std::min<size_t>(hosts[rank].size(), HIER_HOST_NAME_WIDTH));
    }
    hier_comm_input_t input{};
    input.settings = hier_test::settings([&](hier_settings_input_t &in) { in.cluster_map = map; });
    input.size = int(hosts.size());
    input.rank = 0;
    input.node_of_rank = node_of_rank;
    input.host_names = names.data();
    input.job_wide = job_wide;
    return hier_comm_create(&input, error, errlen, nullptr);
}

TEST(CApi, ClusterMapKinds)
{
    const auto wants_host_names = [](const char *map) {
        return hier_settings_wants_host_names(
            hier_test::settings([&](hier_settings_input_t &in) { in.cluster_map = map; }));
    };
    EXPECT_EQ(wants_host_names(nullptr), 0);
    EXPECT_EQ(wants_host_names(""), 0);
    EXPECT_EQ(wants_host_names("3,6"), 0);
    EXPECT_EQ(wants_host_names("bogus"), 0);  // counts: reported by the counts parser
    EXPECT_EQ(wants_host_names("a:h[1-3]"), 1);
    EXPECT_EQ(wants_host_names("probe"), 0);
    // Host patterns that do not parse: every communicator falls back.
    const hier_settings_t *bad = hier_test::settings([](hier_settings_input_t &in) { in.cluster_map = "a:h[3-1]"; });
    EXPECT_STREQ(hier_settings_unusable(bad), "invalid coll_hier_cluster_map");
    EXPECT_EQ(hier_test::problems(bad).find("coll_hier_cluster_map \"a:h[3-1]\""), 0u) << hier_test::problems(bad);
}

TEST(CApi, HostMapAppliesToEveryCommunicator)
{
    char error[512];
    // Two ranks per host; a communicator of ranks on h1, h2, h3.
    const int nodes[] = {5, 5, 7, 7, 9, 9};
    hier_comm_t *comm = create_with_hosts({"h1", "h1", "h2", "h2", "h3", "h3"}, nodes, "x:h1;y:h[2-3]", 1, error,
                                          sizeof error);
    ASSERT_NE(comm, nullptr) << error;
    EXPECT_EQ(hier_comm_node_count(comm), 3);
    EXPECT_EQ(hier_comm_cluster_count(comm), 2);
    hier_comm_destroy(comm);
    // A split holding only h2 and h3: one cluster, no error.
    const int split_nodes[] = {7, 9};
    comm = create_with_hosts({"h2", "h3"}, split_nodes, "x:h1;y:h[2-3]", 0, error, sizeof error);
    ASSERT_NE(comm, nullptr) << error;
    EXPECT_EQ(hier_comm_cluster_count(comm), 1);
    hier_comm_destroy(comm);
    // A host the map leaves out: one line, no communicator.
    EXPECT_EQ(create_with_hosts({"h2", "h4"}, split_nodes, "x:h1;y:h[2-3]", 0, error, sizeof error), nullptr);
    EXPECT_NE(std::strstr(error, "leaves host \"h4\""), nullptr) << error;
    // A name longer than its field.
    EXPECT_EQ(create_with_hosts({"h2", std::string(HIER_HOST_NAME_WIDTH, 'h')}, split_nodes, "y:h[2-3]", 0, error,
                                sizeof error),
              nullptr);
    EXPECT_NE(std::strstr(error, "is longer than 127 characters"), nullptr) << error;
}

} // namespace
} // namespace hier
