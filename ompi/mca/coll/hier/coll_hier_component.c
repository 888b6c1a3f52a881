/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
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

/* The help of coll_hier_<op>_algorithm: two sentences; ompi_info lists the
 * names (the enum's values), README.md's table says what each does. The
 * caller frees it. */
static char *hier_algorithm_help(hier_op_t op)
{
    const char *name = hier_op_name(op);
    const size_t len = 512;
    char *help = malloc(len);

    if (NULL != help) {
        snprintf(help, len, "Algorithm for MPI_%c%s when hier is selected: auto (a row only where auto "
                            "expects a gain), fallback (Open MPI's own) or a row of the valid values "
                            "(README.md's table says what each does). Settable through MPI_T: a communicator "
                            "keeps the algorithm in force when it was created",
                 toupper((unsigned char) name[0]), name + 1);
    }
    return help;
}

/* The help of coll_hier_hypercube_embedding, naming its values from the
 * core's table (docs/hypercube.md says what each does). The caller frees it. */
static char *hier_embedding_help(void)
{
    static const char intro[] =
        "Where processes sit on the hypercube of the hypercube collectives, by the costs of "
        "coll_hier_cost: one of";
    static const char outro[] = " (docs/hypercube.md)";
    size_t len = sizeof(intro) + sizeof(outro);
    char *help;

    for (int id = 0; id < hier_embedding_count(); ++id) {
        len += strlen(hier_embedding_name(id)) + 2;
    }
    help = malloc(len);
    if (NULL == help) {
        return NULL;
    }
    snprintf(help, len, "%s", intro);
    for (int id = 0; id < hier_embedding_count(); ++id) {
        snprintf(help + strlen(help), len - strlen(help), "%s %s", id ? "," : "", hier_embedding_name(id));
    }
    strcat(help, outro);
    return help;
}

/* Open MPI's own enums reject an unknown value with a multi-line message
 * from every process and keep the default (auto). hier's algorithm enums take
 * it as "fallback" instead and remember it, so that one line can report it
 * (hier_report_settings (coll_hier_settings.c)) and every call stays correct. */
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
        "Priority of coll/hier when selected (0-100). hier runs only when named in the coll list "
        "(--mca coll hier,tuned,libnbc,basic,inter,self) or when this is set explicitly.",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_6,
        MCA_BASE_VAR_SCOPE_READONLY, &c->priority);

    c->verbose = 0;
    (void) mca_base_component_var_register(v, "verbose",
        "Verbosity on stderr, from rank 0 of each communicator: 1 names what each collective "
        "runs (or why it falls back), 2 adds auto's predictions and measurements.",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_5,
        MCA_BASE_VAR_SCOPE_LOCAL, &c->verbose);

    c->window = 1;
    (void) mca_base_component_var_register(v, "window",
        "Rounds of a schedule a process may have in flight: 1 keeps the papers' strict step "
        "order, more lets later independent rounds start while earlier ones finish. Settable "
        "through MPI_T: a communicator keeps the value in force when it was created.",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, MCA_BASE_VAR_FLAG_SETTABLE, OPAL_INFO_LVL_5,
        MCA_BASE_VAR_SCOPE_ALL_EQ, &c->window);

    c->auto_trial_calls = 0;
    (void) mca_base_component_var_register(v, "auto_trial_calls",
        "0: auto decides from its time model alone, alike on every run. N > 0: where the model "
        "cannot tell, the first calls of a size class time its best alltoalls against Open "
        "MPI's own, N calls each per round, and keep the fastest (docs/tuning.md).",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_5,
        MCA_BASE_VAR_SCOPE_ALL_EQ, &c->auto_trial_calls);

    c->backbone_piece = 0;
    (void) mca_base_component_var_register(v, "backbone_piece",
        "Messages between clusters longer than this many bytes travel in pieces, each sent "
        "eagerly instead of waiting on a rendezvous across the backbone. 0: 1 KiB under "
        "btl_tcp_eager_limit; -1: whole messages.",
        MCA_BASE_VAR_TYPE_INT, NULL, 0, 0, OPAL_INFO_LVL_5,
        MCA_BASE_VAR_SCOPE_ALL_EQ, &c->backbone_piece);

    hier_register_string("node_map",
        "Node sizes for consecutive ranks of MPI_COMM_WORLD, e.g. \"4,3,2,1\", imposed instead "
        "of Open MPI's locality (for testing on one host); a node's sockets joined by +, e.g. "
        "\"2+2,3,2,1\". Empty: Open MPI's locality.",
        NULL, &c->node_map);

    hier_register_string("cluster_map",
        "Clusters of nodes joined by a slower backbone: host patterns "
        "(\"nancy:cvn[1-3];rennes:cvn[4-9]\"), cluster sizes in nodes (\"3,6\"), \"probe\" "
        "to measure them, or what the machine says: slurm[:LEVEL], topology:PATH (a Slurm "
        "topology.conf), coordinates:PATH (MPICH's). Empty: one cluster (docs/hierarchy.md).",
        NULL, &c->cluster_map);

    hier_register_string("link_costs",
        "What a message costs on each class of link, for auto's time model: comma-separated "
        "CLASS=LATENCY:BANDWIDTH[:OVERHEAD] for node, socket, network or backbone, e.g. "
        "\"network=30us:200Mbit/s\", oversubscription=RATIO for clusters behind leaf switches, "
        "and probe, which measures the latencies not given. "
        "Empty: every class unknown (docs/parameters.md).",
        "probe", &c->link_costs);

    hier_register_string("dynamic_rules",
        "A file of rules in Open MPI tuned's dynamic rules syntax that override auto per "
        "collective, communicator size and message size (docs/rules-file.md). Empty: auto "
        "decides everywhere.",
        NULL, &c->dynamic_rules);

    hier_register_string("torus_dims",
        "The ranks of MPI_COMM_WORLD form a torus of these sizes in row-major order, e.g. "
        "\"8x8\" or \"4x8x8\"; a periodic Cartesian communicator is a torus of its own. "
        "Empty: no torus but those.",
        NULL, &c->torus_dims);

    hier_register_string("cost",
        "Costs between processes that the hypercube collectives' embedding minimises: "
        "\"locality\" (levels from the topology), \"probe\" (measured latencies) or "
        "\"file:PATH\" (a p x p or nodes x nodes matrix; docs/hypercube.md).",
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
    mca_coll_hier_requests_open();
    return OMPI_SUCCESS;
}

static int hier_close(void)
{
    mca_coll_hier_component_t *c = &mca_coll_hier_component;

    mca_coll_hier_requests_close();
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
