/*
 * coll/hier module: which communicators hier takes (comm_query), what it falls
 * back to (enable saves the previous module's functions), the topology it
 * gathers for the core at the first call that needs it, and the per-call
 * choice between a core schedule and the fallback.
 */
#include "coll_hier.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opal/util/output.h"
#include "opal/util/proc.h"
#include "ompi/group/group.h"
#include "ompi/mca/coll/base/coll_tags.h"
#include "ompi/mca/topo/topo.h"
#include "ompi/proc/proc.h"

enum { HIER_TOPOLOGY_UNKNOWN = 0, HIER_TOPOLOGY_READY, HIER_TOPOLOGY_FAILED };
/* mca_coll_hier_component.node_map_state and torus_dims_state; zero until
 * the value is parsed. */
enum { HIER_SETTING_UNPARSED = 0, HIER_SETTING_VALID, HIER_SETTING_INVALID };

static int hier_module_enable(mca_coll_base_module_t *module, struct ompi_communicator_t *comm);
static int hier_module_disable(mca_coll_base_module_t *module, struct ompi_communicator_t *comm);

/* Drops the references enable took. Safe to repeat: Open MPI calls disable
 * once per communicator slot hier fills, and destruct runs after. */
static void hier_release_previous(mca_coll_hier_module_t *module)
{
#define HIER_RELEASE_PREVIOUS(name, hier_fn)                 \
    if (NULL != module->previous.name##_module) {            \
        OBJ_RELEASE(module->previous.name##_module);         \
    }                                                        \
    module->previous.name##_module = NULL;                   \
    module->previous.name = NULL;

    MCA_COLL_HIER_COLLECTIVES(HIER_RELEASE_PREVIOUS)
#undef HIER_RELEASE_PREVIOUS
}

static void hier_module_construct(mca_coll_hier_module_t *module)
{
    memset(&module->previous, 0, sizeof(module->previous));
    module->topology_state = HIER_TOPOLOGY_UNKNOWN;
    module->topology = NULL;
    module->topology_error = NULL;
    memset(module->settled_fallback, 0, sizeof(module->settled_fallback));
    memset(module->last_line, 0, sizeof(module->last_line));
    module->requests = NULL;
    module->request_head = module->request_count = module->request_capacity = 0;
    module->messages = NULL;
    module->message_head = module->message_count = module->message_capacity = 0;
    module->trial_clock_offset = module->trial_clock_seconds = module->trial_result_delay = 0;
    module->trial_late = 0;
    module->trial_starts_late = 0;
    module->tmp = module->in_place = module->sizes = module->offsets = NULL;
    module->tmp_size = module->in_place_size = module->sizes_size = module->offsets_size = 0;
}

static void hier_module_destruct(mca_coll_hier_module_t *module)
{
    hier_release_previous(module);
    if (NULL != module->topology) {
        hier_comm_destroy(module->topology);
        module->topology = NULL;
    }
    mca_coll_hier_transport_release(module);
}

OBJ_CLASS_INSTANCE(mca_coll_hier_module_t, mca_coll_base_module_t,
                   hier_module_construct, hier_module_destruct);

static bool hier_node_map_given(void)
{
    const char *node_map = mca_coll_hier_component.node_map;
    return NULL != node_map && '\0' != node_map[0];
}

static bool hier_cluster_map_is(hier_cluster_map_kind_t kind)
{
    return kind == hier_cluster_map_kind(mca_coll_hier_component.cluster_map);
}

/* Do auto's link costs want measuring on this communicator? When
 * coll_hier_link_costs says probe (its default) and auto's time model will
 * use them: auto decides the alltoall, with the model (more than one node,
 * at most 128 ranks). node_of_rank: as for the probe. */
static bool hier_link_costs_probed(const mca_coll_hier_module_t *module, const int *node_of_rank, int ranks)
{
    int nodes = 1;  /* one, or more than one: all the model's rule asks */
    for (int r = 1; r < ranks && 1 == nodes; ++r) {
        nodes += node_of_rank[r] != node_of_rank[0];
    }
    return hier_link_costs_want_probe(mca_coll_hier_component.link_costs) &&
           HIER_ALG_AUTO == module->algorithm[HIER_OP_ALLTOALL] && hier_alltoall_modelled(ranks, nodes);
}

/* Does this communicator's topology need the latency probe? For clusters
 * (coll_hier_cluster_map=probe), for auto's link costs (above) or for the
 * hypercube's costs (coll_hier_cost=probe). */
static bool hier_probe_wanted(bool link_costs_probed)
{
    const char *cost = mca_coll_hier_component.cost;
    return hier_cluster_map_is(HIER_CLUSTER_MAP_PROBE) || link_costs_probed ||
           (NULL != cost && 0 == strcmp(cost, "probe"));
}

/* A cluster map of counts over the node map's nodes: every communicator
 * inherits its members' clusters. (Host patterns apply to any communicator
 * by themselves; the probe measures each.) */
static bool hier_cluster_map_from_node_map(void)
{
    return hier_node_map_given() && hier_cluster_map_is(HIER_CLUSTER_MAP_COUNTS);
}

/* Costs from a file may be read on some ranks and not on others (a file
 * system not mounted everywhere): their ranks must agree before using them. */
static bool hier_cost_from_file(void)
{
    const char *cost = mca_coll_hier_component.cost;
    return NULL != cost && 0 == strncmp(cost, "file:", 5);
}

/* Parses coll_hier_node_map, which describes MPI_COMM_WORLD, once per
 * process and keeps this process's node; and coll_hier_cluster_map, if set,
 * over the node map's nodes, so that every communicator inherits clusters as
 * it inherits nodes. An invalid map is reported once, by world rank 0, and
 * makes every communicator fall back. */
static void hier_parse_node_map_once(void)
{
    mca_coll_hier_component_t *c = &mca_coll_hier_component;
    struct ompi_communicator_t *world = &ompi_mpi_comm_world.comm;
    const int size = ompi_comm_size(world);
    char error[MCA_COLL_HIER_LINE_MAX] = "coll_hier_node_map: out of memory";
    int *nodes, *clusters = NULL;
    bool valid;

    if (HIER_SETTING_UNPARSED != c->node_map_state) {
        return;
    }
    nodes = malloc(size * sizeof(*nodes));
    valid = NULL != nodes && 0 == hier_parse_node_map(c->node_map, size, nodes, error, sizeof(error));
    if (valid) {
        /* Nodes are numbered 0, 1, ... in rank order: the last rank's is the largest. */
        const int node_count = nodes[size - 1] + 1;
        c->node_map_nodes = node_count;
        c->node_map_node = nodes[ompi_comm_rank(world)];
        c->node_map_cluster = 0;
        if (hier_cluster_map_from_node_map()) {
            clusters = malloc(node_count * sizeof(*clusters));
            valid = NULL != clusters &&
                    0 == hier_parse_cluster_map(c->cluster_map, node_count, clusters, error, sizeof(error));
            c->node_map_cluster = valid ? clusters[c->node_map_node] : 0;
        }
    }
    c->node_map_state = valid ? HIER_SETTING_VALID : HIER_SETTING_INVALID;
    if (!valid && 0 == ompi_comm_rank(world)) {
        fprintf(stderr, "coll:hier: %s; falling back to Open MPI's own collectives\n", error);
        fflush(stderr);
    }
    free(clusters);
    free(nodes);
}

/* coll_hier_dynamic_rules: read and parsed once per process. A file that
 * cannot be read or parsed is reported by world rank 0, and auto decides. */
static void hier_load_rules_once(void)
{
    mca_coll_hier_component_t *c = &mca_coll_hier_component;
    char error[MCA_COLL_HIER_LINE_MAX];

    if (NULL == c->dynamic_rules || '\0' == c->dynamic_rules[0] || NULL != c->rules) {
        return;
    }
    c->rules = hier_rules_load(c->dynamic_rules, error, sizeof(error));
    if (NULL == c->rules && 0 == ompi_comm_rank(&ompi_mpi_comm_world.comm)) {
        fprintf(stderr, "coll:hier: %s; auto decides\n", error);
        fflush(stderr);
    }
}

/* Host patterns mean the same on every communicator: a map that does not
 * parse is reported once, by world rank 0, and makes every one fall back. */
static void hier_check_cluster_map_once(void)
{
    mca_coll_hier_component_t *c = &mca_coll_hier_component;
    char error[MCA_COLL_HIER_LINE_MAX];

    c->cluster_map_invalid = 0 != hier_check_cluster_map(c->cluster_map, error, sizeof(error));
    if (c->cluster_map_invalid && 0 == ompi_comm_rank(&ompi_mpi_comm_world.comm)) {
        fprintf(stderr, "coll:hier: %s; falling back to Open MPI's own collectives\n", error);
        fflush(stderr);
    }
}

/* Parses coll_hier_torus_dims once per process, against MPI_COMM_WORLD's
 * size. A value that does not parse or fit is reported once, by world rank
 * 0, and gives no communicator a torus (Cartesian ones keep theirs). */
static void hier_parse_torus_dims_once(void)
{
    mca_coll_hier_component_t *c = &mca_coll_hier_component;
    struct ompi_communicator_t *world = &ompi_mpi_comm_world.comm;
    char error[MCA_COLL_HIER_LINE_MAX];

    if (HIER_SETTING_UNPARSED != c->torus_dims_state) {
        return;
    }
    c->torus_ndims = hier_parse_torus_dims(c->torus_dims, ompi_comm_size(world), c->torus_sizes,
                                           MCA_COLL_HIER_TORUS_MAX_DIMS, error, sizeof(error));
    c->torus_dims_state = c->torus_ndims > 0 ? HIER_SETTING_VALID : HIER_SETTING_INVALID;
    if (c->torus_ndims <= 0 && 0 == ompi_comm_rank(world)) {
        fprintf(stderr, "coll:hier: %s; scatter and gather fall back to Open MPI's own\n", error);
        fflush(stderr);
    }
}

static bool hier_torus_dims_given(void)
{
    const char *dims = mca_coll_hier_component.torus_dims;
    return NULL != dims && '\0' != dims[0];
}

/* The torus comm's ranks form, in row-major order: a Cartesian
 * communicator's own dimensions when every one is periodic, else
 * coll_hier_torus_dims when it covers comm. NULL (*ndims 0) for neither. */
static const int *hier_torus_of(struct ompi_communicator_t *comm, int *ndims)
{
    const mca_coll_hier_component_t *c = &mca_coll_hier_component;
    int covered = 1;

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
    if (HIER_SETTING_VALID == c->torus_dims_state) {
        for (int d = 0; d < c->torus_ndims; ++d) {
            covered *= c->torus_sizes[d];
        }
        if (covered == ompi_comm_size(comm)) {
            *ndims = c->torus_ndims;
            return c->torus_sizes;
        }
    }
    *ndims = 0;
    return NULL;
}

/* With every collective's algorithm fallback, hier would only forward:
 * it stays out, and Open MPI selects as if it were not there. */
static bool hier_every_algorithm_fallback(void)
{
    for (int op = 0; op < HIER_OP_COUNT; ++op) {
        if (HIER_ALG_FALLBACK != mca_coll_hier_component.algorithm[op]) {
            return false;
        }
    }
    return true;
}

/* coll_hier_backbone_piece: -1 whole messages (0 here), N > 0 pieces of N
 * bytes, 0 (or a value that makes no sense, reported at MPI_Init) pieces a
 * little under the TCP BTL's eager limit, so that each goes eagerly (the
 * limit counts Open MPI's headers; 1 KiB covers them). */
static size_t hier_backbone_piece(void)
{
    const int piece = mca_coll_hier_component.backbone_piece;
    const size_t *eager_limit = NULL;
    const int var = mca_base_var_find("ompi", "btl", "tcp", "eager_limit");

    if (piece > 0) {
        return (size_t) piece;
    }
    if (-1 == piece) {
        return 0;
    }
    if (var >= 0 && OPAL_SUCCESS == mca_base_var_get_value(var, &eager_limit, NULL, NULL) &&
        NULL != eager_limit && *eager_limit > 4096) {
        return *eager_limit - 1024;
    }
    return 32768;
}

int mca_coll_hier_init_query(bool enable_progress_threads, bool enable_mpi_threads)
{
    return mca_coll_hier_component.other_series ? OMPI_ERR_NOT_AVAILABLE : OMPI_SUCCESS;
}

mca_coll_base_module_t *mca_coll_hier_comm_query(struct ompi_communicator_t *comm, int *priority)
{
    const mca_coll_hier_component_t *c = &mca_coll_hier_component;
    mca_coll_hier_module_t *module;

    /* MPI_COMM_WORLD is queried first, once, inside MPI_Init. Alone in the
     * coll list, hier is followed by Open MPI failing MPI_Init: say why
     * first. The maps are checked here too, before any thread can race. */
    if (comm == &ompi_mpi_comm_world.comm) {
        if (0 == ompi_comm_rank(comm)) {
            mca_coll_hier_report_settings();
        }
        if (c->selection_priority >= 0 && !c->listed_alone && hier_node_map_given()) {
            hier_parse_node_map_once();
        }
        if (c->selection_priority >= 0 && !c->listed_alone) {
            hier_check_cluster_map_once();
            hier_load_rules_once();
        }
        if (c->selection_priority >= 0 && !c->listed_alone && hier_torus_dims_given()) {
            hier_parse_torus_dims_once();
        }
    }
    if (c->listed_alone || c->selection_priority < 0 || OMPI_COMM_IS_INTER(comm) ||
        ompi_comm_size(comm) < 2 || hier_every_algorithm_fallback()) {
        return NULL;
    }
    module = OBJ_NEW(mca_coll_hier_module_t);
    if (NULL == module) {
        return NULL;
    }
    memcpy(module->algorithm, c->algorithm, sizeof(module->algorithm));
    module->window = module->call_window = c->window;
    module->backbone_piece = hier_backbone_piece();
    module->super.coll_module_enable = hier_module_enable;
    module->super.coll_module_disable = hier_module_disable;
    *priority = c->selection_priority;
    return &module->super;
}

/*
 * Modules are enabled lowest priority first, and Open MPI copies a module's
 * functions into comm->c_coll only after its enable returns: so here c_coll
 * holds exactly what Open MPI would use without hier. Keep each function
 * with its module (retained), and offer hier's own only where there is one to
 * fall back to. Setting the module's pointers here is in time: Open MPI reads
 * them after enable.
 */
static int hier_module_enable(mca_coll_base_module_t *base, struct ompi_communicator_t *comm)
{
    mca_coll_hier_module_t *module = (mca_coll_hier_module_t *) base;
    bool replaces_any = false;

    hier_release_previous(module);
#define HIER_SAVE_PREVIOUS(name, hier_fn)                                       \
    module->previous.name = comm->c_coll->coll_##name;                          \
    module->previous.name##_module = comm->c_coll->coll_##name##_module;        \
    if (NULL == module->previous.name || NULL == module->previous.name##_module) { \
        module->previous.name = NULL;                                           \
        module->previous.name##_module = NULL;                                  \
        module->super.coll_##name = NULL;                                       \
    } else {                                                                    \
        OBJ_RETAIN(module->previous.name##_module);                             \
        module->super.coll_##name = (hier_fn);                                  \
        replaces_any = replaces_any || NULL != module->super.coll_##name;       \
    }

    MCA_COLL_HIER_COLLECTIVES(HIER_SAVE_PREVIOUS)
#undef HIER_SAVE_PREVIOUS

    /* Nothing to replace: an error makes Open MPI drop the module. */
    return replaces_any ? OMPI_SUCCESS : OMPI_ERROR;
}

static int hier_module_disable(mca_coll_base_module_t *base, struct ompi_communicator_t *comm)
{
    hier_release_previous((mca_coll_hier_module_t *) base);
    return OMPI_SUCCESS;
}

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

    if (hier_node_map_given()) {
        return mca_coll_hier_component.node_map_node;
    }
    if (job_node < 0) {
        job_node = hier_node_leader(&ompi_mpi_comm_world.comm);
    }
    return job_node;
}

/* The parameter an error line of the core names first (every line starts
 * with it), as the reason the verbose line gives for falling back. */
static const char *hier_invalid_setting(const char *error)
{
    static const char *const reasons[] = {
        "invalid coll_hier_cluster_map", "invalid coll_hier_cost", "invalid coll_hier_hypercube_embedding",
    };
    for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); ++i) {
        const char *name = reasons[i] + strlen("invalid ");
        if (0 == strncmp(error, name, strlen(name)) && ' ' == error[strlen(name)]) {
            return reasons[i];
        }
    }
    return "invalid setting";
}

/* With costs from a file, whether every rank of comm built its topology:
 * if one could not, none uses it. Collective over comm. */
static int hier_agree_on_cost_file(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                                   char *error, size_t errlen)
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
        snprintf(error, errlen, "coll_hier_cost \"%s\" could not be used on every rank",
                 mca_coll_hier_component.cost);
    }
    return rc;
}

/* With a rules file, whether every rank of comm read the same rules (a
 * file not on every node's file system, or different there): if not, the
 * communicator ignores them, reported by its rank 0. Collective over comm. */
static int hier_agree_on_rules(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                               const hier_rules_t **rules)
{
    const mca_coll_hier_component_t *c = &mca_coll_hier_component;
    const long hash = NULL == c->rules ? -1 : (long) hier_rules_hash(c->rules);
    long extremes[2] = {hash, -hash};
    int rc;

    *rules = NULL;
    if (NULL == c->dynamic_rules || '\0' == c->dynamic_rules[0]) {
        return OMPI_SUCCESS;
    }
    if (NULL == module->previous.allreduce) {
        return OMPI_ERR_NOT_SUPPORTED;
    }
    rc = module->previous.allreduce(MPI_IN_PLACE, extremes, 2, MPI_LONG, MPI_MAX, comm,
                                    module->previous.allreduce_module);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (hash >= 0 && extremes[0] == hash && -extremes[1] == hash) {
        *rules = c->rules;
    } else if (extremes[0] >= 0 && 0 == ompi_comm_rank(comm)) {
        fprintf(stderr, "coll:hier: coll_hier_dynamic_rules \"%s\" could not be read alike on every rank "
                        "of %s; auto decides there\n", c->dynamic_rules, comm->c_name);
        fflush(stderr);
    }
    return OMPI_SUCCESS;
}

/* The core's view of comm from every rank's node, cluster and rank in
 * MPI_COMM_WORLD (clusters NULL: from coll_hier_cluster_map over comm's own
 * nodes, or over host_names for host patterns). A setting the core rejects
 * (a cluster map that does not fit, a cost source or embedding that does
 * not parse or fit) is reported in one line, and that communicator falls
 * back. */
static int hier_create_topology(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                                const int *nodes, const int *clusters, const char *host_names,
                                const int *world_ranks, const int *job_nodes, const char **why)
{
    static bool setting_reported = false;
    const mca_coll_hier_component_t *c = &mca_coll_hier_component;
    char error[MCA_COLL_HIER_LINE_MAX];
    int torus_ndims;
    const int *torus_dims = hier_torus_of(comm, &torus_ndims);
    hier_comm_input_t input = {
        .size = ompi_comm_size(comm),
        .rank = ompi_comm_rank(comm),
        .node_of_rank = nodes,
        .cluster_of_rank = clusters,
        .cluster_map = c->cluster_map,
        .window = module->window,
        .link_costs = c->link_costs,
        .auto_trial_calls = c->auto_trial_calls,
        .host_names = host_names,
        /* comm's processes are all of the job's: every host pattern must match one of them */
        .job_wide = ompi_comm_size(comm) == ompi_comm_size(&ompi_mpi_comm_world.comm),
        .torus_ndims = torus_ndims,
        .torus_dims = torus_dims,
        .cost = c->cost,
        .world_rank = world_ranks,
        .world_size = ompi_comm_size(&ompi_mpi_comm_world.comm),
        /* With a node map, nodes are the map's: the job's numbering. */
        .world_node = hier_node_map_given() ? nodes : NULL,
        .world_node_count = hier_node_map_given() ? c->node_map_nodes : 0,
        .hypercube_embedding = c->hypercube_embedding,
    };
    double *latency = NULL;
    int node_count;
    const bool link_costs_probed = hier_link_costs_probed(module, nodes, input.size);

    if (OMPI_SUCCESS != hier_agree_on_rules(module, comm, &input.rules)) {
        *why = "agreeing on coll_hier_dynamic_rules failed";
        return OMPI_ERROR;
    }
    if (hier_probe_wanted(link_costs_probed)) {
        const int rc = mca_coll_hier_probe_latency(module, comm, nodes, job_nodes, MCA_COLL_BASE_TAG_BARRIER,
                                                   &latency, &node_count);
        if (OMPI_SUCCESS != rc) {
            *why = "the latency probe failed";
            return rc;
        }
        input.node_latency = latency;
    }
    module->topology = hier_comm_create(&input, error, sizeof(error));
    free(latency);
    if (hier_cost_from_file()) {
        const int rc = hier_agree_on_cost_file(module, comm, error, sizeof(error));
        if (OMPI_SUCCESS != rc) {
            *why = "agreeing on coll_hier_cost failed";
            return rc;
        }
    }
    /* The message probe keeps its partners within a cluster: it runs once
     * the topology knows the clusters, and hands its result to it. */
    if (NULL != module->topology && link_costs_probed) {
        double per_message[2];
        const int rc = mca_coll_hier_probe_messages(module, comm, nodes, MCA_COLL_BASE_TAG_BARRIER, per_message);
        if (OMPI_SUCCESS != rc) {
            *why = "the message probe failed";
            return rc;
        }
        hier_comm_apply_message_cost(module->topology, per_message);
    }
    if (NULL != module->topology) {
        return OMPI_SUCCESS;
    }
    if ('\0' == error[0]) {
        *why = "out of memory";
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    /* A mistake that fails every communicator alike (a cost source or an
     * embedding that does not parse: hier_check_settings) is the job's:
     * MPI_COMM_WORLD's rank 0 reports it. One that fails this communicator
     * only: its rank 0 does, and every rank notes the report, so that a
     * later communicator whose rank 0 sat elsewhere in this one does not
     * report it again. */
    if (!setting_reported) {
        char job_wide[MCA_COLL_HIER_LINE_MAX];
        const bool job = 0 != hier_check_settings(c->cost, c->hypercube_embedding, job_wide, sizeof(job_wide));
        if (job && 0 == ompi_comm_rank(&ompi_mpi_comm_world.comm)) {
            fprintf(stderr, "coll:hier: %s; falling back to Open MPI's own collectives\n", job_wide);
        } else if (!job && 0 == ompi_comm_rank(comm)) {
            fprintf(stderr, "coll:hier: %s (on %s); falling back to Open MPI's own collectives\n",
                    error, comm->c_name);
        }
        fflush(stderr);
    }
    setting_reported = true;
    *why = hier_invalid_setting(error);
    return OMPI_ERROR;
}

/* Every rank's host name (opal_process_info.nodename: a host's name does not
 * depend on the communicator), in fixed-width fields, for a cluster map of
 * host patterns: one more allgather through the previous module. A name
 * longer than its field keeps no NUL, which the core reports. The caller
 * frees *names. */
static int hier_gather_host_names(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                                  char **names)
{
    char mine[HIER_HOST_NAME_WIDTH];

    *names = malloc((size_t) ompi_comm_size(comm) * HIER_HOST_NAME_WIDTH);
    if (NULL == *names) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    strncpy(mine, NULL == opal_process_info.nodename ? "" : opal_process_info.nodename, sizeof(mine));
    return module->previous.allgather(mine, HIER_HOST_NAME_WIDTH, MPI_CHAR, *names, HIER_HOST_NAME_WIDTH,
                                      MPI_CHAR, comm, module->previous.allgather_module);
}

/* Every rank's node and cluster, with one allgather through the previous
 * module (never hier's own), and the core's communicator built from them.
 * On failure, *why says why. */
static int hier_gather_topology(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                                const char **why)
{
    const mca_coll_hier_component_t *c = &mca_coll_hier_component;
    const int size = ompi_comm_size(comm);
    int mine[4], rc, *gathered, *nodes;    /* mine: {node, cluster, rank in MPI_COMM_WORLD, job's node} */
    char *names = NULL;

    if (c->cluster_map_invalid) {
        *why = "invalid coll_hier_cluster_map";
        return OMPI_ERROR;
    }
    if (hier_node_map_given()) {
        hier_parse_node_map_once();
        if (HIER_SETTING_VALID != c->node_map_state) {
            *why = "invalid coll_hier_node_map or coll_hier_cluster_map";
            return OMPI_ERROR;
        }
        mine[0] = c->node_map_node;
        mine[1] = c->node_map_cluster;
    } else {
        mine[0] = hier_node_leader(comm);
        mine[1] = 0;
    }
    mine[2] = ompi_comm_rank(&ompi_mpi_comm_world.comm);
    mine[3] = hier_job_node();
    if (NULL == module->previous.allgather) {
        *why = "no allgather to gather the topology with";
        return OMPI_ERROR;
    }
    gathered = malloc(4 * size * sizeof(*gathered));
    nodes = malloc(4 * size * sizeof(*nodes));
    if (NULL == gathered || NULL == nodes) {
        free(gathered);
        free(nodes);
        *why = "out of memory";
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    rc = module->previous.allgather(mine, 4, MPI_INT, gathered, 4, MPI_INT, comm,
                                    module->previous.allgather_module);
    if (OMPI_SUCCESS == rc && hier_cluster_map_is(HIER_CLUSTER_MAP_HOSTS)) {
        rc = hier_gather_host_names(module, comm, &names);
    }
    *why = OMPI_SUCCESS == rc ? NULL : "gathering the topology failed";
    if (OMPI_SUCCESS == rc) {
        int *clusters = nodes + size, *world_ranks = nodes + 2 * size, *job_nodes = nodes + 3 * size;
        for (int i = 0; i < size; ++i) {
            nodes[i] = gathered[4 * i];
            clusters[i] = gathered[4 * i + 1];
            world_ranks[i] = gathered[4 * i + 2];
            job_nodes[i] = gathered[4 * i + 3];
        }
        /* With a node map and a cluster map of counts, clusters are the
         * job's; else the map (host patterns, counts, or the probe) applies
         * to comm's nodes. */
        rc = hier_create_topology(module, comm, nodes, hier_cluster_map_from_node_map() ? clusters : NULL,
                                  names, world_ranks, job_nodes, why);
    }
    free(names);
    free(gathered);
    free(nodes);
    return rc;
}

/* The verbose line for one decision, printed by rank 0 of comm: the first
 * time each collective runs on it (verbose >= 1), and again whenever it
 * changes (verbose >= 2); and, at verbose >= 2, what auto's time model
 * compared whenever it decides for a new size class. */
static void hier_report(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                        hier_op_t op, int chosen, const char *reason, const char *predictions)
{
    const mca_coll_hier_component_t *c = &mca_coll_hier_component;
    char *last = module->last_line[op];
    const bool first = '\0' == last[0];
    char line[MCA_COLL_HIER_LINE_MAX], where[192], torus[128] = "";
    int nodes, clusters;

    if (c->verbose < 1 || 0 != ompi_comm_rank(comm) || (!first && c->verbose < 2)) {
        return;
    }
    nodes = NULL == module->topology ? 0 : hier_comm_node_count(module->topology);
    clusters = NULL == module->topology ? 1 : hier_comm_cluster_count(module->topology);
    if (NULL != module->topology) {
        hier_comm_torus(module->topology, torus, sizeof(torus));
    }
    /* "(size 10, 4 nodes)", "(size 9, 9 nodes, 2 clusters)", "(size 16, 1 nodes, torus 4x4)" */
    snprintf(where, sizeof(where), clusters > 1 ? "size %d, %d nodes, %d clusters" : "size %d, %d nodes",
             ompi_comm_size(comm), nodes, clusters);
    if ('\0' != torus[0]) {
        snprintf(where + strlen(where), sizeof(where) - strlen(where), ", torus %s", torus);
    }
    if (c->verbose >= 2 && '\0' != predictions[0]) {
        opal_output_verbose(2, c->output, "coll:hier: %s on %s (%s): %s", hier_op_name(op), comm->c_name,
                            where, predictions);
    }
    if (HIER_ALG_FALLBACK == chosen) {
        snprintf(line, sizeof(line), "coll:hier: %s on %s (%s): fallback (%s)",
                 hier_op_name(op), comm->c_name, where, reason);
    } else if ('\0' != reason[0]) {
        snprintf(line, sizeof(line), "coll:hier: %s on %s (%s): %s (%s)",
                 hier_op_name(op), comm->c_name, where, hier_algorithm_name(op, chosen), reason);
    } else {
        snprintf(line, sizeof(line), "coll:hier: %s on %s (%s): %s",
                 hier_op_name(op), comm->c_name, where, hier_algorithm_name(op, chosen));
    }
    if (first || 0 != strcmp(line, last)) {
        opal_output_verbose(first ? 1 : 2, c->output, "%s", line);
        strcpy(last, line);
    }
}

/* What the verbose line says of a schedule's settings, after its reason: the
 * window is the communicator's (MPI_T may differ between them), said when it
 * is not 1; and the backbone pieces, where there are clusters to cut
 * messages between. */
static void hier_describe_settings(const mca_coll_hier_module_t *module, hier_op_t op, char *reason,
                                   size_t len)
{
    if (module->call_window > 1) {
        const size_t used = strlen(reason);
        snprintf(reason + used, len - used, "%swindow %d", 0 == used ? "" : "; ", module->call_window);
    }
    if (0 != module->backbone_piece && HIER_OP_ALLTOALLV != op &&
        hier_comm_cluster_count(module->topology) > 1) {
        const size_t used = strlen(reason);
        snprintf(reason + used, len - used, "%sbackbone pieces of %zu B", 0 == used ? "" : "; ",
                 module->backbone_piece);
    }
}

/* block_bytes' size class as a bit of settled_fallback. */
static uint64_t hier_size_class_bit(size_t block_bytes)
{
    return UINT64_C(1) << hier_size_class(block_bytes);
}

static bool hier_fallback_is_settled(const mca_coll_hier_module_t *module, hier_op_t op, size_t block_bytes)
{
    return 0 != (module->settled_fallback[op] & hier_size_class_bit(block_bytes));
}

/* After a call that fell back with no reason of its own (unsupported) and
 * no trial running: its size class falls back for good when the topology
 * could not be gathered, or when the core says the decision is final. At
 * verbose 2 every call still asks, as each one may print a changed line. */
static void hier_settle_fallback(mca_coll_hier_module_t *module, hier_op_t op, size_t block_bytes)
{
    if (mca_coll_hier_component.verbose >= 2 ||
        (HIER_TOPOLOGY_READY == module->topology_state &&
         !hier_comm_fallback_settled(module->topology, op, module->algorithm[op], block_bytes))) {
        return;
    }
    module->settled_fallback[op] |= hier_size_class_bit(block_bytes);
}

const hier_schedule_t *mca_coll_hier_choose_or_measure(mca_coll_hier_module_t *module,
                                                       struct ompi_communicator_t *comm,
                                                       hier_op_t op, int root, size_t block_bytes,
                                                       const char *unsupported, int *trial_call)
{
    const hier_schedule_t *schedule = NULL;
    char reason[MCA_COLL_HIER_LINE_MAX], predictions[MCA_COLL_HIER_PREDICTIONS_MAX];
    int chosen = HIER_ALG_FALLBACK;

    *trial_call = -1;
    if (NULL == unsupported && hier_fallback_is_settled(module, op, block_bytes)) {
        return NULL;
    }
    /* The reason and the predictions are built only for verbose lines. */
    const size_t reason_len = mca_coll_hier_component.verbose >= 1 ? sizeof(reason) : 0;
    const size_t predictions_len = mca_coll_hier_component.verbose >= 2 ? sizeof(predictions) : 0;

    reason[0] = predictions[0] = '\0';
    if (HIER_TOPOLOGY_UNKNOWN == module->topology_state) {
        module->topology_state =
            OMPI_SUCCESS == hier_gather_topology(module, comm, &module->topology_error)
                ? HIER_TOPOLOGY_READY : HIER_TOPOLOGY_FAILED;
    }
    if (NULL != unsupported) {
        snprintf(reason, sizeof(reason), "%s", unsupported);
    } else if (HIER_TOPOLOGY_READY == module->topology_state) {
        schedule = hier_comm_select(module->topology, op, module->algorithm[op],
                                    root, block_bytes, &chosen, &module->call_window, trial_call, reason,
                                    reason_len, predictions, predictions_len);
    } else {
        snprintf(reason, sizeof(reason), "%s", module->topology_error);
    }
    if (NULL != schedule && reason_len > 0) {
        hier_describe_settings(module, op, reason, reason_len);
    }
    /* A trial runs its contenders in turn: its first call says so, its end
     * what it measured (mca_coll_hier_trial_record), none between. */
    if (*trial_call <= 0) {
        hier_report(module, comm, op, chosen, reason, predictions);
    }
    if (NULL == schedule && NULL == unsupported && *trial_call < 0) {
        hier_settle_fallback(module, op, block_bytes);
    }
    return schedule;
}

const hier_schedule_t *mca_coll_hier_choose(mca_coll_hier_module_t *module,
                                            struct ompi_communicator_t *comm,
                                            hier_op_t op, int root, size_t block_bytes,
                                            const char *unsupported)
{
    int trial_call;
    /* Only the alltoall's auto measures (hier_comm_select). */
    return mca_coll_hier_choose_or_measure(module, comm, op, root, block_bytes, unsupported, &trial_call);
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
                        1e3 * module->trial_clock_seconds, module->trial_starts_late, calls - 1);
}

int mca_coll_hier_trial_record(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                               hier_op_t op, size_t block_bytes, int trial_call, double seconds)
{
    char reason[MCA_COLL_HIER_LINE_MAX] = "", line[MCA_COLL_HIER_PREDICTIONS_MAX] = "";
    int calls, chosen, rc;
    double *measured = hier_comm_trial_seconds(module->topology, op, block_bytes, &calls);

    measured[trial_call] = seconds;
    if (trial_call + 1 < calls) {
        return OMPI_SUCCESS;
    }
    /* A call takes from its common start to the last rank's exit; every
     * rank concludes alike. */
    rc = comm->c_coll->coll_allreduce(MPI_IN_PLACE, measured, calls, MPI_DOUBLE, MPI_MAX, comm,
                                      comm->c_coll->coll_allreduce_module);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (!hier_comm_trial_conclude(module->topology, op, block_bytes, &chosen, reason, sizeof(reason),
                                  line, sizeof(line))) {
        if (0 == ompi_comm_rank(comm)) {  /* another round: said at verbose 2 */
            opal_output_verbose(2, mca_coll_hier_component.output, "coll:hier: %s on %s: %s",
                                hier_op_name(op), comm->c_name, line);
        }
        return OMPI_SUCCESS;
    }
    if (0 == ompi_comm_rank(comm)) {
        hier_report_trial_timing(module, comm, op, calls);
    }
    if (HIER_ALG_FALLBACK != chosen) {
        hier_describe_settings(module, op, reason, sizeof(reason));
    }
    hier_report(module, comm, op, chosen, reason, line);
    return OMPI_SUCCESS;
}
