/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Every row of the registry (core/registry.cc), of every collective, on
// random machines: uneven nodes with ranks in a random order, clusters,
// powers of two and tori, every root for the rooted collectives. Where the
// row applies (its own unfit says so), every rank's schedule is built, run
// byte for byte through the in-memory transport with a random window, and
// simulated against the collective's contract. The rows come from the
// registry, not a list here: a new row is tested by adding it.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>

#include "harness.h"
#include "registry.h"

namespace hier {
namespace {

// Random node sizes (1..max_node_size) summing to p, ranks in a random order.
std::vector<int> random_nodes(std::mt19937 &random, int p, int max_node_size)
{
    std::uniform_int_distribution<int> node_size(1, max_node_size);
    std::vector<int> node_of_rank;
    for (int node = 0; int(node_of_rank.size()) < p; ++node) {
        const int size = std::min(node_size(random), p - int(node_of_rank.size()));
        node_of_rank.insert(node_of_rank.end(), size_t(size), node);
    }
    std::shuffle(node_of_rank.begin(), node_of_rank.end(), random);
    return node_of_rank;
}

// Kind 0: uneven nodes; 1: a power of two of ranks; 2: two to four clusters
// of uneven nodes; 3: a torus of one-rank nodes (2 or 3 dimensions).
Topology random_machine(std::mt19937 &random, int kind)
{
    std::uniform_int_distribution<int> ranks(2, 24);
    switch (kind) {
    case 1: return Topology(random_nodes(random, 1 << std::uniform_int_distribution<int>(1, 5)(random), 5));
    case 2: {
        const std::vector<int> node_of_rank = random_nodes(random, ranks(random), 3);
        const int nodes = *std::max_element(node_of_rank.begin(), node_of_rank.end()) + 1;
        const int clusters = std::min(nodes, std::uniform_int_distribution<int>(2, 4)(random));
        std::vector<int> cluster_of_node(static_cast<size_t>(nodes), 0);
        for (int node = 0; node < nodes; ++node) {
            cluster_of_node[size_t(node)] = node < clusters ? node : std::uniform_int_distribution<int>(0, clusters - 1)(random);
        }
        return Topology(node_of_rank, cluster_of_node);
    }
    case 3: {
        std::uniform_int_distribution<int> side(2, 4);
        std::vector<int> dims{side(random), side(random)};
        if (std::uniform_int_distribution<int>(0, 2)(random) == 0) {
            dims.push_back(2);
        }
        return Topology::from_torus_dims(dims);
    }
    default: return Topology(random_nodes(random, ranks(random), 6));
    }
}

std::string machine(const Topology &topology)
{
    std::string text = "p " + std::to_string(topology.size()) + ", " + std::to_string(topology.node_count()) +
                       " nodes, " + std::to_string(topology.cluster_count()) + " clusters";
    return topology.torus() ? text + ", torus " + topology.torus()->describe() : text;
}

// Runs one row on one machine (every root for scatter and gather): "" or
// the first error.
std::string run_row(hier_op_t op, const Algorithm &row, const Topology &topology, std::mt19937 &random)
{
    const int window = test::kWindows[std::uniform_int_distribution<int>(0, 2)(random)];
    const bool rooted = op == HIER_OP_SCATTER || op == HIER_OP_GATHER;
    for (int root = rooted ? 0 : -1; root < (rooted ? topology.size() : 0); ++root) {
        const auto schedules = test::build_all(row.build, topology, root);
        const hier_op_t contract = op == HIER_OP_ALLTOALLV ? HIER_OP_ALLTOALL : op;
        std::string error = test::simulate_op(contract, topology, schedules, root, window).error;
        if (error.empty() && op == HIER_OP_ALLTOALLV) {
            error = test::run_alltoallv_bytes(topology, schedules,
                                              test::random_alltoallv_bytes(random, topology.size(), 9),
                                              unsigned(random()), window);
        } else if (error.empty()) {
            error = test::run_bytes(op, topology, schedules, root, 1 + size_t(random() % 5), window);
        }
        if (!error.empty()) {
            return "root " + std::to_string(root) + ", window " + std::to_string(window) + ": " + error;
        }
    }
    return "";
}

TEST(EveryRow, EveryCollectiveOnRandomMachinesByteExact)
{
    constexpr int kMachines = 96;  // 24 of each kind
    constexpr int kAtLeast = 4;    // machines each row must have run on
    for (int op = 0; op < HIER_OP_COUNT; ++op) {
        const auto &rows = algorithms_for(hier_op_t(op));
        for (const Algorithm *row : rows) {
            std::mt19937 random(1000u + unsigned(op) * 37u + unsigned(row - rows.front()));
            int ran = 0;
            for (int m = 0; m < kMachines; ++m) {
                const Topology topology = random_machine(random, m % 4);
                if (row->unfit(topology)) {
                    continue;
                }
                ++ran;
                EXPECT_EQ(run_row(hier_op_t(op), *row, topology, random), "")
                    << op_name(hier_op_t(op)) << " " << row->name << " on " << machine(topology);
            }
            EXPECT_GE(ran, kAtLeast) << op_name(hier_op_t(op)) << " " << row->name
                                     << ": applies to too few of the random machines to be tested";
        }
    }
}

TEST(EveryRow, EveryCollectiveHasRowsAndEveryRowIsNamedOnce)
{
    for (int op = 0; op < HIER_OP_COUNT; ++op) {
        std::map<std::string, int> names;
        for (const Algorithm *row : algorithms_for(hier_op_t(op))) {
            EXPECT_EQ(++names[row->name], 1) << op_name(hier_op_t(op)) << " " << row->name;
            EXPECT_NE(std::string(row->name), "auto");
            EXPECT_NE(std::string(row->name), "fallback");
        }
        EXPECT_FALSE(names.empty()) << op_name(hier_op_t(op));
    }
}

} // namespace
} // namespace hier
