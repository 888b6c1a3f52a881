/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/*
 * coll/hier requests: nonblocking and persistent collectives run a call of
 * a cached schedule a step at a time from an Open MPI request, as libnbc's
 * do. Open MPI's progress engine advances every active request (a progress
 * function registered once); each request has its own tag, reserved from
 * the communicator's nonblocking range as libnbc reserves its own, so calls
 * in flight together on one communicator never take each other's messages;
 * and its own work memory. Requests that end go to a free list with their
 * memory, so a later call allocates nothing it can reuse.
 */
#include "coll_hier.h"

#include <string.h>

#include "ompi/mca/coll/base/coll_base_util.h"
#include "opal/class/opal_list.h"
#include "opal/runtime/opal_progress.h"

/* Open MPI's nonblocking collective request underneath: MPI_Ialltoall and
 * the others retain the call's datatypes and operation in its fields until
 * the request completes (or, persistent, is freed). */
typedef struct mca_coll_hier_request_t {
    ompi_coll_base_nbc_request_t super;
    mca_coll_hier_prepare_fn_t prepare;
    mca_coll_hier_args_t args;
    mca_coll_hier_call_t call;
    mca_coll_hier_work_t work;
} mca_coll_hier_request_t;

static void hier_request_construct(mca_coll_hier_request_t *request)
{
    memset(&request->work, 0, sizeof(request->work));
}

static void hier_request_destruct(mca_coll_hier_request_t *request)
{
    mca_coll_hier_work_release(&request->work);
}

static OBJ_CLASS_INSTANCE(mca_coll_hier_request_t, ompi_coll_base_nbc_request_t, hier_request_construct,
                          hier_request_destruct);

/* Active requests, and ended ones kept for reuse; both under lock. */
static opal_list_t hier_active, hier_free;
static opal_mutex_t hier_lock;
static bool hier_opened, hier_progress_registered, hier_in_progress;

/* Ends a request's run: its status, and completion (Open MPI's wait and
 * test then see it). */
static void hier_request_end(mca_coll_hier_request_t *request, int rc)
{
    request->super.super.req_status.MPI_ERROR = rc;
    ompi_request_complete(&request->super.super, true);
}

static int hier_progress(void)
{
    mca_coll_hier_request_t *request, *next;
    int completed = 0;

    if (0 == opal_list_get_size(&hier_active)) {
        return 0;
    }
    OPAL_THREAD_LOCK(&hier_lock);
    /* One thread progresses at a time, and not again from inside: posting
     * and completing PML requests may call progress. The lock is not held
     * while a request advances; starts only append to the list. */
    if (!hier_in_progress) {
        hier_in_progress = true;
        OPAL_LIST_FOREACH_SAFE (request, next, &hier_active, mca_coll_hier_request_t) {
            bool done = false;
            int rc;
            OPAL_THREAD_UNLOCK(&hier_lock);
            rc = mca_coll_hier_call_progress(&request->call, false, &done);
            OPAL_THREAD_LOCK(&hier_lock);
            if (done || OMPI_SUCCESS != rc) {
                opal_list_remove_item(&hier_active, &request->super.super.super.super);
                hier_request_end(request, rc);
                ++completed;
            }
        }
        hier_in_progress = false;
    }
    OPAL_THREAD_UNLOCK(&hier_lock);
    return completed;
}

/* One start: a new run of the call, its first rounds posted now. */
static int hier_request_start_one(mca_coll_hier_request_t *request)
{
    bool done = false;
    int rc;

    request->super.super.req_state = OMPI_REQUEST_ACTIVE;
    request->super.super.req_complete = REQUEST_PENDING;
    request->super.super.req_status.MPI_ERROR = OMPI_SUCCESS;
    /* No other thread sees the request before it is on the list. */
    rc = mca_coll_hier_call_start(&request->call, request->prepare);
    if (OMPI_SUCCESS == rc) {
        rc = mca_coll_hier_call_progress(&request->call, false, &done);
    }
    if (done) {
        /* Finished at once, with its status (MPI_ERR_TRUNCATE, say). */
        hier_request_end(request, rc);
        return OMPI_SUCCESS;
    }
    if (OMPI_SUCCESS != rc) {
        /* Nothing of it is left in flight: the start fails. */
        request->super.super.req_state = OMPI_REQUEST_INACTIVE;
        request->super.super.req_complete = REQUEST_COMPLETED;
        return rc;
    }
    OPAL_THREAD_LOCK(&hier_lock);
    opal_list_append(&hier_active, &request->super.super.super.super);
    if (!hier_progress_registered) {
        hier_progress_registered = true;
        opal_progress_register(hier_progress);
    }
    OPAL_THREAD_UNLOCK(&hier_lock);
    return OMPI_SUCCESS;
}

static int hier_request_start(size_t count, ompi_request_t **requests)
{
    for (size_t i = 0; i < count; ++i) {
        const int rc = hier_request_start_one((mca_coll_hier_request_t *) requests[i]);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    return OMPI_SUCCESS;
}

static int hier_request_free(ompi_request_t **base)
{
    mca_coll_hier_request_t *request = (mca_coll_hier_request_t *) *base;

    if (!REQUEST_COMPLETE(&request->super.super)) {
        return MPI_ERR_REQUEST;
    }
    OMPI_REQUEST_FINI(&request->super.super);
    OPAL_THREAD_LOCK(&hier_lock);
    opal_list_append(&hier_free, &request->super.super.super.super);
    OPAL_THREAD_UNLOCK(&hier_lock);
    *base = MPI_REQUEST_NULL;
    return OMPI_SUCCESS;
}

/* A collective cannot be cancelled (MPI says so). */
static int hier_request_cancel(ompi_request_t *request, int complete)
{
    return MPI_ERR_REQUEST;
}

static int hier_request_make(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                             const hier_schedule_t *schedule, int window, mca_coll_hier_prepare_fn_t prepare,
                             const mca_coll_hier_args_t *args, mca_coll_hier_form_t form, ompi_request_t **out)
{
    const bool persistent = MCA_COLL_HIER_PERSISTENT == form;
    mca_coll_hier_request_t *request;
    int rc;

    OPAL_THREAD_LOCK(&hier_lock);
    request = (mca_coll_hier_request_t *) opal_list_remove_first(&hier_free);
    OPAL_THREAD_UNLOCK(&hier_lock);
    if (NULL == request) {
        request = OBJ_NEW(mca_coll_hier_request_t);
        if (NULL == request) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
    }
    OMPI_REQUEST_INIT(&request->super.super, persistent);
    request->super.super.req_type = OMPI_REQUEST_COLL;
    request->super.super.req_mpi_object.comm = comm;
    request->super.super.req_status._cancelled = 0;
    request->super.super.req_start = hier_request_start;
    request->super.super.req_free = hier_request_free;
    request->super.super.req_cancel = hier_request_cancel;
    request->prepare = prepare;
    request->args = *args;
    /* Every rank starts its nonblocking collectives on comm in one order,
     * so the n-th reserves the same tag everywhere; a persistent request
     * keeps its tag for all its starts, which complete in order. */
    mca_coll_hier_call_init(&request->call, module, comm, &request->work, schedule, &request->args,
                            ompi_coll_base_nbc_reserve_tags(comm, 1), window);
    *out = &request->super.super;
    if (persistent) {
        return OMPI_SUCCESS;
    }
    rc = hier_request_start_one(request);
    if (OMPI_SUCCESS != rc) {
        ompi_request_t *failed = &request->super.super;
        (void) hier_request_free(&failed);
        *out = MPI_REQUEST_NULL;
    }
    return rc;
}

bool mca_coll_hier_request_taken(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm, hier_op_t op,
                                 mca_coll_hier_form_t form, bool nothing_to_move, size_t block_bytes,
                                 const char *unsupported, mca_coll_hier_prepare_fn_t prepare,
                                 const mca_coll_hier_args_t *args, ompi_request_t **request, int *rc)
{
    const hier_schedule_t *schedule;
    int window;

    if (nothing_to_move) {
        return false;
    }
    schedule = mca_coll_hier_choose_nonblocking(module, comm, op, form, args->root, block_bytes, unsupported,
                                                &window);
    if (NULL == schedule) {
        return false;
    }
    *rc = hier_request_make(module, comm, schedule, window, prepare, args, form, request);
    return true;
}

void mca_coll_hier_requests_open(void)
{
    OBJ_CONSTRUCT(&hier_active, opal_list_t);
    OBJ_CONSTRUCT(&hier_free, opal_list_t);
    OBJ_CONSTRUCT(&hier_lock, opal_mutex_t);
    hier_opened = true;
}

void mca_coll_hier_requests_close(void)
{
    if (!hier_opened) {
        return;
    }
    if (hier_progress_registered) {
        opal_progress_unregister(hier_progress);
        hier_progress_registered = false;
    }
    /* Requests still active belong to a program that never completed them. */
    OPAL_LIST_DESTRUCT(&hier_free);
    OBJ_DESTRUCT(&hier_active);
    OBJ_DESTRUCT(&hier_lock);
    hier_opened = false;
}
