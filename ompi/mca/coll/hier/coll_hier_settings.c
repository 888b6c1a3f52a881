/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/*
 * coll/hier settings: hands the MCA values to the core once per process
 * (hier_settings_create, when MPI_COMM_WORLD is queried) and says, from
 * world rank 0, what is wrong with them: one line per bad parameter, naming
 * it and the expected form, and what hier does instead.
 */
#include "coll_hier.h"

#include <stdio.h>
#include <string.h>

#include "opal/mca/base/mca_base_var.h"

/* btl_tcp_eager_limit, for coll_hier_backbone_piece 0; 0 if unknown. */
static size_t hier_tcp_eager_limit(void)
{
    const size_t *eager_limit = NULL;
    const int var = mca_base_var_find("ompi", "btl", "tcp", "eager_limit");

    if (var >= 0 && OPAL_SUCCESS == mca_base_var_get_value(var, &eager_limit, NULL, NULL) &&
        NULL != eager_limit) {
        return *eager_limit;
    }
    return 0;
}

/* "auto, fallback, factor": the valid values of an algorithm parameter. */
static void hier_algorithm_names(hier_op_t op, char *out, size_t len)
{
    out[0] = '\0';
    for (int id = 0; id < hier_algorithm_count(op); ++id) {
        snprintf(out + strlen(out), len - strlen(out), "%s%s", id ? ", " : "",
                 hier_algorithm_name(op, id));
    }
}

/* The settings' problems of one kind: those said whether or not hier is in
 * use, or those said only when it is. */
static void hier_report_problems(const hier_settings_t *settings, bool in_use_only)
{
    const char *line;
    int only;

    for (int i = 0; NULL != (line = hier_settings_problem(settings, i, &only)); ++i) {
        if (only == in_use_only) {
            fprintf(stderr, "coll:hier: %s\n", line);
        }
    }
}

/* What is wrong, in the order it has always been said: the link costs and
 * backbone pieces, hier alone in the coll list, unknown algorithm names;
 * then, when hier is in use, the maps, the rules file, the torus, the cost
 * source and the embedding. */
static void hier_report_settings(const hier_settings_t *settings, bool in_use)
{
    const mca_coll_hier_component_t *c = &mca_coll_hier_component;
    char names[MCA_COLL_HIER_LINE_MAX];

    if (NULL != settings) {
        hier_report_problems(settings, false);
    }
    if (c->listed_alone) {
        fprintf(stderr, "coll:hier: --mca coll hier alone leaves collectives without a provider; "
                        "use --mca coll hier,tuned,libnbc,basic,inter,self\n");
    }
    for (int op = 0; op < HIER_OP_COUNT; ++op) {
        if (NULL != c->algorithm_invalid[op]) {
            hier_algorithm_names((hier_op_t) op, names, sizeof(names));
            fprintf(stderr, "coll:hier: coll_hier_%s_algorithm \"%s\" is not one of %s; "
                            "using fallback\n",
                    hier_op_name((hier_op_t) op), c->algorithm_invalid[op], names);
        }
    }
    if (NULL != settings && in_use) {
        hier_report_problems(settings, true);
    }
    fflush(stderr);
}

void mca_coll_hier_settings_once(bool in_use)
{
    mca_coll_hier_component_t *c = &mca_coll_hier_component;
    struct ompi_communicator_t *world = &ompi_mpi_comm_world.comm;
    const hier_settings_input_t input = {
        .node_map = c->node_map,
        .cluster_map = c->cluster_map,
        .torus_dims = c->torus_dims,
        .link_costs = c->link_costs,
        .cost = c->cost,
        .hypercube_embedding = c->hypercube_embedding,
        .dynamic_rules = c->dynamic_rules,
        .auto_trial_calls = c->auto_trial_calls,
        .backbone_piece = c->backbone_piece,
        .tcp_eager_limit = hier_tcp_eager_limit(),
        .world_size = ompi_comm_size(world),
        .in_use = in_use,
    };

    if (NULL != c->settings) {
        return;
    }
    c->settings = hier_settings_create(&input);
    if (0 == ompi_comm_rank(world)) {
        hier_report_settings(c->settings, in_use);
    }
}
