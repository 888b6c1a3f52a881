/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// SDF scatter and gather on a torus: Mao, Chen and Watson, "One-to-all
// personalized communication in torus networks", Sec. 3.3, the greedy
// heuristic they compare OPT with.
//
// Scatter: in every step, every node holding messages not yet home takes
// them first-come-first-served and sends each over the link of the dimension
// in which it has the fewest hops left (shortest direction first), one
// message per link per step on all links at once (all-port,
// store-and-forward). Every hop shortens the way, so messages travel shortest
// paths, but they queue: SDF is not optimal. Gather: the scatter's schedule
// time-reversed (see time_reversed in schedule.h).
//
// Where the paper leaves room, this reading:
// - A message whose shortest-direction link is taken this step takes its
//   next-shortest free link that still shortens its way; with none free it
//   waits, and later messages in the queue may still use the free links.
// - Ties: fewer hops left first, then the lower link (dimension 0 first, +
//   before -). The root's queue starts in rank order (relative to the root);
//   messages arriving at a node in the same step queue in rank order too.
// - As with OPT, the root is any rank, by translating coordinates; each block
//   a node forwards has a TMP block of its own.
// Every rank replays the whole plan to find its own part: O(p) memory, and
// time O(p L) per step, for as many steps as SDF takes.
#include "algorithms.h"

#include <algorithm>
#include <functional>

namespace hier {

namespace {

// One hop of one message, in relative coordinates.
using OnHop = std::function<void(uint32_t step, int from, int to, int destination)>;

// The free link that SDF gives the message for `destination` at `at`, or -1.
int sdf_link(const Torus &torus, int at, int destination, const std::vector<bool> &used)
{
    const auto &links = torus.links();
    int best = -1;
    int best_hops = 0;
    for (int l = 0; l < int(links.size()); ++l) {
        if (used[l] || !torus.shortens(at, destination, links[l])) {
            continue;
        }
        const int hops = torus.hops(at, destination, links[l].dim);
        if (best < 0 || hops < best_hops) {
            best = l;
            best_hops = hops;
        }
    }
    return best;
}

// Runs SDF from the root at rank 0; returns the number of steps.
uint32_t run_sdf(const Torus &torus, const OnHop &on_hop)
{
    const int p = torus.size();
    std::vector<std::vector<int>> queue(p);  // at each node, its messages (by destination), first come first
    for (int v = 1; v < p; ++v) {
        queue[0].push_back(v);
    }
    int in_flight = p - 1;
    uint32_t step = 0;
    std::vector<std::pair<int, int>> arriving;  // (node, destination)
    std::vector<bool> used(torus.links().size());
    for (; in_flight > 0; ++step) {
        arriving.clear();
        for (int at = 0; at < p; ++at) {
            if (queue[at].empty()) {
                continue;
            }
            std::fill(used.begin(), used.end(), false);
            size_t free_links = used.size();
            std::vector<int> waiting;
            for (int destination : queue[at]) {
                const int l = free_links > 0 ? sdf_link(torus, at, destination, used) : -1;
                if (l < 0) {
                    waiting.push_back(destination);
                    continue;
                }
                used[l] = true;
                --free_links;
                const int next = torus.step(at, torus.links()[l]);
                on_hop(step, at, next, destination);
                if (next == destination) {
                    --in_flight;
                } else {
                    arriving.emplace_back(next, destination);
                }
            }
            queue[at] = std::move(waiting);
        }
        std::sort(arriving.begin(), arriving.end());
        for (const auto &[node, destination] : arriving) {
            queue[node].push_back(destination);
        }
    }
    return step;
}

} // namespace

uint32_t sdf_scatter_steps(const Torus &torus)
{
    return run_sdf(torus, [](uint32_t, int, int, int) {});
}

namespace {

// The SDF scatter from root for ranks [first, first + count): one replay of
// the plan, each hop given to the builders of the ranks it touches. A message
// sits at one node at a time, so one TMP slot number per message serves
// every node it passes (each node numbers its own slots in arrival order).
std::vector<Schedule> sdf_scatter(const Torus &torus, int root, int first, int count, uint32_t *steps)
{
    std::vector<ScheduleBuilder> builders;
    for (int rank = first; rank < first + count; ++rank) {
        builders.emplace_back(rank, torus.size());
    }
    // The builder of relative node v, or nullptr when v's rank is not built.
    const auto builder_of = [&](int v) -> ScheduleBuilder * {
        const int rank = torus.absolute(v, root);
        return rank >= first && rank < first + count ? &builders[rank - first] : nullptr;
    };
    if (ScheduleBuilder *b = builder_of(0)) {
        b->copy(0, block(HIER_BUF_SEND, root), block(HIER_BUF_RECV, 0));
    }
    std::vector<int> slots_used(torus.size(), 0);   // per node
    std::vector<int> slot_of(torus.size(), -1);     // per message: its TMP block where it is now
    *steps = run_sdf(torus, [&](uint32_t step, int from, int to, int destination) {
        if (ScheduleBuilder *b = builder_of(from)) {
            b->send(step, torus.absolute(to, root),
                    from == 0 ? block(HIER_BUF_SEND, torus.absolute(destination, root))
                              : block(HIER_BUF_TMP, slot_of[destination]));
        }
        if (to != destination) {
            slot_of[destination] = slots_used[to]++;
        }
        if (ScheduleBuilder *b = builder_of(to)) {
            b->recv(step, torus.absolute(from, root),
                    to == destination ? block(HIER_BUF_RECV, 0) : block(HIER_BUF_TMP, slot_of[destination]));
        }
    });
    std::vector<Schedule> schedules;
    for (ScheduleBuilder &b : builders) {
        schedules.push_back(b.build());
    }
    return schedules;
}

} // namespace

Schedule build_sdf_scatter(const Topology &topology, const Plans & /*plans*/, int rank, int root)
{
    uint32_t steps = 0;
    return std::move(sdf_scatter(*topology.torus(), root, rank, 1, &steps)[0]);
}

Schedule build_sdf_gather(const Topology &topology, const Plans & /*plans*/, int rank, int root)
{
    uint32_t steps = 0;
    const Schedule scatter = std::move(sdf_scatter(*topology.torus(), root, rank, 1, &steps)[0]);
    return time_reversed(scatter, steps - 1);
}

std::vector<Schedule> sdf_schedules(const Topology &topology, hier_op_t op, int root)
{
    uint32_t steps = 0;
    std::vector<Schedule> schedules = sdf_scatter(*topology.torus(), root, 0, topology.size(), &steps);
    if (op == HIER_OP_GATHER) {
        for (Schedule &schedule : schedules) {
            schedule = time_reversed(schedule, steps - 1);
        }
    }
    return schedules;
}

} // namespace hier
