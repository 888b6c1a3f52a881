/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Costs between the processes of a communicator (coll_hier_cost), for the
// cost-aware hypercube embeddings (embedding.h). A cost is what one exchange
// between two processes takes, in any unit: the embeddings and calc_cost
// only add and compare costs.
//
// Sources:
//   locality   levels from the topology hier knows: two processes of one
//              socket (of one node, where sockets are not known) cost
//              kSameNodeCost, of two sockets of one node kOtherSocketCost,
//              of one cluster kSameClusterCost,
//              of different clusters kOtherClusterCost (the default); on a
//              torus of nodes, two nodes h hops apart cost kSameClusterCost
//              (1 + kTorusHopShare (h - 1)), so that an embedding seeks
//              neighbours;
//   probe      the latency probe's one-way latency between node leaders, in
//              microseconds; two processes of one node cost
//              kProbeSameNodeShare of the lowest latency between nodes;
//   file:PATH  a matrix file (cost_file.h): p x p over MPI_COMM_WORLD's
//              ranks, or N x N over nodes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cost_file.h"
#include "torus.h"

namespace hier {

class Topology;

constexpr double kSameNodeCost = 1;
// Shared memory between sockets crosses the link between them (UPI,
// Infinity Fabric): about twice the latency within one, still far below
// the network's.
constexpr double kOtherSocketCost = 2;
constexpr double kSameClusterCost = 10;
constexpr double kOtherClusterCost = 100;
constexpr double kProbeSameNodeShare = 0.1;
// What each hop beyond the first adds to a latency on a torus, as a share of
// a neighbour's: a quarter on the emulated torus (contrib/cluster README: a
// 1-byte round trip takes 28 us to a neighbour, 49 us 4 hops away), less on
// a torus whose routers forward in hardware. The cost is a latency's: the
// gain auto asks of an embedding (15 %) should come from latency, since
// barrier and small blocks are what the hypercube collectives win.
constexpr double kTorusHopShare = 0.25;

// cost(a, b) between ranks a != b (0 for a == b), symmetric.
//
// Memory: one unit per rank, and either a matrix over units, units^2
// doubles, or (locality beyond kMaxLocalityMatrixNodes nodes) levels: each
// node's cluster and its coordinates on the torus of nodes, if any, O(N D)
// for N nodes, every cost computed when asked. When costs come from
// measurements (probe, an N x N file) the units are nodes: N^2 doubles for
// N <= p nodes. A p x p file makes every rank a unit: p^2
// doubles per process (8 MiB at p = 1024), the one place the core holds
// more than O(p) for a communicator, because the user gave a cost for every
// pair of ranks and the embeddings look at every pair.
//
// Locality's costs up to this many nodes are a matrix (1 MiB at most);
// beyond, levels computed when asked.
constexpr int kMaxLocalityMatrixNodes = 362;

class Costs {
public:
    Costs(std::vector<int> unit_of_rank, int units, std::vector<double> matrix, std::string source);
    // Locality's levels over nodes (locality_costs): the cluster of each
    // node, and the torus when its positions are the nodes (else nullptr).
    // With node_of_unit, the units are sockets: the node of each.
    Costs(std::vector<int> node_of_rank, std::vector<int> cluster_of_node, const Torus *torus_of_nodes,
          std::string source, std::vector<int> node_of_unit = {});
    // Every rank its own unit (tests and tools).
    static Costs from_matrix(const CostMatrix &matrix, std::string source = "matrix");

    int size() const { return static_cast<int>(unit_.size()); }
    // Whether costs are locality's levels, computed when asked (no matrix).
    bool levels() const { return levels_; }
    double operator()(int a, int b) const
    {
        if (a == b) {
            return 0.0;
        }
        return levels_ ? level(unit_[a], unit_[b]) : matrix_[size_t(unit_[a]) * size_t(units_) + size_t(unit_[b])];
    }
    // "locality", "probe" or "file:PATH".
    const std::string &source() const { return source_; }

    // Locality's cost between two ranks on units (nodes, or sockets) a and b
    // (levels only).
    double level(int a, int b) const
    {
        if (a == b) {
            return kSameNodeCost;
        }
        if (!node_of_unit_.empty() && node_of_unit_[size_t(a)] == node_of_unit_[size_t(b)]) {
            return kOtherSocketCost;
        }
        if (cluster_[size_t(a)] != cluster_[size_t(b)]) {
            return kOtherClusterCost;
        }
        const double beyond_first = torus_dims_ > 0 ? hops(a, b) - 1 : 0;
        return kSameClusterCost * (1 + kTorusHopShare * beyond_first);
    }

private:
    // Torus::distance between nodes a and b, from their coordinates and a
    // table of hops per difference (no division: the embeddings ask for
    // costs O(N^2 log N) times).
    int hops(int a, int b) const
    {
        const int *from = &coords_[size_t(a) * size_t(torus_dims_)];
        const int *to = &coords_[size_t(b) * size_t(torus_dims_)];
        int total = 0;
        for (int dim = 0; dim < torus_dims_; ++dim) {
            total += ring_hops_[size_t(ring_at_[size_t(dim)] + to[dim] - from[dim])];
        }
        return total;
    }

    std::vector<int> unit_;
    int units_;
    std::vector<double> matrix_;
    bool levels_ = false;                 // locality's levels instead of matrix_
    std::vector<int> cluster_;            // levels: per unit (node, or socket)
    std::vector<int> node_of_unit_;       // levels over sockets: per unit; else empty
    // levels on a torus of nodes (else torus_dims_ = 0): each node's
    // coordinates, and per dimension of size n the hops for a difference of
    // coordinates d in (-n, n) at ring_hops_[ring_at_[dim] + d].
    int torus_dims_ = 0;
    std::vector<int> coords_;
    std::vector<int> ring_at_;
    std::vector<int> ring_hops_;
    std::string source_;
};

Costs locality_costs(const Topology &topology);
// node_latency: N x N one-way latencies in seconds, nodes numbered as
// topology numbers them.
Costs probe_costs(const Topology &topology, const std::vector<double> &node_latency);

// What a communicator knows for coll_hier_cost, beyond the topology and
// the parsed source.
struct CostSetting {
    std::vector<double> node_latency;     // the probe's N x N, when it ran
    // For files, which index MPI_COMM_WORLD: each rank's rank there (empty:
    // the identity) among world_size (0: the communicator's size) ranks, and,
    // with a node map, each rank's node among the job's world_node_count
    // nodes (empty: nodes are the communicator's, in topology's numbering).
    std::vector<int> world_rank;
    int world_size = 0;
    std::vector<int> world_node;
    int world_node_count = 0;
};

// coll_hier_cost parsed once per process: its kind, and for a file its path
// and the matrix read from it; error is what is wrong with it whatever the
// communicator (its form, the file it names: unreadable, malformed, as
// costs_from_source words it), empty if nothing.
enum class CostKind { Locality, Probe, File };
struct CostSource {
    CostKind kind = CostKind::Locality;
    std::string path;   // File: the file named
    CostMatrix matrix;  // n = 0 unless a file was read
    std::string error;
    // The setting as coll_hier_cost spells it, for the lines that quote it.
    std::string text() const;
};
CostSource parse_cost_source(const std::string &value);

// The costs a parsed source gives this communicator, or nullptr and one
// line in *error naming coll_hier_cost, what is wrong and the expected form.
std::shared_ptr<const Costs> costs_from_source(const Topology &topology, const CostSource &source,
                                               const CostSetting &setting, std::string *error);

} // namespace hier
