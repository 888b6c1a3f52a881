// The algorithm table and selection from it.
#include "registry.h"

#include <algorithm>
#include <array>
#include <iterator>

#include "algorithms.h"
#include "hypercube.h"

namespace hier {

namespace {

const char *fits_any(const Topology &) { return nullptr; }

const char *picks_whenever_fit(const Topology &, size_t) { return nullptr; }

const char *declines_single_node(const Topology &topology, size_t)
{
    return topology.node_count() > 1 ? nullptr : "all ranks on one node";
}

// The hypercube collectives: auto picks them only where the embedding's
// calc_cost beats the blind embedding's by kHypercubeMinGain (hypercube.h),
// and, for the data-moving ones, only for small messages: the recursive-
// doubling pattern sends the whole vector log p times, where Open MPI's own
// ring and Rabenseifner allreduce send about twice the vector in all, and
// its ring allgather moves the same volume with neighbours that share a
// node; past a few KiB bandwidth wins over the latency the embedding
// saves, and the allgather's TMP placement costs memory bandwidth too.
constexpr size_t kHypercubeAllreduceMaxBytes = 4096;    // the vector
constexpr size_t kHypercubeAllgatherMaxBytes = 32768;   // p blocks

const char *hypercube_detail(const Topology &topology)
{
    return topology.hypercube().summary.c_str();
}

const char *hypercube_too_even(const Topology &topology)
{
    const std::string &why = topology.hypercube().too_even;
    return why.empty() ? nullptr : why.c_str();
}

const char *hypercube_barrier_declines(const Topology &topology, size_t)
{
    return hypercube_too_even(topology);
}

const char *hypercube_allreduce_declines(const Topology &topology, size_t block_bytes)
{
    return block_bytes > kHypercubeAllreduceMaxBytes ? "vector above 4 KiB: Open MPI's own allreduce moves less"
                                                     : hypercube_too_even(topology);
}

const char *hypercube_allgather_declines(const Topology &topology, size_t block_bytes)
{
    return block_bytes * size_t(topology.size()) > kHypercubeAllgatherMaxBytes
               ? "result above 32 KiB: Open MPI's own allgather does as well with fewer copies"
               : hypercube_too_even(topology);
}

const Algorithm kAlgorithms[] = {
    {HIER_OP_ALLTOALL, "lg",
     "LG (Jeannot and Steffenel) for two clusters joined by a slow backbone: local "
     "aggregation, then ceil(n2/n1) backbone steps of 2 max(n1, n2) messages in all",
     build_lg_alltoall, lg_unfit, picks_whenever_fit},
    {HIER_OP_ALLTOALL, "factor",
     "hierarchical factor algorithm (Sanders and Traeff): single-ported per node, for SMP nodes "
     "of any sizes",
     build_factor_alltoall, fits_any, declines_single_node},
    {HIER_OP_ALLTOALL, "edgecolor",
     "single-port alltoall in as many steps as the busiest NIC has inter-node messages (edge "
     "colouring); intra-node messages at once through shared memory",
     build_edgecolor_alltoall, edgecolor_unfit, nullptr},
    {HIER_OP_ALLTOALL, "pairwise",
     "flat 1-factor exchange: p - 1 rounds for even p, p for odd p, one partner per round",
     build_pairwise_alltoall, fits_any, nullptr},
    // auto never picks it: calc_cost compares embeddings of one pattern, not
    // the hypercube's (p/2) log p blocks against factor's p - 1 steps.
    {HIER_OP_ALLTOALL, "hypercube",
     "hypercube alltoall on the cost-aware embedding (coll_hier_hypercube_embedding): log p steps, each "
     "sending half the data",
     build_hypercube_alltoall, fits_any, nullptr, hypercube_detail},
    {HIER_OP_ALLGATHER, "hypercube",
     "recursive doubling on the cost-aware hypercube embedding (Figueira and Janapa Reddi; "
     "coll_hier_hypercube_embedding), blocks placed in rank order",
     build_hypercube_allgather, fits_any, hypercube_allgather_declines, hypercube_detail},
    {HIER_OP_ALLREDUCE, "hypercube",
     "recursive doubling on the cost-aware hypercube embedding (Figueira and Janapa Reddi; "
     "coll_hier_hypercube_embedding); commutative operations",
     build_hypercube_allreduce, fits_any, hypercube_allreduce_declines, hypercube_detail},
    {HIER_OP_BARRIER, "hypercube",
     "hypercube barrier on the cost-aware embedding (Figueira and Janapa Reddi; "
     "coll_hier_hypercube_embedding)",
     build_hypercube_barrier, fits_any, hypercube_barrier_declines, hypercube_detail},
};

const char *const kOpNames[HIER_OP_COUNT] = {"alltoall", "scatter", "gather", "allgather", "allreduce", "barrier"};

} // namespace

const std::vector<const Algorithm *> &algorithms_for(hier_op_t op)
{
    static const auto rows_by_op = [] {
        std::array<std::vector<const Algorithm *>, HIER_OP_COUNT> rows;
        for (const Algorithm &algorithm : kAlgorithms) {
            rows[algorithm.op].push_back(&algorithm);
        }
        return rows;
    }();
    static const std::vector<const Algorithm *> none;
    return op >= 0 && op < HIER_OP_COUNT ? rows_by_op[op] : none;
}

int algorithm_id_count(hier_op_t op)
{
    return 2 + static_cast<int>(algorithms_for(op).size());
}

const Algorithm *algorithm_by_id(hier_op_t op, int id)
{
    const auto &rows = algorithms_for(op);
    const int row = id - 2;
    return row >= 0 && row < static_cast<int>(rows.size()) ? rows[row] : nullptr;
}

const char *algorithm_id_name(hier_op_t op, int id)
{
    if (id == HIER_ALG_AUTO) {
        return "auto";
    }
    if (id == HIER_ALG_FALLBACK) {
        return "fallback";
    }
    const Algorithm *algorithm = algorithm_by_id(op, id);
    return algorithm ? algorithm->name : nullptr;
}

const char *algorithm_id_description(hier_op_t op, int id)
{
    if (id == HIER_ALG_AUTO) {
        return "choose from the topology and the message size";
    }
    if (id == HIER_ALG_FALLBACK) {
        return "the collective Open MPI would use without hier";
    }
    const Algorithm *algorithm = algorithm_by_id(op, id);
    return algorithm ? algorithm->description : nullptr;
}

namespace {

Choice fallback(const char *reason, const Algorithm *unfit = nullptr)
{
    Choice choice;
    choice.reason = reason;
    choice.unfit = unfit;
    return choice;
}

Choice pick(hier_op_t op, const Algorithm *algorithm)
{
    const auto &rows = algorithms_for(op);
    Choice choice;
    choice.algorithm = algorithm;
    choice.id = 2 + static_cast<int>(std::distance(rows.begin(), std::find(rows.begin(), rows.end(), algorithm)));
    return choice;
}

Choice choose_auto(hier_op_t op, const Topology &topology, size_t block_bytes)
{
    const char *first_reason = nullptr;
    for (const Algorithm *algorithm : algorithms_for(op)) {
        if (!algorithm->auto_declines || algorithm->unfit(topology)) {
            continue;
        }
        const char *declined = algorithm->auto_declines(topology, block_bytes);
        if (!declined) {
            return pick(op, algorithm);
        }
        first_reason = first_reason ? first_reason : declined;
    }
    return fallback(first_reason ? first_reason : "no hier algorithm suits this communicator");
}

} // namespace

Choice choose(hier_op_t op, int requested, const Topology &topology, size_t block_bytes)
{
    if (requested == HIER_ALG_AUTO) {
        return choose_auto(op, topology, block_bytes);
    }
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
