/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/*
 * coll/hier topology: what the core's communicator is built from, gathered
 * at the first call that needs it, through the previous module's
 * collectives (never hier's own): every rank's node and rank in
 * MPI_COMM_WORLD, host names for a cluster map of host patterns, the
 * probes' measurements where the settings ask for them, and the ranks'
 * agreement on the cost file and the rules file. Also the agreement the
 * core may ask for later (one allreduce, MAX).
 */
#include "coll_hier.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opal/util/proc.h"
#include "ompi/group/group.h"
#include "ompi/mca/coll/base/coll_tags.h"
#include "ompi/mca/topo/topo.h"
#include "ompi/proc/proc.h"

/* The lowest rank of comm on this process's node. Processes Open MPI has not
 * instantiated yet are remote: it creates every local one at MPI_Init. */
static int hier_node_leader(struct ompi_communicator_t *comm)
{
    const int rank = ompi_comm_rank(comm);

    for (int i = 0; i < rank; ++i) {
        ompi_proc_t *proc = ompi_group_get_proc_ptr_raw(comm->c_local_group, i);
        if (!ompi_proc_is_sentinel(proc) && OPAL_PROC_ON_LOCAL_NODE(proc->super.proc_flags)) {
            return i;
        }
    }
    return rank;
}

/* This process's node, named alike on every communicator: with a node map,
 * the map's node; else the lowest rank of MPI_COMM_WORLD on this host. What
 * the probes measured is kept for the job under these names. */
static int hier_job_node(void)
{
    static int job_node = -1;
    int node;

    if (hier_settings_node_map(mca_coll_hier_component.settings, ompi_comm_rank(&ompi_mpi_comm_world.comm),
                               &node)) {
        return node;
    }
    if (job_node < 0) {
        job_node = hier_node_leader(&ompi_mpi_comm_world.comm);
    }
    return job_node;
}

/* The core's agreement (hier_comm_input_t.agree_max): values become their
 * maximum over the module's communicator, through the previous module's
 * allreduce. */
static int hier_agree_max(void *ctx, double *values, int count)
{
    mca_coll_hier_module_t *module = ctx;

    if (NULL == module->previous.allreduce) {
        return OMPI_ERR_NOT_SUPPORTED;
    }
    return module->previous.allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_MAX, module->comm,
                                      module->previous.allreduce_module);
}

/* With costs from a file, whether every rank of comm built its topology:
 * if one could not, none uses it, and the others say why. Collective over
 * comm. */
static int hier_agree_on_cost_file(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                                   const char *cost_file, char *error, size_t errlen,
                                   hier_comm_failure_t *failure)
{
    int mine = NULL != module->topology, everyone = 0, rc;

    if (NULL == module->previous.allreduce) {
        rc = OMPI_ERR_NOT_SUPPORTED;
    } else {
        rc = module->previous.allreduce(&mine, &everyone, 1, MPI_INT, MPI_MIN, comm,
                                        module->previous.allreduce_module);
    }
    if (mine && (OMPI_SUCCESS != rc || !everyone)) {
        hier_comm_destroy(module->topology);
        module->topology = NULL;
        snprintf(error, errlen, "coll_hier_cost \"%s\" could not be used on every rank", cost_file);
        failure->reason = "invalid coll_hier_cost";
        failure->reported = 0;
    }
    return rc;
}

/* With a rules file, whether every rank of comm read the same rules (a
 * file not on every node's file system, or different there): if not, the
 * communicator ignores them, reported by its rank 0. Collective over comm. */
static int hier_agree_on_rules(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm, int *agreed)
{
    long long hash;
    long extremes[2];
    int rc;

    *agreed = 0;
    if (!hier_settings_rules(mca_coll_hier_component.settings, &hash)) {
        return OMPI_SUCCESS;
    }
    if (NULL == module->previous.allreduce) {
        return OMPI_ERR_NOT_SUPPORTED;
    }
    extremes[0] = (long) hash;
    extremes[1] = (long) -hash;
    rc = module->previous.allreduce(MPI_IN_PLACE, extremes, 2, MPI_LONG, MPI_MAX, comm,
                                    module->previous.allreduce_module);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (hash >= 0 && extremes[0] == hash && -extremes[1] == hash) {
        *agreed = 1;
    } else if (extremes[0] >= 0 && 0 == ompi_comm_rank(comm)) {
        fprintf(stderr, "coll:hier: coll_hier_dynamic_rules \"%s\" could not be read alike on every rank "
                        "of %s; auto decides there\n", mca_coll_hier_component.dynamic_rules, comm->c_name);
        fflush(stderr);
    }
    return OMPI_SUCCESS;
}

/* The torus comm's ranks form by its own shape, in row-major order: a
 * Cartesian communicator's dimensions when every one is periodic. NULL
 * (*ndims 0) otherwise (the core then applies coll_hier_torus_dims where it
 * covers comm). */
static const int *hier_cartesian_torus(struct ompi_communicator_t *comm, int *ndims)
{
    *ndims = 0;
    if (OMPI_COMM_IS_CART(comm) && NULL != comm->c_topo && NULL != comm->c_topo->mtc.cart) {
        const mca_topo_base_comm_cart_t *cart = comm->c_topo->mtc.cart;
        bool periodic = cart->ndims > 0;
        for (int d = 0; d < cart->ndims; ++d) {
            periodic = periodic && cart->periods[d];
        }
        if (periodic) {
            *ndims = cart->ndims;
            return cart->dims;
        }
    }
    return NULL;
}

/* The probes the settings ask for on comm (HIER_PROBE_*): input->node_latency
 * from the latency probe before the communicator is made; the message probe
 * after, as its partners stay within a cluster. */
static int hier_probe_latency(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm, int probes,
                              const int *job_nodes, hier_comm_input_t *input, double **latency,
                              const char **why)
{
    int node_count, rc;

    if (0 == (probes & HIER_PROBE_LATENCY)) {
        return OMPI_SUCCESS;
    }
    rc = mca_coll_hier_probe_latency(module, comm, input->node_of_rank, job_nodes, MCA_COLL_BASE_TAG_BARRIER,
                                     latency, &node_count);
    if (OMPI_SUCCESS != rc) {
        *why = "the latency probe failed";
    }
    input->node_latency = *latency;
    return rc;
}

/* Says, once per process, why a communicator could not be made: comm's
 * rank 0 does, unless the settings said it when they were parsed; and every
 * rank notes it, so that a later communicator whose rank 0 sat elsewhere in
 * this one does not say it again. */
static void hier_report_failure(struct ompi_communicator_t *comm, const char *error,
                                const hier_comm_failure_t *failure)
{
    static bool reported = false;

    if (!reported && !failure->reported && 0 == ompi_comm_rank(comm)) {
        fprintf(stderr, "coll:hier: %s (on %s); falling back to Open MPI's own collectives\n", error,
                comm->c_name);
        fflush(stderr);
    }
    reported = true;
}

/* Says, once per process, what the core noted of a communicator it made (a
 * cluster source that found nothing): comm's rank 0 does. */
static void hier_report_notice(struct ompi_communicator_t *comm, const char *notice)
{
    static bool reported = false;

    if (!reported && '\0' != notice[0] && 0 == ompi_comm_rank(comm)) {
        fprintf(stderr, "coll:hier: %s (on %s)\n", notice, comm->c_name);
        fflush(stderr);
    }
    reported = reported || '\0' != notice[0];
}

/* The core's communicator from every rank's node, rank in MPI_COMM_WORLD
 * and job-wide node (and host names for host patterns). A setting that does
 * not fit comm (a cluster map, a torus, a cost file) or is invalid (a cost
 * source, an embedding) makes comm fall back, said in one line. */
static int hier_create_topology(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                                const int *nodes, const char *host_names, const int *world_ranks,
                                const int *job_nodes, const char **why)
{
    const hier_settings_t *settings = mca_coll_hier_component.settings;
    const char *cost_file = hier_settings_cost_file(settings);
    char error[MCA_COLL_HIER_LINE_MAX], notice[MCA_COLL_HIER_LINE_MAX] = "";
    hier_comm_failure_t failure = {"invalid setting", 0};
    hier_comm_input_t input = {
        .settings = settings,
        .size = ompi_comm_size(comm),
        .rank = ompi_comm_rank(comm),
        .node_of_rank = nodes,
        .host_names = host_names,
        /* comm's processes are all of the job's: every host pattern must match one of them */
        .job_wide = ompi_comm_size(comm) == ompi_comm_size(&ompi_mpi_comm_world.comm),
        .world_rank = world_ranks,
        .world_size = ompi_comm_size(&ompi_mpi_comm_world.comm),
        .window = module->window,
        .agree_max = hier_agree_max,
        .agree_ctx = module,
    };
    double *latency = NULL;
    bool several_nodes = false;
    int probes, rc;

    input.torus_dims = hier_cartesian_torus(comm, &input.torus_ndims);
    for (int r = 1; r < input.size && !several_nodes; ++r) {
        several_nodes = nodes[r] != nodes[0];
    }
    probes = hier_settings_probes(settings, module->algorithm[HIER_OP_ALLTOALL], input.size, several_nodes);
    if (OMPI_SUCCESS != hier_agree_on_rules(module, comm, &input.rules_agreed)) {
        *why = "agreeing on coll_hier_dynamic_rules failed";
        return OMPI_ERROR;
    }
    rc = hier_probe_latency(module, comm, probes, job_nodes, &input, &latency, why);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    module->topology = hier_comm_create(&input, error, sizeof(error), &failure);
    free(latency);
    if (NULL != module->topology) {
        strncpy(notice, error, sizeof(notice));
    }
    if (NULL != cost_file) {
        rc = hier_agree_on_cost_file(module, comm, cost_file, error, sizeof(error), &failure);
        if (OMPI_SUCCESS != rc) {
            *why = "agreeing on coll_hier_cost failed";
            return rc;
        }
    }
    if (NULL != module->topology && 0 != (probes & HIER_PROBE_MESSAGES)) {
        double per_message[2];
        rc = mca_coll_hier_probe_messages(module, comm, nodes, MCA_COLL_BASE_TAG_BARRIER, per_message);
        if (OMPI_SUCCESS != rc) {
            *why = "the message probe failed";
            return rc;
        }
        hier_comm_apply_message_cost(module->topology, per_message);
    }
    if (NULL != module->topology) {
        hier_report_notice(comm, notice);
        return OMPI_SUCCESS;
    }
    if ('\0' == error[0]) {
        *why = "out of memory";
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    hier_report_failure(comm, error, &failure);
    *why = failure.reason;
    return OMPI_ERROR;
}

/* Every rank's host name (opal_process_info.nodename: a host's name does not
 * depend on the communicator), or for "slurm" its SLURM_TOPOLOGY_ADDR and
 * _PATTERN (hier_settings_wants_host_names), in fixed-width fields: one more
 * allgather through the previous module. A name longer than its field keeps
 * no NUL, which the core reports. The caller frees *names. */
static int hier_gather_host_names(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                                  int wanted, char **names)
{
    char mine[HIER_HOST_NAME_WIDTH], address[2 * HIER_HOST_NAME_WIDTH + 2] = "";
    const char *slurm_address = getenv("SLURM_TOPOLOGY_ADDR");
    const char *slurm_pattern = getenv("SLURM_TOPOLOGY_ADDR_PATTERN");

    *names = malloc((size_t) ompi_comm_size(comm) * HIER_HOST_NAME_WIDTH);
    if (NULL == *names) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (HIER_GATHER_SLURM_ADDRESS == wanted && NULL != slurm_address) {
        snprintf(address, sizeof(address), "%.*s\n%.*s", HIER_HOST_NAME_WIDTH, slurm_address,
                 HIER_HOST_NAME_WIDTH, NULL == slurm_pattern ? "" : slurm_pattern);
    } else if (HIER_GATHER_HOST_NAME == wanted && NULL != opal_process_info.nodename) {
        snprintf(address, sizeof(address), "%.*s", HIER_HOST_NAME_WIDTH, opal_process_info.nodename);
    }
    strncpy(mine, address, sizeof(mine));
    return module->previous.allgather(mine, HIER_HOST_NAME_WIDTH, MPI_CHAR, *names, HIER_HOST_NAME_WIDTH,
                                      MPI_CHAR, comm, module->previous.allgather_module);
}

/* Every rank's node, rank in MPI_COMM_WORLD and job-wide node, with one
 * allgather through the previous module (never hier's own), and the core's
 * communicator built from them. On failure, *why says why. */
static int hier_gather(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm, const char **why)
{
    const hier_settings_t *settings = mca_coll_hier_component.settings;
    const int size = ompi_comm_size(comm);
    int mine[3], rc, *gathered, *nodes;    /* mine: {node, rank in MPI_COMM_WORLD, job's node} */
    char *names = NULL;

    *why = hier_settings_unusable(settings);
    if (NULL != *why) {
        return OMPI_ERROR;
    }
    mine[1] = ompi_comm_rank(&ompi_mpi_comm_world.comm);
    if (!hier_settings_node_map(settings, mine[1], &mine[0])) {
        mine[0] = hier_node_leader(comm);
    }
    mine[2] = hier_job_node();
    if (NULL == module->previous.allgather) {
        *why = "no allgather to gather the topology with";
        return OMPI_ERROR;
    }
    gathered = malloc(3 * size * sizeof(*gathered));
    nodes = malloc(3 * size * sizeof(*nodes));
    if (NULL == gathered || NULL == nodes) {
        free(gathered);
        free(nodes);
        *why = "out of memory";
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    rc = module->previous.allgather(mine, 3, MPI_INT, gathered, 3, MPI_INT, comm,
                                    module->previous.allgather_module);
    if (OMPI_SUCCESS == rc && hier_settings_wants_host_names(settings)) {
        rc = hier_gather_host_names(module, comm, hier_settings_wants_host_names(settings), &names);
    }
    *why = OMPI_SUCCESS == rc ? NULL : "gathering the topology failed";
    if (OMPI_SUCCESS == rc) {
        int *world_ranks = nodes + size, *job_nodes = nodes + 2 * size;
        for (int i = 0; i < size; ++i) {
            nodes[i] = gathered[3 * i];
            world_ranks[i] = gathered[3 * i + 1];
            job_nodes[i] = gathered[3 * i + 2];
        }
        rc = hier_create_topology(module, comm, nodes, names, world_ranks, job_nodes, why);
    }
    free(names);
    free(gathered);
    free(nodes);
    return rc;
}

void mca_coll_hier_gather_topology(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm)
{
    if (MCA_COLL_HIER_TOPOLOGY_UNKNOWN != module->topology_state) {
        return;
    }
    module->comm = comm;
    module->topology_state = OMPI_SUCCESS == hier_gather(module, comm, &module->topology_error)
                                 ? MCA_COLL_HIER_TOPOLOGY_READY : MCA_COLL_HIER_TOPOLOGY_FAILED;
}
