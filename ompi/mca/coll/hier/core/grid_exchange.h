/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The store-and-forward alltoall of the encyclopedia text ("All-to-all
// (parallel pattern)", sections Ring and Mesh), along every dimension of a
// grid of processes: the machinery that ring.cc, ring2.cc and mesh.cc share.
//
// Ranks sit on a grid of dims k_0 x ... x k_{D-1} (product p), rank =
// sum x_e * stride_e with the last dimension varying fastest. The dimensions
// are worked in turn, last first (in 2-D: within rows, then within columns).
// A phase along dimension e is the text's ring: every process holds, for
// each of the k_e - 1 others of its ring, a super-block of p / k_e blocks;
// in round t it sends the k_e - t super-blocks it still has to move to its
// neighbour, keeps the one meant for itself from what it receives, and
// forwards the rest in round t + 1. Between phases every received block is
// copied to where the next phase that must move it expects it (the text's
// "local rearrangement"), or to RECV when it has arrived.
//
// Both ways round (ring2): a phase's ring splits its k_e - 1 offsets, the
// nearer ceil((k_e - 1) / 2) one way and the rest the other way, both at once.
#pragma once

#include <vector>

#include "schedule.h"

namespace hier {

struct Grid {
    std::vector<int> dims;  // k_0 .. k_{D-1}, product = p
};

// This rank's alltoall schedule over the grid. TMP holds two buffers of
// (k_e - 1) p / k_e blocks per phase: O(D p) blocks. Rounds that move
// messages: sum over e of k_e - 1 one way; sum of ceil((k_e - 1) / 2) both
// ways. A first round of copies lays out the first phase's super-blocks.
Schedule build_grid_alltoall(const Grid &grid, int rank, bool both_ways);

} // namespace hier
