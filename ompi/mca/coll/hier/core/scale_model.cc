/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The scale model (see scale_model.h): closed forms per algorithm over the
// kinds of rank.
#include "scale_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "algorithms.h"

namespace hier {

namespace {

// The classes a message can take: within a node, between nodes of one
// cluster, between clusters (the network's latency plus the backbone's, the
// backbone's overhead and eager limit, both links' bandwidth). A kind has
// no sockets: a message between two sockets of a node is priced as within
// one (docs/scale-model.md says why that moves little above 128 ranks).
enum Path { kOnNode = 0, kInCluster = 1, kAcross = 2 };

struct Machine {
    const ScaleShape &shape;
    const LinkCosts &costs;
    double mean_hops = 1;  // on a torus of nodes: a route's mean length in links
    double ports = 1;      // on a torus of nodes: links out of a node

    Machine(const ScaleShape &s, const LinkCosts &c) : shape(s), costs(c)
    {
        if (!s.torus_dims.empty()) {
            double hops = 0;
            for (int k : s.torus_dims) {
                hops += k > 1 ? double(k * k / 4) / k : 0;  // mean ring distance, floor(k^2 / 4) / k
            }
            mean_hops = std::max(1.0, hops);
            ports = 0;
            for (int k : s.torus_dims) {
                ports += k > 2 ? 2 : k == 2 ? 1 : 0;
            }
            ports = std::max(1.0, ports);
        }
    }
    bool torus() const { return !shape.torus_dims.empty(); }
    double overhead(Path path) const
    {
        return costs.link[path == kAcross ? int(kBackboneLink) : int(path)].overhead;
    }
    // One message's latency, a rendezvous's two more above the eager limit.
    double latency(Path path, double message_bytes) const
    {
        double l = costs.link[path == kAcross ? int(kNetworkLink) : int(path)].latency;
        size_t eager = costs.link[path == kAcross ? int(kNetworkLink) : int(path)].eager_limit;
        if (path == kAcross) {
            l += costs.link[kBackboneLink].latency;
            eager = std::min(eager, costs.link[kBackboneLink].eager_limit);
        }
        if (path == kInCluster && torus()) {
            l += (mean_hops - 1) * costs.hop_latency;
        }
        return message_bytes > double(eager) ? 3 * l : l;
    }
    // Seconds for `bytes` through a resource of the class's bandwidth.
    double through(int link_class, double bytes) const { return seconds(bytes, costs.link[link_class].bandwidth); }
    // Seconds for `bytes` through a cluster's uplink, whose bandwidth may
    // be its own (leaf uplinks: link_costs.h, uplink_bandwidth).
    double uplink(int cluster, double bytes) const
    {
        return seconds(bytes, uplink_bandwidth(costs, shape.cluster_nodes[size_t(cluster)]));
    }
    static double seconds(double bytes, double bandwidth)
    {
        return bytes <= 0 || std::isinf(bandwidth) ? 0 : bytes / bandwidth;
    }
    // Seconds for a node's `bytes` out to other nodes: its NIC, or on a
    // torus its links out, each byte using mean_hops links of all ports.
    double nic(double bytes) const
    {
        return torus() ? through(kNetworkLink, bytes * mean_hops / ports) : through(kNetworkLink, bytes);
    }
};

// A phase of `rounds` alike: each round costs `round` alone, and occupies
// its busiest resource or CPU `busy`; `window` rounds overlap their
// latencies.
double phase(double rounds, double round, double busy, double window)
{
    if (rounds <= 0) {
        return 0;
    }
    return (rounds - 1) * std::max(busy, round / std::max(1.0, window)) + round;
}

struct Peers {
    double on_node, in_cluster, across;
};
Peers peers_of(const ScaleShape &s, const ScaleShape::Kind &k)
{
    const double n = k.node_size, rc = s.cluster_ranks[size_t(k.cluster)];
    return Peers{n - 1, rc - n, double(s.ranks) - rc};
}

// The slowest path any pair of ranks takes.
Path farthest(const ScaleShape &s)
{
    return s.cluster_ranks.size() > 1 ? kAcross : s.nodes > 1 ? kInCluster : kOnNode;
}

// One message per rank and round, one partner each (pairwise, tuned's
// pairwise, xor, and factor, whose per-rank messages are pairwise's): the
// rounds of each path, each with its share of the NIC, the shared memory
// and the uplink. `coupled`: some pair of every round takes the slowest
// path (partners at an offset, or a 1-factor's), and its partners wait for
// it, so every round pays that path's latency (the simulator agrees:
// pairwise over two clusters pays the backbone's every round); else (xor on
// aligned power-of-two nodes and clusters) a round's pairs all take one
// path and the rank's own rounds count.
double one_partner_rounds(const Machine &m, size_t block, double window, bool coupled)
{
    const ScaleShape &s = m.shape;
    const double b = double(block);
    const Path far = farthest(s);
    double worst = 0;
    for (const ScaleShape::Kind &k : s.kinds) {
        const Peers peers = peers_of(s, k);
        const double n = k.node_size, rc = s.cluster_ranks[size_t(k.cluster)];
        // A rank's rounds of one path are the rounds its node's (cluster's)
        // ranks take that path too (partners at one offset, ranks
        // consecutive): the resource's whole load spread over them.
        const double shm_flows = n, nic_flows = n, up_flows = rc;
        auto latency = [&](Path path) { return m.latency(coupled ? far : path, b); };
        double t = 0;
        {
            const double bw = m.through(kNodeLink, b * shm_flows), o = 2 * m.overhead(kOnNode);
            t += phase(peers.on_node, latency(kOnNode) + o + bw, std::max(o, bw), window);
        }
        {
            const double bw = m.nic(b * nic_flows), o = 2 * m.overhead(kInCluster);
            t += phase(peers.in_cluster, latency(kInCluster) + o + bw, std::max(o, bw), window);
        }
        {
            const double bw = std::max(m.nic(b * nic_flows), m.uplink(k.cluster, b * up_flows));
            const double o = 2 * m.overhead(kAcross);
            t += phase(peers.across, latency(kAcross) + o + bw, std::max(o, bw), window);
        }
        worst = std::max(worst, t);
    }
    return worst;
}

bool power_of_two(long x)
{
    return x > 0 && (x & (x - 1)) == 0;
}

// xor's rounds r < n stay on aligned power-of-two nodes of n, r < rc in
// aligned clusters of rc.
bool xor_aligned(const ScaleShape &s)
{
    if (s.node_sizes.size() != 1 || !power_of_two(s.node_sizes[0])) {
        return false;
    }
    return std::all_of(s.cluster_ranks.begin(), s.cluster_ranks.end(),
                       [&](int r) { return r == s.cluster_ranks[0] && power_of_two(r); });
}

// Everything posted at once (tuned's linear): every rank's overheads one
// after the other, against the busiest NIC, shared memory and uplink.
double all_at_once(const Machine &m, size_t block)
{
    const ScaleShape &s = m.shape;
    const double p = s.ranks, b = double(block);
    double worst = 0;
    for (const ScaleShape::Kind &k : s.kinds) {
        const Peers peers = peers_of(s, k);
        const double n = k.node_size, rc = s.cluster_ranks[size_t(k.cluster)];
        const double cpu = 2 * (peers.on_node * m.overhead(kOnNode) + peers.in_cluster * m.overhead(kInCluster) +
                                peers.across * m.overhead(kAcross));
        double bw = std::max(m.through(kNodeLink, n * peers.on_node * b),
                             m.nic(n * (peers.in_cluster + peers.across) * b));
        bw = std::max(bw, m.uplink(k.cluster, rc * peers.across * b));
        if (m.torus()) {  // the bisection: p^2/4 blocks each way over 2 p / k_max links
            const int k_max = *std::max_element(s.torus_dims.begin(), s.torus_dims.end());
            bw = std::max(bw, m.through(kNetworkLink, p * k_max * b / 8));
        }
        const Path far = peers.across > 0 ? kAcross : peers.in_cluster > 0 ? kInCluster : kOnNode;
        const double first = 2 * m.overhead(far);
        worst = std::max(worst, m.latency(far, b) + std::max(cpu, bw + first));
    }
    return worst;
}

// The path of the slowest neighbour pair of a ring whose neighbours are
// `stride` ranks apart and which spans `span` consecutive ranks.
Path ring_path(const ScaleShape &s, long span)
{
    bool nodes_hold = true, clusters_hold = true;
    for (int size : s.node_sizes) {
        nodes_hold = nodes_hold && size % span == 0;
    }
    for (int r : s.cluster_ranks) {
        clusters_hold = clusters_hold && r % span == 0;
    }
    if (s.cluster_ranks.size() > 1 && !clusters_hold) {
        return kAcross;
    }
    return s.nodes > 1 && !nodes_hold ? kInCluster : kOnNode;
}

// A store-and-forward ring of `members` ranks `stride` apart, each block
// slot `bundle` blocks, `ways` directions (ring: 1, ring2: 2): every round
// waits for the last, so the slowest pair sets the pace.
double ring(const Machine &m, size_t block, long members, long stride, double bundle, int ways)
{
    if (members <= 1) {
        return 0;
    }
    const ScaleShape &s = m.shape;
    const Path path = ring_path(s, members * stride);
    const double b = double(block) * bundle;
    // Flows a node's NIC carries per direction; seconds per byte of the
    // busiest uplink, carrying min(r, stride) flows each way.
    double nic_flows = 1, uplink_per_byte = 0;
    for (const ScaleShape::Kind &k : s.kinds) {
        nic_flows = std::max(nic_flows, double(std::min<long>(k.node_size, stride)));
    }
    for (size_t c = 0; c < s.cluster_ranks.size(); ++c) {
        uplink_per_byte =
            std::max(uplink_per_byte, m.uplink(int(c), double(ways * std::min<long>(s.cluster_ranks[c], stride))));
    }
    nic_flows *= ways;
    const long rounds = ways == 1 ? members - 1 : members / 2;
    // Round k (1..rounds) carries what is left: members - k slots one way,
    // for ring2 about members / 2 - k + 1 each way.
    double t = 0;
    const double left_total = ways == 1 ? double(members) * (members - 1) / 2 : double(rounds) * (rounds + 1) / 2;
    double per_byte = 0;
    switch (path) {
    case kOnNode:
        per_byte = m.through(kNodeLink, 1);
        break;
    case kInCluster:
        per_byte = m.nic(nic_flows);
        break;
    case kAcross:
        per_byte = std::max(m.nic(nic_flows), uplink_per_byte);
        break;
    }
    // The edges within a node share its memory: each carries a round's
    // message through it.
    double on_node_edges = 0;
    for (const ScaleShape::Kind &k : s.kinds) {
        on_node_edges = std::max(on_node_edges, double(k.node_size - std::min<long>(k.node_size, stride)));
    }
    per_byte = std::max(per_byte, m.through(kNodeLink, on_node_edges * ways));
    // Rounds whose message exceeds the eager limit pay a rendezvous.
    const double first = double(ways == 1 ? members - 1 : rounds);
    size_t eager = m.costs.link[path == kOnNode ? kNodeLink : kNetworkLink].eager_limit;
    if (path == kAcross) {
        eager = std::min(eager, m.costs.link[kBackboneLink].eager_limit);
    }
    const double big_rounds = std::min<double>(rounds, std::max(0.0, first - std::floor(double(eager) / b)));
    const double small_rounds = rounds - big_rounds;
    const double largest = first * b;
    // One way round, a round's critical path passes each edge of the ring
    // once over the rounds (store and forward), so the rounds' latencies
    // are the edges': a fraction stride / (ranks per node) of them leave a
    // node, stride / (ranks per cluster) a cluster. Both ways round it can
    // zigzag over the slowest edge every round (the simulator agrees: ring2
    // over two clusters pays the backbone's latency every round, ring once).
    const double p = s.ranks;
    double leave_node = path == kOnNode ? 0 : std::min(1.0, double(stride) * s.nodes / p);
    double leave_cluster =
        path == kAcross ? std::min(leave_node, double(stride) * double(s.cluster_ranks.size()) / p) : 0;
    if (ways == 2) {
        leave_node = path == kOnNode ? 0 : 1;
        leave_cluster = path == kAcross ? 1 : 0;
    }
    auto mean_latency = [&](double bytes) {
        return leave_cluster * m.latency(kAcross, bytes) + (leave_node - leave_cluster) * m.latency(kInCluster, bytes) +
               (1 - leave_node) * m.latency(kOnNode, bytes);
    };
    const double mean_o = 2 * ways *
                          (leave_cluster * m.overhead(kAcross) + (leave_node - leave_cluster) * m.overhead(kInCluster) +
                           (1 - leave_node) * m.overhead(kOnNode));
    t += small_rounds * (mean_latency(0) + mean_o) + big_rounds * (mean_latency(largest) + mean_o);
    t += left_total * b * per_byte;
    return t;
}

// tuned's modified Bruck: ceil(log2 p) rounds, each sending the blocks
// whose index has bit k set (about p/2) to rank + 2^k, packed and unpacked;
// every round paced by its slowest pair.
double bruck(const Machine &m, size_t block)
{
    const ScaleShape &s = m.shape;
    const long p = s.ranks;
    const double b = double(block);
    const Path far = s.cluster_ranks.size() > 1 ? kAcross : s.nodes > 1 ? kInCluster : kOnNode;
    double t = 2 * m.through(kNodeLink, double(p) * b);  // the rotations before and after
    // A round's critical path runs back from a rank by the round's distances:
    // the rounds shorter than a node (cluster) cross its boundary about once
    // in all, each longer one once.
    const int smallest_node = s.node_sizes.front();
    const int smallest_cluster = *std::min_element(s.cluster_ranks.begin(), s.cluster_ranks.end());
    bool short_crossed_node = false, short_crossed_cluster = false;
    for (long d = 1; d < p; d *= 2) {
        const long period = 2 * d;
        const double count = double((p / period) * d + std::max(0L, p % period - d));
        const double message = count * b;
        double bw = 0;
        for (const ScaleShape::Kind &k : s.kinds) {
            const double out = double(std::min<long>(k.node_size, d));
            bw = std::max(bw, m.through(kNodeLink, (k.node_size - out) * message));
            bw = std::max(bw, m.nic(out * message));
        }
        if (far == kAcross) {
            for (size_t c = 0; c < s.cluster_ranks.size(); ++c) {
                bw = std::max(bw, m.uplink(int(c), double(std::min<long>(s.cluster_ranks[c], d)) * message));
            }
        }
        Path path = kOnNode;
        if (far == kAcross && (d >= smallest_cluster || !short_crossed_cluster)) {
            path = kAcross;
            short_crossed_cluster = short_crossed_cluster || d < smallest_cluster;
        } else if (far != kOnNode && (d >= smallest_node || !short_crossed_node)) {
            path = kInCluster;
            short_crossed_node = short_crossed_node || d < smallest_node;
        }
        const double o = 2 * m.overhead(path);
        t += m.latency(path, message) + o + bw + 2 * m.through(kNodeLink, message);
    }
    return t;
}

// Steps of Sanders and Traeff's factor schedule over nodes of these sizes
// (factor.cc's plan, in closed form: each round lasts as long as the pair
// holding the largest active node).
double factor_steps(const std::vector<int> &sizes, const std::vector<int> &counts)
{
    double steps = 0;
    double active = 0;
    for (int c : counts) {
        active += c;
    }
    const double largest = sizes.empty() ? 0 : sizes.back();
    int done = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
        const double moving = sizes[i] - done;
        steps += active > 1 ? active * moving * largest : moving * (largest - 1);
        done = sizes[i];
        active -= counts[i];
    }
    return steps;
}

// factor: each rank's messages are pairwise's (the simulator agrees within
// a few per cent), and a node's NIC moves one message per step.
double factor(const Machine &m, size_t block, double window)
{
    const double per_rank = one_partner_rounds(m, block, window, true);
    const double steps = factor_steps(m.shape.node_sizes, m.shape.nodes_of_size);
    return std::max(per_rank, steps * m.nic(double(block)));
}

// The LG family (lg.cc). variant 0: lg, 1: lg_at_once, 2: lg_overlap.
double lg(const Machine &m, size_t block, double window, int variant)
{
    const ScaleShape &s = m.shape;
    const double p = s.ranks, b = double(block);
    const size_t clusters = s.cluster_ranks.size();
    double worst = 0;
    for (const ScaleShape::Kind &k : s.kinds) {
        const double n = k.node_size, rc = s.cluster_ranks[size_t(k.cluster)];
        // Local phase: each rank sends each cluster mate its direct block and
        // the blocks that mate carries for it over the backbone.
        double carried = 0, bb_messages = 0, bb_steps = 0, smallest_pair = p;
        for (size_t d = 0; d < clusters; ++d) {
            if (int(d) == k.cluster) {
                continue;
            }
            const double rd = s.cluster_ranks[d];
            carried += rd * (1 - 1 / std::min(rc, rd));
            bb_messages += std::max(rc, rd) / rc;
            bb_steps += std::ceil(std::max(rc, rd) / std::min(rc, rd));
            smallest_pair = std::min(smallest_pair, std::min(rc, rd));
        }
        const double mates = rc - 1;
        const double local_bytes = (mates + carried) * b;  // per rank
        const double local_message = mates > 0 ? local_bytes / mates : 0;
        double local = 0;
        if (mates > 0) {
            const double cpu = 2 * ((n - 1) * m.overhead(kOnNode) + (rc - n) * m.overhead(kInCluster));
            const double bw = std::max(m.through(kNodeLink, n * local_bytes * (n - 1) / mates),
                                       m.nic(n * local_bytes * (rc - n) / mates));
            const Path path = rc > n ? kInCluster : kOnNode;
            const double pack = m.through(kNodeLink, local_bytes);
            if (variant == 0) {
                // factor's steps over the cluster's nodes: the rank's mates
                // one per round, a node's NIC one message per step
                std::vector<int> sizes, counts;
                for (const ScaleShape::Kind &j : s.kinds) {
                    if (j.cluster == k.cluster) {
                        sizes.push_back(j.node_size);
                        counts.push_back(j.nodes);
                    }
                }
                const double steps = factor_steps(sizes, counts);
                const double o = 2 * m.overhead(path);
                const double share = std::max(m.nic(n * local_message), m.through(kNodeLink, n * local_message));
                const double rounds = phase(mates, m.latency(path, local_message) + o + share, std::max(o, share),
                                            window);
                local = std::max(rounds, steps * m.nic(local_message)) + pack;
            } else {
                local = m.latency(path, local_message) + std::max(cpu, bw + 2 * m.overhead(path)) + pack;
            }
        }
        // Backbone: max(rc, rd) messages each way per pair of clusters, the
        // pair's rc rd blocks; a cluster's uplink carries rc (p - rc) blocks.
        const double bb_message = smallest_pair * b;
        const double bb_cpu = 2 * bb_messages * m.overhead(kAcross);
        const double bb_bw = std::max(m.uplink(k.cluster, rc * (p - rc) * b), m.nic(n * (p - rc) * b));
        const double unpack = m.through(kNodeLink, p * b);
        double backbone = 0;
        if (variant == 0) {
            const double round = m.latency(kAcross, bb_message) + 2 * m.overhead(kAcross) + bb_bw / bb_steps;
            backbone = phase(bb_steps, round, std::max(bb_cpu, bb_bw) / bb_steps, window);
            worst = std::max(worst, local + backbone + unpack);
        } else if (variant == 1) {
            backbone = m.latency(kAcross, bb_message) + std::max(bb_cpu, bb_bw + 2 * m.overhead(kAcross));
            worst = std::max(worst, local + backbone + unpack);
        } else {
            // The own blocks (one of each message's smallest_pair) cross
            // beside the local phase; the carried ones after it.
            const double own = 1 / smallest_pair;
            const double own_part =
                m.latency(kAcross, b) + std::max(bb_cpu, bb_bw * own + 2 * m.overhead(kAcross));
            const double rest = smallest_pair > 1 ? m.latency(kAcross, bb_message - b) +
                                                        std::max(bb_cpu, bb_bw * (1 - own) + 2 * m.overhead(kAcross))
                                                  : 0;
            worst = std::max(worst, std::max(own_part, local + rest) + unpack);
        }
    }
    return worst;
}

// node_lg (node_lg.cc): lg_at_once with every node its own cluster. Per
// kind of rank, the other nodes by kind (O(K) each, O(K^2) in all for K
// kinds): the local phase is an alltoall within the node through shared
// memory, each message the direct block plus what the mate carries; then
// max(n, nd) / n exchanges per other node of nd ranks, posted at once, of
// min(n, nd) blocks or more; the node's NIC carries its n (p - n) blocks,
// the cluster's uplink its r_c (p - r_c).
double node_lg(const Machine &m, size_t block)
{
    const ScaleShape &s = m.shape;
    const double p = s.ranks, b = double(block);
    const bool clusters = s.cluster_ranks.size() > 1;
    double worst = 0;
    for (const ScaleShape::Kind &k : s.kinds) {
        const double n = k.node_size, rc = s.cluster_ranks[size_t(k.cluster)];
        double carried = 0, messages_cpu = 0, smallest_pair = n;
        for (const ScaleShape::Kind &j : s.kinds) {
            const double nodes = j.nodes - (&j == &k ? 1 : 0), nd = j.node_size;
            if (nodes <= 0) {
                continue;
            }
            carried += nodes * nd * (1 - 1 / std::min(n, nd));
            messages_cpu += nodes * std::max(n, nd) / n * m.overhead(j.cluster == k.cluster ? kInCluster : kAcross);
            smallest_pair = std::min(smallest_pair, std::min(n, nd));
        }
        double local = 0;
        if (n > 1) {
            const double local_bytes = (n - 1 + carried) * b;  // per rank
            const double cpu = 2 * (n - 1) * m.overhead(kOnNode);
            const double bw = m.through(kNodeLink, n * local_bytes);
            local = m.latency(kOnNode, local_bytes / (n - 1)) + std::max(cpu, bw + 2 * m.overhead(kOnNode)) +
                    m.through(kNodeLink, local_bytes);
        }
        const Path far = clusters && rc < p ? kAcross : kInCluster;
        double bb_bw = m.nic(n * (p - n) * b);
        if (clusters) {
            bb_bw = std::max(bb_bw, m.uplink(k.cluster, rc * (p - rc) * b));
        }
        const double backbone =
            m.latency(far, smallest_pair * b) + std::max(2 * messages_cpu, bb_bw + 2 * m.overhead(far));
        worst = std::max(worst, local + backbone + m.through(kNodeLink, p * b));
    }
    return worst;
}

double mesh(const Machine &m, size_t block)
{
    const std::vector<int> &dims = m.shape.mesh_dims;
    const double p = m.shape.ranks;
    double t = 0;
    long stride = 1;
    for (size_t i = dims.size(); i-- > 0;) {  // row-major: the last dimension is consecutive
        t += ring(m, block, dims[i], stride, p / dims[i], 1);
        stride *= dims[i];
    }
    return t;
}

} // namespace

ScaleShape scale_shape(const Topology &topology)
{
    ScaleShape s;
    s.ranks = topology.size();
    s.nodes = topology.node_count();
    s.cluster_ranks.assign(size_t(topology.cluster_count()), 0);
    s.cluster_nodes.assign(size_t(topology.cluster_count()), 0);
    std::map<std::pair<int, int>, int> kinds;  // (cluster, size) -> nodes: ordered, so deterministic
    std::map<int, int> sizes;
    for (int node = 0; node < topology.node_count(); ++node) {
        const int size = topology.node_size(node);
        const int cluster = topology.cluster_of(topology.members(node).front());
        ++kinds[{cluster, size}];
        ++sizes[size];
        s.cluster_ranks[size_t(cluster)] += size;
        ++s.cluster_nodes[size_t(cluster)];
        s.largest_node = std::max(s.largest_node, size);
    }
    for (const auto &[key, count] : kinds) {
        s.kinds.push_back(ScaleShape::Kind{key.first, key.second, count});
    }
    for (const auto &[size, count] : sizes) {
        s.node_sizes.push_back(size);
        s.nodes_of_size.push_back(count);
    }
    if (const Torus *torus = topology.torus_of_nodes()) {
        s.torus_dims = torus->dims();
    }
    s.mesh_dims = mesh_dims(topology);
    return s;
}

bool scale_models(const Algorithm *algorithm)
{
    return algorithm->op == HIER_OP_ALLTOALL && algorithm->scale_cost;
}

double scale_predict_row(const ScaleShape &shape, const Algorithm *algorithm, size_t block_bytes, int window,
                         const LinkCosts &machine)
{
    return scale_models(algorithm) ? algorithm->scale_cost(shape, block_bytes, std::max(1, window), machine)
                                   : std::numeric_limits<double>::quiet_NaN();
}

double scale_pairwise(const ScaleShape &shape, size_t block_bytes, double window, const LinkCosts &machine)
{
    return one_partner_rounds(Machine(shape, machine), block_bytes, window, true);
}

double scale_xor(const ScaleShape &shape, size_t block_bytes, double window, const LinkCosts &machine)
{
    return one_partner_rounds(Machine(shape, machine), block_bytes, window, !xor_aligned(shape));
}

double scale_factor(const ScaleShape &shape, size_t block_bytes, double window, const LinkCosts &machine)
{
    return factor(Machine(shape, machine), block_bytes, window);
}

double scale_ring(const ScaleShape &shape, size_t block_bytes, double, const LinkCosts &machine)
{
    return ring(Machine(shape, machine), block_bytes, shape.ranks, 1, 1, 1);
}

double scale_ring2(const ScaleShape &shape, size_t block_bytes, double, const LinkCosts &machine)
{
    return ring(Machine(shape, machine), block_bytes, shape.ranks, 1, 1, 2);
}

double scale_mesh(const ScaleShape &shape, size_t block_bytes, double, const LinkCosts &machine)
{
    return mesh(Machine(shape, machine), block_bytes);
}

double scale_lg(const ScaleShape &shape, size_t block_bytes, double window, const LinkCosts &machine)
{
    return lg(Machine(shape, machine), block_bytes, window, 0);
}

double scale_lg_at_once(const ScaleShape &shape, size_t block_bytes, double window, const LinkCosts &machine)
{
    return lg(Machine(shape, machine), block_bytes, window, 1);
}

// lg_overlap keeps two rounds in flight whatever the window (Schedule::window).
double scale_lg_overlap(const ScaleShape &shape, size_t block_bytes, double window, const LinkCosts &machine)
{
    return lg(Machine(shape, machine), block_bytes, std::max(2.0, window), 2);
}

double scale_node_lg(const ScaleShape &shape, size_t block_bytes, double, const LinkCosts &machine)
{
    return node_lg(Machine(shape, machine), block_bytes);
}

double scale_predict_tuned(const ScaleShape &shape, TunedAlltoall algorithm, size_t block_bytes,
                           const LinkCosts &machine)
{
    const Machine m(shape, machine);
    switch (algorithm) {
    case TunedAlltoall::Pairwise:
        return one_partner_rounds(m, block_bytes, 1, true);
    case TunedAlltoall::ModifiedBruck:
        return bruck(m, block_bytes);
    case TunedAlltoall::Linear:
    case TunedAlltoall::LinearSync:
    case TunedAlltoall::TwoProcs:
        break;
    }
    return all_at_once(m, block_bytes);
}

} // namespace hier
