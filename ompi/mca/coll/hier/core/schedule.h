/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The schedule IR: what one rank does in a collective, as data.
//
// A schedule is a list of rounds; a round is a set of operations that may
// proceed concurrently: sends and receives of block regions, then local
// copies and reductions, in order. It names buffers and blocks, never bytes or datatypes, so it
// depends on the topology alone and is built once per communicator.
//
// Every round carries a step label: the single-port step of the algorithm in
// which it happens. Labels increase along a rank's rounds, and a send and the
// receive that matches it carry the same label. The executor ignores labels
// (ranks run as fast as their peers allow); the simulator uses them to check
// the papers' step counts and the single-port rule, and they are what makes
// the blocking executor deadlock-free: every wait is for a message that its
// sender posts at the same step.
//
// A round may be posted before earlier rounds complete (the executor's
// window) unless it touches blocks they still use: depends_on is the latest
// earlier round that writes a block this round reads or writes, or reads a
// block this round writes; the builder derives it from the regions. A
// schedule that is laid out for overlap (a later round posted while an
// earlier, long one is still in flight) says how many rounds it needs in
// flight: the executor, the simulator and the model keep at least that many,
// whatever window they are given (Schedule::window).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "hier_core.h"

namespace hier {

struct Region {
    hier_buffer_t buffer;
    uint32_t first;  // first block
    uint32_t count;  // number of blocks, contiguous in the user's layout
};

// Reduce: to = from (op) to, the call's reduction operation, from first.
enum class OpKind : uint8_t { Send, Recv, Copy, Reduce };

struct Op {
    OpKind kind;
    int peer;     // Send, Recv; -1 for Copy and Reduce
    Region from;  // Send, Copy, Reduce
    Region to;    // Recv, Copy, Reduce
};

struct Round {
    uint32_t step;
    uint32_t first_op;    // ops [first_op, end_op) of the schedule
    uint32_t end_op;
    uint32_t messages;    // sends and receives among them
    int32_t depends_on;   // round that must complete before this one is posted, or -1
};

class Schedule {
public:
    Schedule(int rank, int size) : rank_(rank), size_(size) {}

    int rank() const { return rank_; }
    int size() const { return size_; }
    size_t tmp_blocks() const { return tmp_blocks_; }
    // Whether a rank of the communicator, this one or another, holds blocks
    // in TMP under this algorithm: then alltoallv's size pass runs, on every
    // rank alike (the passes pair the ranks' messages), so every rank's
    // schedule must say the same (the unit tests check it).
    bool tmp_on_some_rank() const { return tmp_on_some_rank_; }
    // The window to run at when asked for `requested` rounds in flight.
    size_t window(int requested) const
    {
        return std::max<size_t>(min_window_, requested < 1 ? 1 : size_t(requested));
    }
    const std::vector<Round> &rounds() const { return rounds_; }
    const Op *ops(const Round &round) const { return ops_.data() + round.first_op; }
    size_t op_count(const Round &round) const { return round.end_op - round.first_op; }

private:
    friend class ScheduleBuilder;
    int rank_;
    int size_;
    size_t tmp_blocks_ = 0;
    bool tmp_on_some_rank_ = false;
    size_t min_window_ = 1;
    std::vector<Round> rounds_;
    std::vector<Op> ops_;
};

// Collects operations tagged with their step in any order and lays them out
// as rounds in step order. Operations of one step keep the order they were
// added in (receives are posted before sends by the executor anyway).
class ScheduleBuilder {
public:
    ScheduleBuilder(int rank, int size) : rank_(rank), size_(size) {}

    void send(uint32_t step, int peer, Region from);
    void recv(uint32_t step, int peer, Region to);
    void copy(uint32_t step, Region from, Region to);
    // to = from (op) to, after the step's messages.
    void reduce(uint32_t step, Region from, Region to);
    // Exchange with a peer: send from, receive to, in one step.
    void exchange(uint32_t step, int peer, Region from, Region to);
    void reserve_tmp(size_t blocks);
    // Another rank's schedule may hold blocks in TMP where this one holds
    // none (see Schedule::tmp_on_some_rank); a TMP block of its own says so
    // already.
    void tmp_on_other_ranks() { tmp_on_other_ranks_ = true; }
    // The schedule only overlaps as laid out with this many rounds in flight.
    void keep_in_flight(size_t rounds) { min_window_ = std::max(min_window_, rounds); }

    Schedule build();

private:
    void add(uint32_t step, Op op);
    void track_tmp(Region region);
    static void derive_dependencies(Schedule &schedule);

    int rank_;
    int size_;
    size_t tmp_blocks_ = 0;
    bool tmp_on_other_ranks_ = false;
    size_t min_window_ = 1;
    std::vector<std::pair<uint32_t, Op>> pending_;
};

// Adds copies to a builder, merging each with the previous one when it
// continues it in both regions (one op instead of many for a run of blocks).
// Copies of one step keep their order; flush() adds the last one held (call
// it before building: a destructor must not allocate, it could throw).
class CopyMerger {
public:
    explicit CopyMerger(ScheduleBuilder &b) : b_(b) {}
    CopyMerger(const CopyMerger &) = delete;
    CopyMerger &operator=(const CopyMerger &) = delete;

    void add(uint32_t step, Region from, Region to);
    void flush();

private:
    ScheduleBuilder &b_;
    bool open_ = false;
    uint32_t step_ = 0;
    Region from_{}, to_{};
};

// The schedule run backwards, for the collective that mirrors it (a gather
// from a scatter: same messages, reversed order and direction). Rounds come
// in reverse order; every send becomes a receive from the same peer and vice
// versa, copies go the other way, and SEND and RECV swap roles. A round of
// step s moves its messages in step 2 (last_step - s) + 1 and its copies in
// step 2 (last_step - s), before them: a round copies after its messages, so
// reversed it must copy first. last_step must be the same on every rank (the
// largest step of any rank's schedule, or more). Reductions have no reverse:
// throws std::invalid_argument on one.
Schedule time_reversed(const Schedule &schedule, uint32_t last_step);

// One block of a buffer.
inline Region block(hier_buffer_t buffer, int index)
{
    return Region{buffer, static_cast<uint32_t>(index), 1};
}

} // namespace hier
