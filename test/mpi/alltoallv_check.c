/*
 * alltoallv_check: checks MPI_Alltoallv byte for byte against a
 * point-to-point reference (MPI_Isend/MPI_Irecv of the same blocks and
 * datatypes), in the manner of alltoall_check: count patterns with zeros
 * (some ranks sending nothing, everything empty), blocks placed in reverse
 * order with gaps, every datatype class, different send and receive types of
 * one signature, MPI_IN_PLACE, and several communicators.
 *
 * As in alltoall_check, nothing here relies on a collective the component
 * may replace: the reference, the summary and the checksum use point-to-point.
 *
 * Output (rank 0 of MPI_COMM_WORLD):
 *   alltoallv_check: FAIL ...                  one line per failing case and rank
 *   alltoallv_check: checksum <16 hex digits>  FNV-1a over all results
 *   alltoallv_check: N passed, M failed        over all cases and all ranks
 * Exit code: 0 if everything passed, 1 if anything failed, 2 on bad usage.
 * The checksum depends only on the communicator size and the selected cases.
 *
 * Memory: the largest pattern sends at most 500 elements per block (24-byte
 * vector elements of a 32-byte extent): under 200 KiB per buffer at p = 8.
 */
#include <mpi.h>

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "alltoallv_check"
#define SENTINEL 0xA5
#define GUARD 64
#define TAG_REFERENCE 4242
#define TAG_SUMMARY 4343

#define ALL_TYPES "int,double,vector,struct,resized,contig->vector,vector->contig"
#define ALL_PATTERNS "uniform,zeros,random,one-sender,empty,large"
#define ALL_COMMS "world,dup,parity,reversed"

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

typedef struct {
    const char *name;
    MPI_Datatype send, recv;
    int free_send, free_recv;
} type_pair_t;

static MPI_Datatype committed(MPI_Datatype t)
{
    MPI_Type_commit(&t);
    return t;
}

static MPI_Datatype resized(MPI_Datatype t, MPI_Aint extent)
{
    MPI_Datatype r;
    MPI_Type_create_resized(t, 0, extent, &r);
    MPI_Type_free(&t);
    return committed(r);
}

/* 3 blocks of 2 ints, stride 3: gaps inside every element. */
static MPI_Datatype make_vector(void)
{
    MPI_Datatype t;
    MPI_Type_vector(3, 2, 3, MPI_INT, &t);
    return committed(t);
}

/* {char, double}: padding inside every element. */
static MPI_Datatype make_struct(void)
{
    struct cd { char c; double d; };
    int lens[2] = {1, 1};
    MPI_Aint disps[2] = {offsetof(struct cd, c), offsetof(struct cd, d)};
    MPI_Datatype types[2] = {MPI_CHAR, MPI_DOUBLE}, t;
    MPI_Type_create_struct(2, lens, disps, types, &t);
    return resized(t, sizeof(struct cd));
}

/* 3 ints at byte 4 of a 20-byte extent: true_lb != lb. */
static MPI_Datatype make_resized(void)
{
    int len = 3;
    MPI_Aint disp = 4;
    MPI_Datatype in = MPI_INT, t;
    MPI_Type_create_struct(1, &len, &disp, &in, &t);
    return resized(t, 20);
}

static MPI_Datatype make_contig6(void)
{
    MPI_Datatype t;
    MPI_Type_contiguous(6, MPI_INT, &t);
    return committed(t);
}

static int build_types(type_pair_t *pairs)
{
    int n = 0;
    pairs[n++] = (type_pair_t){"int", MPI_INT, MPI_INT, 0, 0};
    pairs[n++] = (type_pair_t){"double", MPI_DOUBLE, MPI_DOUBLE, 0, 0};
    pairs[n] = (type_pair_t){"vector", make_vector(), MPI_DATATYPE_NULL, 1, 0};
    pairs[n].recv = pairs[n].send, n++;
    pairs[n] = (type_pair_t){"struct", make_struct(), MPI_DATATYPE_NULL, 1, 0};
    pairs[n].recv = pairs[n].send, n++;
    pairs[n] = (type_pair_t){"resized", make_resized(), MPI_DATATYPE_NULL, 1, 0};
    pairs[n].recv = pairs[n].send, n++;
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

/* Bytes spanned by n elements of t from offset 0 (our types have lb 0). */
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

typedef struct {
    char label[32];
    MPI_Comm comm;
    int owned;
} comm_entry_t;

static void name_comm(MPI_Comm comm, const char *label)
{
    char name[MPI_MAX_OBJECT_NAME];
    snprintf(name, sizeof name, PROG " %s", label);
    MPI_Comm_set_name(comm, name);
}

static int build_comms(comm_entry_t *c, const char *wanted)
{
    int n = 0, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (in_list(wanted, "world")) c[n++] = (comm_entry_t){"world", MPI_COMM_WORLD, 0};
    if (in_list(wanted, "dup")) {
        c[n] = (comm_entry_t){"dup", MPI_COMM_NULL, 1};
        MPI_Comm_dup(MPI_COMM_WORLD, &c[n].comm);
        name_comm(c[n].comm, c[n].label);
        n++;
    }
    if (in_list(wanted, "parity")) {
        c[n] = (comm_entry_t){"", MPI_COMM_NULL, 1};
        snprintf(c[n].label, sizeof c[n].label, "parity-%s", rank % 2 ? "odd" : "even");
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &c[n].comm);
        name_comm(c[n].comm, c[n].label);
        n++;
    }
    if (in_list(wanted, "reversed")) {
        c[n] = (comm_entry_t){"reversed", MPI_COMM_NULL, 1};
        MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &c[n].comm);
        name_comm(c[n].comm, c[n].label);
        n++;
    }
    return n;
}

static void free_comms(comm_entry_t *c, int n)
{
    for (int i = 0; i < n; i++)
        if (c[i].owned) MPI_Comm_free(&c[i].comm);
}

/* ------------------------------------------------------------------ counts */

static uint32_t mix(uint32_t seed, uint32_t a, uint32_t b)
{
    uint32_t x = seed * 0x9E3779B1u ^ (a * 0x85EBCA77u + 0x165667B1u) ^ (b * 0xC2B2AE3Du + 0x27D4EB2Fu);
    x ^= x >> 15;
    x *= 0x2C1B3C6Du;
    x ^= x >> 12;
    x *= 0x297A2D39u;
    return x ^ (x >> 15);
}

/* Elements rank i sends rank j in a pattern; every rank computes the same.
 * In place, the counts must be symmetric (i sends j what j sends i). */
static int pattern_count(const char *pattern, uint32_t seed, int i, int j, int in_place)
{
    if (in_place && i > j) {
        int t = i;
        i = j;
        j = t;
    }
    uint32_t h = mix(seed, (uint32_t)i, (uint32_t)j);
    if (!strcmp(pattern, "uniform")) return 3;
    if (!strcmp(pattern, "zeros")) return (i + 2 * j) % 3 == 0 ? 0 : 1 + (i * 7 + j * 3) % 5;
    if (!strcmp(pattern, "random")) return h % 3 == 0 ? 0 : 1 + (int)(h % 40);
    if (!strcmp(pattern, "one-sender")) return i == 0 ? 1 + j : 0;
    if (!strcmp(pattern, "large")) return 300 + (int)(h % 200);
    return 0; /* empty */
}

/* Blocks in reverse order of rank with one element of gap before each:
 * fills displs, returns the elements spanned. */
static int place_blocks(const int *counts, int *displs, int p)
{
    int at = 1;
    for (int j = p - 1; j >= 0; j--) {
        displs[j] = at;
        at += counts[j] + 1;
    }
    return at;
}

/* ------------------------------------------------------------------ buffers */

typedef struct {
    unsigned char *base, *data;
    size_t len;
} guarded_t;

static guarded_t guarded_alloc(size_t len)
{
    guarded_t g = {malloc(len + 2 * GUARD), NULL, len};
    if (!g.base) {
        fprintf(stderr, PROG ": out of memory (%zu bytes)\n", len + 2 * GUARD);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    memset(g.base, SENTINEL, len + 2 * GUARD);
    g.data = g.base + GUARD;
    return g;
}

/* First differing byte relative to data (negative: front guard), or -GUARD-1. */
static int64_t first_difference(const guarded_t *a, const guarded_t *b)
{
    for (size_t i = 0; i < a->len + 2 * GUARD; i++)
        if (a->base[i] != b->base[i]) return (int64_t)i - GUARD;
    return -GUARD - 1;
}

static void fill(unsigned char *buf, size_t len, uint32_t seed, int rank)
{
    for (size_t b = 0; b < len; b++) buf[b] = (unsigned char)(mix(seed, (uint32_t)rank, (uint32_t)b) >> 24);
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

/* ---------------------------------------------------------------- the case */

typedef struct {
    const comm_entry_t *comm;
    const type_pair_t *types;
    const char *pattern;
    int in_place;
    uint32_t seed;
} case_t;

typedef struct {
    long passed, failed;
    uint64_t hash;
} tally_t;

static int reference_alltoallv(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype stype,
                               void *rbuf, const int *rcounts, const int *rdispls, MPI_Datatype rtype,
                               MPI_Comm comm)
{
    int size;
    MPI_Comm_size(comm, &size);
    MPI_Request *reqs = malloc(2 * (size_t)size * sizeof *reqs);
    if (!reqs) MPI_Abort(MPI_COMM_WORLD, 3);
    for (int j = 0; j < size; j++)
        MPI_Irecv((char *)rbuf + (size_t)rdispls[j] * extent_of(rtype), rcounts[j], rtype, j, TAG_REFERENCE, comm,
                  &reqs[j]);
    for (int j = 0; j < size; j++)
        MPI_Isend((const char *)sbuf + (size_t)sdispls[j] * extent_of(stype), scounts[j], stype, j, TAG_REFERENCE,
                  comm, &reqs[size + j]);
    int rc = MPI_Waitall(2 * size, reqs, MPI_STATUSES_IGNORE);
    free(reqs);
    return rc;
}

static void report_failure(const case_t *c, const char *what, int64_t off)
{
    int rank, wrank;
    MPI_Comm_rank(c->comm->comm, &rank);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    char where[64] = "";
    if (off >= -GUARD) snprintf(where, sizeof where, " at byte %" PRId64, off);
    printf(PROG ": FAIL comm=%s type=%s counts=%s inplace=%s rank=%d world_rank=%d: %s%s\n", c->comm->label,
           c->types->name, c->pattern, c->in_place ? "yes" : "no", rank, wrank, what, where);
    fflush(stdout);
}

static void run_case(const case_t *c, tally_t *t)
{
    MPI_Comm comm = c->comm->comm;
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    MPI_Datatype stype = c->in_place ? c->types->recv : c->types->send, rtype = c->types->recv;
    int *scounts = malloc(4 * (size_t)p * sizeof(int));
    if (!scounts) MPI_Abort(MPI_COMM_WORLD, 3);
    int *sdispls = scounts + p, *rcounts = sdispls + p, *rdispls = rcounts + p;
    for (int j = 0; j < p; j++) {
        scounts[j] = pattern_count(c->pattern, c->seed, rank, j, c->in_place);
        rcounts[j] = pattern_count(c->pattern, c->seed, j, rank, c->in_place);
    }
    const size_t selems = (size_t)place_blocks(scounts, sdispls, p);
    const size_t relems = (size_t)place_blocks(rcounts, rdispls, p);

    guarded_t send = guarded_alloc(span_of(stype, selems)), ref_send = guarded_alloc(send.len);
    guarded_t recv = guarded_alloc(span_of(rtype, relems)), ref_recv = guarded_alloc(recv.len);
    int rc;
    if (c->in_place) {
        fill(recv.data, recv.len, c->seed, rank);
        memcpy(ref_recv.data, recv.data, recv.len);
        memcpy(ref_send.data, recv.data, recv.len);
        /* The send arguments are ignored in place: pass wrong ones. */
        rc = MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, recv.data, rcounts, rdispls, rtype, comm);
    } else {
        fill(send.data, send.len, c->seed, rank);
        memcpy(ref_send.data, send.data, send.len);
        rc = MPI_Alltoallv(send.data, scounts, sdispls, stype, recv.data, rcounts, rdispls, rtype, comm);
    }
    /* In place, the reference sends the original receive buffer's blocks. */
    int ref_rc = reference_alltoallv(ref_send.data, c->in_place ? rcounts : scounts, c->in_place ? rdispls : sdispls,
                                     stype, ref_recv.data, rcounts, rdispls, rtype, comm);
    t->hash = fnv1a(t->hash, recv.data, recv.len);

    int64_t off;
    int ok = 0;
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, msg, &len);
        report_failure(c, msg, -GUARD - 1);
    } else if (ref_rc != MPI_SUCCESS) {
        report_failure(c, "the point-to-point reference failed", -GUARD - 1);
    } else if ((off = first_difference(&recv, &ref_recv)) >= -GUARD) {
        report_failure(c, "receive buffer differs from reference", off);
    } else if (!c->in_place && (off = first_difference(&send, &ref_send)) >= -GUARD) {
        report_failure(c, "send buffer was modified", off);
    } else {
        ok = 1;
    }
    if (ok) t->passed++; else t->failed++;
    free(send.base);
    free(ref_send.base);
    free(recv.base);
    free(ref_recv.base);
    free(scounts);
}

/* --------------------------------------------------------------- options */

typedef struct {
    const char *types, *patterns, *comms;
    int in_place; /* 0 no, 1 yes, 2 both */
} options_t;

static void usage(FILE *f)
{
    fprintf(f, "usage: " PROG " [--types LIST] [--counts LIST] [--comms LIST] [--in-place no|yes|both]\n"
               "  --types     any of " ALL_TYPES " (default: all)\n"
               "  --counts    count patterns, any of " ALL_PATTERNS " (default: all)\n"
               "  --comms     any of " ALL_COMMS " (default: all)\n"
               "  --in-place  also MPI_IN_PLACE cases (default both; skipped for type\n"
               "              pairs whose send and receive types differ)\n");
}

static int parse_options(int argc, char **argv, options_t *o)
{
    *o = (options_t){ALL_TYPES, ALL_PATTERNS, ALL_COMMS, 2};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return 1;
        if (!v) return -1;
        if (!strcmp(a, "--types") && all_in_list(v, ALL_TYPES)) o->types = v;
        else if (!strcmp(a, "--counts") && all_in_list(v, ALL_PATTERNS)) o->patterns = v;
        else if (!strcmp(a, "--comms") && all_in_list(v, ALL_COMMS)) o->comms = v;
        else if (!strcmp(a, "--in-place") && !strcmp(v, "no")) o->in_place = 0;
        else if (!strcmp(a, "--in-place") && !strcmp(v, "yes")) o->in_place = 1;
        else if (!strcmp(a, "--in-place") && !strcmp(v, "both")) o->in_place = 2;
        else return -1;
        i++;
    }
    return 0;
}

/* Tallies to world rank 0 point-to-point; rank 0 prints checksum and totals. */
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
        if (r > 0) MPI_Recv(msg, 3, MPI_UINT64_T, r, TAG_SUMMARY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        passed += msg[0];
        failed += msg[1];
        checksum = fnv1a(checksum, (const unsigned char *)&msg[2], sizeof msg[2]);
    }
    printf(PROG ": checksum %016" PRIx64 "\n", checksum);
    printf(PROG ": %" PRIu64 " passed, %" PRIu64 " failed\n", passed, failed);
    fflush(stdout);
    return (long)failed;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    options_t o;
    int prc = parse_options(argc, argv, &o);
    if (prc != 0) {
        if (rank == 0) usage(prc > 0 ? stdout : stderr);
        MPI_Finalize();
        return prc > 0 ? 0 : 2;
    }

    type_pair_t types[8];
    comm_entry_t comms[4];
    const int ntypes = build_types(types), ncomms = build_comms(comms, o.comms);
    const char *patterns[] = {"uniform", "zeros", "random", "one-sender", "empty", "large"};
    tally_t t = {0, 0, FNV_OFFSET};
    uint32_t seed = 0;
    for (int ci = 0; ci < ncomms; ci++)
        for (int ti = 0; ti < ntypes; ti++) {
            if (!in_list(o.types, types[ti].name)) continue;
            for (size_t k = 0; k < sizeof patterns / sizeof *patterns; k++) {
                if (!in_list(o.patterns, patterns[k])) continue;
                for (int ip = 0; ip <= 1; ip++) {
                    if ((ip && o.in_place == 0) || (!ip && o.in_place == 1)) continue;
                    if (ip && types[ti].send != types[ti].recv) continue;
                    case_t c = {&comms[ci], &types[ti], patterns[k], ip, seed++};
                    run_case(&c, &t);
                }
            }
        }
    free_comms(comms, ncomms);
    free_types(types, ntypes);
    long failed = summarize(&t);
    MPI_Finalize();
    return failed ? 1 : 0;
}
