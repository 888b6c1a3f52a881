/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/*
 * coll/hier MPI_Alltoallv, MPI_Ialltoallv and MPI_Alltoallv_init: the
 * alltoall schedules over blocks of different sizes (block j of the send
 * buffer, scounts[j] elements at sdispls[j], goes to rank j). Hands the
 * call to the previous module when the core says fallback.
 *
 * The core's alltoallv program runs the call (core/alltoallv_program.h): a
 * size pass where the schedule forwards blocks through TMP, then the data
 * pass. This file is its host over the PML: it lays the buffers out for
 * each pass (the sizes as MPI_UINT64_T; TMP as MPI_PACKED bytes, which the
 * transport packs typed data into and unpacks it from) and takes the
 * in-place copy.
 */
#include "coll_hier.h"

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"

/* The data pass's send and receive layouts. MPI_IN_PLACE: the data to send
 * is in the receive buffer, which the schedule writes while it reads: it
 * sends from the packed copy of its blocks prepare made. */
static void hier_alltoallv_user_layouts(mca_coll_hier_call_t *call)
{
    const mca_coll_hier_args_t *a = call->args;

    mca_coll_hier_layout_variable(&call->buffers[HIER_BUF_RECV], a->rbuf, a->rcounts, a->rdispls, a->rdtype);
    if (MPI_IN_PLACE == a->sbuf) {
        mca_coll_hier_layout_packed(&call->buffers[HIER_BUF_SEND], call->work->in_place, call->work->offsets);
    } else {
        mca_coll_hier_layout_variable(&call->buffers[HIER_BUF_SEND], a->sbuf, a->scounts, a->sdispls, a->sdtype);
    }
}

static size_t hier_alltoallv_send_bytes(void *ctx, size_t block)
{
    const mca_coll_hier_call_t *call = ctx;
    return mca_coll_hier_block_bytes(&call->buffers[HIER_BUF_SEND], block);
}

static int hier_alltoallv_lay_out_sizes(void *ctx, uint64_t *send, uint64_t *recv, uint64_t *tmp)
{
    mca_coll_hier_call_t *call = ctx;

    mca_coll_hier_layout(&call->buffers[HIER_BUF_SEND], send, 1, MPI_UINT64_T);
    mca_coll_hier_layout(&call->buffers[HIER_BUF_RECV], recv, 1, MPI_UINT64_T);
    mca_coll_hier_layout(&call->buffers[HIER_BUF_TMP], tmp, 1, MPI_UINT64_T);
    return OMPI_SUCCESS;
}

static int hier_alltoallv_lay_out_data(void *ctx, const size_t *tmp_offsets, size_t tmp_blocks)
{
    mca_coll_hier_call_t *call = ctx;
    const int rc = mca_coll_hier_grow(&call->work->tmp, &call->work->tmp_size, tmp_offsets[tmp_blocks]);

    hier_alltoallv_user_layouts(call);
    mca_coll_hier_layout_packed(&call->buffers[HIER_BUF_TMP], call->work->tmp, tmp_offsets);
    return rc;
}

/* MPI_IN_PLACE: the packed copy of the receive buffer's blocks, taken now,
 * at work->in_place, block b at [offsets[b], offsets[b + 1]). */
static int hier_alltoallv_in_place_copy(mca_coll_hier_call_t *call)
{
    const mca_coll_hier_args_t *a = call->args;
    const size_t p = (size_t) ompi_comm_size(call->comm);
    mca_coll_hier_layout_t recv;
    size_t *offsets, total = 0;
    int rc = mca_coll_hier_grow(&call->work->offsets, &call->work->offsets_size, (p + 1) * sizeof(size_t));

    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    offsets = call->work->offsets;
    mca_coll_hier_layout_variable(&recv, a->rbuf, a->rcounts, a->rdispls, a->rdtype);
    for (size_t block = 0; block < p; ++block) {
        offsets[block] = total;
        total += mca_coll_hier_block_bytes(&recv, block);
    }
    offsets[p] = total;
    rc = mca_coll_hier_grow(&call->work->in_place, &call->work->in_place_size, total);
    for (size_t block = 0; block < p && OMPI_SUCCESS == rc; ++block) {
        rc = mca_coll_hier_pack_block(&recv, block, (char *) call->work->in_place + offsets[block]);
    }
    return rc;
}

/* Begins the core's program in the call's work (made at its first call);
 * SEND's layout is the call's, whose block sizes the program asks for. */
static int hier_alltoallv_prepare(mca_coll_hier_call_t *call)
{
    const hier_alltoallv_host_t host = {call, hier_alltoallv_send_bytes, hier_alltoallv_lay_out_sizes,
                                        hier_alltoallv_lay_out_data, OMPI_ERR_OUT_OF_RESOURCE};
    int rc = OMPI_SUCCESS;

    if (NULL == call->work->alltoallv && NULL == (call->work->alltoallv = hier_alltoallv_create())) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (MPI_IN_PLACE == call->args->sbuf) {
        rc = hier_alltoallv_in_place_copy(call);
    }
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    hier_alltoallv_user_layouts(call);
    call->program = call->work->alltoallv;
    return hier_alltoallv_begin(call->program, call->schedule, ompi_comm_size(call->comm), &call->transport, &host,
                                call->window);
}

/* Block sizes differ from rank to rank, so the choice cannot depend on
 * them: every rank must take the same one (block_bytes 0). */
/* Open MPI's own alltoallv in the call's form, with its arguments (request:
 * the nonblocking or persistent form's; NULL for the blocking one). */
static int hier_alltoallv_previous(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                                   const mca_coll_hier_args_t *args, struct ompi_info_t *info,
                                   mca_coll_hier_form_t form, ompi_request_t **request)
{
    if (MCA_COLL_HIER_BLOCKING == form) {
        return module->previous.alltoallv(args->sbuf, args->scounts, args->sdispls, args->sdtype, args->rbuf,
                                          args->rcounts, args->rdispls, args->rdtype, comm,
                                          module->previous.alltoallv_module);
    }
    if (MCA_COLL_HIER_PERSISTENT == form) {
        return module->previous.alltoallv_init(args->sbuf, args->scounts, args->sdispls, args->sdtype, args->rbuf,
                                               args->rcounts, args->rdispls, args->rdtype, comm, info, request,
                                               module->previous.alltoallv_init_module);
    }
    return module->previous.ialltoallv(args->sbuf, args->scounts, args->sdispls, args->sdtype, args->rbuf,
                                       args->rcounts, args->rdispls, args->rdtype, comm, request,
                                       module->previous.ialltoallv_module);
}

static const mca_coll_hier_collective_t hier_alltoallv = {
    HIER_OP_ALLTOALLV, MCA_COLL_BASE_TAG_ALLTOALLV, hier_alltoallv_prepare, hier_alltoallv_previous};

int mca_coll_hier_alltoallv(const void *sbuf, const int *scounts, const int *sdispls,
                            struct ompi_datatype_t *sdtype, void *rbuf, const int *rcounts,
                            const int *rdispls, struct ompi_datatype_t *rdtype,
                            struct ompi_communicator_t *comm, mca_coll_base_module_t *base)
{
    mca_coll_hier_module_t *module = (mca_coll_hier_module_t *) base;
    const mca_coll_hier_args_t args = {.sbuf = sbuf, .rbuf = rbuf, .sdtype = sdtype, .rdtype = rdtype,
                                       .scounts = scounts, .sdispls = sdispls, .rcounts = rcounts,
                                       .rdispls = rdispls, .root = -1};
    return mca_coll_hier_blocking(module, comm, &hier_alltoallv, &args, 0, NULL);
}

static int hier_alltoallv_request(const mca_coll_hier_args_t *args, struct ompi_communicator_t *comm,
                                  struct ompi_info_t *info, ompi_request_t **request,
                                  mca_coll_hier_module_t *module, mca_coll_hier_form_t form)
{
    return mca_coll_hier_request(&hier_alltoallv, module, comm, form, false, 0, NULL, args, info,
                                 request);
}

int mca_coll_hier_ialltoallv(const void *sbuf, const int *scounts, const int *sdispls,
                             struct ompi_datatype_t *sdtype, void *rbuf, const int *rcounts, const int *rdispls,
                             struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
                             ompi_request_t **request, mca_coll_base_module_t *base)
{
    const mca_coll_hier_args_t args = {.sbuf = sbuf, .rbuf = rbuf, .sdtype = sdtype, .rdtype = rdtype,
                                       .scounts = scounts, .sdispls = sdispls, .rcounts = rcounts,
                                       .rdispls = rdispls, .root = -1};
    return hier_alltoallv_request(&args, comm, NULL, request, (mca_coll_hier_module_t *) base,
                                  MCA_COLL_HIER_NONBLOCKING);
}

int mca_coll_hier_alltoallv_init(const void *sbuf, const int *scounts, const int *sdispls,
                                 struct ompi_datatype_t *sdtype, void *rbuf, const int *rcounts,
                                 const int *rdispls, struct ompi_datatype_t *rdtype,
                                 struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                 ompi_request_t **request, mca_coll_base_module_t *base)
{
    const mca_coll_hier_args_t args = {.sbuf = sbuf, .rbuf = rbuf, .sdtype = sdtype, .rdtype = rdtype,
                                       .scounts = scounts, .sdispls = sdispls, .rcounts = rcounts,
                                       .rdispls = rdispls, .root = -1};
    return hier_alltoallv_request(&args, comm, info, request, (mca_coll_hier_module_t *) base,
                                  MCA_COLL_HIER_PERSISTENT);
}
