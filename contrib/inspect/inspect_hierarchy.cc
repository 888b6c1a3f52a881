/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// hier-inspect hierarchy: the clusters a value of coll_hier_cluster_map
// gives nodes of the given sizes, as the component finds them: the settings
// parsed and the file read by hier_settings_create, the match against what
// each rank gathered (its host name, or its SLURM_TOPOLOGY_ADDR and
// _PATTERN) by hier_comm_create, so that a source's refusal is the
// component's own line. Prints what the verbose line shows of the hierarchy
// ("size 18, 9 nodes, 3 clusters"), then each cluster's nodes and ranks.
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>

#include "commands.h"
#include "hier_core.h"

namespace hier::inspect {

namespace {

const char *const kUsage =
    "hier-inspect: hierarchy takes NODE_SIZES MAP [--hosts NAMES] [--addresses ADDRESSES [--pattern PATTERN]]: "
    "MAP a coll_hier_cluster_map value (counts, host patterns, slurm[:LEVEL], topology:PATH, coordinates:PATH); "
    "NAMES each node's host name, ADDRESSES its SLURM_TOPOLOGY_ADDR, comma-separated, e.g. hierarchy 2,2,2 "
    "topology:/run/hier-cluster/topology.conf --hosts hier-n0,hier-n1,hier-n2";

std::vector<std::string> split_commas(const std::string &text)
{
    std::vector<std::string> fields;
    std::istringstream in(text);
    std::string field;
    while (std::getline(in, field, ',')) {
        fields.push_back(field);
    }
    return fields;
}

// "0-5,8,10-11": sorted ranks as ranges.
std::string ranges_of(const std::vector<int> &ranks)
{
    std::string text;
    for (size_t i = 0; i < ranks.size();) {
        size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) {
            ++j;
        }
        text += (text.empty() ? "" : ",") + std::to_string(ranks[i]) +
                (j > i ? "-" + std::to_string(ranks[j]) : std::string());
        i = j + 1;
    }
    return text;
}

} // namespace

int hierarchy(const Arguments &args)
{
    if (args.size() < 2 || args.size() % 2) {
        std::fprintf(stderr, "%s\n", kUsage);
        return 2;
    }
    const std::vector<int> sizes = parse_sizes(args[0], "NODE_SIZES");
    if (sizes.empty()) {
        return 2;
    }
    const std::string &map = args[1];
    std::vector<std::string> hosts, addresses;
    std::string pattern;
    for (size_t i = 2; i < args.size(); i += 2) {
        if (args[i] == "--hosts") {
            hosts = split_commas(args[i + 1]);
        } else if (args[i] == "--addresses") {
            addresses = split_commas(args[i + 1]);
        } else if (args[i] == "--pattern") {
            pattern = args[i + 1];
        } else {
            std::fprintf(stderr, "%s\n", kUsage);
            return 2;
        }
    }
    const size_t nodes = sizes.size();
    if ((!hosts.empty() && hosts.size() != nodes) || (!addresses.empty() && addresses.size() != nodes)) {
        std::fprintf(stderr, "hier-inspect: hierarchy: --hosts and --addresses name each of the %zu nodes once\n",
                     nodes);
        return 2;
    }
    if (map == "probe") {
        std::fprintf(stderr, "hier-inspect: hierarchy: \"probe\" measures latencies, which needs MPI\n");
        return 2;
    }

    // The settings, as the component parses them (every other parameter at
    // its default): a source's file is read here.
    int ranks = 0;
    for (int size : sizes) {
        ranks += size;
    }
    hier_settings_input_t settings_input{};
    settings_input.cluster_map = map.c_str();
    settings_input.world_size = ranks;
    settings_input.in_use = 1;
    const std::unique_ptr<hier_settings_t, void (*)(hier_settings_t *)> settings(
        hier_settings_create(&settings_input), hier_settings_destroy);
    if (!settings) {
        std::fprintf(stderr, "hier-inspect: out of memory\n");
        return 1;
    }
    int in_use_only = 0;
    for (int i = 0; const char *line = hier_settings_problem(settings.get(), i, &in_use_only); ++i) {
        std::printf("coll:hier: %s\n", line);
    }

    // What every rank gathers for the map: its node's host name, or its
    // node's Slurm address and pattern; nothing is "" (not gathered, or no
    // SLURM_TOPOLOGY_ADDR).
    const int wanted = hier_settings_wants_host_names(settings.get());
    std::vector<int> node_of_rank;
    std::vector<char> gathered(size_t(ranks) * HIER_HOST_NAME_WIDTH, '\0');
    for (size_t node = 0; node < nodes; ++node) {
        for (int k = 0; k < sizes[node]; ++k) {
            std::string field;
            if (wanted == HIER_GATHER_HOST_NAME && !hosts.empty()) {
                field = hosts[node];
            } else if (wanted == HIER_GATHER_SLURM_ADDRESS && !addresses.empty()) {
                field = addresses[node] + "\n" + pattern;
            }
            std::strncpy(&gathered[node_of_rank.size() * HIER_HOST_NAME_WIDTH], field.c_str(),
                         HIER_HOST_NAME_WIDTH);
            node_of_rank.push_back(int(node));
        }
    }
    if (wanted == HIER_GATHER_HOST_NAME && hosts.empty()) {
        std::fprintf(stderr, "hier-inspect: hierarchy: \"%s\" matches host names: give --hosts\n", map.c_str());
        return 2;
    }

    hier_comm_input_t input{};
    input.settings = settings.get();
    input.size = ranks;
    input.node_of_rank = node_of_rank.data();
    input.host_names = wanted ? gathered.data() : nullptr;
    input.job_wide = 1;
    input.world_size = ranks;
    input.window = 1;
    char line[1024] = "";
    hier_comm_failure_t failure{};
    const std::unique_ptr<hier_comm_t, void (*)(hier_comm_t *)> comm(
        hier_comm_create(&input, line, sizeof(line), &failure), hier_comm_destroy);
    if (line[0]) {
        std::printf("coll:hier: %s\n", line);
    }
    if (!comm) {
        std::printf("coll_hier_cluster_map \"%s\": the component would fall back (%s)\n", map.c_str(),
                    failure.reason ? failure.reason : "out of memory");
        return 1;
    }

    // The verbose line's account of the hierarchy, then its clusters.
    char where[256];
    const hier_decision_t decision{};
    hier_comm_explain(comm.get(), HIER_OP_ALLTOALL, &decision, where, sizeof(where), nullptr, 0);
    std::printf("coll_hier_cluster_map \"%s\" on nodes %s: (%s)\n", map.c_str(), args[0].c_str(), where);
    const int clusters = hier_comm_cluster_count(comm.get());
    for (int cluster = 0; cluster < clusters; ++cluster) {
        std::vector<int> members, cluster_nodes;
        for (int rank = 0; rank < ranks; ++rank) {
            if (hier_comm_cluster_of(comm.get(), rank) == cluster) {
                members.push_back(rank);
                const int node = hier_comm_node_of(comm.get(), rank);
                if (cluster_nodes.empty() || cluster_nodes.back() != node) {
                    cluster_nodes.push_back(node);
                }
            }
        }
        std::string names;
        for (int node : cluster_nodes) {
            names += (names.empty() ? "" : ",") +
                     (!hosts.empty()       ? hosts[size_t(node)]
                      : !addresses.empty() ? addresses[size_t(node)]
                                           : "node " + std::to_string(node));
        }
        std::printf("cluster %d: %s; ranks %s\n", cluster, names.c_str(), ranges_of(members).c_str());
    }
    return 0;
}

} // namespace hier::inspect
