/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/*
 * coll/hier transport: runs a core schedule over Open MPI's PML. It maps the
 * schedule's blocks to (pointer, count, datatype) from the call's buffers: a
 * region of n blocks is one message of n * count elements, since consecutive
 * blocks are contiguous in the user's layout. Variable blocks (alltoallv)
 * are a user's blocks, one at a time, or packed bytes (MPI_PACKED), whose
 * regions may span blocks: typed data is packed on its way into packed
 * blocks and unpacked on its way out (sending typed data and receiving
 * MPI_PACKED is legal MPI, and so is the reverse). Requests and the TMP
 * buffer live in the call's work (the module's, or a request's), grown on
 * demand, so calls allocate nothing they reuse. A call runs to completion
 * (blocking) or a step at a time (from a request's progress).
 */
#include "coll_hier.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ompi/datatype/ompi_datatype.h"
#include "opal/datatype/opal_convertor.h"
#include "ompi/mca/pml/pml.h"
#include "ompi/op/op.h"
#include "ompi/mca/pml/base/pml_base_request.h"

/* Where a region lies: count elements of dtype from ptr. */
typedef struct hier_span_t {
    char *ptr;
    size_t count;
    struct ompi_datatype_t *dtype;
} hier_span_t;

void mca_coll_hier_layout(mca_coll_hier_layout_t *layout, const void *base, size_t count,
                          struct ompi_datatype_t *dtype)
{
    layout->base = (char *) base;
    layout->count = count;
    layout->dtype = dtype;
    ompi_datatype_type_extent(dtype, &layout->extent);
    layout->counts = layout->displs = NULL;
    layout->offsets = NULL;
}

void mca_coll_hier_layout_variable(mca_coll_hier_layout_t *layout, const void *base, const int *counts,
                                   const int *displs, struct ompi_datatype_t *dtype)
{
    mca_coll_hier_layout(layout, base, 0, dtype);
    layout->counts = counts;
    layout->displs = displs;
}

void mca_coll_hier_layout_packed(mca_coll_hier_layout_t *layout, void *base, const size_t *offsets)
{
    mca_coll_hier_layout(layout, base, 0, MPI_PACKED);
    layout->offsets = offsets;
}

static char *hier_block(const mca_coll_hier_layout_t *layout, size_t block)
{
    return layout->base + (ptrdiff_t) (block * layout->count) * layout->extent;
}

/* The region [first, first + blocks) of a layout. A user's variable blocks
 * are not contiguous with each other: one at a time (the schedules alltoallv
 * runs name no more; the core's unit tests check it). */
static int hier_span(const mca_coll_hier_layout_t *layout, size_t first, size_t blocks, hier_span_t *span)
{
    if (NULL != layout->offsets) {
        span->ptr = layout->base + layout->offsets[first];
        span->count = layout->offsets[first + blocks] - layout->offsets[first];
        span->dtype = MPI_PACKED;
    } else if (NULL != layout->counts) {
        if (1 != blocks) {
            return OMPI_ERR_NOT_SUPPORTED;
        }
        span->ptr = layout->base + (ptrdiff_t) layout->displs[first] * layout->extent;
        span->count = (size_t) layout->counts[first];
        span->dtype = layout->dtype;
    } else {
        span->ptr = hier_block(layout, first);
        span->count = blocks * layout->count;
        span->dtype = layout->dtype;
    }
    return OMPI_SUCCESS;
}

size_t mca_coll_hier_block_bytes(const mca_coll_hier_layout_t *layout, size_t block)
{
    hier_span_t span;
    size_t type_size;

    (void) hier_span(layout, block, 1, &span);
    ompi_datatype_type_size(span.dtype, &type_size);
    return span.count * type_size;
}

int mca_coll_hier_grow(void **buffer, size_t *size, size_t bytes)
{
    if (bytes > *size) {
        free(*buffer);
        *buffer = malloc(bytes);
        *size = NULL == *buffer ? 0 : bytes;
        if (NULL == *buffer) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
    }
    return OMPI_SUCCESS;
}

/* Packs typed data into the `bytes` bytes at packed, or unpacks those bytes
 * into typed data: through a convertor, which counts in size_t. *fits says
 * whether everything there was to move fitted: packing, the typed data was
 * exactly `bytes`; unpacking, all `bytes` found room (as a receive may get
 * fewer than it has room for). */
static int hier_convert(const hier_span_t *typed, char *packed, size_t bytes, bool pack, bool *fits)
{
    opal_convertor_t convertor;
    struct iovec iov = {.iov_base = packed, .iov_len = bytes};
    uint32_t iov_count = 1;
    size_t moved = bytes;
    int32_t rc;

    if (0 == typed->count || 0 == bytes) {
        size_t type_size;
        ompi_datatype_type_size(typed->dtype, &type_size);
        *fits = pack ? typed->count * type_size == bytes : 0 == bytes;
        return OMPI_SUCCESS;
    }
    OBJ_CONSTRUCT(&convertor, opal_convertor_t);
    if (pack) {
        rc = opal_convertor_copy_and_prepare_for_send(ompi_mpi_local_convertor, &typed->dtype->super, typed->count,
                                                      typed->ptr, 0, &convertor);
        rc = OPAL_SUCCESS == rc ? opal_convertor_pack(&convertor, &iov, &iov_count, &moved) : rc;
    } else {
        rc = opal_convertor_copy_and_prepare_for_recv(ompi_mpi_local_convertor, &typed->dtype->super, typed->count,
                                                      typed->ptr, 0, &convertor);
        rc = OPAL_SUCCESS == rc ? opal_convertor_unpack(&convertor, &iov, &iov_count, &moved) : rc;
    }
    *fits = moved == bytes && (!pack || moved == convertor.local_size);
    OBJ_DESTRUCT(&convertor);
    return rc < 0 ? OMPI_ERROR : OMPI_SUCCESS;
}

/* A copy where either side has variable blocks: packed to packed, typed to
 * packed (pack), packed to typed (unpack), or a user's block to another. */
static int hier_copy_variable(mca_coll_hier_call_t *call, const hier_span_t *from, const hier_span_t *to)
{
    bool fits = true;
    int rc = OMPI_SUCCESS;

    if (from->ptr == to->ptr && from->dtype == to->dtype && from->count == to->count) {
        return OMPI_SUCCESS;
    }
    if (MPI_PACKED == from->dtype && MPI_PACKED == to->dtype) {
        memmove(to->ptr, from->ptr, from->count < to->count ? from->count : to->count);
        fits = from->count == to->count;
    } else if (MPI_PACKED == to->dtype) {
        rc = hier_convert(from, to->ptr, to->count, true, &fits);
    } else if (MPI_PACKED == from->dtype) {
        rc = hier_convert(to, from->ptr, from->count, false, &fits);
    } else {
        rc = ompi_datatype_sndrcv(from->ptr, (int32_t) from->count, from->dtype, to->ptr, (int32_t) to->count,
                                  to->dtype);
        fits = MPI_ERR_TRUNCATE != rc;
        rc = fits ? rc : OMPI_SUCCESS;
    }
    call->truncated = call->truncated || !fits;
    return rc;
}

int mca_coll_hier_pack_block(const mca_coll_hier_layout_t *layout, size_t block, void *dst)
{
    hier_span_t span;
    bool fits;

    (void) hier_span(layout, block, 1, &span);
    return hier_convert(&span, dst, mca_coll_hier_block_bytes(layout, block), true, &fits);
}

void mca_coll_hier_layout_at(mca_coll_hier_layout_t *layout, const mca_coll_hier_layout_t *of,
                             size_t block)
{
    *layout = *of;
    layout->base = hier_block(of, block);
}

int mca_coll_hier_scratch(void **buffer, size_t *size, size_t blocks, size_t count,
                          struct ompi_datatype_t *dtype, mca_coll_hier_layout_t *layout)
{
    ptrdiff_t gap;
    /* From the first to the last byte the elements touch; gap is where the
     * first byte lies relative to the start of the first element. */
    const size_t span = (size_t) opal_datatype_span(&dtype->super, blocks * count, &gap);
    const int rc = mca_coll_hier_grow(buffer, size, span);

    if (OMPI_SUCCESS == rc) {
        mca_coll_hier_layout(layout, (char *) *buffer - gap, count, dtype);
    }
    return rc;
}

/* Room for one more element at the end of a FIFO array of `size`-byte
 * elements, [*head, *count) in flight: they move to the front before the
 * array grows, so it holds a window of rounds, not the whole schedule.
 * Returns the array (moved if it grew), or NULL, the array unchanged, when
 * it cannot grow. */
static void *hier_fifo_reserve(void *array, size_t size, size_t *head, size_t *count, size_t *capacity)
{
    if (*count == *capacity && *head > 0) {
        memmove(array, (char *) array + *head * size, (*count - *head) * size);
        *count -= *head;
        *head = 0;
    }
    if (*count == *capacity) {
        const size_t grown_capacity = 0 == *capacity ? 16 : 2 * *capacity;
        void *grown = realloc(array, grown_capacity * size);
        if (NULL == grown) {
            return NULL;
        }
        array = grown;
        *capacity = grown_capacity;
    }
    return array;
}

/* A free slot at the end of the call's request array. */
static ompi_request_t **hier_next_request(mca_coll_hier_work_t *work)
{
    ompi_request_t **requests = hier_fifo_reserve(work->requests, sizeof(*requests), &work->request_head,
                                                  &work->request_count, &work->request_capacity);

    if (NULL == requests) {
        return NULL;
    }
    work->requests = requests;
    return &requests[work->request_count];
}

/* A free slot at the end of the call's message list, beside the requests. */
static mca_coll_hier_message_t *hier_next_message(mca_coll_hier_work_t *work)
{
    mca_coll_hier_message_t *messages = hier_fifo_reserve(work->messages, sizeof(*messages), &work->message_head,
                                                          &work->message_count, &work->message_capacity);

    if (NULL == messages) {
        return NULL;
    }
    work->messages = messages;
    return &messages[work->message_count];
}

/* One isend or irecv into the next request slot. */
static int hier_post_request(mca_coll_hier_call_t *call, int peer, char *ptr, size_t count,
                             struct ompi_datatype_t *dtype, bool send)
{
    ompi_request_t **request = hier_next_request(call->work);
    int rc;

    if (NULL == request) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (send) {
        rc = MCA_PML_CALL(isend(ptr, count, dtype, peer, call->tag, MCA_PML_BASE_SEND_STANDARD, call->comm,
                                request));
    } else {
        rc = MCA_PML_CALL(irecv(ptr, count, dtype, peer, call->tag, call->comm, request));
    }
    call->work->request_count += OMPI_SUCCESS == rc;
    return rc;
}

/* Whether a message goes in pieces: between clusters, longer than a piece.
 * Both ends decide alike: they know each other's cluster, and in a
 * collective of equal blocks (the only kind call->piece is set for) a
 * message has the same length at both. */
static bool hier_in_pieces(const mca_coll_hier_call_t *call, int peer, size_t bytes)
{
    const hier_comm_t *topology = call->module->topology;

    return 0 != call->piece && bytes > call->piece &&
           hier_comm_cluster_of(topology, ompi_comm_rank(call->comm)) != hier_comm_cluster_of(topology, peer);
}

/* A message as pieces of MPI_BYTE: from the region itself when its bytes are
 * contiguous, else through a packed copy (packed now for a send, unpacked
 * when a receive completes). */
static int hier_post_pieces(mca_coll_hier_call_t *call, mca_coll_hier_message_t *message, int peer,
                            const hier_span_t *span, size_t bytes, bool send)
{
    ptrdiff_t true_lb, true_extent;
    char *data;
    int rc = OMPI_SUCCESS;

    ompi_datatype_get_true_extent(span->dtype, &true_lb, &true_extent);
    if (opal_datatype_is_contiguous_memory_layout(&span->dtype->super, span->count)) {
        data = span->ptr + true_lb;
    } else {
        bool fits = true;
        message->staged = data = malloc(bytes);
        message->staged_bytes = bytes;
        if (NULL == data) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        if (send) {
            rc = hier_convert(span, data, bytes, true, &fits);
        } else {
            message->unpack_ptr = span->ptr;
            message->unpack_count = span->count;
            message->unpack_dtype = span->dtype;
        }
    }
    for (size_t done = 0; done < bytes && OMPI_SUCCESS == rc; done += call->piece) {
        const size_t n = bytes - done < call->piece ? bytes - done : call->piece;
        rc = hier_post_request(call, peer, data + done, n, MPI_BYTE, send);
        message->requests += OMPI_SUCCESS == rc;
    }
    return rc;
}

/* Posts one message of a region's blocks: one request, or its pieces. */
static int hier_post(void *ctx, int peer, hier_buffer_t buf, size_t first, size_t count, bool send)
{
    mca_coll_hier_call_t *call = ctx;
    mca_coll_hier_message_t *message = hier_next_message(call->work);
    hier_span_t span;
    size_t type_size;
    int rc = hier_span(&call->buffers[buf], first, count, &span);

    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (NULL == message) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    memset(message, 0, sizeof(*message));
    ++call->work->message_count;
    ompi_datatype_type_size(span.dtype, &type_size);
    if (hier_in_pieces(call, peer, span.count * type_size)) {
        return hier_post_pieces(call, message, peer, &span, span.count * type_size, send);
    }
    rc = hier_post_request(call, peer, span.ptr, span.count, span.dtype, send);
    message->requests = OMPI_SUCCESS == rc;
    return rc;
}

static int hier_post_send(void *ctx, int peer, hier_buffer_t buf, size_t first, size_t count)
{
    return hier_post(ctx, peer, buf, first, count, true);
}

static int hier_post_recv(void *ctx, int peer, hier_buffer_t buf, size_t first, size_t count)
{
    return hier_post(ctx, peer, buf, first, count, false);
}

/* After a failure: the error of the request that failed (wait_all and
 * test_all only say "one of them"), and no request left behind. Receives of
 * rounds still in flight are cancelled and waited for, so that none takes a
 * later collective's message or writes the user's buffer after the call;
 * sends are released, as Open MPI's own collectives do. */
static int hier_drop_requests(mca_coll_hier_work_t *work, int rc)
{
    for (size_t i = 0; i < work->request_count; ++i) {
        ompi_request_t **request = &work->requests[i];
        if (MPI_REQUEST_NULL == *request) {
            continue;
        }
        if (MPI_ERR_IN_STATUS == rc && MPI_SUCCESS != (*request)->req_status.MPI_ERROR &&
            MPI_ERR_PENDING != (*request)->req_status.MPI_ERROR) {
            rc = (*request)->req_status.MPI_ERROR;
        }
        if (OMPI_REQUEST_PML == (*request)->req_type && !REQUEST_COMPLETE(*request) &&
            MCA_PML_REQUEST_RECV == ((mca_pml_base_request_t *) *request)->req_type) {
            ompi_request_cancel(*request);
            ompi_request_wait(request, MPI_STATUS_IGNORE);
        } else {
            ompi_request_free(request);
        }
    }
    work->request_head = work->request_count = 0;
    for (size_t i = work->message_head; i < work->message_count; ++i) {
        free(work->messages[i].staged);
    }
    work->message_head = work->message_count = 0;
    return rc;
}

/* Completes the oldest count messages (their requests): rounds complete in
 * the order they were posted, and later rounds may already be in flight
 * behind them. A message received through a packed copy is unpacked here. */
static int hier_complete(void *ctx, size_t count, int blocking, int *done)
{
    mca_coll_hier_call_t *call = ctx;
    mca_coll_hier_work_t *work = call->work;
    ompi_request_t **oldest = work->requests + work->request_head;
    mca_coll_hier_message_t *messages = work->messages + work->message_head;
    size_t requests = 0;
    int rc = OMPI_SUCCESS, flag = 1;

    if (count > work->message_count - work->message_head) {
        return OMPI_ERR_BAD_PARAM;
    }
    for (size_t i = 0; i < count; ++i) {
        requests += messages[i].requests;
    }
    /* Without blocking, look without progressing: this may run inside Open
     * MPI's progress (a request's), which must not be entered again. */
    for (size_t i = 0; i < requests && !blocking && flag; ++i) {
        flag = REQUEST_COMPLETE(oldest[i]);
    }
    if (flag) {
        rc = ompi_request_wait_all(requests, oldest, MPI_STATUSES_IGNORE);
    }
    for (size_t i = 0; i < count && flag && OMPI_SUCCESS == rc; ++i) {
        if (NULL != messages[i].unpack_ptr) {
            const hier_span_t typed = {messages[i].unpack_ptr, messages[i].unpack_count, messages[i].unpack_dtype};
            bool fits = true;
            rc = hier_convert(&typed, messages[i].staged, messages[i].staged_bytes, false, &fits);
            call->truncated = call->truncated || !fits;
        }
        free(messages[i].staged);
        messages[i].staged = NULL;
    }
    if (OMPI_SUCCESS != rc) {
        return hier_drop_requests(work, rc);
    }
    if (flag) {
        work->request_head += requests;
        work->message_head += count;
        if (work->message_head == work->message_count) {
            work->request_head = work->request_count = 0;
            work->message_head = work->message_count = 0;
        }
    }
    *done = flag;
    return OMPI_SUCCESS;
}

/* ompi_datatype_sndrcv converts between the send and receive datatypes (same
 * signature, any layout); it counts in int, so large regions go in pieces.
 * A copy onto itself (MPI_IN_PLACE: the block is where it belongs already)
 * does nothing. */
static int hier_copy(void *ctx, hier_buffer_t src, size_t src_first, hier_buffer_t dst,
                     size_t dst_first, size_t count)
{
    mca_coll_hier_call_t *call = ctx;
    const mca_coll_hier_layout_t *from = &call->buffers[src], *to = &call->buffers[dst];
    const size_t widest = from->count > to->count ? from->count : to->count;
    const size_t piece = 0 == widest ? count : INT_MAX / widest;
    int rc = OMPI_SUCCESS;

    if (NULL != from->counts || NULL != from->offsets || NULL != to->counts || NULL != to->offsets) {
        hier_span_t from_span, to_span;
        rc = hier_span(from, src_first, count, &from_span);
        rc = OMPI_SUCCESS == rc ? hier_span(to, dst_first, count, &to_span) : rc;
        return OMPI_SUCCESS == rc ? hier_copy_variable(call, &from_span, &to_span) : rc;
    }

    if (hier_block(from, src_first) == hier_block(to, dst_first) && from->dtype == to->dtype &&
        from->count == to->count) {
        return OMPI_SUCCESS;
    }
    for (size_t done = 0; done < count && OMPI_SUCCESS == rc; done += piece) {
        const size_t n = count - done < piece ? count - done : piece;
        rc = ompi_datatype_sndrcv(hier_block(from, src_first + done), (int32_t) (n * from->count),
                                  from->dtype, hier_block(to, dst_first + done),
                                  (int32_t) (n * to->count), to->dtype);
    }
    return rc;
}

/* dst = src (op) dst with the call's operation and the destination's
 * datatype (a reduction's buffers share one). ompi_op_reduce counts in int. */
static int hier_reduce(void *ctx, hier_buffer_t src, size_t src_first, hier_buffer_t dst,
                       size_t dst_first, size_t count)
{
    const mca_coll_hier_call_t *call = ctx;
    const mca_coll_hier_layout_t *from = &call->buffers[src], *to = &call->buffers[dst];
    const size_t elements = count * to->count;
    const size_t piece = INT_MAX;

    if (NULL == call->op) {
        return OMPI_ERR_BAD_PARAM;
    }
    for (size_t done = 0; done < elements; done += piece) {
        const size_t n = elements - done < piece ? elements - done : piece;
        ompi_op_reduce(call->op, hier_block(from, src_first) + (ptrdiff_t) done * from->extent,
                       hier_block(to, dst_first) + (ptrdiff_t) done * to->extent, (int) n, to->dtype);
    }
    return OMPI_SUCCESS;
}

/* Pieces only across clusters, and only where every block has the same
 * length at both ends of a message: no variable layout in the call. */
static size_t hier_call_piece(const mca_coll_hier_module_t *module, const mca_coll_hier_layout_t buffers[3])
{
    if (NULL == module->topology || hier_comm_cluster_count(module->topology) < 2) {
        return 0;
    }
    for (int b = 0; b < 3; ++b) {
        if (NULL != buffers[b].counts || NULL != buffers[b].offsets) {
            return 0;
        }
    }
    return module->backbone_piece;
}

int mca_coll_hier_tmp_like(mca_coll_hier_call_t *call, const mca_coll_hier_layout_t *like)
{
    return mca_coll_hier_scratch(&call->work->tmp, &call->work->tmp_size, hier_schedule_tmp_blocks(call->schedule),
                                 like->count, like->dtype, &call->buffers[HIER_BUF_TMP]);
}

void mca_coll_hier_call_init(mca_coll_hier_call_t *call, mca_coll_hier_module_t *module,
                             struct ompi_communicator_t *comm, mca_coll_hier_work_t *work,
                             const hier_schedule_t *schedule, const mca_coll_hier_args_t *args, int tag,
                             int window)
{
    memset(call, 0, sizeof(*call));
    call->module = module;
    call->comm = comm;
    call->work = work;
    call->schedule = schedule;
    call->args = args;
    call->tag = tag;
    call->window = window;
}

int mca_coll_hier_call_start(mca_coll_hier_call_t *call, mca_coll_hier_prepare_fn_t prepare)
{
    const hier_transport_t transport = {call, hier_post_send, hier_post_recv, hier_complete, hier_copy,
                                        hier_reduce};
    int rc;

    call->transport = transport;
    call->program = NULL;
    call->truncated = false;
    call->op = NULL;
    call->piece = 0;
    rc = prepare(call);
    if (OMPI_SUCCESS == rc && NULL == call->program) {
        call->piece = hier_call_piece(call->module, call->buffers);
        hier_run_begin(&call->run, call->schedule, &call->transport, call->window);
    }
    return rc;
}

int mca_coll_hier_call_progress(mca_coll_hier_call_t *call, bool blocking, bool *done)
{
    int rc, run_done = 1;

    *done = false;
    if (NULL != call->program) {
        rc = hier_alltoallv_advance(call->program, blocking, &run_done);
    } else if (blocking) {
        rc = hier_execute(call->schedule, &call->transport, call->window);
    } else {
        rc = hier_run_advance(&call->run, &run_done);
    }
    if (OMPI_SUCCESS != rc) {
        /* A failed post leaves the requests posted before it. */
        return hier_drop_requests(call->work, rc);
    }
    *done = run_done;
    return run_done && call->truncated ? MPI_ERR_TRUNCATE : OMPI_SUCCESS;
}

int mca_coll_hier_call_blocking(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm, int tag,
                                const hier_schedule_t *schedule, mca_coll_hier_prepare_fn_t prepare,
                                const mca_coll_hier_args_t *args)
{
    mca_coll_hier_call_t call;
    bool done;
    int rc;

    mca_coll_hier_call_init(&call, module, comm, &module->work, schedule, args, tag, module->call_window);
    rc = mca_coll_hier_call_start(&call, prepare);
    return OMPI_SUCCESS == rc ? mca_coll_hier_call_progress(&call, true, &done) : rc;
}

void mca_coll_hier_work_release(mca_coll_hier_work_t *work)
{
    free(work->requests);
    free(work->messages);
    free(work->tmp);
    free(work->in_place);
    free(work->offsets);
    hier_alltoallv_destroy(work->alltoallv);
    memset(work, 0, sizeof(*work));
}
