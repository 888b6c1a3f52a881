// ScheduleBuilder: from step-tagged operations to rounds.
#include "schedule.h"

#include <algorithm>

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
    schedule.ops_.reserve(pending_.size());
    for (const auto &[step, op] : pending_) {
        if (schedule.rounds_.empty() || schedule.rounds_.back().step != step) {
            const auto at = static_cast<uint32_t>(schedule.ops_.size());
            schedule.rounds_.push_back(Round{step, at, at});
        }
        schedule.ops_.push_back(op);
        schedule.rounds_.back().end_op = static_cast<uint32_t>(schedule.ops_.size());
    }
    pending_.clear();
    return schedule;
}

} // namespace hier
