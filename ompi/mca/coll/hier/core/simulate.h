/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The simulator: runs every rank's schedule on a model of the machine.
//
// Blocks are symbolic tokens, so a run proves where every block went. Ranks
// advance in lock-step by step label (see schedule.h), which checks that a
// send and its receive share a step, and counts the single-port steps the
// papers prove: a step is a label in which at least one message moves, and
// in the single-port model each node sends and receives at most one message
// per step (max_port_load reports the worst case).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "schedule.h"
#include "topology.h"

namespace hier {

// What a collective starts with and must end with, as tokens: any integer
// naming one original block; -1 is "nothing".
struct BlockContract {
    // Move: every RECV block must end holding its expected token, written
    // there exactly once. Reduce: a reduction adds tokens (modulo 2^64), and
    // RECV must end holding the sum of every rank's contribution, each counted
    // once. Synchronize: no data; every rank must have heard, through a chain
    // of messages, from every other rank before its schedule ends.
    enum class Kind { Move, Reduce, Synchronize };
    Kind kind = Kind::Move;
    std::function<size_t(int rank)> send_blocks;
    std::function<size_t(int rank)> recv_blocks;
    std::function<int64_t(int rank, size_t block)> initial_send;
    std::function<int64_t(int rank, size_t block)> expected_recv;
};

// Alltoall (and alltoallv, whose blocks differ only in size): SEND block j
// of rank r is its message for j; it must end as RECV block r of rank j.
BlockContract alltoall_contract(int size);
// Scatter: the root's SEND block j must end as rank j's RECV block 0.
BlockContract scatter_contract(int size, int root);
// Gather: rank j's SEND block 0 must end as the root's RECV block j.
BlockContract gather_contract(int size, int root);
// Allgather: rank j's SEND block 0 must end as every rank's RECV block j.
BlockContract allgather_contract(int size);
// Allreduce: every rank's RECV block 0 must end as the sum of every rank's
// SEND block 0.
BlockContract allreduce_contract(int size);
// Barrier: one empty block each of SEND and RECV for schedules to name.
BlockContract barrier_contract(int size);
// The contract of op (root is ignored by rootless collectives).
BlockContract contract_for(hier_op_t op, int size, int root);

struct SimulationReport {
    std::string error;            // empty when every check passed
    size_t rounds = 0;            // most rounds of any rank
    size_t steps = 0;             // step labels in which a message moves
    size_t max_port_load = 0;     // most messages one node sends, or receives, in one step
    size_t max_nic_load = 0;      // the same, counting inter-node messages only
    size_t max_link_load = 0;     // most messages from one rank to one other in one step (all-port: 1)
    std::vector<size_t> node_messages;  // messages sent by each node (local copies excluded)
    size_t intra_node_messages = 0;
    size_t inter_node_messages = 0;
    size_t intra_node_blocks = 0;
    size_t inter_node_blocks = 0;
    size_t inter_cluster_messages = 0;  // over a backbone
    size_t inter_cluster_steps = 0;     // steps in which a backbone carries a message
};

// window: the executor's (coll_hier_window). Blocks and steps do not
// depend on it, but a barrier's causality does: with w rounds in flight a
// send may be posted before earlier rounds finish, so what its message
// tells the receiver is only what the sender had heard by the end of the
// latest round certain to be finished when it was posted, max(depends_on,
// r - w) for round r. A schedule that relies on step order instead of on
// its rounds' dependencies passes at window 1 and fails here.
SimulationReport simulate(const Topology &topology, const std::vector<Schedule> &schedules,
                          const BlockContract &contract, int window = 1);

} // namespace hier
