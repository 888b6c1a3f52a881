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
// - Any p: the grid is r x c with r the largest divisor of p not above
//   sqrt(p) and c = p / r, ranks row-major (rank = row * c + column). The row
//   phase takes c - 1 rounds and the column phase r - 1. For a prime p the
//   grid is 1 x p and mesh is the ring alltoall.
// - The text's two phases generalize to one ring phase per dimension of a
//   D-dimensional grid (grid_exchange.h); the torus dimensions of a
//   Topology would be that grid, but the Topology has none yet, so mesh
//   uses the 2-D grid above.
#include "algorithms.h"
#include "grid_exchange.h"

namespace hier {

std::vector<int> mesh_dims(const Topology &topology)
{
    const int p = topology.size();
    int rows = 1;
    for (int r = 1; r * r <= p; ++r) {
        if (p % r == 0) {
            rows = r;
        }
    }
    return {rows, p / rows};
}

Schedule build_mesh_alltoall(const Topology &topology, int rank, int /*root*/)
{
    return build_grid_alltoall(Grid{mesh_dims(topology)}, rank, false);
}

} // namespace hier
