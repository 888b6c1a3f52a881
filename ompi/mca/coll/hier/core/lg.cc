/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The LG alltoall: Jeannot and Steffenel, "Fast and Efficient Total Exchange
// on Two Clusters", Euro-Par 2007, Sec. 4.1 and Algorithm 1; extended to k
// clusters and to SMP nodes (the paper's future work), with two backbone
// variants. docs/lg.md tells the whole story; in short:
//
// Every ordered pair of clusters does the paper's exchange. In the pair
// (small, large), n1 = |small| <= n2 = |large| (ties: the lower cluster plays
// small), the large cluster is cut into groups of n1 consecutive LG indices:
// - a small process's block for large process b is carried by small process
//   b mod n1, which sends large process b the n1 blocks of all small
//   processes in one message;
// - a large process's block for small process a is carried by the member of
//   its group that faces a, group * n1 + a, which sends a the blocks of its
//   group in one message.
// So the backbone carries 2 max(n1, n2) messages per pair of clusters.
//
// Departures from the paper:
// - Partial last group (r = n2 mod n1 < n1 members): the paper's rule names
//   a process that does not exist for a >= r; such a block rides with the
//   facing process of the group before it (a full group exists since
//   n1 <= n2), in the same backbone message: still 2 max(n1, n2) messages.
// - k clusters: every pair of clusters as above. The paper's variant (`lg`)
//   takes a process's backbone exchanges one per step: first-fit colouring
//   of all exchanges, taken pair by pair in the rounds of the 1-factorization
//   of the clusters (for two clusters exactly the paper's ceil(n2/n1) steps).
//   `lg_at_once` posts every backbone exchange in one step. `lg_overlap` is
//   lg_at_once with each backbone exchange split in two: the block the
//   sender owns goes at once, beside the local phase, and the blocks it
//   carries follow when the local phase has brought them. The backbone then
//   does not idle through the local phase (about 4 % of a large alltoall on
//   the two-clusters stage) for up to twice the messages: 2 max(n1, n2) own
//   blocks, and a carried message wherever there is more than the sender's
//   own block to carry. It needs two rounds in flight, whatever
//   coll_hier_window says.
// - SMP nodes: the local phase is itself an alltoall among the cluster's
//   processes. Each process sends each cluster mate one message: its direct
//   block, then the blocks that mate carries for it over the backbone, packed
//   in TMP. `lg` runs these messages in the steps of the factor schedule over
//   the cluster's nodes (factor.cc's moves); `lg_at_once` posts them all in
//   one step.
// - LG indices deal a cluster's processes round-robin over its nodes, so the
//   processes of one backbone step spread over the nodes' NICs (for nodes of
//   one process: rank order, as in the paper).
//
// Memory per rank: the plan is O(p + E) for E backbone exchanges (at most
// p (k - 1) for k clusters), computed once per schedule; TMP holds each of
// the rank's blocks about twice (packed local messages, backbone regions): O(p).
#include "algorithms.h"

#include <algorithm>

namespace hier {

namespace {

// The paper's exchange between two clusters: `small` plays C1 (n1
// processes), `large` C2 (n2 >= n1), each by LG index.
struct LgPair {
    const std::vector<int> *small;
    const std::vector<int> *large;
    int n1, n2;

    int group(int b) const { return b / n1; }
    // The large process that carries large process b's block for small process a.
    int facing(int b, int a) const
    {
        const int k = group(b) * n1 + a;
        return k < n2 ? k : k - n1;
    }
    // How many large processes send through large process k (its own group,
    // and the partial group right after it when k faces one it lacks).
    int carried_by(int k) const
    {
        const int r = n2 % n1;
        const int last_full = n2 / n1 - 1;
        const int own_group = std::min(n1, n2 - group(k) * n1);
        const bool takes_partial = r > 0 && group(k) == last_full && k % n1 >= r;
        return own_group + (takes_partial ? r : 0);
    }
    // How many large processes small process a faces: a, a + n1, ...
    int faced_by(int a) const { return (n2 - a + n1 - 1) / n1; }
    int steps() const { return (n2 + n1 - 1) / n1; }
};

constexpr uint32_t kPackStep = 0;
constexpr uint32_t kFirstLocalStep = 1;

enum class Backbone { InSteps, AtOnce, Overlapped };

// What every rank computes alike: clusters by LG index, pairs, and the steps.
class LgPlan {
public:
    LgPlan(const Topology &topology, bool at_once);

    int cluster_count() const { return int(order_.size()); }
    const std::vector<int> &order(int cluster) const { return order_[cluster]; }
    int index(int rank) const { return index_[rank]; }
    // c plays small against d.
    bool is_small(int c, int d) const
    {
        const size_t nc = order_[c].size(), nd = order_[d].size();
        return nc < nd || (nc == nd && c < d);
    }
    LgPair pair(int c, int d) const
    {
        const int s = is_small(c, d) ? c : d, l = s == c ? d : c;
        return LgPair{&order_[s], &order_[l], int(order_[s].size()), int(order_[l].size())};
    }
    // Steps of the local phase (the factor schedule's, over each cluster's
    // nodes, for `lg`; 1 for `lg_at_once`), and the backbone's.
    uint32_t local_steps() const { return local_steps_; }
    uint32_t backbone_steps() const { return backbone_steps_; }
    uint32_t first_backbone_step() const { return kFirstLocalStep + local_steps_; }
    // The step of the backbone exchange between ranks u and v.
    uint32_t backbone_step(int u, int v) const;

private:
    void colour_backbone();

    std::vector<std::vector<int>> order_;
    std::vector<int> index_;
    bool at_once_;
    uint32_t local_steps_ = 1;
    uint32_t backbone_steps_ = 1;
    std::vector<std::vector<std::pair<int, uint32_t>>> colours_;  // per rank: (partner, colour)
};

// A cluster's processes dealt round-robin over its nodes (nodes in the order
// of their lowest rank, each node's processes in rank order).
std::vector<int> dealt_over_nodes(const Topology &topology, int cluster)
{
    std::vector<int> nodes;
    for (int rank : topology.cluster_members(cluster)) {
        if (topology.local_index(rank) == 0) {
            nodes.push_back(topology.node_of(rank));
        }
    }
    std::vector<int> order;
    for (int l = 0; order.size() < topology.cluster_members(cluster).size(); ++l) {
        for (int node : nodes) {
            if (l < topology.node_size(node)) {
                order.push_back(topology.members(node)[l]);
            }
        }
    }
    return order;
}

// The cluster's processes as a machine of their own: rank i of it is
// cluster_members(cluster)[i], on its node.
Topology cluster_machine(const Topology &topology, int cluster)
{
    std::vector<int> node_of_member;
    for (int rank : topology.cluster_members(cluster)) {
        node_of_member.push_back(topology.node_of(rank));
    }
    return Topology(node_of_member);
}

LgPlan::LgPlan(const Topology &topology, bool at_once) : index_(topology.size()), at_once_(at_once)
{
    for (int c = 0; c < topology.cluster_count(); ++c) {
        order_.push_back(dealt_over_nodes(topology, c));
        for (size_t i = 0; i < order_[c].size(); ++i) {
            index_[order_[c][i]] = int(i);
        }
    }
    if (!at_once) {
        local_steps_ = 0;
        for (int c = 0; c < cluster_count(); ++c) {
            local_steps_ = std::max(local_steps_, plan_factor(cluster_machine(topology, c)).steps);
        }
        colours_.resize(topology.size());
        colour_backbone();
    }
}

// The smallest colour in neither sorted list.
uint32_t first_free(const std::vector<std::pair<int, uint32_t>> &a, const std::vector<std::pair<int, uint32_t>> &b)
{
    uint32_t colour = 0;
    for (size_t i = 0, j = 0;;) {
        while (i < a.size() && a[i].second < colour) {
            ++i;
        }
        while (j < b.size() && b[j].second < colour) {
            ++j;
        }
        if ((i < a.size() && a[i].second == colour) || (j < b.size() && b[j].second == colour)) {
            ++colour;
        } else {
            return colour;
        }
    }
}

void insert_colour(std::vector<std::pair<int, uint32_t>> &list, int partner, uint32_t colour)
{
    const auto at = std::lower_bound(list.begin(), list.end(), colour,
                                     [](const auto &entry, uint32_t c) { return entry.second < c; });
    list.insert(at, {partner, colour});
}

// First-fit: each exchange takes the first step in which both its processes
// are free, exchanges taken pair by pair in the rounds of the 1-factorization
// of the clusters, within a pair step by step of the paper (C1 process i with
// C2 process i + s n1). For two clusters that is exactly the paper's
// ceil(n2/n1) steps; in general, for every exchange at step t and every
// earlier step, one of its two processes is busy then.
void LgPlan::colour_backbone()
{
    const int k = cluster_count();
    uint32_t used = 0;
    for (int round = 0; round < one_factor_rounds(k); ++round) {
        for (int c = 0; c < k; ++c) {
            const int d = one_factor_partner(c, round, k);
            if (d <= c) {
                continue;
            }
            const LgPair p = pair(c, d);
            for (int s = 0; s < p.steps(); ++s) {
                for (int i = 0; i < p.n1 && i + s * p.n1 < p.n2; ++i) {
                    const int u = (*p.small)[i], v = (*p.large)[i + s * p.n1];
                    const uint32_t colour = first_free(colours_[u], colours_[v]);
                    insert_colour(colours_[u], v, colour);
                    insert_colour(colours_[v], u, colour);
                    used = std::max(used, colour + 1);
                }
            }
        }
    }
    backbone_steps_ = used;
}

uint32_t LgPlan::backbone_step(int u, int v) const
{
    if (at_once_) {
        return first_backbone_step();
    }
    for (const auto &[partner, colour] : colours_[u]) {
        if (partner == v) {
            return first_backbone_step() + colour;
        }
    }
    return first_backbone_step();  // not reached: every exchange is coloured
}

// One rank's schedule.
class LgRank {
public:
    LgRank(const Topology &topology, const LgPlan &plan, int rank, Backbone backbone)
        : topology_(topology), plan_(plan), me_(rank), cluster_(topology.cluster_of(rank)),
          mine_(plan.index(rank)), at_once_(backbone != Backbone::InSteps),
          own_apart_(backbone == Backbone::Overlapped), b_(rank, topology.size()),
          out_first_(plan.cluster_count(), 0), in_first_(plan.cluster_count(), 0)
    {
    }

    Schedule build();

private:
    Region take(uint32_t blocks)
    {
        const Region region{HIER_BUF_TMP, tmp_, blocks};
        tmp_ += blocks;
        return region;
    }
    // Calls f(d, dest) for every block that source (an LG index of my
    // cluster) hands carrier (another, or the same) for the backbone: its
    // block for process dest (an LG index) of cluster d.
    template <typename F> void carried(int carrier, int source, F f) const;
    // Where in my outgoing backbone regions source's block for process dest
    // of cluster d goes.
    Region out_slot(int d, int dest, int source) const;
    // Backbone messages leave out the sender's own block when it goes apart:
    // index in a message of the item at `index` in the full order, whose own
    // item is at `own`, and back.
    int skipping_own(int index, int own) const { return own_apart_ && index > own ? index - 1 : index; }
    int past_own(int slot, int own) const { return own_apart_ && slot >= own ? slot + 1 : slot; }
    // One backbone exchange with partner, whose own block (when apart) is the
    // one it sends me directly; returns the step in which `in` arrives.
    uint32_t cross(int partner, Region out, Region in);
    void allocate_backbone();
    void pack();
    void local_phase();
    void backbone();
    uint32_t local_step(int peer, bool sending) const;

    const Topology &topology_;
    const LgPlan &plan_;
    int me_, cluster_, mine_;
    bool at_once_;
    bool own_apart_;  // lg_overlap: each rank's own block crosses apart, at once
    ScheduleBuilder b_;
    uint32_t tmp_ = 0;
    std::vector<uint32_t> out_first_, in_first_;  // per other cluster
    std::vector<Region> local_out_;               // per LG index of my cluster
    // lg: the local phase's step of my first factor move that sends to and
    // that receives from each cluster mate (by cluster index), +1; 0: none.
    std::vector<uint32_t> send_step_, recv_step_;
};

template <typename F> void LgRank::carried(int carrier, int source, F f) const
{
    for (int d = 0; d < plan_.cluster_count(); ++d) {
        if (d == cluster_) {
            continue;
        }
        const LgPair p = plan_.pair(cluster_, d);
        if (plan_.is_small(cluster_, d)) {
            for (int b = carrier; b < p.n2; b += p.n1) {
                f(d, b);
            }
        } else if (p.facing(source, carrier % p.n1) == carrier) {
            f(d, carrier % p.n1);
        }
    }
}

Region LgRank::out_slot(int d, int dest, int source) const
{
    const LgPair p = plan_.pair(cluster_, d);
    const int own = own_apart_ ? 1 : 0;
    if (plan_.is_small(cluster_, d)) {
        return block(HIER_BUF_TMP, int(out_first_[d]) + p.group(dest) * (p.n1 - own) + skipping_own(source, mine_));
    }
    const int group_first = p.group(mine_) * p.n1;
    return block(HIER_BUF_TMP, int(out_first_[d]) + skipping_own(source - group_first, mine_ - group_first));
}

// Per other cluster d: my outgoing regions (small: one of n1 blocks per
// large process I face; large: the one of the blocks I carry), then my
// incoming ones, in the same order.
void LgRank::allocate_backbone()
{
    const int own = own_apart_ ? 1 : 0;
    for (int d = 0; d < plan_.cluster_count(); ++d) {
        if (d == cluster_) {
            continue;
        }
        const LgPair p = plan_.pair(cluster_, d);
        out_first_[d] = tmp_;
        take(uint32_t(plan_.is_small(cluster_, d) ? p.faced_by(mine_) * (p.n1 - own) : p.carried_by(mine_) - own));
    }
    for (int d = 0; d < plan_.cluster_count(); ++d) {
        if (d == cluster_) {
            continue;
        }
        const LgPair p = plan_.pair(cluster_, d);
        in_first_[d] = tmp_;
        if (plan_.is_small(cluster_, d)) {
            for (int b = mine_; b < p.n2; b += p.n1) {
                take(uint32_t(p.carried_by(b) - own));
            }
        } else {
            take(uint32_t(p.n1 - own));
        }
    }
}

// Step 0, copies only: my own block, the blocks I carry myself (unless they
// cross apart), and the local messages that carry more than their direct
// block, packed.
void LgRank::pack()
{
    b_.copy(kPackStep, block(HIER_BUF_SEND, me_), block(HIER_BUF_RECV, me_));
    const std::vector<int> &mates = plan_.order(cluster_);
    if (!own_apart_) {
        carried(mine_, mine_, [&](int d, int dest) {
            b_.copy(kPackStep, block(HIER_BUF_SEND, plan_.order(d)[dest]), out_slot(d, dest, mine_));
        });
    }
    local_out_.assign(mates.size(), Region{});
    for (int mate = 0; mate < int(mates.size()); ++mate) {
        if (mate == mine_) {
            continue;
        }
        uint32_t blocks = 1;
        carried(mate, mine_, [&](int, int) { ++blocks; });
        if (blocks == 1) {
            local_out_[mate] = block(HIER_BUF_SEND, mates[mate]);
            continue;
        }
        local_out_[mate] = take(blocks);
        uint32_t at = local_out_[mate].first;
        b_.copy(kPackStep, block(HIER_BUF_SEND, mates[mate]), block(HIER_BUF_TMP, int(at++)));
        carried(mate, mine_, [&](int d, int dest) {
            b_.copy(kPackStep, block(HIER_BUF_SEND, plan_.order(d)[dest]), block(HIER_BUF_TMP, int(at++)));
        });
    }
}

uint32_t LgRank::local_step(int peer, bool sending) const
{
    if (at_once_) {
        return kFirstLocalStep;
    }
    const uint32_t step = (sending ? send_step_ : recv_step_)[size_t(topology_.cluster_index(peer))];
    return step > 0 ? kFirstLocalStep + step - 1
                    : kFirstLocalStep;  // not reached: factor moves every pair both ways
}

// Every cluster mate sends me one message: my block from it, then the
// blocks I carry for it, which I move into my outgoing backbone regions.
void LgRank::local_phase()
{
    if (!at_once_) {
        // The first move each way per mate, as a search of the moves in
        // order would find it (one search per mate made this O(n^2) for n
        // processes in the cluster).
        const size_t mates = topology_.cluster_members(cluster_).size();
        send_step_.assign(mates, 0);
        recv_step_.assign(mates, 0);
        for (const FactorMove &move : factor_moves(cluster_machine(topology_, cluster_), topology_.cluster_index(me_))) {
            if (move.sends && send_step_[size_t(move.peer)] == 0) {
                send_step_[size_t(move.peer)] = move.step + 1;
            }
            if (move.receives && recv_step_[size_t(move.peer)] == 0) {
                recv_step_[size_t(move.peer)] = move.step + 1;
            }
        }
    }
    const std::vector<int> &mates = plan_.order(cluster_);
    for (int mate = 0; mate < int(mates.size()); ++mate) {
        if (mate == mine_) {
            continue;
        }
        const int peer = mates[mate];
        b_.send(local_step(peer, true), peer, local_out_[mate]);
        uint32_t blocks = 1;
        carried(mine_, mate, [&](int, int) { ++blocks; });
        const uint32_t step = local_step(peer, false);
        if (blocks == 1) {
            b_.recv(step, peer, block(HIER_BUF_RECV, peer));
            continue;
        }
        const Region incoming = take(blocks);
        b_.recv(step, peer, incoming);
        uint32_t at = incoming.first;
        b_.copy(step, block(HIER_BUF_TMP, int(at++)), block(HIER_BUF_RECV, peer));
        carried(mine_, mate, [&](int d, int dest) {
            b_.copy(step, block(HIER_BUF_TMP, int(at++)), out_slot(d, dest, mate));
        });
    }
}

// One exchange per process I face, and the blocks it brings to RECV: the
// in region holds them in the order of their sources, less the partner's
// own when it comes apart.
void LgRank::backbone()
{
    const int own = own_apart_ ? 1 : 0;
    for (int d = 0; d < plan_.cluster_count(); ++d) {
        if (d == cluster_) {
            continue;
        }
        const LgPair p = plan_.pair(cluster_, d);
        if (plan_.is_small(cluster_, d)) {
            uint32_t in = in_first_[d];
            for (int b = mine_, s = 0; b < p.n2; b += p.n1, ++s) {
                const int partner = (*p.large)[b];
                const auto count = uint32_t(p.carried_by(b) - own);
                const int group_first = p.group(b) * p.n1;
                const Region out{HIER_BUF_TMP, out_first_[d] + uint32_t(s * (p.n1 - own)), uint32_t(p.n1 - own)};
                const uint32_t arrived = cross(partner, out, Region{HIER_BUF_TMP, in, count});
                for (uint32_t slot = 0; slot < count; ++slot) {
                    const int source = group_first + past_own(int(slot), b - group_first);
                    b_.copy(arrived, block(HIER_BUF_TMP, int(in + slot)), block(HIER_BUF_RECV, (*p.large)[source]));
                }
                in += count;
            }
        } else {
            const int facing = mine_ % p.n1;
            const int partner = (*p.small)[facing];
            const Region out{HIER_BUF_TMP, out_first_[d], uint32_t(p.carried_by(mine_) - own)};
            const uint32_t arrived = cross(partner, out, Region{HIER_BUF_TMP, in_first_[d], uint32_t(p.n1 - own)});
            for (int slot = 0; slot < p.n1 - own; ++slot) {
                b_.copy(arrived, block(HIER_BUF_TMP, int(in_first_[d]) + slot),
                        block(HIER_BUF_RECV, (*p.small)[past_own(slot, facing)]));
            }
        }
    }
}

// lg_overlap: the own blocks cross in the step after the local phase's,
// posted beside it (two rounds in flight), the carried ones in the next; a
// side with nothing to carry sends no message.
uint32_t LgRank::cross(int partner, Region out, Region in)
{
    const uint32_t step = plan_.backbone_step(me_, partner);
    if (!own_apart_) {
        b_.exchange(step, partner, out, in);
        return step;
    }
    b_.exchange(step, partner, block(HIER_BUF_SEND, partner), block(HIER_BUF_RECV, partner));
    if (out.count > 0) {
        b_.send(step + 1, partner, out);
    }
    if (in.count > 0) {
        b_.recv(step + 1, partner, in);
    }
    return step + 1;
}

Schedule LgRank::build()
{
    allocate_backbone();
    pack();
    local_phase();
    backbone();
    if (own_apart_) {
        b_.keep_in_flight(2);
    }
    // A rank alone in its cluster may forward nothing while the others do.
    b_.tmp_on_other_ranks();
    return b_.build();
}

Schedule build_lg(const Topology &topology, int rank, Backbone backbone)
{
    const LgPlan plan(topology, backbone != Backbone::InSteps);
    return LgRank(topology, plan, rank, backbone).build();
}

} // namespace

const char *lg_unfit(const Topology &topology)
{
    return topology.cluster_count() >= 2 ? nullptr : "needs two clusters or more (coll_hier_cluster_map)";
}

uint32_t lg_backbone_steps(const Topology &topology)
{
    return LgPlan(topology, false).backbone_steps();
}

uint32_t lg_local_steps(const Topology &topology)
{
    return LgPlan(topology, false).local_steps();
}

size_t lg_backbone_messages(const Topology &topology)
{
    size_t messages = 0;
    for (int c = 0; c < topology.cluster_count(); ++c) {
        for (int d = c + 1; d < topology.cluster_count(); ++d) {
            messages += 2 * std::max(topology.cluster_members(c).size(), topology.cluster_members(d).size());
        }
    }
    return messages;
}

Schedule build_lg_alltoall(const Topology &topology, const Plans & /*plans*/, int rank, int /*root*/)
{
    return build_lg(topology, rank, Backbone::InSteps);
}

Schedule build_lg_at_once_alltoall(const Topology &topology, const Plans & /*plans*/, int rank, int /*root*/)
{
    return build_lg(topology, rank, Backbone::AtOnce);
}

Schedule build_lg_overlap_alltoall(const Topology &topology, const Plans & /*plans*/, int rank, int /*root*/)
{
    return build_lg(topology, rank, Backbone::Overlapped);
}

} // namespace hier
