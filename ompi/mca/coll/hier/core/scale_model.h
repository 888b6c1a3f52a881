/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The scale model: auto's time model for communicators too large for the
// flow simulation (model.h), p > kMaxModelledRanks.
//
// It predicts an alltoall's time from aggregate quantities, never from the
// p^2 flows: the communicator is reduced to its kinds of rank (a node size
// within a cluster, with how many nodes of that size the cluster has), and
// each algorithm is a closed form over them: its rounds (latency terms, a
// window's worth overlapping), the per-message overheads at the busiest
// rank, and the bytes through the busiest node's NIC, its shared memory
// and its cluster's uplink (leaf uplinks: each its own, link_costs.h) per
// round (bandwidth terms, shared max-min as the simulator shares them, by
// counting the flows that meet there). Work
// O(N log N) for N nodes to build the shape, then O(K) per row and machine
// for K kinds of rank (K <= N; tuned's Bruck O(K log p), node_lg O(K^2):
// its groups are the nodes, met kind by kind); memory O(N).
//
// Where it departs from the simulator (docs/scale-model.md has the measured
// agreement):
// - ranks of a node are taken as consecutive in rank order, and clusters as
//   consecutive runs of nodes (the flat algorithms' partner classes are
//   counted so); a round-robin placement is predicted as a block one;
// - rounds are paced by the busiest kind of rank, not by the p schedules'
//   dependencies; the waits they cause are not modelled;
// - eager against rendezvous is decided per message size (a rendezvous
//   costs two more latencies), as the simulator does, but the request's
//   overlap with other rounds is not;
// - on a torus of nodes there are no NICs: the busiest link is the
//   bisection's, and latency the mean route's;
// - rows whose schedule cannot be summed in closed form at scale are not
//   offered (edgecolor: its König colouring is the schedule, and its table
//   alone exceeds 2 N D at these sizes; hypercube: its cost-aware embedding
//   is a search of O(p^2 log p), and auto's is blind beyond 1,024 ranks).
#pragma once

#include <cstddef>
#include <vector>

#include "link_costs.h"
#include "registry.h"
#include "topology.h"
#include "tuned_alltoall.h"

namespace hier {

// The communicator as the scale model sees it.
struct ScaleShape {
    struct Kind {
        int cluster;     // its cluster
        int node_size;   // ranks of its nodes
        int nodes;       // nodes of that size in the cluster
    };
    int ranks = 0;
    int nodes = 0;
    int largest_node = 0;
    std::vector<Kind> kinds;           // by cluster, then node size
    std::vector<int> cluster_ranks;    // ranks per cluster
    std::vector<int> cluster_nodes;    // nodes per cluster
    std::vector<int> node_sizes;       // distinct node sizes, ascending, with
    std::vector<int> nodes_of_size;    // how many nodes have each
    std::vector<int> torus_dims;       // a torus of nodes (one rank per node), else empty
    std::vector<int> mesh_dims;        // mesh.cc's grid
};
ScaleShape scale_shape(const Topology &topology);

// Whether the scale model predicts this alltoall row: it has a scale_cost
// (edgecolor and hypercube have none, see above).
bool scale_models(const Algorithm *algorithm);

// Predicted seconds of a row (scale_models) at `window` rounds in flight,
// and of tuned's algorithm (at window 1, its own order), on one machine.
double scale_predict_row(const ScaleShape &shape, const Algorithm *algorithm, size_t block_bytes, int window,
                         const LinkCosts &machine);
double scale_predict_tuned(const ScaleShape &shape, TunedAlltoall algorithm, size_t block_bytes,
                           const LinkCosts &machine);

// The alltoall rows' closed forms (their Algorithm::scale_cost), one per
// row; window is at least 1.
double scale_pairwise(const ScaleShape &shape, size_t block_bytes, double window, const LinkCosts &machine);
double scale_xor(const ScaleShape &shape, size_t block_bytes, double window, const LinkCosts &machine);
double scale_factor(const ScaleShape &shape, size_t block_bytes, double window, const LinkCosts &machine);
double scale_ring(const ScaleShape &shape, size_t block_bytes, double window, const LinkCosts &machine);
double scale_ring2(const ScaleShape &shape, size_t block_bytes, double window, const LinkCosts &machine);
double scale_mesh(const ScaleShape &shape, size_t block_bytes, double window, const LinkCosts &machine);
double scale_lg(const ScaleShape &shape, size_t block_bytes, double window, const LinkCosts &machine);
double scale_lg_at_once(const ScaleShape &shape, size_t block_bytes, double window, const LinkCosts &machine);
double scale_lg_overlap(const ScaleShape &shape, size_t block_bytes, double window, const LinkCosts &machine);
double scale_node_lg(const ScaleShape &shape, size_t block_bytes, double window, const LinkCosts &machine);

} // namespace hier
