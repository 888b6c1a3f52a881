// The algorithm table, selection, and the C ABI the component uses.
#include <gtest/gtest.h>

#include <cstring>

#include "hier_core.h"
#include "registry.h"

namespace hier {
namespace {

TEST(Registry, AlltoallIdsAreAutoFallbackThenTheTable)
{
    ASSERT_EQ(hier_algorithm_count(HIER_OP_ALLTOALL), 5);
    EXPECT_STREQ(hier_algorithm_name(HIER_OP_ALLTOALL, HIER_ALG_AUTO), "auto");
    EXPECT_STREQ(hier_algorithm_name(HIER_OP_ALLTOALL, HIER_ALG_FALLBACK), "fallback");
    EXPECT_STREQ(hier_algorithm_name(HIER_OP_ALLTOALL, 2), "factor");
    EXPECT_STREQ(hier_algorithm_name(HIER_OP_ALLTOALL, 3), "edgecolor");
    EXPECT_STREQ(hier_algorithm_name(HIER_OP_ALLTOALL, 4), "pairwise");
    EXPECT_EQ(hier_algorithm_name(HIER_OP_ALLTOALL, 5), nullptr);
    for (int id = 0; id < 5; ++id) {
        EXPECT_NE(hier_algorithm_description(HIER_OP_ALLTOALL, id), nullptr);
    }
    EXPECT_STREQ(hier_op_name(HIER_OP_ALLTOALL), "alltoall");
}

TEST(Registry, AutoPicksFactorAcrossNodesAndFallbackOnOneNode)
{
    const Choice across = choose(HIER_OP_ALLTOALL, HIER_ALG_AUTO, Topology::from_node_sizes({4, 3, 2, 1}), 64);
    ASSERT_NE(across.algorithm, nullptr);
    EXPECT_STREQ(across.algorithm->name, "factor");
    EXPECT_EQ(across.id, 2);

    const Choice one_node = choose(HIER_OP_ALLTOALL, HIER_ALG_AUTO, Topology::from_node_sizes({8}), 64);
    EXPECT_EQ(one_node.algorithm, nullptr);
    EXPECT_EQ(one_node.id, HIER_ALG_FALLBACK);
    EXPECT_STREQ(one_node.reason, "all ranks on one node");
}

TEST(Registry, NamedAlgorithmRunsEvenOnOneNode)
{
    const Choice choice = choose(HIER_OP_ALLTOALL, 4, Topology::from_node_sizes({8}), 64);
    ASSERT_NE(choice.algorithm, nullptr);
    EXPECT_STREQ(choice.algorithm->name, "pairwise");
    EXPECT_STREQ(choose(HIER_OP_ALLTOALL, HIER_ALG_FALLBACK, Topology::from_node_sizes({2, 2}), 64).reason,
                 "requested");
}

TEST(CApi, SelectCachesOneSchedulePerAlgorithm)
{
    const int node_of_rank[] = {0, 0, 0, 1, 1, 2};
    hier_comm_t *comm = hier_comm_create(6, 4, node_of_rank);
    ASSERT_NE(comm, nullptr);
    EXPECT_EQ(hier_comm_node_count(comm), 3);
    int chosen = -1;
    char reason[128] = "";
    const hier_schedule_t *first = hier_comm_select(comm, HIER_OP_ALLTOALL, HIER_ALG_AUTO, -1, 8, &chosen, reason, sizeof reason);
    ASSERT_NE(first, nullptr);
    EXPECT_EQ(chosen, 2);
    EXPECT_EQ(hier_comm_select(comm, HIER_OP_ALLTOALL, 2, -1, 4096, &chosen, reason, sizeof reason), first);
    EXPECT_EQ(hier_schedule_tmp_blocks(first), 0u);
    EXPECT_EQ(hier_comm_select(comm, HIER_OP_ALLTOALL, HIER_ALG_FALLBACK, -1, 8, &chosen, reason, sizeof reason), nullptr);
    EXPECT_EQ(chosen, HIER_ALG_FALLBACK);
    EXPECT_STREQ(reason, "requested");
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
