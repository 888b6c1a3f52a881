/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The ring alltoall both ways round, the improvement the encyclopedia text
// names ("All-to-all (parallel pattern)", section Ring: "half of the messages
// are sent in one and the other half in the other direction"): the blocks for
// j + 1 .. j + ceil((p - 1) / 2) go forward, those for j - 1 .. j - floor((p - 1) / 2)
// backward, both store-and-forward at once, in ceil((p - 1) / 2) rounds.
//
// Departure, as in ring.cc: a first round of local copies lays the blocks out
// in the order they leave.
#include "algorithms.h"
#include "grid_exchange.h"

namespace hier {

Schedule build_ring2_alltoall(const Topology &topology, const Plans & /*plans*/, int rank, int /*root*/)
{
    return build_grid_alltoall(Grid{{topology.size()}}, rank, true);
}

} // namespace hier
