/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Alltoall by the hypercube algorithm ("All-to-all (parallel pattern)",
// hypercube: log p steps, each exchanging the half of the data destined for
// the other subcube), on the positions of the communicator's embedding
// (hypercube.h, Figueira and Janapa Reddi): in dimension i each cube rank
// sends its partner, in one message, every block it holds whose destination
// lies across dimension i, and receives as many.
//
// What a position holds: before dimension k, the blocks from the positions
// of its subcube of dimensions 0..k-1 (bits >= k as its own) to the
// positions that agree with it on bits 0..k-1. A position's data for one
// (source position, destination position) pair is a super-block: the
// blocks from each rank of the source position to each rank of the
// destination (1 or 2 of each: a host and its folded rank), source-major.
// Super-blocks are laid out by an index whose most significant bit is
// bit k of the destination relative to the holder (rd = destination XOR
// holder, rs = source XOR holder):
//     index = rd_k rd_k+1 ... rd_d-1 | rs_k-1 ... rs_0   (most significant first)
// so the half to send in dimension k is the upper half of the indices: one
// region. What is kept and what arrives interleave in the next stage's
// layout (index = rd_k+1 ... rd_d-1 | rs_k rs_k-1 ... rs_0): the kept half
// is runs of 2^k super-blocks and so is the received half, each run copied
// to its place in the other of two TMP areas. Stage 0 is filled from SEND
// (and from the folded rank's blocks); after the last dimension the index
// is rs alone and the blocks are placed into RECV in rank order.
//
// Departure: p need not be a power of two; a folded rank sends all its
// blocks to its host before the cube (step 0), the host carries them as its
// own through the cube, and sends the folded rank its p received blocks
// after it (step d + 1). Volume per cube rank: half its data per
// dimension, (p g / 2) log n blocks for g ranks at its position.
#include "algorithms.h"
#include "hypercube.h"

#include <algorithm>

namespace hier {

namespace {

using Moves = std::vector<std::pair<uint32_t, uint32_t>>;

class HypercubeAlltoall {
public:
    HypercubeAlltoall(const HypercubePlan &plan, int p, int rank)
        : plan_(plan), p_(p), rank_(rank), n_(plan.positions()), d_(plan.dims), me_(plan.position_of[rank]),
          extra_(plan.extra_of[rank])
    {
    }

    Schedule build();

private:
    // The (source, destination) positions of super-block `index` in stage k
    // at position q.
    std::pair<int, int> pair_at(int q, int k, int index) const
    {
        const int rs = index & ((1 << k) - 1);
        const int high = index >> k;  // d - k bits, rd_k first
        int rd = 0;
        for (int j = 0; j < d_ - k; ++j) {
            if (high & (1 << (d_ - k - 1 - j))) {
                rd |= 1 << (k + j);
            }
        }
        return {q ^ rs, q ^ rd};
    }
    // Where each super-block of stage k at position q starts, in blocks
    // (n + 1 entries: the last is the total). The indices in order, as
    // pair_at reads them: the high d - k bits, whose reverse is rd >> k,
    // count up by a reversed carry; the low k bits are rs. O(n) where
    // pair_at per index took O(n d), the most of the build at p = 16,384.
    std::vector<uint32_t> offsets(int q, int k) const
    {
        std::vector<uint32_t> at(size_t(n_) + 1, 0);
        const int width = d_ - k;  // bits of the high part
        const int run = 1 << k;
        size_t index = 0;
        for (int high = 0, reversed = 0; high < (1 << width); ++high) {
            const int to = plan_.members(q ^ (reversed << k));
            for (int rs = 0; rs < run; ++rs, ++index) {
                at[index + 1] = at[index] + uint32_t(plan_.members(q ^ rs) * to);
            }
            // reversed + 1, counting from the top bit of the width
            int bit = width > 0 ? 1 << (width - 1) : 0;
            while (bit > 0 && (reversed & bit)) {
                reversed ^= bit;
                bit >>= 1;
            }
            reversed |= bit;
        }
        return at;
    }
    void fill(ScheduleBuilder &b, uint32_t area);
    void exchange(ScheduleBuilder &b, int k, uint32_t from_area, uint32_t to_area);
    void place(ScheduleBuilder &b, uint32_t area, uint32_t step);

    const HypercubePlan &plan_;
    int p_, rank_, n_, d_, me_, extra_;
    // TMP: the folded rank's blocks, the blocks for it, two stage areas and
    // the receive area.
    uint32_t folded_in_ = 0, folded_out_ = 0, area_[2] = {0, 0}, received_ = 0;
};

// Stage 0 from SEND and the folded rank's blocks: super-block (me,
// destination), block (a, b) from my a-th rank to the destination's b-th.
void HypercubeAlltoall::fill(ScheduleBuilder &b, uint32_t area)
{
    const std::vector<uint32_t> at = offsets(me_, 0);
    Moves own, folded;
    for (int index = 0; index < n_; ++index) {
        const int destination = pair_at(me_, 0, index).second;
        const int width = plan_.members(destination);
        for (int to = 0; to < width; ++to) {
            const auto target = uint32_t(plan_.member(destination, to));
            own.emplace_back(target, area + at[index] + uint32_t(to));
            if (extra_ >= 0) {
                folded.emplace_back(folded_in_ + target, area + at[index] + uint32_t(width + to));
            }
        }
    }
    copy_blocks(b, HypercubePlan::kFoldInStep, HIER_BUF_SEND, HIER_BUF_TMP, own);
    copy_blocks(b, HypercubePlan::kFoldInStep, HIER_BUF_TMP, HIER_BUF_TMP, folded);
}

// Dimension k: the upper half of stage k's indices goes to the partner; the
// lower half and what arrives interleave, 2^k super-blocks at a time, into
// stage k + 1 in the other area.
void HypercubeAlltoall::exchange(ScheduleBuilder &b, int k, uint32_t from_area, uint32_t to_area)
{
    const uint32_t step = HypercubePlan::dimension_step(k);
    const int half = n_ / 2, run = 1 << k;
    const std::vector<uint32_t> mine = offsets(me_, k);
    const std::vector<uint32_t> theirs = offsets(me_ ^ (1 << k), k);
    const std::vector<uint32_t> next = offsets(me_, k + 1);
    b.exchange(step, plan_.partner(rank_, k), Region{HIER_BUF_TMP, from_area + mine[half], mine[n_] - mine[half]},
               Region{HIER_BUF_TMP, received_, theirs[n_] - theirs[half]});
    for (int group = 0; group < half / run; ++group) {
        const int kept = group * run, arrived = half + group * run, placed = 2 * group * run;
        b.copy(step, Region{HIER_BUF_TMP, from_area + mine[kept], mine[kept + run] - mine[kept]},
               Region{HIER_BUF_TMP, to_area + next[placed], next[placed + run] - next[placed]});
        b.copy(step,
               Region{HIER_BUF_TMP, received_ + theirs[arrived] - theirs[half], theirs[arrived + run] - theirs[arrived]},
               Region{HIER_BUF_TMP, to_area + next[placed + run], next[placed + 2 * run] - next[placed + run]});
    }
}

// After the last dimension: super-block (source, me), block (a, b) from the
// source's a-th rank to my b-th: mine into RECV, my folded rank's into its
// outgoing region, both in rank order.
void HypercubeAlltoall::place(ScheduleBuilder &b, uint32_t area, uint32_t step)
{
    const std::vector<uint32_t> at = offsets(me_, d_);
    const int width = plan_.members(me_);
    Moves own, folded;
    for (int index = 0; index < n_; ++index) {
        const int source = pair_at(me_, d_, index).first;
        for (int from = 0; from < plan_.members(source); ++from) {
            const auto sender = uint32_t(plan_.member(source, from));
            const uint32_t first = area + at[index] + uint32_t(from * width);
            own.emplace_back(first, sender);
            if (extra_ >= 0) {
                folded.emplace_back(first + 1, folded_out_ + sender);
            }
        }
    }
    std::sort(own.begin(), own.end(), [](const auto &x, const auto &y) { return x.second < y.second; });
    std::sort(folded.begin(), folded.end(), [](const auto &x, const auto &y) { return x.second < y.second; });
    copy_blocks(b, step, HIER_BUF_TMP, HIER_BUF_RECV, own);
    copy_blocks(b, step, HIER_BUF_TMP, HIER_BUF_TMP, folded);
}

Schedule HypercubeAlltoall::build()
{
    ScheduleBuilder b(rank_, p_);
    const Region everything_sent{HIER_BUF_SEND, 0, uint32_t(p_)};
    const Region everything_received{HIER_BUF_RECV, 0, uint32_t(p_)};
    if (const int host = plan_.host_of[rank_]; host >= 0) {
        b.send(HypercubePlan::kFoldInStep, host, everything_sent);
        b.recv(plan_.fold_out_step(), host, everything_received);
        return b.build();
    }
    uint32_t largest = 0, largest_half = 0;
    for (int k = 0; k <= d_; ++k) {
        largest = std::max(largest, offsets(me_, k)[n_]);
        if (k < d_) {
            const std::vector<uint32_t> theirs = offsets(me_ ^ (1 << k), k);
            largest_half = std::max(largest_half, theirs[n_] - theirs[n_ / 2]);
        }
    }
    const uint32_t folded = extra_ >= 0 ? uint32_t(p_) : 0;
    folded_in_ = 0;
    folded_out_ = folded;
    area_[0] = 2 * folded;
    area_[1] = area_[0] + largest;
    received_ = area_[1] + largest;
    b.reserve_tmp(received_ + largest_half);

    if (extra_ >= 0) {
        b.recv(HypercubePlan::kFoldInStep, extra_, Region{HIER_BUF_TMP, folded_in_, uint32_t(p_)});
    }
    fill(b, area_[0]);
    for (int k = 0; k < d_; ++k) {
        exchange(b, k, area_[k % 2], area_[(k + 1) % 2]);
    }
    place(b, area_[d_ % 2], d_ > 0 ? HypercubePlan::dimension_step(d_ - 1) : HypercubePlan::kFoldInStep);
    if (extra_ >= 0) {
        b.send(plan_.fold_out_step(), extra_, Region{HIER_BUF_TMP, folded_out_, uint32_t(p_)});
    }
    return b.build();
}

} // namespace

Schedule build_hypercube_alltoall(const Topology &topology, const Plans &plans, int rank, int /*root*/)
{
    return HypercubeAlltoall(plans.hypercube(topology), topology.size(), rank).build();
}

} // namespace hier
