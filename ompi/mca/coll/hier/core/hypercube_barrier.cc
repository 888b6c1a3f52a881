/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Barrier on the embedded hypercube: Figueira and Janapa Reddi, Sec. 3
// (Foster's hypercube template, with an empty state) on the positions of
// the communicator's embedding (hypercube.h); their Sec. 5.2 measures this
// very barrier. In dimension i each cube rank exchanges an empty message
// with its partner; after d dimensions it has heard, through its partners,
// from every cube rank. Departure: p need not be a power of two; a folded
// rank signals its host before the cube and is released by it after.
//
// Every signal after a rank's first receive is sent from the block that
// receive wrote (RECV, empty): the executor posts a round early when a
// window allows (coll_hier_window) unless the round touches blocks an
// earlier round writes, so this is what keeps a host's release, a send-only
// round, behind the cube; sent from SEND it went out as soon as the window
// let it and freed the folded rank early.
#include "algorithms.h"
#include "hypercube.h"

namespace hier {

Schedule build_hypercube_barrier(const Topology &topology, const Plans &plans, int rank, int /*root*/)
{
    const HypercubePlan &plan = plans.hypercube(topology);
    ScheduleBuilder b(rank, topology.size());
    const Region heard = block(HIER_BUF_RECV, 0);
    if (const int host = plan.host_of[rank]; host >= 0) {
        b.send(HypercubePlan::kFoldInStep, host, block(HIER_BUF_SEND, 0));
        b.recv(plan.fold_out_step(), host, heard);
        return b.build();
    }
    const int extra = plan.extra_of[rank];
    // What this rank passes on: nothing heard yet (SEND), or what it heard.
    Region signal = block(HIER_BUF_SEND, 0);
    if (extra >= 0) {
        b.recv(HypercubePlan::kFoldInStep, extra, heard);
        signal = heard;
    }
    for (int dim = 0; dim < plan.dims; ++dim) {
        b.exchange(HypercubePlan::dimension_step(dim), plan.partner(rank, dim), signal, heard);
        signal = heard;
    }
    if (extra >= 0) {
        b.send(plan.fold_out_step(), extra, signal);
    }
    return b.build();
}

} // namespace hier
