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
 * once, at the first call that needs it, through the previous module's
 * collectives (never hier's own). One plan, run blocking or not: one
 * allgather of every rank's node, rank in MPI_COMM_WORLD, job-wide node,
 * rules file's fingerprint and socket; then, only where the settings ask for them,
 * host names for a cluster map of host patterns, the latency probe for
 * clusters or costs by probe, and the ranks' agreement on a cost file.
 * The link-cost probes are not part of it: the core runs them through
 * hier_probe_links when a decision first weighs link costs. Also the
 * agreement the core may ask for later (one allreduce, MAX).
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
#include "opal/util/output.h"
#include "opal/runtime/opal_progress.h"

/* The lowest rank of comm that shares every level of locality with this
 * process (OPAL_PROC_ON_NODE, with OPAL_PROC_ON_SOCKET its socket on it).
 * Processes Open MPI has not instantiated yet are remote: it creates every
 * local one at MPI_Init. */
static int hier_lowest_sharing(struct ompi_communicator_t *comm, uint16_t levels)
{
    const int rank = ompi_comm_rank(comm);

    for (int i = 0; i < rank; ++i) {
        ompi_proc_t *proc = ompi_group_get_proc_ptr_raw(comm->c_local_group, i);
        if (!ompi_proc_is_sentinel(proc) && levels == (proc->super.proc_flags & levels)) {
            return i;
        }
    }
    return rank;
}

/* This process's node as comm names it: the lowest rank of comm on it. */
static int hier_local_node_name(struct ompi_communicator_t *comm)
{
    return hier_lowest_sharing(comm, OPAL_PROC_ON_NODE);
}

/* Whether the runtime bound this process. Its flag is named for its series
 * (ORTE's orte_proc_is_bound under 4.1, ompi_rte_proc_is_bound under 5.0);
 * referenced weakly, so that a build for one series still loads under the
 * other, which then declines it in one line (coll_hier_component.c), rather
 * than failing to load at MPI_Init over a missing variable. */
#if OMPI_MAJOR_VERSION >= 5
#pragma weak ompi_rte_proc_is_bound
#else
#pragma weak orte_proc_is_bound
#endif
static bool hier_process_bound(void)
{
    return NULL != &ompi_rte_proc_is_bound && ompi_rte_proc_is_bound;
}

/* This process's socket as comm names it, the lowest rank of comm on its
 * node and socket; with a node map, the map's socket. -1 where there is
 * none: a node map that writes no socket (its nodes are not the host's),
 * or a process the runtime did not bind, whose locality Open MPI reduces to
 * its node. The socket, not the NUMA domain: both Open MPI 4.1 and 5.0 set
 * OPAL_PROC_ON_SOCKET from the locality string's package, and the link
 * between packages is the costlier step inside a node. */
static int hier_local_socket_name(struct ompi_communicator_t *comm, int world_rank)
{
    const hier_settings_t *settings = mca_coll_hier_component.settings;
    int node, socket;

    if (hier_settings_node_map(settings, world_rank, &node)) {
        return hier_settings_socket_map(settings, world_rank, &socket) ? socket : -1;
    }
    return hier_process_bound() ? hier_lowest_sharing(comm, OPAL_PROC_ON_NODE | OPAL_PROC_ON_SOCKET) : -1;
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
        job_node = hier_local_node_name(&ompi_mpi_comm_world.comm);
    }
    return job_node;
}

/* The core's agreement (hier_comm_input_t.agree_max): values become their
 * maximum over the module's communicator, through the previous module's
 * allreduce. */
static int hier_agree_max(void *ctx, double *values, int count)
{
    mca_coll_hier_module_t *module = ctx;

    return mca_coll_hier_agree(module, values, count, MPI_DOUBLE, MPI_MAX);
}

/* With costs from a file, whether every rank of the module's communicator
 * built its topology: if one could not, none uses it, and the others say
 * why. Collective. */
static int hier_agree_on_cost_file(mca_coll_hier_module_t *module, const char *cost_file, char *error,
                                   size_t errlen, hier_comm_failure_t *failure)
{
    const int mine = NULL != module->topology;
    int everyone = mine;
    const int rc = mca_coll_hier_agree(module, &everyone, 1, MPI_INT, MPI_MIN);

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
 * file not on every node's file system, or different there), from the
 * fingerprints gathered (-1: none read): if not, the communicator ignores
 * them, reported by its rank 0. */
static int hier_rules_agreed(struct ompi_communicator_t *comm, const int64_t *hashes)
{
    const int size = ompi_comm_size(comm);
    long long hash;
    int64_t highest = -1;
    bool alike = true;

    if (!hier_settings_rules(mca_coll_hier_component.settings, &hash)) {
        return 0;
    }
    for (int r = 0; r < size; ++r) {
        alike = alike && hashes[r] == hash;
        highest = hashes[r] > highest ? hashes[r] : highest;
    }
    if (hash >= 0 && alike) {
        return 1;
    }
    if (highest >= 0 && 0 == ompi_comm_rank(comm)) {
        fprintf(stderr, "coll:hier: coll_hier_dynamic_rules \"%s\" could not be read alike on every rank "
                        "of %s; auto decides there\n", mca_coll_hier_component.dynamic_rules, comm->c_name);
        fflush(stderr);
    }
    return 0;
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

/* The link-cost probes the core runs at the first decision that weighs link
 * costs (hier_comm_input_t.probe_links): the latency probe where
 * node_latency is not NULL, then the message probe. Collective over the
 * module's communicator, within that call. */
static int hier_probe_links(void *ctx, double *node_latency, double message_cost[2])
{
    mca_coll_hier_module_t *module = ctx;
    struct ompi_communicator_t *comm = module->comm;
    const int size = ompi_comm_size(comm);
    int *nodes = malloc(size * sizeof(*nodes)), node_count, rc = OMPI_SUCCESS;
    double *latency;

    if (NULL == nodes) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (int r = 0; r < size; ++r) {
        nodes[r] = hier_comm_node_of(module->topology, r);
    }
    if (NULL != node_latency) {
        rc = mca_coll_hier_probe_latency(module, comm, nodes, module->job_nodes, MCA_COLL_BASE_TAG_BARRIER,
                                         &latency, &node_count);
        if (OMPI_SUCCESS == rc) {
            memcpy(node_latency, latency, (size_t) node_count * node_count * sizeof(*latency));
            free(latency);
        }
    }
    if (OMPI_SUCCESS == rc) {
        rc = mca_coll_hier_probe_messages(module, comm, MCA_COLL_BASE_TAG_BARRIER, message_cost);
    }
    free(nodes);
    return rc;
}

/* Says, once per process, why a communicator could not be made: comm's
 * rank 0 does, unless the settings said it when they were parsed; and every
 * rank notes it, so that a later communicator whose rank 0 sat elsewhere in
 * this one does not say it again. */
static void hier_report_failure(const mca_coll_hier_module_t *module, const char *error,
                                const hier_comm_failure_t *failure)
{
    struct ompi_communicator_t *comm = module->comm;
    static bool reported = false;

    if (!reported && !failure->reported && 0 == ompi_comm_rank(comm)) {
        fprintf(stderr, "coll:hier: %s (on %s); falling back to Open MPI's own collectives\n", error,
                comm->c_name);
        fflush(stderr);
    }
    reported = true;
}

/* The probes the topology itself needs on comm (clusters or costs by the
 * latency probe), whatever the collectives run: the link-cost probes are
 * the core's to ask for, later. */
static int hier_topology_probes(const mca_coll_hier_module_t *module, const int *nodes)
{
    const int size = ompi_comm_size(module->comm);
    bool several_nodes = false;

    for (int r = 1; r < size && !several_nodes; ++r) {
        several_nodes = nodes[r] != nodes[0];
    }
    return hier_settings_probes(mca_coll_hier_component.settings, HIER_ALG_FALLBACK, size, several_nodes);
}

/* Says, once per process, what the core noted of a communicator it made (a
 * cluster source that found nothing): comm's rank 0 does. */
static void hier_report_notice(const mca_coll_hier_module_t *module, const char *notice)
{
    struct ompi_communicator_t *comm = module->comm;
    static bool reported = false;

    if (!reported && '\0' != notice[0] && 0 == ompi_comm_rank(comm)) {
        fprintf(stderr, "coll:hier: %s (on %s)\n", notice, comm->c_name);
        fflush(stderr);
    }
    reported = reported || '\0' != notice[0];
}

/* The core's communicator, built once from every rank's node, socket, rank
 * in MPI_COMM_WORLD, job-wide node and rules fingerprint (facts, as
 * gathered), with host names and the latency probe where the settings need
 * them. A setting that does not fit comm (a cluster map, a torus, a cost file) or
 * is invalid (a cost source, an embedding) makes comm fall back, said in
 * one line. */
static int hier_create_topology(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                                const int *nodes, const int *sockets, const char *host_names,
                                const int *world_ranks, const int64_t *rules_hashes, const char **why)
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
        .socket_of_rank = sockets,
        .host_names = host_names,
        /* comm's processes are all of the job's: every host pattern must match one of them */
        .job_wide = ompi_comm_size(comm) == ompi_comm_size(&ompi_mpi_comm_world.comm),
        .world_rank = world_ranks,
        .world_size = ompi_comm_size(&ompi_mpi_comm_world.comm),
        .window = module->window,
        .rules_agreed = hier_rules_agreed(comm, rules_hashes),
        .agree_max = hier_agree_max,
        .agree_ctx = module,
        .probe_links = hier_probe_links,
        .probe_ctx = module,
    };
    double *latency = NULL;
    int node_count, rc;

    input.torus_dims = hier_cartesian_torus(comm, &input.torus_ndims);
    if (0 != (hier_topology_probes(module, nodes) & HIER_PROBE_LATENCY)) {
        rc = mca_coll_hier_probe_latency(module, comm, nodes, module->job_nodes, MCA_COLL_BASE_TAG_BARRIER,
                                         &latency, &node_count);
        if (OMPI_SUCCESS != rc) {
            *why = "the latency probe failed";
            return rc;
        }
        input.node_latency = latency;
        module->topology_probed = true;
    }
    module->topology = hier_comm_create(&input, error, sizeof(error), &failure);
    free(latency);
    if (NULL != module->topology) {
        strncpy(notice, error, sizeof(notice));
    }
    if (NULL != cost_file) {
        rc = hier_agree_on_cost_file(module, cost_file, error, sizeof(error), &failure);
        if (OMPI_SUCCESS != rc) {
            *why = "agreeing on coll_hier_cost failed";
            return rc;
        }
    }
    if (NULL != module->topology) {
        hier_report_notice(module, notice);
        return OMPI_SUCCESS;
    }
    if ('\0' == error[0]) {
        *why = "out of memory";
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    hier_report_failure(module, error, &failure);
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

/* Why the plan needs more than its one allgather on comm, which only a
 * blocking call can run (NULL: the allgather is all). */
static const char *hier_plan_needs_blocking(struct ompi_communicator_t *comm)
{
    const hier_settings_t *settings = mca_coll_hier_component.settings;

    if (hier_settings_wants_host_names(settings)) {
        return "its host names for coll_hier_cluster_map";
    }
    if (NULL != hier_settings_cost_file(settings)) {
        return "its ranks' agreement on coll_hier_cost";
    }
    /* Without the nodes, the probe's need is judged as if they were several. */
    if (0 != (hier_settings_probes(settings, HIER_ALG_FALLBACK, ompi_comm_size(comm), 1) & HIER_PROBE_LATENCY)) {
        return "the latency probe";
    }
    return NULL;
}

/* This rank's part of the allgather: {node, rank in MPI_COMM_WORLD, job's
 * node, the rules' fingerprint or -1, socket or -1}. */
static void hier_facts_of_this_rank(const mca_coll_hier_module_t *module, int64_t mine[MCA_COLL_HIER_FACTS])
{
    struct ompi_communicator_t *comm = module->comm;
    const hier_settings_t *settings = mca_coll_hier_component.settings;
    const int world_rank = ompi_comm_rank(&ompi_mpi_comm_world.comm);
    long long hash = -1;
    int node;

    if (!hier_settings_node_map(settings, world_rank, &node)) {
        node = hier_local_node_name(comm);
    }
    if (!hier_settings_rules(settings, &hash)) {
        hash = -1;
    }
    mine[0] = node;
    mine[1] = world_rank;
    mine[2] = hier_job_node();
    mine[3] = hash;
    mine[4] = hier_local_socket_name(comm, world_rank);
}

/* The rest of the plan, once every rank's facts are in: host names where
 * asked for, then the communicator. */
static int hier_gather_rest(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                            const int64_t *facts, const char **why)
{
    const int size = ompi_comm_size(comm);
    int *nodes = malloc(3 * size * sizeof(*nodes)), *world_ranks = nodes + size, *sockets = nodes + 2 * size;
    int rc = OMPI_SUCCESS;
    int64_t *hashes = malloc(size * sizeof(*hashes));
    char *names = NULL;

    free(module->job_nodes);
    module->job_nodes = malloc(size * sizeof(*module->job_nodes));
    if (NULL == nodes || NULL == hashes || NULL == module->job_nodes) {
        free(nodes);
        free(hashes);
        *why = "out of memory";
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    for (int i = 0; i < size; ++i) {
        const int64_t *of_rank = facts + MCA_COLL_HIER_FACTS * i;
        nodes[i] = (int) of_rank[0];
        world_ranks[i] = (int) of_rank[1];
        module->job_nodes[i] = (int) of_rank[2];
        hashes[i] = of_rank[3];
        sockets[i] = (int) of_rank[4];
    }
    if (hier_settings_wants_host_names(mca_coll_hier_component.settings)) {
        rc = hier_gather_host_names(module, comm, hier_settings_wants_host_names(mca_coll_hier_component.settings),
                                    &names);
        *why = OMPI_SUCCESS == rc ? NULL : "gathering the host names failed";
    }
    if (OMPI_SUCCESS == rc) {
        rc = hier_create_topology(module, comm, nodes, sockets, names, world_ranks, hashes, why);
    }
    free(names);
    free(nodes);
    free(hashes);
    return rc;
}

/* Whether the plan may start at all on comm: *why when not. */
static bool hier_plan_possible(mca_coll_hier_module_t *module, const char **why)
{
    *why = hier_settings_unusable(mca_coll_hier_component.settings);
    if (NULL == *why && NULL == module->previous.allgather) {
        *why = "no allgather to gather the topology with";
    }
    return NULL == *why;
}

/* The outcome of the plan into the module's state, and rank 0's line
 * saying what gathering paid (how: how long, by what), once per
 * communicator. */
static void hier_gathered(mca_coll_hier_module_t *module, int rc, const char *how)
{
    struct ompi_communicator_t *comm = module->comm;

    module->topology_state = OMPI_SUCCESS == rc ? MCA_COLL_HIER_TOPOLOGY_READY : MCA_COLL_HIER_TOPOLOGY_FAILED;
    if (OMPI_SUCCESS == rc && 0 == ompi_comm_rank(comm)) {
        opal_output_verbose(1, mca_coll_hier_component.output,
                            "coll:hier: topology of %s gathered %s; probes: %s", comm->c_name, how,
                            module->topology_probed ? "the latency probe (for clusters or costs by probe)"
                                                    : "none (link costs are probed at the first decision "
                                                      "that weighs them)");
    }
}

/* Ends the gathering a nonblocking call started, its allgather complete:
 * the rest of the plan, local (hier_plan_needs_blocking said so), on the
 * module's communicator; where: which call noticed the completion. */
static void hier_gathering_finish(mca_coll_hier_module_t *module, const char *where)
{
    char how[256];
    int rc = ompi_request_wait(&module->gathering.request, MPI_STATUS_IGNORE);

    if (OMPI_SUCCESS == rc) {
        rc = hier_gather_rest(module, module->comm, module->gathering.facts, &module->topology_error);
    } else {
        module->topology_error = "gathering the topology failed";
    }
    free(module->gathering.facts);
    module->gathering.facts = NULL;
    snprintf(how, sizeof(how),
             "by a nonblocking allgather its first %s started, complete %.1f ms later %s; meanwhile %d "
             "nonblocking or persistent call%s waited for it, deciding in order once it was known",
             module->gathering.started_by, 1e3 * (mca_coll_hier_now() - module->gathering.start), where,
             module->gathering.waited, 1 == module->gathering.waited ? "" : "s");
    hier_gathered(module, rc, how);
}

bool mca_coll_hier_gathering_test(mca_coll_hier_module_t *module)
{
    if (MCA_COLL_HIER_TOPOLOGY_GATHERING == module->topology_state &&
        REQUEST_COMPLETE(module->gathering.request)) {
        hier_gathering_finish(module, "in the progress of its requests");
    }
    return MCA_COLL_HIER_TOPOLOGY_GATHERING != module->topology_state;
}

/* The first blocking collective completes the gathering a nonblocking call
 * started, unless the requests' progress does meanwhile (which ends it
 * then, and frees its allgather's request: only the state is watched
 * here), and decides the calls that waited for it before its own. */
static void hier_gathering_complete(mca_coll_hier_module_t *module)
{
    while (MCA_COLL_HIER_TOPOLOGY_GATHERING == module->topology_state &&
           !REQUEST_COMPLETE(module->gathering.request)) {
        opal_progress();
    }
    if (MCA_COLL_HIER_TOPOLOGY_GATHERING == module->topology_state) {
        hier_gathering_finish(module, "at its first blocking collective");
    }
    mca_coll_hier_requests_decide(module);
}

/* Whether the gathering starts now: nothing gathered or started yet, and
 * settings it can be done with (else the communicator falls back for
 * good). */
static bool hier_gathering_may_start(mca_coll_hier_module_t *module)
{
    if (MCA_COLL_HIER_TOPOLOGY_UNKNOWN != module->topology_state) {
        return false;
    }
    if (!hier_plan_possible(module, &module->topology_error)) {
        module->topology_state = MCA_COLL_HIER_TOPOLOGY_FAILED;
        return false;
    }
    return true;
}

void mca_coll_hier_gather_topology(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm)
{
    int64_t *facts;
    double start = mca_coll_hier_now();
    char how[64];
    int rc;

    if (MCA_COLL_HIER_TOPOLOGY_GATHERING == module->topology_state) {
        hier_gathering_complete(module);
        return;
    }
    if (!hier_gathering_may_start(module)) {
        return;
    }
    hier_facts_of_this_rank(module, module->gathering.mine);
    facts = malloc((size_t) ompi_comm_size(comm) * sizeof(module->gathering.mine));
    if (NULL == facts) {
        module->topology_error = "out of memory";
        module->topology_state = MCA_COLL_HIER_TOPOLOGY_FAILED;
        return;
    }
    rc = module->previous.allgather(module->gathering.mine, MCA_COLL_HIER_FACTS, MPI_INT64_T, facts,
                                    MCA_COLL_HIER_FACTS, MPI_INT64_T, comm, module->previous.allgather_module);
    if (OMPI_SUCCESS == rc) {
        rc = hier_gather_rest(module, comm, facts, &module->topology_error);
    } else {
        module->topology_error = "gathering the topology failed";
    }
    free(facts);
    snprintf(how, sizeof(how), "at its first blocking collective in %.1f ms", 1e3 * (mca_coll_hier_now() - start));
    hier_gathered(module, rc, how);
}

void mca_coll_hier_gather_topology_nonblocking(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                                               const char *call)
{
    const char *blocking_only;
    int rc;

    /* Gathering: completing it waits for every rank's first call, which a
     * nonblocking start may not do (a rank may reach its first call only
     * after a message this rank sends later), nor test (completion is
     * local: ranks would decide differently): the requests' progress or the
     * first blocking collective completes it. */
    if (!hier_gathering_may_start(module)) {
        return;
    }
    blocking_only = hier_plan_needs_blocking(comm);
    if (NULL != blocking_only || NULL == module->previous.iallgather) {
        module->topology_error = NULL != blocking_only
                                     ? "the communicator's topology needs more than one allgather: it is "
                                       "gathered at its first blocking collective"
                                     : "no nonblocking allgather: the communicator's topology is gathered at its "
                                       "first blocking collective";
        return;
    }
    hier_facts_of_this_rank(module, module->gathering.mine);
    module->gathering.facts = malloc((size_t) ompi_comm_size(comm) * sizeof(module->gathering.mine));
    if (NULL == module->gathering.facts) {
        /* The other ranks start the allgather this rank cannot join: the
         * communicator cannot be gathered; its calls fall back here. */
        module->topology_error = "out of memory";
        module->topology_state = MCA_COLL_HIER_TOPOLOGY_FAILED;
        return;
    }
    module->gathering.start = mca_coll_hier_now();
    snprintf(module->gathering.started_by, sizeof(module->gathering.started_by), "%s", call);
    rc = module->previous.iallgather(module->gathering.mine, MCA_COLL_HIER_FACTS, MPI_INT64_T,
                                     module->gathering.facts, MCA_COLL_HIER_FACTS, MPI_INT64_T, comm,
                                     &module->gathering.request, module->previous.iallgather_module);
    if (OMPI_SUCCESS != rc) {
        free(module->gathering.facts);
        module->gathering.facts = NULL;
        module->topology_error = "gathering the topology failed";
        module->topology_state = MCA_COLL_HIER_TOPOLOGY_FAILED;
        return;
    }
    module->topology_error = "the communicator's topology is being gathered";
    module->gathering.waited = 0;
    module->topology_state = MCA_COLL_HIER_TOPOLOGY_GATHERING;
}

void mca_coll_hier_gathering_release(mca_coll_hier_module_t *module)
{
    if (MCA_COLL_HIER_TOPOLOGY_GATHERING == module->topology_state) {
        (void) ompi_request_wait(&module->gathering.request, MPI_STATUS_IGNORE);
        module->topology_state = MCA_COLL_HIER_TOPOLOGY_FAILED;
    }
    free(module->gathering.facts);
    module->gathering.facts = NULL;
    free(module->job_nodes);
    module->job_nodes = NULL;
}
