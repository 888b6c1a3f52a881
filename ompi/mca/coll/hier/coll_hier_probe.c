/*
 * coll/hier latency probe: the one-way latency between every two nodes of a
 * communicator, measured once per communicator by ping-pongs between node
 * leaders (the lowest rank of each node), for the settings that ask for it
 * (coll_hier_cluster_map=probe, coll_hier_link_costs with probe).
 *
 * Leaders meet in the rounds of the 1-factorization of the complete graph
 * (the pairwise alltoall's pairing, from the core), so every pair meets once
 * and each leader talks to one partner at a time. A pair exchanges
 * HIER_PROBE_ROUND_TRIPS ping-pongs of 8 bytes; the first also opens the
 * connection (Open MPI connects lazily) and is not counted; the latency is
 * half the fastest of the others. Cost, the bound the verbose line reports
 * against: at most rounds * HIER_PROBE_ROUND_TRIPS round trips of the
 * slowest pair, rounds = N or N - 1 for N nodes, then one allreduce of the
 * N x N matrix. Memory: the N x N matrix (N nodes, not p ranks).
 */
#include "coll_hier.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ompi/mca/pml/pml.h"
#include "ompi/op/op.h"
#include "opal/util/output.h"

#define HIER_PROBE_ROUND_TRIPS 4

static double hier_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double) now.tv_sec + 1e-9 * (double) now.tv_nsec;
}

/* Ping-pongs with peer; the one that pings (first) measures and returns the
 * one-way latency, the other returns 0. */
static int hier_ping_pong(struct ompi_communicator_t *comm, int peer, int tag, bool pings,
                          double *latency)
{
    double best = -1, message = 0;
    int rc = OMPI_SUCCESS;

    for (int trip = 0; trip < HIER_PROBE_ROUND_TRIPS && OMPI_SUCCESS == rc; ++trip) {
        const double start = hier_now();
        if (pings) {
            rc = MCA_PML_CALL(send(&message, 1, MPI_DOUBLE, peer, tag, MCA_PML_BASE_SEND_STANDARD, comm));
            if (OMPI_SUCCESS == rc) {
                rc = MCA_PML_CALL(recv(&message, 1, MPI_DOUBLE, peer, tag, comm, MPI_STATUS_IGNORE));
            }
        } else {
            rc = MCA_PML_CALL(recv(&message, 1, MPI_DOUBLE, peer, tag, comm, MPI_STATUS_IGNORE));
            if (OMPI_SUCCESS == rc) {
                rc = MCA_PML_CALL(send(&message, 1, MPI_DOUBLE, peer, tag, MCA_PML_BASE_SEND_STANDARD, comm));
            }
        }
        const double round_trip = hier_now() - start;
        if (trip > 0 && (best < 0 || round_trip < best)) {
            best = round_trip;
        }
    }
    *latency = pings ? best / 2 : 0;
    return rc;
}

int mca_coll_hier_probe_latency(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                                const int *node_of_rank, int tag, double **matrix, int *node_count)
{
    const int size = ompi_comm_size(comm), rank = ompi_comm_rank(comm);
    int *leaders = malloc(size * sizeof(*leaders)), nodes = 0, me = -1, rc = OMPI_SUCCESS;
    const double start = hier_now();
    double *latency;

    *matrix = NULL;
    if (NULL == leaders || NULL == module->previous.allreduce) {
        free(leaders);
        return NULL == leaders ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_ERR_NOT_SUPPORTED;
    }
    /* Nodes numbered in the order of their lowest rank, as the core numbers them. */
    for (int r = 0; r < size; ++r) {
        bool seen = false;
        for (int n = 0; n < nodes && !seen; ++n) {
            seen = node_of_rank[leaders[n]] == node_of_rank[r];
        }
        if (!seen) {
            me = r == rank ? nodes : me;
            leaders[nodes++] = r;
        }
    }
    latency = calloc((size_t) nodes * nodes, sizeof(*latency));
    if (NULL == latency) {
        free(leaders);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (int round = 0; me >= 0 && round < hier_one_factor_rounds(nodes) && OMPI_SUCCESS == rc; ++round) {
        const int partner = hier_one_factor_partner(me, round, nodes);
        double one_way;
        if (partner == me) {
            continue;
        }
        rc = hier_ping_pong(comm, leaders[partner], tag, me < partner, &one_way);
        if (me < partner) {
            latency[me * nodes + partner] = latency[partner * nodes + me] = one_way;
        }
    }
    free(leaders);
    if (OMPI_SUCCESS == rc) {
        /* Each pair's latency was written by one leader, zeros elsewhere. */
        rc = module->previous.allreduce(MPI_IN_PLACE, latency, nodes * nodes, MPI_DOUBLE, MPI_MAX, comm,
                                        module->previous.allreduce_module);
    }
    if (OMPI_SUCCESS != rc) {
        free(latency);
        return rc;
    }
    if (0 == rank) {
        opal_output_verbose(1, mca_coll_hier_component.output,
                            "coll:hier: probed latency among %d nodes of %s in %.1f ms (%d rounds of "
                            "%d round trips)", nodes, comm->c_name, 1e3 * (hier_now() - start),
                            hier_one_factor_rounds(nodes), HIER_PROBE_ROUND_TRIPS);
    }
    *matrix = latency;
    *node_count = nodes;
    return OMPI_SUCCESS;
}
