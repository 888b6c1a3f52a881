/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/*
 * coll/hier MPI_Gather, MPI_Igather and MPI_Gather_init: rank j's block
 * lands in block j of the root's receive buffer. Asks the core for a
 * schedule for this call and runs it over the PML; hands the call to the
 * previous module when the core says fallback.
 */
#include "coll_hier.h"

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"

static int hier_gather_prepare(mca_coll_hier_call_t *call)
{
    const mca_coll_hier_args_t *a = call->args;
    const bool is_root = ompi_comm_rank(call->comm) == a->root;
    mca_coll_hier_layout_t *buffers = call->buffers;

    if (is_root) {
        mca_coll_hier_layout(&buffers[HIER_BUF_RECV], a->rbuf, (size_t) a->rcount, a->rdtype);
        if (MPI_IN_PLACE == a->sbuf) {
            /* The root's own block is in place in the receive buffer. */
            mca_coll_hier_layout_at(&buffers[HIER_BUF_SEND], &buffers[HIER_BUF_RECV], (size_t) a->root);
        } else {
            mca_coll_hier_layout(&buffers[HIER_BUF_SEND], a->sbuf, (size_t) a->scount, a->sdtype);
        }
    } else {
        mca_coll_hier_layout(&buffers[HIER_BUF_SEND], a->sbuf, (size_t) a->scount, a->sdtype);
        mca_coll_hier_layout(&buffers[HIER_BUF_RECV], NULL, 0, a->sdtype);
    }
    /* TMP blocks are laid out like the ones a rank holds: the root's receive
     * buffer's, everyone else's send buffer's. */
    return mca_coll_hier_tmp_like(call, &buffers[is_root ? HIER_BUF_RECV : HIER_BUF_SEND]);
}

/* The root's receive signature equals every send signature (the root's send
 * arguments are ignored with MPI_IN_PLACE). */
static size_t hier_gather_block_bytes(const mca_coll_hier_args_t *a, struct ompi_communicator_t *comm)
{
    const bool is_root = ompi_comm_rank(comm) == a->root;
    size_t type_size;

    ompi_datatype_type_size(is_root ? a->rdtype : a->sdtype, &type_size);
    return type_size * (size_t) (is_root ? a->rcount : a->scount);
}

/* Open MPI's own gather in the call's form, with its arguments (request:
 * the nonblocking or persistent form's; NULL for the blocking one). */
static int hier_gather_previous(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                                const mca_coll_hier_args_t *args, struct ompi_info_t *info,
                                mca_coll_hier_form_t form, ompi_request_t **request)
{
    if (MCA_COLL_HIER_BLOCKING == form) {
        return module->previous.gather(args->sbuf, args->scount, args->sdtype, args->rbuf, args->rcount,
                                       args->rdtype, args->root, comm, module->previous.gather_module);
    }
    if (MCA_COLL_HIER_PERSISTENT == form) {
        return module->previous.gather_init(args->sbuf, args->scount, args->sdtype, args->rbuf, args->rcount,
                                            args->rdtype, args->root, comm, info, request,
                                            module->previous.gather_init_module);
    }
    return module->previous.igather(args->sbuf, args->scount, args->sdtype, args->rbuf, args->rcount,
                                    args->rdtype, args->root, comm, request, module->previous.igather_module);
}

static const mca_coll_hier_collective_t hier_gather = {
    HIER_OP_GATHER, MCA_COLL_BASE_TAG_GATHER, hier_gather_prepare, hier_gather_previous};

int mca_coll_hier_gather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                         void *rbuf, int rcount, struct ompi_datatype_t *rdtype, int root,
                         struct ompi_communicator_t *comm, mca_coll_base_module_t *base)
{
    mca_coll_hier_module_t *module = (mca_coll_hier_module_t *) base;
    const mca_coll_hier_args_t args = {.sbuf = sbuf, .rbuf = rbuf, .scount = scount, .rcount = rcount,
                                       .sdtype = sdtype, .rdtype = rdtype, .root = root};
    const size_t block_bytes = hier_gather_block_bytes(&args, comm);

    if (0 == block_bytes) {
        return MPI_SUCCESS;
    }
    return mca_coll_hier_blocking(module, comm, &hier_gather, &args, block_bytes, NULL);
}

static int hier_gather_request(const mca_coll_hier_args_t *args, struct ompi_communicator_t *comm,
                               struct ompi_info_t *info, ompi_request_t **request, mca_coll_hier_module_t *module,
                               mca_coll_hier_form_t form)
{
    const size_t block_bytes = hier_gather_block_bytes(args, comm);

    return mca_coll_hier_request(&hier_gather, module, comm, form, 0 == block_bytes, block_bytes, NULL, args, info,
                                 request);
}

int mca_coll_hier_igather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf, int rcount,
                          struct ompi_datatype_t *rdtype, int root, struct ompi_communicator_t *comm,
                          ompi_request_t **request, mca_coll_base_module_t *base)
{
    const mca_coll_hier_args_t args = {.sbuf = sbuf, .rbuf = rbuf, .scount = scount, .rcount = rcount,
                                       .sdtype = sdtype, .rdtype = rdtype, .root = root};
    return hier_gather_request(&args, comm, NULL, request, (mca_coll_hier_module_t *) base,
                               MCA_COLL_HIER_NONBLOCKING);
}

int mca_coll_hier_gather_init(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
                              int rcount, struct ompi_datatype_t *rdtype, int root,
                              struct ompi_communicator_t *comm, struct ompi_info_t *info,
                              ompi_request_t **request, mca_coll_base_module_t *base)
{
    const mca_coll_hier_args_t args = {.sbuf = sbuf, .rbuf = rbuf, .scount = scount, .rcount = rcount,
                                       .sdtype = sdtype, .rdtype = rdtype, .root = root};
    return hier_gather_request(&args, comm, info, request, (mca_coll_hier_module_t *) base,
                               MCA_COLL_HIER_PERSISTENT);
}
