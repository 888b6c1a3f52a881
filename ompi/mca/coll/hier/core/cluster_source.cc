/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Cluster sources (cluster_source.h): the value's form, the file read once,
// and the match against the ranks of a communicator.
#include "cluster_source.h"

#include <unordered_map>

#include "coordinates_file.h"
#include "cost_file.h"
#include "hostmap.h"
#include "slurm_topology.h"

namespace hier {

namespace {

constexpr const char *kTopologyPrefix = "topology:";
constexpr const char *kCoordinatesPrefix = "coordinates:";
constexpr const char *kTopologyExpected =
    "expected a Slurm topology.conf (\"SwitchName=NAME Nodes=HOSTLIST\" and \"SwitchName=NAME Switches=HOSTLIST\" "
    "lines) whose leaf switches hold every host of the job once";
constexpr const char *kCoordinatesExpected =
    "expected an MPICH coordinates file (\"RANK: GROUP, SWITCH, PORT\" lines) naming every rank of the job";
constexpr const char *kSlurmExpected =
    "expected SLURM_TOPOLOGY_ADDR \"SWITCH[.SWITCH...].NODE\" on every rank (Slurm's topology/tree plugin)";

bool starts_with(const std::string &text, const char *prefix)
{
    return text.compare(0, std::char_traits<char>::length(prefix), prefix) == 0;
}

// FNV-1a of the text, cut to 52 bits so that a double holds it exactly.
double fingerprint_of(const std::string &text)
{
    unsigned long long hash = 0xCBF29CE484222325ull;
    for (unsigned char c : text) {
        hash = (hash ^ c) * 0x100000001B3ull;
    }
    return double(hash >> 12);
}

// The cluster of each node from the name of every rank's cluster (numbered
// in the order of their first rank); empty and *error when one node's ranks
// name two.
std::vector<int> clusters_of_nodes_by_rank(const Topology &nodes, const std::vector<std::string> &cluster_of_rank,
                                           const std::string &prefix, const char *expected, std::string *error)
{
    std::unordered_map<std::string, int> number;
    std::vector<int> cluster_of_node(size_t(nodes.node_count()), -1);
    for (int rank = 0; rank < nodes.size(); ++rank) {
        const int cluster = number.emplace(cluster_of_rank[size_t(rank)], int(number.size())).first->second;
        int &node_cluster = cluster_of_node[size_t(nodes.node_of(rank))];
        if (node_cluster >= 0 && node_cluster != cluster) {
            *error = prefix + "puts rank " + std::to_string(rank) + " in cluster \"" +
                     cluster_of_rank[size_t(rank)] + "\" and another rank of its node in another; " + expected;
            return {};
        }
        node_cluster = cluster;
    }
    return cluster_of_node;
}

std::vector<int> clusters_from_slurm(const std::string &map, int level, const Topology &nodes,
                                     const std::vector<std::string> &gathered, std::string *error,
                                     std::string *notice)
{
    const std::string prefix = "coll_hier_cluster_map \"" + map + "\" ";
    std::vector<std::string> cluster_of_rank;
    for (int rank = 0; rank < nodes.size(); ++rank) {
        const std::string &field = gathered[size_t(rank)];
        const size_t newline = field.find('\n');
        const std::string address = field.substr(0, newline);
        if (address.empty()) {
            *notice = prefix + "finds no SLURM_TOPOLOGY_ADDR on rank " + std::to_string(rank) +
                      " (not a Slurm job under topology/tree?); running as without a cluster map";
            return {};
        }
        std::string what;
        cluster_of_rank.push_back(slurm_cluster_of(
            address, newline == std::string::npos ? "" : field.substr(newline + 1), level, &what));
        if (!what.empty()) {
            *error = prefix + "on rank " + std::to_string(rank) + ": " + what + "; " + kSlurmExpected;
            return {};
        }
    }
    return clusters_of_nodes_by_rank(nodes, cluster_of_rank, prefix, kSlurmExpected, error);
}

std::vector<int> clusters_from_coordinates(const std::string &map, const ClusterSource &source,
                                           const Topology &nodes, const std::vector<int> &world_rank,
                                           std::string *error)
{
    const std::string prefix = "coll_hier_cluster_map \"" + map + "\" ";
    std::vector<std::string> cluster_of_rank;
    for (int rank = 0; rank < nodes.size(); ++rank) {
        const int world = world_rank.empty() ? rank : world_rank[size_t(rank)];
        const auto group = source.group_of_rank.find(world);
        if (group == source.group_of_rank.end()) {
            *error = prefix + "does not name rank " + std::to_string(world) + " of MPI_COMM_WORLD; " +
                     kCoordinatesExpected;
            return {};
        }
        cluster_of_rank.push_back(std::to_string(group->second));
    }
    return clusters_of_nodes_by_rank(nodes, cluster_of_rank, prefix, kCoordinatesExpected, error);
}

} // namespace

hier_cluster_map_kind_t cluster_source_kind(const std::string &map)
{
    if (is_slurm_map(map)) {
        return HIER_CLUSTER_MAP_SLURM;
    }
    if (starts_with(map, kTopologyPrefix)) {
        return HIER_CLUSTER_MAP_TOPOLOGY;
    }
    return starts_with(map, kCoordinatesPrefix) ? HIER_CLUSTER_MAP_COORDINATES : HIER_CLUSTER_MAP_NONE;
}

bool switch_source(hier_cluster_map_kind_t kind)
{
    return kind == HIER_CLUSTER_MAP_SLURM || kind == HIER_CLUSTER_MAP_TOPOLOGY;
}

std::string read_cluster_source(const std::string &map, ClusterSource *source)
{
    std::string error;
    source->kind = cluster_source_kind(map);
    if (source->kind == HIER_CLUSTER_MAP_SLURM) {
        source->slurm_level = slurm_level_of(map, &error);
        return error;
    }
    const bool topology = source->kind == HIER_CLUSTER_MAP_TOPOLOGY;
    const std::string path = map.substr(map.find(':') + 1);
    if (path.empty()) {
        return "coll_hier_cluster_map \"" + map + "\" names no file; expected " +
               (topology ? kTopologyPrefix : kCoordinatesPrefix) + "PATH";
    }
    std::string text;
    if (read_cost_file(path, &text, &error)) {
        if (topology) {
            source->host_map = leaf_host_map_of_topology_conf(text, &error);
        } else {
            source->group_of_rank = parse_coordinates(text, &error);
        }
    }
    if (error.empty()) {
        source->fingerprint = fingerprint_of(text);
    } else {
        source->file_error = "coll_hier_cluster_map \"" + map + "\" " + error + "; " +
                             (topology ? kTopologyExpected : kCoordinatesExpected);
    }
    return {};
}

std::vector<int> clusters_from_source(const std::string &map, const ClusterSource &source, const Topology &nodes,
                                      const std::vector<std::string> &gathered, const std::vector<int> &world_rank,
                                      std::string *error, std::string *notice)
{
    if (!source.file_error.empty()) {
        *error = source.file_error;
        return {};
    }
    switch (source.kind) {
    case HIER_CLUSTER_MAP_SLURM: return clusters_from_slurm(map, source.slurm_level, nodes, gathered, error, notice);
    case HIER_CLUSTER_MAP_TOPOLOGY: {
        const HostMapWording wording{map, kTopologyExpected};
        return clusters_from_host_map(source.host_map, nodes, gathered, false, error, &wording);
    }
    case HIER_CLUSTER_MAP_COORDINATES: return clusters_from_coordinates(map, source, nodes, world_rank, error);
    default: return {};
    }
}

} // namespace hier
