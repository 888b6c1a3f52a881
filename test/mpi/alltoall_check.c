/*
 * alltoall_check: checks MPI_Alltoall byte for byte against a point-to-point
 * reference (MPI_Isend/MPI_Irecv of the same datatypes, i.e. Open MPI's own
 * PML result), for every datatype class, several counts, MPI_IN_PLACE and
 * several communicators.
 *
 * Why point-to-point: the checker must not rely on any collective that the
 * component under test may replace, so the reference, the pass/fail summary
 * and the checksum are all built from MPI_Isend/MPI_Irecv/MPI_Send/MPI_Recv.
 * (MPI_Comm_dup and MPI_Comm_split still run Open MPI's internal allreduce;
 * that cannot be avoided and is exercised by every MPI program anyway.)
 *
 * Output (rank 0 of MPI_COMM_WORLD):
 *   alltoall_check: FAIL ...                 one line per failing case and rank
 *   alltoall_check: checksum <16 hex digits>  FNV-1a over all results
 *   alltoall_check: N passed, M failed        over all cases and all ranks
 * Exit code: 0 if everything passed, 1 if anything failed, 2 on bad usage.
 *
 * The checksum depends only on the communicator size and the selected cases,
 * so a driver can compare runs of different algorithms with each other.
 *
 * Memory: each case allocates four buffers of p * count elements; the widest
 * type (vector, 32-byte extent) at p = 16 and count 4096 takes 2 MiB each,
 * so 8 MiB per rank at most.
 */
#include <mpi.h>

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "alltoall_check"

/* Bytes a receive buffer is filled with before a non-in-place call, so that
 * gaps in the datatype must come out untouched, identically to the reference. */
#define SENTINEL 0xA5
/* Extra bytes before and after every compared buffer: catches writes outside
 * the datatype's span (a wrong true_lb or a block past the end). */
#define GUARD 64
#define TAG_REFERENCE 4242
#define TAG_SUMMARY 4343
#define MAX_COUNTS 16

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

#define ALL_TYPES "int,byte,double,vector,struct,resized,contig->vector,vector->contig"
#define ALL_COMMS "world,dup,parity,reversed"

/* ---------------------------------------------------------------- datatypes */

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
static MPI_Datatype make_vector(void)
{
    MPI_Datatype t;
    MPI_Type_vector(3, 2, 3, MPI_INT, &t);
    MPI_Type_commit(&t);
    return t;
}

/* {char, double}: 7 bytes of padding inside every element. */
static MPI_Datatype make_struct(void)
{
    struct cd { char c; double d; };
    int lens[2] = {1, 1};
    MPI_Aint disps[2] = {offsetof(struct cd, c), offsetof(struct cd, d)};
    MPI_Datatype types[2] = {MPI_CHAR, MPI_DOUBLE};
    MPI_Datatype t;
    MPI_Type_create_struct(2, lens, disps, types, &t);
    return resized(t, sizeof(struct cd));
}

/* 3 ints at byte offset 4 of a 20-byte extent: gaps before and after the
 * data, and true_lb != lb, which a temporary buffer must account for. */
static MPI_Datatype make_resized(void)
{
    int len = 3;
    MPI_Aint disp = 4;
    MPI_Datatype in = MPI_INT, t;
    MPI_Type_create_struct(1, &len, &disp, &in, &t);
    return resized(t, 20);
}

/* 6 contiguous ints: same signature as make_vector(). */
static MPI_Datatype make_contig6(void)
{
    MPI_Datatype t;
    MPI_Type_contiguous(6, MPI_INT, &t);
    MPI_Type_commit(&t);
    return t;
}

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

/* Every rank gets the same list in the same order (the parity entry is a
 * different communicator on even and odd ranks, but at the same position),
 * so all members of a communicator enumerate the same cases. */
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
    return n;
}

static void free_comms(comm_entry_t *c, int n)
{
    for (int i = 0; i < n; i++)
        if (c[i].owned) MPI_Comm_free(&c[i].comm);
}

/* ------------------------------------------------------------ data helpers */

/* The byte at offset idx of the block for destination dest on rank rank, in
 * case seed. Every (seed, rank, dest, idx) gives a well-mixed byte, so a
 * misplaced block or a stale block from another case is caught. */
static unsigned char pattern_byte(uint32_t seed, int rank, size_t dest, size_t idx)
{
    uint32_t x = seed * 0x9E3779B1u;
    x ^= (uint32_t)rank * 0x85EBCA77u + 0x165667B1u;
    x ^= (uint32_t)dest * 0xC2B2AE3Du + 0x27D4EB2Fu;
    x ^= (uint32_t)idx * 0x2545F491u;
    x ^= (uint32_t)((uint64_t)idx >> 32);
    x ^= x >> 15;
    x *= 0x2C1B3C6Du;
    x ^= x >> 12;
    x *= 0x297A2D39u;
    x ^= x >> 15;
    return (unsigned char)(x >> 24);
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

static guarded_t guarded_alloc(size_t len)
{
    guarded_t g = {NULL, NULL, len};
    g.base = malloc(len + 2 * GUARD);
    if (!g.base) {
        fprintf(stderr, PROG ": out of memory (%zu bytes)\n", len + 2 * GUARD);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    memset(g.base, SENTINEL, len + 2 * GUARD);
    g.data = g.base + GUARD;
    return g;
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

/* ---------------------------------------------------------------- the case */

typedef struct {
    const comm_entry_t *comm;
    const type_pair_t *types;
    int count;
    int in_place;
    uint32_t seed; /* the case's index: the same on all ranks */
} case_t;

typedef struct {
    long passed, failed;
    uint64_t hash; /* FNV-1a over this rank's results of all cases */
} tally_t;

/* The reference: every block exchanged with MPI_Isend/MPI_Irecv of the same
 * datatypes and counts, including the block to self. */
static int reference_alltoall(const void *sbuf, MPI_Datatype stype, void *rbuf,
                              MPI_Datatype rtype, int count, MPI_Comm comm)
{
    int size;
    MPI_Comm_size(comm, &size);
    size_t sblock = (size_t)count * extent_of(stype);
    size_t rblock = (size_t)count * extent_of(rtype);
    MPI_Request *reqs = malloc(2 * (size_t)size * sizeof *reqs);
    if (!reqs) MPI_Abort(MPI_COMM_WORLD, 3);
    for (int j = 0; j < size; j++)
        MPI_Irecv((char *)rbuf + (size_t)j * rblock, count, rtype, j, TAG_REFERENCE, comm, &reqs[j]);
    for (int j = 0; j < size; j++)
        MPI_Isend((const char *)sbuf + (size_t)j * sblock, count, stype, j, TAG_REFERENCE, comm,
                  &reqs[size + j]);
    int rc = MPI_Waitall(2 * size, reqs, MPI_STATUSES_IGNORE);
    free(reqs);
    return rc;
}

/* Where offset off of a buffer of len bytes in blocks of block bytes lies. */
static void describe_offset(char *out, size_t n, int64_t off, size_t len, size_t block)
{
    if (off < 0) snprintf(out, n, "before the buffer");
    else if ((uint64_t)off >= len) snprintf(out, n, "past the end of the buffer");
    else snprintf(out, n, "block %" PRId64, block ? off / (int64_t)block : 0);
}

/* One line per failing case and rank; off is INT64_MAX when there is no
 * byte to point at (an error code). */
static void report_failure(const case_t *c, const char *what, int64_t off,
                           const guarded_t *got, const guarded_t *want, size_t block)
{
    int rank, wrank;
    MPI_Comm_rank(c->comm->comm, &rank);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    char detail[160] = "", where[48];
    if (off != INT64_MAX) {
        describe_offset(where, sizeof where, off, got->len, block);
        snprintf(detail, sizeof detail,
                 ": first difference at byte %" PRId64 " (%s, got 0x%02x, expected 0x%02x)",
                 off, where, got->data[off], want->data[off]);
    }
    printf(PROG ": FAIL comm=%s type=%s count=%d inplace=%s rank=%d world_rank=%d: %s%s\n",
           c->comm->label, c->types->name, c->count, c->in_place ? "yes" : "no", rank, wrank,
           what, detail);
    fflush(stdout);
}

/* Runs one case on this rank; returns 1 if it passed. */
static int run_case(const case_t *c, tally_t *t)
{
    MPI_Comm comm = c->comm->comm;
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);

    /* In place, the receive buffer holds the data to send, in the receive type. */
    MPI_Datatype stype = c->in_place ? c->types->recv : c->types->send;
    MPI_Datatype rtype = c->types->recv;
    size_t n = (size_t)size * (size_t)c->count;
    size_t sblock = (size_t)c->count * extent_of(stype);
    size_t rblock = (size_t)c->count * extent_of(rtype);

    guarded_t send = guarded_alloc(span_of(stype, n));     /* for the collective */
    guarded_t ref_send = guarded_alloc(span_of(stype, n)); /* its pristine copy */
    guarded_t recv = guarded_alloc(span_of(rtype, n));
    guarded_t ref_recv = guarded_alloc(span_of(rtype, n));

    /* Not in place, both receive buffers keep the sentinel in the datatype's
     * gaps; in place, they start as identical copies of the data to send. */
    if (c->in_place) {
        fill_pattern(recv.data, recv.len, rblock ? rblock : 1, c->seed, rank);
        memcpy(ref_recv.data, recv.data, recv.len);
        memcpy(ref_send.data, recv.data, recv.len);
    } else {
        fill_pattern(send.data, send.len, sblock ? sblock : 1, c->seed, rank);
        memcpy(ref_send.data, send.data, send.len);
    }

    /* In place, the standard says the send count and type are ignored: pass
     * values that would be wrong if anything looked at them. */
    int rc = c->in_place
        ? MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv.data, c->count, rtype, comm)
        : MPI_Alltoall(send.data, c->count, stype, recv.data, c->count, rtype, comm);
    int ref_rc = reference_alltoall(ref_send.data, stype, ref_recv.data, rtype, c->count, comm);

    t->hash = fnv1a(t->hash, recv.data, recv.len);

    int ok = 0;
    int64_t off;
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING + 32];
        int len;
        MPI_Error_string(rc, msg, &len);
        report_failure(c, msg, INT64_MAX, NULL, NULL, rblock);
    } else if (ref_rc != MPI_SUCCESS) {
        report_failure(c, "the point-to-point reference failed", INT64_MAX, NULL, NULL, rblock);
    } else if ((off = first_difference(&recv, &ref_recv)) != INT64_MAX) {
        report_failure(c, "receive buffer differs from reference", off, &recv, &ref_recv,
                       rblock);
    } else if (!c->in_place && (off = first_difference(&send, &ref_send)) != INT64_MAX) {
        report_failure(c, "send buffer was modified", off, &send, &ref_send, sblock);
    } else {
        ok = 1;
    }
    if (ok) t->passed++; else t->failed++;

    free(send.base);
    free(ref_send.base);
    free(recv.base);
    free(ref_recv.base);
    return ok;
}

/* --------------------------------------------------------------- options */

typedef struct {
    int counts[MAX_COUNTS];
    int ncounts;
    const char *types;  /* comma list of type names, or NULL for all */
    const char *comms;  /* comma list of communicator kinds */
    int in_place;       /* 0: no, 1: yes, 2: both */
} options_t;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: " PROG " [--counts N,N,...] [--quick] [--types LIST] [--comms LIST]\n"
            "                      [--in-place no|yes|both]\n"
            "  --counts    elements of the datatype per block (default 0,1,7,4096)\n"
            "  --quick     same as --counts 0,1,7,100\n"
            "  --types     any of " ALL_TYPES "\n"
            "              (default: all)\n"
            "  --comms     any of " ALL_COMMS " (default: all)\n"
            "  --in-place  also MPI_IN_PLACE cases (default both; skipped for type\n"
            "              pairs whose send and receive types differ)\n");
}

static int parse_counts(const char *s, options_t *o)
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

/* Returns 0 on success, 1 for --help, -1 on bad usage. */
static int parse_options(int argc, char **argv, options_t *o)
{
    *o = (options_t){{0, 1, 7, 4096}, 4, NULL, ALL_COMMS, 2};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return 1;
        if (!strcmp(a, "--quick")) {
            parse_counts("0,1,7,100", o);
        } else if (!strcmp(a, "--counts") && v) {
            if (parse_counts(v, o)) return -1;
            i++;
        } else if (!strcmp(a, "--types") && v) {
            if (!all_in_list(v, ALL_TYPES)) return -1;
            o->types = v;
            i++;
        } else if (!strcmp(a, "--comms") && v) {
            if (!all_in_list(v, ALL_COMMS)) return -1;
            o->comms = v;
            i++;
        } else if (!strcmp(a, "--in-place") && v) {
            if (!strcmp(v, "no")) o->in_place = 0;
            else if (!strcmp(v, "yes")) o->in_place = 1;
            else if (!strcmp(v, "both")) o->in_place = 2;
            else return -1;
            i++;
        } else {
            return -1;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- summary */

/* Every rank sends its tally to rank 0 of MPI_COMM_WORLD, point-to-point
 * (see the top of the file for why); rank 0 prints the checksum and the
 * totals. Returns the total number of failures on rank 0, the local number
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

/* ------------------------------------------------------------------- main */

static void run_all(const options_t *o, tally_t *t)
{
    type_pair_t types[16];
    comm_entry_t comms[8];
    int ntypes = build_types(types);
    int ncomms = build_comms(comms, o->comms);
    uint32_t seed = 0;

    for (int ci = 0; ci < ncomms; ci++)
        for (int ti = 0; ti < ntypes; ti++) {
            if (o->types && !in_list(o->types, types[ti].name)) continue;
            for (int k = 0; k < o->ncounts; k++)
                for (int ip = 0; ip <= 1; ip++) {
                    if ((ip && o->in_place == 0) || (!ip && o->in_place == 1)) continue;
                    /* In place only the receive type is used: the case of a
                     * different send type would repeat another one. */
                    if (ip && types[ti].send != types[ti].recv) continue;
                    case_t c = {&comms[ci], &types[ti], o->counts[k], ip, seed++};
                    run_case(&c, t);
                }
        }
    free_comms(comms, ncomms);
    free_types(types, ntypes);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* Errors come back as return codes, so a failing call is reported as a
     * failed case instead of aborting the job. Derived communicators inherit. */
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

    tally_t t = {0, 0, FNV_OFFSET};
    run_all(&o, &t);
    long failed = summarize(&t);
    MPI_Finalize();
    return failed ? 1 : 0;
}
