/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The machine a command of hier-inspect describes (commands.h,
// MachineOptions): node sizes and their options, parsed alike for every
// command that takes them.
#include <cstdio>
#include <cstdlib>
#include <numeric>

#include "commands.h"
#include "torus.h"

namespace hier::inspect {

int parse_machine_options(const Arguments &args, const char *usage, MachineOptions *o)
{
    if (args.empty()) {
        std::fprintf(stderr, "%s\n", usage);
        return 2;
    }
    o->sizes = parse_sizes(args[0], "NODE_SIZES");
    if (o->sizes.empty()) {
        return 2;
    }
    for (size_t i = 1; i < args.size(); i += 2) {
        if (args[i] == "--exact") {
            o->exact = true;
            --i;
            continue;
        }
        if (i + 1 >= args.size()) {
            std::fprintf(stderr, "%s\n", usage);
            return 2;
        }
        const std::string &value = args[i + 1];
        std::string error;
        char *end = nullptr;
        if (args[i] == "--clusters") {
            o->cluster_of_node = parse_cluster_map(value, int(o->sizes.size()), &error);
        } else if (args[i] == "--torus") {
            const int ranks = std::accumulate(o->sizes.begin(), o->sizes.end(), 0);
            o->torus_dims = parse_torus_dims(value, ranks, &error);
        } else if (args[i] == "--costs") {
            parse_link_costs(value, &o->costs, &error);
            if (error.empty() && o->costs.probe) {
                error = "--costs probe: the latency probe needs MPI; give the latencies instead";
            }
        } else if (args[i] == "--bytes") {
            const unsigned long long bytes = std::strtoull(value.c_str(), &end, 10);
            o->bytes = size_t(bytes);
            error = value.empty() || *end || bytes < 1 ? "--bytes \"" + value + "\": expected a positive integer" : "";
        } else if (args[i] == "--window") {
            o->window = int(std::strtol(value.c_str(), &end, 10));
            error = value.empty() || *end || o->window < 1 ? "--window \"" + value + "\": expected a positive integer"
                                                           : "";
        } else {
            std::fprintf(stderr, "%s\n", usage);
            return 2;
        }
        if (!error.empty()) {
            std::fprintf(stderr, "hier-inspect: %s\n", error.c_str());
            return 2;
        }
    }
    return 0;
}


Topology machine_topology(const MachineOptions &o)
{
    const Topology nodes = Topology::from_node_sizes(o.sizes);
    std::vector<int> node_of_rank(size_t(nodes.size()));
    for (int rank = 0; rank < nodes.size(); ++rank) {
        node_of_rank[rank] = nodes.node_of(rank);
    }
    return Topology(node_of_rank, o.cluster_of_node, o.torus_dims);
}

} // namespace hier::inspect
