// ScheduleBuilder: from step-tagged operations to rounds.
#include "schedule.h"

#include <algorithm>
#include <stdexcept>

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

// The last round that read and that wrote each block of the three buffers.
class BlockHistory {
public:
    int32_t conflict_for_read(Region r) const { return latest(writer_, r); }
    int32_t conflict_for_write(Region r) const { return std::max(latest(writer_, r), latest(reader_, r)); }
    void read(Region r, int32_t round) { mark(reader_, r, round); }
    void write(Region r, int32_t round) { mark(writer_, r, round); }

private:
    using Marks = std::vector<int32_t>;
    static int32_t latest(const Marks (&marks)[3], Region r)
    {
        const Marks &m = marks[r.buffer];
        int32_t last = -1;
        for (uint32_t b = r.first; b < r.first + r.count && b < m.size(); ++b) {
            last = std::max(last, m[b]);
        }
        return last;
    }
    static void mark(Marks (&marks)[3], Region r, int32_t round)
    {
        Marks &m = marks[r.buffer];
        if (m.size() < size_t(r.first) + r.count) {
            m.resize(size_t(r.first) + r.count, -1);
        }
        std::fill(m.begin() + r.first, m.begin() + r.first + r.count, round);
    }
    Marks reader_[3];
    Marks writer_[3];
};

} // namespace

void ScheduleBuilder::derive_dependencies(Schedule &schedule)
{
    BlockHistory history;
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
