/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/*
 * coll/hier MPI_Allreduce, MPI_Iallreduce and MPI_Allreduce_init: one block,
 * the whole vector; schedules reduce it block by block with the call's
 * operation. Schedules may combine operands in any order, so
 * non-commutative operations go to the previous module.
 */
#include "coll_hier.h"

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"
#include "ompi/op/op.h"

static int hier_allreduce_prepare(mca_coll_hier_call_t *call)
{
    const mca_coll_hier_args_t *a = call->args;
    mca_coll_hier_layout_t *buffers = call->buffers;

    mca_coll_hier_layout(&buffers[HIER_BUF_RECV], a->rbuf, (size_t) a->rcount, a->rdtype);
    if (MPI_IN_PLACE == a->sbuf) {
        buffers[HIER_BUF_SEND] = buffers[HIER_BUF_RECV];
    } else {
        mca_coll_hier_layout(&buffers[HIER_BUF_SEND], a->sbuf, (size_t) a->rcount, a->rdtype);
    }
    call->op = a->op;
    return mca_coll_hier_tmp_like(call, &buffers[HIER_BUF_RECV]);
}

static size_t hier_allreduce_block_bytes(const mca_coll_hier_args_t *a)
{
    size_t type_size;

    ompi_datatype_type_size(a->rdtype, &type_size);
    return type_size * (size_t) a->rcount;
}

static const char *hier_allreduce_unsupported(struct ompi_op_t *op)
{
    return ompi_op_is_commute(op) ? NULL : "non-commutative operation";
}

/* Open MPI's own allreduce in the call's form, with its arguments (request:
 * the nonblocking or persistent form's; NULL for the blocking one). */
static int hier_allreduce_previous(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                                   const mca_coll_hier_args_t *args, struct ompi_info_t *info,
                                   mca_coll_hier_form_t form, ompi_request_t **request)
{
    if (MCA_COLL_HIER_BLOCKING == form) {
        return module->previous.allreduce(args->sbuf, args->rbuf, args->rcount, args->rdtype, args->op, comm,
                                          module->previous.allreduce_module);
    }
    if (MCA_COLL_HIER_PERSISTENT == form) {
        return module->previous.allreduce_init(args->sbuf, args->rbuf, args->rcount, args->rdtype, args->op, comm,
                                               info, request, module->previous.allreduce_init_module);
    }
    return module->previous.iallreduce(args->sbuf, args->rbuf, args->rcount, args->rdtype, args->op, comm,
                                       request, module->previous.iallreduce_module);
}

static const mca_coll_hier_collective_t hier_allreduce = {
    HIER_OP_ALLREDUCE, MCA_COLL_BASE_TAG_ALLREDUCE, hier_allreduce_prepare, hier_allreduce_previous};

int mca_coll_hier_allreduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                            struct ompi_op_t *op, struct ompi_communicator_t *comm,
                            mca_coll_base_module_t *base)
{
    mca_coll_hier_module_t *module = (mca_coll_hier_module_t *) base;
    const mca_coll_hier_args_t args = {.sbuf = sbuf, .rbuf = rbuf, .scount = count, .rcount = count,
                                       .sdtype = dtype, .rdtype = dtype, .root = -1, .op = op};
    const size_t block_bytes = hier_allreduce_block_bytes(&args);

    if (0 == block_bytes) {
        return MPI_SUCCESS;
    }
    return mca_coll_hier_blocking(module, comm, &hier_allreduce, &args, block_bytes,
                                  hier_allreduce_unsupported(op));
}

static int hier_allreduce_request(const mca_coll_hier_args_t *args, struct ompi_communicator_t *comm,
                                  struct ompi_info_t *info, ompi_request_t **request,
                                  mca_coll_hier_module_t *module, mca_coll_hier_form_t form)
{
    const size_t block_bytes = hier_allreduce_block_bytes(args);

    return mca_coll_hier_request(&hier_allreduce, module, comm, form, 0 == block_bytes, block_bytes,
                                 hier_allreduce_unsupported(args->op), args, info, request);
}

int mca_coll_hier_iallreduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                             struct ompi_op_t *op, struct ompi_communicator_t *comm, ompi_request_t **request,
                             mca_coll_base_module_t *base)
{
    const mca_coll_hier_args_t args = {.sbuf = sbuf, .rbuf = rbuf, .scount = count, .rcount = count,
                                       .sdtype = dtype, .rdtype = dtype, .root = -1, .op = op};
    return hier_allreduce_request(&args, comm, NULL, request, (mca_coll_hier_module_t *) base,
                                  MCA_COLL_HIER_NONBLOCKING);
}

int mca_coll_hier_allreduce_init(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                                 struct ompi_op_t *op, struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                 ompi_request_t **request, mca_coll_base_module_t *base)
{
    const mca_coll_hier_args_t args = {.sbuf = sbuf, .rbuf = rbuf, .scount = count, .rcount = count,
                                       .sdtype = dtype, .rdtype = dtype, .root = -1, .op = op};
    return hier_allreduce_request(&args, comm, info, request, (mca_coll_hier_module_t *) base,
                                  MCA_COLL_HIER_PERSISTENT);
}
