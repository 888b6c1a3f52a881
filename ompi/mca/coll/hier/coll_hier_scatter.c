/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/*
 * coll/hier MPI_Scatter, MPI_Iscatter and MPI_Scatter_init: the root's block
 * j goes to rank j. Asks the core for a schedule for this call and runs it
 * over the PML; hands the call to the previous module when the core says
 * fallback.
 */
#include "coll_hier.h"

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"

static int hier_scatter_prepare(mca_coll_hier_call_t *call)
{
    const mca_coll_hier_args_t *a = call->args;
    const bool is_root = ompi_comm_rank(call->comm) == a->root;
    mca_coll_hier_layout_t *buffers = call->buffers;

    if (is_root) {
        mca_coll_hier_layout(&buffers[HIER_BUF_SEND], a->sbuf, (size_t) a->scount, a->sdtype);
        if (MPI_IN_PLACE == a->rbuf) {
            /* The root's own block stays where it is in the send buffer. */
            mca_coll_hier_layout_at(&buffers[HIER_BUF_RECV], &buffers[HIER_BUF_SEND], (size_t) a->root);
        } else {
            mca_coll_hier_layout(&buffers[HIER_BUF_RECV], a->rbuf, (size_t) a->rcount, a->rdtype);
        }
    } else {
        mca_coll_hier_layout(&buffers[HIER_BUF_SEND], NULL, 0, a->rdtype);
        mca_coll_hier_layout(&buffers[HIER_BUF_RECV], a->rbuf, (size_t) a->rcount, a->rdtype);
    }
    /* Blocks the root or a forwarding rank holds in TMP are laid out like
     * the ones it sends: the root's send buffer's, everyone else's receive
     * buffer's. */
    return mca_coll_hier_tmp_like(call, &buffers[is_root ? HIER_BUF_SEND : HIER_BUF_RECV]);
}

/* The root's send signature equals every receive signature (the root's
 * receive arguments are ignored with MPI_IN_PLACE): every rank computes the
 * same block size and takes the same branches. */
static size_t hier_scatter_block_bytes(const mca_coll_hier_args_t *a, struct ompi_communicator_t *comm)
{
    const bool is_root = ompi_comm_rank(comm) == a->root;
    size_t type_size;

    ompi_datatype_type_size(is_root ? a->sdtype : a->rdtype, &type_size);
    return type_size * (size_t) (is_root ? a->scount : a->rcount);
}

/* Open MPI's own scatter in the call's form, with its arguments (request:
 * the nonblocking or persistent form's; NULL for the blocking one). */
static int hier_scatter_previous(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                                 const mca_coll_hier_args_t *args, struct ompi_info_t *info,
                                 mca_coll_hier_form_t form, ompi_request_t **request)
{
    if (MCA_COLL_HIER_BLOCKING == form) {
        return module->previous.scatter(args->sbuf, args->scount, args->sdtype, args->rbuf, args->rcount,
                                        args->rdtype, args->root, comm, module->previous.scatter_module);
    }
    if (MCA_COLL_HIER_PERSISTENT == form) {
        return module->previous.scatter_init(args->sbuf, args->scount, args->sdtype, args->rbuf, args->rcount,
                                             args->rdtype, args->root, comm, info, request,
                                             module->previous.scatter_init_module);
    }
    return module->previous.iscatter(args->sbuf, args->scount, args->sdtype, args->rbuf, args->rcount,
                                     args->rdtype, args->root, comm, request, module->previous.iscatter_module);
}

static const mca_coll_hier_collective_t hier_scatter = {
    HIER_OP_SCATTER, MCA_COLL_BASE_TAG_SCATTER, hier_scatter_prepare, hier_scatter_previous};

int mca_coll_hier_scatter(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                          void *rbuf, int rcount, struct ompi_datatype_t *rdtype, int root,
                          struct ompi_communicator_t *comm, mca_coll_base_module_t *base)
{
    mca_coll_hier_module_t *module = (mca_coll_hier_module_t *) base;
    const mca_coll_hier_args_t args = {.sbuf = sbuf, .rbuf = rbuf, .scount = scount, .rcount = rcount,
                                       .sdtype = sdtype, .rdtype = rdtype, .root = root};
    const size_t block_bytes = hier_scatter_block_bytes(&args, comm);

    if (0 == block_bytes) {
        return MPI_SUCCESS;
    }
    return mca_coll_hier_blocking(module, comm, &hier_scatter, &args, block_bytes, NULL);
}

static int hier_scatter_request(const mca_coll_hier_args_t *args, struct ompi_communicator_t *comm,
                                struct ompi_info_t *info, ompi_request_t **request,
                                mca_coll_hier_module_t *module, mca_coll_hier_form_t form)
{
    const size_t block_bytes = hier_scatter_block_bytes(args, comm);

    return mca_coll_hier_request(&hier_scatter, module, comm, form, 0 == block_bytes, block_bytes, NULL, args, info,
                                 request);
}

int mca_coll_hier_iscatter(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf, int rcount,
                           struct ompi_datatype_t *rdtype, int root, struct ompi_communicator_t *comm,
                           ompi_request_t **request, mca_coll_base_module_t *base)
{
    const mca_coll_hier_args_t args = {.sbuf = sbuf, .rbuf = rbuf, .scount = scount, .rcount = rcount,
                                       .sdtype = sdtype, .rdtype = rdtype, .root = root};
    return hier_scatter_request(&args, comm, NULL, request, (mca_coll_hier_module_t *) base,
                                MCA_COLL_HIER_NONBLOCKING);
}

int mca_coll_hier_scatter_init(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
                               int rcount, struct ompi_datatype_t *rdtype, int root,
                               struct ompi_communicator_t *comm, struct ompi_info_t *info,
                               ompi_request_t **request, mca_coll_base_module_t *base)
{
    const mca_coll_hier_args_t args = {.sbuf = sbuf, .rbuf = rbuf, .scount = scount, .rcount = rcount,
                                       .sdtype = sdtype, .rdtype = rdtype, .root = root};
    return hier_scatter_request(&args, comm, info, request, (mca_coll_hier_module_t *) base,
                                MCA_COLL_HIER_PERSISTENT);
}
