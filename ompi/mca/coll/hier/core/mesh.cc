/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The two-phase mesh alltoall of the encyclopedia text ("All-to-all (parallel
// pattern)", section Mesh): on a sqrt(p) x sqrt(p) mesh, each process groups
// its messages by the column of their destination, an alltoall within every
// row brings each group to that column, a local rearrangement regroups what
// arrived by destination row, and an alltoall within every column finishes.
// Each of those alltoalls is the text's ring along the row or column (as on
// a mesh with wrap-around links, neighbours only), which gives the text's
// (2 ts + tw m p)(sqrt(p) - 1) plus the rearrangement.
//
// Departures:
// - On a torus (coll_hier_torus_dims, or a periodic Cartesian communicator)
//   the grid is the torus itself: the text's two phases become one ring
//   phase per dimension (grid_exchange.h), sum of (k_e - 1) rounds, and every
//   message goes to a neighbour, the + way round its ring.
// - Any other p: the grid is r x c with r the largest divisor of p not above
//   sqrt(p) and c = p / r, ranks row-major (rank = row * c + column). The row
//   phase takes c - 1 rounds and the column phase r - 1. For a prime p the
//   grid is 1 x p and mesh is the ring alltoall.
#include "algorithms.h"
#include "grid_exchange.h"

namespace hier {

std::vector<int> mesh_dims(const Topology &topology)
{
    if (const Torus *torus = topology.torus()) {
        return torus->dims();
    }
    const int p = topology.size();
    int rows = 1;
    for (int r = 1; r * r <= p; ++r) {
        if (p % r == 0) {
            rows = r;
        }
    }
    return {rows, p / rows};
}

Schedule build_mesh_alltoall(const Topology &topology, const Plans & /*plans*/, int rank, int /*root*/)
{
    return build_grid_alltoall(Grid{mesh_dims(topology)}, rank, false);
}

} // namespace hier
