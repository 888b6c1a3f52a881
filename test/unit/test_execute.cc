/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The executor's window: what it posts ahead, and what it must not.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "execute.h"
#include "schedule.h"

namespace hier {
namespace {

// A transport that records the order of events and completes everything.
struct Recorder {
    std::vector<std::string> events;
    size_t outstanding = 0;

    static int send(void *ctx, int peer, hier_buffer_t, size_t first, size_t)
    {
        auto &r = *static_cast<Recorder *>(ctx);
        r.events.push_back("send" + std::to_string(peer) + ":" + std::to_string(first));
        ++r.outstanding;
        return 0;
    }
    static int recv(void *ctx, int peer, hier_buffer_t, size_t first, size_t)
    {
        auto &r = *static_cast<Recorder *>(ctx);
        r.events.push_back("recv" + std::to_string(peer) + ":" + std::to_string(first));
        ++r.outstanding;
        return 0;
    }
    static int complete(void *ctx, size_t count, int, int *done)
    {
        auto &r = *static_cast<Recorder *>(ctx);
        if (count > r.outstanding) {
            return 1;
        }
        r.outstanding -= count;
        r.events.push_back("complete" + std::to_string(count));
        *done = 1;
        return 0;
    }
    static int copy(void *ctx, hier_buffer_t, size_t from, hier_buffer_t, size_t to, size_t)
    {
        static_cast<Recorder *>(ctx)->events.push_back("copy" + std::to_string(from) + ">" + std::to_string(to));
        return 0;
    }
    hier_transport_t transport() { return hier_transport_t{this, send, recv, complete, copy}; }
};

std::vector<std::string> run(const Schedule &schedule, int window)
{
    Recorder recorder;
    const hier_transport_t transport = recorder.transport();
    EXPECT_EQ(execute(schedule, transport, window), 0);
    EXPECT_EQ(recorder.outstanding, 0u);
    return recorder.events;
}

TEST(Execute, IndependentRoundsArePostedAheadWithinTheWindow)
{
    ScheduleBuilder b(0, 4);
    b.send(0, 1, block(HIER_BUF_SEND, 1));
    b.send(1, 2, block(HIER_BUF_SEND, 2));
    b.exchange(2, 3, block(HIER_BUF_SEND, 3), block(HIER_BUF_RECV, 3));
    const Schedule schedule = b.build();
    for (const Round &round : schedule.rounds()) {
        EXPECT_EQ(round.depends_on, -1);
    }
    EXPECT_EQ(run(schedule, 1), (std::vector<std::string>{"send1:1", "complete1", "send2:2", "complete1",
                                                          "recv3:3", "send3:3", "complete2"}));
    EXPECT_EQ(run(schedule, 2), (std::vector<std::string>{"send1:1", "send2:2", "complete1", "recv3:3",
                                                          "send3:3", "complete1", "complete2"}));
}

TEST(Execute, ForwardingWaitsForTheRoundThatReceivedTheData)
{
    // Store and forward: receive into TMP, send it on; copy out at the end.
    ScheduleBuilder b(1, 3);
    b.recv(0, 0, block(HIER_BUF_TMP, 0));
    b.send(1, 2, block(HIER_BUF_TMP, 0));
    b.send(1, 0, block(HIER_BUF_SEND, 0));  // independent, but shares the round
    b.copy(2, block(HIER_BUF_TMP, 0), block(HIER_BUF_RECV, 0));
    const Schedule schedule = b.build();
    ASSERT_EQ(schedule.rounds().size(), 3u);
    EXPECT_EQ(schedule.rounds()[1].depends_on, 0);
    // The copy writes RECV 0, which nothing earlier touched, but reads TMP 0,
    // which round 0 wrote.
    EXPECT_EQ(schedule.rounds()[2].depends_on, 0);
    // Rounds finish in order: the copy runs after round 1 completes.
    EXPECT_EQ(run(schedule, 8), (std::vector<std::string>{"recv0:0", "complete1", "send2:0", "send0:0",
                                                          "complete2", "copy0>0"}));
}

TEST(Execute, OverwritingWaitsForEarlierReaders)
{
    // Round 0 sends TMP 0; round 1 receives into TMP 0: it must not be
    // posted until the send is complete.
    ScheduleBuilder b(0, 2);
    b.send(0, 1, block(HIER_BUF_TMP, 0));
    b.recv(1, 1, block(HIER_BUF_TMP, 0));
    const Schedule schedule = b.build();
    EXPECT_EQ(schedule.rounds()[1].depends_on, 0);
    EXPECT_EQ(run(schedule, 4), (std::vector<std::string>{"send1:0", "complete1", "recv1:0", "complete1"}));
}

} // namespace
} // namespace hier
