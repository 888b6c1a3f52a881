/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// node_lg: LG with every SMP node as its own group. Byte for byte on random
// uneven nodes, placed at random, with clusters and without, for alltoall
// and alltoallv; the aggregated message count between nodes; where it
// applies; and auto weighing it, the same way on every call, by both models.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "autoselect.h"
#include "harness.h"
#include "registry.h"
#include "scale_model.h"

namespace hier {
namespace {

const Algorithm *node_lg_row()
{
    for (const Algorithm *algorithm : algorithms_for(HIER_OP_ALLTOALL)) {
        if (std::string(algorithm->name) == "node_lg") {
            return algorithm;
        }
    }
    return nullptr;
}

// 2 max(na, nb) messages between every pair of nodes, and no other
// inter-node message.
size_t expected_inter_node_messages(const Topology &topology)
{
    size_t messages = 0;
    for (int a = 0; a < topology.node_count(); ++a) {
        for (int b = a + 1; b < topology.node_count(); ++b) {
            messages += 2 * size_t(std::max(topology.node_size(a), topology.node_size(b)));
        }
    }
    return messages;
}

// The same nodes, consecutive nodes grouped into `clusters` clusters.
Topology with_clusters(const Topology &nodes, int clusters)
{
    std::vector<int> node_of_rank(size_t(nodes.size()));
    for (int rank = 0; rank < nodes.size(); ++rank) {
        node_of_rank[size_t(rank)] = nodes.node_of(rank);
    }
    std::vector<int> cluster_of_node(size_t(nodes.node_count()));
    for (int node = 0; node < nodes.node_count(); ++node) {
        cluster_of_node[size_t(node)] = node * clusters / nodes.node_count();
    }
    return Topology(node_of_rank, cluster_of_node);
}

void check_node_lg(const Topology &topology, std::mt19937 &random, bool every_window)
{
    SCOPED_TRACE("nodes " + topology.describe() + ", " + std::to_string(topology.cluster_count()) + " clusters");
    ASSERT_EQ(node_lg_unfit(topology), nullptr);
    const auto schedules = test::build_all(build_node_lg_alltoall, topology);
    const SimulationReport report = test::simulate_op(HIER_OP_ALLTOALL, topology, schedules);
    ASSERT_EQ(report.error, "");
    EXPECT_EQ(report.inter_node_messages, expected_inter_node_messages(topology));
    for (int window : test::kWindows) {
        EXPECT_EQ(test::run_alltoall_bytes(topology, schedules, 3, window), "") << "window " << window;
        const auto bytes = test::random_alltoallv_bytes(random, topology.size(), 7);
        EXPECT_EQ(test::run_alltoallv_bytes(topology, schedules, bytes, 5, window), "") << "window " << window;
        if (!every_window) {
            break;
        }
    }
}

TEST(NodeLg, AppliesFromTwoNodesWithSomeNodeOfTwoRanks)
{
    EXPECT_NE(node_lg_unfit(Topology::from_node_sizes({5})), nullptr);
    EXPECT_NE(node_lg_unfit(Topology::from_node_sizes({1, 1, 1})), nullptr);
    EXPECT_NE(node_lg_unfit(Topology({0, 1, 2}, {0, 1, 1})), nullptr);
    EXPECT_EQ(node_lg_unfit(Topology::from_node_sizes({2, 1})), nullptr);
    EXPECT_EQ(node_lg_unfit(Topology::from_node_sizes({1, 1, 3})), nullptr);
    EXPECT_EQ(node_lg_unfit(with_clusters(Topology::from_node_sizes({3, 3}), 2)), nullptr);
    const Algorithm *row = node_lg_row();
    ASSERT_NE(row, nullptr);
    EXPECT_TRUE(row->runs_alltoallv());
    EXPECT_NE(std::find(algorithms_for(HIER_OP_ALLTOALLV).begin(), algorithms_for(HIER_OP_ALLTOALLV).end(), row),
              algorithms_for(HIER_OP_ALLTOALLV).end());
}

TEST(NodeLg, EveryMultisetOfSmallNodes)
{
    std::mt19937 random(3);
    for (const auto &sizes : test::node_size_multisets(5, 4)) {
        const Topology topology = Topology::from_node_sizes(sizes);
        if (node_lg_unfit(topology)) {
            continue;
        }
        check_node_lg(topology, random, true);
        check_node_lg(test::interleaved(sizes), random, false);
    }
}

TEST(NodeLg, RandomUnevenNodesWithAndWithoutClustersByteExact)
{
    std::mt19937 random(22);
    int checked = 0;
    for (int trial = 0; trial < 60; ++trial) {
        const Topology nodes = test::random_topology(random, 2 + trial * 2, 1 + trial % 9);
        if (node_lg_unfit(nodes)) {
            continue;
        }
        check_node_lg(nodes, random, trial % 4 == 0);
        if (nodes.node_count() >= 3) {
            check_node_lg(with_clusters(nodes, 2 + trial % 2), random, false);
        }
        ++checked;
    }
    EXPECT_GE(checked, 40);
}

TEST(NodeLg, IsLgAtOnceWithTheNodesAsClusters)
{
    // The row adds no schedule of its own: on one-cluster-per-node
    // topologies it is lg_at_once exactly.
    for (const std::vector<int> &sizes : {std::vector<int>{4, 3, 2, 1}, std::vector<int>{3, 3}, {1, 5, 2}}) {
        std::vector<int> node_of_rank, cluster_of_node;
        for (size_t node = 0; node < sizes.size(); ++node) {
            node_of_rank.insert(node_of_rank.end(), size_t(sizes[node]), int(node));
            cluster_of_node.push_back(int(node));
        }
        const Topology topology(node_of_rank, cluster_of_node);
        for (int rank = 0; rank < topology.size(); ++rank) {
            const Schedule ours = build_node_lg_alltoall(Topology(node_of_rank), Plans(), rank, -1);
            const Schedule theirs = build_lg_at_once_alltoall(topology, Plans(), rank, -1);
            ASSERT_EQ(ours.rounds().size(), theirs.rounds().size());
            EXPECT_EQ(ours.tmp_blocks(), theirs.tmp_blocks());
            for (size_t r = 0; r < ours.rounds().size(); ++r) {
                const Round &a = ours.rounds()[r], &b = theirs.rounds()[r];
                ASSERT_EQ(ours.op_count(a), theirs.op_count(b));
                EXPECT_EQ(a.step, b.step);
                for (size_t i = 0; i < ours.op_count(a); ++i) {
                    const Op &x = ours.ops(a)[i], &y = theirs.ops(b)[i];
                    EXPECT_TRUE(x.kind == y.kind && x.peer == y.peer && x.from.buffer == y.from.buffer &&
                                x.from.first == y.from.first && x.from.count == y.from.count &&
                                x.to.buffer == y.to.buffer && x.to.first == y.to.first && x.to.count == y.to.count)
                        << "rank " << rank << ", round " << r << ", op " << i;
                }
            }
        }
    }
}

// auto weighs node_lg wherever it applies, by the simulator up to 128 ranks
// and by the scale model above, and decides the same on every call.
TEST(NodeLg, AutoWeighsItAndDecidesTheSameEveryTime)
{
    const Algorithm *row = node_lg_row();
    ASSERT_NE(row, nullptr);
    std::vector<int> uneven;
    for (int i = 0; i < 40; ++i) {
        uneven.push_back(1 + (i * 5) % 12);
    }
    const std::vector<Topology> topologies = {
        Topology::from_node_sizes({4, 3, 2, 1}),
        with_clusters(Topology::from_node_sizes(std::vector<int>(8, 4)), 2),
        Topology::from_node_sizes(std::vector<int>(64, 16)),
        with_clusters(Topology::from_node_sizes(uneven), 3),
    };
    const LinkCostSpec unknown;
    for (const Topology &topology : topologies) {
        for (size_t block : {size_t(1), size_t(96), size_t(12288)}) {
            SCOPED_TRACE(topology.describe() + ", " + std::to_string(block) + " B");
            const Comparison first = compare_alltoall(topology, Plans(), block, 1, unknown);
            const Comparison again = compare_alltoall(topology, Plans(), block, 1, unknown);
            ASSERT_EQ(first.why_not, nullptr);
            EXPECT_EQ(first.scale_model, topology.size() > kMaxModelledRanks);
            EXPECT_EQ(first.choice.id, again.choice.id);
            EXPECT_EQ(first.rows.size(), again.rows.size());
            const auto weighed = std::find_if(first.rows.begin(), first.rows.end(),
                                              [&](const Contender &c) { return c.algorithm == row; });
            ASSERT_NE(weighed, first.rows.end());
            EXPECT_TRUE(weighed->modelled());
            const auto index = size_t(weighed - first.rows.begin());
            for (size_t m = 0; m < first.machines.size(); ++m) {
                EXPECT_TRUE(std::isfinite(weighed->predictions[m].seconds));
                EXPECT_GT(weighed->predictions[m].seconds, 0);
                EXPECT_EQ(weighed->predictions[m].seconds, again.rows[index].predictions[m].seconds);
            }
        }
    }
}

} // namespace
} // namespace hier
