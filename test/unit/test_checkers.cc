/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The checkers themselves: a simulator or transport that cannot fail would
// make every other test meaningless, so each is shown a broken schedule.
#include <gtest/gtest.h>

#include "harness.h"
#include "memory_transport.h"

namespace hier {
namespace {

// Two ranks that both wait for the other before sending.
std::vector<Schedule> deadlocked_pair()
{
    std::vector<Schedule> schedules;
    for (int rank = 0; rank < 2; ++rank) {
        ScheduleBuilder b(rank, 2);
        const int peer = 1 - rank;
        b.copy(0, block(HIER_BUF_SEND, rank), block(HIER_BUF_RECV, rank));
        b.recv(1, peer, block(HIER_BUF_RECV, peer));
        b.send(2, peer, block(HIER_BUF_SEND, peer));
        schedules.push_back(b.build());
    }
    return schedules;
}

// A correct two-rank exchange, to be broken in one place by each test.
std::vector<Schedule> exchange_pair(Region (*recv_region)(int peer), uint32_t rank1_step = 1)
{
    std::vector<Schedule> schedules;
    for (int rank = 0; rank < 2; ++rank) {
        ScheduleBuilder b(rank, 2);
        const int peer = 1 - rank;
        b.copy(0, block(HIER_BUF_SEND, rank), block(HIER_BUF_RECV, rank));
        b.exchange(rank == 1 ? rank1_step : 1, peer, block(HIER_BUF_SEND, peer), recv_region(peer));
        schedules.push_back(b.build());
    }
    return schedules;
}

Region right_place(int peer) { return block(HIER_BUF_RECV, peer); }
Region wrong_place(int peer) { return block(HIER_BUF_RECV, 1 - peer); }
Region two_blocks(int) { return Region{HIER_BUF_RECV, 0, 2}; }

const Topology kTwoNodes = Topology::from_node_sizes({1, 1});

TEST(Checkers, CorrectExchangePasses)
{
    const auto schedules = exchange_pair(right_place);
    EXPECT_EQ(simulate(kTwoNodes, schedules, alltoall_contract(2)).error, "");
    EXPECT_EQ(test::run_alltoall_bytes(kTwoNodes, schedules), "");
}

TEST(Checkers, DeadlockIsReportedNotHung)
{
    const auto schedules = deadlocked_pair();
    EXPECT_NE(test::run_alltoall_bytes(kTwoNodes, schedules).find("deadlock"), std::string::npos);
    EXPECT_NE(simulate(kTwoNodes, schedules, alltoall_contract(2)).error, "");
}

TEST(Checkers, MisplacedBlockIsCaught)
{
    const auto schedules = exchange_pair(wrong_place);
    EXPECT_NE(simulate(kTwoNodes, schedules, alltoall_contract(2)).error, "");
    EXPECT_NE(test::run_alltoall_bytes(kTwoNodes, schedules), "");
}

TEST(Checkers, SizeMismatchIsCaught)
{
    const auto schedules = exchange_pair(two_blocks);
    EXPECT_NE(simulate(kTwoNodes, schedules, alltoall_contract(2)).error, "");
    EXPECT_NE(test::run_alltoall_bytes(kTwoNodes, schedules).find("bytes"), std::string::npos);
}

TEST(Checkers, SendAndReceiveInDifferentStepsAreCaughtBySimulator)
{
    const auto schedules = exchange_pair(right_place, 2);
    EXPECT_NE(simulate(kTwoNodes, schedules, alltoall_contract(2)).error.find("not sent in that step"),
              std::string::npos);
}

TEST(Checkers, DuplicateDeliveryIsCaught)
{
    std::vector<Schedule> schedules;
    for (int rank = 0; rank < 2; ++rank) {
        ScheduleBuilder b(rank, 2);
        const int peer = 1 - rank;
        b.copy(0, block(HIER_BUF_SEND, rank), block(HIER_BUF_RECV, rank));
        b.exchange(1, peer, block(HIER_BUF_SEND, peer), block(HIER_BUF_RECV, peer));
        b.exchange(2, peer, block(HIER_BUF_SEND, peer), block(HIER_BUF_RECV, peer));
        schedules.push_back(b.build());
    }
    EXPECT_NE(simulate(kTwoNodes, schedules, alltoall_contract(2)).error.find("delivered 2 times"),
              std::string::npos);
}

TEST(Checkers, PortLoadCountsMessagesPerNodeAndStep)
{
    // Pairwise on one node of 4: two exchanges in the node per step.
    const Topology one_node = Topology::from_node_sizes({4});
    const auto report = simulate(one_node, test::build_all(build_pairwise_alltoall, one_node), alltoall_contract(4));
    ASSERT_EQ(report.error, "");
    EXPECT_EQ(report.max_port_load, 4u);
    EXPECT_EQ(report.intra_node_messages, 12u);
    EXPECT_EQ(report.inter_node_messages, 0u);
}

TEST(Checkers, RegionOutsideItsBufferIsCaught)
{
    std::vector<Schedule> schedules;
    for (int rank = 0; rank < 2; ++rank) {
        ScheduleBuilder b(rank, 2);
        b.copy(0, block(HIER_BUF_SEND, 5), block(HIER_BUF_RECV, rank));
        schedules.push_back(b.build());
    }
    EXPECT_NE(test::run_alltoall_bytes(kTwoNodes, schedules).find("outside"), std::string::npos);
    EXPECT_NE(simulate(kTwoNodes, schedules, alltoall_contract(2)).error, "");
}

TEST(Checkers, AlltoallvCatchesMisplacedBlocksAndUserRegionsOfSeveralBlocks)
{
    const std::vector<std::vector<size_t>> bytes = {{3, 0}, {5, 2}};
    EXPECT_EQ(test::run_alltoallv_bytes(kTwoNodes, exchange_pair(right_place), bytes, 1), "");
    EXPECT_NE(test::run_alltoallv_bytes(kTwoNodes, exchange_pair(wrong_place), bytes, 1), "");
    // Both ranks send SEND blocks 0 and 1 as one region: not contiguous when
    // blocks have displacements of their own.
    std::vector<Schedule> schedules;
    for (int rank = 0; rank < 2; ++rank) {
        ScheduleBuilder b(rank, 2);
        b.send(0, 1 - rank, Region{HIER_BUF_SEND, 0, 2});
        b.recv(0, 1 - rank, Region{HIER_BUF_TMP, 0, 2});
        schedules.push_back(b.build());
    }
    EXPECT_NE(test::run_alltoallv_bytes(kTwoNodes, schedules, bytes, 1).find("not contiguous"), std::string::npos);
}

} // namespace
} // namespace hier
