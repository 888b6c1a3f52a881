/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/*
 * coll_check: checks one of MPI_Scatter, MPI_Gather, MPI_Allgather,
 * MPI_Allreduce and MPI_Barrier (--op) against a point-to-point reference,
 * byte for byte, in the manner of alltoall_check: every datatype class,
 * several counts, every root, MPI_IN_PLACE wherever the standard allows it,
 * and several communicators, optionally with a periodic Cartesian one (--cart);
 * with --form, the nonblocking (MPI_Iscatter...) or persistent
 * (MPI_Scatter_init...) form instead (check_common.h, "forms").
 *
 * Why point-to-point: the checker must not rely on any collective that the
 * component under test may replace, so the reference, the pass/fail summary
 * and the checksum are all built from MPI_Isend/MPI_Irecv/MPI_Send/MPI_Recv
 * (and MPI_Reduce_local, which is local). (Building the communicators cannot
 * avoid collectives: MPI_Comm_split runs the parent's MPI_Allgather, and
 * MPI_Comm_dup and MPI_Cart_create Open MPI's internal allreduce; every MPI
 * program exercises them anyway.)
 *
 * The cases:
 *   scatter, gather  every type pair of check_common.h (contiguous, vector,
 *                    struct, resized, different send and receive types of one
 *                    signature), count, root and communicator; in place at
 *                    the root (scatter: its receive buffer, gather: its send
 *                    buffer), for mixed pairs too (the other ranks still use
 *                    the other type).
 *   allgather        every type pair, count and communicator; in place (not
 *                    for mixed pairs: in place only the receive type is used).
 *   allreduce        reductions whose result does not depend on the order of
 *                    the operands, so a reordering algorithm must match the
 *                    reference exactly (sums of integers that cannot
 *                    overflow, MAX and MIN of doubles, bitwise operations,
 *                    MAXLOC, whose ties go to the lower index, and a
 *                    commutative user operation, the only kind MPI lets
 *                    derived datatypes reduce with); then a user operation
 *                    that is associative but not commutative (2x2 matrix
 *                    product modulo 2^32), whose operands must be combined in
 *                    rank order, MPI's canonical order, and which coll/hier
 *                    must hand to its fallback. The reference combines the
 *                    operands in that order with MPI_Reduce_local. Every count,
 *                    communicator, and in place.
 *   barrier          semantics, not just completion (below), on every
 *                    communicator. Types, counts and in-place do not apply.
 *
 * Barrier: each rank sleeps 0 to 2 ms (and, every fourth iteration, one rank
 * in turn 5 ms more), reads CLOCK_MONOTONIC, calls MPI_Barrier (or starts
 * MPI_Ibarrier or its persistent request), and reads it again on return (on
 * completion); the check is max(entry) <= min(exit) in every iteration.
 * This is exact, not a timing threshold: a barrier returns nowhere before
 * every rank has called it, so the last entry's clock read happens before its
 * call, which happens before (through the messages the barrier must carry)
 * every return and the clock read after it. All processes of our test
 * layers run on one kernel (one host, or network namespaces of one host,
 * which share its clocks; only a time namespace would offset
 * CLOCK_MONOTONIC, and we use none), and that kernel keeps CLOCK_MONOTONIC
 * consistent across CPUs, so reads ordered by happens-before are ordered in
 * value. A correct barrier therefore passes on any machine under any load,
 * and a barrier that lets a rank leave before the last one entered fails
 * whenever that exit precedes that entry in real time, which the sleeps make
 * happen. (On processes of different kernels the check would need a common
 * clock, and would then no longer be exact.)
 *
 * Output (rank 0 of MPI_COMM_WORLD):
 *   coll_check: FAIL ...                 one line per failing case and rank
 *   coll_check: checksum <16 hex digits>  FNV-1a over all results
 *   coll_check: N passed, M failed        over all cases and all ranks
 * Exit code: 0 if everything passed, 1 if anything failed, 2 on bad usage.
 *
 * The checksum depends only on the communicator size and the selected cases
 * (for barrier: on which iterations passed), so a driver can compare runs of
 * different algorithms with each other.
 *
 * Memory per case, per rank, at p = 16 and count 4096 with the widest type
 * (vector, 32-byte extent, 128 KiB per block): scatter and gather, two
 * buffers of p blocks at the root and two of one block (4.25 MiB);
 * allgather the same on every rank; allreduce six buffers of count elements
 * (768 KiB); barrier four 64-bit values per iteration (five on the
 * communicator's rank 0).
 */
#define PROG "coll_check"
#include "check_common.h"

#include <errno.h>
#include <time.h>

/* ------------------------------------------------------------ collectives */

typedef enum { OP_SCATTER, OP_GATHER, OP_ALLGATHER, OP_ALLREDUCE, OP_BARRIER, OP_COUNT } op_t;
static const char *const op_names[OP_COUNT] = {"scatter", "gather", "allgather", "allreduce",
                                               "barrier"};

/* ------------------------------------------------------------- reductions */

/* What a field of a reduction's element holds, which fixes how its values are
 * drawn: each kind keeps its operation's result independent of the order of
 * the operands (no overflow, no rounding, no NaN). */
typedef enum {
    SMALL_INT,      /* int in [-2^20, 2^20): 16 of them sum without overflow */
    BITS32,         /* any 32 bits (bitwise operations, user operations) */
    WIDE_INT64,     /* long long in [-2^40, 2^40) */
    QUARTER_DOUBLE, /* a multiple of 1/4 in [-2, 2): exact, and often tied */
    BYTE8,          /* any byte */
    SMALL_INDEX     /* int in [0, 8): MAXLOC's index, often tied */
} field_kind_t;

typedef struct {
    size_t offset;
    field_kind_t kind;
} field_t;

#define MAX_FIELDS 6
#define ALL_REDUCTIONS                                                                     \
    "sum-int,sum-longlong,max-double,min-double,band-unsigned,bor-unsigned,bxor-unsigned," \
    "maxloc-double-int,user-int,user-vector,user-struct,user-resized,matmul,matmul-vector"

/* An allreduce case: an operation on a datatype, and the data fields of one
 * element of it (the rest are gaps, which no operation may write). */
typedef struct {
    const char *name;
    MPI_Op op;
    MPI_User_function *user_fn; /* for user operations: the function of op */
    MPI_Datatype type;
    int free_type;
    size_t extent;
    int nfields;
    field_t fields[MAX_FIELDS];
} reduction_t;

/* The table, for the user functions to find an element's fields from the
 * datatype MPI hands them, which the standard says is the call's own. */
static const reduction_t *reductions;
static int nreductions;

static const reduction_t *reduction_of(MPI_Datatype type, MPI_User_function *fn)
{
    for (int i = 0; i < nreductions; i++)
        if (reductions[i].type == type && reductions[i].user_fn == fn) return &reductions[i];
    fprintf(stderr, PROG ": a user operation was called with a datatype its call was not given\n");
    MPI_Abort(MPI_COMM_WORLD, 3);
    return NULL;
}

static uint32_t load32(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static void store32(unsigned char *p, uint32_t v)
{
    memcpy(p, &v, sizeof v);
}

/* The commutative, associative user operation, field by field: on 32-bit
 * fields a o b = a + b + 2ab (mod 2^32), i.e. (1 + 2a)(1 + 2b) = 1 + 2(a o b),
 * a product of odd numbers; bytes are XORed, doubles take the maximum. */
static void combine_commutative(void *in, void *inout, int *len, MPI_Datatype *type)
{
    const reduction_t *r = reduction_of(*type, combine_commutative);
    for (int e = 0; e < *len; e++)
        for (int f = 0; f < r->nfields; f++) {
            const unsigned char *a = (const unsigned char *)in + e * r->extent + r->fields[f].offset;
            unsigned char *b = (unsigned char *)inout + e * r->extent + r->fields[f].offset;
            switch (r->fields[f].kind) {
            case BITS32: {
                uint32_t x = load32(a), y = load32(b);
                store32(b, x + y + 2 * x * y);
                break;
            }
            case BYTE8:
                *b ^= *a;
                break;
            case QUARTER_DOUBLE: {
                double x, y;
                memcpy(&x, a, sizeof x);
                memcpy(&y, b, sizeof y);
                if (x > y) memcpy(b, &x, sizeof x);
                break;
            }
            default:
                fprintf(stderr, PROG ": no user combination for field kind %d\n", r->fields[f].kind);
                MPI_Abort(MPI_COMM_WORLD, 3);
            }
        }
}

/* The associative, non-commutative user operation: an element is a 2x2
 * matrix of 32-bit fields (row-major), and inout = in x inout (mod 2^32):
 * MPI's order, in which in comes from the lower ranks. */
static void multiply_matrices(void *in, void *inout, int *len, MPI_Datatype *type)
{
    const reduction_t *r = reduction_of(*type, multiply_matrices);
    for (int e = 0; e < *len; e++) {
        const unsigned char *a = (const unsigned char *)in + e * r->extent;
        unsigned char *b = (unsigned char *)inout + e * r->extent;
        uint32_t x[4], y[4];
        for (int f = 0; f < 4; f++) {
            x[f] = load32(a + r->fields[f].offset);
            y[f] = load32(b + r->fields[f].offset);
        }
        store32(b + r->fields[0].offset, x[0] * y[0] + x[1] * y[2]);
        store32(b + r->fields[1].offset, x[0] * y[1] + x[1] * y[3]);
        store32(b + r->fields[2].offset, x[2] * y[0] + x[3] * y[2]);
        store32(b + r->fields[3].offset, x[2] * y[1] + x[3] * y[3]);
    }
}

/* op on type, whose elements hold nfields fields; fn is op's function for
 * user operations, NULL for predefined ones; free_type: a type of ours. */
static reduction_t reduction(const char *name, MPI_Op op, MPI_User_function *fn,
                             MPI_Datatype type, int free_type, int nfields, const field_t *fields)
{
    reduction_t r = {name, op, fn, type, free_type, extent_of(type), nfields, {{0, BITS32}}};
    memcpy(r.fields, fields, (size_t)nfields * sizeof *fields);
    return r;
}

/* A predefined operation on a predefined type of one field. */
static reduction_t predefined(const char *name, MPI_Op op, MPI_Datatype type, field_kind_t kind)
{
    const field_t field = {0, kind};
    return reduction(name, op, NULL, type, 0, 1, &field);
}

/* The reductions named in ALL_REDUCTIONS, in that order (commutative ones
 * first: hier's verbose line reports the first call on a communicator). */
static int build_reductions(reduction_t *r, MPI_Op user_ops[2])
{
    struct double_int { double v; int i; }; /* MPI_DOUBLE_INT */
    const field_t double_int[] = {{offsetof(struct double_int, v), QUARTER_DOUBLE},
                                  {offsetof(struct double_int, i), SMALL_INDEX}};
    const field_t one_int[] = {{0, BITS32}};
    field_t vector_ints[VECTOR_BLOCKS * VECTOR_BLOCKLEN];
    for (int b = 0; b < VECTOR_BLOCKS; b++)
        for (int k = 0; k < VECTOR_BLOCKLEN; k++)
            vector_ints[b * VECTOR_BLOCKLEN + k] =
                (field_t){(size_t)(b * VECTOR_STRIDE + k) * sizeof(int), BITS32};
    const field_t char_double[] = {{offsetof(struct char_double, c), BYTE8},
                                   {offsetof(struct char_double, d), QUARTER_DOUBLE}};
    field_t resized_ints[RESIZED_INTS];
    for (int k = 0; k < RESIZED_INTS; k++)
        resized_ints[k] = (field_t){RESIZED_OFFSET + (size_t)k * sizeof(int), BITS32};
    /* Matrices: 4 contiguous unsigned, or 2 rows of 2 with a one-int gap. */
    const field_t matrix[] = {{0, BITS32}, {4, BITS32}, {8, BITS32}, {12, BITS32}};
    const field_t matrix_rows[] = {{0, BITS32}, {4, BITS32}, {12, BITS32}, {16, BITS32}};
    MPI_Datatype matrix_type, rows_type;
    MPI_Type_contiguous(4, MPI_UNSIGNED, &matrix_type);
    MPI_Type_commit(&matrix_type);
    MPI_Type_vector(2, 2, 3, MPI_UNSIGNED, &rows_type);
    MPI_Type_commit(&rows_type);

    MPI_Op_create(combine_commutative, 1, &user_ops[0]);
    MPI_Op_create(multiply_matrices, 0, &user_ops[1]);

    int n = 0;
    r[n++] = predefined("sum-int", MPI_SUM, MPI_INT, SMALL_INT);
    r[n++] = predefined("sum-longlong", MPI_SUM, MPI_LONG_LONG, WIDE_INT64);
    r[n++] = predefined("max-double", MPI_MAX, MPI_DOUBLE, QUARTER_DOUBLE);
    r[n++] = predefined("min-double", MPI_MIN, MPI_DOUBLE, QUARTER_DOUBLE);
    r[n++] = predefined("band-unsigned", MPI_BAND, MPI_UNSIGNED, BITS32);
    r[n++] = predefined("bor-unsigned", MPI_BOR, MPI_UNSIGNED, BITS32);
    r[n++] = predefined("bxor-unsigned", MPI_BXOR, MPI_UNSIGNED, BITS32);
    r[n++] = reduction("maxloc-double-int", MPI_MAXLOC, NULL, MPI_DOUBLE_INT, 0, 2, double_int);
    r[n++] = reduction("user-int", user_ops[0], combine_commutative, MPI_INT, 0, 1, one_int);
    r[n++] = reduction("user-vector", user_ops[0], combine_commutative, make_vector(), 1,
                       VECTOR_BLOCKS * VECTOR_BLOCKLEN, vector_ints);
    r[n++] = reduction("user-struct", user_ops[0], combine_commutative, make_struct(), 1, 2,
                       char_double);
    r[n++] = reduction("user-resized", user_ops[0], combine_commutative, make_resized(), 1,
                       RESIZED_INTS, resized_ints);
    r[n++] = reduction("matmul", user_ops[1], multiply_matrices, matrix_type, 1, 4, matrix);
    r[n++] = reduction("matmul-vector", user_ops[1], multiply_matrices, rows_type, 1, 4,
                       matrix_rows);
    return n;
}

static void free_reductions(reduction_t *r, int n, MPI_Op user_ops[2])
{
    for (int i = 0; i < n; i++)
        if (r[i].free_type) MPI_Type_free(&r[i].type);
    MPI_Op_free(&user_ops[0]);
    MPI_Op_free(&user_ops[1]);
}

/* Writes field f of element e on rank rank, in case seed: a value of its kind. */
static void write_field(unsigned char *at, field_kind_t kind, uint32_t seed, int rank, size_t e,
                        int f)
{
    uint32_t h = mix32(seed, rank, e, (size_t)f);
    switch (kind) {
    case SMALL_INT: {
        int v = (int)(h % (1u << 21)) - (1 << 20);
        memcpy(at, &v, sizeof v);
        break;
    }
    case BITS32:
        store32(at, h);
        break;
    case WIDE_INT64: {
        uint64_t bits = (uint64_t)h << 32 | mix32(seed, rank, e, (size_t)f + MAX_FIELDS);
        long long v = (long long)(bits % (1ull << 41)) - (1ll << 40);
        memcpy(at, &v, sizeof v);
        break;
    }
    case QUARTER_DOUBLE: {
        double v = ((int)(h % 16) - 8) * 0.25;
        memcpy(at, &v, sizeof v);
        break;
    }
    case BYTE8:
        *at = (unsigned char)(h >> 24);
        break;
    case SMALL_INDEX: {
        int v = (int)(h % 8);
        memcpy(at, &v, sizeof v);
        break;
    }
    }
}

/* count elements of r's datatype: pattern bytes in the gaps (they must stay
 * as they are), values of each field's kind in the fields. */
static void fill_operand(const guarded_t *g, const reduction_t *r, int count, uint32_t seed,
                         int rank)
{
    fill_pattern(g->data, g->len, r->extent, seed, rank);
    for (size_t e = 0; e < (size_t)count; e++)
        for (int f = 0; f < r->nfields; f++)
            write_field(g->data + e * r->extent + r->fields[f].offset, r->fields[f].kind, seed,
                        rank, e, f);
}

/* ---------------------------------------------------------------- the case */

typedef struct {
    op_t op;
    const comm_entry_t *comm;
    const type_pair_t *types;       /* scatter, gather, allgather */
    const reduction_t *reduction;   /* allreduce */
    int count;
    int root;                       /* scatter, gather; -1 otherwise */
    int in_place;
    uint32_t seed;                  /* the case's index: the same on all ranks */
    form_t form;
} case_t;

/* One line per failing case and rank. */
static void report_failure(const case_t *c, const char *why)
{
    int rank, wrank;
    MPI_Comm_rank(c->comm->comm, &rank);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    /* " type=vector count=7 root=2 inplace=no"; nothing for barrier */
    char fields[128] = "";
    if (c->op != OP_BARRIER) {
        int n = snprintf(fields, sizeof fields, " type=%s count=%d",
                         c->types ? c->types->name : c->reduction->name, c->count);
        if (c->root >= 0) n += snprintf(fields + n, sizeof fields - n, " root=%d", c->root);
        snprintf(fields + n, sizeof fields - n, " inplace=%s", c->in_place ? "yes" : "no");
    }
    printf(PROG ": FAIL op=%s comm=%s%s rank=%d world_rank=%d: %s\n", op_names[c->op],
           c->comm->label, fields, rank, wrank, why);
    fflush(stdout);
}

/* Counts the case, and reports it if it failed. */
static void finish_case(const case_t *c, tally_t *t, int ok, const char *why)
{
    if (ok) {
        t->passed++;
    } else {
        t->failed++;
        report_failure(c, why);
    }
}

static MPI_Request *alloc_requests(int n)
{
    MPI_Request *reqs = malloc((size_t)(n > 0 ? n : 1) * sizeof *reqs);
    if (!reqs) MPI_Abort(MPI_COMM_WORLD, 3);
    return reqs;
}

static int wait_and_free(MPI_Request *reqs, int n)
{
    int rc = MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
    free(reqs);
    return rc;
}

/* Buffers of one scatter, gather or allgather case and their reference
 * copies. Unused ones have length 0 (only guards). A persistent request
 * keeps the addresses of send and recv over its starts. */
typedef struct {
    guarded_t send, recv, ref_send, ref_recv;
    size_t sblock, rblock; /* bytes per block */
    int hash_send;         /* does the checksum take the send buffer too */
} buffers_t;

/* The four buffers, send and recv of the given lengths, the reference
 * copies of the same. */
static buffers_t alloc_buffers(size_t send_len, size_t recv_len, size_t sblock, size_t rblock)
{
    buffers_t b = {guarded_alloc(send_len), guarded_alloc(recv_len), guarded_alloc(send_len),
                   guarded_alloc(recv_len), sblock, rblock, 1};
    return b;
}

static void free_buffers(buffers_t *b)
{
    free(b->send.base);
    free(b->recv.base);
    free(b->ref_send.base);
    free(b->ref_recv.base);
}

/* Before start s of a case: every byte of the buffers the sentinel; the
 * caller then fills what the call reads and copies it with copy_to_refs. */
static void reset_buffers(buffers_t *b)
{
    guarded_reset(&b->send);
    guarded_reset(&b->recv);
}

static void copy_to_refs(buffers_t *b)
{
    memcpy(b->ref_send.base, b->send.base, b->send.len + 2 * GUARD);
    memcpy(b->ref_recv.base, b->recv.base, b->recv.len + 2 * GUARD);
}

/* The verdict on start s of a case: the receive buffer as the reference's,
 * the send buffer untouched; the last start's buffers go into the checksum. */
static void judge_start(const case_t *c, tally_t *t, buffers_t *b, int rc, int ref_rc, int s,
                        verdict_t *v)
{
    const int starts = form_starts(c->form);
    const comparison_t cmp[] = {
        {"receive buffer differs from reference", &b->recv, &b->ref_recv, b->rblock},
        {"send buffer was modified", &b->send, &b->ref_send, b->sblock},
    };
    if (s == starts - 1) {
        if (b->hash_send) t->hash = fnv1a(t->hash, b->send.data, b->send.len);
        t->hash = fnv1a(t->hash, b->recv.data, b->recv.len);
    }
    char why[MPI_MAX_ERROR_STRING + 160];
    verdict_add(v, judge(rc, ref_rc, cmp, 2, why, sizeof why), why, s, starts);
}

/* After a case's last start: frees its request and buffers, counts it. */
static void finish_starts(const case_t *c, tally_t *t, buffers_t *b, MPI_Request *req,
                          const verdict_t *v)
{
    form_release(req);
    free_buffers(b);
    finish_case(c, t, v->ok, v->why);
}

/* The calls under test in form f (check_common.h, "forms"). */
static int call_scatter(form_t f, MPI_Request *req, const void *sbuf, int scount, MPI_Datatype stype,
                        void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    switch (f) {
    case FORM_NONBLOCKING:
        return MPI_Iscatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req);
    case FORM_PERSISTENT:
        PERSISTENT_START(Scatter, req, sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    default:
        return MPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    }
}

static int call_gather(form_t f, MPI_Request *req, const void *sbuf, int scount, MPI_Datatype stype,
                       void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    switch (f) {
    case FORM_NONBLOCKING:
        return MPI_Igather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req);
    case FORM_PERSISTENT:
        PERSISTENT_START(Gather, req, sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    default:
        return MPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    }
}

static int call_allgather(form_t f, MPI_Request *req, const void *sbuf, int scount,
                          MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                          MPI_Comm comm)
{
    switch (f) {
    case FORM_NONBLOCKING:
        return MPI_Iallgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
    case FORM_PERSISTENT:
        PERSISTENT_START(Allgather, req, sbuf, scount, stype, rbuf, rcount, rtype, comm);
    default:
        return MPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    }
}

static int call_allreduce(form_t f, MPI_Request *req, const void *sbuf, void *rbuf, int count,
                          MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    switch (f) {
    case FORM_NONBLOCKING:
        return MPI_Iallreduce(sbuf, rbuf, count, type, op, comm, req);
    case FORM_PERSISTENT:
        PERSISTENT_START(Allreduce, req, sbuf, rbuf, count, type, op, comm);
    default:
        return MPI_Allreduce(sbuf, rbuf, count, type, op, comm);
    }
}

static int call_barrier(form_t f, MPI_Request *req, MPI_Comm comm)
{
    switch (f) {
    case FORM_NONBLOCKING:
        return MPI_Ibarrier(comm, req);
    case FORM_PERSISTENT:
        PERSISTENT_START(Barrier, req, comm);
    default:
        return MPI_Barrier(comm);
    }
}

/* MPI_Scatter: the root's block j goes to rank j. In place, the root keeps
 * its own block where it is in its send buffer, and receives nothing. */
static void run_scatter(const case_t *c, tally_t *t)
{
    MPI_Comm comm = c->comm->comm;
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int is_root = rank == c->root, receives = !(is_root && c->in_place);
    MPI_Datatype stype = c->types->send, rtype = c->types->recv;
    const size_t sblock = (size_t)c->count * extent_of(stype);
    const size_t rblock = (size_t)c->count * extent_of(rtype);
    buffers_t b = alloc_buffers(is_root ? span_of(stype, (size_t)size * c->count) : 0,
                                receives ? span_of(rtype, (size_t)c->count) : 0, sblock, rblock);
    MPI_Request req = MPI_REQUEST_NULL;
    verdict_t v = {1, ""};
    const int starts = form_starts(c->form);
    for (int s = 0; s < starts; s++) {
        reset_buffers(&b);
        fill_pattern(b.send.data, b.send.len, sblock ? sblock : 1, start_seed(c->seed, s, starts),
                     rank);
        copy_to_refs(&b);

        /* Arguments the standard says are ignored get values that would be
         * wrong if anything looked at them. */
        int rc;
        if (!is_root)
            rc = call_scatter(c->form, &req, NULL, 0, MPI_DATATYPE_NULL, b.recv.data, c->count,
                              rtype, c->root, comm);
        else if (c->in_place)
            rc = call_scatter(c->form, &req, b.send.data, c->count, stype, MPI_IN_PLACE, 0,
                              MPI_DATATYPE_NULL, c->root, comm);
        else
            rc = call_scatter(c->form, &req, b.send.data, c->count, stype, b.recv.data, c->count,
                              rtype, c->root, comm);
        rc = form_complete(c->form, rc, &req);

        MPI_Request *reqs = alloc_requests(size + 1);
        int n = 0;
        if (receives)
            MPI_Irecv(b.ref_recv.data, c->count, rtype, c->root, TAG_REFERENCE, comm, &reqs[n++]);
        for (int j = 0; is_root && j < size; j++)
            if (j != rank || receives)
                MPI_Isend(b.ref_send.data + (size_t)j * sblock, c->count, stype, j, TAG_REFERENCE,
                          comm, &reqs[n++]);
        judge_start(c, t, &b, rc, wait_and_free(reqs, n), s, &v);
    }
    finish_starts(c, t, &b, &req, &v);
}

/* MPI_Gather: rank j's block lands in block j of the root's receive buffer.
 * In place, the root's own block is already there, and it sends nothing. */
static void run_gather(const case_t *c, tally_t *t)
{
    MPI_Comm comm = c->comm->comm;
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int is_root = rank == c->root, sends = !(is_root && c->in_place);
    MPI_Datatype stype = c->types->send, rtype = c->types->recv;
    const size_t sblock = (size_t)c->count * extent_of(stype);
    const size_t rblock = (size_t)c->count * extent_of(rtype);
    buffers_t b = alloc_buffers(sends ? span_of(stype, (size_t)c->count) : 0,
                                is_root ? span_of(rtype, (size_t)size * c->count) : 0, sblock,
                                rblock);
    MPI_Request req = MPI_REQUEST_NULL;
    verdict_t v = {1, ""};
    const int starts = form_starts(c->form);
    for (int s = 0; s < starts; s++) {
        const uint32_t seed = start_seed(c->seed, s, starts);
        reset_buffers(&b);
        fill_pattern(b.send.data, b.send.len, sblock ? sblock : 1, seed, rank);
        if (!sends) fill_pattern(b.recv.data, b.recv.len, rblock ? rblock : 1, seed, rank);
        copy_to_refs(&b);

        int rc;
        if (!is_root)
            rc = call_gather(c->form, &req, b.send.data, c->count, stype, NULL, 0,
                             MPI_DATATYPE_NULL, c->root, comm);
        else if (c->in_place)
            rc = call_gather(c->form, &req, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b.recv.data,
                             c->count, rtype, c->root, comm);
        else
            rc = call_gather(c->form, &req, b.send.data, c->count, stype, b.recv.data, c->count,
                             rtype, c->root, comm);
        rc = form_complete(c->form, rc, &req);

        MPI_Request *reqs = alloc_requests(size + 1);
        int n = 0;
        for (int j = 0; is_root && j < size; j++)
            if (j != rank || sends)
                MPI_Irecv(b.ref_recv.data + (size_t)j * rblock, c->count, rtype, j, TAG_REFERENCE,
                          comm, &reqs[n++]);
        if (sends)
            MPI_Isend(b.ref_send.data, c->count, stype, c->root, TAG_REFERENCE, comm, &reqs[n++]);
        judge_start(c, t, &b, rc, wait_and_free(reqs, n), s, &v);
    }
    finish_starts(c, t, &b, &req, &v);
}

/* MPI_Allgather: rank j's block lands in block j of every receive buffer.
 * In place, each rank's own block is already there, in the receive type. */
static void run_allgather(const case_t *c, tally_t *t)
{
    MPI_Comm comm = c->comm->comm;
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Datatype stype = c->in_place ? c->types->recv : c->types->send, rtype = c->types->recv;
    const size_t sblock = (size_t)c->count * extent_of(stype);
    const size_t rblock = (size_t)c->count * extent_of(rtype);
    buffers_t b = alloc_buffers(c->in_place ? 0 : span_of(stype, (size_t)c->count),
                                span_of(rtype, (size_t)size * c->count), sblock, rblock);
    MPI_Request req = MPI_REQUEST_NULL;
    verdict_t v = {1, ""};
    const int starts = form_starts(c->form);
    for (int s = 0; s < starts; s++) {
        const uint32_t seed = start_seed(c->seed, s, starts);
        reset_buffers(&b);
        fill_pattern(b.send.data, b.send.len, sblock ? sblock : 1, seed, rank);
        if (c->in_place) fill_pattern(b.recv.data, b.recv.len, rblock ? rblock : 1, seed, rank);
        copy_to_refs(&b);

        int rc = c->in_place
            ? call_allgather(c->form, &req, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b.recv.data,
                             c->count, rtype, comm)
            : call_allgather(c->form, &req, b.send.data, c->count, stype, b.recv.data, c->count,
                             rtype, comm);
        rc = form_complete(c->form, rc, &req);

        /* In place, my block is sent from my block of (a copy of) the
         * receive buffer; no block goes to myself. */
        const unsigned char *mine = c->in_place ? b.ref_recv.data + (size_t)rank * rblock
                                                : b.ref_send.data;
        MPI_Request *reqs = alloc_requests(2 * size);
        int n = 0;
        for (int j = 0; j < size; j++)
            if (j != rank || !c->in_place) {
                MPI_Irecv(b.ref_recv.data + (size_t)j * rblock, c->count, rtype, j, TAG_REFERENCE,
                          comm, &reqs[n++]);
                MPI_Isend(mine, c->count, stype, j, TAG_REFERENCE, comm, &reqs[n++]);
            }
        judge_start(c, t, &b, rc, wait_and_free(reqs, n), s, &v);
    }
    finish_starts(c, t, &b, &req, &v);
}

/* The reference allreduce: rank 0 combines the operands in MPI's canonical
 * order, x_0 o (x_1 o (... o x_{p-1})), with MPI_Reduce_local (inout = in o
 * inout), receiving them from the highest rank down, and sends the result
 * to every rank (itself included, so that every receive buffer gets it
 * through the datatype and keeps its gaps). */
static int reference_allreduce(const guarded_t *mine, guarded_t *result, const reduction_t *r,
                               int count, MPI_Comm comm)
{
    int rank, size, rc = MPI_SUCCESS;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (rank != 0) {
        rc = MPI_Send(mine->data, count, r->type, 0, TAG_REFERENCE, comm);
        int rc2 = MPI_Recv(result->data, count, r->type, 0, TAG_REFERENCE, comm, MPI_STATUS_IGNORE);
        return rc != MPI_SUCCESS ? rc : rc2;
    }
    /* acc starts as the last operand (mine when I am alone). */
    guarded_t acc = guarded_copy(mine), operand = guarded_copy(mine);
    for (int j = size - 1; j >= 0 && rc == MPI_SUCCESS; j--) {
        guarded_t *into = j == size - 1 ? &acc : &operand;
        if (j != 0)
            rc = MPI_Recv(into->data, count, r->type, j, TAG_REFERENCE, comm, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS && j != size - 1)
            rc = MPI_Reduce_local(j == 0 ? mine->data : operand.data, acc.data, count, r->type,
                                  r->op);
    }
    MPI_Request *reqs = alloc_requests(size + 1);
    MPI_Irecv(result->data, count, r->type, 0, TAG_REFERENCE, comm, &reqs[0]);
    for (int j = 0; j < size; j++)
        MPI_Isend(acc.data, count, r->type, j, TAG_REFERENCE, comm, &reqs[j + 1]);
    int wait_rc = wait_and_free(reqs, size + 1);
    free(acc.base);
    free(operand.base);
    return rc != MPI_SUCCESS ? rc : wait_rc;
}

/* MPI_Allreduce: every receive buffer gets the reduction of all operands.
 * In place, the operand is in the receive buffer. */
static void run_allreduce(const case_t *c, tally_t *t)
{
    MPI_Comm comm = c->comm->comm;
    const reduction_t *r = c->reduction;
    int rank;
    MPI_Comm_rank(comm, &rank);
    const size_t len = span_of(r->type, (size_t)c->count);
    buffers_t b = alloc_buffers(c->in_place ? 0 : len, len, r->extent, r->extent);
    b.hash_send = 0;
    MPI_Request req = MPI_REQUEST_NULL;
    verdict_t v = {1, ""};
    const int starts = form_starts(c->form);
    for (int s = 0; s < starts; s++) {
        reset_buffers(&b);
        fill_operand(c->in_place ? &b.recv : &b.send, r, c->count, start_seed(c->seed, s, starts),
                     rank);
        copy_to_refs(&b);
        /* The reference's operand: in place, what the receive buffer held. */
        guarded_t operand = guarded_copy(c->in_place ? &b.recv : &b.send);

        int rc = call_allreduce(c->form, &req, c->in_place ? MPI_IN_PLACE : b.send.data,
                                b.recv.data, c->count, r->type, r->op, comm);
        rc = form_complete(c->form, rc, &req);
        int ref_rc = reference_allreduce(&operand, &b.ref_recv, r, c->count, comm);
        free(operand.base);
        judge_start(c, t, &b, rc, ref_rc, s, &v);
    }
    finish_starts(c, t, &b, &req, &v);
}

/* ------------------------------------------------------------------ barrier */

#define BARRIER_JITTER_US 2000 /* every rank sleeps 0..2 ms before entering */
#define BARRIER_LATE_US 5000   /* and, every LATE_EVERY iterations, one rank 5 ms more */
#define BARRIER_LATE_EVERY 4

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_us(uint32_t us)
{
    struct timespec ts = {us / 1000000, (long)(us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* How long rank sleeps before entering in iteration i: the late rank takes
 * its turn, so that each rank of up to iterations / 4 is the last to enter
 * at least once, by a margin no scheduler hiccup undoes. */
static uint32_t entry_delay_us(uint32_t seed, int rank, int size, int i)
{
    uint32_t us = mix32(seed, rank, (size_t)i, 0) % (BARRIER_JITTER_US + 1);
    if (i % BARRIER_LATE_EVERY == 0 && rank == (i / BARRIER_LATE_EVERY) % size)
        us += BARRIER_LATE_US;
    return us;
}

/* The latest entry of each iteration and whose it was, on every rank: rank 0
 * of comm receives every rank's entry times and sends the maxima back. */
static int latest_entries(const int64_t *entry, int64_t *latest, int iterations, MPI_Comm comm)
{
    int rank, size, rc = MPI_SUCCESS;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    /* latest[2i]: the time, latest[2i + 1]: the rank */
    if (rank != 0) {
        rc = MPI_Send(entry, iterations, MPI_INT64_T, 0, TAG_REFERENCE, comm);
        int rc2 = MPI_Recv(latest, 2 * iterations, MPI_INT64_T, 0, TAG_REFERENCE, comm,
                           MPI_STATUS_IGNORE);
        return rc != MPI_SUCCESS ? rc : rc2;
    }
    int64_t *theirs = malloc((size_t)iterations * sizeof *theirs);
    if (!theirs) MPI_Abort(MPI_COMM_WORLD, 3);
    for (int i = 0; i < iterations; i++) {
        latest[2 * i] = entry[i];
        latest[2 * i + 1] = 0;
    }
    for (int j = 1; j < size && rc == MPI_SUCCESS; j++) {
        rc = MPI_Recv(theirs, iterations, MPI_INT64_T, j, TAG_REFERENCE, comm, MPI_STATUS_IGNORE);
        for (int i = 0; i < iterations; i++)
            if (theirs[i] > latest[2 * i]) {
                latest[2 * i] = theirs[i];
                latest[2 * i + 1] = j;
            }
    }
    for (int j = 1; j < size && rc == MPI_SUCCESS; j++)
        rc = MPI_Send(latest, 2 * iterations, MPI_INT64_T, j, TAG_REFERENCE, comm);
    free(theirs);
    return rc;
}

/* MPI_Barrier, iterations times on one communicator: this rank passes if no
 * call failed and it never left before the last rank entered. */
static void run_barrier(const case_t *c, tally_t *t, int iterations)
{
    MPI_Comm comm = c->comm->comm;
    int rank, size, rc = MPI_SUCCESS;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int64_t *times = malloc((size_t)iterations * 4 * sizeof *times);
    if (!times) MPI_Abort(MPI_COMM_WORLD, 3);
    int64_t *entry = times, *exit_ = times + iterations, *latest = times + 2 * iterations;

    /* The nonblocking and persistent forms enter at MPI_Ibarrier or
     * MPI_Start and leave when the request completes; a persistent request
     * is made at the first iteration and started at each. */
    MPI_Request req = MPI_REQUEST_NULL;
    for (int i = 0; i < iterations; i++) {
        sleep_us(entry_delay_us(c->seed, rank, size, i));
        entry[i] = now_ns();
        int call_rc = form_complete(c->form, call_barrier(c->form, &req, comm), &req);
        exit_[i] = now_ns();
        if (rc == MPI_SUCCESS) rc = call_rc;
    }
    form_release(&req);
    int ref_rc = latest_entries(entry, latest, iterations, comm);

    /* The checksum hashes the verdicts, one byte per iteration. */
    int early = 0, first = -1;
    for (int i = 0; i < iterations; i++) {
        const unsigned char in_time = exit_[i] >= latest[2 * i];
        t->hash = fnv1a(t->hash, &in_time, 1);
        if (!in_time && early++ == 0) first = i;
    }
    char why[MPI_MAX_ERROR_STRING + 160];
    int ok = judge(rc, ref_rc, NULL, 0, why, sizeof why);
    if (ok && early) {
        ok = 0;
        snprintf(why, sizeof why,
                 "left in %d of %d iterations before the last rank entered; first in iteration "
                 "%d: left %" PRId64 " ns before rank %" PRId64 " entered",
                 early, iterations, first, latest[2 * first] - exit_[first], latest[2 * first + 1]);
    }
    finish_case(c, t, ok, why);
    free(times);
}

/* --------------------------------------------------------------- options */

#define MAX_DIMS 8

typedef struct {
    common_options_t common;
    op_t op;
    int ndims;           /* 0: no Cartesian communicator */
    int dims[MAX_DIMS];
    const char *cart;    /* the --cart text, for labels and messages */
    int iterations;      /* barrier */
} options_t;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: " PROG " --op scatter|gather|allgather|allreduce|barrier\n"
            "                  [--counts N,N,...] [--quick] [--types LIST] [--comms LIST]\n"
            "                  [--in-place no|yes|both] [--cart DIMS] [--iterations N]\n"
            "                  [--form FORM]\n"
            "  --op        the collective to check\n");
    common_usage(f, "scatter, gather, allgather: " ALL_TYPES ";\n"
                    "              allreduce: " ALL_REDUCTIONS,
                 COMM_KINDS);
    fprintf(f,
            "  --in-place  also MPI_IN_PLACE cases (default both; allgather skips\n"
            "              them for type pairs whose send and receive types differ)\n"
            "  --cart      DIMS, e.g. 4x4 or 2x3x2: also a periodic Cartesian\n"
            "              communicator of those dimensions over MPI_COMM_WORLD\n"
            "              (skipped, with a message, if their product is not its size)\n"
            "  --iterations  barriers per communicator (default 64)\n"
            "  barrier ignores --counts, --types and --in-place\n");
}

/* "4x4", "2x3x2": 1 to MAX_DIMS positive dimensions. */
static int parse_dims(const char *s, options_t *o)
{
    o->ndims = 0;
    for (const char *p = s;;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 1 || v > 1 << 16 || o->ndims == MAX_DIMS) return -1;
        o->dims[o->ndims++] = (int)v;
        if (*end == '\0') break;
        if (*end != 'x') return -1;
        p = end + 1;
    }
    o->cart = s;
    return strlen(s) < 20 ? 0 : -1; /* fits a communicator label */
}

/* Returns 0 on success, 1 for --help, -1 on bad usage. */
static int parse_options(int argc, char **argv, options_t *o)
{
    *o = (options_t){COMMON_DEFAULTS, OP_COUNT, 0, {0}, NULL, 64};
    if (counts_from_environment(&o->common)) return -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return 1;
        int common = parse_common_option(argc, argv, &i, &o->common);
        if (common < 0) return -1;
        if (common) continue;
        if (!v) return -1;
        if (!strcmp(a, "--op")) {
            o->op = OP_COUNT;
            for (int k = 0; k < OP_COUNT; k++)
                if (!strcmp(v, op_names[k])) o->op = (op_t)k;
            if (o->op == OP_COUNT) return -1;
        } else if (!strcmp(a, "--cart")) {
            if (parse_dims(v, o)) return -1;
        } else if (!strcmp(a, "--iterations")) {
            char *end;
            long n = strtol(v, &end, 10);
            if (*end || n < 1 || n > 1 << 20) return -1;
            o->iterations = (int)n;
        } else {
            return -1;
        }
        i++;
    }
    if (o->op == OP_COUNT) return -1;
    const char *types = o->op == OP_ALLREDUCE ? ALL_REDUCTIONS : ALL_TYPES;
    if (o->common.types && !all_in_list(o->common.types, types)) return -1;
    return all_in_list(o->common.comms, COMM_KINDS) ? 0 : -1;
}

/* ------------------------------------------------------------------- main */

/* Adds the periodic Cartesian communicator of o's dimensions (ranks as in
 * MPI_COMM_WORLD) to c[n], if they fit the world; returns the new count. */
static int add_cart_comm(comm_entry_t *c, int n, const options_t *o)
{
    int size, rank, product = 1, periods[MAX_DIMS];
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int d = 0; d < o->ndims; d++) {
        product *= o->dims[d];
        periods[d] = 1;
    }
    if (product != size) {
        if (rank == 0) {
            printf(PROG ": skipping --cart %s: it has %d processes, MPI_COMM_WORLD %d\n", o->cart,
                   product, size);
            fflush(stdout);
        }
        return n;
    }
    c[n] = (comm_entry_t){"", MPI_COMM_NULL, 1};
    snprintf(c[n].label, sizeof c[n].label, "cart-%s", o->cart);
    MPI_Cart_create(MPI_COMM_WORLD, o->ndims, o->dims, periods, 0, &c[n].comm);
    name_comm(c[n].comm, c[n].label);
    return n + 1;
}

/* The cases of each collective but barrier, by op_t. */
static void (*const run_case[])(const case_t *, tally_t *) = {run_scatter, run_gather,
                                                              run_allgather, run_allreduce};

/* Every case of o's collective on one communicator; seed numbers the cases. */
static void run_on_comm(const options_t *o, const comm_entry_t *comm, const type_pair_t *types,
                        int ntypes, const reduction_t *reds, int nreds, uint32_t *seed, tally_t *t)
{
    const common_options_t *co = &o->common;
    int size;
    MPI_Comm_size(comm->comm, &size);
    case_t c = {o->op, comm, NULL, NULL, 0, -1, 0, 0, co->form};
    if (o->op == OP_BARRIER) {
        c.seed = (*seed)++;
        run_barrier(&c, t, o->iterations);
        return;
    }
    const int rooted = o->op == OP_SCATTER || o->op == OP_GATHER;
    const int nitems = o->op == OP_ALLREDUCE ? nreds : ntypes;
    for (int item = 0; item < nitems; item++) {
        c.types = o->op == OP_ALLREDUCE ? NULL : &types[item];
        c.reduction = o->op == OP_ALLREDUCE ? &reds[item] : NULL;
        const char *name = c.types ? c.types->name : c.reduction->name;
        if (co->types && !in_list(co->types, name)) continue;
        /* In place, allgather uses only the receive type: the case of a
         * different send type would repeat another one. */
        const int mixed = c.types && c.types->send != c.types->recv;
        for (int k = 0; k < co->ncounts; k++)
            for (int root = 0; root < (rooted ? size : 1); root++)
                for (int ip = 0; ip <= 1; ip++) {
                    if (!runs_in_place_variant(co, ip)) continue;
                    if (ip && mixed && o->op == OP_ALLGATHER) continue;
                    c.count = co->counts[k];
                    c.root = rooted ? root : -1;
                    c.in_place = ip;
                    c.seed = (*seed)++;
                    run_case[o->op](&c, t);
                }
    }
}

static void run_all(const options_t *o, tally_t *t)
{
    type_pair_t types[16];
    reduction_t reds[16];
    MPI_Op user_ops[2];
    comm_entry_t comms[MAX_COMMS];
    int ntypes = build_types(types);
    int nreds = build_reductions(reds, user_ops);
    reductions = reds;
    nreductions = nreds;
    warm_up_world(o->common.form);
    int ncomms = build_comms(comms, o->common.comms);
    if (o->ndims) ncomms = add_cart_comm(comms, ncomms, o);
    warm_up_comms(o->common.form, comms, ncomms);
    uint32_t seed = 0;

    for (int ci = 0; ci < ncomms; ci++)
        run_on_comm(o, &comms[ci], types, ntypes, reds, nreds, &seed, t);
    free_comms(comms, ncomms);
    free_reductions(reds, nreds, user_ops);
    free_types(types, ntypes);
}

int main(int argc, char **argv)
{
    checker_init(&argc, &argv);
    options_t o;
    int parsed = parse_options(argc, argv, &o);
    if (parsed != 0) return exit_with_usage(parsed, usage);

    tally_t t = TALLY_START;
    run_all(&o, &t);
    return exit_with_summary(&t);
}
