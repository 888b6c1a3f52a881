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
#include <iterator>
#include <utility>

#include "link_costs.h"

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

// auto's rule for opt: its steps against what Open MPI 4.1.4's tuned runs
// for the call, in closed form (O(p) routes, the same at every rank and
// root) on every machine the link costs allow; every torus link is priced
// as the network class, also between ranks of one node. Open MPI's linear
// scatter posts every block at once, so its latencies overlap and the
// root's busiest link bounds it, where opt pays a latency each step; its
// binomial passes every block through the root's sends, one subtree after
// another, a latency a level. On SimGrid's 8x8x8 torus (docs/simgrid.md)
// these forms came within 1.2 % of every simulated time from 4 KiB, 3.1 %
// at 2 KiB, 14 % below.
namespace {

// tuned's fixed decision for MPI_Scatter and MPI_Gather
// (coll_tuned_decision_fixed.c; read, not copied): by communicator size,
// the first (below these block bytes, algorithm) that holds, else
// `otherwise`. tuned's numbers: scatter 1 basic_linear, 2 binomial, 3
// linear_nb; gather 1 basic_linear, 2 binomial, 3 linear_sync.
struct TunedRootedBand {
    int below_ranks;  // 0: any larger communicator
    std::vector<std::pair<size_t, int>> below_bytes;
    int otherwise;
};

constexpr int kTunedBasicLinear = 1;
constexpr int kTunedBinomial = 2;
constexpr int kTunedLinearNb = 3;  // scatter; gather's 3 is linear_sync

const TunedRootedBand kTunedScatter[] = {
    {4, {{2, 3}, {131072, 1}, {262144, 3}}, 1},
    {8, {{2048, 2}, {4096, 1}, {8192, 2}, {32768, 1}, {1048576, 3}}, 1},
    {16, {{16384, 2}, {1048576, 3}}, 1},
    {32, {{16384, 2}, {32768, 1}}, 3},
    {64, {{512, 2}, {8192, 3}, {16384, 2}}, 3},
    {0, {{512, 2}}, 3},
};

const TunedRootedBand kTunedGather[] = {
    {4, {{2, 3}, {4, 1}, {32768, 2}, {65536, 1}, {131072, 2}}, 3},
    {8, {{1024, 2}, {8192, 1}, {32768, 2}, {262144, 1}}, 3},
    {256, {}, 2},
    {512, {{2048, 2}, {8192, 1}}, 2},
    {0, {}, 2},
};

int tuned_rooted_algorithm(hier_op_t op, int ranks, size_t block_bytes)
{
    // The last band of each table takes any size.
    const TunedRootedBand *band = op == HIER_OP_GATHER ? std::begin(kTunedGather) : std::begin(kTunedScatter);
    while (band->below_ranks != 0 && ranks >= band->below_ranks) {
        ++band;
    }
    for (const auto &[below, algorithm] : band->below_bytes) {
        if (block_bytes < below) {
            return algorithm;
        }
    }
    return band->otherwise;
}

// The root's links as Open MPI's direct messages take them (Torus::route,
// dimension-ordered, as the time model routes): the most messages through
// one link (out of the root for a scatter, into it for a gather), the
// furthest peer's hops, and all peers' hops.
struct RootRoutes {
    int busiest = 0;
    int farthest = 0;
    double hops = 0;
};

RootRoutes root_routes(const Torus &torus, bool into_root)
{
    std::vector<int> through(torus.size(), 0);  // by the neighbour at the link's far end
    RootRoutes routes;
    for (int peer = 1; peer < torus.size(); ++peer) {
        const auto route = into_root ? torus.route(peer, 0) : torus.route(0, peer);
        const int neighbour = into_root ? route.back().first : torus.step(0, torus.links()[route.front().second]);
        routes.busiest = std::max(routes.busiest, ++through[neighbour]);
        routes.farthest = std::max(routes.farthest, int(route.size()));
        routes.hops += double(route.size());
    }
    return routes;
}

// One machine's torus links as the rule prices a message (link_costs.h:
// the network class and the hop latency).
struct TorusWire {
    double latency, hop, overhead, bandwidth;
    size_t eager_limit;

    explicit TorusWire(const LinkCosts &machine)
        : latency(machine.link[kNetworkLink].latency), hop(machine.hop_latency),
          overhead(machine.link[kNetworkLink].overhead), bandwidth(machine.link[kNetworkLink].bandwidth),
          eager_limit(machine.link[kNetworkLink].eager_limit)
    {
    }
    double transfer(double bytes) const { return bytes / bandwidth; }
    double flight(int hops) const { return latency + (hops - 1) * hop; }
    // Past the eager limit a message waits for its receive: a request and
    // an answer before the data.
    double handshake(double bytes, int hops) const { return bytes > double(eager_limit) ? 2 * flight(hops) : 0; }
};

double opt_seconds(const TorusWire &wire, uint32_t steps, int root_links, size_t block_bytes)
{
    // A step: one hop, one block, the root's sends on all its links and a
    // receive (the root is the busiest CPU of a step). Each step waits for
    // its delivery, as SMPI runs it; where a relay's eager messages arrive
    // before its receives are posted, opt pipelines and is faster than
    // this: the rule errs towards Open MPI's own.
    const double m = double(block_bytes);
    return steps * (wire.flight(1) + wire.transfer(m) + (root_links + 1) * wire.overhead + wire.handshake(m, 1));
}

double open_mpi_seconds(const Torus &torus, const TorusWire &wire, hier_op_t op, size_t block_bytes)
{
    const int p = torus.size();
    const double m = double(block_bytes);
    const int algorithm = tuned_rooted_algorithm(op, p, block_bytes);
    if (algorithm == kTunedBinomial) {
        // Largest subtree first; its chain of parents ends after every
        // block has passed one root send, one latency a level.
        double seconds = wire.transfer(m * (p - 1));
        for (int child = 1; child < p; child *= 2) {
            const int hops = torus.distance(0, child);
            seconds += wire.flight(hops) + 2 * wire.overhead + wire.handshake(m * child, hops);
        }
        return seconds;
    }
    const RootRoutes routes = root_routes(torus, op == HIER_OP_GATHER);
    const bool at_once = (algorithm == kTunedLinearNb && op == HIER_OP_SCATTER) ||
                         (algorithm == kTunedBasicLinear && block_bytes <= wire.eager_limit);
    if (at_once) {
        // Every block in flight together: the latencies overlap, the root's
        // busiest link (or its CPU) bounds the rest.
        const double bound = std::max({routes.busiest * wire.transfer(m), (p - 1) * wire.overhead,
                                       (routes.farthest - 1) * wire.hop + wire.transfer(m)});
        return wire.latency + bound + 2 * wire.overhead + wire.handshake(m, 1);
    }
    // One peer after another (gather's linear_sync, basic_linear past the
    // eager limit): a round trip and a block each.
    return (p - 1) * (2 * (wire.latency + wire.overhead) + wire.transfer(m)) +
           2 * (routes.hops - (p - 1)) * wire.hop;
}

// How much faster than Open MPI's opt must be predicted on every machine:
// where the two are close, the forms were within 1.2 % of SimGrid's
// times; a near tie keeps Open MPI's own.
constexpr double kOptMargin = 0.05;

const char *opt_declines(const Topology &topology, const Plans &plans, hier_op_t op, size_t block_bytes,
                         const std::vector<LinkCosts> &machines)
{
    for (const LinkCosts &machine : machines) {
        const RootedPrediction predicted = predict_opt_against_open_mpi(topology, plans, op, block_bytes, machine);
        if (predicted.opt > (1 - kOptMargin) * predicted.open_mpi) {
            return op == HIER_OP_GATHER
                       ? "Open MPI's gather predicted as fast as opt on a machine the link costs allow"
                       : "Open MPI's scatter predicted as fast as opt on a machine the link costs allow";
        }
    }
    return nullptr;
}

} // namespace

RootedPrediction predict_opt_against_open_mpi(const Topology &topology, const Plans &plans, hier_op_t op,
                                              size_t block_bytes, const LinkCosts &machine)
{
    const Torus &torus = *topology.torus();
    const TorusWire wire(machine);
    const uint32_t steps = opt_scatter_steps(plans.torus_partition(topology));
    return {opt_seconds(wire, steps, int(torus.links().size()), block_bytes),
            open_mpi_seconds(torus, wire, op, block_bytes)};
}

const char *opt_scatter_declines(const Topology &topology, const Plans &plans, size_t block_bytes,
                                 const std::vector<LinkCosts> &machines)
{
    return opt_declines(topology, plans, HIER_OP_SCATTER, block_bytes, machines);
}

const char *opt_gather_declines(const Topology &topology, const Plans &plans, size_t block_bytes,
                                const std::vector<LinkCosts> &machines)
{
    return opt_declines(topology, plans, HIER_OP_GATHER, block_bytes, machines);
}

} // namespace hier
