/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The equal partition of a torus for the OPT scatter: Mao, Chen and Watson,
// "One-to-all personalized communication in torus networks", Sec. 3.1-3.2.
// The paper draws the partitions of 8x8 and 4x8x8 by hand and leaves "a
// general partition algorithm" for any dimension sizes as future work; this
// is one, for any D and any sizes (odd, even, mixed, 1 and 2 included).
//
// The problem. The root (the origin) has L links (Torus::links: two per
// dimension of size >= 3, one per dimension of size 2). Give every other node
// a region, one region per root link, so that
//   (a) every node v has a parent: a neighbour one hop closer to the root, in
//       v's region (the link's own neighbour has the root as parent); the
//       parents form a shortest-path tree, and each region is the subtree of
//       one root link, entered only through it;
//   (b) the largest region is as small as possible.
// The root sends at most L messages per step, so every scatter takes at least
// ceil((p - 1) / L) steps (torus_scatter_bound), and OPT takes exactly the
// largest region's size:
//
// Why OPT takes max |R| steps. In region R the root sends one message per
// step over R's link, furthest destination first; every node forwards a
// message the step after it arrives, along the tree. A message for v leaving
// at step w(v) (0-based) crosses the edge at depth k in step w(v) + k - 1 and
// reaches v, at distance d(v), in step w(v) + d(v) - 1. Two messages never
// share an edge in a step: within R they left in different steps and an edge
// at depth k is crossed only k - 1 steps after leaving; regions share no edge.
// v's d(v) - 1 tree ancestors are in R and closer than v, so furthest-first
// sends all of them after v: w(v) <= |R| - 1 - (d(v) - 1), hence v is served
// by step |R| - 1. The last message leaves at step |R| - 1 and needs a hop:
// exactly |R| steps. (The simulator checks this for every torus in the tests.)
//
// The algorithm, in relative coordinates (root = rank 0):
// 1. Greedy, outward: nodes by increasing distance; the link's neighbours seed
//    their regions; every other node joins the smallest region among those of
//    its predecessors (neighbours one hop closer), which keeps (a).
// 2. Balance, by augmenting paths: while a region A holds more than
//    C = ceil((p - 1) / L) nodes, search breadth-first over regions: from
//    region X to region Y when some node of X may move to Y, that is, it has
//    a predecessor in Y and no node of X relies on it alone as a predecessor
//    in X. Reaching a region below C, move one node along each edge of the
//    path, last edge first: A loses one node, the end region gains one, the
//    others keep their sizes, and (a) holds after every move. (An edge into X
//    is taken only with a node out of X that its mover does not rely on.)
// Both steps take O(p D) time per pass; the balancing makes as many passes as
// the greedy's overflow, which is small (a few nodes). Memory O(p D).
//
// Result: the bound ceil((p - 1) / L) is met on every torus tried, and so the
// partition is optimal there (no region can be smaller than the average):
// the unit tests check every 2-D torus up to 16x16 and 3-D torus up to 8x8x8,
// sizes 1 and 2 included, rings, 32x32, 2^4, 2^5, 2^6, 3^4, 4^4, 4^5 and
// 2x3x4x5; hier-inspect showed 64x64, 16x16x16 and 2^10 too. No torus was
// found where the bound cannot be met. Should the balancing ever stop above it (no augmenting path), the
// partition is still valid and largest() says how far it is; the inspection
// tool prints both.
#pragma once

#include <string>
#include <vector>

#include "torus.h"

namespace hier {

// Per node, relative to the root at rank 0.
struct TorusPartition {
    std::vector<int> region;  // index into Torus::links(); -1 for the root
    std::vector<int> parent;  // one hop closer to the root, in the same region; -1 for the root
    std::vector<int> sizes;   // nodes per region

    int largest() const;
};

// ceil((p - 1) / L): no scatter from one root over L links takes fewer steps.
int torus_scatter_bound(const Torus &torus);

// The partition above; balance = false stops after the greedy (for tests and
// the inspection tool, to show what the balancing gains).
TorusPartition partition_torus(const Torus &torus, bool balance = true);

// A partition from a region per node (a hand-made one, such as the paper's
// naive split): parents (the first predecessor, in link order, of the same
// region; -1 where there is none) and sizes.
TorusPartition partition_from_regions(const Torus &torus, std::vector<int> region);

// Empty, or why the partition breaks (a): a node without a parent in its
// region, a parent that is not one hop closer, a region that is not a link's.
std::string partition_error(const Torus &torus, const TorusPartition &partition);

} // namespace hier
