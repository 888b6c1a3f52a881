/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/*
 * coll/hier measurements: what hier times over the PML on a communicator,
 * and the agreement that makes every rank hold the same figures. Two
 * users: the probes the time model weighs (the latency between nodes and a
 * message's cost, below), and auto's trials, whose calls start at one
 * instant on clocks this file synchronizes (further below). Both are paid
 * once, at the first call that needs them, within a collective call of the
 * communicator; both end in an agreement through the previous module's
 * allreduce (mca_coll_hier_agree), never hier's own.
 *
 * The probes.
 *
 *
 * The latency probe: the one-way latency between every two nodes of a
 * communicator, measured by ping-pongs between node leaders (the lowest rank
 * of each node), for the settings that ask for it (coll_hier_cluster_map=
 * probe, coll_hier_link_costs with probe, coll_hier_cost=probe). Once per
 * job: what it measured is kept (core/job_costs.cc) under the nodes'
 * job-wide names, one allreduce agrees on what the communicator's ranks
 * know, and only the pairs none of them knows are measured.
 *
 * Leaders (the core numbers the nodes and names them) ping every partner
 * at once: a pair exchanges HIER_PROBE_ROUND_TRIPS ping-pongs of 8 bytes,
 * every pair's trip in flight together; the first also opens the
 * connection (Open MPI connects lazily) and is not counted; the latency is
 * half the fastest of the others. Cost, the bound the verbose line reports
 * against: HIER_PROBE_ROUND_TRIPS trips, each as long as the slowest pair's
 * round trip plus a leader's N - 1 messages, then one allreduce of the
 * N x N matrix (and a flag). Memory: the N x N matrix and a few numbers per
 * node (N nodes, not p ranks).
 *
 * Both probes end in one allreduce that every rank reaches, even after a
 * failed send or receive, with a flag in it: every rank returns the same
 * outcome, so every rank then makes the same decisions.
 *
 * The message probe (coll_hier_link_costs with probe) measures what a
 * small message costs as a collective sees it: every rank busy at once
 * (sharing the cores, where a node has fewer than ranks), each with many
 * messages in flight. Every rank exchanges one 8-byte message each way with
 * every partner at once, first with its partners on its own node, then
 * with those on other nodes (partners, as the core names them: the ranks at
 * distance up to HIER_PROBE_REACH in rank order); the median exchange's
 * time over the messages it sent and received is the cost per message (a
 * latency's share included), which the model charges at each end. The
 * median of 7: of 3 it wandered by 2x from job to job on a host with more
 * ranks than cores; the fastest of 7 leaves out the waits for the cores,
 * which the collective pays too (docs/tuning.md, "Probed costs and the
 * margin"). Partners in another cluster are left
 * out: their exchange would time the backbone's latency, not the messages,
 * and the model charges the backbone the network's cost per message anyway.
 * Averaged over the ranks that have partners of the class. Cost: 2 classes
 * of HIER_MESSAGE_PROBE_TRIPS exchanges of at most 2 * HIER_PROBE_REACH
 * messages each way per rank, then one allreduce of six numbers; before
 * them, one allreduce of four that agrees on what earlier communicators
 * measured, which spares all of it where both classes are known. Memory:
 * the stack's.
 *
 * The trial clock.
 *
 * Auto's trials on the application's calls: a common start for each call,
 * and its time handed to the core's trial, which after the trial's last
 * call agrees on the times through the glue's agreement and concludes.
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
#include <string.h>
#include <time.h>

#include "ompi/mca/coll/base/coll_tags.h"
#include "ompi/mca/pml/pml.h"
#include "ompi/op/op.h"
#include "opal/util/output.h"

#define HIER_PROBE_ROUND_TRIPS 4
#define HIER_MESSAGE_PROBE_TRIPS 8
#define HIER_PROBE_REACH 8
#define HIER_CLOCK_LEAD_FACTOR 3
#define HIER_CLOCK_MIN_LEAD 200e-6
/* The ping-pongs run within the alltoall's call, where no other message
 * of comm on this tag can be in flight. */
#define HIER_CLOCK_TAG MCA_COLL_BASE_TAG_BARRIER

int mca_coll_hier_agree(const mca_coll_hier_module_t *module, void *values, int count,
                        struct ompi_datatype_t *dtype, struct ompi_op_t *op)
{
    if (NULL == module->previous.allreduce) {
        return OMPI_ERR_NOT_SUPPORTED;
    }
    return module->previous.allreduce(MPI_IN_PLACE, values, count, dtype, op, module->comm,
                                      module->previous.allreduce_module);
}

double mca_coll_hier_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double) now.tv_sec + 1e-9 * (double) now.tv_nsec;
}

int mca_coll_hier_ping_pong(struct ompi_communicator_t *comm, int peer, int tag, bool pings, int first_counted,
                            double answer_offset, double *round_trip, double *offset)
{
    double message = 0;
    int rc = OMPI_SUCCESS;

    *round_trip = INFINITY;
    *offset = 0;
    for (int trip = 0; trip < HIER_PROBE_ROUND_TRIPS && OMPI_SUCCESS == rc; ++trip) {
        const double sent = mca_coll_hier_now();
        if (pings) {
            rc = MCA_PML_CALL(send(&message, 1, MPI_DOUBLE, peer, tag, MCA_PML_BASE_SEND_STANDARD, comm));
            if (OMPI_SUCCESS == rc) {
                rc = MCA_PML_CALL(recv(&message, 1, MPI_DOUBLE, peer, tag, comm, MPI_STATUS_IGNORE));
            }
            const double back = mca_coll_hier_now();
            if (OMPI_SUCCESS == rc && trip >= first_counted && back - sent < *round_trip) {
                *round_trip = back - sent;
                *offset = message - 0.5 * (sent + back);
            }
        } else {
            rc = MCA_PML_CALL(recv(&message, 1, MPI_DOUBLE, peer, tag, comm, MPI_STATUS_IGNORE));
            message = mca_coll_hier_now() + answer_offset;
            if (OMPI_SUCCESS == rc) {
                rc = MCA_PML_CALL(send(&message, 1, MPI_DOUBLE, peer, tag, MCA_PML_BASE_SEND_STANDARD, comm));
            }
        }
    }
    return rc;
}

/* The leaders' ping-pongs, every pair at once: in each of
 * HIER_PROBE_ROUND_TRIPS trips a leader pings every partner above it whose
 * latency is unknown and answers the pings of those below, as they come;
 * the first trip also opens the connections and is not counted. The
 * latency of a pair is half its fastest counted round trip, written by the
 * lower leader. leaders[n]: node n's rank; me: this rank's node. */
static int hier_probe_pairs(struct ompi_communicator_t *comm, const int *leaders, int nodes, int me, int tag,
                            double *latency)
{
    double *sent = malloc(4 * (size_t) nodes * sizeof(*sent)), *best = sent + nodes, *in = best + nodes,
           *out = in + nodes;
    ompi_request_t **requests = malloc(2 * (size_t) nodes * sizeof(*requests)), **sends = requests + nodes;
    int rc = OMPI_SUCCESS;

    if (NULL == sent || NULL == requests) {
        free(sent);
        free(requests);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (int q = 0; q < nodes; ++q) {
        best[q] = INFINITY;
        out[q] = 0;
    }
    for (int trip = 0; trip < HIER_PROBE_ROUND_TRIPS && OMPI_SUCCESS == rc; ++trip) {
        int pending = 0;
        for (int q = 0; q < nodes; ++q) {
            requests[q] = sends[q] = &ompi_request_null.request;
            if (q == me || latency[me * nodes + q] > 0 || OMPI_SUCCESS != rc) {
                continue;
            }
            rc = MCA_PML_CALL(irecv(&in[q], 1, MPI_DOUBLE, leaders[q], tag, comm, &requests[q]));
            pending += OMPI_SUCCESS == rc;
        }
        for (int q = me + 1; q < nodes && OMPI_SUCCESS == rc; ++q) {
            if (latency[me * nodes + q] <= 0) {
                sent[q] = mca_coll_hier_now();
                rc = MCA_PML_CALL(isend(&out[q], 1, MPI_DOUBLE, leaders[q], tag, MCA_PML_BASE_SEND_STANDARD, comm,
                                        &sends[q]));
            }
        }
        for (; pending > 0 && OMPI_SUCCESS == rc; --pending) {
            int q;
            rc = ompi_request_wait_any(nodes, requests, &q, MPI_STATUS_IGNORE);
            if (OMPI_SUCCESS != rc || MPI_UNDEFINED == q) {
                break;
            }
            if (q > me) {
                const double round_trip = mca_coll_hier_now() - sent[q];
                best[q] = trip > 0 && round_trip < best[q] ? round_trip : best[q];
            } else {
                rc = MCA_PML_CALL(isend(&out[q], 1, MPI_DOUBLE, leaders[q], tag, MCA_PML_BASE_SEND_STANDARD, comm,
                                        &sends[q]));
            }
        }
        const int sent_rc = ompi_request_wait_all(nodes, sends, MPI_STATUSES_IGNORE);
        rc = OMPI_SUCCESS == rc ? sent_rc : rc;
    }
    for (int q = me + 1; q < nodes; ++q) {
        if (latency[me * nodes + q] <= 0 && isfinite(best[q])) {
            latency[me * nodes + q] = latency[q * nodes + me] = best[q] / 2;
        }
    }
    free(sent);
    free(requests);
    return rc;
}

int mca_coll_hier_probe_latency(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                                const int *node_of_rank, const int *job_node_of_rank, int tag, double **matrix,
                                int *node_count)
{
    const int size = ompi_comm_size(comm), rank = ompi_comm_rank(comm);
    /* leaders[n]: node n's lowest rank; job_nodes[n]: its job-wide name */
    int *leaders = malloc(2 * size * sizeof(*leaders)), *job_nodes = leaders + size, nodes, me = -1;
    int rc = OMPI_SUCCESS, unknown = 0;
    const double start = mca_coll_hier_now();
    double *latency;

    *matrix = NULL;
    if (NULL == leaders || NULL == module->previous.allreduce) {
        free(leaders);
        return NULL == leaders ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_ERR_NOT_SUPPORTED;
    }
    nodes = hier_node_leaders(size, node_of_rank, leaders);
    for (int n = 0; n < nodes; ++n) {
        me = leaders[n] == rank ? n : me;
        job_nodes[n] = job_node_of_rank[leaders[n]];
    }
    /* The matrix, then a flag: a leader whose ping-pongs failed says so. */
    latency = calloc((size_t) nodes * nodes + 1, sizeof(*latency));
    if (NULL == latency) {
        free(leaders);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    /* What earlier communicators measured, agreed first: every rank brings
     * the pairs it knows (the largest wins where two differ), and the pairs
     * no rank knows are the ones to probe, the same on every rank. */
    for (int a = 0; a < nodes; ++a) {
        for (int b = 0; b < nodes; ++b) {
            latency[a * nodes + b] = a == b ? 0 : hier_job_latency(job_nodes[a], job_nodes[b]);
        }
    }
    rc = mca_coll_hier_agree(module, latency, nodes * nodes, MPI_DOUBLE, MPI_MAX);
    if (OMPI_SUCCESS != rc) {
        free(leaders);
        free(latency);
        return rc;
    }
    for (int a = 0; a < nodes; ++a) {
        for (int b = a + 1; b < nodes; ++b) {
            unknown += latency[a * nodes + b] <= 0;
        }
    }
    if (0 == unknown) {
        if (0 == rank) {
            opal_output_verbose(2, mca_coll_hier_component.output,
                                "coll:hier: latency among %d nodes of %s known from earlier communicators: "
                                "no probe", nodes, comm->c_name);
        }
        free(leaders);
        *matrix = latency;
        *node_count = nodes;
        return OMPI_SUCCESS;
    }
    if (me >= 0) {
        rc = hier_probe_pairs(comm, leaders, nodes, me, tag, latency);
    }
    /* Every rank reaches the allreduce, even after a failed ping-pong, and
     * every rank then returns the same outcome. Each new pair's latency was
     * written by one leader, zeros elsewhere; the known ones are alike on
     * every rank. */
    latency[nodes * nodes] = OMPI_SUCCESS != rc;
    rc = mca_coll_hier_agree(module, latency, nodes * nodes + 1, MPI_DOUBLE, MPI_MAX);
    if (OMPI_SUCCESS != rc || latency[nodes * nodes] > 0) {
        free(leaders);
        free(latency);
        return OMPI_SUCCESS != rc ? rc : OMPI_ERROR;
    }
    hier_job_latencies_store(nodes, job_nodes, latency);
    free(leaders);
    if (0 == rank) {
        const int pairs = nodes * (nodes - 1) / 2;
        char known[96] = "";
        if (unknown < pairs) {
            snprintf(known, sizeof(known), "; %d of %d pairs, the others known from earlier communicators",
                     unknown, pairs);
        }
        opal_output_verbose(1, mca_coll_hier_component.output,
                            "coll:hier: probed latency among %d nodes of %s in %.1f ms (%d round trips of "
                            "every pair at once%s)", nodes, comm->c_name, 1e3 * (mca_coll_hier_now() - start),
                            HIER_PROBE_ROUND_TRIPS, known);
    }
    *matrix = latency;
    *node_count = nodes;
    return OMPI_SUCCESS;
}

/* HIER_MESSAGE_PROBE_TRIPS exchanges of one 8-byte message each way with
 * every partner at once (the first opens the connections and is not
 * counted); the median exchange's time over the messages sent and
 * received. */
static int hier_probe_exchange(struct ompi_communicator_t *comm, const int *partners, int count, int tag,
                               double *per_message)
{
    double sent = 0, received[2 * HIER_PROBE_REACH], times[HIER_MESSAGE_PROBE_TRIPS] = {0};
    ompi_request_t *requests[4 * HIER_PROBE_REACH];
    int rc = OMPI_SUCCESS;

    for (int trip = 0; trip < HIER_MESSAGE_PROBE_TRIPS && OMPI_SUCCESS == rc; ++trip) {
        const double start = mca_coll_hier_now();
        int posted = 0;
        for (int i = 0; i < count && OMPI_SUCCESS == rc; ++i) {
            rc = MCA_PML_CALL(irecv(&received[i], 1, MPI_DOUBLE, partners[i], tag, comm, &requests[posted]));
            posted += OMPI_SUCCESS == rc;
        }
        for (int i = 0; i < count && OMPI_SUCCESS == rc; ++i) {
            rc = MCA_PML_CALL(isend(&sent, 1, MPI_DOUBLE, partners[i], tag, MCA_PML_BASE_SEND_STANDARD, comm,
                                    &requests[posted]));
            posted += OMPI_SUCCESS == rc;
        }
        const int waited = ompi_request_wait_all(posted, requests, MPI_STATUSES_IGNORE);
        rc = OMPI_SUCCESS == rc ? waited : rc;
        times[trip] = mca_coll_hier_now() - start;
    }
    /* The median of the counted trips (insertion sort of 7). */
    for (int i = 2; i < HIER_MESSAGE_PROBE_TRIPS; ++i) {
        for (int j = i; j > 1 && times[j - 1] > times[j]; --j) {
            const double t = times[j];
            times[j] = times[j - 1];
            times[j - 1] = t;
        }
    }
    *per_message = times[HIER_MESSAGE_PROBE_TRIPS / 2] / (2 * count);
    return rc;
}

int mca_coll_hier_probe_messages(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm, int tag,
                                 double per_message[2])
{
    const int rank = ompi_comm_rank(comm);
    const double start = mca_coll_hier_now();
    /* {sum over ranks with node partners, their count, the same for the
     * network, ranks that left partners in other clusters out, ranks whose
     * exchange failed} */
    double sums[6] = {0, 0, 0, 0, 0, 0};
    int rc = OMPI_SUCCESS, partners[2][2 * HIER_PROBE_REACH], count[2], left_out[2];
    /* {what this rank knows of each class from earlier communicators, -1 if
     * nothing; whether it has partners of each class} */
    double known[4];

    if (NULL == module->previous.allreduce) {
        return OMPI_ERR_NOT_SUPPORTED;
    }
    for (int link_class = 0; link_class < 2; ++link_class) {
        count[link_class] = hier_comm_probe_partners(module->topology, rank, link_class, HIER_PROBE_REACH,
                                                     partners[link_class], &left_out[link_class]);
        known[link_class] = hier_job_message_cost(link_class);
        known[2 + link_class] = count[link_class] > 0;
    }
    /* Agreed first (the largest wins where two ranks know different costs):
     * a class some rank has partners of and no rank knows is measured. */
    rc = mca_coll_hier_agree(module, known, 4, MPI_DOUBLE, MPI_MAX);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if ((known[0] >= 0 || 0 == known[2]) && (known[1] >= 0 || 0 == known[3])) {
        for (int c = 0; c < 2; ++c) {
            per_message[c] = known[2 + c] > 0 ? known[c] : -1;
        }
        if (0 == rank) {
            opal_output_verbose(2, mca_coll_hier_component.output,
                                "coll:hier: cost per message on %s known from earlier communicators: no probe",
                                comm->c_name);
        }
        return OMPI_SUCCESS;
    }
    for (int link_class = 0; link_class < 2 && OMPI_SUCCESS == rc; ++link_class) {
        double mine;
        sums[4] += left_out[link_class] > 0;
        if (count[link_class] > 0) {
            rc = hier_probe_exchange(comm, partners[link_class], count[link_class], tag, &mine);
            sums[2 * link_class] += mine;
            sums[2 * link_class + 1] += 1;
        }
    }
    /* Every rank reaches the allreduce and returns the same outcome. */
    sums[5] = OMPI_SUCCESS != rc;
    rc = mca_coll_hier_agree(module, sums, 6, MPI_DOUBLE, MPI_SUM);
    if (OMPI_SUCCESS != rc || sums[5] > 0) {
        return OMPI_SUCCESS != rc ? rc : OMPI_ERROR;
    }
    for (int c = 0; c < 2; ++c) {
        per_message[c] = sums[2 * c + 1] > 0 ? sums[2 * c] / sums[2 * c + 1] : -1;
        hier_job_message_cost_store(c, per_message[c]);
    }
    if (0 == rank) {
        char measured[2][48];
        for (int c = 0; c < 2; ++c) {
            if (per_message[c] < 0) {
                snprintf(measured[c], sizeof(measured[c]), "none (no rank has such partners)");
            } else {
                snprintf(measured[c], sizeof(measured[c]), "%.1f us (%.0f ranks measured)", 1e6 * per_message[c],
                         sums[2 * c + 1]);
            }
        }
        opal_output_verbose(1, mca_coll_hier_component.output,
                            "coll:hier: probed the cost per message on %s in %.1f ms: within a node %s, "
                            "between nodes %s; partners in other clusters left out by %.0f ranks", comm->c_name,
                            1e3 * (mca_coll_hier_now() - start), measured[0], measured[1], sums[4]);
    }
    return OMPI_SUCCESS;
}

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
    rc = mca_coll_hier_agree(module, offsets, nodes + 1, MPI_DOUBLE, MPI_SUM);
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
    const int rc = mca_coll_hier_agree(module, agreed, 3, MPI_DOUBLE, MPI_MAX);
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

int mca_coll_hier_trial_record(mca_coll_hier_module_t *module, hier_op_t op, size_t block_bytes, int trial_call, double seconds,
                               hier_decision_t *concluded)
{
    struct ompi_communicator_t *comm = module->comm;
    int outcome;

    if (!hier_comm_trial_record(module->topology, op, block_bytes, trial_call, seconds)) {
        return HIER_TRIAL_EXTENDED;
    }
    outcome = hier_comm_trial_conclude(module->topology, op, block_bytes, concluded);
    if (0 != ompi_comm_rank(comm)) {
        return outcome;
    }
    if (HIER_TRIAL_EXTENDED == outcome) {  /* another round: said at verbose 2 */
        opal_output_verbose(2, mca_coll_hier_component.output, "coll:hier: %s on %s: %s", hier_op_name(op),
                            comm->c_name, hier_comm_predictions(module->topology));
    } else {
        hier_report_trial_timing(module, comm, op, trial_call + 1);
    }
    return outcome;
}
