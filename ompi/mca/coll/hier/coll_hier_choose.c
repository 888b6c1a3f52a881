/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/*
 * coll/hier: the way of every blocking call, whatever the collective (its
 * descriptor says what differs): the topology gathered at the
 * communicator's first call (coll_hier_topology.c), one question to the
 * core's communicator (hier_comm_decide: a schedule or the fallback, with
 * what window and as which call of a trial), the trial's clock around the
 * call (coll_hier_measure.c), the run over the PML (coll_hier_transport.c)
 * or Open MPI's own. Also the question of a nonblocking or persistent call,
 * which never waits for the other ranks and never joins a trial
 * (coll_hier_request.c asks it once the topology is known), and rank 0's
 * verbose line of each decision.
 */
#include "coll_hier.h"

#include <stdio.h>
#include <string.h>

#include "opal/util/output.h"

/* Whether this call's verbose line for op may print: rank 0 of the
 * module's communicator, at verbose 1 its first line per form of a
 * collective, at 2 every changed one. */
static bool hier_will_report(const mca_coll_hier_module_t *module, hier_op_t op, mca_coll_hier_form_t form)
{
    const int verbose = mca_coll_hier_component.verbose;

    return verbose >= 1 && 0 == ompi_comm_rank(module->comm) && (verbose >= 2 || 0 == module->last_line_hash[form][op]);
}

/* FNV-1a of a line, never 0 (0 marks "no line yet"). */
static uint64_t hier_line_hash(const char *line)
{
    uint64_t hash = UINT64_C(14695981039346656037);

    for (; '\0' != *line; ++line) {
        hash = (hash ^ (unsigned char) *line) * UINT64_C(1099511628211);
    }
    return 0 == hash ? 1 : hash;
}

void mca_coll_hier_call_name(hier_op_t op, mca_coll_hier_form_t form, char *name, size_t len)
{
    snprintf(name, len, "%s%s%s", MCA_COLL_HIER_NONBLOCKING == form ? "i" : "", hier_op_name(op),
             MCA_COLL_HIER_PERSISTENT == form ? "_init" : "");
}

void mca_coll_hier_report(mca_coll_hier_module_t *module, hier_op_t op, mca_coll_hier_form_t form,
                          const hier_decision_t *decision)
{
    struct ompi_communicator_t *comm = module->comm;
    const mca_coll_hier_component_t *c = &mca_coll_hier_component;
    uint64_t *last = &module->last_line_hash[form][op], hash;
    const bool first = 0 == *last, known = MCA_COLL_HIER_TOPOLOGY_READY == module->topology_state;
    char line[MCA_COLL_HIER_LINE_MAX], name[32], where[192], reason[MCA_COLL_HIER_LINE_MAX];

    if (!hier_will_report(module, op, form)) {
        return;
    }
    if (known) {
        hier_comm_explain(module->topology, op, decision, where, sizeof(where), reason, sizeof(reason));
    } else {  /* no topology: "(size 10, 0 nodes)" */
        snprintf(where, sizeof(where), "size %d, 0 nodes", ompi_comm_size(comm));
        snprintf(reason, sizeof(reason), "%s", NULL != decision->phrase ? decision->phrase : "");
    }
    /* alltoall, ialltoall, alltoall_init */
    mca_coll_hier_call_name(op, form, name, sizeof(name));
    if (c->verbose >= 2 && known && '\0' != hier_comm_predictions(module->topology)[0]) {
        opal_output_verbose(2, c->output, "coll:hier: %s on %s (%s): %s", name, comm->c_name, where,
                            hier_comm_predictions(module->topology));
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
    hash = hier_line_hash(line);
    if (first || hash != *last) {
        opal_output_verbose(first ? 1 : 2, c->output, "%s", line);
        *last = hash;
    }
}

/* A call on a communicator whose topology could not be gathered: the
 * fallback, for the reason given. */
static void hier_cannot(const char *why, hier_decision_t *decision)
{
    decision->schedule = NULL;
    decision->chosen = HIER_ALG_FALLBACK;
    decision->trial_call = -1;
    decision->reason = HIER_REASON_FALLBACK;
    decision->phrase = why;
}

/* The schedule to run for one blocking call, or NULL for the fallback;
 * *trial_call: this call's index in its size class's trial, or -1. Gathers
 * the topology at the communicator's first call (or completes what a
 * nonblocking call started). */
static const hier_schedule_t *hier_choose(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                                          hier_op_t op, int root, size_t block_bytes, const char *unsupported,
                                          int *trial_call)
{
    hier_decision_t decision;

    *trial_call = -1;
    if (MCA_COLL_HIER_TOPOLOGY_UNKNOWN == module->topology_state ||
        MCA_COLL_HIER_TOPOLOGY_GATHERING == module->topology_state) {
        mca_coll_hier_gather_topology(module, comm);
    }
    if (MCA_COLL_HIER_TOPOLOGY_READY != module->topology_state) {
        hier_cannot(NULL != unsupported ? unsupported : module->topology_error, &decision);
    } else {
        hier_comm_decide(module->topology, op, module->algorithm[op], root, block_bytes, unsupported, 0,
                         hier_will_report(module, op, MCA_COLL_HIER_BLOCKING) ? mca_coll_hier_component.verbose : 0,
                         &decision);
        module->call_window = decision.window;
        *trial_call = decision.trial_call;
    }
    /* A trial runs its contenders in turn: its first call says so, its end
     * what it measured (hier_trial_end), none between. */
    if (*trial_call <= 0) {
        mca_coll_hier_report(module, op, MCA_COLL_HIER_BLOCKING, &decision);
    }
    return decision.schedule;
}

/* After a trial's call: its time to the core's trial; where that was the
 * trial's last call, the conclusion's verbose line. */
static int hier_trial_end(mca_coll_hier_module_t *module, hier_op_t op, size_t block_bytes, int trial_call, double seconds)
{
    hier_decision_t decision;
    const int outcome = mca_coll_hier_trial_record(module, op, block_bytes, trial_call, seconds, &decision);

    if (HIER_TRIAL_CONCLUDED == outcome || HIER_TRIAL_UNAGREED == outcome) {
        mca_coll_hier_report(module, op, MCA_COLL_HIER_BLOCKING, &decision);
    }
    return HIER_TRIAL_UNAGREED == outcome ? OMPI_ERROR : OMPI_SUCCESS;
}

int mca_coll_hier_blocking(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                           const mca_coll_hier_collective_t *collective, const mca_coll_hier_args_t *args,
                           size_t block_bytes, const char *unsupported)
{
    int trial_call, rc = OMPI_SUCCESS;
    double start = 0;
    const hier_schedule_t *schedule = hier_choose(module, comm, collective->op, args->root, block_bytes,
                                                  unsupported, &trial_call);

    if (trial_call >= 0) {
        rc = mca_coll_hier_trial_start(module, comm, trial_call, &start);
    }
    if (OMPI_SUCCESS == rc) {
        rc = NULL == schedule ? collective->previous(module, comm, args, NULL, MCA_COLL_HIER_BLOCKING, NULL)
                              : mca_coll_hier_call_blocking(module, comm, collective->tag, schedule,
                                                            collective->prepare, args);
    }
    if (OMPI_SUCCESS != rc || trial_call < 0) {
        return rc;
    }
    return hier_trial_end(module, collective->op, block_bytes, trial_call, mca_coll_hier_now() - start);
}

const hier_schedule_t *mca_coll_hier_choose_nonblocking(mca_coll_hier_module_t *module,
                                                        struct ompi_communicator_t *comm, hier_op_t op,
                                                        mca_coll_hier_form_t form, int root, size_t block_bytes,
                                                        const char *unsupported, int *window)
{
    hier_decision_t decision;
    char name[32];

    *window = module->window;
    mca_coll_hier_call_name(op, form, name, sizeof(name));
    mca_coll_hier_gather_topology_nonblocking(module, comm, name);
    if (MCA_COLL_HIER_TOPOLOGY_READY != module->topology_state) {
        hier_cannot(NULL != module->topology_error ? module->topology_error
                                                   : "the communicator's topology is being gathered",
                    &decision);
    } else {
        const int say = hier_will_report(module, op, form) ? mca_coll_hier_component.verbose : 0;
        hier_comm_decide(module->topology, op, module->algorithm[op], root, block_bytes, unsupported, 1, say,
                         &decision);
        *window = decision.window;
    }
    mca_coll_hier_report(module, op, form, &decision);
    return decision.schedule;
}
