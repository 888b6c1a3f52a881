/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Shared checks for the unit tests: build every rank's schedule, run them
// byte for byte through the in-memory transport, and simulate them.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "algorithms.h"
#include "memory_transport.h"
#include "simulate.h"
#include "topology.h"

namespace hier::test {

// Every rank's schedule, built with plans of its own beside the topology
// (as a communicator keeps them), or with the plans given.
std::vector<Schedule> build_all(Builder builder, const Topology &topology, int root = -1);
std::vector<Schedule> build_all(Builder builder, const Topology &topology, const Plans &plans, int root = -1);

// Runs collective op (root for scatter and gather) with block_bytes-byte
// blocks through the in-memory transport with the executor's window, and
// checks every byte of every receive buffer against what the collective
// must deliver (for allreduce: the bytewise sum modulo 256 of every rank's
// vector, the in-memory reduction). Returns "" or the first error.
std::string run_bytes(hier_op_t op, const Topology &topology, const std::vector<Schedule> &schedules,
                      int root = -1, size_t block_bytes = 3, int window = 1);

// run_bytes in two halves, for collectives run together (run_together):
// fills SEND with what each rank sends and RECV with a filler, then checks
// RECV after the run (block_bytes 0 for a barrier).
void fill_bytes(MemoryWorld &world, hier_op_t op, int root, size_t block_bytes);
std::string check_bytes(MemoryWorld &world, hier_op_t op, int root, size_t block_bytes);

inline std::string run_alltoall_bytes(const Topology &topology, const std::vector<Schedule> &schedules,
                                      size_t block_bytes = 3, int window = 1)
{
    return run_bytes(HIER_OP_ALLTOALL, topology, schedules, -1, block_bytes, window);
}

// Alltoallv through the in-memory transport: the core's alltoallv program,
// which the component runs over the PML (its size pass, TMP's layout, its
// data pass).
// bytes[r][j]: what rank r sends rank j. SEND and RECV blocks lie in a
// shuffled order with gaps (as displacements may place them); the gaps must
// stay untouched. Returns "" or the first error.
std::string run_alltoallv_bytes(const Topology &topology, const std::vector<Schedule> &schedules,
                                const std::vector<std::vector<size_t>> &bytes, unsigned seed, int window = 1);

// Random alltoallv sizes, 0 to max_bytes, about a third of them 0.
std::vector<std::vector<size_t>> random_alltoallv_bytes(std::mt19937 &random, int size, size_t max_bytes);

// Simulates every rank's schedule against op's contract, for the
// executor's window (which only a barrier's causality depends on).
SimulationReport simulate_op(hier_op_t op, const Topology &topology, const std::vector<Schedule> &schedules,
                             int root = -1, int window = 1);

// The windows the byte checks run with: strict rounds, a small window, and
// one wider than any schedule here.
inline const int kWindows[] = {1, 3, 1 << 20};

// Every multiset of node sizes with 1..max_nodes nodes of 1..max_size processes.
std::vector<std::vector<int>> node_size_multisets(int max_nodes, int max_size);

// Nodes of the given sizes with ranks dealt round-robin over the nodes that
// still have room, as mpirun --map-by node places them.
Topology interleaved(const std::vector<int> &sizes);

// A random topology of at most max_ranks ranks on random uneven nodes, ranks
// placed in a random order.
Topology random_topology(std::mt19937 &random, int max_ranks, int max_node_size);

} // namespace hier::test
