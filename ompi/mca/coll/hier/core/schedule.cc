/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// ScheduleBuilder: from step-tagged operations to rounds.
#include "schedule.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace hier {

void ScheduleBuilder::add(uint32_t step, Op op)
{
    pending_.emplace_back(step, op);
}

void ScheduleBuilder::track_tmp(Region region)
{
    if (region.buffer == HIER_BUF_TMP) {
        tmp_blocks_ = std::max<size_t>(tmp_blocks_, size_t(region.first) + region.count);
    }
}

void ScheduleBuilder::send(uint32_t step, int peer, Region from)
{
    track_tmp(from);
    add(step, Op{OpKind::Send, peer, from, {}});
}

void ScheduleBuilder::recv(uint32_t step, int peer, Region to)
{
    track_tmp(to);
    add(step, Op{OpKind::Recv, peer, {}, to});
}

void ScheduleBuilder::copy(uint32_t step, Region from, Region to)
{
    track_tmp(from);
    track_tmp(to);
    add(step, Op{OpKind::Copy, -1, from, to});
}

void ScheduleBuilder::reduce(uint32_t step, Region from, Region to)
{
    track_tmp(from);
    track_tmp(to);
    add(step, Op{OpKind::Reduce, -1, from, to});
}

void ScheduleBuilder::exchange(uint32_t step, int peer, Region from, Region to)
{
    send(step, peer, from);
    recv(step, peer, to);
}

void ScheduleBuilder::reserve_tmp(size_t blocks)
{
    tmp_blocks_ = std::max(tmp_blocks_, blocks);
}

Schedule ScheduleBuilder::build()
{
    std::stable_sort(pending_.begin(), pending_.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    Schedule schedule(rank_, size_);
    schedule.tmp_blocks_ = tmp_blocks_;
    schedule.tmp_on_some_rank_ = tmp_on_other_ranks_ || tmp_blocks_ > 0;
    schedule.min_window_ = min_window_;
    schedule.ops_.reserve(pending_.size());
    for (const auto &[step, op] : pending_) {
        if (schedule.rounds_.empty() || schedule.rounds_.back().step != step) {
            const auto at = static_cast<uint32_t>(schedule.ops_.size());
            schedule.rounds_.push_back(Round{step, at, at, 0, -1});
        }
        schedule.ops_.push_back(op);
        Round &round = schedule.rounds_.back();
        round.end_op = static_cast<uint32_t>(schedule.ops_.size());
        round.messages += op.kind == OpKind::Send || op.kind == OpKind::Recv;
    }
    pending_.clear();
    derive_dependencies(schedule);
    return schedule;
}

void CopyMerger::add(uint32_t step, Region from, Region to)
{
    if (open_ && step == step_ && from.buffer == from_.buffer && to.buffer == to_.buffer &&
        from.first == from_.first + from_.count && to.first == to_.first + to_.count) {
        from_.count += from.count;
        to_.count += to.count;
        return;
    }
    flush();
    open_ = true;
    step_ = step;
    from_ = from;
    to_ = to;
}

void CopyMerger::flush()
{
    if (open_) {
        b_.copy(step_, from_, to_);
        open_ = false;
    }
}

namespace {

// The latest round that marked each block of one buffer, over ranges:
// mark(range, round) and latest(range), in O(32 log32 blocks) each.
//
// A tree of fan-out 32: a unit of level k is 32^k blocks (level 0 the
// blocks themselves), up to one unit holding them all. A range is the
// units it covers whole, the fewest: at each level fewer than 32 on either
// side. Rounds are marked in increasing order, so a mark is a maximum with
// what is there: it sets tag and best of the units it covers, and best of
// the units above them, which are the ones above its first and its last
// block. A block's latest round is the largest tag of the units that hold
// it; best[k][u] the largest round that marked a block of unit u.
//
// Memory: about twice an entry per block. A message of a store-and-forward
// ring spans O(p) blocks, p rounds of them: with an entry per block alone,
// the ring's dependencies take O(p^2) per schedule (half a second at
// p = 16,384), with the tree O(p log p).
class RangeLatest {
public:
    explicit RangeLatest(size_t blocks)
    {
        size_t units = std::max<size_t>(blocks, 1);
        for (;;) {
            tag_.emplace_back(units, -1);
            best_.emplace_back(units, -1);
            if (units == 1) {
                break;
            }
            units = (units + kFan - 1) / kFan;
        }
    }

    int32_t latest(Region r) const
    {
        if (r.count == 0) {
            return -1;
        }
        int32_t last = -1;
        cover(r, [&](size_t k, size_t u) { last = std::max(last, best_[k][u]); });
        for (size_t k = 1; k < tag_.size(); ++k) {
            last = std::max({last, tag_[k][above(r.first, k)], tag_[k][above(size_t(r.first) + r.count - 1, k)]});
        }
        return last;
    }

    void mark(Region r, int32_t round)
    {
        if (r.count == 0) {
            return;
        }
        cover(r, [&](size_t k, size_t u) { tag_[k][u] = best_[k][u] = round; });
        for (size_t k = 1; k < tag_.size(); ++k) {
            best_[k][above(r.first, k)] = round;
            best_[k][above(size_t(r.first) + r.count - 1, k)] = round;
        }
    }

private:
    static constexpr size_t kBits = 5;
    static constexpr size_t kFan = size_t(1) << kBits;

    static size_t above(size_t block, size_t level) { return block >> (kBits * level); }

    // Calls f(k, u) for the units u of level k that r covers whole, the
    // fewest: the part of each level's range short of a multiple of 32 on
    // either side, then the rest at the next level.
    template <typename F> void cover(Region r, F f) const
    {
        size_t low = r.first, high = size_t(r.first) + r.count;
        for (size_t k = 0; low < high; ++k, low >>= kBits, high >>= kBits) {
            if (k + 1 == tag_.size()) {
                for (; low < high; ++low) {
                    f(k, low);
                }
                break;
            }
            for (; low < high && low % kFan != 0; ++low) {
                f(k, low);
            }
            for (; low < high && high % kFan != 0;) {
                f(k, --high);
            }
        }
    }

    std::vector<std::vector<int32_t>> tag_;   // per level, per unit
    std::vector<std::vector<int32_t>> best_;
};

// The last round that read and that wrote each block of the three buffers.
class BlockHistory {
public:
    // blocks[buffer]: one past the last block any region of the schedule names.
    explicit BlockHistory(const size_t (&blocks)[3])
        : reader_{RangeLatest(blocks[0]), RangeLatest(blocks[1]), RangeLatest(blocks[2])},
          writer_{RangeLatest(blocks[0]), RangeLatest(blocks[1]), RangeLatest(blocks[2])}
    {
    }
    int32_t conflict_for_read(Region r) const { return writer_[r.buffer].latest(r); }
    int32_t conflict_for_write(Region r) const
    {
        return std::max(writer_[r.buffer].latest(r), reader_[r.buffer].latest(r));
    }
    void read(Region r, int32_t round) { reader_[r.buffer].mark(r, round); }
    void write(Region r, int32_t round) { writer_[r.buffer].mark(r, round); }

private:
    RangeLatest reader_[3];
    RangeLatest writer_[3];
};

} // namespace

void ScheduleBuilder::derive_dependencies(Schedule &schedule)
{
    size_t blocks[3] = {0, 0, 0};
    for (const Op &op : schedule.ops_) {
        if (op.kind != OpKind::Recv) {
            blocks[op.from.buffer] = std::max(blocks[op.from.buffer], size_t(op.from.first) + op.from.count);
        }
        if (op.kind != OpKind::Send) {
            blocks[op.to.buffer] = std::max(blocks[op.to.buffer], size_t(op.to.first) + op.to.count);
        }
    }
    BlockHistory history(blocks);
    for (size_t i = 0; i < schedule.rounds_.size(); ++i) {
        Round &round = schedule.rounds_[i];
        const auto index = static_cast<int32_t>(i);
        const Op *ops = schedule.ops(round);
        for (size_t k = 0; k < schedule.op_count(round); ++k) {
            const Op &op = ops[k];
            if (op.kind != OpKind::Recv) {
                round.depends_on = std::max(round.depends_on, history.conflict_for_read(op.from));
            }
            if (op.kind != OpKind::Send) {
                round.depends_on = std::max(round.depends_on, history.conflict_for_write(op.to));
            }
        }
        for (size_t k = 0; k < schedule.op_count(round); ++k) {
            const Op &op = ops[k];
            if (op.kind != OpKind::Recv) {
                history.read(op.from, index);
            }
            if (op.kind != OpKind::Send) {
                history.write(op.to, index);
            }
        }
    }
}

namespace {

Region mirrored(Region region)
{
    if (region.buffer != HIER_BUF_TMP) {
        region.buffer = region.buffer == HIER_BUF_SEND ? HIER_BUF_RECV : HIER_BUF_SEND;
    }
    return region;
}

} // namespace

Schedule time_reversed(const Schedule &schedule, uint32_t last_step)
{
    ScheduleBuilder b(schedule.rank(), schedule.size());
    b.reserve_tmp(schedule.tmp_blocks());
    if (schedule.tmp_on_some_rank()) {
        b.tmp_on_other_ranks();
    }
    b.keep_in_flight(schedule.window(1));
    const auto &rounds = schedule.rounds();
    for (auto round = rounds.rbegin(); round != rounds.rend(); ++round) {
        const uint32_t copies = 2 * (last_step - round->step);
        const Op *ops = schedule.ops(*round);
        for (size_t i = 0; i < schedule.op_count(*round); ++i) {
            const Op &op = ops[i];
            switch (op.kind) {
            case OpKind::Send: b.recv(copies + 1, op.peer, mirrored(op.from)); break;
            case OpKind::Recv: b.send(copies + 1, op.peer, mirrored(op.to)); break;
            case OpKind::Copy: b.copy(copies, mirrored(op.to), mirrored(op.from)); break;
            case OpKind::Reduce: throw std::invalid_argument("a reduction has no time reverse");
            }
        }
    }
    return b.build();
}

} // namespace hier
