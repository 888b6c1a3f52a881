/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The one table of algorithms. The component's MCA enums, auto selection and
// the docs are derived from it: adding an algorithm is adding a row, and
// auto (autoselect.h) weighs every row that applies with the time model.
#pragma once

#include <cstddef>
#include <vector>

#include "algorithms.h"
#include "hier_core.h"

namespace hier {

struct LinkCosts;
struct ScaleShape;

// The scale model's closed form for an alltoall row (scale_model.h):
// predicted seconds at `window` rounds in flight (at least 1).
using ScaleCost = double (*)(const ScaleShape &shape, size_t block_bytes, double window, const LinkCosts &machine);

struct Algorithm {
    hier_op_t op;
    // The row's id for its collective: the MCA enum's value, the number a
    // rules file and MPI_T name it by. Fixed once given (test_registry pins
    // every one); a new row takes the next free id.
    int id;
    const char *name;
    const char *description;
    Builder build;
    // Why the algorithm cannot run on this topology, or nullptr if it can.
    const char *(*unfit)(const Topology &topology);
    // auto's rule for the collectives the time model does not predict (all
    // but alltoall, whose auto weighs every row with the model): why auto
    // should not pick this row for this call, or nullptr if it should, on
    // every machine the link costs allow (link_costs.h: cost_corners). A
    // null function: auto never picks it by rule. The first row, in table
    // order, whose rule says yes is picked.
    const char *(*auto_declines)(const Topology &topology, const Plans &plans, size_t block_bytes,
                                 const std::vector<LinkCosts> &machines);
    // For an alltoall row that alltoallv runs too, its id there (0: not
    // run by alltoallv), fixed as `id` is. Its SEND and RECV regions are
    // single blocks (a user's variable blocks are not contiguous with each
    // other) and it writes each TMP block once (TMP is laid out from a first
    // pass over the blocks' sizes); the unit tests check both.
    int alltoallv_id = 0;
    // The scale model's closed form (alltoall rows only), or nullptr: the
    // row is not offered above the simulator's limit.
    ScaleCost scale_cost = nullptr;
    // What the verbose line adds about the algorithm on this topology (a
    // string kept by the plans), or nullptr; a null function: nothing.
    const char *(*detail)(const Topology &topology, const Plans &plans) = nullptr;

    bool runs_alltoallv() const { return alltoallv_id != 0; }
    // Its id for op (HIER_OP_ALLTOALLV: alltoallv_id).
    int id_for(hier_op_t call_op) const { return call_op == HIER_OP_ALLTOALLV ? alltoallv_id : id; }
};

// The rows for one collective, in table order (auto's order). Their ids
// are 2, 3, ... (each row's own): HIER_ALG_AUTO and HIER_ALG_FALLBACK
// come first.
const std::vector<const Algorithm *> &algorithms_for(hier_op_t op);
const Algorithm *algorithm_by_id(hier_op_t op, int id);
int algorithm_id_count(hier_op_t op);
const char *algorithm_id_name(hier_op_t op, int id);
const char *algorithm_id_description(hier_op_t op, int id);
const char *op_name(hier_op_t op);

// What runs for one call: an algorithm (with its id), or the fallback and
// why (a constant string).
struct Choice {
    int id = HIER_ALG_FALLBACK;
    const Algorithm *algorithm = nullptr;
    const char *reason = nullptr;         // why the fallback runs
    const Algorithm *unfit = nullptr;     // the requested algorithm, when it does not apply
};
// An algorithm asked for by id (not auto): it, or the fallback when it is
// `fallback`, unknown or does not apply. Allocates nothing: it runs at every call.
Choice choose_requested(hier_op_t op, int requested, const Topology &topology);
Choice pick(hier_op_t op, const Algorithm *algorithm);
Choice fallback(const char *reason, const Algorithm *unfit = nullptr);

} // namespace hier
