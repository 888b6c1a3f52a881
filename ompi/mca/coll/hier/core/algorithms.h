/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The schedule builders, one file each. A builder turns (topology, plans, my
// rank, root) into my schedule; root is -1 for rootless collectives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "hypercube.h"
#include "schedule.h"
#include "topology.h"
#include "torus_partition.h"

namespace hier {

struct LinkCosts;

// Plans: what the algorithms derive from a topology and keep, so that a
// communicator derives each once: the embedded hypercube (hypercube.h) and
// OPT's torus partition (torus_partition.h). The topology describes the
// machine; whoever runs schedules on it (the communicator, a test, a tool)
// owns one Plans beside it and hands both to every builder. Each plan is
// built at its first use and kept (a communicator's collectives never run
// concurrently, so the lazy build needs no lock): builders stay pure, plans
// and topology in, schedule out. One Plans serves one topology, whose costs
// are set before the first use; the texts it gives (a plan's summary, auto's
// reasons from it) live as long as it does. Memory O(p).
class Plans {
public:
    // hypercube_embedding: the embedding the hypercube collectives use
    // (embedding.h ids; coll_hier_hypercube_embedding).
    explicit Plans(int hypercube_embedding = kEmbeddingAuto) : embedding_(hypercube_embedding) {}

    // The embedded hypercube, from the topology's costs and the embedding.
    const HypercubePlan &hypercube(const Topology &topology) const
    {
        if (!hypercube_) {
            hypercube_ = plan_hypercube(topology.costs(), embedding_);
        }
        return *hypercube_;
    }
    // The partition of the topology's torus for the OPT scatter (with a
    // torus only).
    const TorusPartition &torus_partition(const Topology &topology) const
    {
        if (!torus_partition_) {
            torus_partition_ = partition_torus(*topology.torus());
        }
        return *torus_partition_;
    }

private:
    int embedding_;
    mutable std::optional<HypercubePlan> hypercube_;
    mutable std::optional<TorusPartition> torus_partition_;
};

// Every builder's type (the registry's rows, Open MPI's algorithms as the
// model sees them).
using Builder = Schedule (*)(const Topology &topology, const Plans &plans, int rank, int root);

// factor.cc: the hierarchical factor alltoall (Sanders and Traeff).
struct FactorRound {
    uint32_t first_step;
    uint32_t steps;  // the longest pair of the round
};
struct FactorPhase {
    int done;     // local indices [done, current) of every active node move
    int current;
    std::vector<int> active;  // active nodes in the paper's order
    std::vector<FactorRound> rounds;
};
struct FactorPlan {
    std::vector<FactorPhase> phases;
    uint32_t steps = 0;
};
FactorPlan plan_factor(const Topology &topology);
// One message of rank's factor schedule: in `step`, rank sends to and/or
// receives from `peer`; peer == rank is the local copy m_uu. Other schedules
// whose phases are alltoalls among SMP nodes (lg's local phase) reuse them.
struct FactorMove {
    uint32_t step;
    int peer;
    bool sends;
    bool receives;
};
std::vector<FactorMove> factor_moves(const Topology &topology, int rank);
Schedule build_factor_alltoall(const Topology &topology, const Plans &plans, int rank, int root);

// edgecolor.cc: single-port alltoall in as many steps as the busiest NIC
// has messages (Koenig edge colouring of the inter-node messages).
uint32_t edgecolor_steps(const Topology &topology);
const char *edgecolor_unfit(const Topology &topology);
Schedule build_edgecolor_alltoall(const Topology &topology, const Plans &plans, int rank, int root);

// lg.cc: the LG alltoall (Jeannot and Steffenel) over two clusters or
// more: `lg` takes the backbone exchanges one per process and step (the
// paper's), `lg_at_once` posts them all at once. Both carry
// lg_backbone_messages over the backbone; lg takes lg_backbone_steps steps
// there (lg_at_once 1) after a local phase of lg_local_steps (lg_at_once 1).
// `lg_overlap` is lg_at_once with every rank's own blocks crossing apart,
// beside the local phase: lg_backbone_messages more messages at most.
const char *lg_unfit(const Topology &topology);
uint32_t lg_backbone_steps(const Topology &topology);
uint32_t lg_local_steps(const Topology &topology);
size_t lg_backbone_messages(const Topology &topology);
Schedule build_lg_alltoall(const Topology &topology, const Plans &plans, int rank, int root);
Schedule build_lg_at_once_alltoall(const Topology &topology, const Plans &plans, int rank, int root);
Schedule build_lg_overlap_alltoall(const Topology &topology, const Plans &plans, int rank, int root);

// node_lg.cc: lg_at_once's schedule with every SMP node as its own cluster
// (node-level aggregation); applies from two nodes, one of them with two
// ranks or more.
const char *node_lg_unfit(const Topology &topology);
Schedule build_node_lg_alltoall(const Topology &topology, const Plans &plans, int rank, int root);

// pairwise.cc: the flat 1-factor alltoall (encyclopedia text), and its
// pairing: in round r of one_factor_rounds(size), rank meets
// one_factor_partner(rank, r, size) (itself: idle).
int one_factor_rounds(int size);
int one_factor_partner(int rank, int round, int size);
Schedule build_pairwise_alltoall(const Topology &topology, const Plans &plans, int rank, int root);

// hypercube_<op>.cc: recursive doubling on the communicator's embedded
// hypercube (hypercube.h; Figueira and Janapa Reddi), and the hypercube
// alltoall.
Schedule build_hypercube_barrier(const Topology &topology, const Plans &plans, int rank, int root);
Schedule build_hypercube_allreduce(const Topology &topology, const Plans &plans, int rank, int root);
Schedule build_hypercube_allgather(const Topology &topology, const Plans &plans, int rank, int root);
Schedule build_hypercube_alltoall(const Topology &topology, const Plans &plans, int rank, int root);
// ring.cc, ring2.cc: the store-and-forward ring alltoall of the encyclopedia
// text, one way (p - 1 rounds) and both ways round (ceil((p - 1) / 2)).
Schedule build_ring_alltoall(const Topology &topology, const Plans &plans, int rank, int root);
Schedule build_ring2_alltoall(const Topology &topology, const Plans &plans, int rank, int root);

// mesh.cc: the text's two-phase mesh alltoall, one ring phase per dimension
// of mesh_dims: the torus's dimensions on a torus, else {r, c}, r the
// largest divisor of p not above sqrt(p).
std::vector<int> mesh_dims(const Topology &topology);
Schedule build_mesh_alltoall(const Topology &topology, const Plans &plans, int rank, int root);

// xor.cc: the text's XOR 1-factor alltoall, p a power of two, p - 1 rounds.
const char *xor_unfit(const Topology &topology);
Schedule build_xor_alltoall(const Topology &topology, const Plans &plans, int rank, int root);
// torus_opt.cc: OPT scatter and gather on a torus (Mao, Chen and Watson).
const char *torus_unfit(const Topology &topology);
// auto's rule for opt (registry.h, Algorithm::auto_declines): nullptr where
// opt is predicted faster than Open MPI's own scatter (gather) by
// kOptMargin on every machine, else why not.
const char *opt_scatter_declines(const Topology &topology, const Plans &plans, size_t block_bytes,
                                 const std::vector<LinkCosts> &machines);
const char *opt_gather_declines(const Topology &topology, const Plans &plans, size_t block_bytes,
                                const std::vector<LinkCosts> &machines);
// The rule's predictions on one machine, in seconds: opt's, and that of what
// Open MPI 4.1.4's tuned runs for the call.
struct RootedPrediction {
    double opt = 0;
    double open_mpi = 0;
};
RootedPrediction predict_opt_against_open_mpi(const Topology &topology, const Plans &plans, hier_op_t op,
                                              size_t block_bytes, const LinkCosts &machine);
uint32_t opt_scatter_steps(const TorusPartition &partition);
// With any partition (the registry's uses the plans').
Schedule build_opt_scatter_on(const Torus &torus, const TorusPartition &partition, int rank, int root);
std::vector<Schedule> opt_scatter_schedules_on(const Torus &torus, const TorusPartition &partition, int root);
Schedule build_opt_scatter(const Topology &topology, const Plans &plans, int rank, int root);
Schedule build_opt_gather(const Topology &topology, const Plans &plans, int rank, int root);
// Every rank's scatter or gather schedule, from one plan (for tests and tools:
// the same schedules as the one-rank builders, much faster for all ranks).
std::vector<Schedule> opt_schedules(const Topology &topology, const Plans &plans, hier_op_t op, int root);

// torus_sdf.cc: SDF scatter and gather on a torus (Mao, Chen and Watson).
uint32_t sdf_scatter_steps(const Torus &torus);
Schedule build_sdf_scatter(const Topology &topology, const Plans &plans, int rank, int root);
Schedule build_sdf_gather(const Topology &topology, const Plans &plans, int rank, int root);
std::vector<Schedule> sdf_schedules(const Topology &topology, hier_op_t op, int root);

} // namespace hier
