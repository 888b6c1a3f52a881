/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Helpers for the tests of the core's C face (hier_core.h): settings parsed
// from MCA values as the glue hands them over, and one call's decision.
#ifndef HIER_TEST_CAPI_HELPERS_H
#define HIER_TEST_CAPI_HELPERS_H

#include <memory>
#include <string>
#include <vector>

#include "hier_core.h"

namespace hier_test {

// Settings with hier in use on a job of one rank unless fill says otherwise,
// kept until the tests end (a communicator does not copy them).
template <class Fill>
const hier_settings_t *settings(Fill fill)
{
    static std::vector<std::unique_ptr<hier_settings_t, void (*)(hier_settings_t *)>> kept;
    hier_settings_input_t input{};
    input.world_size = 1;
    input.in_use = 1;
    fill(input);
    hier_settings_t *made = hier_settings_create(&input);
    kept.emplace_back(made, hier_settings_destroy);
    return made;
}

// Every problem line of settings, one per line.
inline std::string problems(const hier_settings_t *settings)
{
    std::string lines;
    int in_use_only;
    for (int i = 0; const char *line = hier_settings_problem(settings, i, &in_use_only); ++i) {
        lines += std::string(line) + "\n";
    }
    return lines;
}

// One call's decision, with its texts rendered as the glue renders them
// where it prints (verbose >= 1).
struct Decided {
    const hier_schedule_t *schedule;
    int chosen, window, trial_call;
    hier_reason_t code;
    std::string where, reason, predictions;
};

inline Decided explained(hier_comm_t *comm, hier_op_t op, const hier_decision_t &out, int verbose)
{
    Decided decided{out.schedule, out.chosen, out.window, out.trial_call, out.reason, "", "", hier_comm_predictions(comm)};
    if (verbose >= 1) {
        char where[192], reason[512];
        hier_comm_explain(comm, op, &out, where, sizeof where, reason, sizeof reason);
        decided.where = where;
        decided.reason = reason;
    }
    return decided;
}

inline Decided decide(hier_comm_t *comm, hier_op_t op, int requested, int root, size_t block_bytes,
                      int verbose = 2, const char *unsupported = nullptr, int nonblocking = 0)
{
    hier_decision_t out;
    hier_comm_decide(comm, op, requested, root, block_bytes, unsupported, nonblocking, verbose, &out);
    return explained(comm, op, out, verbose);
}

} // namespace hier_test

#endif // HIER_TEST_CAPI_HELPERS_H
