/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Topology and the node map parser.
#include <gtest/gtest.h>

#include <random>

#include "topology.h"

namespace hier {
namespace {

TEST(Topology, NodesNumberedByFirstRankAndLocalIndicesInRankOrder)
{
    const Topology topology({42, 7, 42, 9, 7, 42});
    EXPECT_EQ(topology.size(), 6);
    EXPECT_EQ(topology.node_count(), 3);
    EXPECT_EQ(topology.node_of(0), 0);
    EXPECT_EQ(topology.node_of(1), 1);
    EXPECT_EQ(topology.node_of(3), 2);
    EXPECT_EQ(topology.local_index(5), 2);
    EXPECT_EQ(topology.local_index(4), 1);
    EXPECT_EQ(topology.members(0), (std::vector<int>{0, 2, 5}));
    EXPECT_EQ(topology.largest_node_size(), 3);
    EXPECT_EQ(topology.describe(), "3,2,1");
}

TEST(Topology, SocketsAreNamedWithinTheirNodeAndNumberedByFirstRank)
{
    // Two nodes; node 0's ranks alternate between two sockets (as a
    // round-robin binding puts them), node 1 names a socket as node 0 does.
    Topology topology({5, 5, 5, 5, 9, 9, 9});
    EXPECT_FALSE(topology.has_sockets());
    EXPECT_EQ(topology.socket_count(), 2);
    EXPECT_EQ(topology.socket_of(4), topology.node_of(4));
    topology.set_sockets({0, 1, 0, 1, 0, 0, 6});
    EXPECT_TRUE(topology.has_sockets());
    EXPECT_EQ(topology.socket_count(), 4);
    EXPECT_EQ(topology.socket_of(0), 0);
    EXPECT_EQ(topology.socket_of(1), 1);
    EXPECT_EQ(topology.socket_of(3), 1);
    EXPECT_EQ(topology.socket_of(4), 2);  // name 0 again, on another node
    EXPECT_EQ(topology.socket_of(6), 3);
    EXPECT_EQ(topology.describe(), "2+2,2+1");
}

TEST(Topology, UnknownOrSingleSocketsChangeNothing)
{
    Topology topology({0, 0, 1, 1});
    topology.set_sockets({0, -1, 2, 2});  // one rank not bound: no socket level
    EXPECT_FALSE(topology.has_sockets());
    EXPECT_EQ(topology.socket_count(), 2);
    topology.set_sockets({0, 0, 2, 2});   // one socket per node
    EXPECT_FALSE(topology.has_sockets());
    EXPECT_EQ(topology.describe(), "2,2");
    topology.set_sockets({});
    EXPECT_EQ(topology.socket_of(3), 1);
}

TEST(NodeMap, SocketsJoinedByPlusInsideANode)
{
    std::string error;
    std::vector<int> sockets;
    EXPECT_EQ(parse_node_map("2+2,3,1+1", 9, &error, &sockets), (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 2, 2}));
    EXPECT_EQ(error, "");
    EXPECT_EQ(sockets, (std::vector<int>{0, 0, 1, 1, 2, 2, 2, 3, 4}));
    sockets.clear();
    EXPECT_EQ(parse_node_map("2,2", 4, &error, &sockets), (std::vector<int>{0, 0, 1, 1}));
    EXPECT_TRUE(sockets.empty());  // no socket written: none imposed
    Topology topology(parse_node_map("1+3,2", 6, &error, &sockets));
    topology.set_sockets(sockets);
    EXPECT_EQ(topology.describe(), "1+3,2");
}

TEST(NodeMap, ParsesSizesForConsecutiveRanks)
{
    std::string error;
    EXPECT_EQ(parse_node_map("2,1,3", 6, &error), (std::vector<int>{0, 0, 1, 2, 2, 2}));
    EXPECT_EQ(error, "");
    EXPECT_EQ(parse_node_map("1", 1, &error), (std::vector<int>{0}));
}

struct BadMap {
    const char *text;
    int size;
    const char *says;
};

TEST(NodeMap, RejectsWithOneLineNamingTheParameterAndTheForm)
{
    const BadMap cases[] = {
        {"4,3", 10, "covers 7 ranks but there are 10"},
        {"x", 10, "\"x\", which is not a positive integer"},
        {"0,5", 5, "\"0\", which is not a positive integer"},
        {"", 3, "empty field"},
        {"2,,1", 3, "\"\", which is not a positive integer"},
        {"2,1,", 3, "empty field"},
        {"-1,4", 3, "\"-1\""},
        {" 3", 3, "\" 3\""},
        {"3,999999999", 3, "covers 1000000002 ranks"},
        {"99999999999", 3, "not a positive integer"},
    };
    for (const BadMap &bad : cases) {
        std::string error;
        EXPECT_TRUE(parse_node_map(bad.text, bad.size, &error).empty()) << bad.text;
        EXPECT_NE(error.find("coll_hier_node_map"), std::string::npos) << error;
        EXPECT_NE(error.find("expected node sizes for consecutive ranks"), std::string::npos) << error;
        EXPECT_NE(error.find(bad.says), std::string::npos) << error;
        EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    }
}

TEST(NodeMap, BadSocketsGetTheNodeMapsLine)
{
    const BadMap cases[] = {
        {"2+2", 5, "covers 4 ranks but there are 5"},
        {"2+", 2, "empty field"},
        {"2++1", 3, "\"\", which is not a positive integer"},
        {"+2", 2, "\"\", which is not a positive integer"},
        {"2+0,1", 3, "\"0\", which is not a positive integer"},
        {"2+x", 3, "\"x\""},
    };
    for (const BadMap &bad : cases) {
        std::string error;
        std::vector<int> sockets;
        EXPECT_TRUE(parse_node_map(bad.text, bad.size, &error, &sockets).empty()) << bad.text;
        EXPECT_TRUE(sockets.empty()) << bad.text;
        EXPECT_NE(error.find("coll_hier_node_map \"" + std::string(bad.text) + "\""), std::string::npos) << error;
        EXPECT_NE(error.find("a node's sockets joined by +"), std::string::npos) << error;
        EXPECT_NE(error.find(bad.says), std::string::npos) << error;
    }
}

// A latency matrix over nodes whose latency depends on their groups: `near`
// within a group, `far` between groups, perturbed by up to 20 % (seeded).
std::vector<double> grouped_latency(const std::vector<int> &group, double near, double far, unsigned seed)
{
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> noise(0.9, 1.1);
    const size_t n = group.size();
    std::vector<double> latency(n * n, 0);
    for (size_t a = 0; a < n; ++a) {
        for (size_t b = a + 1; b < n; ++b) {
            latency[a * n + b] = latency[b * n + a] = (group[a] == group[b] ? near : far) * noise(random);
        }
    }
    return latency;
}

// Same partition, whatever the numbers naming the parts.
bool same_partition(const std::vector<int> &a, const std::vector<int> &b)
{
    for (size_t i = 0; i < a.size(); ++i) {
        for (size_t j = 0; j < a.size(); ++j) {
            if ((a[i] == a[j]) != (b[i] == b[j])) {
                return false;
            }
        }
    }
    return a.size() == b.size();
}

TEST(ClustersFromLatency, SplitsAtTheLargestGap)
{
    const std::vector<std::vector<int>> partitions = {
        {0, 0, 0, 1, 1, 1, 1, 1, 1},  // two-clusters: 3 + 6
        {0, 1, 0, 1, 1, 0, 1, 1, 1},  // interleaved
        {0, 0, 1, 1, 2, 2, 2},        // three clusters
        {0, 0, 0, 1},                 // a lone node far away
    };
    for (unsigned seed = 1; seed <= 20; ++seed) {
        for (const auto &groups : partitions) {
            // 30 us on a LAN, 5 ms across a backbone.
            EXPECT_TRUE(same_partition(clusters_from_latency(grouped_latency(groups, 30e-6, 5e-3, seed)), groups));
        }
    }
}

TEST(ClustersFromLatency, NoGapWorthABackboneIsOneCluster)
{
    const std::vector<int> groups = {0, 0, 0, 1, 1, 1};
    // Twice as far between the groups: below kClusterGapRatio.
    const std::vector<int> clusters = clusters_from_latency(grouped_latency(groups, 30e-6, 60e-6, 7));
    EXPECT_TRUE(same_partition(clusters, std::vector<int>(6, 0)));
    EXPECT_TRUE(same_partition(clusters_from_latency({0.0}), {0}));
    // Two nodes: one latency, no gap to compare it with.
    EXPECT_TRUE(same_partition(clusters_from_latency({0, 5e-3, 5e-3, 0}), {0, 0}));
}

} // namespace
} // namespace hier
