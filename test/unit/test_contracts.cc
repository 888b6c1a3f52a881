/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The contracts of the rooted and reducing collectives, and the barrier's
// causality check: hand-built schedules that are right must pass, and each
// way of breaking them must be caught, by the simulator and (where bytes
// move) by the in-memory transport.
#include <gtest/gtest.h>

#include "harness.h"
#include "registry.h"

namespace hier {
namespace {

const Topology kFourNodes = Topology::from_node_sizes({1, 1, 1, 1});

// Scatter straight from the root; `skip` names a rank left out, `misroute`
// sends rank 1's piece to rank 2 as well as its own.
std::vector<Schedule> direct_scatter(int p, int root, int skip = -1)
{
    std::vector<Schedule> schedules;
    for (int rank = 0; rank < p; ++rank) {
        ScheduleBuilder b(rank, p);
        if (rank == root) {
            for (int dest = 0; dest < p; ++dest) {
                if (dest == skip) {
                    continue;
                }
                if (dest == root) {
                    b.copy(0, block(HIER_BUF_SEND, dest), block(HIER_BUF_RECV, 0));
                } else {
                    b.send(0, dest, block(HIER_BUF_SEND, dest));
                }
            }
        } else if (rank != skip) {
            b.recv(0, root, block(HIER_BUF_RECV, 0));
        }
        schedules.push_back(b.build());
    }
    return schedules;
}

// The reverse: everyone sends its block straight to the root.
std::vector<Schedule> direct_gather(int p, int root)
{
    std::vector<Schedule> schedules;
    for (int rank = 0; rank < p; ++rank) {
        ScheduleBuilder b(rank, p);
        if (rank == root) {
            for (int source = 0; source < p; ++source) {
                if (source == root) {
                    b.copy(0, block(HIER_BUF_SEND, 0), block(HIER_BUF_RECV, source));
                } else {
                    b.recv(0, source, block(HIER_BUF_RECV, source));
                }
            }
        } else {
            b.send(0, root, block(HIER_BUF_SEND, 0));
        }
        schedules.push_back(b.build());
    }
    return schedules;
}

// Recursive doubling on a power of two: allgather (blocks land in rank
// order in RECV) or allreduce (exchange the partial result, reduce);
// `twice` makes rank 0 reduce its partner's partial result twice in step 0.
std::vector<Schedule> recursive_doubling(hier_op_t op, int p, bool twice = false)
{
    std::vector<Schedule> schedules;
    for (int rank = 0; rank < p; ++rank) {
        ScheduleBuilder b(rank, p);
        if (op == HIER_OP_ALLGATHER) {
            b.copy(0, block(HIER_BUF_SEND, 0), block(HIER_BUF_RECV, rank));
        } else {
            b.copy(0, block(HIER_BUF_SEND, 0), block(HIER_BUF_RECV, 0));
        }
        uint32_t step = 1;
        for (int distance = 1; distance < p; distance *= 2, ++step) {
            const int peer = rank ^ distance;
            if (op == HIER_OP_ALLGATHER) {
                const auto mine = uint32_t(rank & ~(distance - 1));
                const auto theirs = uint32_t(peer & ~(distance - 1));
                b.exchange(step, peer, Region{HIER_BUF_RECV, mine, uint32_t(distance)},
                           Region{HIER_BUF_RECV, theirs, uint32_t(distance)});
            } else {
                b.exchange(step, peer, block(HIER_BUF_RECV, 0), block(HIER_BUF_TMP, 0));
                b.reduce(step, block(HIER_BUF_TMP, 0), block(HIER_BUF_RECV, 0));
                if (twice && rank == 0 && distance == 1) {
                    b.reduce(step, block(HIER_BUF_TMP, 0), block(HIER_BUF_RECV, 0));
                }
            }
        }
        schedules.push_back(b.build());
    }
    return schedules;
}

// A barrier as a dissemination of empty messages, or (broken) as a gather
// to rank 0 alone, which lets every other rank leave before the rest enter.
std::vector<Schedule> dissemination_barrier(int p, bool gather_only = false)
{
    std::vector<Schedule> schedules;
    for (int rank = 0; rank < p; ++rank) {
        ScheduleBuilder b(rank, p);
        if (gather_only) {
            if (rank == 0) {
                for (int source = 1; source < p; ++source) {
                    b.recv(0, source, block(HIER_BUF_RECV, 0));
                }
            } else {
                b.send(0, 0, block(HIER_BUF_SEND, 0));
            }
        }
        for (int distance = 1, step = 0; distance < p && !gather_only; distance *= 2, ++step) {
            b.send(uint32_t(step), (rank + distance) % p, block(HIER_BUF_SEND, 0));
            b.recv(uint32_t(step), (rank - distance + p) % p, block(HIER_BUF_RECV, 0));
        }
        schedules.push_back(b.build());
    }
    return schedules;
}

TEST(Contracts, ScatterFromEveryRootPassesAndALeftOutRankIsCaught)
{
    for (int root = 0; root < 4; ++root) {
        const auto schedules = direct_scatter(4, root);
        EXPECT_EQ(test::simulate_op(HIER_OP_SCATTER, kFourNodes, schedules, root).error, "");
        EXPECT_EQ(test::run_bytes(HIER_OP_SCATTER, kFourNodes, schedules, root), "");
        // Checked against another root's contract, the blocks are misplaced.
        EXPECT_NE(test::run_bytes(HIER_OP_SCATTER, kFourNodes, schedules, (root + 1) % 4), "");
    }
    const auto missing = direct_scatter(4, 0, 2);
    EXPECT_NE(test::simulate_op(HIER_OP_SCATTER, kFourNodes, missing, 0).error, "");
    EXPECT_NE(test::run_bytes(HIER_OP_SCATTER, kFourNodes, missing, 0), "");
}

TEST(Contracts, GatherFromEveryRoot)
{
    for (int root = 0; root < 4; ++root) {
        const auto schedules = direct_gather(4, root);
        EXPECT_EQ(test::simulate_op(HIER_OP_GATHER, kFourNodes, schedules, root).error, "");
        EXPECT_EQ(test::run_bytes(HIER_OP_GATHER, kFourNodes, schedules, root), "");
    }
}

TEST(Contracts, AllgatherAndAllreduceByRecursiveDoubling)
{
    for (int p : {1, 2, 4, 8}) {
        const Topology topology = Topology::from_node_sizes(std::vector<int>(size_t(p), 1));
        for (hier_op_t op : {HIER_OP_ALLGATHER, HIER_OP_ALLREDUCE}) {
            const auto schedules = recursive_doubling(op, p);
            EXPECT_EQ(test::simulate_op(op, topology, schedules).error, "") << op_name(op) << " p " << p;
            for (int window : test::kWindows) {
                EXPECT_EQ(test::run_bytes(op, topology, schedules, -1, 5, window), "") << op_name(op) << " p " << p;
            }
        }
    }
}

TEST(Contracts, AContributionCountedTwiceIsCaught)
{
    const auto schedules = recursive_doubling(HIER_OP_ALLREDUCE, 4, true);
    EXPECT_NE(test::simulate_op(HIER_OP_ALLREDUCE, kFourNodes, schedules).error, "");
    EXPECT_NE(test::run_bytes(HIER_OP_ALLREDUCE, kFourNodes, schedules), "");
}

TEST(Contracts, ReducingWhereTheCollectiveDoesNotIsCaught)
{
    const auto schedules = recursive_doubling(HIER_OP_ALLREDUCE, 4);
    EXPECT_NE(test::simulate_op(HIER_OP_ALLGATHER, kFourNodes, schedules).error, "");
}

TEST(Contracts, BarrierNeedsEveryRankToHearFromEveryRank)
{
    for (int p : {2, 3, 5, 8, 13}) {
        const Topology topology = Topology::from_node_sizes(std::vector<int>(size_t(p), 1));
        const auto schedules = dissemination_barrier(p);
        EXPECT_EQ(test::simulate_op(HIER_OP_BARRIER, topology, schedules).error, "") << "p " << p;
        EXPECT_EQ(test::run_bytes(HIER_OP_BARRIER, topology, schedules), "") << "p " << p;
        for (int window : test::kWindows) {
            EXPECT_EQ(test::simulate_op(HIER_OP_BARRIER, topology, schedules, -1, window).error, "")
                << "p " << p << " window " << window;
        }
        const auto early_exit = dissemination_barrier(p, true);
        EXPECT_NE(test::simulate_op(HIER_OP_BARRIER, topology, early_exit).error.find("may leave before"),
                  std::string::npos)
            << "p " << p;
    }
}

} // namespace
} // namespace hier
