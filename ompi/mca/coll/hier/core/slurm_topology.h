/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Slurm's descriptions of its switch tree, as clusters: a topology.conf
// (coll_hier_cluster_map "topology:PATH") and the SLURM_TOPOLOGY_ADDR each
// task gets under the topology/tree plugin (coll_hier_cluster_map "slurm").
//
// Pure functions from text: the caller reads the file and gathers the
// variables, and prefixes the parameter's name to an error.
#pragma once

#include <string>
#include <string_view>

namespace hier {

// The leaf switches of a topology.conf (tree form: lines "SwitchName=NAME
// Nodes=HOSTLIST" or "SwitchName=NAME Switches=HOSTLIST", LinkSpeed=
// ignored, '#' comments) as a host map of hostmap.h, one cluster per leaf:
// "leaf1:node[01-16,20];leaf2:node[17-19]". Empty and one line in *error
// (what is wrong and where, without the parameter's name) when the text is
// not such a file.
std::string leaf_host_map_of_topology_conf(std::string_view text, std::string *error);

// coll_hier_cluster_map "slurm", "slurm:leaf" (0: group by leaf switch) or
// "slurm:LEVEL" (LEVEL >= 1: group by the switch LEVEL levels from the top);
// -1 and *error when the text is not one of these.
int slurm_level_of(const std::string &map, std::string *error);

// Does the cluster map name Slurm's variables ("slurm" or "slurm:...")?
bool is_slurm_map(const std::string &map);

// The cluster of a task at `level` from its SLURM_TOPOLOGY_ADDR
// ("spine1.leaf3.node042": switches from the top, then the node) and
// SLURM_TOPOLOGY_ADDR_PATTERN ("switch.switch.node", or "" when unset): the
// switches' names down to that level, "spine1.leaf3" for the leaf. Empty and
// *error (without the parameter's name) when the address does not say.
std::string slurm_cluster_of(const std::string &address, const std::string &pattern, int level,
                             std::string *error);

} // namespace hier
