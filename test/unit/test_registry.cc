// The algorithm table, selection, and the C ABI the component uses.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "hier_core.h"
#include "registry.h"

namespace hier {
namespace {

TEST(Registry, AlltoallIdsAreAutoFallbackThenTheTable)
{
    const char *const names[] = {"auto", "fallback", "lg", "lg_at_once", "factor", "edgecolor", "pairwise"};
    for (hier_op_t op : {HIER_OP_ALLTOALL, HIER_OP_ALLTOALLV}) {
        ASSERT_EQ(hier_algorithm_count(op), 7);
        for (int id = 0; id < 7; ++id) {
            EXPECT_STREQ(hier_algorithm_name(op, id), names[id]);
            EXPECT_NE(hier_algorithm_description(op, id), nullptr);
        }
        EXPECT_EQ(hier_algorithm_name(op, 7), nullptr);
    }
    EXPECT_STREQ(hier_op_name(HIER_OP_ALLTOALL), "alltoall");
    EXPECT_STREQ(hier_op_name(HIER_OP_ALLTOALLV), "alltoallv");
}

TEST(Registry, AutoPicksLgAcrossClustersFactorAcrossNodesAndFallbackOnOneNode)
{
    for (hier_op_t op : {HIER_OP_ALLTOALL, HIER_OP_ALLTOALLV}) {
        const Choice across = choose(op, HIER_ALG_AUTO, Topology::from_node_sizes({4, 3, 2, 1}), 64);
        ASSERT_NE(across.algorithm, nullptr);
        EXPECT_STREQ(across.algorithm->name, "factor");
        EXPECT_EQ(across.id, 4);

        const Choice two_clusters = choose(op, HIER_ALG_AUTO, Topology({0, 1, 2}, {0, 1, 1}), 64);
        ASSERT_NE(two_clusters.algorithm, nullptr);
        EXPECT_STREQ(two_clusters.algorithm->name, "lg_at_once");
        const Choice three_clusters = choose(op, HIER_ALG_AUTO, Topology({0, 1, 2}, {0, 1, 2}), 64);
        ASSERT_NE(three_clusters.algorithm, nullptr);
        EXPECT_STREQ(three_clusters.algorithm->name, "lg_at_once");

        const Choice one_node = choose(op, HIER_ALG_AUTO, Topology::from_node_sizes({8}), 64);
        EXPECT_EQ(one_node.algorithm, nullptr);
        EXPECT_EQ(one_node.id, HIER_ALG_FALLBACK);
        EXPECT_STREQ(one_node.reason, "all ranks on one node");
    }
}

TEST(Registry, AutoTakesSequentialLgOnlyWhereMeasuredLatencyIsNegligible)
{
    // Clusters of 3 and 6: S = 2 crossings; the smallest cluster's process
    // receives 6 blocks. With a measured 5 ms, 2 x 5 ms <= 5 % of 6 m at
    // 1 Gbit/s needs m >= 4.2 MB; with 50 us, m >= 42 KB.
    Topology topology({0, 1, 2, 3, 4, 5, 6, 7, 8}, {0, 0, 0, 1, 1, 1, 1, 1, 1});
    EXPECT_STREQ(choose(HIER_OP_ALLTOALL, HIER_ALG_AUTO, topology, 64 << 20).algorithm->name, "lg_at_once");
    topology.set_backbone_latency(5e-3);
    EXPECT_STREQ(choose(HIER_OP_ALLTOALL, HIER_ALG_AUTO, topology, 1 << 20).algorithm->name, "lg_at_once");
    EXPECT_STREQ(choose(HIER_OP_ALLTOALL, HIER_ALG_AUTO, topology, 5 << 20).algorithm->name, "lg");
    // alltoallv has no block size every rank knows alike: 0.
    EXPECT_STREQ(choose(HIER_OP_ALLTOALLV, HIER_ALG_AUTO, topology, 0).algorithm->name, "lg_at_once");
    topology.set_backbone_latency(50e-6);
    EXPECT_STREQ(choose(HIER_OP_ALLTOALL, HIER_ALG_AUTO, topology, 32 << 10).algorithm->name, "lg_at_once");
    EXPECT_STREQ(choose(HIER_OP_ALLTOALL, HIER_ALG_AUTO, topology, 64 << 10).algorithm->name, "lg");
}

TEST(Registry, NamedAlgorithmRunsEvenOnOneNode)
{
    const Choice choice = choose(HIER_OP_ALLTOALL, 6, Topology::from_node_sizes({8}), 64);
    ASSERT_NE(choice.algorithm, nullptr);
    EXPECT_STREQ(choice.algorithm->name, "pairwise");
    EXPECT_STREQ(choose(HIER_OP_ALLTOALL, HIER_ALG_FALLBACK, Topology::from_node_sizes({2, 2}), 64).reason,
                 "requested");
    for (int lg : {2, 3}) {
        const Choice unfit = choose(HIER_OP_ALLTOALL, lg, Topology::from_node_sizes({2, 2}), 64);
        EXPECT_EQ(unfit.algorithm, nullptr);
        ASSERT_NE(unfit.unfit, nullptr);
        EXPECT_STREQ(unfit.unfit->name, lg == 2 ? "lg" : "lg_at_once");
    }
}

hier_comm_t *create(int size, int rank, const int *node_of_rank, const int *cluster_of_rank,
                    const char *cluster_map, char *error, size_t errlen)
{
    hier_comm_input_t input{};
    input.size = size;
    input.rank = rank;
    input.node_of_rank = node_of_rank;
    input.cluster_of_rank = cluster_of_rank;
    input.cluster_map = cluster_map;
    return hier_comm_create(&input, error, errlen);
}

TEST(CApi, SelectCachesOneSchedulePerAlgorithm)
{
    const int node_of_rank[] = {0, 0, 0, 1, 1, 2};
    char error[256];
    hier_comm_t *comm = create(6, 4, node_of_rank, nullptr, nullptr, error, sizeof error);
    ASSERT_NE(comm, nullptr);
    EXPECT_EQ(hier_comm_node_count(comm), 3);
    int chosen = -1;
    char reason[128] = "";
    const hier_schedule_t *first = hier_comm_select(comm, HIER_OP_ALLTOALL, HIER_ALG_AUTO, -1, 8, &chosen, reason, sizeof reason);
    ASSERT_NE(first, nullptr);
    EXPECT_EQ(chosen, 4);
    EXPECT_EQ(hier_comm_select(comm, HIER_OP_ALLTOALL, 4, -1, 4096, &chosen, reason, sizeof reason), first);
    EXPECT_EQ(hier_schedule_tmp_blocks(first), 0u);
    EXPECT_EQ(hier_comm_select(comm, HIER_OP_ALLTOALL, HIER_ALG_FALLBACK, -1, 8, &chosen, reason, sizeof reason), nullptr);
    EXPECT_EQ(chosen, HIER_ALG_FALLBACK);
    EXPECT_STREQ(reason, "requested");
    EXPECT_EQ(hier_comm_select(comm, HIER_OP_ALLTOALL, 2, -1, 8, &chosen, reason, sizeof reason), nullptr);
    EXPECT_STREQ(reason, "lg does not apply: needs two clusters or more (coll_hier_cluster_map)");
    hier_comm_destroy(comm);
}

TEST(CApi, ClusterMapGroupsNodesInOrder)
{
    const int node_of_rank[] = {7, 7, 3, 9, 3, 5};  // nodes, in order: 7, 3, 9, 5
    char error[256];
    hier_comm_t *comm = create(6, 0, node_of_rank, nullptr, "1,3", error, sizeof error);
    ASSERT_NE(comm, nullptr) << error;
    EXPECT_EQ(hier_comm_cluster_count(comm), 2);
    int chosen = -1;
    char reason[128];
    EXPECT_NE(hier_comm_select(comm, HIER_OP_ALLTOALL, HIER_ALG_AUTO, -1, 8, &chosen, reason, sizeof reason), nullptr);
    EXPECT_STREQ(hier_algorithm_name(HIER_OP_ALLTOALL, chosen), "lg_at_once");
    hier_comm_destroy(comm);

    EXPECT_EQ(create(6, 0, node_of_rank, nullptr, "2,3", error, sizeof error), nullptr);
    EXPECT_NE(std::strstr(error, "coll_hier_cluster_map \"2,3\" covers 5 nodes but there are 4"), nullptr) << error;
    EXPECT_EQ(create(6, 0, node_of_rank, nullptr, "a", error, sizeof error), nullptr);
    EXPECT_NE(std::strstr(error, "expected cluster sizes in nodes"), nullptr) << error;

    // Clusters given per rank (a node map's, inherited) win over the map.
    const int cluster_of_rank[] = {4, 4, 8, 8, 8, 8};
    comm = create(6, 0, node_of_rank, cluster_of_rank, "a", error, sizeof error);
    ASSERT_NE(comm, nullptr) << error;
    EXPECT_EQ(hier_comm_cluster_count(comm), 2);
    hier_comm_destroy(comm);

    int clusters[4];
    EXPECT_EQ(hier_parse_cluster_map("3,1", 4, clusters, error, sizeof error), 0);
    EXPECT_EQ(clusters[2], 0);
    EXPECT_EQ(clusters[3], 1);
    EXPECT_EQ(hier_parse_cluster_map("3,2", 4, clusters, error, sizeof error), -1);
}

TEST(CApi, ProbedClustersCarryTheirBackboneLatencyToAuto)
{
    // Nodes 0-2 and 3-8: 20 us apart inside a cluster, 200 us across.
    const int node_of_rank[] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    std::vector<double> latency(81, 20e-6);
    for (int a = 0; a < 9; ++a) {
        for (int b = 0; b < 9; ++b) {
            latency[a * 9 + b] = a == b ? 0 : (a < 3) != (b < 3) ? 200e-6 : 20e-6;
        }
    }
    hier_comm_input_t input{};
    input.size = 9;
    input.node_of_rank = node_of_rank;
    input.cluster_map = "probe";
    input.node_latency = latency.data();
    char error[256];
    hier_comm_t *comm = hier_comm_create(&input, error, sizeof error);
    ASSERT_NE(comm, nullptr) << error;
    EXPECT_EQ(hier_comm_cluster_count(comm), 2);
    // 2 crossings of 200 us <= 5 % of 6 m at 1 Gbit/s from m = 167 KB on.
    int chosen = -1;
    char reason[128];
    hier_comm_select(comm, HIER_OP_ALLTOALL, HIER_ALG_AUTO, -1, 64 << 10, &chosen, reason, sizeof reason);
    EXPECT_STREQ(hier_algorithm_name(HIER_OP_ALLTOALL, chosen), "lg_at_once");
    hier_comm_select(comm, HIER_OP_ALLTOALL, HIER_ALG_AUTO, -1, 256 << 10, &chosen, reason, sizeof reason);
    EXPECT_STREQ(hier_algorithm_name(HIER_OP_ALLTOALL, chosen), "lg");
    hier_comm_destroy(comm);
}

TEST(CApi, ParseNodeMapWritesOneLine)
{
    int nodes[10];
    char error[256];
    EXPECT_EQ(hier_parse_node_map("4,3,2,1", 10, nodes, error, sizeof error), 0);
    EXPECT_EQ(nodes[9], 3);
    EXPECT_EQ(hier_parse_node_map("4,3", 10, nodes, error, sizeof error), -1);
    EXPECT_NE(std::strstr(error, "coll_hier_node_map \"4,3\" covers 7 ranks but there are 10"), nullptr);
    char tiny[8];
    EXPECT_EQ(hier_parse_node_map("x", 10, nodes, tiny, sizeof tiny), -1);
    EXPECT_EQ(std::strlen(tiny), sizeof tiny - 1);
}

} // namespace
} // namespace hier
