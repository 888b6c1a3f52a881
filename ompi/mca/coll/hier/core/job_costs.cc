/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// What the probes measured, kept for the whole job (hier_core.h,
// hier_job_*): every later communicator over the same nodes reuses it
// instead of probing again. Nodes are named by job-wide ids, so the ids of
// one node agree across communicators.
//
// The latencies form one dense matrix over the nodes seen so far (N x N
// doubles for N nodes, what the probe's own allreduce holds), grown as new
// nodes appear. Guarded by a mutex: communicators of different threads may
// probe at once.
#include <algorithm>
#include <mutex>
#include <vector>

#include "hier_core.h"

namespace {

struct JobCosts {
    std::mutex mutex;
    std::vector<int> nodes;        // sorted job-wide ids
    std::vector<double> latency;   // nodes.size()^2, 0 = not measured
    double message_cost[2] = {-1, -1};

    // The index of node, or -1.
    long index_of(int node) const
    {
        const auto it = std::lower_bound(nodes.begin(), nodes.end(), node);
        return it != nodes.end() && *it == node ? long(it - nodes.begin()) : -1;
    }

    // Adds the nodes not known yet, keeping the matrix's entries: one
    // rebuild for all of them (a probe stores N nodes at once).
    void add(const int *new_nodes, int n)
    {
        std::vector<int> grown(nodes);
        for (int i = 0; i < n; ++i) {
            grown.push_back(new_nodes[i]);
        }
        std::sort(grown.begin(), grown.end());
        grown.erase(std::unique(grown.begin(), grown.end()), grown.end());
        if (grown.size() == nodes.size()) {
            return;
        }
        std::vector<size_t> moved(nodes.size());  // old index -> new index
        for (size_t a = 0; a < nodes.size(); ++a) {
            moved[a] = size_t(std::lower_bound(grown.begin(), grown.end(), nodes[a]) - grown.begin());
        }
        std::vector<double> matrix(grown.size() * grown.size(), 0.0);
        for (size_t a = 0; a < nodes.size(); ++a) {
            for (size_t b = 0; b < nodes.size(); ++b) {
                matrix[moved[a] * grown.size() + moved[b]] = latency[a * nodes.size() + b];
            }
        }
        nodes.swap(grown);
        latency.swap(matrix);
    }
};

JobCosts &job()
{
    static JobCosts costs;
    return costs;
}

} // namespace

extern "C" {

double hier_job_latency(int node_a, int node_b)
{
    JobCosts &costs = job();
    std::lock_guard<std::mutex> lock(costs.mutex);
    const long a = costs.index_of(node_a), b = costs.index_of(node_b);
    return a < 0 || b < 0 ? 0 : costs.latency[size_t(a) * costs.nodes.size() + size_t(b)];
}

void hier_job_latencies_store(int n, const int *nodes, const double *latency)
{
    JobCosts &costs = job();
    std::lock_guard<std::mutex> lock(costs.mutex);
    try {
        costs.add(nodes, n);
    } catch (...) {  // out of memory: the pairs stay unknown, and are probed again
        return;
    }
    const size_t known = costs.nodes.size();
    std::vector<size_t> index(size_t(std::max(n, 0)));
    for (int a = 0; a < n; ++a) {
        index[size_t(a)] = size_t(costs.index_of(nodes[a]));
    }
    for (int a = 0; a < n; ++a) {
        for (int b = 0; b < n; ++b) {
            const double seconds = latency[size_t(a) * size_t(n) + size_t(b)];
            if (seconds > 0 && nodes[a] != nodes[b]) {
                costs.latency[index[size_t(a)] * known + index[size_t(b)]] = seconds;
            }
        }
    }
}

double hier_job_message_cost(int link_class)
{
    JobCosts &costs = job();
    std::lock_guard<std::mutex> lock(costs.mutex);
    return link_class == 0 || link_class == 1 ? costs.message_cost[link_class] : -1;
}

void hier_job_message_cost_store(int link_class, double seconds)
{
    JobCosts &costs = job();
    std::lock_guard<std::mutex> lock(costs.mutex);
    if ((link_class == 0 || link_class == 1) && seconds >= 0) {
        costs.message_cost[link_class] = seconds;
    }
}

} // extern "C"
