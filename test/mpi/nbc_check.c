/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/*
 * nbc_check: many nonblocking and persistent collectives in flight at once.
 * Each round starts, on MPI_COMM_WORLD, a dup of it and a split of it (the
 * parity halves), one MPI_I<op> of every collective coll/hier replaces
 * (alltoall, alltoallv, scatter, gather, allgather, allreduce, barrier) and
 * one start of a persistent request of each (made once, started every round,
 * freed at the end), in an order that turns from round to round; then runs
 * blocking collectives on every communicator while those are outstanding;
 * then completes them in another order: MPI_Waitall, MPI_Wait from the last
 * started to the first, a loop of MPI_Test over the pending ones, a loop of
 * MPI_Testall, in turn, and in some rounds a different one on odd ranks than
 * on even ones. The first round starts before any blocking collective on the
 * dup and the split (a component that learns a communicator at its first
 * blocking one falls back there), and that first blocking collective comes
 * while they are outstanding.
 *
 * Every byte is checked against values each rank computes alone: element k
 * that rank i sends rank j in a start is mix32(seed, i, j, k), so every
 * receive buffer's expected contents (the sum, modulo 2^32, for allreduce's
 * MPI_SUM on MPI_UINT32_T) are known locally, gaps and guards included
 * (alltoallv's blocks have gaps, which must keep the sentinel), and the send
 * buffers must come back untouched. Barriers are checked as in coll_check:
 * no rank's completion precedes the latest rank's start (one rank in turn
 * starts late); the times go to the communicator's rank 0 point-to-point.
 * The blocking allreduce in between is checked too.
 *
 * --only-ialltoall N runs instead N MPI_Ialltoall in a row, each waited,
 * on a new communicator (a dup of MPI_COMM_WORLD named "nbc_check
 * ialltoall-only") that calls no other collective, then MPI_Barrier and N
 * more: a component that learns a communicator at its first blocking
 * collective takes the last N only. With --no-barrier, the N alone: the
 * communicator never runs a blocking collective. With --in-flight, the N
 * (each N) are all started before the first is waited, and completed in
 * the reverse order.
 *
 * Output (rank 0 of MPI_COMM_WORLD), as the other checkers':
 *   nbc_check: FAIL ...                 one line per failing check and rank
 *   nbc_check: checksum <16 hex digits>  FNV-1a over all results
 *   nbc_check: N passed, M failed
 * Exit code: 0 if everything passed, 1 if anything failed, 2 on bad usage.
 */
#define PROG "nbc_check"
#include "check_common.h"

#include <errno.h>
#include <time.h>

#define TAG_TIMES 4444
#define NCOMMS 3 /* world, dup, parity */

typedef enum { K_ALLTOALL, K_ALLTOALLV, K_SCATTER, K_GATHER, K_ALLGATHER, K_ALLREDUCE, K_BARRIER, K_COUNT } kind_t;
static const char *const kind_names[K_COUNT] = {"alltoall",  "alltoallv", "scatter", "gather",
                                                "allgather", "allreduce", "barrier"};

/* One collective in flight: its arguments, buffers and request. The
 * buffers hold uint32_t elements; want is what recv must hold afterwards,
 * send_copy what send must still hold. */
typedef struct {
    kind_t kind;
    const comm_entry_t *comm;
    int rank, size;
    int persistent;
    int count, root;
    int *scounts, *sdispls, *rcounts, *rdispls; /* alltoallv */
    guarded_t send, send_copy, recv, want;
    MPI_Request req;
    int start_rc;
    int64_t entry, exit_; /* barrier */
} slot_t;

static uint32_t value(uint32_t seed, int from, int to, size_t k)
{
    return mix32(seed, from, (size_t)to, k);
}

static void put(guarded_t *g, size_t i, uint32_t v)
{
    memcpy(g->data + i * sizeof v, &v, sizeof v);
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Elements i sends j in an alltoallv slot made with seed: 0 for a quarter of
 * the pairs, else 1 to count + 1. Fixed for the slot's life (a persistent
 * request keeps its counts). */
static int v_count(uint32_t seed, int i, int j, int count)
{
    uint32_t h = mix32(seed, i, (size_t)j, 99);
    return h % 4 == 0 ? 0 : 1 + (int)(h % (uint32_t)(count + 1));
}

/* Elements a buffer of n elements needs; buffers of their lengths. */
static size_t elems_of_displs(const int *counts, const int *displs, int p)
{
    size_t end = 0;
    for (int j = 0; j < p; j++)
        if ((size_t)(displs[j] + counts[j]) > end) end = (size_t)(displs[j] + counts[j]);
    return end;
}

static void make_slot(slot_t *s, kind_t kind, const comm_entry_t *comm, int persistent, int count,
                      int root, uint32_t layout_seed)
{
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->comm = comm;
    s->persistent = persistent;
    s->count = count;
    s->root = root;
    s->req = MPI_REQUEST_NULL;
    MPI_Comm_rank(comm->comm, &s->rank);
    MPI_Comm_size(comm->comm, &s->size);
    const int p = s->size, me = s->rank;
    size_t send_elems = 0, recv_elems = 0;
    switch (kind) {
    case K_ALLTOALL:
        send_elems = recv_elems = (size_t)p * count;
        break;
    case K_ALLTOALLV: {
        s->scounts = malloc(4 * (size_t)p * sizeof(int));
        if (!s->scounts) MPI_Abort(MPI_COMM_WORLD, 3);
        s->sdispls = s->scounts + p;
        s->rcounts = s->sdispls + p;
        s->rdispls = s->rcounts + p;
        /* Blocks in rank order, one element of gap before each. */
        int sat = 0, rat = 0;
        for (int j = 0; j < p; j++) {
            s->scounts[j] = v_count(layout_seed, me, j, count);
            s->rcounts[j] = v_count(layout_seed, j, me, count);
            s->sdispls[j] = sat + 1;
            s->rdispls[j] = rat + 1;
            sat += s->scounts[j] + 1;
            rat += s->rcounts[j] + 1;
        }
        send_elems = elems_of_displs(s->scounts, s->sdispls, p);
        recv_elems = elems_of_displs(s->rcounts, s->rdispls, p);
        break;
    }
    case K_SCATTER:
        send_elems = me == root ? (size_t)p * count : 0;
        recv_elems = (size_t)count;
        break;
    case K_GATHER:
        send_elems = (size_t)count;
        recv_elems = me == root ? (size_t)p * count : 0;
        break;
    case K_ALLGATHER:
        send_elems = (size_t)count;
        recv_elems = (size_t)p * count;
        break;
    case K_ALLREDUCE:
        send_elems = recv_elems = (size_t)count;
        break;
    default:
        break;
    }
    s->send = guarded_alloc(send_elems * 4);
    s->send_copy = guarded_alloc(send_elems * 4);
    s->recv = guarded_alloc(recv_elems * 4);
    s->want = guarded_alloc(recv_elems * 4);
}

static void free_slot(slot_t *s)
{
    if (s->req != MPI_REQUEST_NULL && s->persistent) MPI_Request_free(&s->req);
    free(s->scounts);
    free(s->send.base);
    free(s->send_copy.base);
    free(s->recv.base);
    free(s->want.base);
}

/* Fills send with start seed's data, recv with the sentinel, and want with
 * what recv must hold after the call. */
static void fill_slot(slot_t *s, uint32_t seed)
{
    const int p = s->size, me = s->rank, n = s->count;
    guarded_reset(&s->send);
    guarded_reset(&s->recv);
    guarded_reset(&s->want);
    switch (s->kind) {
    case K_ALLTOALL:
        for (int j = 0; j < p; j++)
            for (int k = 0; k < n; k++) {
                put(&s->send, (size_t)j * n + k, value(seed, me, j, k));
                put(&s->want, (size_t)j * n + k, value(seed, j, me, k));
            }
        break;
    case K_ALLTOALLV:
        for (int j = 0; j < p; j++) {
            for (int k = 0; k < s->scounts[j]; k++)
                put(&s->send, (size_t)s->sdispls[j] + k, value(seed, me, j, k));
            for (int k = 0; k < s->rcounts[j]; k++)
                put(&s->want, (size_t)s->rdispls[j] + k, value(seed, j, me, k));
        }
        break;
    case K_SCATTER:
        for (int j = 0; me == s->root && j < p; j++)
            for (int k = 0; k < n; k++) put(&s->send, (size_t)j * n + k, value(seed, s->root, j, k));
        for (int k = 0; k < n; k++) put(&s->want, (size_t)k, value(seed, s->root, me, k));
        break;
    case K_GATHER:
        for (int k = 0; k < n; k++) put(&s->send, (size_t)k, value(seed, me, s->root, k));
        for (int j = 0; me == s->root && j < p; j++)
            for (int k = 0; k < n; k++) put(&s->want, (size_t)j * n + k, value(seed, j, s->root, k));
        break;
    case K_ALLGATHER:
        for (int k = 0; k < n; k++) put(&s->send, (size_t)k, value(seed, me, 0, k));
        for (int j = 0; j < p; j++)
            for (int k = 0; k < n; k++) put(&s->want, (size_t)j * n + k, value(seed, j, 0, k));
        break;
    case K_ALLREDUCE:
        for (int k = 0; k < n; k++) {
            uint32_t sum = 0;
            for (int j = 0; j < p; j++) sum += value(seed, j, 0, k);
            put(&s->send, (size_t)k, value(seed, me, 0, k));
            put(&s->want, (size_t)k, sum);
        }
        break;
    default:
        break;
    }
    memcpy(s->send_copy.base, s->send.base, s->send.len + 2 * GUARD);
}

/* MPI_I<op>, or for a persistent slot its <Op>_init (when it has no request
 * yet); the persistent ones are then started by the caller. */
static int issue(slot_t *s)
{
    MPI_Comm c = s->comm->comm;
    const int n = s->count;
    void *sb = s->send.data, *rb = s->recv.data;
    const MPI_Datatype u = MPI_UINT32_T;
    MPI_Request *r = &s->req;
    if (!s->persistent) {
        switch (s->kind) {
        case K_ALLTOALL: return MPI_Ialltoall(sb, n, u, rb, n, u, c, r);
        case K_ALLTOALLV:
            return MPI_Ialltoallv(sb, s->scounts, s->sdispls, u, rb, s->rcounts, s->rdispls, u, c, r);
        case K_SCATTER: return MPI_Iscatter(sb, n, u, rb, n, u, s->root, c, r);
        case K_GATHER: return MPI_Igather(sb, n, u, rb, n, u, s->root, c, r);
        case K_ALLGATHER: return MPI_Iallgather(sb, n, u, rb, n, u, c, r);
        case K_ALLREDUCE: return MPI_Iallreduce(sb, rb, n, u, MPI_SUM, c, r);
        default: return MPI_Ibarrier(c, r);
        }
    }
#ifdef PERSISTENT_INIT
    if (*r != MPI_REQUEST_NULL) return MPI_SUCCESS;
    const MPI_Info i = MPI_INFO_NULL;
    switch (s->kind) {
    case K_ALLTOALL: return PERSISTENT_INIT(Alltoall)(sb, n, u, rb, n, u, c, i, r);
    case K_ALLTOALLV:
        return PERSISTENT_INIT(Alltoallv)(sb, s->scounts, s->sdispls, u, rb, s->rcounts, s->rdispls, u, c, i, r);
    case K_SCATTER: return PERSISTENT_INIT(Scatter)(sb, n, u, rb, n, u, s->root, c, i, r);
    case K_GATHER: return PERSISTENT_INIT(Gather)(sb, n, u, rb, n, u, s->root, c, i, r);
    case K_ALLGATHER: return PERSISTENT_INIT(Allgather)(sb, n, u, rb, n, u, c, i, r);
    case K_ALLREDUCE: return PERSISTENT_INIT(Allreduce)(sb, rb, n, u, MPI_SUM, c, i, r);
    default: return PERSISTENT_INIT(Barrier)(c, i, r);
    }
#else
    return MPI_ERR_INTERN;
#endif
}

/* ------------------------------------------------------------------ verdicts */

static void report(const slot_t *s, int round, const char *why)
{
    int wrank;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    printf(PROG ": FAIL round=%d op=%s form=%s comm=%s count=%d root=%d rank=%d world_rank=%d: %s\n", round,
           kind_names[s->kind], s->persistent ? "persistent" : "nonblocking", s->comm->label, s->count, s->root,
           s->rank, wrank, why);
    fflush(stdout);
}

static void count_verdict(tally_t *t, int ok)
{
    if (ok) t->passed++;
    else t->failed++;
}

/* A data slot after completion: the call's code, recv as want, send as it was. */
static void check_slot(slot_t *s, int rc, int round, tally_t *t)
{
    const comparison_t cmp[] = {
        {"receive buffer differs from the expected values", &s->recv, &s->want, 0},
        {"send buffer was modified", &s->send, &s->send_copy, 0},
    };
    char why[MPI_MAX_ERROR_STRING + 200];
    int ok = judge(rc, MPI_SUCCESS, cmp, 2, why, sizeof why);
    t->hash = fnv1a(t->hash, s->recv.data, s->recv.len);
    count_verdict(t, ok);
    if (!ok) report(s, round, why);
}

/* A barrier slot: its rank 0 gets every rank's start time and sends back
 * the latest; no rank may have completed before it. */
static void check_barrier(slot_t *s, int rc, int round, tally_t *t)
{
    MPI_Comm c = s->comm->comm;
    int64_t latest = s->entry, theirs;
    int ref_rc = MPI_SUCCESS;
    if (s->rank != 0) {
        ref_rc = MPI_Send(&s->entry, 1, MPI_INT64_T, 0, TAG_TIMES, c);
        if (ref_rc == MPI_SUCCESS) ref_rc = MPI_Recv(&latest, 1, MPI_INT64_T, 0, TAG_TIMES, c, MPI_STATUS_IGNORE);
    } else {
        for (int j = 1; j < s->size && ref_rc == MPI_SUCCESS; j++) {
            ref_rc = MPI_Recv(&theirs, 1, MPI_INT64_T, j, TAG_TIMES, c, MPI_STATUS_IGNORE);
            if (theirs > latest) latest = theirs;
        }
        for (int j = 1; j < s->size && ref_rc == MPI_SUCCESS; j++)
            ref_rc = MPI_Send(&latest, 1, MPI_INT64_T, j, TAG_TIMES, c);
    }
    char why[MPI_MAX_ERROR_STRING + 200];
    int ok = judge(rc, ref_rc, NULL, 0, why, sizeof why);
    const unsigned char in_time = s->exit_ >= latest;
    t->hash = fnv1a(t->hash, &in_time, 1);
    if (ok && !in_time) {
        ok = 0;
        snprintf(why, sizeof why, "completed %" PRId64 " ns before the last rank started it", latest - s->exit_);
    }
    count_verdict(t, ok);
    if (!ok) report(s, round, why);
}

/* --------------------------------------------------------------- a round */

/* How a round completes its requests. */
typedef enum { C_WAITALL, C_WAIT_REVERSE, C_TEST_POLL, C_TESTALL, C_MODES } completion_t;
static const char *const completion_names[C_MODES] = {"waitall", "wait-reverse", "test-poll", "testall"};

/* Completes the n requests of slots (in start order) by mode; each slot's
 * code in rcs and, for barriers, its completion time, when this rank sees it. */
static void complete_all(slot_t **slots, int n, completion_t mode, int *rcs)
{
    MPI_Request *reqs = malloc((size_t)n * sizeof *reqs);
    MPI_Status *st = malloc((size_t)n * sizeof *st);
    if (!reqs || !st) MPI_Abort(MPI_COMM_WORLD, 3);
    for (int i = 0; i < n; i++) {
        reqs[i] = slots[i]->req;
        rcs[i] = slots[i]->start_rc;
    }
    int rc = MPI_SUCCESS;
    switch (mode) {
    case C_WAITALL:
        rc = MPI_Waitall(n, reqs, st);
        for (int i = 0; i < n; i++) slots[i]->exit_ = now_ns();
        break;
    case C_WAIT_REVERSE:
        for (int i = n - 1; i >= 0; i--) {
            if (rcs[i] == MPI_SUCCESS) rcs[i] = MPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
            slots[i]->exit_ = now_ns();
        }
        break;
    case C_TEST_POLL: {
        int left = n;
        char *done = calloc((size_t)n, 1);
        if (!done) MPI_Abort(MPI_COMM_WORLD, 3);
        while (left > 0)
            for (int i = 0; i < n; i++) {
                if (done[i]) continue;
                int flag = 0;
                if (rcs[i] == MPI_SUCCESS) rcs[i] = MPI_Test(&reqs[i], &flag, MPI_STATUS_IGNORE);
                if (flag || rcs[i] != MPI_SUCCESS) {
                    done[i] = 1;
                    left--;
                    slots[i]->exit_ = now_ns();
                }
            }
        free(done);
        break;
    }
    default: {
        int flag = 0;
        while (!flag && rc == MPI_SUCCESS) rc = MPI_Testall(n, reqs, &flag, st);
        for (int i = 0; i < n; i++) slots[i]->exit_ = now_ns();
        break;
    }
    }
    if (rc == MPI_ERR_IN_STATUS)
        for (int i = 0; i < n; i++) rcs[i] = st[i].MPI_ERROR;
    else if (rc != MPI_SUCCESS)
        for (int i = 0; i < n; i++) rcs[i] = rc;
    /* Persistent requests stay (inactive) in their slots; the others are
     * MPI_REQUEST_NULL now. */
    for (int i = 0; i < n; i++) slots[i]->req = reqs[i];
    free(reqs);
    free(st);
}

/* The blocking collectives between the starts and the completions, on every
 * communicator: a barrier, and an allreduce whose sum each rank knows. */
static void blocking_between(comm_entry_t *comms, int round, tally_t *t)
{
    for (int ci = 0; ci < NCOMMS; ci++) {
        MPI_Comm c = comms[ci].comm;
        int rank, size;
        MPI_Comm_rank(c, &rank);
        MPI_Comm_size(c, &size);
        int rc = MPI_Barrier(c);
        unsigned mine[2] = {(unsigned)rank + 1, (unsigned)round}, sum[2] = {0, 0};
        if (rc == MPI_SUCCESS) rc = MPI_Allreduce(mine, sum, 2, MPI_UNSIGNED, MPI_SUM, c);
        const unsigned want0 = (unsigned)(size * (size + 1) / 2), want1 = (unsigned)(size * round);
        int ok = rc == MPI_SUCCESS && sum[0] == want0 && sum[1] == want1;
        t->hash = fnv1a(t->hash, (const unsigned char *)sum, sizeof sum);
        count_verdict(t, ok);
        if (!ok) {
            int wrank;
            MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
            printf(PROG ": FAIL round=%d blocking barrier+allreduce between starts and completions comm=%s "
                        "world_rank=%d: code %d, sums %u %u, expected %u %u\n",
                   round, comms[ci].label, wrank, rc, sum[0], sum[1], want0, want1);
            fflush(stdout);
        }
    }
}

/* ------------------------------------------------------------------- main */

typedef struct {
    int rounds;
    int counts[MAX_COUNTS];
    int ncounts;
    int persistent; /* 0: nonblocking slots only */
    int only_ialltoall; /* > 0: that many MPI_Ialltoall alone on a new communicator */
    int no_barrier;     /* --only-ialltoall: no MPI_Barrier and second series */
    int in_flight;      /* --only-ialltoall: each series started before it is waited */
} options_t;

/* o->only_ialltoall MPI_Ialltoall in a row, each waited and checked (or,
 * in flight, all started, then waited in reverse order), on a new
 * communicator that calls no other collective, then, unless no_barrier, a
 * barrier and as many again; block sizes from o->counts in turn. */
static int run_only_ialltoall(const options_t *o)
{
    comm_entry_t only = {"ialltoall-only", MPI_COMM_NULL, 1};
    tally_t t = TALLY_START;
    const int n = o->only_ialltoall, series = o->no_barrier ? 1 : 2, at_once = o->in_flight ? n : 1;
    slot_t *s = calloc((size_t)n, sizeof *s);
    int *rcs = calloc((size_t)n, sizeof *rcs);
    MPI_Comm_dup(MPI_COMM_WORLD, &only.comm);
    name_comm(only.comm, only.label);
    for (int call = 0; call < series * n; call += at_once) {
        if (call == n) MPI_Barrier(only.comm);
        for (int i = 0; i < at_once; i++) {
            make_slot(&s[i], K_ALLTOALL, &only, 0, o->counts[(call + i) % o->ncounts], 0, (uint32_t)(7000 + call + i));
            fill_slot(&s[i], (uint32_t)(9000 + call + i));
            rcs[i] = issue(&s[i]);
            if (!o->in_flight && rcs[i] == MPI_SUCCESS) rcs[i] = MPI_Wait(&s[i].req, MPI_STATUS_IGNORE);
        }
        for (int i = at_once - 1; i >= 0; i--)
            if (o->in_flight && rcs[i] == MPI_SUCCESS) rcs[i] = MPI_Wait(&s[i].req, MPI_STATUS_IGNORE);
        for (int i = 0; i < at_once; i++) {
            check_slot(&s[i], rcs[i], call + i, &t);
            free_slot(&s[i]);
        }
    }
    MPI_Comm_free(&only.comm);
    free(s);
    free(rcs);
    return exit_with_summary(&t);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: " PROG " [--rounds N] [--counts N,N,...] [--quick] [--no-persistent]\n"
               "       [--only-ialltoall N [--no-barrier] [--in-flight]]\n"
               "  --rounds    rounds of starts and completions (default 8)\n"
               "  --counts    elements per block, taken in turn (default 0,1,7,100)\n"
               "  --quick     --rounds 4\n"
               "  --no-persistent  nonblocking requests only\n"
               "  --only-ialltoall N  instead, N MPI_Ialltoall alone on a new communicator, a barrier, N more\n"
               "  --no-barrier        with --only-ialltoall: the N alone, no barrier\n"
               "  --in-flight         with --only-ialltoall: the N started before the first is waited\n");
}

static int parse_options(int argc, char **argv, options_t *o)
{
    *o = (options_t){8, {0, 1, 7, 100}, 4, 1, 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return 1;
        if (!strcmp(a, "--quick")) {
            o->rounds = 4;
            continue;
        }
        if (!strcmp(a, "--no-persistent")) {
            o->persistent = 0;
            continue;
        }
        if (!strcmp(a, "--no-barrier")) {
            o->no_barrier = 1;
            continue;
        }
        if (!strcmp(a, "--in-flight")) {
            o->in_flight = 1;
            continue;
        }
        if (!v) return -1;
        if (!strcmp(a, "--rounds")) {
            char *end;
            long n = strtol(v, &end, 10);
            if (*end || n < 1 || n > 1000) return -1;
            o->rounds = (int)n;
        } else if (!strcmp(a, "--only-ialltoall")) {
            char *end;
            long n = strtol(v, &end, 10);
            if (*end || n < 1 || n > 1000) return -1;
            o->only_ialltoall = (int)n;
        } else if (!strcmp(a, "--counts")) {
            common_options_t co;
            if (parse_counts(v, &co)) return -1;
            memcpy(o->counts, co.counts, sizeof co.counts);
            o->ncounts = co.ncounts;
        } else {
            return -1;
        }
        i++;
    }
#ifndef PERSISTENT_INIT
    o->persistent = 0;
#endif
    return 0;
}

int main(int argc, char **argv)
{
    checker_init(&argc, &argv);
    options_t o;
    int parsed = parse_options(argc, argv, &o);
    if (parsed != 0) return exit_with_usage(parsed, usage);

    int wrank;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    /* A blocking collective on MPI_COMM_WORLD first (see warm_up_comms):
     * the dup and the split below call collectives on it. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (o.only_ialltoall > 0) return run_only_ialltoall(&o);
    comm_entry_t comms[MAX_COMMS];
    build_comms(comms, "world,dup,parity");

    /* Persistent slots: one of each collective on each communicator, made
     * after the first blocking collective there (round 0's), started in
     * every round after it. */
    slot_t persistent[NCOMMS * K_COUNT];
    int npersistent = 0;
    tally_t t = TALLY_START;
    slot_t fresh[NCOMMS * K_COUNT];
    for (int round = 0; round < o.rounds; round++) {
        const int use_persistent = o.persistent && round > 0;
        if (use_persistent && npersistent == 0)
            for (int ci = 0; ci < NCOMMS; ci++)
                for (int k = 0; k < K_COUNT; k++) {
                    int size;
                    MPI_Comm_size(comms[ci].comm, &size);
                    make_slot(&persistent[npersistent++], (kind_t)k, &comms[ci], 1,
                              o.counts[(k + ci + 1) % o.ncounts], (k + ci) % size,
                              (uint32_t)(1000 + k + K_COUNT * ci));
                }
        int nfresh = 0;
        for (int ci = 0; ci < NCOMMS; ci++)
            for (int k = 0; k < K_COUNT; k++) {
                int size;
                MPI_Comm_size(comms[ci].comm, &size);
                make_slot(&fresh[nfresh++], (kind_t)k, &comms[ci], 0, o.counts[(k + ci + round) % o.ncounts],
                          (round + k + ci) % size, (uint32_t)(round * 64 + k + K_COUNT * ci));
            }
        /* Start order: fresh and persistent slots interleaved, turned by
         * the round; the same on every rank (collectives on a communicator
         * start in one order everywhere). */
        slot_t *order[2 * NCOMMS * K_COUNT];
        int n = 0;
        const int total = nfresh + (use_persistent ? npersistent : 0);
        for (int i = 0; i < total; i++) {
            int j = (i + 5 * round) % total;
            order[n++] = j < nfresh ? &fresh[j] : &persistent[j - nfresh];
        }
        /* One rank starts its barriers late, in turn. */
        for (int i = 0; i < n; i++) {
            slot_t *s = order[i];
            const uint32_t seed = (uint32_t)(round * 4096 + (s - (s->persistent ? persistent : fresh)) +
                                             (s->persistent ? 2048 : 0));
            fill_slot(s, seed);
            if (s->kind == K_BARRIER && s->rank == round % s->size) sleep_us(2000);
            s->entry = now_ns();
            s->start_rc = issue(s);
            if (s->persistent && s->start_rc == MPI_SUCCESS && (round % 2 == 1)) s->start_rc = MPI_Start(&s->req);
        }
        /* Even rounds start the persistent requests together. */
        if (use_persistent && round % 2 == 0) {
            MPI_Request reqs[NCOMMS * K_COUNT];
            for (int i = 0; i < npersistent; i++) reqs[i] = persistent[i].req;
            int rc = MPI_Startall(npersistent, reqs);
            for (int i = 0; i < npersistent; i++)
                if (persistent[i].start_rc == MPI_SUCCESS) persistent[i].start_rc = rc;
        }
        blocking_between(comms, round, &t);
        /* Odd ranks complete differently from even ones in every third round. */
        completion_t mode = (completion_t)((round + (round % 3 == 2 ? wrank % 2 : 0)) % C_MODES);
        int rcs[2 * NCOMMS * K_COUNT];
        complete_all(order, n, mode, rcs);
        for (int i = 0; i < n; i++) {
            if (order[i]->kind == K_BARRIER) check_barrier(order[i], rcs[i], round, &t);
            else check_slot(order[i], rcs[i], round, &t);
        }
        if (wrank == 0) {
            printf(PROG ": round %d: %d requests (%d persistent), completed by %s%s%s%s\n", round, n, n - nfresh,
                   completion_names[mode], round % 3 == 2 ? " (odd ranks: " : "",
                   round % 3 == 2 ? completion_names[(round + 1) % C_MODES] : "",
                   round % 3 == 2 ? ")" : "");
            fflush(stdout);
        }
        for (int i = 0; i < nfresh; i++) free_slot(&fresh[i]);
    }
    for (int i = 0; i < npersistent; i++) free_slot(&persistent[i]);
    free_comms(comms, NCOMMS);
    return exit_with_summary(&t);
}
