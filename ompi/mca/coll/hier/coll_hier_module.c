/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/*
 * coll/hier module lifecycle: which communicators hier takes (comm_query),
 * what it falls back to (enable keeps the previous module's functions,
 * disable and destruct release them), and what a module holds from its
 * creation to its end.
 */
#include "coll_hier.h"

#include <string.h>

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
    module->topology_state = MCA_COLL_HIER_TOPOLOGY_UNKNOWN;
    module->topology = NULL;
    module->topology_error = NULL;
    module->comm = NULL;
    memset(module->last_line_hash, 0, sizeof(module->last_line_hash));
    memset(&module->gathering, 0, sizeof(module->gathering));
    module->job_nodes = NULL;
    module->topology_probed = false;
    memset(&module->work, 0, sizeof(module->work));
    memset(&module->trial_clock, 0, sizeof(module->trial_clock));
}

static void hier_module_destruct(mca_coll_hier_module_t *module)
{
    mca_coll_hier_gathering_release(module);
    hier_release_previous(module);
    if (NULL != module->topology) {
        hier_comm_destroy(module->topology);
        module->topology = NULL;
    }
    mca_coll_hier_work_release(&module->work);
}

OBJ_CLASS_INSTANCE(mca_coll_hier_module_t, mca_coll_base_module_t,
                   hier_module_construct, hier_module_destruct);

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

int mca_coll_hier_init_query(bool enable_progress_threads, bool enable_mpi_threads)
{
    return mca_coll_hier_component.other_series ? OMPI_ERR_NOT_AVAILABLE : OMPI_SUCCESS;
}

mca_coll_base_module_t *mca_coll_hier_comm_query(struct ompi_communicator_t *comm, int *priority)
{
    const mca_coll_hier_component_t *c = &mca_coll_hier_component;
    const bool in_use = c->selection_priority >= 0 && !c->listed_alone;
    mca_coll_hier_module_t *module;

    /* MPI_COMM_WORLD is queried first, once, inside MPI_Init. Alone in the
     * coll list, hier is followed by Open MPI failing MPI_Init: say why
     * first. The settings are parsed here too, before any thread can race. */
    if (comm == &ompi_mpi_comm_world.comm) {
        mca_coll_hier_settings_once(in_use);
    }
    if (!in_use || NULL == c->settings || OMPI_COMM_IS_INTER(comm) || ompi_comm_size(comm) < 2 ||
        hier_every_algorithm_fallback()) {
        return NULL;
    }
    module = OBJ_NEW(mca_coll_hier_module_t);
    if (NULL == module) {
        return NULL;
    }
    memcpy(module->algorithm, c->algorithm, sizeof(module->algorithm));
    module->window = module->call_window = c->window;
    module->backbone_piece = hier_settings_backbone_piece(c->settings);
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
    module->comm = comm;  /* the communicator everything of this module acts on */
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
    /* A gathering still in flight belongs to the previous module's
     * allgather: it ends before that module is let go. */
    mca_coll_hier_gathering_release((mca_coll_hier_module_t *) base);
    hier_release_previous((mca_coll_hier_module_t *) base);
    return OMPI_SUCCESS;
}
