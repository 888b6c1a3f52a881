// Barrier on the embedded hypercube: Figueira and Janapa Reddi, Sec. 3
// (Foster's hypercube template, with an empty state) on the positions of
// the communicator's embedding (hypercube.h); their Sec. 5.2 measures this
// very barrier. In dimension i each cube rank exchanges an empty message
// with its partner; after d dimensions it has heard, through its partners,
// from every cube rank. Departure: p need not be a power of two; a folded
// rank signals its host before the cube and is released by it after.
#include "algorithms.h"
#include "hypercube.h"

namespace hier {

Schedule build_hypercube_barrier(const Topology &topology, int rank, int /*root*/)
{
    const HypercubePlan &plan = topology.hypercube();
    ScheduleBuilder b(rank, topology.size());
    const Region signal = block(HIER_BUF_SEND, 0);
    const Region heard = block(HIER_BUF_RECV, 0);
    if (const int host = plan.host_of[rank]; host >= 0) {
        b.send(HypercubePlan::kFoldInStep, host, signal);
        b.recv(plan.fold_out_step(), host, heard);
        return b.build();
    }
    const int extra = plan.extra_of[rank];
    if (extra >= 0) {
        b.recv(HypercubePlan::kFoldInStep, extra, heard);
    }
    for (int dim = 0; dim < plan.dims; ++dim) {
        b.exchange(HypercubePlan::dimension_step(dim), plan.partner(rank, dim), signal, heard);
    }
    if (extra >= 0) {
        b.send(plan.fold_out_step(), extra, signal);
    }
    return b.build();
}

} // namespace hier
