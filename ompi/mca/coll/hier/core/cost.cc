/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Costs between processes from locality, the latency probe or a file.
#include "cost.h"

#include <algorithm>

#include "keywords.h"
#include "topology.h"

namespace hier {

Costs::Costs(std::vector<int> unit_of_rank, int units, std::vector<double> matrix, std::string source)
    : unit_(std::move(unit_of_rank)), units_(units), matrix_(std::move(matrix)), source_(std::move(source))
{
}

Costs::Costs(std::vector<int> node_of_rank, std::vector<int> cluster_of_node, const Torus *torus_of_nodes,
             std::string source, std::vector<int> node_of_unit)
    : unit_(std::move(node_of_rank)), units_(static_cast<int>(cluster_of_node.size())), levels_(true),
      cluster_(std::move(cluster_of_node)), node_of_unit_(std::move(node_of_unit)), source_(std::move(source))
{
    if (!torus_of_nodes) {
        return;
    }
    const Torus &torus = *torus_of_nodes;
    torus_dims_ = torus.dimensions();
    coords_.resize(size_t(units_) * size_t(torus_dims_));
    for (int node = 0; node < units_; ++node) {
        for (int dim = 0; dim < torus_dims_; ++dim) {
            coords_[size_t(node) * size_t(torus_dims_) + size_t(dim)] = torus.coordinate(node, dim);
        }
    }
    for (int dim = 0; dim < torus_dims_; ++dim) {
        const int n = torus.dims()[size_t(dim)];
        ring_at_.push_back(static_cast<int>(ring_hops_.size()) + n - 1);
        for (int d = 1 - n; d < n; ++d) {
            const int ahead = (d + n) % n;  // as Torus::hops
            ring_hops_.push_back(std::min(ahead, n - ahead));
        }
    }
}

Costs Costs::from_matrix(const CostMatrix &matrix, std::string source)
{
    std::vector<int> units(size_t(matrix.n));
    for (int rank = 0; rank < matrix.n; ++rank) {
        units[rank] = rank;
    }
    return Costs(std::move(units), matrix.n, matrix.values, std::move(source));
}

namespace {

std::vector<int> node_units(const Topology &topology)
{
    std::vector<int> units(size_t(topology.size()));
    for (int rank = 0; rank < topology.size(); ++rank) {
        units[rank] = topology.node_of(rank);
    }
    return units;
}

} // namespace

// Two processes of one node cost kSameNodeCost, of one cluster
// kSameClusterCost (more per hop beyond the first on a torus of nodes), of
// two clusters kOtherClusterCost; where a node has several sockets, the
// units are sockets, and two of one node cost kOtherSocketCost. Up to
// kMaxLocalityMatrixNodes units, an N x N matrix of them (a lookup, where
// the embeddings ask O(N^2 log N) times); beyond, levels computed when asked
// (Costs::level, the same values): the matrix would be 8 MiB for 1,024
// nodes, 2 GiB for a torus of 16,384, made for every communicator.
Costs locality_costs(const Topology &topology)
{
    // Without sockets, socket_of is node_of: units are nodes, as before.
    const int n = topology.socket_count();
    std::vector<int> unit_of_rank(size_t(topology.size()));
    std::vector<int> cluster_of_unit(size_t(n), 0);
    std::vector<int> node_of_unit(topology.has_sockets() ? size_t(n) : 0);
    for (int rank = 0; rank < topology.size(); ++rank) {
        const int unit = topology.socket_of(rank);
        unit_of_rank[size_t(rank)] = unit;
        cluster_of_unit[size_t(unit)] = topology.cluster_of(rank);
        if (!node_of_unit.empty()) {
            node_of_unit[size_t(unit)] = topology.node_of(rank);
        }
    }
    // A torus of nodes has one rank per node, so no sockets to mix with it.
    Costs levels(unit_of_rank, std::move(cluster_of_unit), topology.torus_of_nodes(), kLocalityKeyword,
                 std::move(node_of_unit));
    if (n > kMaxLocalityMatrixNodes) {
        return levels;
    }
    std::vector<double> matrix(size_t(n) * size_t(n));
    for (int a = 0; a < n; ++a) {
        for (int b = 0; b < n; ++b) {
            matrix[size_t(a) * n + b] = levels.level(a, b);
        }
    }
    return Costs(std::move(unit_of_rank), n, std::move(matrix), kLocalityKeyword);
}

Costs probe_costs(const Topology &topology, const std::vector<double> &node_latency)
{
    const int n = topology.node_count();
    constexpr double kMicroseconds = 1e6;
    double lowest = 0;
    for (int a = 0; a < n; ++a) {
        for (int b = 0; b < n; ++b) {
            const double latency = node_latency[size_t(a) * n + b];
            if (a != b && latency > 0 && (lowest == 0 || latency < lowest)) {
                lowest = latency;
            }
        }
    }
    const double same_node = lowest > 0 ? kProbeSameNodeShare * lowest * kMicroseconds : 1.0;
    std::vector<double> matrix(size_t(n) * size_t(n));
    for (int a = 0; a < n; ++a) {
        for (int b = 0; b < n; ++b) {
            matrix[size_t(a) * n + b] = a == b ? same_node : node_latency[size_t(a) * n + b] * kMicroseconds;
        }
    }
    return Costs(node_units(topology), n, std::move(matrix), kProbeKeyword);
}

namespace {

// The forms coll_hier_cost takes, for its error lines.
std::string expected_setting()
{
    return std::string("expected ") + kLocalityKeyword + ", " + kProbeKeyword + " or " + kFileKeyword + "PATH";
}

constexpr const char *kExpectedFile =
    "expected a square, symmetric matrix of non-negative numbers, one row per line, over MPI_COMM_WORLD's "
    "ranks (p x p) or over nodes (N x N)";

// The costs of a parsed file for this communicator: the p x p matrix's rows
// and columns of its members (a p x p submatrix), or the N x N matrix whole.
std::shared_ptr<const Costs> file_costs(const Topology &topology, const CostSetting &setting,
                                        const CostMatrix &matrix, const std::string &source, std::string *why)
{
    const int p = topology.size();
    const int world_size = setting.world_size > 0 ? setting.world_size : p;
    const auto world_rank = [&](int rank) { return setting.world_rank.empty() ? rank : setting.world_rank[rank]; };
    if (matrix.n == world_size) {
        for (int rank = 0; rank < p; ++rank) {
            if (world_rank(rank) < 0 || world_rank(rank) >= matrix.n) {
                *why = "has no row for rank " + std::to_string(rank) + " of this communicator";
                return nullptr;
            }
        }
        std::vector<double> members(size_t(p) * size_t(p));
        for (int a = 0; a < p; ++a) {
            for (int b = 0; b < p; ++b) {
                members[size_t(a) * p + b] = matrix.at(world_rank(a), world_rank(b));
            }
        }
        std::vector<int> units(static_cast<size_t>(p));
        for (int rank = 0; rank < p; ++rank) {
            units[rank] = rank;
        }
        return std::make_shared<Costs>(std::move(units), p, std::move(members), source);
    }
    const bool world_nodes = setting.world_node_count > 0 && !setting.world_node.empty();
    const int nodes = world_nodes ? setting.world_node_count : topology.node_count();
    if (matrix.n != nodes) {
        *why = "has " + std::to_string(matrix.n) + " rows; expected " + std::to_string(world_size) +
               " (MPI_COMM_WORLD's ranks) or " + std::to_string(nodes) +
               (world_nodes ? " (the node map's nodes)" : " (this communicator's nodes)");
        return nullptr;
    }
    return std::make_shared<Costs>(world_nodes ? setting.world_node : node_units(topology), nodes, matrix.values,
                                   source);
}

} // namespace

std::string CostSource::text() const
{
    switch (kind) {
    case CostKind::Probe:
        return kProbeKeyword;
    case CostKind::File:
        return kFileKeyword + path;
    case CostKind::Locality:
        break;
    }
    return kLocalityKeyword;
}

namespace {

// The matrix of a file, or n = 0 and *error.
CostMatrix read_matrix(const std::string &value, const std::string &path, std::string *error)
{
    const std::string prefix = "coll_hier_cost \"" + value + "\" ";
    std::string text, why;
    if (!read_cost_file(path, &text, &why)) {
        *error = prefix + why;
        return {};
    }
    const CostMatrix matrix = parse_cost_matrix(text, &why);
    if (matrix.n == 0) {
        *error = prefix + why + "; " + kExpectedFile;
    }
    return matrix;
}

} // namespace

CostSource parse_cost_source(const std::string &value)
{
    CostSource source;
    const std::string file_prefix = kFileKeyword;
    const std::string quoted = "coll_hier_cost \"" + value + "\" ";
    if (value.empty() || value == kLocalityKeyword) {
        source.kind = CostKind::Locality;
    } else if (value == kProbeKeyword) {
        source.kind = CostKind::Probe;
    } else if (value.compare(0, file_prefix.size(), file_prefix) != 0) {
        source.error = quoted + "is not a cost source; " + expected_setting();
    } else if (value.size() == file_prefix.size()) {
        source.error = quoted + "names no file; " + expected_setting();
    } else {
        source.kind = CostKind::File;
        source.path = value.substr(file_prefix.size());
        source.matrix = read_matrix(value, source.path, &source.error);
    }
    return source;
}

std::shared_ptr<const Costs> costs_from_source(const Topology &topology, const CostSource &source,
                                               const CostSetting &setting, std::string *error)
{
    if (!source.error.empty()) {
        *error = source.error;
        return nullptr;
    }
    switch (source.kind) {
    case CostKind::Locality:
        return std::make_shared<Costs>(locality_costs(topology));
    case CostKind::Probe: {
        const auto n = size_t(topology.node_count());
        if (setting.node_latency.size() != n * n) {
            *error = "coll_hier_cost \"" + source.text() + "\" needs the latency probe, which did not run";
            return nullptr;
        }
        return std::make_shared<Costs>(probe_costs(topology, setting.node_latency));
    }
    case CostKind::File:
        break;
    }
    std::string why;
    auto costs = file_costs(topology, setting, source.matrix, source.text(), &why);
    if (!costs) {
        *error = "coll_hier_cost \"" + source.text() + "\" " + why + "; " + kExpectedFile;
    }
    return costs;
}

} // namespace hier
