/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/*
 * alltoallv_check: checks MPI_Alltoallv byte for byte against a
 * point-to-point reference (MPI_Isend/MPI_Irecv of the same blocks and
 * datatypes), in the manner of alltoall_check: count patterns with zeros
 * (some ranks sending nothing, everything empty), blocks placed in reverse
 * order with gaps, every datatype class, different send and receive types of
 * one signature, MPI_IN_PLACE, and several communicators; with --form,
 * MPI_Ialltoallv or the persistent MPI_Alltoallv_init instead
 * (check_common.h, "forms").
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
#define PROG "alltoallv_check"
#include "check_common.h"

#define ALL_PATTERNS "uniform,zeros,random,one-sender,empty,large"

/* ------------------------------------------------------------------ counts */

/* Elements rank i sends rank j in a pattern; every rank computes the same.
 * In place, the counts must be symmetric (i sends j what j sends i). */
static int pattern_count(const char *pattern, uint32_t seed, int i, int j, int in_place)
{
    if (in_place && i > j) {
        int t = i;
        i = j;
        j = t;
    }
    uint32_t h = mix32(seed, i, (size_t)j, 0);
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

/* ---------------------------------------------------------------- the case */

typedef struct {
    const comm_entry_t *comm;
    const type_pair_t *types;
    const char *pattern;
    int in_place;
    uint32_t seed;
} case_t;

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

static void report_failure(const case_t *c, const char *why)
{
    int rank, wrank;
    MPI_Comm_rank(c->comm->comm, &rank);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    printf(PROG ": FAIL comm=%s type=%s counts=%s inplace=%s rank=%d world_rank=%d: %s\n", c->comm->label,
           c->types->name, c->pattern, c->in_place ? "yes" : "no", rank, wrank, why);
    fflush(stdout);
}

/* The call under test in form f (for the persistent form: MPI_Start of
 * *req, which the first start creates); in place, the send arguments are
 * ignored: they get wrong ones. */
static int call_alltoallv(form_t f, MPI_Request *req, int in_place, const void *sbuf, const int *scounts,
                          const int *sdispls, MPI_Datatype stype, void *rbuf, const int *rcounts,
                          const int *rdispls, MPI_Datatype rtype, MPI_Comm comm)
{
    if (in_place) {
        sbuf = MPI_IN_PLACE;
        scounts = sdispls = NULL;
        stype = MPI_DATATYPE_NULL;
    }
    switch (f) {
    case FORM_NONBLOCKING:
        return MPI_Ialltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, req);
    case FORM_PERSISTENT:
        PERSISTENT_START(Alltoallv, req, sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
    default:
        return MPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
    }
}

/* Open MPI 4.1's libnbc returns at once from an in-place MPI_Ialltoallv (and
 * its persistent form) on a rank that receives nothing, without taking the
 * tag the others take: every later nonblocking collective on the
 * communicator then waits for messages of other tags, for ever (5.0 takes
 * the tag). Such cases, where some ranks of the communicator receive
 * nothing and others something, run blocking there: same results, same
 * checksum, and the cases after them can run. */
static int libnbc_loses_tags(const case_t *c, int p)
{
#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION < 5
    if (!c->in_place) return 0;
    int empty = 0;
    for (int i = 0; i < p; i++) {
        int any = 0;
        for (int j = 0; j < p; j++) any |= pattern_count(c->pattern, c->seed, j, i, 1);
        empty += !any;
    }
    return empty > 0 && empty < p;
#else
    (void)c;
    (void)p;
    return 0;
#endif
}

/* One case, every start of it in form f: the counts are the case's (a
 * persistent request keeps them), the data each start's. */
static void run_case(const case_t *c, form_t f, tally_t *t)
{
    MPI_Comm comm = c->comm->comm;
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    if (f != FORM_BLOCKING && libnbc_loses_tags(c, p)) {
        static int said;
        int wrank;
        MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
        if (!said++ && wrank == 0)
            printf(PROG ": in-place cases where some ranks receive nothing run blocking under "
                        "Open MPI < 5 (its libnbc loses the communicator's tag order there)\n");
        f = FORM_BLOCKING;
    }
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
    MPI_Request req = MPI_REQUEST_NULL;
    verdict_t v = {1, ""};
    const int starts = form_starts(f);
    for (int s = 0; s < starts; s++) {
        const uint32_t seed = start_seed(c->seed, s, starts);
        guarded_reset(&send);
        guarded_reset(&recv);
        guarded_reset(&ref_send);
        guarded_reset(&ref_recv);
        guarded_t *data = c->in_place ? &recv : &send;
        fill_pattern(data->data, data->len, SIZE_MAX, seed, rank);
        memcpy(ref_send.data, data->data, data->len);
        if (c->in_place) memcpy(ref_recv.data, recv.data, recv.len);
        int rc = call_alltoallv(f, &req, c->in_place, send.data, scounts, sdispls, stype, recv.data, rcounts,
                                rdispls, rtype, comm);
        rc = form_complete(f, rc, &req);
        /* In place, the reference sends the original receive buffer's blocks. */
        int ref_rc = reference_alltoallv(ref_send.data, c->in_place ? rcounts : scounts,
                                         c->in_place ? rdispls : sdispls, stype, ref_recv.data, rcounts, rdispls,
                                         rtype, comm);
        if (s == starts - 1) t->hash = fnv1a(t->hash, recv.data, recv.len);

        /* Out of place, the send buffer must come back untouched. Blocks vary in
         * size here (block 0: a difference is told by its byte alone); the data
         * are a function of (seed, rank, byte), one block of SIZE_MAX bytes. */
        const comparison_t cmp[] = {
            {"receive buffer differs from reference", &recv, &ref_recv, 0},
            {"send buffer was modified", &send, &ref_send, 0},
        };
        char why[256];
        verdict_add(&v, judge(rc, ref_rc, cmp, c->in_place ? 1 : 2, why, sizeof why), why, s, starts);
    }
    form_release(&req);
    if (v.ok) {
        t->passed++;
    } else {
        t->failed++;
        report_failure(c, v.why);
    }
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
    form_t form;
} options_t;

static void usage(FILE *f)
{
    fprintf(f, "usage: " PROG " [--types LIST] [--counts LIST] [--comms LIST] [--in-place no|yes|both]\n"
               "                       [--form FORM]\n"
               "  --types     any of " ALL_TYPES " (default: all)\n"
               "  --counts    count patterns, any of " ALL_PATTERNS " (default: all)\n"
               "  --comms     any of " COMM_KINDS " (default: " ALL_COMMS ")\n"
               "  --in-place  also MPI_IN_PLACE cases (default both; skipped for type\n"
               "              pairs whose send and receive types differ)\n" FORM_USAGE);
}

static int parse_options(int argc, char **argv, options_t *o)
{
    *o = (options_t){ALL_TYPES, ALL_PATTERNS, ALL_COMMS, 2, FORM_BLOCKING};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return 1;
        if (!v) return -1;
        if (!strcmp(a, "--types") && all_in_list(v, ALL_TYPES)) o->types = v;
        else if (!strcmp(a, "--counts") && all_in_list(v, ALL_PATTERNS)) o->patterns = v;
        else if (!strcmp(a, "--comms") && all_in_list(v, COMM_KINDS)) o->comms = v;
        else if (!strcmp(a, "--in-place") && !strcmp(v, "no")) o->in_place = 0;
        else if (!strcmp(a, "--in-place") && !strcmp(v, "yes")) o->in_place = 1;
        else if (!strcmp(a, "--in-place") && !strcmp(v, "both")) o->in_place = 2;
        else if (!strcmp(a, "--form") && !parse_form(v, &o->form)) { /* parse_form set it */ }
        else return -1;
        i++;
    }
    return 0;
}

int main(int argc, char **argv)
{
    checker_init(&argc, &argv);
    options_t o;
    int parsed = parse_options(argc, argv, &o);
    if (parsed != 0) return exit_with_usage(parsed, usage);

    type_pair_t types[16];
    comm_entry_t comms[MAX_COMMS];
    warm_up_world(o.form);
    const int ntypes = build_types(types), ncomms = build_comms(comms, o.comms);
    warm_up_comms(o.form, comms, ncomms);
    const char *patterns[] = {"uniform", "zeros", "random", "one-sender", "empty", "large"};
    tally_t t = TALLY_START;
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
                    run_case(&c, o.form, &t);
                }
            }
        }
    free_comms(comms, ncomms);
    free_types(types, ntypes);
    return exit_with_summary(&t);
}
