/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// OPT scatter and gather on a torus: Mao, Chen and Watson, "One-to-all
// personalized communication in torus networks", Sec. 3.1 (the algorithm) and
// 3.2 (its optimality), with the partition of torus_partition.h.
//
// Scatter: every root link feeds its region. In step t the root sends over
// each link the t-th message of that link's region, furthest destination
// first (ties: lower rank first); every node forwards a message to its child
// toward the destination in the step after it arrived, on all its links at
// once (all-port, store-and-forward, one message per link per step). The
// scatter takes max |R| steps, ceil((p - 1) / links) with an equal partition
// (torus_partition.h gives the argument; the simulator checks it).
// Gather: the scatter's schedule time-reversed (same regions and tree,
// reversed order and direction; see time_reversed in schedule.h).
//
// Departures: the paper puts the root at the origin; any root works here by
// translating coordinates (the torus is vertex-transitive). A forwarding
// node keeps each block it passes on in a TMP block of its own (subtree size
// - 1 blocks: O(p), about p / links next to the root) so that no round waits
// for another to free a buffer.
#include "algorithms.h"

#include <algorithm>

namespace hier {

namespace {

// What every rank's part is derived from: when the root sends each node's
// message (its position in its region, furthest first), and the tree.
struct OptPlan {
    std::vector<uint32_t> departure;
    std::vector<std::vector<int>> children;

    OptPlan(const Torus &torus, const TorusPartition &partition)
        : departure(torus.size(), 0), children(torus.size())
    {
        std::vector<int> nodes;
        std::vector<int> distance(torus.size());
        for (int v = 0; v < torus.size(); ++v) {
            distance[v] = torus.distance(0, v);
            if (v != 0) {
                nodes.push_back(v);
                children[partition.parent[v]].push_back(v);
            }
        }
        std::stable_sort(nodes.begin(), nodes.end(), [&](int a, int b) { return distance[a] > distance[b]; });
        std::vector<uint32_t> sent(partition.sizes.size(), 0);
        for (int v : nodes) {
            departure[v] = sent[partition.region[v]]++;
        }
    }
};

// The root: one message per link per step, then its own block by a copy.
void root_side(ScheduleBuilder &b, const Torus &torus, const TorusPartition &partition, const OptPlan &plan,
               int root)
{
    b.copy(0, block(HIER_BUF_SEND, root), block(HIER_BUF_RECV, 0));
    for (int v = 1; v < torus.size(); ++v) {
        const int first_hop = torus.step(0, torus.links()[partition.region[v]]);
        b.send(plan.departure[v], torus.absolute(first_hop, root), block(HIER_BUF_SEND, torus.absolute(v, root)));
    }
}

// Node `me` (relative): receives every message of its subtree from its
// parent, keeps its own, forwards the others to the child on their way.
void tree_side(ScheduleBuilder &b, const Torus &torus, const TorusPartition &partition, const OptPlan &plan,
               int me, int root)
{
    // (arrival step, destination, child it goes on to; -1 for me)
    struct Passing {
        uint32_t arrival;
        int destination;
        int child;
    };
    const auto depth = uint32_t(torus.distance(0, me));
    std::vector<Passing> passing{{plan.departure[me] + depth - 1, me, -1}};
    for (int child : plan.children[me]) {
        std::vector<int> below{child};
        while (!below.empty()) {
            const int v = below.back();
            below.pop_back();
            passing.push_back({plan.departure[v] + depth - 1, v, child});
            below.insert(below.end(), plan.children[v].begin(), plan.children[v].end());
        }
    }
    std::sort(passing.begin(), passing.end(), [](const Passing &a, const Passing &c) { return a.arrival < c.arrival; });
    const int parent = torus.absolute(partition.parent[me], root);
    int slot = 0;
    for (const Passing &m : passing) {
        if (m.child < 0) {
            b.recv(m.arrival, parent, block(HIER_BUF_RECV, 0));
            continue;
        }
        b.recv(m.arrival, parent, block(HIER_BUF_TMP, slot));
        b.send(m.arrival + 1, torus.absolute(m.child, root), block(HIER_BUF_TMP, slot));
        ++slot;
    }
}

Schedule build_rank(const Torus &torus, const TorusPartition &partition, const OptPlan &plan, int rank, int root)
{
    ScheduleBuilder b(rank, torus.size());
    const int me = torus.relative(rank, root);
    if (me == 0) {
        root_side(b, torus, partition, plan, root);
    } else {
        tree_side(b, torus, partition, plan, me, root);
    }
    return b.build();
}

} // namespace

const char *torus_unfit(const Topology &topology)
{
    return topology.torus() ? nullptr : "no torus (coll_hier_torus_dims, or a periodic Cartesian communicator)";
}

uint32_t opt_scatter_steps(const TorusPartition &partition)
{
    return uint32_t(partition.largest());
}

Schedule build_opt_scatter_on(const Torus &torus, const TorusPartition &partition, int rank, int root)
{
    return build_rank(torus, partition, OptPlan(torus, partition), rank, root);
}

std::vector<Schedule> opt_scatter_schedules_on(const Torus &torus, const TorusPartition &partition, int root)
{
    const OptPlan plan(torus, partition);
    std::vector<Schedule> schedules;
    for (int rank = 0; rank < torus.size(); ++rank) {
        schedules.push_back(build_rank(torus, partition, plan, rank, root));
    }
    return schedules;
}

Schedule build_opt_scatter(const Topology &topology, const Plans &plans, int rank, int root)
{
    return build_opt_scatter_on(*topology.torus(), plans.torus_partition(topology), rank, root);
}

Schedule build_opt_gather(const Topology &topology, const Plans &plans, int rank, int root)
{
    const uint32_t steps = opt_scatter_steps(plans.torus_partition(topology));
    return time_reversed(build_opt_scatter(topology, plans, rank, root), steps - 1);
}

std::vector<Schedule> opt_schedules(const Topology &topology, const Plans &plans, hier_op_t op, int root)
{
    const TorusPartition &partition = plans.torus_partition(topology);
    std::vector<Schedule> schedules = opt_scatter_schedules_on(*topology.torus(), partition, root);
    if (op == HIER_OP_GATHER) {
        const uint32_t steps = opt_scatter_steps(partition);
        for (Schedule &schedule : schedules) {
            schedule = time_reversed(schedule, steps - 1);
        }
    }
    return schedules;
}

} // namespace hier
