/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The ring alltoall of the encyclopedia text ("All-to-all (parallel
// pattern)", section Ring): every process sends the m(p - 1) data it has for
// the others to its neighbour j + 1; each process keeps its part of what it
// receives and forwards the remainder, so after p - 1 rounds every block is
// home. Time (ts + tw m p / 2)(p - 1) on a ring of links.
//
// Departure: a first round of local copies lays the blocks out in the order
// they leave (destinations j + 1, j + 2, ...), so that every message is one
// contiguous region; the text leaves that rearrangement implicit.
#include "algorithms.h"
#include "grid_exchange.h"

namespace hier {

Schedule build_ring_alltoall(const Topology &topology, const Plans & /*plans*/, int rank, int /*root*/)
{
    return build_grid_alltoall(Grid{{topology.size()}}, rank, false);
}

} // namespace hier
