/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Clusters by host names: coll_hier_cluster_map = "nancy:cvn[1-3];rennes:cvn[4-9]".
//
// A map is clusters separated by ';', each a name, ':', then comma-separated
// host patterns. A pattern is host-name characters (letters, digits, '.',
// '-', '_') and bracket ranges: "[1-3]", "[1,4,7-9]"; a range whose start
// has a leading zero, "[01-12]", matches numbers written with that many
// digits, any other only numbers written without a leading zero. A host
// matches a pattern by its whole name, or by its name up to the first '.'
// (so short patterns match fully qualified names).
//
// A host's name does not depend on the communicator, so the same map gives
// every communicator (split, dup) its clusters.
#pragma once

#include <string>
#include <vector>

#include "topology.h"

namespace hier {

// Does the cluster map have the host-pattern form (rather than counts or "probe")?
bool is_host_map(const std::string &text);

// Checks a host map's syntax: "" or one line in *error naming
// coll_hier_cluster_map and the expected form.
std::string check_host_map(const std::string &text);

// The cluster of each node of `nodes` (numbered as it numbers them), from
// the host name of each of its ranks. Empty, and one line in *error, when the
// map does not parse, leaves a host in no cluster, puts one in two, or puts
// the ranks of one node in two clusters; and, when job_wide (the
// communicator holds every process of the job), when a pattern matches none
// of its hosts. An error names the map as wording->shown and ends with
// wording->expected when given (a map made from another source's file).
struct HostMapWording {
    std::string shown, expected;
};
std::vector<int> clusters_from_host_map(const std::string &text, const Topology &nodes,
                                        const std::vector<std::string> &host_of_rank, bool job_wide,
                                        std::string *error, const HostMapWording *wording = nullptr);

} // namespace hier
