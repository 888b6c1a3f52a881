/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// hier-inspect embed: every hypercube embedding (Figueira and Janapa
// Reddi's and ours) for one cost matrix, from a file in coll_hier_cost's
// format, drawn at random, or locality's levels on described nodes: its
// calc_cost (Sec. 5.1, with the fold of a non-power of two) and its gain
// over the blind embedding, and whether auto would run the hypercube
// collectives on it.
#include <cstdio>
#include <cstdlib>
#include <random>

#include "commands.h"
#include "cost.h"
#include "embedding.h"
#include "hypercube.h"
#include "topology.h"

namespace hier::inspect {

CostMatrix random_cost_matrix(int n, int max, uint64_t seed)
{
    // A plain 64-bit generator and a modulo, not std::uniform_int_distribution
    // (whose output the standard leaves to the library): the same seed gives
    // the same matrix everywhere.
    std::mt19937_64 random(seed);
    CostMatrix matrix;
    matrix.n = n;
    matrix.values.assign(size_t(n) * size_t(n), 0);
    for (int a = 0; a < n; ++a) {
        for (int b = a + 1; b < n; ++b) {
            const double cost = double(1 + random() % uint64_t(max));
            matrix.values[size_t(a) * n + b] = matrix.values[size_t(b) * n + a] = cost;
        }
    }
    return matrix;
}

namespace {

bool positive(const std::string &text, long limit, long *value)
{
    char *end = nullptr;
    *value = std::strtol(text.c_str(), &end, 10);
    return !text.empty() && *end == '\0' && *value >= 1 && *value <= limit;
}

// Locality's costs (coll_hier_cost's default) on nodes of consecutive
// ranks, grouped into clusters if asked.
CostMatrix locality_matrix(const Arguments &args, std::string *source)
{
    std::vector<int> socket_sizes;
    const std::vector<int> sizes = parse_node_sizes(args[1], "--nodes", &socket_sizes);
    if (sizes.empty()) {
        return {};
    }
    std::vector<int> cluster_of_node;
    if (args.size() == 4 && args[2] == "--clusters") {
        std::string error;
        cluster_of_node = parse_cluster_map(args[3], int(sizes.size()), &error);
        if (!error.empty()) {
            std::fprintf(stderr, "hier-inspect: %s\n", error.c_str());
            return {};
        }
    } else if (args.size() != 2) {
        std::fprintf(stderr, "hier-inspect: embed --nodes SIZES takes only --clusters SIZES after it\n");
        return {};
    }
    Topology topology(consecutive_groups(sizes), cluster_of_node);
    impose_sockets(&topology, socket_sizes);
    const Costs costs = locality_costs(topology);
    CostMatrix matrix;
    matrix.n = costs.size();
    for (int a = 0; a < matrix.n; ++a) {
        for (int b = 0; b < matrix.n; ++b) {
            matrix.values.push_back(costs(a, b));
        }
    }
    *source = "locality on nodes " + args[1] + (cluster_of_node.empty() ? "" : ", clusters " + args[3]);
    return matrix;
}

// The matrix the arguments describe, or n = 0 after one line on stderr.
CostMatrix matrix_from(const Arguments &args, std::string *source)
{
    if (!args.empty() && args[0] == "--nodes" && args.size() >= 2) {
        return locality_matrix(args, source);
    }
    if (args.size() == 4 && args[0] == "--random") {
        long size = 0, max = 0, seed = 0;
        if (!positive(args[1], 1 << 14, &size) || !positive(args[2], 1 << 30, &max) ||
            !positive(args[3], 1L << 62, &seed)) {
            std::fprintf(stderr, "hier-inspect: embed --random SIZE MAX SEED takes positive integers (SIZE at most 16384)\n");
            return {};
        }
        *source = "random costs 1.." + args[2] + ", seed " + args[3];
        return random_cost_matrix(int(size), int(max), uint64_t(seed));
    }
    if (args.size() == 1 && args[0].compare(0, 2, "--") != 0) {
        std::string text, error;
        CostMatrix matrix;
        if (read_cost_file(args[0], &text, &error)) {
            matrix = parse_cost_matrix(text, &error);
        }
        if (matrix.n == 0) {
            std::fprintf(stderr, "hier-inspect: %s: %s\n", args[0].c_str(), error.c_str());
        }
        *source = args[0];
        return matrix;
    }
    std::fprintf(stderr, "hier-inspect: embed takes a cost file, --random SIZE MAX SEED, or --nodes SIZES "
                         "[--clusters SIZES]\n");
    return {};
}

} // namespace

int embed(const Arguments &args)
{
    std::string source;
    const CostMatrix matrix = matrix_from(args, &source);
    if (matrix.n == 0) {
        return 2;
    }
    const Costs costs = Costs::from_matrix(matrix, source);
    std::printf("%d processes (%s)", matrix.n, source.c_str());
    for (int id = 0; id < embedding_id_count(); ++id) {
        const HypercubePlan plan = plan_hypercube(costs, id);
        if (id == 0) {
            const int folded = matrix.n - plan.positions();
            std::printf(": a %d-cube of %d positions, %d process%s folded\n", plan.dims, plan.positions(), folded,
                        folded == 1 ? "" : "es");
            std::printf("  %-10s %12s %16s\n", "embedding", "calc_cost", "gain over blind");
        }
        const double gain = plan.blind_cost > 0 ? 100 * (1 - plan.cost / plan.blind_cost) : 0;
        std::printf("  %-10s %12.6g %15.1f%%%s%s\n", embedding_id_name(id), plan.cost, gain, id == 0 ? "  = " : "",
                    id == 0 ? embedding_id_name(plan.embedding) : "");
    }
    const HypercubePlan best = plan_hypercube(costs, kEmbeddingAuto);
    std::printf("auto with the auto embedding: %s\n",
                best.too_even.empty() ? "hypercube for barrier, small allreduce and allgather" : best.too_even.c_str());
    return 0;
}

} // namespace hier::inspect
