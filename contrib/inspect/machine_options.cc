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
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <sstream>

#include "commands.h"
#include "torus.h"

namespace hier::inspect {

int parse_machine_options(const Arguments &args, const char *usage, MachineOptions *o)
{
    if (args.empty()) {
        std::fprintf(stderr, "%s\n", usage);
        return 2;
    }
    o->sizes = parse_node_sizes(args[0], "NODE_SIZES", &o->socket_sizes);
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

std::vector<int> parse_node_sizes(const std::string &text, const char *what, std::vector<int> *socket_sizes)
{
    std::string flat = text;
    std::replace(flat.begin(), flat.end(), '+', ',');
    const std::vector<int> parts = parse_sizes(flat, what);
    if (parts.empty()) {
        return {};
    }
    // Each field between commas is a node: the sum of its sockets.
    std::vector<int> nodes;
    std::istringstream fields(text);
    std::string field;
    for (size_t part = 0; std::getline(fields, field, ',');) {
        const auto sockets = size_t(std::count(field.begin(), field.end(), '+')) + 1;
        nodes.push_back(std::accumulate(parts.begin() + long(part), parts.begin() + long(part + sockets), 0));
        part += sockets;
    }
    if (text.find('+') != std::string::npos) {
        *socket_sizes = parts;
    }
    return nodes;
}

std::vector<int> consecutive_groups(const std::vector<int> &sizes)
{
    std::vector<int> group_of_rank;
    for (size_t group = 0; group < sizes.size(); ++group) {
        group_of_rank.insert(group_of_rank.end(), size_t(sizes[group]), int(group));
    }
    return group_of_rank;
}

void impose_sockets(Topology *topology, const std::vector<int> &socket_sizes)
{
    if (!socket_sizes.empty()) {
        topology->set_sockets(consecutive_groups(socket_sizes));
    }
}

Topology machine_topology(const MachineOptions &o)
{
    Topology topology(consecutive_groups(o.sizes), o.cluster_of_node, o.torus_dims);
    impose_sockets(&topology, o.socket_sizes);
    return topology;
}

} // namespace hier::inspect
