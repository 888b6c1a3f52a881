/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The flat 1-factor alltoall of the encyclopedia text.
#include <gtest/gtest.h>

#include "harness.h"

namespace hier {
namespace {

TEST(Pairwise, RoundsAndBytesForEveryPUpTo64)
{
    for (int p = 1; p <= 64; ++p) {
        SCOPED_TRACE("p = " + std::to_string(p));
        const Topology topology = Topology::from_node_sizes({p});
        const auto schedules = test::build_all(build_pairwise_alltoall, topology);
        const SimulationReport report = simulate(topology, schedules, alltoall_contract(p));
        ASSERT_EQ(report.error, "");
        // (p - 1) rounds for even p, p for odd p; p = 1 is one copy.
        const size_t rounds = p == 1 ? 1 : (p % 2 ? p : p - 1);
        EXPECT_EQ(report.rounds, rounds);
        EXPECT_EQ(report.steps, p == 1 ? 0u : rounds);
        for (int window : test::kWindows) {
            EXPECT_EQ(test::run_alltoall_bytes(topology, schedules, 5, window), "") << "window " << window;
        }
    }
}

TEST(Pairwise, RandomTopologiesByteExact)
{
    std::mt19937 random(7);
    for (int trial = 0; trial < 30; ++trial) {
        const Topology topology = test::random_topology(random, 100, 8);
        SCOPED_TRACE("nodes " + topology.describe());
        EXPECT_EQ(test::run_alltoall_bytes(topology, test::build_all(build_pairwise_alltoall, topology)), "");
    }
}

} // namespace
} // namespace hier
