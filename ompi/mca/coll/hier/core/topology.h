/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The machine as the core sees it: ranks grouped into nodes, nodes grouped
// into clusters, and, when known, the torus the ranks form.
//
// Built once per communicator from one integer per rank naming its node
// (Open MPI's locality, or an imposed node map) and, optionally, the cluster
// of each node and the torus's dimension sizes. A description of the
// machine only: what an algorithm derives from it (the embedded hypercube,
// OPT's torus partition) is kept beside it, by the communicator's Plans
// (algorithms.h). Memory is O(p), and the costs between ranks (cost.h:
// locality's O(N) beyond 362 nodes, O(N^2) for N nodes from the probe or an
// N x N file, or O(p^2) from a p x p file).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "torus.h"

namespace hier {

class Costs;

class Topology {
public:
    // node_of_rank[i] names the node of rank i; equal values mean the same
    // node. Nodes are numbered 0..N-1 in the order their lowest rank appears.
    // cluster_of_node[n] names the cluster of node n in that numbering (equal
    // values = same cluster); empty: one cluster. torus_dims: the ranks, in
    // row-major order, form a torus of these sizes, whose product must be the
    // number of ranks (empty: no torus).
    explicit Topology(const std::vector<int> &node_of_rank, const std::vector<int> &cluster_of_node = {},
                      const std::vector<int> &torus_dims = {});

    // Convenience for tests and tools: nodes of the given sizes holding
    // consecutive ranks ("4,3,2,1" is {4, 3, 2, 1}).
    static Topology from_node_sizes(const std::vector<int> &sizes);
    // A torus of the given sizes, one rank per node.
    static Topology from_torus_dims(const std::vector<int> &dims);

    int size() const { return static_cast<int>(node_.size()); }
    int node_count() const { return static_cast<int>(members_.size()); }
    int node_of(int rank) const { return node_[rank]; }
    // Position of rank among its node's ranks, in rank order: l(u) of the papers.
    int local_index(int rank) const { return local_[rank]; }
    int node_size(int node) const { return static_cast<int>(members_[node].size()); }
    int largest_node_size() const;
    // The ranks of a node in increasing order.
    const std::vector<int> &members(int node) const { return members_[node]; }

    // Clusters, numbered 0..C-1 in the order their lowest rank appears.
    int cluster_count() const { return static_cast<int>(cluster_members_.size()); }
    int cluster_of(int rank) const { return cluster_[rank]; }
    // Position of rank among its cluster's ranks, in rank order.
    int cluster_index(int rank) const { return cluster_index_[rank]; }
    const std::vector<int> &cluster_members(int cluster) const { return cluster_members_[cluster]; }

    // Sockets inside nodes (Open MPI's locality, or a node map's "2+2"),
    // numbered 0..S-1 in the order their lowest rank appears. name_of_rank
    // names each rank's socket (equal names on one node: one socket); empty,
    // or a negative name anywhere (a rank not bound): each node one socket,
    // as without. Set before costs are asked for: locality's use them.
    void set_sockets(const std::vector<int> &name_of_rank);
    // Whether some node has more than one socket: else sockets change nothing.
    bool has_sockets() const { return socket_count() > node_count(); }
    int socket_count() const { return socket_members_.empty() ? node_count() : int(socket_members_.size()); }
    int socket_of(int rank) const { return socket_.empty() ? node_[rank] : socket_[rank]; }

    // The torus, or nullptr.
    const Torus *torus() const { return torus_ ? &*torus_ : nullptr; }
    // The torus when its positions are nodes (one rank per node), so that it
    // is the network's shape: node n is rank n. Else nullptr.
    const Torus *torus_of_nodes() const { return node_count() == size() ? torus() : nullptr; }

    // "4,3,2,1 over 10 ranks" style description, for messages and tools; a
    // node with sockets as their sizes joined by '+' ("2+2,3,2,1").
    std::string describe() const;

    // Costs between ranks (cost.h): locality's unless set.
    void set_costs(std::shared_ptr<const Costs> costs);
    const Costs &costs() const;

private:
    std::vector<int> node_;
    std::vector<int> local_;
    std::vector<std::vector<int>> members_;
    std::vector<int> cluster_;
    std::vector<int> cluster_index_;
    std::vector<std::vector<int>> cluster_members_;
    std::vector<int> socket_;  // empty: each node one socket
    std::vector<std::vector<int>> socket_members_;
    mutable std::shared_ptr<const Costs> costs_;
    std::optional<Torus> torus_;
};

// Parses a node map, "4,3,2,1": node sizes for consecutive ranks, which must
// sum to size; a node may be written as its sockets' sizes joined by '+'
// ("2+2,3,2,1"). Returns the node of each rank, or an empty vector and one
// line in *error naming the parameter and the expected form. socket_of_rank,
// if given, gets each rank's socket (numbered over the map) when the map
// writes any socket, else is left empty.
std::vector<int> parse_node_map(const std::string &text, int size, std::string *error,
                                std::vector<int> *socket_of_rank = nullptr);

// Clusters from measured one-way latencies between nodes (latency[a * n + b],
// n nodes): the pairs sorted by latency are cut at the largest ratio between
// consecutive values, and nodes joined by a latency below the cut share a
// cluster (single linkage). A largest ratio under kClusterGapRatio means no
// gap worth a backbone: one cluster. Returns the cluster of each node.
constexpr double kClusterGapRatio = 4.0;
std::vector<int> clusters_from_latency(const std::vector<double> &latency);

// Parses a cluster map, "3,6": cluster sizes in nodes, for the nodes in the
// order of their lowest rank (Topology's numbering). Returns the cluster of
// each node, or an empty vector and one line in *error.
std::vector<int> parse_cluster_map(const std::string &text, int node_count, std::string *error);
// The same in two steps, for a map parsed once and fitted to each
// communicator: its counts (or empty and one line in *error when a field is
// not a positive integer); then, over node_count nodes, the cluster of each
// node (or empty and one line in *error when they do not add up). text only
// words the error.
std::vector<int> parse_cluster_counts(const std::string &text, std::string *error);
std::vector<int> fit_cluster_counts(const std::string &text, const std::vector<int> &counts, int node_count,
                                    std::string *error);

} // namespace hier
