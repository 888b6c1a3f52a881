// The algorithm table, selection, and the C ABI the component uses.
#include <gtest/gtest.h>

#include <cstring>

#include "hier_core.h"
#include "registry.h"

namespace hier {
namespace {

TEST(Registry, AlltoallIdsAreAutoFallbackThenTheTable)
{
    ASSERT_EQ(hier_algorithm_count(HIER_OP_ALLTOALL), 7);
    EXPECT_STREQ(hier_algorithm_name(HIER_OP_ALLTOALL, HIER_ALG_AUTO), "auto");
    EXPECT_STREQ(hier_algorithm_name(HIER_OP_ALLTOALL, HIER_ALG_FALLBACK), "fallback");
    EXPECT_STREQ(hier_algorithm_name(HIER_OP_ALLTOALL, 2), "lg");
    EXPECT_STREQ(hier_algorithm_name(HIER_OP_ALLTOALL, 3), "factor");
    EXPECT_STREQ(hier_algorithm_name(HIER_OP_ALLTOALL, 4), "edgecolor");
    EXPECT_STREQ(hier_algorithm_name(HIER_OP_ALLTOALL, 5), "pairwise");
    EXPECT_STREQ(hier_algorithm_name(HIER_OP_ALLTOALL, 6), "hypercube");
    EXPECT_EQ(hier_algorithm_name(HIER_OP_ALLTOALL, 7), nullptr);
    for (int id = 0; id < 7; ++id) {
        EXPECT_NE(hier_algorithm_description(HIER_OP_ALLTOALL, id), nullptr);
    }
    EXPECT_STREQ(hier_op_name(HIER_OP_ALLTOALL), "alltoall");
}

TEST(Registry, AutoPicksFactorAcrossNodesAndFallbackOnOneNode)
{
    const Choice across = choose(HIER_OP_ALLTOALL, HIER_ALG_AUTO, Topology::from_node_sizes({4, 3, 2, 1}), 64);
    ASSERT_NE(across.algorithm, nullptr);
    EXPECT_STREQ(across.algorithm->name, "factor");
    EXPECT_EQ(across.id, 3);

    const Choice two_clusters = choose(HIER_OP_ALLTOALL, HIER_ALG_AUTO, Topology({0, 1, 2}, {0, 1, 1}), 64);
    ASSERT_NE(two_clusters.algorithm, nullptr);
    EXPECT_STREQ(two_clusters.algorithm->name, "lg");

    const Choice one_node = choose(HIER_OP_ALLTOALL, HIER_ALG_AUTO, Topology::from_node_sizes({8}), 64);
    EXPECT_EQ(one_node.algorithm, nullptr);
    EXPECT_EQ(one_node.id, HIER_ALG_FALLBACK);
    EXPECT_STREQ(one_node.reason, "all ranks on one node");
}

TEST(Registry, NamedAlgorithmRunsEvenOnOneNode)
{
    const Choice choice = choose(HIER_OP_ALLTOALL, 5, Topology::from_node_sizes({8}), 64);
    ASSERT_NE(choice.algorithm, nullptr);
    EXPECT_STREQ(choice.algorithm->name, "pairwise");
    EXPECT_STREQ(choose(HIER_OP_ALLTOALL, HIER_ALG_FALLBACK, Topology::from_node_sizes({2, 2}), 64).reason,
                 "requested");
    const Choice unfit = choose(HIER_OP_ALLTOALL, 2, Topology::from_node_sizes({2, 2}), 64);
    EXPECT_EQ(unfit.algorithm, nullptr);
    ASSERT_NE(unfit.unfit, nullptr);
    EXPECT_STREQ(unfit.unfit->name, "lg");
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
    EXPECT_EQ(chosen, 3);
    EXPECT_EQ(hier_comm_select(comm, HIER_OP_ALLTOALL, 3, -1, 4096, &chosen, reason, sizeof reason), first);
    EXPECT_EQ(hier_schedule_tmp_blocks(first), 0u);
    EXPECT_EQ(hier_comm_select(comm, HIER_OP_ALLTOALL, HIER_ALG_FALLBACK, -1, 8, &chosen, reason, sizeof reason), nullptr);
    EXPECT_EQ(chosen, HIER_ALG_FALLBACK);
    EXPECT_STREQ(reason, "requested");
    EXPECT_EQ(hier_comm_select(comm, HIER_OP_ALLTOALL, 2, -1, 8, &chosen, reason, sizeof reason), nullptr);
    EXPECT_STREQ(reason, "lg does not apply: needs exactly two clusters (coll_hier_cluster_map)");
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
    EXPECT_STREQ(hier_algorithm_name(HIER_OP_ALLTOALL, chosen), "lg");
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
