/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Clusters from what a machine says of itself (docs/hierarchy.md), as
// values of coll_hier_cluster_map beside host patterns and node counts:
//   "slurm", "slurm:leaf", "slurm:LEVEL"  every task's SLURM_TOPOLOGY_ADDR
//   "topology:PATH"                       a Slurm topology.conf's leaf switches
//   "coordinates:PATH"                    MPICH's coordinates file's groups
// The value is checked once per process and a file read once; what the
// ranks gathered is matched per communicator. These names are taken before
// host patterns: a host map's first cluster cannot be called "slurm",
// "topology" or "coordinates".
#pragma once

#include <map>
#include <string>
#include <vector>

#include "hier_core.h"
#include "topology.h"

namespace hier {

struct ClusterSource {
    hier_cluster_map_kind_t kind = HIER_CLUSTER_MAP_NONE;
    int slurm_level = 0;               // 0: the leaf switch; N: N switches from the top
    std::string host_map;              // topology: its leaf switches as host patterns (hostmap.h)
    std::map<int, int> group_of_rank;  // coordinates: MPI_COMM_WORLD's rank to group
    // The file's problem, one line: said by the communicator, once the ranks
    // agreed they all read the same (a file may differ between nodes).
    std::string file_error;
    // The file's text, hashed (0 to 2^52), or -1 when it could not be read.
    double fingerprint = -1;
};

// The kind of a cluster map naming a source; HIER_CLUSTER_MAP_NONE for any other.
hier_cluster_map_kind_t cluster_source_kind(const std::string &map);

// Whether clusters of this kind are switches' nodes (slurm, topology:), so
// that the backbone is their uplinks (link_costs.h: switch_clusters).
// coordinates: is not: a dragonfly group's global links are not a leaf's
// uplink.
bool switch_source(hier_cluster_map_kind_t kind);

// The source map names, its file read and parsed. Returns the value's own
// error (a bad slurm level, no path), one line, or "".
std::string read_cluster_source(const std::string &map, ClusterSource *source);

// The cluster of each node of `nodes` (numbered as it numbers them), from
// source. gathered[rank]: for slurm, the rank's "SLURM_TOPOLOGY_ADDR\n
// SLURM_TOPOLOGY_ADDR_PATTERN" ("" without the variable); for topology, its
// host name. world_rank[rank]: its rank in MPI_COMM_WORLD (coordinates).
// Empty and one line in *error when the source does not fit the ranks
// (every rank falls back alike: they match the same facts); empty and one
// line in *notice when a slurm job has no SLURM_TOPOLOGY_ADDR (it runs
// without clusters).
std::vector<int> clusters_from_source(const std::string &map, const ClusterSource &source, const Topology &nodes,
                                      const std::vector<std::string> &gathered, const std::vector<int> &world_rank,
                                      std::string *error, std::string *notice);

} // namespace hier
