/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/*
 * coll/hier MPI_Barrier, MPI_Ibarrier and MPI_Barrier_init: a schedule of
 * empty messages (blocks of 0 bytes) after which every rank has heard,
 * through some chain of messages, from every other rank.
 */
#include "coll_hier.h"

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"

static int hier_barrier_prepare(mca_coll_hier_call_t *call)
{
    mca_coll_hier_layout_t *buffers = call->buffers;

    mca_coll_hier_layout(&buffers[HIER_BUF_SEND], NULL, 0, &ompi_mpi_byte.dt);
    buffers[HIER_BUF_RECV] = buffers[HIER_BUF_SEND];
    return mca_coll_hier_tmp_like(call, &buffers[HIER_BUF_RECV]);
}

static const mca_coll_hier_args_t hier_barrier_args = {.root = -1};

/* Open MPI's own barrier in the call's form, with its arguments (request:
 * the nonblocking or persistent form's; NULL for the blocking one). */
static int hier_barrier_previous(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                                 const mca_coll_hier_args_t *args, struct ompi_info_t *info,
                                 mca_coll_hier_form_t form, ompi_request_t **request)
{
    if (MCA_COLL_HIER_BLOCKING == form) {
        return module->previous.barrier(comm, module->previous.barrier_module);
    }
    if (MCA_COLL_HIER_PERSISTENT == form) {
        return module->previous.barrier_init(comm, info, request, module->previous.barrier_init_module);
    }
    return module->previous.ibarrier(comm, request, module->previous.ibarrier_module);
}

static const mca_coll_hier_collective_t hier_barrier = {
    HIER_OP_BARRIER, MCA_COLL_BASE_TAG_BARRIER, hier_barrier_prepare, hier_barrier_previous};

int mca_coll_hier_barrier(struct ompi_communicator_t *comm, mca_coll_base_module_t *base)
{
    mca_coll_hier_module_t *module = (mca_coll_hier_module_t *) base;
    return mca_coll_hier_blocking(module, comm, &hier_barrier, &hier_barrier_args, 0, NULL);
}

static int hier_barrier_request(struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                ompi_request_t **request, mca_coll_hier_module_t *module,
                                mca_coll_hier_form_t form)
{
    return mca_coll_hier_request(&hier_barrier, module, comm, form, false, 0, NULL, &hier_barrier_args, info,
                                 request);
}

int mca_coll_hier_ibarrier(struct ompi_communicator_t *comm, ompi_request_t **request,
                           mca_coll_base_module_t *base)
{
    return hier_barrier_request(comm, NULL, request, (mca_coll_hier_module_t *) base, MCA_COLL_HIER_NONBLOCKING);
}

int mca_coll_hier_barrier_init(struct ompi_communicator_t *comm, struct ompi_info_t *info,
                               ompi_request_t **request, mca_coll_base_module_t *base)
{
    return hier_barrier_request(comm, info, request, (mca_coll_hier_module_t *) base, MCA_COLL_HIER_PERSISTENT);
}
