/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The embedded hypercube of a communicator, which the hypercube collectives
// (hypercube_<op>.cc) run on: Figueira and Janapa Reddi's recursive-doubling
// pattern (Sec. 3) on the positions of an embedding (embedding.h).
//
// Departure, for p not a power of two (the paper assumes one): with
// n = 2^d <= p < 2n, r = p - n processes are folded onto cube processes,
// their hosts. Before the cube (step 0) an extra hands its data to its host;
// after it (step d + 1) the host hands the result back. The blind embedding
// folds rank n + i onto rank i, as a rank-order implementation does; every
// other embedding chooses the r pairs by cost: ranks in order of their
// cheapest cost to any other rank, each pairing with its cheapest unpaired
// partner (O(p^2) time, O(p) memory), the lower rank of a pair hosting.
// The embedding then places the n hosts and unfolded ranks, and calc_cost
// counts a host's fold before its first and after its last exchange.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cost.h"
#include "embedding.h"
#include "schedule.h"

namespace hier {

struct HypercubePlan {
    int dims = 0;
    std::vector<int> rank_at;      // position -> the rank there
    std::vector<int> position_of;  // rank -> its position (an extra: its host's)
    std::vector<int> extra_of;     // rank -> the rank folded onto it, or -1
    std::vector<int> host_of;      // rank -> the rank it is folded onto, or -1
    int embedding = 0;             // the embedding's id (embedding.h), never auto
    double cost = 0;               // calc_cost with the fold
    double blind_cost = 0;         // the blind embedding's, for comparison
    std::string summary;           // "refine embedding, calc_cost 12, blind 17"
    std::string too_even;          // why auto leaves it: not enough gain over blind

    int positions() const { return static_cast<int>(rank_at.size()); }
    // The ranks at a position: its host first, then the rank folded onto
    // it, if any (1 or 2 entries).
    int members(int position) const { return extra_of[rank_at[position]] >= 0 ? 2 : 1; }
    int member(int position, int index) const
    {
        return index == 0 ? rank_at[position] : extra_of[rank_at[position]];
    }
    // The rank a cube rank meets in dimension dim.
    int partner(int rank, int dim) const { return rank_at[position_of[rank] ^ (1 << dim)]; }

    // The steps of the hypercube collectives: extras hand their data to
    // their hosts in step 0, dimension i is step i + 1, and the results go
    // back to the extras in step d + 1.
    static constexpr uint32_t kFoldInStep = 0;
    static uint32_t dimension_step(int dim) { return uint32_t(dim) + 1; }
    uint32_t fold_out_step() const { return uint32_t(dims) + 1; }
};

// auto picks a hypercube collective only when the embedding's calc_cost is
// at least this much below the blind embedding's: the cost model is coarse
// (one number per pair, no contention, no per-message overhead), so a
// smaller predicted gain is within its error, and blind recursive doubling
// is roughly what Open MPI's own algorithms do.
constexpr double kHypercubeMinGain = 0.15;
// auto searches for an embedding (refine, O(n^2 log n)) up to this many
// ranks: 0.1 to 0.3 s at 1,024, 3 to 4 s at 4,096 and 70 s at 16,384 on a
// 2-core machine (docs/schedule-scale.md), paid at a communicator's first
// hypercube call. Beyond, auto takes blind, whose gain is 0: auto's rules
// then keep Open MPI's barrier, allreduce and allgather.
constexpr int kAutoEmbeddingMaxRanks = 1024;

// The hypercube for costs with the given embedding (embedding.h id; auto:
// the one of least calc_cost, the blind one on a tie).
HypercubePlan plan_hypercube(const Costs &costs, int embedding);

// Copies block moves[i].first of `from` to block moves[i].second of `to`,
// in order, one copy per run of moves consecutive on both sides.
void copy_blocks(ScheduleBuilder &b, uint32_t step, hier_buffer_t from, hier_buffer_t to,
                 const std::vector<std::pair<uint32_t, uint32_t>> &moves);

// Greedy pairing for the fold: host -> extra for `extras` disjoint pairs.
// Exposed for the tests.
std::vector<std::pair<int, int>> fold_by_cost(const Costs &costs, int extras);

} // namespace hier
