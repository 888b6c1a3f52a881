// The LG alltoall for two clusters: Jeannot and Steffenel, "Fast and
// Efficient Total Exchange on Two Clusters", Euro-Par 2007, Algorithm 1.
//
// C1 has n1 processes, C2 n2 >= n1 (roles swap otherwise); ranks of the two
// are interleaved arbitrarily in the communicator, so each is known by its
// index in its cluster. C2 is cut into groups of n1 consecutive indices.
// - step 0: every intra-cluster message goes directly;
// - step 1 (local aggregation): C1 process i sends its message for C2 process
//   j to C1 process j mod n1; C2 process i sends its message for C1 process j
//   to the member of its group that faces j, group(i) * n1 + j;
// - steps 2 .. 1 + ceil(n2/n1) (backbone): C1 process i exchanges with C2
//   process i + n1 s, one aggregated message each way, and unpacks.
//
// Departures: the paper's slip for a partial last group (r = n2 mod n1 < n1
// members) is mended without any extra backbone message: a member of the
// partial group stores its message for C1 process j >= r, whose facing
// process does not exist, on the facing process of the group before it (a
// full group exists since n1 <= n2), which carries it in the same backbone
// message. Every C2 process exchanges exactly once, so the backbone carries
// 2 max(n1, n2) messages in ceil(n2/n1) steps for any n1, n2. Aggregated
// messages are packed into TMP by the local step and unpacked by copies.
// Algorithm 1's loop is read as i = 0..n1-1, j = i + s n1 (its "e" is a slip).
#include "algorithms.h"

#include <algorithm>

namespace hier {

namespace {

// The two clusters, and where C2's messages gather before the backbone.
struct LgLayout {
    const std::vector<int> *c1;  // ranks, by index in the cluster
    const std::vector<int> *c2;
    int n1, n2;

    int group(int i2) const { return i2 / n1; }
    // The C2 process that carries C2 process i2's message for C1 process j1.
    int facing(int i2, int j1) const
    {
        const int k = group(i2) * n1 + j1;
        return k < n2 ? k : k - n1;
    }
    // Where, in k's outgoing region, C2 process i2's block lies (i2 faces
    // through k: k's group, or the partial group right after it).
    int slot_at_facing(int i2, int k) const { return i2 - group(k) * n1; }
    // How many C2 processes send through C2 process k.
    int carried_by(int k) const
    {
        const int r = n2 % n1;
        const int last_full = n2 / n1 - 1;
        const int own_group = std::min(n1, n2 - group(k) * n1);
        const bool takes_partial = r > 0 && group(k) == last_full && k % n1 >= r;
        return own_group + (takes_partial ? r : 0);
    }
};

constexpr uint32_t kDirectStep = 0;
constexpr uint32_t kAggregationStep = 1;
constexpr uint32_t kFirstBackboneStep = 2;

void direct_within_cluster(ScheduleBuilder &b, const std::vector<int> &cluster, int me)
{
    for (int peer : cluster) {
        if (peer == me) {
            b.copy(kDirectStep, block(HIER_BUF_SEND, me), block(HIER_BUF_RECV, me));
        } else {
            b.exchange(kDirectStep, peer, block(HIER_BUF_SEND, peer), block(HIER_BUF_RECV, peer));
        }
    }
}

// C1 process i: TMP holds, per C2 process j it faces (j = i + n1 s), an
// outgoing region of n1 blocks (one per C1 process), then the incoming
// regions, in the same order.
void c1_side(ScheduleBuilder &b, const LgLayout &l, int i)
{
    // Aggregation: my message for every C2 process goes to the C1 process
    // that faces it; I gather those for the C2 processes I face.
    for (int j = 0; j < l.n2; ++j) {
        const int holder = j % l.n1;
        const Region slot = block(HIER_BUF_TMP, (j / l.n1) * l.n1 + i);
        if (holder == i) {
            b.copy(kAggregationStep, block(HIER_BUF_SEND, (*l.c2)[j]), slot);
        } else {
            b.send(kAggregationStep, (*l.c1)[holder], block(HIER_BUF_SEND, (*l.c2)[j]));
        }
    }
    for (int source = 0; source < l.n1; ++source) {
        if (source == i) {
            continue;
        }
        for (int j = i; j < l.n2; j += l.n1) {
            b.recv(kAggregationStep, (*l.c1)[source], block(HIER_BUF_TMP, (j / l.n1) * l.n1 + source));
        }
    }
    // Backbone: one exchange per C2 process I face.
    const int faced = (l.n2 - i + l.n1 - 1) / l.n1;
    uint32_t incoming = uint32_t(faced * l.n1);
    for (int s = 0; s < faced; ++s) {
        const int j = i + s * l.n1;
        const auto count = uint32_t(l.carried_by(j));
        const uint32_t step = kFirstBackboneStep + uint32_t(s);
        b.exchange(step, (*l.c2)[j], Region{HIER_BUF_TMP, uint32_t(s * l.n1), uint32_t(l.n1)},
                   Region{HIER_BUF_TMP, incoming, count});
        for (int i2 = 0; i2 < l.n2; ++i2) {
            if (l.facing(i2, i) == j) {
                b.copy(step, block(HIER_BUF_TMP, int(incoming) + l.slot_at_facing(i2, j)),
                       block(HIER_BUF_RECV, (*l.c2)[i2]));
            }
        }
        incoming += count;
    }
}

// C2 process k: TMP holds its outgoing region (the blocks it carries for the
// one C1 process it faces, k mod n1), then the n1 incoming blocks.
void c2_side(ScheduleBuilder &b, const LgLayout &l, int k)
{
    const int faced = k % l.n1;
    for (int j = 0; j < l.n1; ++j) {
        const int via = l.facing(k, j);
        if (via == k) {
            b.copy(kAggregationStep, block(HIER_BUF_SEND, (*l.c1)[j]),
                   block(HIER_BUF_TMP, l.slot_at_facing(k, k)));
        } else {
            b.send(kAggregationStep, (*l.c2)[via], block(HIER_BUF_SEND, (*l.c1)[j]));
        }
    }
    for (int i2 = 0; i2 < l.n2; ++i2) {
        if (i2 != k && l.facing(i2, faced) == k) {
            b.recv(kAggregationStep, (*l.c2)[i2], block(HIER_BUF_TMP, l.slot_at_facing(i2, k)));
        }
    }
    const auto carried = uint32_t(l.carried_by(k));
    const uint32_t step = kFirstBackboneStep + uint32_t(l.group(k));
    b.exchange(step, (*l.c1)[faced], Region{HIER_BUF_TMP, 0, carried},
               Region{HIER_BUF_TMP, carried, uint32_t(l.n1)});
    for (int source = 0; source < l.n1; ++source) {
        b.copy(step, block(HIER_BUF_TMP, int(carried) + source), block(HIER_BUF_RECV, (*l.c1)[source]));
    }
}

} // namespace

const char *lg_unfit(const Topology &topology)
{
    return topology.cluster_count() == 2 ? nullptr : "needs exactly two clusters (coll_hier_cluster_map)";
}

uint32_t lg_backbone_steps(const Topology &topology)
{
    const int a = int(topology.cluster_members(0).size());
    const int b = int(topology.cluster_members(1).size());
    const int n1 = std::min(a, b);
    return uint32_t((std::max(a, b) + n1 - 1) / n1);
}

Schedule build_lg_alltoall(const Topology &topology, int rank, int /*root*/)
{
    ScheduleBuilder b(rank, topology.size());
    const auto &first = topology.cluster_members(0);
    const auto &second = topology.cluster_members(1);
    const bool first_is_c1 = first.size() <= second.size();
    LgLayout l{first_is_c1 ? &first : &second, first_is_c1 ? &second : &first, 0, 0};
    l.n1 = int(l.c1->size());
    l.n2 = int(l.c2->size());
    const int cluster = topology.cluster_of(rank);
    direct_within_cluster(b, topology.cluster_members(cluster), rank);
    const bool in_c1 = &topology.cluster_members(cluster) == l.c1;
    if (in_c1) {
        c1_side(b, l, topology.cluster_index(rank));
    } else {
        c2_side(b, l, topology.cluster_index(rank));
    }
    return b.build();
}

} // namespace hier
