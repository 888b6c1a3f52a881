/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/*
 * coll/hier per-call entry, shared by the collectives: one question to the
 * core's communicator (hier_comm_decide) answers whether this call runs a
 * schedule or falls back, with what window, as which call of a trial, and
 * whether its size class now falls back for good; and rank 0 prints the
 * verbose line of the decision. A nonblocking or persistent call asks
 * without waiting for the other ranks: the first one starts gathering the
 * topology (coll_hier_topology.c) and falls back; it never joins a trial.
 */
#include "coll_hier.h"

#include <stdio.h>
#include <string.h>

#include "opal/util/output.h"

/* Whether this call's verbose line for op may print: rank 0, at verbose 1
 * its first line per form of a collective, at 2 every changed one. */
static bool hier_will_report(const mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                             hier_op_t op, mca_coll_hier_form_t form)
{
    const int verbose = mca_coll_hier_component.verbose;

    return verbose >= 1 && 0 == ompi_comm_rank(comm) &&
           (verbose >= 2 || '\0' == module->last_line[form][op][0]);
}

/* A call's name in verbose lines: alltoall, ialltoall, alltoall_init. */
static void hier_call_name(hier_op_t op, mca_coll_hier_form_t form, char *name, size_t len)
{
    snprintf(name, len, "%s%s%s", MCA_COLL_HIER_NONBLOCKING == form ? "i" : "", hier_op_name(op),
             MCA_COLL_HIER_PERSISTENT == form ? "_init" : "");
}

void mca_coll_hier_report(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm, hier_op_t op,
                          mca_coll_hier_form_t form, const hier_decision_t *decision)
{
    const mca_coll_hier_component_t *c = &mca_coll_hier_component;
    char *last = module->last_line[form][op];
    const bool first = '\0' == last[0];
    char line[MCA_COLL_HIER_LINE_MAX], name[32];
    const char *reason = decision->reason, *where = decision->where;

    if (!hier_will_report(module, comm, op, form)) {
        return;
    }
    /* alltoall, ialltoall, alltoall_init */
    hier_call_name(op, form, name, sizeof(name));
    if (c->verbose >= 2 && '\0' != decision->predictions[0]) {
        opal_output_verbose(2, c->output, "coll:hier: %s on %s (%s): %s", name, comm->c_name, where,
                            decision->predictions);
    }
    if (HIER_ALG_FALLBACK == decision->chosen) {
        snprintf(line, sizeof(line), "coll:hier: %s on %s (%s): fallback (%s)", name, comm->c_name, where, reason);
    } else if ('\0' != reason[0]) {
        snprintf(line, sizeof(line), "coll:hier: %s on %s (%s): %s (%s)", name, comm->c_name, where,
                 hier_algorithm_name(op, decision->chosen), reason);
    } else {
        snprintf(line, sizeof(line), "coll:hier: %s on %s (%s): %s", name, comm->c_name, where,
                 hier_algorithm_name(op, decision->chosen));
    }
    if (first || 0 != strcmp(line, last)) {
        opal_output_verbose(first ? 1 : 2, c->output, "%s", line);
        strcpy(last, line);
    }
}

/* block_bytes' size class as a bit of settled_fallback. */
static uint64_t hier_size_class_bit(size_t block_bytes)
{
    return UINT64_C(1) << hier_size_class(block_bytes);
}

/* A call on a communicator whose topology could not be gathered: the
 * fallback, for the reason given. */
static void hier_cannot(struct ompi_communicator_t *comm, const char *why, hier_decision_t *decision)
{
    decision->schedule = NULL;
    decision->chosen = HIER_ALG_FALLBACK;
    decision->trial_call = -1;
    /* No topology: "(size 10, 0 nodes)". */
    snprintf(decision->where, sizeof(decision->where), "size %d, 0 nodes", ompi_comm_size(comm));
    snprintf(decision->reason, sizeof(decision->reason), "%s", why);
    decision->predictions[0] = '\0';
}

const hier_schedule_t *mca_coll_hier_choose_or_measure(mca_coll_hier_module_t *module,
                                                       struct ompi_communicator_t *comm,
                                                       hier_op_t op, int root, size_t block_bytes,
                                                       const char *unsupported, int *trial_call)
{
    const int verbose = mca_coll_hier_component.verbose;
    hier_decision_t decision;

    *trial_call = -1;
    if (NULL == unsupported && 0 != (module->settled_fallback[op] & hier_size_class_bit(block_bytes))) {
        return NULL;
    }
    mca_coll_hier_gather_topology(module, comm);
    if (MCA_COLL_HIER_TOPOLOGY_READY != module->topology_state) {
        hier_cannot(comm, NULL != unsupported ? unsupported : module->topology_error, &decision);
        /* Gathering failed for good: so does every call. */
        decision.settled = NULL == unsupported;
    } else {
        /* The texts only where a line will print (rank 0; at verbose 1 its
         * first line per collective): elsewhere they would cost every call an
         * allocation. The verbosity selects texts, never the decision. */
        const int say = hier_will_report(module, comm, op, MCA_COLL_HIER_BLOCKING) ? verbose : 0;
        hier_comm_decide(module->topology, op, module->algorithm[op], root, block_bytes, unsupported, 0, say,
                         &decision);
        module->call_window = decision.window;
        *trial_call = decision.trial_call;
    }
    /* A trial runs its contenders in turn: its first call says so, its end
     * what it measured (mca_coll_hier_trial_record), none between. */
    if (*trial_call <= 0) {
        mca_coll_hier_report(module, comm, op, MCA_COLL_HIER_BLOCKING, &decision);
    }
    /* At verbose 2 every call still asks, as each one may print a changed line. */
    if (decision.settled && verbose < 2) {
        module->settled_fallback[op] |= hier_size_class_bit(block_bytes);
    }
    return decision.schedule;
}

const hier_schedule_t *mca_coll_hier_choose(mca_coll_hier_module_t *module,
                                            struct ompi_communicator_t *comm,
                                            hier_op_t op, int root, size_t block_bytes,
                                            const char *unsupported)
{
    int trial_call;
    /* Only the alltoall's auto measures. */
    return mca_coll_hier_choose_or_measure(module, comm, op, root, block_bytes, unsupported, &trial_call);
}

const hier_schedule_t *mca_coll_hier_choose_nonblocking(mca_coll_hier_module_t *module,
                                                        struct ompi_communicator_t *comm, hier_op_t op,
                                                        mca_coll_hier_form_t form, int root, size_t block_bytes,
                                                        const char *unsupported, int *window)
{
    hier_decision_t decision;
    char name[32];
    bool takes_over;

    *window = module->window;
    hier_call_name(op, form, name, sizeof(name));
    takes_over = mca_coll_hier_gather_topology_nonblocking(module, comm, name);
    if (MCA_COLL_HIER_TOPOLOGY_READY != module->topology_state) {
        hier_cannot(comm, module->topology_error, &decision);
    } else {
        const int say = hier_will_report(module, comm, op, form) ? mca_coll_hier_component.verbose : 0;
        hier_comm_decide(module->topology, op, module->algorithm[op], root, block_bytes, unsupported, 1, say,
                         &decision);
        *window = decision.window;
        /* Said whatever the verbose line of this form said before. */
        if (takes_over && 0 == ompi_comm_rank(comm)) {
            opal_output_verbose(1, mca_coll_hier_component.output, "coll:hier: takes over %s on %s from this call: %s",
                                name, comm->c_name, hier_algorithm_name(op, decision.chosen));
        }
    }
    mca_coll_hier_report(module, comm, op, form, &decision);
    return decision.schedule;
}
