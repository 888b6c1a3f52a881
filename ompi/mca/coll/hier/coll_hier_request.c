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
 *
 * A call made while its communicator's topology is being gathered cannot
 * decide: the gathering's completion is local, so ranks that tested it at
 * their calls would decide differently. Its request waits (deferred start):
 * the progress engine ends the gathering once its allgather completes,
 * then the waiting requests decide in the order their calls were made
 * (every rank makes them in one order, and decides from the same facts, so
 * every rank decides alike), and those started begin their run. A request
 * decided fallback runs the previous module's nonblocking form, started on
 * the tag it reserved at its call (hier_request_start_previous).
 */
#include "coll_hier.h"

#include <string.h>

#include "ompi/mca/coll/base/coll_base_util.h"
#include "opal/class/opal_list.h"
#include "opal/runtime/opal_progress.h"

/* What a request's run is doing. */
enum {
    HIER_RUN_SCHEDULE,  /* hier's schedule, a step at a time */
    HIER_RUN_PREVIOUS,  /* the previous module's nonblocking form, in `previous` */
    HIER_RUN_WAITING,   /* started before its decision: nothing posted yet */
    HIER_RUN_ENDED      /* ended as its decision started it (at once, or failed): `ended` */
};

/* Open MPI's nonblocking collective request underneath: MPI_Ialltoall and
 * the others retain the call's datatypes and operation in its fields until
 * the request completes (or, persistent, is freed). The request retains
 * its communicator, which MPI_Comm_free may release with calls in flight,
 * until it is freed. */
typedef struct mca_coll_hier_request_t {
    ompi_coll_base_nbc_request_t super;
    const mca_coll_hier_collective_t *collective;
    mca_coll_hier_form_t form;
    size_t block_bytes;
    const char *unsupported;
    mca_coll_hier_args_t args;
    mca_coll_hier_call_t call;  /* once decided, its schedule, or NULL: the previous module's form */
    mca_coll_hier_work_t work;
    bool decided;
    bool freed;                 /* freed by MPI before its decision: freed once decided */
    int run;
    int ended;
    ompi_request_t *previous;
    struct mca_coll_hier_request_t *next_undecided;
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

/* Active requests, and ended ones kept for reuse; both under lock. The
 * undecided requests of every communicator, in the order of their calls. */
static opal_list_t hier_active, hier_free;
static mca_coll_hier_request_t *hier_undecided, **hier_undecided_end = &hier_undecided;
static opal_mutex_t hier_lock;
static bool hier_opened, hier_progress_registered, hier_in_progress;

/* Ends a request's run: its status, and completion (Open MPI's wait and
 * test then see it). */
static void hier_request_end(mca_coll_hier_request_t *request, int rc)
{
    request->super.super.req_status.MPI_ERROR = rc;
    ompi_request_complete(&request->super.super, true);
}

/* Back to the free list, its communicator released (which may end it). */
static void hier_request_recycle(mca_coll_hier_request_t *request)
{
    struct ompi_communicator_t *comm = request->call.comm;

    OPAL_THREAD_LOCK(&hier_lock);
    opal_list_append(&hier_free, &request->super.super.super.super);
    OPAL_THREAD_UNLOCK(&hier_lock);
    OBJ_RELEASE(comm);
}

/* Starts the previous module's nonblocking form for a request decided
 * fallback, wherever its decision or start happens: on the tag the request
 * reserved at its call. libnbc reserves one tag per call from the
 * communicator's counter; set to the request's tag for the call and
 * restored after, the counter moves on every rank alike whenever the
 * request starts (as a persistent request of libnbc, whose starts reserve
 * none). Collectives on one communicator are not started by two threads at
 * once (MPI orders them), which this relies on. */
static int hier_request_start_previous(mca_coll_hier_request_t *request)
{
    struct ompi_communicator_t *comm = request->call.comm;
    const int32_t counter = comm->c_nbc_tag;
    int rc;

    comm->c_nbc_tag = request->call.tag;
    rc = request->collective->previous(request->call.module, comm, &request->args, NULL, MCA_COLL_HIER_NONBLOCKING,
                                       &request->previous);
    comm->c_nbc_tag = counter;
    return rc;
}

/* One run of a decided request: its schedule's first rounds, or the
 * previous module's form. *done: it ended already, with status rc. */
static int hier_request_begin(mca_coll_hier_request_t *request, bool *done)
{
    int rc;

    *done = false;
    if (NULL == request->call.schedule) {
        request->run = HIER_RUN_PREVIOUS;
        return hier_request_start_previous(request);
    }
    request->run = HIER_RUN_SCHEDULE;
    rc = mca_coll_hier_call_start(&request->call, request->collective->prepare);
    return OMPI_SUCCESS == rc ? mca_coll_hier_call_progress(&request->call, false, done) : rc;
}

/* A step of a request's run, never waiting; *done once it has ended. */
static int hier_request_advance(mca_coll_hier_request_t *request, bool *done)
{
    int rc;

    *done = false;
    switch (request->run) {
    case HIER_RUN_SCHEDULE:
        return mca_coll_hier_call_progress(&request->call, false, done);
    case HIER_RUN_PREVIOUS:
        if (!REQUEST_COMPLETE(request->previous)) {
            return OMPI_SUCCESS;
        }
        *done = true;
        rc = request->previous->req_status.MPI_ERROR;
        (void) ompi_request_free(&request->previous);
        return rc;
    case HIER_RUN_ENDED:
        *done = true;
        return request->ended;
    default:
        return OMPI_SUCCESS;
    }
}

static int hier_progress(void);

/* The progress function is registered once, when a request first needs it. */
static void hier_progress_needed(void)
{
    if (!hier_progress_registered) {
        hier_progress_registered = true;
        opal_progress_register(hier_progress);
    }
}

/* Decides one waiting request, its communicator's gathering over, and
 * begins its run if it was started. */
static void hier_request_decide(mca_coll_hier_request_t *request)
{
    mca_coll_hier_module_t *module = request->call.module;
    bool done;
    int window;

    request->call.schedule = mca_coll_hier_choose_nonblocking(module, request->call.comm, request->collective->op,
                                                              request->form, request->args.root,
                                                              request->block_bytes, request->unsupported, &window);
    request->call.window = window;
    request->decided = true;
    --module->gathering.queued;
    if (HIER_RUN_WAITING == request->run) {
        request->ended = hier_request_begin(request, &done);
        if (done || OMPI_SUCCESS != request->ended) {
            request->run = HIER_RUN_ENDED;  /* the progress engine ends it */
        }
    }
    if (request->freed) {
        hier_request_recycle(request);
    }
}

void mca_coll_hier_requests_decide(mca_coll_hier_module_t *module)
{
    mca_coll_hier_request_t **link = &hier_undecided, *request;
    bool progressing;

    /* Starting runs may call the progress engine: it must not advance or
     * end the requests being decided meanwhile. */
    OPAL_THREAD_LOCK(&hier_lock);
    progressing = hier_in_progress;
    hier_in_progress = true;
    while (NULL != (request = *link)) {
        if (request->call.module != module) {
            link = &request->next_undecided;
            continue;
        }
        *link = request->next_undecided;
        if (NULL == *link) {
            hier_undecided_end = link;
        }
        OPAL_THREAD_UNLOCK(&hier_lock);
        hier_request_decide(request);
        OPAL_THREAD_LOCK(&hier_lock);
    }
    hier_in_progress = progressing;
    OPAL_THREAD_UNLOCK(&hier_lock);
}

/* Ends the gatherings undecided requests wait for, as their allgathers
 * complete, and decides those requests. */
static void hier_progress_gatherings(void)
{
    mca_coll_hier_request_t *request = hier_undecided;

    while (NULL != request) {
        if (mca_coll_hier_gathering_test(request->call.module)) {
            mca_coll_hier_requests_decide(request->call.module);
            request = hier_undecided;
        } else {
            request = request->next_undecided;
        }
    }
}

static int hier_progress(void)
{
    mca_coll_hier_request_t *request, *next;
    int completed = 0;

    if (0 == opal_list_get_size(&hier_active) && NULL == hier_undecided) {
        return 0;
    }
    OPAL_THREAD_LOCK(&hier_lock);
    /* One thread progresses at a time, and not again from inside: posting
     * and completing PML requests may call progress. The lock is not held
     * while a request advances; starts only append to the list. */
    if (!hier_in_progress) {
        hier_in_progress = true;
        OPAL_THREAD_UNLOCK(&hier_lock);
        hier_progress_gatherings();
        OPAL_THREAD_LOCK(&hier_lock);
        OPAL_LIST_FOREACH_SAFE (request, next, &hier_active, mca_coll_hier_request_t) {
            bool done = false;
            int rc;
            OPAL_THREAD_UNLOCK(&hier_lock);
            rc = hier_request_advance(request, &done);
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

/* One start: a new run of the call, its first rounds posted now, or, not
 * decided yet, once it is. */
static int hier_request_start_one(mca_coll_hier_request_t *request)
{
    bool done = false;
    int rc = OMPI_SUCCESS;

    request->super.super.req_state = OMPI_REQUEST_ACTIVE;
    request->super.super.req_complete = REQUEST_PENDING;
    request->super.super.req_status.MPI_ERROR = OMPI_SUCCESS;
    /* No other thread sees the request before it is on the list. */
    if (request->decided) {
        rc = hier_request_begin(request, &done);
    } else {
        request->run = HIER_RUN_WAITING;
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
    hier_progress_needed();
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
    *base = MPI_REQUEST_NULL;
    /* An undecided persistent request still decides, in its place among
     * its communicator's calls, as it does on the ranks that decided it at
     * its init: a later call of its size class depends on it (auto). */
    if (request->decided) {
        hier_request_recycle(request);
    } else {
        request->freed = true;
    }
    return OMPI_SUCCESS;
}

/* A collective cannot be cancelled (MPI says so). */
static int hier_request_cancel(ompi_request_t *request, int complete)
{
    return MPI_ERR_REQUEST;
}

/* A request for a call of collective: running schedule (with window), or,
 * undecided (waits), queued behind the gathering; started now unless
 * persistent. */
static int hier_request_make(const mca_coll_hier_collective_t *collective, mca_coll_hier_module_t *module,
                             struct ompi_communicator_t *comm, mca_coll_hier_form_t form, size_t block_bytes,
                             const char *unsupported, const hier_schedule_t *schedule, int window, bool waits,
                             const mca_coll_hier_args_t *args, ompi_request_t **out)
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
    request->collective = collective;
    request->form = form;
    request->block_bytes = block_bytes;
    request->unsupported = unsupported;
    request->args = *args;
    request->decided = !waits;
    request->freed = false;
    request->previous = NULL;
    request->next_undecided = NULL;
    OBJ_RETAIN(comm);
    /* Every rank starts its nonblocking collectives on comm in one order,
     * so the n-th reserves the same tag everywhere; a persistent request
     * keeps its tag for all its starts, which complete in order. */
    mca_coll_hier_call_init(&request->call, module, comm, &request->work, schedule, &request->args,
                            ompi_coll_base_nbc_reserve_tags(comm, 1), window);
    if (waits) {
        OPAL_THREAD_LOCK(&hier_lock);
        *hier_undecided_end = request;
        hier_undecided_end = &request->next_undecided;
        ++module->gathering.queued;
        ++module->gathering.waited;
        hier_progress_needed();
        OPAL_THREAD_UNLOCK(&hier_lock);
    }
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

/* Whether a call on comm must wait for its decision: the topology is being
 * gathered (the first such call starts gathering it), or calls made
 * before it still wait. */
static bool hier_request_waits(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm, hier_op_t op,
                               mca_coll_hier_form_t form)
{
    char name[32];

    mca_coll_hier_call_name(op, form, name, sizeof(name));
    mca_coll_hier_gather_topology_nonblocking(module, comm, name);
    return MCA_COLL_HIER_TOPOLOGY_GATHERING == module->topology_state || module->gathering.queued > 0;
}

int mca_coll_hier_request(const mca_coll_hier_collective_t *collective, mca_coll_hier_module_t *module,
                          struct ompi_communicator_t *comm, mca_coll_hier_form_t form, bool nothing_to_move,
                          size_t block_bytes, const char *unsupported, const mca_coll_hier_args_t *args,
                          struct ompi_info_t *info, ompi_request_t **request)
{
    const hier_schedule_t *schedule = NULL;
    int window = module->window;
    bool waits;

    if (nothing_to_move) {
        return collective->previous(module, comm, args, info, form, request);
    }
    waits = hier_request_waits(module, comm, collective->op, form);
    if (!waits) {
        schedule = mca_coll_hier_choose_nonblocking(module, comm, collective->op, form, args->root, block_bytes,
                                                    unsupported, &window);
        if (NULL == schedule) {
            return collective->previous(module, comm, args, info, form, request);
        }
    }
    return hier_request_make(collective, module, comm, form, block_bytes, unsupported, schedule, window, waits, args,
                             request);
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
