/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The commands of hier-inspect, one file each (inspect_<name>.cc). A command
// gets its arguments (after its name) and returns the process's exit code:
// 0, 1 when what it inspected fails a check, 2 on bad usage (after one line
// on stderr saying what was expected).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cost_file.h"
#include "link_costs.h"
#include "topology.h"

namespace hier::inspect {

using Arguments = std::vector<std::string>;

int schedule(const Arguments &args);
int alltoall(const Arguments &args);
int torus(const Arguments &args);
int embed(const Arguments &args);
int embed_gains(const Arguments &args);
int rules(const Arguments &args);
int registry(const Arguments &args);
int hierarchy(const Arguments &args);

// Pair costs drawn from 1..max, symmetric, the same for a seed everywhere.
CostMatrix random_cost_matrix(int n, int max, uint64_t seed);

// Shared by the commands: parses "4,3,2,1" (positive integers), or writes
// one line to stderr naming `what` and returns an empty vector.
std::vector<int> parse_sizes(const std::string &text, const char *what);

// A described machine: NODE_SIZES [--clusters SIZES] [--torus DIMS] [--costs
// LINK_COSTS] [--bytes B [--exact]] [--window W] (machine_options.cc).
struct MachineOptions {
    std::vector<int> sizes;
    std::vector<int> socket_sizes;  // each socket's ranks, in rank order (empty: none written)
    std::vector<int> cluster_of_node;
    std::vector<int> torus_dims;
    LinkCostSpec costs;
    size_t bytes = 1024;
    int window = 1;
    bool exact = false;  // model at `bytes`, not at the size class's middle as auto does
};
// Parses args (the node sizes, then options): 0, or 2 after one line on
// stderr (usage, for a form it does not know).
int parse_machine_options(const Arguments &args, const char *usage, MachineOptions *o);
Topology machine_topology(const MachineOptions &o);
// NODE_SIZES where a node may be its sockets' sizes joined by '+' ("2+2,4",
// as coll_hier_node_map): the node sizes, and in *socket_sizes each
// socket's (left empty when none is written); empty after one line on
// stderr.
std::vector<int> parse_node_sizes(const std::string &text, const char *what, std::vector<int> *socket_sizes);
// Groups of these sizes over consecutive ranks: the group of each rank.
std::vector<int> consecutive_groups(const std::vector<int> &sizes);
// Sockets of these sizes over consecutive ranks, into topology (none: as is).
void impose_sockets(Topology *topology, const std::vector<int> &socket_sizes);

} // namespace hier::inspect
