/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The time model: a discrete-event run of every rank's schedule on a flow-level machine (docs/architecture.md).
//
// Runs every rank's schedule as the executor would (rounds posted under the
// window and their dependencies, finished in order, copies at the end of a
// round) on a flow-level model of the machine, and returns when the last
// rank is done. The machine (link_costs.h):
// - resources: each node's shared memory (intra-node messages); with
//   sockets, each node's link between them (its messages between sockets,
//   which also use the memory; socket bandwidth, both ways together); each
//   node's NIC out and NIC in (network bandwidth each, full duplex), each cluster's
//   uplink out and in (backbone bandwidth each; for leaf uplinks its nodes
//   times the network's over the oversubscription, link_costs.h:
//   uplink_bandwidth). A message between nodes uses its nodes' NICs, and
//   between clusters also both uplinks;
// - on a torus of nodes (coll_hier_torus_dims, one rank per node) there are
//   no NICs: each node's links out (one per direction, network bandwidth
//   each), and a message between nodes uses every link of its
//   dimension-ordered route (torus.h: Torus::route), so routes that share a
//   link share its bandwidth. Its latency is the network's plus the hop
//   latency for each node it passes through (link_costs.h: given, or the
//   latency probe's slope over the pairs' hops);
// - the messages using a resource share it max-min fairly (progressive
//   filling, recomputed whenever a message starts or ends);
// - a message arrives one latency after its last byte left (its class's:
//   the node's, the socket's between sockets of a node, the network's, plus
//   the backbone's between clusters), so latencies overlap but do not
//   serialize;
// - each rank's CPU pays the class's overhead per message it sends (when
//   the round is posted; each message leaves one overhead after that) and
//   per message it receives (when it arrives), one after the other, and
//   copies at the node's bandwidth;
// - a message up to its class's eager limit leaves when its send is posted;
//   a larger one waits for its receive: the request goes over (a latency),
//   the receive is posted, the answer comes back (a latency), then the data.
// Not modelled: TCP's own behaviour (slow start, losses under many flows),
// switches inside a cluster (without a torus the network is a full crossbar
// of NICs), the CPU time of forwarding on a torus whose nodes route in
// software, memory bandwidth beyond the node's, progress stalls.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "link_costs.h"
#include "schedule.h"
#include "topology.h"

namespace hier {

struct ClassTraffic {
    size_t messages = 0;
    size_t bytes = 0;
};

struct Prediction {
    std::string error;  // empty when modelled
    double seconds = 0;
    size_t rounds = 0;  // most rounds of any rank
    ClassTraffic traffic[kLinkClasses];
};

// Most flow updates one prediction may do before it gives up (reported in
// error): the model runs at the first call of a size class, on every rank.
constexpr size_t kModelWorkLimit = size_t(1) << 27;

// A prediction's error as a number and back, so that ranks can send it
// (autoselect.h: ModelShare): 0 none, 1 over kModelWorkLimit, 2 + r rank r
// never finishes; -1 for any other text, which error_text gives back as a
// text of its own (still an error).
double error_code(const std::string &error);
std::string error_text(double code);

// "1.5ms", or "1.5 ms" with separator " ": three significant digits, in s,
// ms or us.
std::string format_seconds(double seconds, const char *separator = "");

Prediction predict_time(const Topology &topology, const std::vector<Schedule> &schedules, size_t block_bytes,
                        int window, const LinkCosts &costs);

} // namespace hier
