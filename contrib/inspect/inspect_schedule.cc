/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// hier-inspect schedule: one algorithm of one collective on described nodes,
// simulated for every rank: does it deliver, in how many rounds and steps,
// with how many messages on each class of link, at what port and NIC load.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "commands.h"
#include "registry.h"
#include "simulate.h"
#include "topology.h"

namespace hier::inspect {

namespace {

bool op_by_name(const std::string &name, hier_op_t *op)
{
    for (int i = 0; i < HIER_OP_COUNT; ++i) {
        if (name == op_name(hier_op_t(i))) {
            *op = hier_op_t(i);
            return true;
        }
    }
    return false;
}

const Algorithm *algorithm_by_name(hier_op_t op, const std::string &name)
{
    for (const Algorithm *algorithm : algorithms_for(op)) {
        if (name == algorithm->name) {
            return algorithm;
        }
    }
    return nullptr;
}

std::string names_of(hier_op_t op)
{
    std::string names;
    for (const Algorithm *algorithm : algorithms_for(op)) {
        names += (names.empty() ? "" : ", ") + std::string(algorithm->name);
    }
    return names.empty() ? "none yet" : names;
}

void print_report(const Topology &topology, const char *algorithm, hier_op_t op, int root,
                  const SimulationReport &report)
{
    std::printf("%s %s on nodes %s (%d ranks, %d nodes, %d cluster%s)", op_name(op), algorithm,
                topology.describe().c_str(), topology.size(), topology.node_count(), topology.cluster_count(),
                topology.cluster_count() == 1 ? "" : "s");
    if (root >= 0) {
        std::printf(", root %d", root);
    }
    std::printf("\n  delivery:  %s\n", report.error.empty() ? "every block exactly where it belongs" : report.error.c_str());
    std::printf("  rounds:    %zu (most of any rank)\n  steps:     %zu\n", report.rounds, report.steps);
    std::printf("  messages:  %zu intra-node (%zu blocks), %zu inter-node (%zu blocks), %zu over a backbone in %zu steps\n",
                report.intra_node_messages, report.intra_node_blocks, report.inter_node_messages,
                report.inter_node_blocks, report.inter_cluster_messages, report.inter_cluster_steps);
    std::printf("  load:      at most %zu messages per node and step, %zu through a NIC\n", report.max_port_load,
                report.max_nic_load);
}

} // namespace

int schedule(const Arguments &args)
{
    if (args.size() < 3) {
        std::fprintf(stderr, "hier-inspect: schedule needs OP ALGORITHM NODE_SIZES, e.g. schedule alltoall factor 4,3,2,1\n");
        return 2;
    }
    hier_op_t op;
    if (!op_by_name(args[0], &op)) {
        std::fprintf(stderr, "hier-inspect: \"%s\" is not a collective; expected alltoall, scatter, gather, allgather, "
                             "allreduce, barrier or alltoallv\n", args[0].c_str());
        return 2;
    }
    const Algorithm *algorithm = algorithm_by_name(op, args[1]);
    if (!algorithm) {
        std::fprintf(stderr, "hier-inspect: %s has no algorithm \"%s\"; expected one of: %s\n", op_name(op),
                     args[1].c_str(), names_of(op).c_str());
        return 2;
    }
    const std::vector<int> sizes = parse_sizes(args[2], "NODE_SIZES");
    if (sizes.empty()) {
        return 2;
    }
    std::vector<int> cluster_of_node;
    std::vector<int> torus_dims;
    int root = -1;
    const int ranks = Topology::from_node_sizes(sizes).size();
    for (size_t i = 3; i < args.size(); i += 2) {
        if (i + 1 >= args.size() || (args[i] != "--clusters" && args[i] != "--root" && args[i] != "--torus")) {
            std::fprintf(stderr, "hier-inspect: schedule takes --clusters SIZES, --torus DIMS and --root R after the "
                                 "node sizes\n");
            return 2;
        }
        if (args[i] == "--torus") {
            std::string error;
            torus_dims = parse_torus_dims(args[i + 1], ranks, &error);
            if (!error.empty()) {
                std::fprintf(stderr, "hier-inspect: %s\n", error.c_str());
                return 2;
            }
        } else if (args[i] == "--clusters") {
            std::string error;
            cluster_of_node = parse_cluster_map(args[i + 1], int(sizes.size()), &error);
            if (!error.empty()) {
                std::fprintf(stderr, "hier-inspect: %s\n", error.c_str());
                return 2;
            }
        } else {
            root = std::atoi(args[i + 1].c_str());
        }
    }
    const Topology nodes = Topology::from_node_sizes(sizes);
    std::vector<int> node_of_rank(size_t(nodes.size()));
    for (int rank = 0; rank < nodes.size(); ++rank) {
        node_of_rank[rank] = nodes.node_of(rank);
    }
    const Topology topology(node_of_rank, cluster_of_node, torus_dims);
    const bool rooted = op == HIER_OP_SCATTER || op == HIER_OP_GATHER;
    if (rooted && (root < 0 || root >= topology.size())) {
        if (root != -1) {
            std::fprintf(stderr, "hier-inspect: --root %d is not a rank of %d\n", root, topology.size());
            return 2;
        }
        root = 0;
    }
    if (const char *why = algorithm->unfit(topology)) {
        std::printf("%s %s does not apply to nodes %s: %s\n", op_name(op), algorithm->name,
                    topology.describe().c_str(), why);
        return 1;
    }
    const Plans plans;
    std::vector<Schedule> schedules;
    for (int rank = 0; rank < topology.size(); ++rank) {
        schedules.push_back(algorithm->build(topology, plans, rank, rooted ? root : -1));
    }
    const SimulationReport report = simulate(topology, schedules, contract_for(op, topology.size(), root));
    print_report(topology, algorithm->name, op, rooted ? root : -1, report);
    return report.error.empty() ? 0 : 1;
}

} // namespace hier::inspect
