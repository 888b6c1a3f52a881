/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/*
 * coll/hier MPI_Allgather, MPI_Iallgather and MPI_Allgather_init: rank j's
 * block lands in block j of every receive buffer. Asks the core for a
 * schedule for this call and runs it over the PML; hands the call to the
 * previous module when the core says fallback. (The module also gathers its
 * topology with the previous allgather, never with this one.)
 */
#include "coll_hier.h"

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"

static int hier_allgather_prepare(mca_coll_hier_call_t *call)
{
    const mca_coll_hier_args_t *a = call->args;
    mca_coll_hier_layout_t *buffers = call->buffers;

    mca_coll_hier_layout(&buffers[HIER_BUF_RECV], a->rbuf, (size_t) a->rcount, a->rdtype);
    if (MPI_IN_PLACE == a->sbuf) {
        /* My block is in place in the receive buffer. */
        mca_coll_hier_layout_at(&buffers[HIER_BUF_SEND], &buffers[HIER_BUF_RECV],
                                (size_t) ompi_comm_rank(call->comm));
    } else {
        mca_coll_hier_layout(&buffers[HIER_BUF_SEND], a->sbuf, (size_t) a->scount, a->sdtype);
    }
    return mca_coll_hier_tmp_like(call, &buffers[HIER_BUF_RECV]);
}

static size_t hier_allgather_block_bytes(const mca_coll_hier_args_t *a)
{
    size_t type_size;

    ompi_datatype_type_size(a->rdtype, &type_size);
    return type_size * (size_t) a->rcount;
}

/* Open MPI's own allgather in the call's form, with its arguments (request:
 * the nonblocking or persistent form's; NULL for the blocking one). */
static int hier_allgather_previous(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                                   const mca_coll_hier_args_t *args, struct ompi_info_t *info,
                                   mca_coll_hier_form_t form, ompi_request_t **request)
{
    if (MCA_COLL_HIER_BLOCKING == form) {
        return module->previous.allgather(args->sbuf, args->scount, args->sdtype, args->rbuf, args->rcount,
                                          args->rdtype, comm, module->previous.allgather_module);
    }
    if (MCA_COLL_HIER_PERSISTENT == form) {
        return module->previous.allgather_init(args->sbuf, args->scount, args->sdtype, args->rbuf, args->rcount,
                                               args->rdtype, comm, info, request,
                                               module->previous.allgather_init_module);
    }
    return module->previous.iallgather(args->sbuf, args->scount, args->sdtype, args->rbuf, args->rcount,
                                       args->rdtype, comm, request, module->previous.iallgather_module);
}

static const mca_coll_hier_collective_t hier_allgather = {
    HIER_OP_ALLGATHER, MCA_COLL_BASE_TAG_ALLGATHER, hier_allgather_prepare, hier_allgather_previous};

int mca_coll_hier_allgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                            void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                            struct ompi_communicator_t *comm, mca_coll_base_module_t *base)
{
    mca_coll_hier_module_t *module = (mca_coll_hier_module_t *) base;
    const mca_coll_hier_args_t args = {.sbuf = sbuf, .rbuf = rbuf, .scount = scount, .rcount = rcount,
                                       .sdtype = sdtype, .rdtype = rdtype, .root = -1};
    const size_t block_bytes = hier_allgather_block_bytes(&args);

    if (0 == block_bytes) {
        return MPI_SUCCESS;
    }
    return mca_coll_hier_blocking(module, comm, &hier_allgather, &args, block_bytes, NULL);
}

static int hier_allgather_request(const mca_coll_hier_args_t *args, struct ompi_communicator_t *comm,
                                  struct ompi_info_t *info, ompi_request_t **request,
                                  mca_coll_hier_module_t *module, mca_coll_hier_form_t form)
{
    const size_t block_bytes = hier_allgather_block_bytes(args);

    return mca_coll_hier_request(&hier_allgather, module, comm, form, 0 == block_bytes, block_bytes, NULL, args, info,
                                 request);
}

int mca_coll_hier_iallgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
                             int rcount, struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
                             ompi_request_t **request, mca_coll_base_module_t *base)
{
    const mca_coll_hier_args_t args = {.sbuf = sbuf, .rbuf = rbuf, .scount = scount, .rcount = rcount,
                                       .sdtype = sdtype, .rdtype = rdtype, .root = -1};
    return hier_allgather_request(&args, comm, NULL, request, (mca_coll_hier_module_t *) base,
                                  MCA_COLL_HIER_NONBLOCKING);
}

int mca_coll_hier_allgather_init(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
                                 int rcount, struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
                                 struct ompi_info_t *info, ompi_request_t **request, mca_coll_base_module_t *base)
{
    const mca_coll_hier_args_t args = {.sbuf = sbuf, .rbuf = rbuf, .scount = scount, .rcount = rcount,
                                       .sdtype = sdtype, .rdtype = rdtype, .root = -1};
    return hier_allgather_request(&args, comm, info, request, (mca_coll_hier_module_t *) base,
                                  MCA_COLL_HIER_PERSISTENT);
}
