/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/*
 * check_common.h: what the MPI checkers (alltoall_check.c, alltoallv_check.c,
 * coll_check.c, nbc_check.c)
 * share: list options, the datatype pairs and communicators every case runs
 * on, byte patterns, guarded buffers and their comparison, FNV-1a, the
 * point-to-point summary that rank 0 prints, and the forms a collective runs
 * in (blocking, nonblocking, persistent) with their completion.
 *
 * Each checker is one translation unit that defines PROG (its name, the
 * prefix of every line it prints) and then includes this header; everything
 * here is static.
 *
 * Nothing here relies on a collective: a checker must not rely on any
 * collective that the component under test may replace (see the checkers'
 * comments); the one called here, warm_up_comms's barrier, is not checked.
 */
#ifndef CHECK_COMMON_H
#define CHECK_COMMON_H

#ifndef PROG
#error "define PROG, the checker's name, before including check_common.h"
#endif

#include <mpi.h>
/* MPI-4's persistent collectives: Open MPI 5.0 has them, yet says MPI 3.1. */
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
#define HAVE_MPI4_PERSISTENT 1
#elif defined(OPEN_MPI)
#include <mpi-ext.h> /* Open MPI 4.1: the pcollreq extension's MPIX_<Op>_init */
#endif

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes a receive buffer is filled with before a non-in-place call, so that
 * gaps in the datatype must come out untouched, identically to the reference. */
#define SENTINEL 0xA5
/* Extra bytes before and after every compared buffer: catches writes outside
 * the datatype's span (a wrong true_lb or a block past the end). */
#define GUARD 64
#define TAG_REFERENCE 4242
#define TAG_SUMMARY 4343
#define MAX_COUNTS 128

/* ------------------------------------------------------------------ lists */

/* Is name an item of the comma-separated list? */
static int in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && !strncmp(p, name, n)) return 1;
        p = end ? end + 1 : NULL;
    }
    return 0;
}

/* Is every item of list one of the allowed (comma-separated) names? */
static int all_in_list(const char *list, const char *allowed)
{
    char item[64];
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == 0 || len >= sizeof item) return 0;
        memcpy(item, p, len);
        item[len] = '\0';
        if (!in_list(allowed, item)) return 0;
        if (!end) break;
        p = end + 1;
    }
    return 1;
}

/* ---------------------------------------------------------------- datatypes */

#define ALL_TYPES "int,byte,double,vector,struct,resized,contig->vector,vector->contig"

/* A pair of send and receive datatypes with the same type signature. */
typedef struct {
    const char *name;
    MPI_Datatype send;
    MPI_Datatype recv;
    int free_send, free_recv; /* derived types we created and must free */
} type_pair_t;

/* Resizes a type to [0, extent), then commits it. */
static MPI_Datatype resized(MPI_Datatype t, MPI_Aint extent)
{
    MPI_Datatype r;
    MPI_Type_create_resized(t, 0, extent, &r);
    MPI_Type_free(&t);
    MPI_Type_commit(&r);
    return r;
}

/* 3 blocks of 2 ints with a stride of 3: one-int gaps between blocks. */
#define VECTOR_BLOCKS 3
#define VECTOR_BLOCKLEN 2
#define VECTOR_STRIDE 3
static MPI_Datatype make_vector(void)
{
    MPI_Datatype t;
    MPI_Type_vector(VECTOR_BLOCKS, VECTOR_BLOCKLEN, VECTOR_STRIDE, MPI_INT, &t);
    MPI_Type_commit(&t);
    return t;
}

/* {char, double}: 7 bytes of padding inside every element. */
struct char_double { char c; double d; };
static MPI_Datatype make_struct(void)
{
    int lens[2] = {1, 1};
    MPI_Aint disps[2] = {offsetof(struct char_double, c), offsetof(struct char_double, d)};
    MPI_Datatype types[2] = {MPI_CHAR, MPI_DOUBLE};
    MPI_Datatype t;
    MPI_Type_create_struct(2, lens, disps, types, &t);
    return resized(t, sizeof(struct char_double));
}

/* 3 ints at byte offset 4 of a 20-byte extent: gaps before and after the
 * data, and true_lb != lb, which a temporary buffer must account for. */
#define RESIZED_OFFSET 4
#define RESIZED_INTS 3
#define RESIZED_EXTENT 20
static MPI_Datatype make_resized(void)
{
    int len = RESIZED_INTS;
    MPI_Aint disp = RESIZED_OFFSET;
    MPI_Datatype in = MPI_INT, t;
    MPI_Type_create_struct(1, &len, &disp, &in, &t);
    return resized(t, RESIZED_EXTENT);
}

/* 6 contiguous ints: same signature as make_vector(). */
static MPI_Datatype make_contig6(void)
{
    MPI_Datatype t;
    MPI_Type_contiguous(6, MPI_INT, &t);
    MPI_Type_commit(&t);
    return t;
}

/* The pairs named in ALL_TYPES, in that order; returns how many. */
static int build_types(type_pair_t *pairs)
{
    int n = 0;
    pairs[n++] = (type_pair_t){"int", MPI_INT, MPI_INT, 0, 0};
    pairs[n++] = (type_pair_t){"byte", MPI_BYTE, MPI_BYTE, 0, 0};
    pairs[n++] = (type_pair_t){"double", MPI_DOUBLE, MPI_DOUBLE, 0, 0};
    pairs[n++] = (type_pair_t){"vector", make_vector(), MPI_DATATYPE_NULL, 1, 0};
    pairs[n - 1].recv = pairs[n - 1].send;
    pairs[n++] = (type_pair_t){"struct", make_struct(), MPI_DATATYPE_NULL, 1, 0};
    pairs[n - 1].recv = pairs[n - 1].send;
    pairs[n++] = (type_pair_t){"resized", make_resized(), MPI_DATATYPE_NULL, 1, 0};
    pairs[n - 1].recv = pairs[n - 1].send;
    /* Different send and receive types with one signature, both ways. */
    pairs[n++] = (type_pair_t){"contig->vector", make_contig6(), make_vector(), 1, 1};
    pairs[n++] = (type_pair_t){"vector->contig", make_vector(), make_contig6(), 1, 1};
    return n;
}

static void free_types(type_pair_t *pairs, int n)
{
    for (int i = 0; i < n; i++) {
        if (pairs[i].free_send) MPI_Type_free(&pairs[i].send);
        if (pairs[i].free_recv) MPI_Type_free(&pairs[i].recv);
    }
}

/* Bytes spanned by n consecutive elements of t, starting at offset 0.
 * All our types have lb = 0 and true_lb >= 0, so the span starts at 0. */
static size_t span_of(MPI_Datatype t, size_t n)
{
    MPI_Aint lb, extent, true_lb, true_extent;
    if (n == 0) return 0;
    MPI_Type_get_extent(t, &lb, &extent);
    MPI_Type_get_true_extent(t, &true_lb, &true_extent);
    return (n - 1) * (size_t)extent + (size_t)(true_lb + true_extent);
}

static size_t extent_of(MPI_Datatype t)
{
    MPI_Aint lb, extent;
    MPI_Type_get_extent(t, &lb, &extent);
    return (size_t)extent;
}

/* ---------------------------------------------------------- communicators */

#define ALL_COMMS "world,dup,parity,reversed"
/* The kinds --comms accepts: ALL_COMMS (the default) and "churn", twenty
 * communicators over MPI_COMM_WORLD's processes (ten dups, ten splits in
 * rotated orders), as a library that makes communicators while it sets up. */
#define COMM_KINDS ALL_COMMS ",churn"
#define CHURN_COMMS 20
#define MAX_COMMS (4 + CHURN_COMMS)

typedef struct {
    char label[32];
    MPI_Comm comm;
    int owned; /* to be freed */
} comm_entry_t;

static void name_comm(MPI_Comm comm, const char *label)
{
    /* Names make hier's verbose lines ("alltoall on <name>") readable. */
    char name[MPI_MAX_OBJECT_NAME];
    snprintf(name, sizeof name, PROG " %s", label);
    MPI_Comm_set_name(comm, name);
}

/* The communicators of ALL_COMMS that wanted names. Every rank gets the same
 * list in the same order (the parity entry is a different communicator on
 * even and odd ranks, but at the same position), so all members of a
 * communicator enumerate the same cases. */
static int build_comms(comm_entry_t *c, const char *wanted)
{
    int n = 0, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (in_list(wanted, "world")) {
        c[n++] = (comm_entry_t){"world", MPI_COMM_WORLD, 0};
    }
    if (in_list(wanted, "dup")) {
        c[n] = (comm_entry_t){"dup", MPI_COMM_NULL, 1};
        MPI_Comm_dup(MPI_COMM_WORLD, &c[n].comm);
        name_comm(c[n].comm, c[n].label);
        n++;
    }
    if (in_list(wanted, "parity")) {
        /* Two sub-communicators, of uneven size when p is odd. */
        c[n] = (comm_entry_t){"", MPI_COMM_NULL, 1};
        snprintf(c[n].label, sizeof c[n].label, "parity-%s", rank % 2 ? "odd" : "even");
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &c[n].comm);
        name_comm(c[n].comm, c[n].label);
        n++;
    }
    if (in_list(wanted, "reversed")) {
        /* One communicator, ranks in reverse order of MPI_COMM_WORLD. */
        c[n] = (comm_entry_t){"reversed", MPI_COMM_NULL, 1};
        MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &c[n].comm);
        name_comm(c[n].comm, c[n].label);
        n++;
    }
    if (in_list(wanted, "churn")) {
        for (int i = 0; i < CHURN_COMMS; i++, n++) {
            c[n] = (comm_entry_t){"", MPI_COMM_NULL, 1};
            snprintf(c[n].label, sizeof c[n].label, "churn-%d", i);
            if (i % 2 == 0) MPI_Comm_dup(MPI_COMM_WORLD, &c[n].comm);
            else MPI_Comm_split(MPI_COMM_WORLD, 0, (rank + i) % size, &c[n].comm);
            name_comm(c[n].comm, c[n].label);
        }
    }
    return n;
}

static void free_comms(comm_entry_t *c, int n)
{
    for (int i = 0; i < n; i++)
        if (c[i].owned) MPI_Comm_free(&c[i].comm);
}

/* ------------------------------------------------------------ data helpers */

/* A well-mixed 32-bit word for (seed, rank, a, b): a checker's data are
 * functions of the case (seed), the rank that owns them and their position,
 * so a misplaced block or a stale block from another case is caught. */
static uint32_t mix32(uint32_t seed, int rank, size_t a, size_t b)
{
    uint32_t x = seed * 0x9E3779B1u;
    x ^= (uint32_t)rank * 0x85EBCA77u + 0x165667B1u;
    x ^= (uint32_t)a * 0xC2B2AE3Du + 0x27D4EB2Fu;
    x ^= (uint32_t)b * 0x2545F491u;
    x ^= (uint32_t)((uint64_t)b >> 32);
    x ^= x >> 15;
    x *= 0x2C1B3C6Du;
    x ^= x >> 12;
    x *= 0x297A2D39u;
    x ^= x >> 15;
    return x;
}

/* The byte at offset idx of block `block` on rank rank, in case seed. */
static unsigned char pattern_byte(uint32_t seed, int rank, size_t block, size_t idx)
{
    return (unsigned char)(mix32(seed, rank, block, idx) >> 24);
}

/* Fills len bytes laid out as blocks of block_bytes each (the last block may
 * run on past p * block_bytes when the type's true extent exceeds its
 * extent; those bytes get a block index of p, which is still deterministic). */
static void fill_pattern(unsigned char *buf, size_t len, size_t block_bytes,
                         uint32_t seed, int rank)
{
    for (size_t b = 0; b < len; b++)
        buf[b] = pattern_byte(seed, rank, b / block_bytes, b % block_bytes);
}

/* A buffer of len bytes with GUARD bytes on both sides; all bytes set. */
typedef struct {
    unsigned char *base; /* start of the allocation */
    unsigned char *data; /* base + GUARD */
    size_t len;          /* bytes of data, without the guards */
} guarded_t;

/* Every byte of g, guards included, back to the sentinel. */
static void guarded_reset(const guarded_t *g)
{
    memset(g->base, SENTINEL, g->len + 2 * GUARD);
}

static guarded_t guarded_alloc(size_t len)
{
    guarded_t g = {NULL, NULL, len};
    g.base = malloc(len + 2 * GUARD);
    if (!g.base) {
        fprintf(stderr, PROG ": out of memory (%zu bytes)\n", len + 2 * GUARD);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    g.data = g.base + GUARD;
    guarded_reset(&g);
    return g;
}

/* A guarded copy of g, guards included. */
static guarded_t guarded_copy(const guarded_t *g)
{
    guarded_t c = guarded_alloc(g->len);
    memcpy(c.base, g->base, g->len + 2 * GUARD);
    return c;
}

/* Byte offset (relative to data, may be negative: in the front guard) of the
 * first difference between a and b including guards, or INT64_MAX if equal. */
static int64_t first_difference(const guarded_t *a, const guarded_t *b)
{
    size_t total = a->len + 2 * GUARD;
    if (memcmp(a->base, b->base, total) == 0) return INT64_MAX;
    for (size_t i = 0; i < total; i++)
        if (a->base[i] != b->base[i]) return (int64_t)i - GUARD;
    return INT64_MAX;
}

static uint64_t fnv1a(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001B3ull;
    }
    return h;
}
#define FNV_OFFSET 0xCBF29CE484222325ull

/* ----------------------------------------------------------------- verdicts */

/* One comparison of a case: the buffer the call left against what it must
 * hold; block is the bytes per block, to say where a difference lies (0:
 * blocks of varying sizes). */
typedef struct {
    const char *what; /* e.g. "receive buffer differs from reference" */
    const guarded_t *got, *want;
    size_t block;
} comparison_t;

/* Where offset off of a buffer of len bytes in blocks of block bytes lies. */
static void describe_offset(char *out, size_t n, int64_t off, size_t len, size_t block)
{
    if (off < 0) snprintf(out, n, "before the buffer");
    else if ((uint64_t)off >= len) snprintf(out, n, "past the end of the buffer");
    else if (!block) snprintf(out, n, "in the buffer");
    else snprintf(out, n, "block %" PRId64, off / (int64_t)block);
}

/* The verdict on one case on this rank: returns 1 if the call and its
 * reference succeeded and every comparison holds; else 0, with the first
 * thing that went wrong written to why (one phrase, no newline). */
static int judge(int rc, int ref_rc, const comparison_t *cmp, int ncmp, char *why, size_t n)
{
    if (rc != MPI_SUCCESS) {
        int len;
        char msg[MPI_MAX_ERROR_STRING];
        MPI_Error_string(rc, msg, &len);
        snprintf(why, n, "%s", msg);
        return 0;
    }
    if (ref_rc != MPI_SUCCESS) {
        snprintf(why, n, "the point-to-point reference failed");
        return 0;
    }
    for (int i = 0; i < ncmp; i++) {
        const comparison_t *c = &cmp[i];
        int64_t off = first_difference(c->got, c->want);
        if (off == INT64_MAX) continue;
        char where[48];
        describe_offset(where, sizeof where, off, c->got->len, c->block);
        snprintf(why, n,
                 "%s: first difference at byte %" PRId64 " (%s, got 0x%02x, expected 0x%02x)",
                 c->what, off, where, c->got->data[off], c->want->data[off]);
        return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------ forms */

/* How the collective under test runs: its blocking call; MPI_I<op> and then
 * completion; or MPI_<Op>_init once, then MPI_Start and completion for every
 * start (PERSISTENT_STARTS of them, the buffers refilled with other data
 * before each), then MPI_Request_free. */
typedef enum { FORM_BLOCKING, FORM_NONBLOCKING, FORM_PERSISTENT } form_t;
static const char *const form_names[] = {"blocking", "nonblocking", "persistent"};
#define PERSISTENT_STARTS 3

/* PERSISTENT_INIT(Alltoall): MPI-4's MPI_Alltoall_init (Open MPI 5.0), or
 * the pcollreq extension's MPIX_Alltoall_init (Open MPI 4.1); left undefined where
 * neither exists, and --form persistent is then refused.
 * PERSISTENT_START(Alltoall, req, ARGS...), the persistent form's case of a
 * checker's call_<op>: returns MPI_Start(req), after creating *req with
 * PERSISTENT_INIT(Alltoall)(ARGS..., MPI_INFO_NULL, req) at the first start
 * (*req still MPI_REQUEST_NULL). */
#ifdef HAVE_MPI4_PERSISTENT
#define PERSISTENT_INIT(Op) MPI_##Op##_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define PERSISTENT_INIT(Op) MPIX_##Op##_init
#endif
#ifdef PERSISTENT_INIT
#define PERSISTENT_START(Op, req, ...)                                             \
    do {                                                                           \
        if (*(req) == MPI_REQUEST_NULL) {                                          \
            int init_rc_ = PERSISTENT_INIT(Op)(__VA_ARGS__, MPI_INFO_NULL, (req)); \
            if (init_rc_ != MPI_SUCCESS) return init_rc_;                          \
        }                                                                          \
        return MPI_Start(req);                                                     \
    } while (0)
#else
#define PERSISTENT_START(Op, req, ...) return MPI_ERR_INTERN /* refused by parse_form */
#endif

/* "--form NAME" into *f: 0, or -1 for a name that is not a form. */
static int parse_form(const char *v, form_t *f)
{
    for (int k = 0; k < 3; k++)
        if (!strcmp(v, form_names[k])) {
            *f = (form_t)k;
#ifndef PERSISTENT_INIT
            if (*f == FORM_PERSISTENT) {
                fprintf(stderr, PROG ": --form persistent: this MPI has no persistent collectives "
                                "(MPI-4, or Open MPI's pcollreq extension)\n");
                return -1;
            }
#endif
            return 0;
        }
    return -1;
}

#define FORM_USAGE                                                                         \
    "  --form      blocking (default), nonblocking (MPI_I<op>, then MPI_Wait or an\n"    \
    "              MPI_Test loop, in turn) or persistent (MPI_<Op>_init, then\n"         \
    "              MPI_Start and completion for each of 3 starts, each with other\n"     \
    "              data and checked, then MPI_Request_free)\n"

/* How many times a case's call starts in form f. */
static int form_starts(form_t f)
{
    return f == FORM_PERSISTENT ? PERSISTENT_STARTS : 1;
}

/* The data seed of start s of a case whose seed is seed: the last start
 * uses the case's own, so that the results hashed (the last start's) are
 * the blocking form's and the checksums agree; the earlier ones use seeds
 * no case has, so that a persistent request that kept the data of an
 * earlier start (rather than reading its buffers at MPI_Start) is caught. */
static uint32_t start_seed(uint32_t seed, int s, int starts)
{
    return s == starts - 1 ? seed : seed ^ (0x80000000u >> s);
}

/* Completes the request of a started call: MPI_Wait and a loop of MPI_Test,
 * in turn, so that both paths of completion (the one that blocks in the
 * progress engine and the one that polls it) run. */
static int complete_request(MPI_Request *req)
{
    static unsigned calls;
    if (calls++ % 2 == 0) return MPI_Wait(req, MPI_STATUS_IGNORE);
    int done = 0, rc = MPI_SUCCESS;
    while (!done && rc == MPI_SUCCESS) rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
    return rc;
}

/* After a call in form f returned rc (for the nonblocking and persistent
 * forms: its start, with *req): the result of the whole operation. */
static int form_complete(form_t f, int rc, MPI_Request *req)
{
    if (f == FORM_BLOCKING || rc != MPI_SUCCESS) return rc;
    return complete_request(req);
}

/* After the last start of a persistent request: frees it (the other forms
 * leave nothing behind; a failed init leaves MPI_REQUEST_NULL). */
static void form_release(MPI_Request *req)
{
    if (*req != MPI_REQUEST_NULL) MPI_Request_free(req);
}

/* The first failure of a case's starts, for its one report line. */
typedef struct {
    int ok;
    char why[MPI_MAX_ERROR_STRING + 200];
} verdict_t;

/* Records the verdict of start s (of starts): the case passes if all do,
 * and reports the first failing start, naming it when there are several. */
static void verdict_add(verdict_t *v, int ok, const char *why, int s, int starts)
{
    if (ok || !v->ok) return;
    v->ok = 0;
    if (starts > 1) snprintf(v->why, sizeof v->why, "start %d of %d: %s", s + 1, starts, why);
    else snprintf(v->why, sizeof v->why, "%s", why);
}

/* A warm-up blocking collective on each communicator, for the nonblocking
 * and persistent forms: a component that gathers what it knows of a
 * communicator at its first blocking collective (coll/hier does) has its
 * own schedules for the forms under test then. Its result is not relied on. */
static void warm_up_comms(form_t f, const comm_entry_t *c, int n)
{
    if (f == FORM_BLOCKING) return;
    for (int i = 0; i < n; i++) MPI_Barrier(c[i].comm);
}

/* The same on MPI_COMM_WORLD before the other communicators are made:
 * making them runs collectives on it (Open MPI's MPI_Comm_dup an
 * MPI_Iallreduce), which would otherwise come before its first blocking one. */
static void warm_up_world(form_t f)
{
    if (f != FORM_BLOCKING) MPI_Barrier(MPI_COMM_WORLD);
}

/* ------------------------------------------------------------------ options */

/* The options both checkers take. */
typedef struct {
    int counts[MAX_COUNTS];
    int ncounts;
    const char *types;  /* comma list of type names, or NULL for all */
    const char *comms;  /* comma list of communicator kinds */
    int in_place;       /* 0: no, 1: yes, 2: both */
    form_t form;
} common_options_t;

#define COMMON_DEFAULTS {{0, 1, 7, 4096}, 4, NULL, ALL_COMMS, 2, FORM_BLOCKING}

static void common_usage(FILE *f, const char *types, const char *comms)
{
    fprintf(f,
            "  --counts    elements of the datatype per block (default 0,1,7,4096,\n"
            "              or HIER_CHECK_COUNTS where set)\n"
            "  --quick     same as --counts 0,1,7,100\n"
            "  --types     any of %s\n"
            "              (default: all)\n"
            "  --comms     any of %s (default: " ALL_COMMS ")\n"
            FORM_USAGE,
            types, comms);
}

static int parse_counts(const char *s, common_options_t *o)
{
    o->ncounts = 0;
    while (*s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 0 || v > 1 << 20 || o->ncounts == MAX_COUNTS) return -1;
        o->counts[o->ncounts++] = (int)v;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') return -1;
    }
    return o->ncounts ? 0 : -1;
}

/* HIER_CHECK_COUNTS, where set, replaces the default counts (not those of
 * --counts or --quick): run_mpi_tests.sh's quick mode runs every checker at
 * the quick counts without editing each command line, so that its runs and
 * the fallback runs they are compared with keep one case list. */
static int counts_from_environment(common_options_t *o)
{
    const char *v = getenv("HIER_CHECK_COUNTS");
    return v && *v ? parse_counts(v, o) : 0;
}

/* Parses the common option at argv[*i] (advancing *i past its value).
 * Returns 1 if it was one, 0 if it is not a common option, -1 on a bad
 * value. --types and --comms are checked against allowed by the caller. */
static int parse_common_option(int argc, char **argv, int *i, common_options_t *o)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (!strcmp(a, "--quick")) {
        parse_counts("0,1,7,100", o);
        return 1;
    }
    if (!v) return 0;
    if (!strcmp(a, "--counts")) {
        if (parse_counts(v, o)) return -1;
    } else if (!strcmp(a, "--types")) {
        o->types = v;
    } else if (!strcmp(a, "--comms")) {
        o->comms = v;
    } else if (!strcmp(a, "--form")) {
        if (parse_form(v, &o->form)) return -1;
    } else if (!strcmp(a, "--in-place")) {
        if (!strcmp(v, "no")) o->in_place = 0;
        else if (!strcmp(v, "yes")) o->in_place = 1;
        else if (!strcmp(v, "both")) o->in_place = 2;
        else return -1;
    } else {
        return 0;
    }
    ++*i;
    return 1;
}

/* Does the in-place setting o->in_place run the variant ip (0 or 1)? */
static int runs_in_place_variant(const common_options_t *o, int ip)
{
    return o->in_place == 2 || o->in_place == ip;
}

/* ---------------------------------------------------------------- summary */

typedef struct {
    long passed, failed;
    uint64_t hash; /* FNV-1a over this rank's results of all cases */
} tally_t;

#define TALLY_START {0, 0, FNV_OFFSET}

/* Every rank sends its tally to rank 0 of MPI_COMM_WORLD, point-to-point
 * (never a collective: see the top of this file); rank 0 prints the checksum
 * and the totals. Returns the total number of failures on rank 0, the local number
 * elsewhere. */
static long summarize(const tally_t *mine)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    uint64_t msg[3] = {(uint64_t)mine->passed, (uint64_t)mine->failed, mine->hash};
    if (rank != 0) {
        MPI_Send(msg, 3, MPI_UINT64_T, 0, TAG_SUMMARY, MPI_COMM_WORLD);
        return mine->failed;
    }
    uint64_t passed = 0, failed = 0, checksum = FNV_OFFSET;
    for (int r = 0; r < size; r++) {
        if (r > 0)
            MPI_Recv(msg, 3, MPI_UINT64_T, r, TAG_SUMMARY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        passed += msg[0];
        failed += msg[1];
        /* Folded in rank order, so the checksum is independent of timing. */
        checksum = fnv1a(checksum, (const unsigned char *)&msg[2], sizeof msg[2]);
    }
    printf(PROG ": checksum %016" PRIx64 "\n", checksum);
    printf(PROG ": %" PRIu64 " passed, %" PRIu64 " failed\n", passed, failed);
    fflush(stdout);
    return (long)failed;
}

/* ------------------------------------------------------ start and exit codes */

/* MPI_Init with errors returned as codes, so that a failing call is reported
 * as a failed case instead of aborting the job (derived communicators
 * inherit the handler). */
static void checker_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

/* After options that did not parse (parsed = -1) or asked for help (1):
 * rank 0 prints the usage, and the exit code is 2, or 0 for --help. */
static int exit_with_usage(int parsed, void (*usage)(FILE *))
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) usage(parsed > 0 ? stdout : stderr);
    MPI_Finalize();
    return parsed > 0 ? 0 : 2;
}

/* After the cases: the summary, and the exit code, 0 if everything passed
 * and 1 if anything failed. */
static int exit_with_summary(const tally_t *t)
{
    long failed = summarize(t);
    MPI_Finalize();
    return failed ? 1 : 0;
}

#endif /* CHECK_COMMON_H */
