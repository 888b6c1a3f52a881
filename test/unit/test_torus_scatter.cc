/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// OPT and SDF scatter and gather on tori (Mao, Chen and Watson): simulated
// step counts, the all-port rule (one message per link per step, neighbours
// only), and every byte through the in-memory transport for every root.
#include <gtest/gtest.h>

#include <iostream>
#include <sstream>

#include "harness.h"

namespace hier {
namespace {

// OPT on any partition, for every rank, from root.
std::vector<Schedule> opt_on(const Torus &torus, const TorusPartition &partition, int root)
{
    return opt_scatter_schedules_on(torus, partition, root);
}

// Every message goes to a torus neighbour.
std::string off_the_links(const Torus &torus, const std::vector<Schedule> &schedules)
{
    for (const Schedule &schedule : schedules) {
        for (const Round &round : schedule.rounds()) {
            const Op *ops = schedule.ops(round);
            for (size_t i = 0; i < schedule.op_count(round); ++i) {
                const bool message = ops[i].kind == OpKind::Send || ops[i].kind == OpKind::Recv;
                if (message && torus.distance(schedule.rank(), ops[i].peer) != 1) {
                    return "rank " + std::to_string(schedule.rank()) + " talks to rank " +
                           std::to_string(ops[i].peer) + ", which is no neighbour";
                }
            }
        }
    }
    return "";
}

// Simulates op on the schedules: everything delivered once, over links only,
// one message per link per step; returns the steps.
size_t simulate_all_port(hier_op_t op, const Topology &topology, const std::vector<Schedule> &schedules, int root)
{
    const SimulationReport report = test::simulate_op(op, topology, schedules, root);
    EXPECT_EQ(report.error, "");
    EXPECT_EQ(report.max_link_load, 1u);
    EXPECT_EQ(off_the_links(*topology.torus(), schedules), "");
    return report.steps;
}

void check_opt_steps(const std::vector<int> &dims, int root)
{
    const Topology topology = Topology::from_torus_dims(dims);
    const Plans plans;
    SCOPED_TRACE(topology.torus()->describe() + " root " + std::to_string(root));
    const int largest = plans.torus_partition(topology).largest();
    EXPECT_EQ(largest, torus_scatter_bound(*topology.torus()));
    for (hier_op_t op : {HIER_OP_SCATTER, HIER_OP_GATHER}) {
        EXPECT_EQ(simulate_all_port(op, topology, opt_schedules(topology, plans, op, root), root), size_t(largest));
    }
}

TEST(TorusOpt, StepsAreTheLargestRegionOnEveryTwoDimensionalTorusUpTo16x16)
{
    for (int a = 1; a <= 16; ++a) {
        for (int b = a; b <= 16; ++b) {
            if (a * b > 1) {
                check_opt_steps({a, b}, a * b / 2);
            }
        }
    }
}

TEST(TorusOpt, StepsAreTheLargestRegionOnEveryThreeDimensionalTorusUpTo8x8x8)
{
    for (int a = 1; a <= 8; ++a) {
        for (int b = a; b <= 8; ++b) {
            for (int c = b; c <= 8; ++c) {
                if (a * b * c > 1) {
                    check_opt_steps({a, b, c}, a * b * c - 1);
                }
            }
        }
    }
}

TEST(TorusOpt, PaperReferenceValues)
{
    check_opt_steps({7, 5}, 0);
    check_opt_steps({8, 8}, 0);
    check_opt_steps({4, 8, 8}, 0);
    EXPECT_EQ(opt_scatter_steps(Plans().torus_partition(Topology::from_torus_dims({7, 5}))), 9u);
    EXPECT_EQ(opt_scatter_steps(Plans().torus_partition(Topology::from_torus_dims({8, 8}))), 16u);
    EXPECT_EQ(opt_scatter_steps(Plans().torus_partition(Topology::from_torus_dims({4, 8, 8}))), 43u);
}

// The steps follow the partition, whatever it is: the paper's naive split of
// 8x8 takes 20 steps, the greedy's unbalanced partition of 3x3 takes 3.
TEST(TorusOpt, StepsFollowAnyValidPartition)
{
    const Topology square = Topology::from_torus_dims({8, 8});
    const Torus &torus = *square.torus();
    std::vector<int> naive(64, -1);  // the paper's 2a x 2b split as a pinwheel, see test_torus_partition.cc
    for (int v = 1; v < 64; ++v) {
        const int x = torus.coordinate(v, 0) > 4 ? torus.coordinate(v, 0) - 8 : torus.coordinate(v, 0);
        const int y = torus.coordinate(v, 1) > 4 ? torus.coordinate(v, 1) - 8 : torus.coordinate(v, 1);
        naive[v] = x >= 1 && y >= 0 ? 0 : x <= 0 && y >= 1 ? 2 : x <= -1 && y <= 0 ? 1 : 3;
    }
    const TorusPartition paper = partition_from_regions(torus, naive);
    ASSERT_EQ(partition_error(torus, paper), "");
    EXPECT_EQ(simulate_all_port(HIER_OP_SCATTER, square, opt_on(torus, paper, 9), 9), 20u);

    const Topology three = Topology::from_torus_dims({3, 3});
    const TorusPartition greedy = partition_torus(*three.torus(), false);
    EXPECT_EQ(simulate_all_port(HIER_OP_SCATTER, three, opt_on(*three.torus(), greedy, 4), 4), 3u);
}

// A broken tree (a node whose parent is two hops away) must fail the checks.
TEST(TorusOpt, BrokenTreeIsCaught)
{
    const Topology topology = Topology::from_torus_dims({5, 5});
    TorusPartition broken = Plans().torus_partition(topology);
    broken.parent[2 * 5 + 2] = broken.parent[broken.parent[2 * 5 + 2]];
    const auto schedules = opt_on(*topology.torus(), broken, 0);
    const SimulationReport report = test::simulate_op(HIER_OP_SCATTER, topology, schedules, 0);
    EXPECT_NE(report.error.find("not sent in that step"), std::string::npos) << report.error;
    EXPECT_NE(off_the_links(*topology.torus(), schedules), "");
}

TEST(TorusSdf, DeliversEverythingOverLinksInAtLeastTheBound)
{
    for (int a = 1; a <= 8; ++a) {
        for (int b = a; b <= 8; ++b) {
            const Topology topology = Topology::from_torus_dims({a, b});
            if (a * b == 1) {
                continue;
            }
            SCOPED_TRACE(topology.torus()->describe());
            const int root = (a * b) / 3;
            const size_t steps =
                simulate_all_port(HIER_OP_SCATTER, topology, sdf_schedules(topology, HIER_OP_SCATTER, root), root);
            EXPECT_EQ(steps, sdf_scatter_steps(*topology.torus()));
            EXPECT_GE(steps, size_t(torus_scatter_bound(*topology.torus())));
            EXPECT_EQ(simulate_all_port(HIER_OP_GATHER, topology, sdf_schedules(topology, HIER_OP_GATHER, root), root),
                      steps);
        }
    }
    for (const std::vector<int> &dims : {std::vector<int>{2, 2, 2}, {3, 3, 3}, {2, 3, 4}, {4, 4, 4}, {4, 8, 8}}) {
        const Topology topology = Topology::from_torus_dims(dims);
        EXPECT_EQ(simulate_all_port(HIER_OP_SCATTER, topology, sdf_schedules(topology, HIER_OP_SCATTER, 1), 1),
                  sdf_scatter_steps(*topology.torus()));
    }
}

bool same_schedule(const Schedule &a, const Schedule &b)
{
    if (a.rank() != b.rank() || a.tmp_blocks() != b.tmp_blocks() || a.rounds().size() != b.rounds().size()) {
        return false;
    }
    const auto same_region = [](Region x, Region y) {
        return x.buffer == y.buffer && x.first == y.first && x.count == y.count;
    };
    for (size_t r = 0; r < a.rounds().size(); ++r) {
        const Round &x = a.rounds()[r];
        const Round &y = b.rounds()[r];
        if (x.step != y.step || a.op_count(x) != b.op_count(y) || x.depends_on != y.depends_on) {
            return false;
        }
        for (size_t i = 0; i < a.op_count(x); ++i) {
            const Op &p = a.ops(x)[i];
            const Op &q = b.ops(y)[i];
            const bool has_from = p.kind != OpKind::Recv;
            const bool has_to = p.kind != OpKind::Send;
            if (p.kind != q.kind || p.peer != q.peer || (has_from && !same_region(p.from, q.from)) ||
                (has_to && !same_region(p.to, q.to))) {
                return false;
            }
        }
    }
    return true;
}

// Tests and tools build every rank at once; MPI builds one rank: the same
// schedules.
TEST(TorusSchedules, AllRanksAtOnceEqualOneRankAtATime)
{
    for (const std::vector<int> &dims : {std::vector<int>{7, 5}, {2, 3, 2}, {4, 4}, {1, 6}}) {
        const Topology topology = Topology::from_torus_dims(dims);
        const Plans plans;
        for (int root : {0, topology.size() - 2}) {
            SCOPED_TRACE(topology.torus()->describe() + " root " + std::to_string(root));
            const auto opt_scatter = opt_schedules(topology, plans, HIER_OP_SCATTER, root);
            const auto opt_gather = opt_schedules(topology, plans, HIER_OP_GATHER, root);
            const auto sdf_scatter = sdf_schedules(topology, HIER_OP_SCATTER, root);
            const auto sdf_gather = sdf_schedules(topology, HIER_OP_GATHER, root);
            for (int rank = 0; rank < topology.size(); ++rank) {
                EXPECT_TRUE(same_schedule(opt_scatter[rank], build_opt_scatter(topology, plans, rank, root))) << rank;
                EXPECT_TRUE(same_schedule(opt_gather[rank], build_opt_gather(topology, plans, rank, root))) << rank;
                EXPECT_TRUE(same_schedule(sdf_scatter[rank], build_sdf_scatter(topology, plans, rank, root))) << rank;
                EXPECT_TRUE(same_schedule(sdf_gather[rank], build_sdf_gather(topology, plans, rank, root))) << rank;
            }
            EXPECT_FALSE(same_schedule(opt_scatter[1], sdf_scatter[1]) && same_schedule(opt_scatter[2], sdf_scatter[2]));
        }
    }
}

// SDF's step counts against OPT's, printed for the record (SDF is a
// heuristic: no count is promised, only that it is never below OPT's).
TEST(TorusSdf, StepCountsAgainstOpt)
{
    std::ostringstream line;
    line << "sdf/opt steps:";
    for (const std::vector<int> &dims : {std::vector<int>{7, 5}, {8, 8}, {16, 16}, {4, 8, 8}, {8, 8, 8}}) {
        const Torus torus(dims);
        const uint32_t sdf = sdf_scatter_steps(torus);
        const uint32_t opt = opt_scatter_steps(partition_torus(torus));
        EXPECT_GE(sdf, opt) << torus.describe();
        line << " " << torus.describe() << " " << sdf << "/" << opt;
    }
    std::cout << line.str() << "\n";
}

// Every byte, every root, both algorithms, both collectives.
void check_bytes(const std::vector<int> &dims, bool all_windows)
{
    const Topology topology = Topology::from_torus_dims(dims);
    const Plans plans;
    const struct {
        hier_op_t op;
        Builder builder;
        const char *name;
    } cases[] = {
        {HIER_OP_SCATTER, build_opt_scatter, "opt scatter"},
        {HIER_OP_GATHER, build_opt_gather, "opt gather"},
        {HIER_OP_SCATTER, build_sdf_scatter, "sdf scatter"},
        {HIER_OP_GATHER, build_sdf_gather, "sdf gather"},
    };
    for (int root = 0; root < topology.size(); ++root) {
        for (const auto &c : cases) {
            SCOPED_TRACE(topology.torus()->describe() + " " + c.name + " root " + std::to_string(root));
            const auto schedules = test::build_all(c.builder, topology, plans, root);
            for (int window : test::kWindows) {
                EXPECT_EQ(test::run_bytes(c.op, topology, schedules, root, 3, window), "") << "window " << window;
                if (!all_windows) {
                    break;
                }
            }
        }
    }
}

TEST(TorusBytes, EveryRootOnSmallTori)
{
    const std::vector<std::vector<int>> tori = {{2}, {1, 5}, {1, 6}, {2, 2}, {2, 3}, {2, 5}, {2, 6},
                                                {3, 4}, {4, 4}, {7, 5}, {2, 2, 2}, {3, 3, 3}, {2, 3, 2}, {3, 1, 2}};
    for (const auto &dims : tori) {
        check_bytes(dims, Torus(dims).size() <= 16);
    }
}

TEST(TorusBytes, TimeReversalNeedsNoReduction)
{
    ScheduleBuilder b(0, 2);
    b.reduce(0, block(HIER_BUF_TMP, 0), block(HIER_BUF_RECV, 0));
    EXPECT_THROW(time_reversed(b.build(), 0), std::invalid_argument);
}

} // namespace
} // namespace hier
