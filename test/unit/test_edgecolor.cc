/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The edge-coloured alltoall: as many single-port steps as the busiest NIC
// has inter-node messages, and every byte where it belongs.
#include <gtest/gtest.h>

#include "harness.h"

namespace hier {
namespace {

// D = max_U |U| (p - |U|) is what the busiest NIC must send (and receive): no
// single-port schedule has fewer steps, and the colouring meets it exactly;
// with one node there are no inter-node messages and step 0 holds the
// shared-memory exchange.
void check_edgecolor(const Topology &topology)
{
    SCOPED_TRACE("nodes " + topology.describe());
    const auto schedules = test::build_all(build_edgecolor_alltoall, topology);
    const SimulationReport report = simulate(topology, schedules, alltoall_contract(topology.size()));
    ASSERT_EQ(report.error, "");
    const size_t busiest = edgecolor_steps(topology);
    const bool shared_memory = topology.largest_node_size() > 1;
    EXPECT_EQ(report.steps, std::max<size_t>(busiest, shared_memory ? 1 : 0));
    EXPECT_EQ(report.max_nic_load, topology.node_count() > 1 ? 1u : 0u);
    size_t inter = 0;
    for (int node = 0; node < topology.node_count(); ++node) {
        inter += size_t(topology.node_size(node)) * (topology.size() - topology.node_size(node));
    }
    EXPECT_EQ(report.inter_node_messages, inter);
    for (int window : test::kWindows) {
        EXPECT_EQ(test::run_alltoall_bytes(topology, schedules, 3, window), "") << "window " << window;
    }
}

TEST(EdgeColor, UnevenSmpMeetsTheBusiestNic)
{
    // 4,3,2,1: the node of 4 exchanges 4 * 6 = 24 messages each way; factor
    // needs 36 steps here (n(p - 1)), 30 of them counting inter-node ones only.
    const Topology topology = Topology::from_node_sizes({4, 3, 2, 1});
    EXPECT_EQ(edgecolor_steps(topology), 24u);
    check_edgecolor(topology);
}

TEST(EdgeColor, EveryMultisetUpToSixNodesOfFive)
{
    for (const auto &sizes : test::node_size_multisets(6, 5)) {
        check_edgecolor(Topology::from_node_sizes(sizes));
        check_edgecolor(test::interleaved(std::vector<int>(sizes.rbegin(), sizes.rend())));
    }
}

TEST(EdgeColor, RandomTopologiesUpTo256Ranks)
{
    // Each rank colours the whole communicator (milliseconds once per
    // communicator in the component, p times over here): fewer trials.
    std::mt19937 random(4242);
    for (int trial = 0; trial < 8; ++trial) {
        check_edgecolor(test::random_topology(random, 256, 16));
    }
}

} // namespace
} // namespace hier
