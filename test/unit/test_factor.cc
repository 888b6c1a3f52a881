/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The hierarchical factor alltoall against the paper (Sanders and Traeff)
// and against the bytes.
#include <gtest/gtest.h>

#include "harness.h"

namespace hier {
namespace {

using test::build_all;

// What we assert about steps, and why. In the single-port model a step moves
// at most one message out of and one into each node (max_port_load == 1), so
// a node of n processes, which must send n(p - 1) messages (its copies m_uu
// are local, not steps), needs at least n(p - 1) steps: the lower bound of
// NOTES-ON-PAPERS.md. For the upper bound: every round of a phase that moves
// local indices [done, current) lasts at most (current - done) * n steps
// (a pair (U, V) takes (current - done) * |V|, a self-pair
// (current - done) * (|U| - 1)), a phase has |A| rounds, and the sum over
// phases of |A| (current - done) is p; so steps <= n p = n(p - 1) + n. The
// additive term is at most n, within the n^2 that Theorem 1's proof allows.
void expect_paper_bounds(const Topology &topology, const SimulationReport &report)
{
    const size_t n = topology.largest_node_size();
    const size_t p = topology.size();
    EXPECT_EQ(report.max_port_load, p > 1 ? 1u : 0u);  // one process: nothing moves
    EXPECT_LE(report.max_nic_load, report.max_port_load);
    EXPECT_GE(report.steps, n * (p - 1));
    EXPECT_LE(report.steps, n * p);
    for (int node = 0; node < topology.node_count(); ++node) {
        EXPECT_EQ(report.node_messages[node], size_t(topology.node_size(node)) * (p - 1));
    }
}

void check_factor(const Topology &topology)
{
    SCOPED_TRACE("nodes " + topology.describe());
    const auto schedules = build_all(build_factor_alltoall, topology);
    const SimulationReport report = simulate(topology, schedules, alltoall_contract(topology.size()));
    ASSERT_EQ(report.error, "");
    expect_paper_bounds(topology, report);
    EXPECT_EQ(report.steps, plan_factor(topology).steps);
    for (int window : test::kWindows) {
        EXPECT_EQ(test::run_alltoall_bytes(topology, schedules, 3, window), "") << "window " << window;
    }
}

TEST(Factor, Figure3SizesOneTwoThree)
{
    const Topology topology = Topology::from_node_sizes({1, 2, 3});
    const FactorPlan plan = plan_factor(topology);
    ASSERT_EQ(plan.phases.size(), 3u);
    EXPECT_EQ(plan.phases[0].rounds.size(), 3u);
    EXPECT_EQ(plan.phases[1].rounds.size(), 2u);
    EXPECT_EQ(plan.phases[2].rounds.size(), 1u);
    const auto schedules = build_all(build_factor_alltoall, topology);
    const SimulationReport report = simulate(topology, schedules, alltoall_contract(6));
    ASSERT_EQ(report.error, "");
    EXPECT_EQ(report.steps, 15u);
    EXPECT_EQ(report.max_port_load, 1u);
    EXPECT_EQ(test::run_alltoall_bytes(topology, schedules), "");
}

TEST(Factor, HomogeneousIsOnePhaseOfNRoundsOfNSquaredSteps)
{
    // N nodes of n processes (NOTES-ON-PAPERS.md). A self-paired node needs
    // only n(n - 1) steps, so the n^2 holds when every round also has a pair
    // of two nodes: N >= 3.
    for (int nodes : {3, 4, 5}) {
        const Topology topology = Topology::from_node_sizes(std::vector<int>(nodes, 4));
        const FactorPlan plan = plan_factor(topology);
        ASSERT_EQ(plan.phases.size(), 1u);
        ASSERT_EQ(plan.phases[0].rounds.size(), size_t(nodes));
        for (const FactorRound &round : plan.phases[0].rounds) {
            EXPECT_EQ(round.steps, 16u);
        }
    }
}

TEST(Factor, EveryMultisetUpToSixNodesOfFive)
{
    for (const auto &sizes : test::node_size_multisets(6, 5)) {
        check_factor(Topology::from_node_sizes(sizes));
        std::vector<int> descending(sizes.rbegin(), sizes.rend());
        check_factor(test::interleaved(descending));
    }
}

TEST(Factor, RandomTopologiesUpTo256Ranks)
{
    std::mt19937 random(20021);
    for (int trial = 0; trial < 60; ++trial) {
        check_factor(test::random_topology(random, 256, 16));
    }
}

TEST(Factor, OneProcessPerNodeIsTheOneFactorAlgorithmWithSelfLoops)
{
    // Lemma 1: p rounds for any p, one exchange (or the own copy) per round;
    // from p = 3 on every round has a pair that exchanges, so p steps.
    for (int p = 3; p <= 12; ++p) {
        const Topology topology = Topology::from_node_sizes(std::vector<int>(p, 1));
        const FactorPlan plan = plan_factor(topology);
        ASSERT_EQ(plan.phases.size(), 1u);
        EXPECT_EQ(plan.phases[0].rounds.size(), size_t(p));
        const auto schedules = build_all(build_factor_alltoall, topology);
        const SimulationReport report = simulate(topology, schedules, alltoall_contract(p));
        ASSERT_EQ(report.error, "");
        EXPECT_EQ(report.steps, size_t(p)) << "p = " << p;
        EXPECT_EQ(test::run_alltoall_bytes(topology, schedules), "");
    }
}

} // namespace
} // namespace hier
