/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/*
 * coll/hier: auto's trials on the application's calls: a common start for
 * each call, and its time handed to the core's trial, which after the
 * trial's last call agrees on the times through the glue's agreement and
 * concludes.
 *
 * A trial (hier_comm_decide) times its contenders on the application's own
 * calls. Timed from each rank's own entry, a call's time depends on how far
 * apart the ranks arrived, and by how much depends on the algorithm: on the
 * emulated torus at 4 KiB that timing had hypercube at 1.05 times Open
 * MPI's time where a common start had it at 0.89 (docs/tuning.md). So each
 * call of a trial starts as hier_bench -s clock starts an iteration: once
 * every rank has arrived, at one instant on every rank, and is timed from
 * that instant to the rank's exit; the trial takes the latest exit.
 *
 * The instant is on rank 0's clock. Each rank knows its clock's offset to
 * rank 0's, estimated at the trial's first call by ping-pongs, as SKaMPI and
 * ReproMPI synchronize clocks (offsets only: a trial lasts seconds, over
 * which clocks drift by microseconds):
 * - the processes of a node share a clock: only node leaders (the lowest
 *   rank of each node) measure, and share the result with one allreduce;
 * - each cluster's leader measures against rank 0 first, then each other
 *   node leader against its cluster's leader, which answers with rank 0's
 *   time: one pair per cluster crosses the backbone, and the clusters'
 *   ping-pongs run side by side.
 * A node leader's offset: the peer's time less the midpoint of the round
 * trip, from the shortest of the ping-pongs of mca_coll_hier_ping_pong, the
 * latency probe's (the one least delayed either way).
 *
 * Every call of the trial: one allreduce (the previous module's, MAX) of the
 * ranks' arrival instants on rank 0's clock and of how long after the last
 * arrival each rank had the previous such allreduce's result; the start is
 * the last arrival plus HIER_CLOCK_LEAD_FACTOR times that delay (at least
 * HIER_CLOCK_MIN_LEAD), and every rank sleeps until it. A rank that has the
 * result only after the start (late: it was not scheduled in time, on a
 * host with more processes than cores) counts its lateness in the call; the
 * next start leaves more lead. The first call measures that delay with one
 * more allreduce.
 *
 * Cost per trial: the ping-pong's 4 round trips for each of N - 1 node
 * leaders (N nodes; the C - 1 across the backbone in turn at rank 0, C
 * clusters) and one allreduce of N + 1 numbers; per call, one allreduce of
 * three numbers and the lead. Memory: N + 1 numbers at the trial's first
 * call.
 *
 * Without the previous module's allreduce (no other component provides
 * one), each rank times its call from its own entry, as before.
 */
#include "coll_hier.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "ompi/mca/coll/base/coll_tags.h"
#include "ompi/op/op.h"
#include "opal/util/output.h"

#define HIER_CLOCK_LEAD_FACTOR 3
#define HIER_CLOCK_MIN_LEAD 200e-6
/* The ping-pongs run within the alltoall's call, where no other message
 * of comm on this tag can be in flight. */
#define HIER_CLOCK_TAG MCA_COLL_BASE_TAG_BARRIER

/* Pings peer, which answers each ping with its time on rank 0's clock;
 * returns this clock's offset to rank 0's. Every trip counts. */
static int hier_clock_ping(struct ompi_communicator_t *comm, int peer, double *offset)
{
    double round_trip;
    return mca_coll_hier_ping_pong(comm, peer, HIER_CLOCK_TAG, true, 0, 0, &round_trip, offset);
}

/* Answers peer's pings with this rank's time on rank 0's clock. */
static int hier_clock_answer(struct ompi_communicator_t *comm, int peer, double offset)
{
    double round_trip, unused;
    return mca_coll_hier_ping_pong(comm, peer, HIER_CLOCK_TAG, false, 0, offset, &round_trip, &unused);
}

/* Whether rank leads its node. */
static bool hier_leads_node(const hier_comm_t *topology, int rank)
{
    return hier_comm_node_leader(topology, hier_comm_node_of(topology, rank)) == rank;
}

/* The lowest rank of rank's cluster. */
static int hier_cluster_leader(const hier_comm_t *topology, int rank)
{
    int r = 0;
    while (hier_comm_cluster_of(topology, r) != hier_comm_cluster_of(topology, rank)) {
        ++r;
    }
    return r;
}

/* A cluster leader answers the leaders of its cluster's other nodes; rank 0
 * first answers the other clusters' leaders. Each waiting leader is
 * answered even after another's exchange failed; the first failure is
 * returned. (Trials run on at most 128 ranks: the scans stay cheap.) */
static int hier_clock_answer_all(const hier_comm_t *topology, struct ompi_communicator_t *comm, double offset)
{
    const int rank = ompi_comm_rank(comm), size = ompi_comm_size(comm);
    int rc = OMPI_SUCCESS;

    for (int r = 1; 0 == rank && r < size; ++r) {
        if (hier_cluster_leader(topology, r) == r) {
            const int answered = hier_clock_answer(comm, r, offset);
            rc = OMPI_SUCCESS == rc ? answered : rc;
        }
    }
    for (int r = rank + 1; r < size; ++r) {
        if (hier_comm_cluster_of(topology, r) == hier_comm_cluster_of(topology, rank) && hier_leads_node(topology, r)) {
            const int answered = hier_clock_answer(comm, r, offset);
            rc = OMPI_SUCCESS == rc ? answered : rc;
        }
    }
    return rc;
}

/* A node leader's offset (0 at rank 0): it pings its cluster's leader, or
 * as a cluster's leader rank 0; then a cluster's leader answers, even after
 * its own ping failed (its leaders wait for it). */
static int hier_clock_lead_node(const hier_comm_t *topology, struct ompi_communicator_t *comm, double *offset)
{
    const int rank = ompi_comm_rank(comm), cluster_leader = hier_cluster_leader(topology, rank);
    int rc = OMPI_SUCCESS;

    *offset = 0;
    if (0 != rank) {
        rc = hier_clock_ping(comm, cluster_leader == rank ? 0 : cluster_leader, offset);
    }
    if (cluster_leader == rank) {
        const int answered = hier_clock_answer_all(topology, comm, *offset);
        rc = OMPI_SUCCESS == rc ? answered : rc;
    }
    return rc;
}

/* Every rank's offset to rank 0's clock: its node leader's, shared through
 * one allreduce with a flag that a ping-pong failed. */
static int hier_clock_synchronize(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm)
{
    const hier_comm_t *topology = module->topology;
    const int rank = ompi_comm_rank(comm), nodes = hier_comm_node_count(topology);
    const int node = hier_comm_node_of(topology, rank);
    const double start = mca_coll_hier_now();
    double *offsets = calloc((size_t) nodes + 1, sizeof(*offsets));
    int rc = OMPI_SUCCESS;

    if (NULL == offsets) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (hier_leads_node(topology, rank)) {
        rc = hier_clock_lead_node(topology, comm, &offsets[node]);
        offsets[nodes] = OMPI_SUCCESS != rc;
    }
    /* Every rank reaches the allreduce, even after a failed ping-pong. */
    rc = mca_coll_hier_agree(module, comm, offsets, nodes + 1, MPI_DOUBLE, MPI_SUM);
    if (OMPI_SUCCESS == rc && offsets[nodes] > 0) {
        rc = OMPI_ERROR;
    }
    module->trial_clock.offset = offsets[node];
    module->trial_clock.sync_seconds = mca_coll_hier_now() - start;
    free(offsets);
    return rc;
}

static void hier_sleep_until(double instant)
{
    const double whole = floor(instant);
    const struct timespec until = {(time_t) whole, (long) (1e9 * (instant - whole))};
    while (EINTR == clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL)) {
    }
}

/* One allreduce of {arrival, delay of the previous one's result, late at
 * the previous start}; returns the agreed start on rank 0's clock. */
static int hier_clock_agree(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm, double *start)
{
    const double offset = module->trial_clock.offset;
    double agreed[3] = {mca_coll_hier_now() + offset, module->trial_clock.result_delay, module->trial_clock.late};
    const int rc = mca_coll_hier_agree(module, comm, agreed, 3, MPI_DOUBLE, MPI_MAX);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    const double lead = fmax(HIER_CLOCK_MIN_LEAD, HIER_CLOCK_LEAD_FACTOR * agreed[1]);
    const double now = mca_coll_hier_now() + offset;
    module->trial_clock.starts_late += agreed[2] > 0;
    module->trial_clock.result_delay = now - agreed[0];
    *start = agreed[0] + lead;
    module->trial_clock.late = now > *start;
    return OMPI_SUCCESS;
}

int mca_coll_hier_trial_start(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm, int trial_call,
                              double *start)
{
    int rc = OMPI_SUCCESS;

    if (NULL == module->previous.allreduce) {
        *start = mca_coll_hier_now();
        return OMPI_SUCCESS;
    }
    if (0 == trial_call) {
        module->trial_clock.result_delay = 0;
        module->trial_clock.late = 0;
        rc = hier_clock_synchronize(module, comm);
        if (OMPI_SUCCESS == rc) {
            rc = hier_clock_agree(module, comm, start);
        }
        module->trial_clock.late = 0;
        module->trial_clock.starts_late = 0;
    }
    if (OMPI_SUCCESS == rc) {
        rc = hier_clock_agree(module, comm, start);
    }
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    *start -= module->trial_clock.offset;
    hier_sleep_until(*start);
    return OMPI_SUCCESS;
}

/* At verbose 2, how the trial that just ended timed its calls. */
static void hier_report_trial_timing(const mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                                     hier_op_t op, int calls)
{
    if (NULL == module->previous.allreduce) {
        opal_output_verbose(2, mca_coll_hier_component.output,
                            "coll:hier: %s on %s: the trial's calls were timed from each rank's own entry "
                            "(no previous module's allreduce to start them together)", hier_op_name(op),
                            comm->c_name);
        return;
    }
    opal_output_verbose(2, mca_coll_hier_component.output,
                        "coll:hier: %s on %s: the trial's calls started together, on clocks synchronized in "
                        "%.1f ms; %d of its first %d starts came late", hier_op_name(op), comm->c_name,
                        1e3 * module->trial_clock.sync_seconds, module->trial_clock.starts_late, calls - 1);
}

int mca_coll_hier_trial_record(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                               hier_op_t op, size_t block_bytes, int trial_call, double seconds)
{
    hier_decision_t decision;
    int outcome;

    if (!hier_comm_trial_record(module->topology, op, block_bytes, trial_call, seconds)) {
        return OMPI_SUCCESS;
    }
    outcome = hier_comm_trial_conclude(module->topology, op, block_bytes, &decision);
    if (HIER_TRIAL_EXTENDED == outcome) {
        if (0 == ompi_comm_rank(comm)) {  /* another round: said at verbose 2 */
            opal_output_verbose(2, mca_coll_hier_component.output, "coll:hier: %s on %s: %s",
                                hier_op_name(op), comm->c_name, hier_comm_predictions(module->topology));
        }
        return OMPI_SUCCESS;
    }
    if (0 == ompi_comm_rank(comm)) {
        hier_report_trial_timing(module, comm, op, trial_call + 1);
    }
    mca_coll_hier_report(module, comm, op, MCA_COLL_HIER_BLOCKING, &decision);
    return HIER_TRIAL_CONCLUDED == outcome ? OMPI_SUCCESS : OMPI_ERROR;
}
