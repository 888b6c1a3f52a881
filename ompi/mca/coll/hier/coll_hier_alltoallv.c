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
 * A schedule that forwards blocks through TMP (lg) needs to know the size of
 * every TMP block before the data moves, and no rank knows the sizes of the
 * blocks it forwards. So the same cached schedule first runs over blocks of
 * one 8-byte integer holding each block's size in bytes: the sizes travel
 * exactly where the data will, and each rank finds in its TMP the size of
 * every block it will hold there. TMP is then laid out packed (MPI_PACKED)
 * and the schedule runs over the data. That costs one more pass of small
 * messages (as many messages, in as many steps, as the data pass); schedules
 * without TMP (factor, edgecolor, pairwise) skip it. The size pass also
 * hands every rank the sizes it receives, which its own counts already say.
 */
#include "coll_hier.h"

#include <string.h>

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/coll_tags.h"

/* Offsets of packed layouts in work->offsets: the in-place copy's p + 1
 * (with MPI_IN_PLACE), then TMP's tmp_blocks + 1. */
static size_t *hier_alltoallv_send_offsets(mca_coll_hier_call_t *call)
{
    return call->work->offsets;
}

static size_t *hier_alltoallv_tmp_offsets(mca_coll_hier_call_t *call)
{
    const size_t p = (size_t) ompi_comm_size(call->comm);
    return hier_alltoallv_send_offsets(call) + (MPI_IN_PLACE == call->args->sbuf ? p + 1 : 0);
}

/* The data pass's send and receive layouts. MPI_IN_PLACE: the data to send
 * is in the receive buffer, which the schedule writes while it reads: it
 * sends from the packed copy of its blocks prepare made. */
static void hier_alltoallv_user_layouts(mca_coll_hier_call_t *call)
{
    const mca_coll_hier_args_t *a = call->args;

    mca_coll_hier_layout_variable(&call->buffers[HIER_BUF_RECV], a->rbuf, a->rcounts, a->rdispls, a->rdtype);
    if (MPI_IN_PLACE == a->sbuf) {
        mca_coll_hier_layout_packed(&call->buffers[HIER_BUF_SEND], call->work->in_place,
                                    hier_alltoallv_send_offsets(call));
    } else {
        mca_coll_hier_layout_variable(&call->buffers[HIER_BUF_SEND], a->sbuf, a->scounts, a->sdispls, a->sdtype);
    }
}

/* The data pass after the size pass: TMP laid out packed from the sizes
 * that pass left in TMP. */
static int hier_alltoallv_data_pass(mca_coll_hier_call_t *call)
{
    const size_t p = (size_t) ompi_comm_size(call->comm), tmp_blocks = hier_schedule_tmp_blocks(call->schedule);
    const uint64_t *tmp = (const uint64_t *) call->work->sizes + 2 * p;
    size_t *offsets = hier_alltoallv_tmp_offsets(call);
    int rc;

    offsets[0] = 0;
    for (size_t block = 0; block < tmp_blocks; ++block) {
        offsets[block + 1] = offsets[block] + (size_t) tmp[block];
    }
    rc = mca_coll_hier_grow(&call->work->tmp, &call->work->tmp_size, offsets[tmp_blocks]);
    hier_alltoallv_user_layouts(call);
    mca_coll_hier_layout_packed(&call->buffers[HIER_BUF_TMP], call->work->tmp, offsets);
    return rc;
}

/* The size pass: blocks of one integer, each data block's size in bytes. */
static int hier_alltoallv_size_pass(mca_coll_hier_call_t *call)
{
    const size_t p = (size_t) ompi_comm_size(call->comm), tmp_blocks = hier_schedule_tmp_blocks(call->schedule);
    uint64_t *send, *recv, *tmp;
    int rc = mca_coll_hier_grow(&call->work->sizes, &call->work->sizes_size, (2 * p + tmp_blocks) * sizeof(*send));

    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    send = call->work->sizes;
    recv = send + p;
    tmp = recv + p;
    for (size_t block = 0; block < p; ++block) {
        send[block] = mca_coll_hier_block_bytes(&call->buffers[HIER_BUF_SEND], block);
    }
    memset(recv, 0, (p + tmp_blocks) * sizeof(*recv));
    mca_coll_hier_layout(&call->buffers[HIER_BUF_SEND], send, 1, MPI_UINT64_T);
    mca_coll_hier_layout(&call->buffers[HIER_BUF_RECV], recv, 1, MPI_UINT64_T);
    mca_coll_hier_layout(&call->buffers[HIER_BUF_TMP], tmp, 1, MPI_UINT64_T);
    call->then = hier_alltoallv_data_pass;
    return OMPI_SUCCESS;
}

static int hier_alltoallv_prepare(mca_coll_hier_call_t *call)
{
    const size_t p = (size_t) ompi_comm_size(call->comm), tmp_blocks = hier_schedule_tmp_blocks(call->schedule);
    int rc = mca_coll_hier_grow(&call->work->offsets, &call->work->offsets_size,
                                (p + tmp_blocks + 2) * sizeof(size_t));

    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (MPI_IN_PLACE == call->args->sbuf) {
        /* The packed copy of the receive buffer's blocks, taken now. */
        const mca_coll_hier_args_t *a = call->args;
        mca_coll_hier_layout_t recv;
        size_t *offsets = hier_alltoallv_send_offsets(call), total = 0;

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
    }
    hier_alltoallv_user_layouts(call);
    hier_alltoallv_tmp_offsets(call)[0] = 0;
    mca_coll_hier_layout_packed(&call->buffers[HIER_BUF_TMP], NULL, hier_alltoallv_tmp_offsets(call));
    return OMPI_SUCCESS == rc && tmp_blocks > 0 ? hier_alltoallv_size_pass(call) : rc;
}

/* Block sizes differ from rank to rank, so the choice cannot depend on
 * them: every rank must take the same one (block_bytes 0). */
int mca_coll_hier_alltoallv(const void *sbuf, const int *scounts, const int *sdispls,
                            struct ompi_datatype_t *sdtype, void *rbuf, const int *rcounts,
                            const int *rdispls, struct ompi_datatype_t *rdtype,
                            struct ompi_communicator_t *comm, mca_coll_base_module_t *base)
{
    mca_coll_hier_module_t *module = (mca_coll_hier_module_t *) base;
    const mca_coll_hier_args_t args = {.sbuf = sbuf, .rbuf = rbuf, .sdtype = sdtype, .rdtype = rdtype,
                                       .scounts = scounts, .sdispls = sdispls, .rcounts = rcounts,
                                       .rdispls = rdispls, .root = -1};
    const hier_schedule_t *schedule = mca_coll_hier_choose(module, comm, HIER_OP_ALLTOALLV, -1, 0, NULL);

    if (NULL == schedule) {
        return module->previous.alltoallv(sbuf, scounts, sdispls, sdtype, rbuf, rcounts, rdispls, rdtype, comm,
                                          module->previous.alltoallv_module);
    }
    return mca_coll_hier_call_blocking(module, comm, MCA_COLL_BASE_TAG_ALLTOALLV, schedule,
                                       hier_alltoallv_prepare, &args);
}

static int hier_alltoallv_request(const mca_coll_hier_args_t *args, struct ompi_communicator_t *comm,
                                  struct ompi_info_t *info, ompi_request_t **request,
                                  mca_coll_hier_module_t *module, mca_coll_hier_form_t form)
{
    int rc;

    if (mca_coll_hier_request_taken(module, comm, HIER_OP_ALLTOALLV, form, false, 0, NULL, hier_alltoallv_prepare,
                                    args, request, &rc)) {
        return rc;
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
