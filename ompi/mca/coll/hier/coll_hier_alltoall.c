/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/*
 * coll/hier MPI_Alltoall, MPI_Ialltoall and MPI_Alltoall_init: asks the core
 * for a schedule for this call and runs it over the PML; hands the call to
 * the previous module when the core says fallback. Block b of the send
 * buffer goes to rank b. A blocking call auto measures (hier_comm_decide's
 * trial) is timed here, from the instant every rank starts it at
 * (mca_coll_hier_trial_start).
 */
#include "coll_hier.h"

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"

/* The receive buffer, the send buffer and TMP (laid out like the receive
 * buffer). MPI_IN_PLACE: the schedule reads the send buffer while it writes
 * the receive buffer, so it sends from a copy of the receive buffer, laid
 * out like it (rcount elements of rdtype per block). */
static int hier_alltoall_prepare(mca_coll_hier_call_t *call)
{
    const mca_coll_hier_args_t *a = call->args;
    mca_coll_hier_layout_t *recv = &call->buffers[HIER_BUF_RECV], *send = &call->buffers[HIER_BUF_SEND];
    int rc = OMPI_SUCCESS;

    mca_coll_hier_layout(recv, a->rbuf, (size_t) a->rcount, a->rdtype);
    if (MPI_IN_PLACE == a->sbuf) {
        const size_t blocks = (size_t) ompi_comm_size(call->comm);
        rc = mca_coll_hier_scratch(&call->work->in_place, &call->work->in_place_size, blocks, recv->count,
                                   recv->dtype, send);
        rc = OMPI_SUCCESS == rc ? ompi_datatype_copy_content_same_ddt(recv->dtype, blocks * recv->count,
                                                                      send->base, recv->base)
                                : rc;
    } else {
        mca_coll_hier_layout(send, a->sbuf, (size_t) a->scount, a->sdtype);
    }
    return OMPI_SUCCESS == rc ? mca_coll_hier_tmp_like(call, recv) : rc;
}

/* Every rank receives the same number of bytes per block (the send side
 * has the same signature), so every rank takes the same branches. */
static size_t hier_alltoall_block_bytes(int rcount, struct ompi_datatype_t *rdtype)
{
    size_t type_size;

    ompi_datatype_type_size(rdtype, &type_size);
    return type_size * (size_t) rcount;
}

/* Open MPI's own alltoall in the call's form, with its arguments (request:
 * the nonblocking or persistent form's; NULL for the blocking one). */
static int hier_alltoall_previous(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                                  const mca_coll_hier_args_t *args, struct ompi_info_t *info,
                                  mca_coll_hier_form_t form, ompi_request_t **request)
{
    if (MCA_COLL_HIER_BLOCKING == form) {
        return module->previous.alltoall(args->sbuf, args->scount, args->sdtype, args->rbuf, args->rcount,
                                         args->rdtype, comm, module->previous.alltoall_module);
    }
    if (MCA_COLL_HIER_PERSISTENT == form) {
        return module->previous.alltoall_init(args->sbuf, args->scount, args->sdtype, args->rbuf, args->rcount,
                                              args->rdtype, comm, info, request,
                                              module->previous.alltoall_init_module);
    }
    return module->previous.ialltoall(args->sbuf, args->scount, args->sdtype, args->rbuf, args->rcount,
                                      args->rdtype, comm, request, module->previous.ialltoall_module);
}

static const mca_coll_hier_collective_t hier_alltoall = {
    HIER_OP_ALLTOALL, MCA_COLL_BASE_TAG_ALLTOALL, hier_alltoall_prepare, hier_alltoall_previous};

int mca_coll_hier_alltoall(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                           void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                           struct ompi_communicator_t *comm, mca_coll_base_module_t *base)
{
    mca_coll_hier_module_t *module = (mca_coll_hier_module_t *) base;
    const mca_coll_hier_args_t args = {.sbuf = sbuf, .rbuf = rbuf, .scount = scount, .rcount = rcount,
                                       .sdtype = sdtype, .rdtype = rdtype, .root = -1};
    const size_t block_bytes = hier_alltoall_block_bytes(rcount, rdtype);

    if (0 == block_bytes) {
        return MPI_SUCCESS;
    }
    return mca_coll_hier_blocking(module, comm, &hier_alltoall, &args, block_bytes, NULL);
}

static int hier_alltoall_request(const mca_coll_hier_args_t *args, struct ompi_communicator_t *comm,
                                 struct ompi_info_t *info, ompi_request_t **request,
                                 mca_coll_hier_module_t *module, mca_coll_hier_form_t form)
{
    const size_t block_bytes = hier_alltoall_block_bytes(args->rcount, args->rdtype);

    return mca_coll_hier_request(&hier_alltoall, module, comm, form, 0 == block_bytes, block_bytes, NULL, args, info,
                                 request);
}

int mca_coll_hier_ialltoall(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf, int rcount,
                            struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
                            ompi_request_t **request, mca_coll_base_module_t *base)
{
    const mca_coll_hier_args_t args = {.sbuf = sbuf, .rbuf = rbuf, .scount = scount, .rcount = rcount,
                                       .sdtype = sdtype, .rdtype = rdtype, .root = -1};
    return hier_alltoall_request(&args, comm, NULL, request, (mca_coll_hier_module_t *) base,
                                 MCA_COLL_HIER_NONBLOCKING);
}

int mca_coll_hier_alltoall_init(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
                                int rcount, struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
                                struct ompi_info_t *info, ompi_request_t **request, mca_coll_base_module_t *base)
{
    const mca_coll_hier_args_t args = {.sbuf = sbuf, .rbuf = rbuf, .scount = scount, .rcount = rcount,
                                       .sdtype = sdtype, .rdtype = rdtype, .root = -1};
    return hier_alltoall_request(&args, comm, info, request, (mca_coll_hier_module_t *) base,
                                 MCA_COLL_HIER_PERSISTENT);
}
