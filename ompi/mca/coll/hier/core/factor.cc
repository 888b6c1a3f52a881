/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The hierarchical factor alltoall: Sanders and Traeff, "The Hierarchical
// Factor Algorithm for All-to-all Communication", Euro-Par 2002, Sec. 3,
// algorithm ClusteredAllToAll (Fig. 2), with the 1-factors of Lemma 1.
//
// Phases by node size; in each phase the active nodes A are paired by the
// 1-factors of the complete graph with self-loops on |A| vertices (factor i
// pairs index x with (i - x) mod |A|); a pair (U, V), U < V in the node order
// (size, then node number), has every u of U with done <= l(u) < current
// exchange with every v of V, one step each; a node paired with itself sends
// one way.
//
// Departures from the figure, none of which changes a message or a step count:
// - In a self-paired round, u's message to itself (m_uu) is a local copy, not
//   a step (the paper's Fig. 3 counts steps the same way: 15 for sizes 1,2,3).
//   u's sends to its node mates go in the rotated order l(u)+1, l(u)+2, ...
//   so each step has one sender and one receiver in the node.
// - Steps are numbered globally; a round lasts as long as its longest pair.
#include "algorithms.h"

#include <algorithm>

namespace hier {

namespace {

// The nodes in the paper's order: by size, ties by node number.
std::vector<int> ordered_nodes(const Topology &topology)
{
    std::vector<int> nodes(topology.node_count());
    for (int node = 0; node < topology.node_count(); ++node) {
        nodes[node] = node;
    }
    std::stable_sort(nodes.begin(), nodes.end(), [&](int a, int b) {
        return topology.node_size(a) < topology.node_size(b);
    });
    return nodes;
}

// Steps a pair takes in a phase that moves the processors with local index
// in [done, current) of the smaller node.
uint32_t pair_steps(const Topology &topology, int smaller, int larger, int done, int current)
{
    const int senders = current - done;
    if (smaller == larger) {
        return uint32_t(senders) * uint32_t(topology.node_size(larger) - 1);
    }
    return uint32_t(senders) * uint32_t(topology.node_size(larger));
}

} // namespace

FactorPlan plan_factor(const Topology &topology)
{
    FactorPlan plan;
    const std::vector<int> order = ordered_nodes(topology);
    int done = 0;
    uint32_t step = 0;
    for (size_t first_active = 0; first_active < order.size();) {
        FactorPhase phase;
        phase.done = done;
        phase.current = topology.node_size(order[first_active]);
        phase.active.assign(order.begin() + first_active, order.end());
        const int active = static_cast<int>(phase.active.size());
        for (int i = 0; i < active; ++i) {
            uint32_t longest = 0;
            for (int x = 0; x < active; ++x) {
                const int y = ((i - x) % active + active) % active;
                if (x <= y) {
                    longest = std::max(longest, pair_steps(topology, phase.active[x], phase.active[y],
                                                           phase.done, phase.current));
                }
            }
            phase.rounds.push_back(FactorRound{step, longest});
            step += longest;
        }
        done = phase.current;
        while (first_active < order.size() && topology.node_size(order[first_active]) == done) {
            ++first_active;
        }
        plan.phases.push_back(std::move(phase));
    }
    plan.steps = step;
    return plan;
}

namespace {

// My node is paired with itself: processors with l in [done, current) send
// to every node mate, one message per step, in rotated order.
void self_pair(std::vector<FactorMove> &moves, const Topology &t, int me, uint32_t base, int done, int current)
{
    const int node = t.node_of(me);
    const int n = t.node_size(node);
    const int mine = t.local_index(me);
    const auto &mates = t.members(node);
    for (int sender = done; sender < current; ++sender) {
        const uint32_t first_step = base + uint32_t(sender - done) * uint32_t(n - 1);
        if (sender == mine) {
            moves.push_back(FactorMove{first_step, me, true, true});
        }
        for (int j = 0; j < n - 1; ++j) {
            const int target = (sender + 1 + j) % n;
            if (sender == mine) {
                moves.push_back(FactorMove{first_step + j, mates[target], true, false});
            } else if (target == mine) {
                moves.push_back(FactorMove{first_step + j, mates[sender], false, true});
            }
        }
    }
}

// Nodes `smaller` < `larger` are paired: every u of smaller with l(u) in
// [done, current) exchanges with every v of larger, step (l(u)-done)*|larger| + l(v).
void node_pair(std::vector<FactorMove> &moves, const Topology &t, int me, int smaller, int larger,
               uint32_t base, int done, int current)
{
    const auto &us = t.members(smaller);
    const auto &vs = t.members(larger);
    const uint32_t width = uint32_t(vs.size());
    for (int lu = done; lu < current; ++lu) {
        for (uint32_t lv = 0; lv < width; ++lv) {
            const int u = us[lu];
            const int v = vs[lv];
            const uint32_t step = base + uint32_t(lu - done) * width + lv;
            if (me == u || me == v) {
                moves.push_back(FactorMove{step, me == u ? v : u, true, true});
            }
        }
    }
}

} // namespace

std::vector<FactorMove> factor_moves(const Topology &topology, int rank)
{
    std::vector<FactorMove> moves;
    const int my_node = topology.node_of(rank);
    const FactorPlan plan = plan_factor(topology);
    for (const FactorPhase &phase : plan.phases) {
        const auto mine = std::find(phase.active.begin(), phase.active.end(), my_node);
        if (mine == phase.active.end()) {
            break;  // my node has exchanged everything
        }
        const int active = static_cast<int>(phase.active.size());
        const int x = static_cast<int>(mine - phase.active.begin());
        for (int i = 0; i < active; ++i) {
            const int y = ((i - x) % active + active) % active;
            const uint32_t base = phase.rounds[i].first_step;
            if (x == y) {
                self_pair(moves, topology, rank, base, phase.done, phase.current);
            } else {
                // active is in node order, so the lower index is the smaller node
                node_pair(moves, topology, rank, phase.active[std::min(x, y)], phase.active[std::max(x, y)], base,
                          phase.done, phase.current);
            }
        }
    }
    return moves;
}

Schedule build_factor_alltoall(const Topology &topology, const Plans & /*plans*/, int rank, int /*root*/)
{
    ScheduleBuilder b(rank, topology.size());
    for (const FactorMove &move : factor_moves(topology, rank)) {
        const Region mine = block(HIER_BUF_SEND, move.peer);
        const Region theirs = block(HIER_BUF_RECV, move.peer);
        if (move.peer == rank) {
            b.copy(move.step, mine, theirs);
        } else if (move.sends && move.receives) {
            b.exchange(move.step, move.peer, mine, theirs);
        } else if (move.sends) {
            b.send(move.step, move.peer, mine);
        } else {
            b.recv(move.step, move.peer, theirs);
        }
    }
    return b.build();
}

} // namespace hier
