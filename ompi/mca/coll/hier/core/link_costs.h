/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// What a message costs on each class of link, as the time model (model.h)
// uses it, and coll_hier_link_costs, the user's way to say it.
//
// Four classes: node (between processes of one node, through shared
// memory; of one socket, when the topology has sockets), socket (between
// two sockets of one node, through the link between the packages; only
// when the topology has sockets), network (between nodes of one cluster,
// through each node's NIC), backbone (between clusters, through each
// cluster's uplink). When clusters
// are leaf switches the backbone is their uplinks, priced by an
// oversubscription ratio (LinkCosts::oversubscription). A class has a one-way latency, a bandwidth, a
// per-message CPU overhead at each end, and the eager limit above which a
// message waits for its receive to be posted (Open MPI's rendezvous).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "topology.h"

namespace hier {

// The socket class comes last so that the others keep the indices the
// message probe and its partners use (0: on the node, 1: between nodes).
enum LinkClassId { kNodeLink = 0, kNetworkLink = 1, kBackboneLink = 2, kSocketLink = 3, kLinkClasses = 4 };

struct LinkClass {
    double latency = 0;      // seconds, one way
    double bandwidth = 0;    // bytes per second; infinity: free
    double overhead = 0;     // seconds of CPU per message, at the sender and at the receiver
    size_t eager_limit = 0;  // bytes; a larger message starts once its receive is posted
};

// The socket class nobody gave, from the node class: a message between
// sockets moves its cache lines over the link between the packages, which
// about doubles shared memory's small-message latency (osu_latency within
// and across the sockets of a two-socket Xeon or EPYC node), while one
// copy's bandwidth and the CPU's overhead per message stay the node's. It
// has no corners of its own, so auto weighs as many machines as without
// sockets.
constexpr double kSocketLatencyFactor = 2;
LinkClass socket_from_node(const LinkClass &node);

struct LinkCosts {
    LinkClass link[kLinkClasses];
    // On a torus of nodes (one rank per node), what each node a message
    // passes through adds to its latency: the network's latency is a
    // neighbour's.
    double hop_latency = 0;  // seconds
    // Leaf uplinks: > 0 when clusters are switches' nodes (a leaf's, or a
    // pod's) whose uplinks are oversubscribed this much (1: a full-bisection
    // fat-tree, 4: 4:1). A message between clusters then takes the
    // network's latency (the backbone class adds none) and overhead, and the
    // backbone's bandwidth is per node of the cluster (the network's over
    // the ratio): a cluster's uplink carries its nodes times that, so it
    // differs per cluster (uplink_bandwidth). 0: every uplink carries the
    // backbone's bandwidth.
    double oversubscription = 0;
};

// Bytes per second each way through the uplink of a cluster of
// cluster_nodes nodes, as both time models charge it.
double uplink_bandwidth(const LinkCosts &costs, int cluster_nodes);

// What the user said: the classes given, and (given[c] false) those left
// unknown; with "probe", the latencies the latency probe and the per-message
// costs the message probe measured for the classes not given (their
// bandwidths stay unknown).
struct LinkCostSpec {
    LinkCosts costs;
    bool given[kLinkClasses] = {};
    bool hop_given = false;
    bool probe = false;
    // The clusters are switches' nodes (a switch source, cluster_source.h:
    // the leaves', or slurm:LEVEL's): an unknown backbone's corners are
    // their uplinks at kLeafCorners ratios, not a campus and a wide-area
    // link. Set per communicator, from the cluster map.
    bool switch_clusters = false;
    double measured_network = -1;   // one way between nodes of one cluster, seconds; -1: not measured
    double measured_hop = -1;       // on a torus of nodes, per hop beyond the first, seconds; -1: not measured
    double measured_crossing = -1;  // one way between nodes of two clusters, seconds; -1: not measured
    // Per message, with every rank busy: within a node, between nodes (the
    // backbone's too: the cost is the CPU's, not the link's); -1: not measured.
    double measured_message[kBackboneLink] = {-1, -1};
    bool any_given() const
    {
        return given[kNodeLink] || given[kNetworkLink] || given[kBackboneLink] || given[kSocketLink];
    }
    // The same spec with nothing measured: the classes not given at their corners.
    LinkCostSpec without_measurements() const
    {
        LinkCostSpec spec = *this;
        spec.measured_network = spec.measured_hop = spec.measured_crossing = -1;
        for (double &message : spec.measured_message) {
            message = -1;
        }
        return spec;
    }
};

// Parses coll_hier_link_costs: "" (every class unknown) or comma-separated
// entries: CLASS=LATENCY:BANDWIDTH[:OVERHEAD], CLASS one of node, socket,
// network, backbone, each at most once (socket is read only where the
// topology has sockets: without, no message takes it); times as a number and ns, us, ms or s;
// bandwidths as a number and bit/s, kbit/s, Mbit/s, Gbit/s, B/s, kB/s, MB/s
// or GB/s (powers of 1000); hop=LATENCY, on a torus of nodes what each
// node a message passes through adds (a neighbour's latency is the
// network's); oversubscription=RATIO ("4" or "4:1"), the backbone as leaf
// uplinks (LinkCosts::oversubscription), in place of backbone=...; and
// "probe", for the latencies of the classes not given to be measured. E.g.
// "node=1us:40Gbit/s,network=30us:200Mbit/s,backbone=5ms:100Mbit/s".
// A class given without an overhead takes its default (kDefaultOverhead).
// Returns false and one line in *error, naming the parameter and the form.
bool parse_link_costs(const std::string &text, LinkCostSpec *spec, std::string *error);

// What the latency probe measured, into a spec that asked for it: the
// median one-way latency between nodes of one cluster, and between nodes of
// different clusters (latency[a * n + b] for n nodes, cluster_of_node empty
// for one cluster). A class with no such pair stays unmeasured. With hops
// (hops[a * n + b] on a torus of nodes; empty otherwise), the latency
// within a cluster is fitted as a neighbour's plus one hop latency per
// node passed through: the hop latency is the least-squares slope over the
// pairs (at least 0), the neighbour's latency the median of each pair's
// latency less its hops beyond the first at that slope.
void apply_probe(LinkCostSpec *spec, const std::vector<double> &latency, const std::vector<int> &cluster_of_node,
                 const std::vector<int> &hops = {});

// What the message probe measured (hier_core.h, message_cost), into a spec
// that asked for it.
void apply_message_probe(LinkCostSpec *spec, const double message_cost[kBackboneLink]);

// The machines auto weighs when costs are unknown: every combination of the
// corner values of each unknown class (node: one; network: a fast fabric
// and Ethernet; backbone, when there are clusters: a campus link and a wide
// area one, or, for switch_clusters, leaf uplinks at kLeafCorners ratios),
// the given classes as given; the socket class, when not given, from each
// machine's node class (socket_from_node). Without clusters the backbone is
// left out of the combinations (no message crosses one). Measured values
// replace the corners': the network's latency as measured, the backbone's as
// the crossing latency less the network's (a message between clusters pays
// both); the per-message costs as the classes' overheads, the network's
// also the backbone's.
std::vector<LinkCosts> cost_corners(const LinkCostSpec &spec, bool has_backbone);
// The leaf uplinks' corners: a full-bisection fat-tree and a cheap 4:1 one.
constexpr double kLeafCorners[] = {1, 4};

// "30us:200Mbit/s:2us", as the parser reads it back.
std::string describe(const LinkClass &link);
const char *link_class_name(int link_class);

// The ranks rank exchanges with in the message probe, of one link class
// (0: on its own node, 1: on another node of its cluster): those up to
// reach away in rank order, either way round, so that the relation is
// symmetric. Ranks of the class in other clusters are passed over (their
// exchange would time the backbone's delay, not the messages): *left_out
// counts them.
std::vector<int> message_probe_partners(const Topology &topology, int rank, int link_class, int reach,
                                        int *left_out);

} // namespace hier
