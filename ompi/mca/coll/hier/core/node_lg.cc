/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Node-level aggregation: the LG alltoall (Jeannot and Steffenel, "Fast and
// Efficient Total Exchange on Two Clusters", Euro-Par 2007, Sec. 4.1 and
// Algorithm 1) with every SMP node as its own group, the locality-aware
// alltoall of the literature: the ranks of a node hand each other the blocks
// they will carry, every pair of nodes exchanges aggregated messages, and
// each rank moves what it received to where it belongs.
//
// It is lg.cc's schedule over the topology whose clusters are the nodes;
// where it departs from the paper and from lg:
// - The aggregators: lg spreads a group's inter-group messages over all of
//   its processes (each carries its share, the paper's rule), so here every
//   rank of a node is an aggregator, not one leader per node: between nodes
//   of n1 <= n2 ranks, 2 max(n1, n2) messages, never 2 n1 n2.
// - The backbone phase is lg_at_once's: every inter-node exchange posted in
//   one step, as the literature's locality-aware alltoall posts them, and
//   because lg's step colouring of the exchanges is O(p N^2) for N nodes
//   where the whole plan here is O(p). A rank of a node of n posts about
//   max(n, nd) / n exchanges per other node of nd at once: N - 1 on equal
//   nodes, p - 1 (a flat linear alltoall's) for a rank alone on its node.
// - The local phase is an alltoall within the node through shared memory,
//   posted at once; clusters the user gave are ignored (a message between
//   nodes of two clusters crosses the backbone like any other of theirs).
//
// Memory per rank: lg_at_once's (an O(p) plan, TMP of about two copies of
// the rank's blocks) and an O(p) copy of the topology with the nodes as
// clusters, for the duration of the build.
#include "algorithms.h"

#include <numeric>

namespace hier {

namespace {

Topology nodes_as_clusters(const Topology &topology)
{
    std::vector<int> node_of_rank(size_t(topology.size()));
    for (int rank = 0; rank < topology.size(); ++rank) {
        node_of_rank[size_t(rank)] = topology.node_of(rank);
    }
    std::vector<int> cluster_of_node(size_t(topology.node_count()));
    std::iota(cluster_of_node.begin(), cluster_of_node.end(), 0);
    return Topology(node_of_rank, cluster_of_node);
}

} // namespace

const char *node_lg_unfit(const Topology &topology)
{
    if (topology.node_count() < 2) {
        return "needs two nodes or more";
    }
    return topology.largest_node_size() > 1 ? nullptr
                                            : "every node has one rank: nothing to aggregate (pairwise sends the same)";
}

Schedule build_node_lg_alltoall(const Topology &topology, const Plans & /*plans*/, int rank, int root)
{
    // A topology of its own, so plans of its own (lg derives none).
    return build_lg_at_once_alltoall(nodes_as_clusters(topology), Plans(), rank, root);
}

} // namespace hier
