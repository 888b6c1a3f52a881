/*
 * coll/hier component: the structure Open MPI loads (mca_coll_hier_component),
 * the MCA parameters, and open/close, which decide once per process whether
 * hier was asked for.
 */
#include "coll_hier.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opal/mca/base/mca_base_var.h"
#include "opal/mca/base/mca_base_var_enum.h"
#include "opal/util/argv.h"
#include "opal/util/output.h"

/* Named in the coll list without an explicit priority, hier takes one above
 * tuned's (30): modules are enabled in priority order, so hier's enable runs
 * after the others' and sees the functions it falls back to. */
#define HIER_DEFAULT_PRIORITY 90

static int hier_register(void);
static int hier_open(void);
static int hier_close(void);

mca_coll_hier_component_t mca_coll_hier_component = {
    .super = {
        .collm_version = {
            MCA_COLL_HIER_BASE_VERSION,
            .mca_component_name = "hier",
            MCA_BASE_MAKE_VERSION(component, MCA_COLL_HIER_MAJOR_VERSION,
                                  MCA_COLL_HIER_MINOR_VERSION,
                                  MCA_COLL_HIER_RELEASE_VERSION),
            .mca_open_component = hier_open,
            .mca_close_component = hier_close,
            .mca_register_component_params = hier_register,
        },
        .collm_data = {
            MCA_BASE_METADATA_PARAM_NONE
        },
        .collm_init_query = mca_coll_hier_init_query,
        .collm_comm_query = mca_coll_hier_comm_query,
    },
    .priority = HIER_DEFAULT_PRIORITY,
    .output = -1,
    .selection_priority = -1,
};

/* "auto (what it does), fallback (...), ...": the help of an algorithm
 * parameter, from the core's registry. The caller frees it. */
static char *hier_algorithm_help(hier_op_t op)
{
    const int count = hier_algorithm_count(op);
    const char *settable = ". Settable through MPI_T: a communicator keeps the algorithm in force "
                           "when it was created; fallback for every collective keeps hier out of it";
    size_t len = 128 + strlen(settable);
    char *help;

    for (int id = 0; id < count; ++id) {
        len += strlen(hier_algorithm_name(op, id)) + strlen(hier_algorithm_description(op, id)) + 8;
    }
    help = malloc(len);
    if (NULL == help) {
        return NULL;
    }
    snprintf(help, len, "Algorithm for MPI_%c%s when hier is selected:",
             toupper((unsigned char) hier_op_name(op)[0]), hier_op_name(op) + 1);
    for (int id = 0; id < count; ++id) {
        snprintf(help + strlen(help), len - strlen(help), "%s %s (%s)", id ? "," : "",
                 hier_algorithm_name(op, id), hier_algorithm_description(op, id));
    }
    strcat(help, settable);
    return help;
}

/* "auto (what it does), blind (...), ...": the help of
 * coll_hier_hypercube_embedding, from the core's table. The caller frees it. */
static char *hier_embedding_help(void)
{
    static const char intro[] =
        "Where processes sit on the hypercube of the hypercube collectives "
        "(coll_hier_<op>_algorithm=hypercube), by the costs of coll_hier_cost:";
    size_t len = sizeof(intro) + 8;
    char *help;

    for (int id = 0; id < hier_embedding_count(); ++id) {
        len += strlen(hier_embedding_name(id)) + strlen(hier_embedding_description(id)) + 8;
    }
    help = malloc(len);
    if (NULL == help) {
        return NULL;
    }
    snprintf(help, len, "%s", intro);
    for (int id = 0; id < hier_embedding_count(); ++id) {
        snprintf(help + strlen(help), len - strlen(help), "%s %s (%s)", id ? "," : "",
                 hier_embedding_name(id), hier_embedding_description(id));
    }
    return help;
}

/* Open MPI's own enums reject an unknown value with a multi-line message
 * from every process and keep the default (auto). hier's algorithm enums take
 * it as "fallback" instead and remember it, so that one line can report it
 * (mca_coll_hier_report_settings) and every call stays correct. */
static mca_base_var_enum_vfs_fn_t hier_enum_lookup;

static int hier_algorithm_from_string(mca_base_var_enum_t *names, const char *text, int *id)
{
    mca_coll_hier_component_t *c = &mca_coll_hier_component;
    char name[64];

    if (OPAL_SUCCESS == hier_enum_lookup(names, text, id)) {
        return OPAL_SUCCESS;
    }
    for (int op = 0; op < HIER_OP_COUNT; ++op) {
        snprintf(name, sizeof(name), "coll_hier_%s_algorithm", hier_op_name((hier_op_t) op));
        if (0 == strcmp(name, names->enum_name)) {
            free(c->algorithm_invalid[op]);
            c->algorithm_invalid[op] = strdup(text);
        }
    }
    *id = HIER_ALG_FALLBACK;
    return OPAL_SUCCESS;
}

/* Registers coll_hier_<op>_algorithm as an enum of the core's registry:
 * ids 0..count-1 named by hier_algorithm_name, so ompi_info lists them. */
static int hier_register_algorithm(hier_op_t op)
{
    mca_coll_hier_component_t *c = &mca_coll_hier_component;
    const int count = hier_algorithm_count(op);
    mca_base_var_enum_value_t *values = calloc(count + 1, sizeof(*values));
    char *help = hier_algorithm_help(op);
    mca_base_var_enum_t *names = NULL;
    char name[64];
    int rc = OPAL_ERR_OUT_OF_RESOURCE;

    if (NULL != values && NULL != help) {
        for (int id = 0; id < count; ++id) {
            values[id].value = id;
            values[id].string = hier_algorithm_name(op, id);
        }
        snprintf(name, sizeof(name), "coll_hier_%s_algorithm", hier_op_name(op));
        rc = mca_base_var_enum_create(name, values, &names);
    }
    if (OPAL_SUCCESS == rc) {
        hier_enum_lookup = names->value_from_string;
        names->value_from_string = hier_algorithm_from_string;
        c->algorithm[op] = HIER_ALG_AUTO;
        rc = mca_base_component_var_register(&c->super.collm_version, name + strlen("coll_hier_"),
                                             help, MCA_BASE_VAR_TYPE_INT, names, 0,
                                             MCA_BASE_VAR_FLAG_SETTABLE,
                                             OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_ALL_EQ,
                                             &c->algorithm[op]);
        OBJ_RELEASE(names);
    }
    free(values);
    free(help);
    return rc < 0 ? rc : OPAL_SUCCESS;
}

/* A string parameter at level 5, the same on every process: *storage holds
 * default_value until Open MPI sets it. */
static void hier_register_string(const char *name, const char *help, char *default_value, char **storage)
{
    *storage = default_value;
    (void) mca_base_component_var_register(&mca_coll_hier_component.super.collm_version, name, help,
                                           MCA_BASE_VAR_TYPE_STRING, NULL, 0, 0, OPAL_INFO_LVL_5,
                                           MCA_BASE_VAR_SCOPE_ALL_EQ, storage);
}

/* Is the Open MPI that loaded this module the series it was built for? The
 * coll interface and libopen-pal change between series (4.1, 5.0) while
 * libmpi.so.40 does not, so a module built for one series can be loaded by
 * the other. It then says so in one line (from rank 0 of a job, or from
 * ompi_info) and calls nothing of Open MPI's but the MPI standard's
 * MPI_Get_library_version: it registers no parameter, its open and close do
 * nothing and it declines every communicator. It still registers as a
 * component, so that a coll list naming hier does not fail MPI_Init. */
static bool hier_series_matches(void)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    const char *rank = getenv("OMPI_COMM_WORLD_RANK");
    int len = 0, major = -1, minor = -1;

    if (MPI_SUCCESS != MPI_Get_library_version(version, &len) ||
        2 != sscanf(version, "Open MPI v%d.%d", &major, &minor)) {
        major = minor = -1;
    }
    if (OMPI_MAJOR_VERSION == major && OMPI_MINOR_VERSION == minor) {
        return true;
    }
    if (NULL == rank || 0 == strcmp(rank, "0")) {
        fprintf(stderr, "coll:hier: this mca_coll_hier.so was built for Open MPI %d.%d, loaded into %.*s: hier "
                "is disabled and Open MPI's own collectives run (rebuild hier against this Open MPI)\n",
                OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION, (int) strcspn(version, ","), version);
    }
    return false;
}

static int hier_register(void)
{
    mca_coll_hier_component_t *c = &mca_coll_hier_component;
    const mca_base_component_t *v = &c->super.collm_version;
    char *help;
    int rc;

    c->other_series = !hier_series_matches();
    if (c->other_series) {
        return OPAL_SUCCESS;
    }
    c->priority = HIER_DEFAULT_PRIORITY;
    c->priority_var = mca_base_component_var_register(v, "priority",
        "Priority of coll/hier (0-100). hier is used only when asked for: named in the coll "
        "list (--mca coll hier,tuned,libnbc,basic,inter,self), where it takes this priority, "
        "or when this parameter is set explicitly (above tuned's to take effect). Otherwise "
        "it declines every communicator and changes nothing.",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_6,
        MCA_BASE_VAR_SCOPE_READONLY, &c->priority);

    c->verbose = 0;
    (void) mca_base_component_var_register(v, "verbose",
        "Verbosity of coll/hier on stderr: 1 = rank 0 of each communicator prints one line "
        "the first time each collective runs on it, naming the algorithm chosen or why it "
        "fell back; 2 = also whenever that decision changes, one line of the times auto's "
        "model predicted each time it decides for a new size class of blocks, and one of the "
        "times it measured where the model could not tell (coll_hier_auto_trial_calls)",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_5,
        MCA_BASE_VAR_SCOPE_LOCAL, &c->verbose);

    c->window = 1;
    (void) mca_base_component_var_register(v, "window",
        "Rounds of a schedule a process may have in flight at once. 1: each round completes "
        "before the next is posted, the strict step order of the papers' single-port model; "
        "larger: later independent rounds are posted while earlier ones finish, so a link "
        "does not idle while a process waits for one partner (values below 1 count as 1). "
        "Settable through MPI_T: a communicator keeps the value in force when it was created",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, MCA_BASE_VAR_FLAG_SETTABLE, OPAL_INFO_LVL_5,
        MCA_BASE_VAR_SCOPE_ALL_EQ, &c->window);

    c->auto_trial_calls = 0;
    (void) mca_base_component_var_register(v, "auto_trial_calls",
        "0 (the default): auto decides from its time model alone, the same way on every run. "
        "N > 0: where the model cannot tell its best alltoalls from Open MPI's own, the first "
        "calls of that size class time them against each other, N calls each per round "
        "(up to 5 rounds), and keep the fastest: the job measures itself, at a cost in its "
        "first calls and with a pick that may differ between runs (docs/tuning.md)",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_5,
        MCA_BASE_VAR_SCOPE_ALL_EQ, &c->auto_trial_calls);

    c->backbone_piece = 0;
    (void) mca_base_component_var_register(v, "backbone_piece",
        "Messages between clusters (coll_hier_cluster_map) longer than this travel in pieces of "
        "at most this many bytes, in collectives of equal blocks: each goes eagerly, where a "
        "whole message would wait for a rendezvous answer that crosses the backbone behind the "
        "other direction's data. 0: a little under btl_tcp_eager_limit (1 KiB less); -1: whole "
        "messages. Fixed per communicator when it is created",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_5,
        MCA_BASE_VAR_SCOPE_ALL_EQ, &c->backbone_piece);

    hier_register_string("node_map",
        "Node structure to impose instead of Open MPI's locality (for testing on one host): "
        "node sizes for consecutive ranks of MPI_COMM_WORLD, e.g. \"4,3,2,1\" for 10 "
        "processes; communicators derived from it inherit it. Empty: use Open MPI's "
        "locality. A map that does not parse or fit is reported once and hier falls back",
        NULL, &c->node_map);

    hier_register_string("cluster_map",
        "Clusters of nodes, for communicators that span clusters joined by a slower "
        "backbone. Host patterns, e.g. \"nancy:cvn[1-3];rennes:cvn[4-9]\": clusters separated "
        "by ';', each a name, ':' and comma-separated host names with bracket ranges, matched "
        "against every rank's host name (every communicator gets its clusters). Counts: "
        "cluster sizes in nodes, for the nodes of each communicator in the order of their "
        "lowest rank, e.g. \"3,6\" (the first 3 nodes, then the next 6). \"probe\": measured "
        "by ping-pongs among node leaders. Empty: one cluster. A map that does not parse or "
        "fit is reported once and the communicators it does not fit fall back",
        NULL, &c->cluster_map);

    hier_register_string("link_costs",
        "What a message costs on each class of link, for auto's time model: comma-separated "
        "CLASS=LATENCY:BANDWIDTH[:OVERHEAD], CLASS node (shared memory), network (between nodes "
        "of a cluster, per NIC) or backbone (between clusters), times in ns, us, ms or s, "
        "bandwidths in bit/s, kbit/s, Mbit/s, Gbit/s, B/s, kB/s, MB/s or GB/s, e.g. "
        "\"node=1us:40Gbit/s,network=30us:200Mbit/s,backbone=5ms:100Mbit/s\". On a torus of "
        "nodes (coll_hier_torus_dims, one rank per node), hop=LATENCY adds what each node a "
        "message passes through costs (the network's latency is a neighbour's). A class not given "
        "is unknown: auto then picks a hier algorithm only if it wins on every machine the "
        "unknown classes could be (see docs/tuning.md). The entry probe (the default) measures, "
        "for the classes not given, the network's and backbone's latencies (ping-pongs among "
        "node leaders; on a torus of nodes also the latency per hop, their slope over the hops) "
        "and the cost per message within a node and between nodes (every rank "
        "exchanging small messages at once); bandwidths stay unknown. It runs once per job, at "
        "the first collective of the first communicator whose alltoall auto's time model "
        "decides (more than one node, at most 128 ranks), and is reported at verbose 1; later "
        "communicators over nodes already probed reuse what it measured. "
        "Empty: every class unknown, nothing measured. A value that does not parse is "
        "reported once and taken as empty",
        "probe", &c->link_costs);

    hier_register_string("dynamic_rules",
        "A file of rules that override auto: per collective, communicator size and message "
        "size, an algorithm (number or name) and a window, in Open MPI tuned's dynamic rules "
        "syntax (docs/rules-file.md). Empty: auto decides everywhere. A file that cannot be "
        "read or parsed is reported in one line, and auto decides",
        NULL, &c->dynamic_rules);

    hier_register_string("torus_dims",
        "The ranks form a torus of these dimension sizes, joined by x, e.g. \"8x8\" or "
        "\"4x8x8\": ranks in row-major order (the last dimension varying fastest, as "
        "MPI_Cart_coords numbers them). Its product must be the size of MPI_COMM_WORLD; it "
        "applies to every communicator of that size. A Cartesian communicator periodic in "
        "every dimension is a torus of its own dimensions, whatever this says. Empty: no "
        "torus. A value that does not parse or fit is reported once and scatter and gather "
        "fall back",
        NULL, &c->torus_dims);

    hier_register_string("cost",
        "Costs between processes, which the hypercube collectives' embedding "
        "(coll_hier_hypercube_embedding) minimises: \"locality\" (levels from the topology: "
        "two processes of one node cost 1, of one cluster 10, of two clusters 100), "
        "\"probe\" (one-way latency among node leaders, measured once per job, "
        "with a tenth of the lowest for two processes of one node), or \"file:PATH\" (a "
        "square, symmetric matrix of non-negative numbers, one row per line, over "
        "MPI_COMM_WORLD's ranks (p x p) or over nodes (N x N); see docs/hypercube.md). A value "
        "that does not parse or fit is reported once and hier falls back",
        "locality", &c->cost);

    help = hier_embedding_help();
    hier_register_string("hypercube_embedding",
        NULL != help ? help : "Embedding of the hypercube collectives",
        "auto", &c->hypercube_embedding);
    free(help);

    for (int op = 0; op < HIER_OP_COUNT; ++op) {
        rc = hier_register_algorithm((hier_op_t) op);
        if (OPAL_SUCCESS != rc) {
            return rc;
        }
    }
    return c->priority_var < 0 ? c->priority_var : OMPI_SUCCESS;
}

/* The coll framework's include list (--mca coll a,b,c), or NULL when it is
 * unset or an exclude list (^a,b). The caller frees it with opal_argv_free. */
static char **hier_coll_include_list(void)
{
    const int var = mca_base_var_find("ompi", "coll", NULL, NULL);
    char **value = NULL;

    if (var < 0 || OPAL_SUCCESS != mca_base_var_get_value(var, &value, NULL, NULL) ||
        NULL == value || NULL == *value || '^' == (*value)[0]) {
        return NULL;
    }
    return opal_argv_split(*value, ',');
}

/* The priority comm_query answers with, or -1 (decline) when hier was not
 * asked for: neither named in the coll list nor given a priority. */
static int hier_selection_priority(void)
{
    mca_coll_hier_component_t *c = &mca_coll_hier_component;
    mca_base_var_source_t source = MCA_BASE_VAR_SOURCE_DEFAULT;
    char **list = hier_coll_include_list();
    bool named = false;

    for (int i = 0; NULL != list && NULL != list[i]; ++i) {
        named = named || 0 == strcmp(list[i], "hier");
    }
    c->listed_alone = named && 1 == opal_argv_count(list);
    opal_argv_free(list);

    (void) mca_base_var_get_value(c->priority_var, NULL, &source, NULL);
    return named || MCA_BASE_VAR_SOURCE_DEFAULT != source ? c->priority : -1;
}

static int hier_open(void)
{
    mca_coll_hier_component_t *c = &mca_coll_hier_component;
    opal_output_stream_t stream;

    if (c->other_series) {
        return OMPI_SUCCESS;
    }

    /* No prefix: the verbose lines are printed exactly as documented. */
    OBJ_CONSTRUCT(&stream, opal_output_stream_t);
    stream.lds_want_stderr = true;
    stream.lds_verbose_level = c->verbose;
    c->output = opal_output_open(&stream);
    OBJ_DESTRUCT(&stream);

    c->selection_priority = hier_selection_priority();
    return OMPI_SUCCESS;
}

static int hier_close(void)
{
    mca_coll_hier_component_t *c = &mca_coll_hier_component;

    if (c->output >= 0) {
        opal_output_close(c->output);
        c->output = -1;
    }
    for (int op = 0; op < HIER_OP_COUNT; ++op) {
        free(c->algorithm_invalid[op]);
        c->algorithm_invalid[op] = NULL;
    }
    hier_settings_destroy(c->settings);
    c->settings = NULL;
    return OMPI_SUCCESS;
}
