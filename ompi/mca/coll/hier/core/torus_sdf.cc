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
// time O(p L) per step for steps ~ the SDF step count.
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
    std::vector<std::vector<int>> queue(p);  // messages at each node, by destination, in FCFS order
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

// My part of the SDF scatter from root; *steps: how many it takes.
Schedule sdf_scatter(const Torus &torus, int rank, int root, uint32_t *steps)
{
    ScheduleBuilder b(rank, torus.size());
    const int me = torus.relative(rank, root);
    if (me == 0) {
        b.copy(0, block(HIER_BUF_SEND, root), block(HIER_BUF_RECV, 0));
    }
    std::vector<int> slot_of(torus.size(), -1);  // TMP block of each destination passing through me
    int slots = 0;
    *steps = run_sdf(torus, [&](uint32_t step, int from, int to, int destination) {
        if (to == me) {
            const bool mine = destination == me;
            if (!mine) {
                slot_of[destination] = slots++;
            }
            b.recv(step, torus.absolute(from, root),
                   mine ? block(HIER_BUF_RECV, 0) : block(HIER_BUF_TMP, slot_of[destination]));
        } else if (from == me) {
            b.send(step, torus.absolute(to, root),
                   me == 0 ? block(HIER_BUF_SEND, torus.absolute(destination, root))
                           : block(HIER_BUF_TMP, slot_of[destination]));
        }
    });
    return b.build();
}

} // namespace

Schedule build_sdf_scatter(const Topology &topology, int rank, int root)
{
    uint32_t steps = 0;
    return sdf_scatter(*topology.torus(), rank, root, &steps);
}

Schedule build_sdf_gather(const Topology &topology, int rank, int root)
{
    uint32_t steps = 0;
    const Schedule scatter = sdf_scatter(*topology.torus(), rank, root, &steps);
    return time_reversed(scatter, steps - 1);
}

} // namespace hier
