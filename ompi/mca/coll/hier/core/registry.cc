/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The algorithm table and selection from it.
#include "registry.h"

#include <array>

#include "algorithms.h"
#include "hypercube.h"
#include "keywords.h"
#include "scale_model.h"

namespace hier {

namespace {

const char *fits_any(const Topology &) { return nullptr; }

const char *picks_whenever_fit(const Topology &, const Plans &, size_t, const std::vector<LinkCosts> &)
{
    return nullptr;
}

// The hypercube collectives: auto picks barrier, allreduce and allgather by
// these rules (no model of Open MPI's own exists for them) only where the
// embedding's calc_cost beats the blind embedding's by kHypercubeMinGain
// (hypercube.h), and the allreduce only below kHypercubeAllreduceLimit:
// recursive doubling sends the whole vector in each of log p steps, where
// Open MPI's ring and Rabenseifner allreduce send about twice the vector in
// all. Measured (compare.sh, -i 200 -r 5 below 64 KiB): the hypercube is
// faster than Open MPI's allreduce up to 8 KiB on uneven-smp and up to
// 32 KiB on hetero, slower from 16 KiB and 64 KiB; the crossover moves with
// latency over bandwidth, which the costs do not tell, so the limit is the
// lower one. The allgather moves the same volume as Open MPI's ring in
// fewer steps: faster at every size measured (8 B to 1 MiB blocks on
// uneven-smp and hetero), so no limit.
constexpr size_t kHypercubeAllreduceLimit = 16384;  // the vector, exclusive: a size class's bound

const char *hypercube_detail(const Topology &topology, const Plans &plans)
{
    return plans.hypercube(topology).summary.c_str();
}

// The barrier's and the allgather's rule: only the embedding's gain.
const char *hypercube_declines_when_even(const Topology &topology, const Plans &plans, size_t,
                                         const std::vector<LinkCosts> &)
{
    const std::string &why = plans.hypercube(topology).too_even;
    return why.empty() ? nullptr : why.c_str();
}

const char *hypercube_allreduce_declines(const Topology &topology, const Plans &plans, size_t block_bytes,
                                         const std::vector<LinkCosts> &machines)
{
    return block_bytes >= kHypercubeAllreduceLimit ? "vector of 16 KiB or more: Open MPI's own allreduce moves less"
                                                   : hypercube_declines_when_even(topology, plans, block_bytes, machines);
}

const Algorithm kAlgorithms[] = {
    {HIER_OP_ALLTOALL, 2, "lg",
     "LG (Jeannot and Steffenel) for two clusters or more joined by a slow backbone: local "
     "aggregation in single-port steps (factor's over SMP nodes), then one backbone exchange per "
     "process and step, 2 max(n1, n2) messages per pair of clusters (ceil(n2/n1) steps for two)",
     build_lg_alltoall, lg_unfit, nullptr, 2, scale_lg},
    {HIER_OP_ALLTOALL, 3, "lg_at_once",
     "LG with the local aggregation, then every backbone exchange, posted at once: the backbone "
     "crossed once, 2 max(n1, n2) messages per pair of clusters",
     build_lg_at_once_alltoall, lg_unfit, picks_whenever_fit, 3, scale_lg_at_once},
    {HIER_OP_ALLTOALL, 4, "factor",
     "hierarchical factor algorithm (Sanders and Traeff): single-ported per node, for SMP nodes "
     "of any sizes",
     build_factor_alltoall, fits_any, nullptr, 4, scale_factor},
    {HIER_OP_ALLTOALL, 5, "edgecolor",
     "single-port alltoall in as many steps as the busiest NIC has inter-node messages (edge "
     "colouring); intra-node messages at once through shared memory",
     build_edgecolor_alltoall, edgecolor_unfit, nullptr, 5},
    {HIER_OP_ALLTOALL, 6, "pairwise",
     "flat 1-factor exchange: p - 1 rounds for even p, p for odd p, one partner per round",
     build_pairwise_alltoall, fits_any, nullptr, 6, scale_pairwise},
    {HIER_OP_ALLTOALL, 7, "ring",
     "store-and-forward ring (textbook): p - 1 rounds, each process forwards to its neighbour "
     "what is left of the data",
     build_ring_alltoall, fits_any, nullptr, 0, scale_ring},
    {HIER_OP_ALLTOALL, 8, "ring2",
     "store-and-forward ring both ways round (textbook): half the data each way, "
     "ceil((p - 1) / 2) rounds",
     build_ring2_alltoall, fits_any, nullptr, 0, scale_ring2},
    {HIER_OP_ALLTOALL, 9, "mesh",
     "two-phase mesh (textbook) on an r x c grid of the ranks: a ring alltoall within rows, "
     "then within columns, r + c - 2 rounds",
     build_mesh_alltoall, fits_any, nullptr, 0, scale_mesh},
    {HIER_OP_ALLTOALL, 10, "xor",
     "1-factor exchange with partner j XOR i in round i (textbook), p - 1 rounds, p a power of two",
     build_xor_alltoall, xor_unfit, nullptr, 7, scale_xor},
    // auto weighs it with the time model, as every alltoall row; no rule.
    {HIER_OP_ALLTOALL, 11, "hypercube",
     "hypercube alltoall on the cost-aware embedding (coll_hier_hypercube_embedding): log p steps, each "
     "sending half the data",
     build_hypercube_alltoall, fits_any, nullptr, 0, nullptr, hypercube_detail},
    {HIER_OP_ALLTOALL, 12, "lg_overlap",
     "lg_at_once whose backbone exchanges begin at once with each process's own blocks, beside "
     "the local aggregation, and the blocks it carries follow: the backbone busy from the start, "
     "up to 4 max(n1, n2) messages per pair of clusters",
     build_lg_overlap_alltoall, lg_unfit, nullptr, 8, scale_lg_overlap},
    {HIER_OP_ALLTOALL, 13, "node_lg",
     "LG with each SMP node as its own group (node-level aggregation, the locality-aware alltoall): "
     "the node's ranks hand each other what they carry, then every pair of nodes of n1 <= n2 ranks "
     "exchanges 2 max(n1, n2) aggregated messages, all posted at once",
     build_node_lg_alltoall, node_lg_unfit, nullptr, 9, scale_node_lg},
    {HIER_OP_SCATTER, 2, "opt",
     "OPT (Mao, Chen and Watson) on a torus: one region per root link, equal sizes, furthest "
     "first; ceil((p - 1) / links) all-port steps",
     build_opt_scatter, torus_unfit, opt_scatter_declines},
    {HIER_OP_SCATTER, 3, "sdf",
     "SDF (Mao, Chen and Watson) on a torus: first come first served, shortest direction first; "
     "all-port, not optimal",
     build_sdf_scatter, torus_unfit, nullptr},
    {HIER_OP_GATHER, 2, "opt",
     "OPT (Mao, Chen and Watson) on a torus, reversed: one region per root link, equal sizes; "
     "ceil((p - 1) / links) all-port steps",
     build_opt_gather, torus_unfit, opt_gather_declines},
    {HIER_OP_GATHER, 3, "sdf",
     "SDF (Mao, Chen and Watson) on a torus, reversed: first come first served, shortest "
     "direction first; all-port, not optimal",
     build_sdf_gather, torus_unfit, nullptr},
    {HIER_OP_ALLGATHER, 2, "hypercube",
     "recursive doubling on the cost-aware hypercube embedding (Figueira and Janapa Reddi; "
     "coll_hier_hypercube_embedding), blocks placed in rank order",
     build_hypercube_allgather, fits_any, hypercube_declines_when_even, 0, nullptr, hypercube_detail},
    {HIER_OP_ALLREDUCE, 2, "hypercube",
     "recursive doubling on the cost-aware hypercube embedding (Figueira and Janapa Reddi; "
     "coll_hier_hypercube_embedding); commutative operations",
     build_hypercube_allreduce, fits_any, hypercube_allreduce_declines, 0, nullptr, hypercube_detail},
    {HIER_OP_BARRIER, 2, "hypercube",
     "hypercube barrier on the cost-aware embedding (Figueira and Janapa Reddi; "
     "coll_hier_hypercube_embedding)",
     build_hypercube_barrier, fits_any, hypercube_declines_when_even, 0, nullptr, hypercube_detail},
};

const char *const kOpNames[HIER_OP_COUNT] = {"alltoall", "scatter", "gather", "allgather", "allreduce", "barrier",
                                                "alltoallv"};

} // namespace

namespace {

// Per collective, its rows in table order and by id (id - 2).
struct RowsOfOp {
    std::vector<const Algorithm *> in_order;
    std::vector<const Algorithm *> by_id;
};

const std::array<RowsOfOp, HIER_OP_COUNT> &rows_by_op()
{
    static const auto rows = [] {
        std::array<RowsOfOp, HIER_OP_COUNT> rows;
        const auto add = [&rows](hier_op_t op, int id, const Algorithm &algorithm) {
            RowsOfOp &of = rows[op];
            of.in_order.push_back(&algorithm);
            if (of.by_id.size() < size_t(id - 1)) {
                of.by_id.resize(size_t(id - 1), nullptr);
            }
            of.by_id[size_t(id - 2)] = &algorithm;
        };
        for (const Algorithm &algorithm : kAlgorithms) {
            add(algorithm.op, algorithm.id, algorithm);
            if (algorithm.runs_alltoallv()) {
                add(HIER_OP_ALLTOALLV, algorithm.alltoallv_id, algorithm);
            }
        }
        return rows;
    }();
    return rows;
}

} // namespace

const std::vector<const Algorithm *> &algorithms_for(hier_op_t op)
{
    static const std::vector<const Algorithm *> none;
    return op >= 0 && op < HIER_OP_COUNT ? rows_by_op()[op].in_order : none;
}

int algorithm_id_count(hier_op_t op)
{
    return 2 + static_cast<int>(op >= 0 && op < HIER_OP_COUNT ? rows_by_op()[op].by_id.size() : 0);
}

const Algorithm *algorithm_by_id(hier_op_t op, int id)
{
    const int row = id - 2;
    return row >= 0 && row < algorithm_id_count(op) - 2 ? rows_by_op()[op].by_id[size_t(row)] : nullptr;
}

const char *algorithm_id_name(hier_op_t op, int id)
{
    if (id == HIER_ALG_AUTO) {
        return kAutoKeyword;
    }
    if (id == HIER_ALG_FALLBACK) {
        return kFallbackKeyword;
    }
    const Algorithm *algorithm = algorithm_by_id(op, id);
    return algorithm ? algorithm->name : nullptr;
}

const char *algorithm_id_description(hier_op_t op, int id)
{
    if (id == HIER_ALG_AUTO) {
        return "the row the time model predicts fastest, if it beats Open MPI's own by the margin; "
               "else the fallback";
    }
    if (id == HIER_ALG_FALLBACK) {
        return "the collective Open MPI would use without hier";
    }
    const Algorithm *algorithm = algorithm_by_id(op, id);
    return algorithm ? algorithm->description : nullptr;
}

Choice fallback(const char *reason, const Algorithm *unfit)
{
    Choice choice;
    choice.reason = reason;
    choice.unfit = unfit;
    return choice;
}

Choice pick(hier_op_t op, const Algorithm *algorithm)
{
    Choice choice;
    choice.algorithm = algorithm;
    choice.id = algorithm->id_for(op);
    return choice;
}

Choice choose_requested(hier_op_t op, int requested, const Topology &topology)
{
    if (requested == HIER_ALG_FALLBACK) {
        return fallback("requested");
    }
    const Algorithm *algorithm = algorithm_by_id(op, requested);
    if (!algorithm) {
        return fallback("unknown algorithm id");
    }
    if (const char *why = algorithm->unfit(topology)) {
        return fallback(why, algorithm);
    }
    return pick(op, algorithm);
}

const char *op_name(hier_op_t op)
{
    return op >= 0 && op < HIER_OP_COUNT ? kOpNames[op] : nullptr;
}

} // namespace hier
