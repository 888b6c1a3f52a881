/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The textbook alltoall family (ring, ring both ways, mesh, XOR) and the
// schedules that model Open MPI's own algorithms (linear, pairwise, modified
// Bruck): every block where it belongs, byte for byte at several windows,
// and the round counts the texts state.
#include <gtest/gtest.h>

#include <cmath>

#include "grid_exchange.h"
#include "harness.h"
#include "tuned_alltoall.h"

namespace hier {
namespace {

struct Family {
    const char *name;
    Builder build;
    bool (*applies)(int p);
    // Rounds in which messages move, for p ranks.
    size_t (*message_rounds)(int p);
};

bool any_p(int) { return true; }
bool power_of_two(int p) { return (p & (p - 1)) == 0; }
size_t p_minus_one(int p) { return size_t(p - 1); }
size_t half_round(int p) { return size_t(p / 2); }  // ceil((p - 1) / 2)
size_t mesh_rounds(int p)
{
    int rows = 1;
    for (int r = 1; r * r <= p; ++r) {
        rows = p % r == 0 ? r : rows;
    }
    return size_t(rows - 1 + p / rows - 1);
}
size_t log_rounds(int p)
{
    size_t rounds = 0;
    for (int d = 1; d < p; d <<= 1) {
        ++rounds;
    }
    return rounds;
}

const Family kFamilies[] = {
    {"ring", build_ring_alltoall, any_p, p_minus_one},
    {"ring2", build_ring2_alltoall, any_p, half_round},
    {"mesh", build_mesh_alltoall, any_p, mesh_rounds},
    {"xor", build_xor_alltoall, power_of_two, p_minus_one},
    {"tuned linear", build_tuned_linear_alltoall, any_p, [](int p) { return size_t(p > 1); }},
    {"tuned pairwise", build_tuned_pairwise_alltoall, any_p, p_minus_one},
    {"bruck", build_bruck_alltoall, any_p, log_rounds},
};

void check(const Family &family, const Topology &topology, bool all_windows)
{
    SCOPED_TRACE(std::string(family.name) + " on nodes " + topology.describe());
    const auto schedules = test::build_all(family.build, topology);
    const SimulationReport report = test::simulate_op(HIER_OP_ALLTOALL, topology, schedules);
    ASSERT_EQ(report.error, "");
    EXPECT_EQ(report.steps, family.message_rounds(topology.size()));
    for (int window : test::kWindows) {
        EXPECT_EQ(test::run_alltoall_bytes(topology, schedules, 3, window), "") << "window " << window;
        if (!all_windows) {
            break;
        }
    }
}

TEST(Textbook, EveryPUpTo64ByteExactWithTheTextsRoundCounts)
{
    for (const Family &family : kFamilies) {
        for (int p = 1; p <= 64; ++p) {
            if (family.applies(p)) {
                check(family, Topology::from_node_sizes({p}), true);
            }
        }
    }
}

TEST(Textbook, RandomTopologiesByteExact)
{
    std::mt19937 random(2003);
    for (int trial = 0; trial < 40; ++trial) {
        const Topology topology = test::random_topology(random, 64, 6);
        for (const Family &family : kFamilies) {
            if (family.applies(topology.size())) {
                check(family, topology, trial % 4 == 0);
            }
        }
    }
}

TEST(Textbook, RingSendsHalfThePayloadPerRoundOnAverage)
{
    // Round t moves p - t blocks per process: p (p - 1) / 2 blocks per process in all.
    for (int p : {2, 5, 8, 13}) {
        const Topology topology = Topology::from_node_sizes(std::vector<int>(size_t(p), 1));
        const auto report = test::simulate_op(HIER_OP_ALLTOALL, topology, test::build_all(build_ring_alltoall, topology));
        EXPECT_EQ(report.inter_node_blocks, size_t(p) * size_t(p) * size_t(p - 1) / 2) << "p = " << p;
        EXPECT_EQ(report.max_nic_load, 1u);
    }
}

TEST(Textbook, MeshGridIsTheSquarestDivisorPair)
{
    EXPECT_EQ(mesh_dims(Topology::from_node_sizes({16})), (std::vector<int>{4, 4}));
    EXPECT_EQ(mesh_dims(Topology::from_node_sizes({12})), (std::vector<int>{3, 4}));
    EXPECT_EQ(mesh_dims(Topology::from_node_sizes({13})), (std::vector<int>{1, 13}));  // prime: the ring
    EXPECT_EQ(mesh_dims(Topology::from_node_sizes({1})), (std::vector<int>{1, 1}));
    // Square grids: 2 (sqrt(p) - 1) rounds with messages.
    for (int side = 1; side <= 8; ++side) {
        EXPECT_EQ(mesh_rounds(side * side), size_t(2 * (side - 1)));
    }
}

TEST(Textbook, MeshOnATorusIsTheTorusAndSendsToNeighboursOnly)
{
    // One ring phase per torus dimension: sum of (k - 1) rounds, every
    // message to a neighbour (the next of its ring), every block where it
    // belongs.
    for (const std::vector<int> &dims : {std::vector<int>{4, 4}, std::vector<int>{2, 3, 4}, std::vector<int>{3, 1, 3},
                                         std::vector<int>{7, 5}}) {
        const Topology torus = Topology::from_torus_dims(dims);
        SCOPED_TRACE("torus " + torus.torus()->describe());
        EXPECT_EQ(mesh_dims(torus), dims);
        const auto schedules = test::build_all(build_mesh_alltoall, torus);
        const SimulationReport report = test::simulate_op(HIER_OP_ALLTOALL, torus, schedules);
        ASSERT_EQ(report.error, "");
        size_t rounds = 0;
        for (int k : dims) {
            rounds += size_t(k - 1);
        }
        EXPECT_EQ(report.steps, rounds);
        for (int rank = 0; rank < torus.size(); ++rank) {
            const Schedule &schedule = schedules[rank];
            for (const Round &round : schedule.rounds()) {
                const Op *ops = schedule.ops(round);
                for (size_t i = 0; i < schedule.op_count(round); ++i) {
                    if (ops[i].kind == OpKind::Send) {
                        EXPECT_EQ(torus.torus()->route(rank, ops[i].peer).size(), 1u) << rank << " -> " << ops[i].peer;
                    }
                }
            }
        }
        for (int window : test::kWindows) {
            EXPECT_EQ(test::run_alltoall_bytes(torus, schedules, 3, window), "") << "window " << window;
        }
    }
}

TEST(Textbook, GridInThreeDimensionsAndBothWays)
{
    // The D-dimensional generalization, and both ways round on every phase.
    for (const std::vector<int> &dims : {std::vector<int>{2, 3, 4}, std::vector<int>{3, 1, 3}, std::vector<int>{5, 2},
                                         std::vector<int>{2, 2, 2, 2}}) {
        int p = 1;
        for (int k : dims) {
            p *= k;
        }
        const Topology topology = Topology::from_node_sizes({p});
        for (bool both_ways : {false, true}) {
            std::vector<Schedule> schedules;
            for (int rank = 0; rank < p; ++rank) {
                schedules.push_back(build_grid_alltoall(Grid{dims}, rank, both_ways));
            }
            const auto report = test::simulate_op(HIER_OP_ALLTOALL, topology, schedules);
            ASSERT_EQ(report.error, "");
            size_t rounds = 0;
            for (int k : dims) {
                rounds += size_t(both_ways ? k / 2 : k - 1);
            }
            EXPECT_EQ(report.steps, rounds);
            for (int window : test::kWindows) {
                EXPECT_EQ(test::run_alltoall_bytes(topology, schedules, 2, window), "");
            }
        }
    }
}

TEST(Textbook, XorAppliesToPowersOfTwoOnly)
{
    EXPECT_EQ(xor_unfit(Topology::from_node_sizes({8})), nullptr);
    EXPECT_EQ(xor_unfit(Topology::from_node_sizes({1})), nullptr);
    EXPECT_NE(xor_unfit(Topology::from_node_sizes({6})), nullptr);
}

} // namespace
} // namespace hier
