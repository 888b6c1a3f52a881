/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Allreduce on the embedded hypercube: Figueira and Janapa Reddi, Sec. 3
// (Foster's hypercube template: in dimension i exchange the partial result
// with the partner and combine) on the positions of the communicator's
// embedding (hypercube.h). The partial result lives in RECV; the partner's
// arrives in TMP and is reduced into it, TMP (op) RECV, so the operation
// must be commutative (the glue falls back otherwise). Both partners of an
// exchange then hold the same combination, so every rank ends with the
// same result. Departure: p need not be a power of two; a folded rank's
// vector is reduced into its host's before the cube, and the host sends it
// the result after.
#include "algorithms.h"
#include "hypercube.h"

namespace hier {

Schedule build_hypercube_allreduce(const Topology &topology, const Plans &plans, int rank, int /*root*/)
{
    const HypercubePlan &plan = plans.hypercube(topology);
    ScheduleBuilder b(rank, topology.size());
    const Region mine = block(HIER_BUF_SEND, 0);
    const Region result = block(HIER_BUF_RECV, 0);
    const Region incoming = block(HIER_BUF_TMP, 0);
    if (const int host = plan.host_of[rank]; host >= 0) {
        b.send(HypercubePlan::kFoldInStep, host, mine);
        b.recv(plan.fold_out_step(), host, result);
        return b.build();
    }
    b.copy(HypercubePlan::kFoldInStep, mine, result);
    const int extra = plan.extra_of[rank];
    if (extra >= 0) {
        b.recv(HypercubePlan::kFoldInStep, extra, incoming);
        b.reduce(HypercubePlan::kFoldInStep, incoming, result);
    }
    for (int dim = 0; dim < plan.dims; ++dim) {
        const uint32_t step = HypercubePlan::dimension_step(dim);
        b.exchange(step, plan.partner(rank, dim), result, incoming);
        b.reduce(step, incoming, result);
    }
    if (extra >= 0) {
        b.send(plan.fold_out_step(), extra, result);
    }
    return b.build();
}

} // namespace hier
