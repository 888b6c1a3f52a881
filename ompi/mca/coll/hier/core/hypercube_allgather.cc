/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Allgather on the embedded hypercube: Figueira and Janapa Reddi, Sec. 3
// (Foster's hypercube template, the state being the blocks gathered so
// far) on the positions of the communicator's embedding (hypercube.h).
//
// Blocks are gathered in position order: each position owns a slot of its
// ranks' blocks (its host's, then its folded rank's), and before dimension
// i a rank holds the slots of its subcube of dimensions 0..i-1, which are
// contiguous in position order, so each exchange is one message each way,
// of the subcube's slots. When position order is rank order (the blind
// embedding on a power of two) the blocks are gathered in RECV itself;
// otherwise in TMP, and placed into RECV in rank order after the last
// dimension (runs of consecutive blocks in one copy each). Departure: p
// need not be a power of two; a folded rank hands its block to its host
// before the cube and receives the whole result from it after.
#include "algorithms.h"
#include "hypercube.h"

namespace hier {

Schedule build_hypercube_allgather(const Topology &topology, const Plans &plans, int rank, int /*root*/)
{
    const HypercubePlan &plan = plans.hypercube(topology);
    const int p = topology.size();
    ScheduleBuilder b(rank, p);
    const Region everything{HIER_BUF_RECV, 0, uint32_t(p)};
    if (const int host = plan.host_of[rank]; host >= 0) {
        b.send(HypercubePlan::kFoldInStep, host, block(HIER_BUF_SEND, 0));
        b.recv(plan.fold_out_step(), host, everything);
        return b.build();
    }
    // slot[q]: the first block of position q's ranks in position order.
    const int n = plan.positions();
    std::vector<uint32_t> slot(size_t(n) + 1, 0);
    bool rank_order = true;
    for (int q = 0; q < n; ++q) {
        slot[q + 1] = slot[q] + uint32_t(plan.members(q));
        for (int m = 0; m < plan.members(q); ++m) {
            rank_order = rank_order && plan.member(q, m) == int(slot[q]) + m;
        }
    }
    const hier_buffer_t gathered = rank_order ? HIER_BUF_RECV : HIER_BUF_TMP;
    const int me = plan.position_of[rank];
    const int extra = plan.extra_of[rank];
    b.copy(HypercubePlan::kFoldInStep, block(HIER_BUF_SEND, 0), block(gathered, int(slot[me])));
    if (extra >= 0) {
        b.recv(HypercubePlan::kFoldInStep, extra, block(gathered, int(slot[me]) + 1));
    }
    auto subcube = [&](int first, int positions) {
        return Region{gathered, slot[first], slot[first + positions] - slot[first]};
    };
    for (int dim = 0; dim < plan.dims; ++dim) {
        const int low = me & ~((1 << dim) - 1);
        b.exchange(HypercubePlan::dimension_step(dim), plan.partner(rank, dim), subcube(low, 1 << dim),
                   subcube(low ^ (1 << dim), 1 << dim));
    }
    if (!rank_order) {
        std::vector<std::pair<uint32_t, uint32_t>> moves;
        for (int q = 0; q < n; ++q) {
            for (int m = 0; m < plan.members(q); ++m) {
                moves.emplace_back(slot[q] + uint32_t(m), uint32_t(plan.member(q, m)));
            }
        }
        const uint32_t last = plan.dims > 0 ? HypercubePlan::dimension_step(plan.dims - 1) : 0;
        copy_blocks(b, last, HIER_BUF_TMP, HIER_BUF_RECV, moves);
    }
    if (extra >= 0) {
        b.send(plan.fold_out_step(), extra, everything);
    }
    return b.build();
}

} // namespace hier
