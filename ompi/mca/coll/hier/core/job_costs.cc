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

    // Adds node, keeping the matrix's entries.
    void add(int node)
    {
        const size_t old_n = nodes.size();
        std::vector<int> grown(nodes);
        grown.insert(std::lower_bound(grown.begin(), grown.end(), node), node);
        std::vector<double> matrix(grown.size() * grown.size(), 0.0);
        for (size_t a = 0; a < old_n; ++a) {
            const size_t ga = size_t(std::lower_bound(grown.begin(), grown.end(), nodes[a]) - grown.begin());
            for (size_t b = 0; b < old_n; ++b) {
                const size_t gb = size_t(std::lower_bound(grown.begin(), grown.end(), nodes[b]) - grown.begin());
                matrix[ga * grown.size() + gb] = latency[a * old_n + b];
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

void hier_job_latency_store(int node_a, int node_b, double seconds)
{
    if (!(seconds > 0) || node_a == node_b) {
        return;
    }
    JobCosts &costs = job();
    std::lock_guard<std::mutex> lock(costs.mutex);
    try {
        for (int node : {node_a, node_b}) {
            if (costs.index_of(node) < 0) {
                costs.add(node);
            }
        }
    } catch (...) {  // out of memory: the pair stays unknown, and is probed again
        return;
    }
    const size_t n = costs.nodes.size(), a = size_t(costs.index_of(node_a)), b = size_t(costs.index_of(node_b));
    costs.latency[a * n + b] = costs.latency[b * n + a] = seconds;
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
