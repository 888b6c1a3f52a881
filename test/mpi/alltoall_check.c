/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/*
 * alltoall_check: checks MPI_Alltoall byte for byte against a point-to-point
 * reference (MPI_Isend/MPI_Irecv of the same datatypes, i.e. Open MPI's own
 * PML result), for every datatype class, several counts, MPI_IN_PLACE and
 * several communicators; with --form, MPI_Ialltoall or the persistent
 * MPI_Alltoall_init instead (check_common.h, "forms").
 *
 * Why point-to-point: the checker must not rely on any collective that the
 * component under test may replace, so the reference, the pass/fail summary
 * and the checksum are all built from MPI_Isend/MPI_Irecv/MPI_Send/MPI_Recv.
 * (Building the communicators cannot avoid collectives: MPI_Comm_split runs
 * the parent's MPI_Allgather, and MPI_Comm_dup Open MPI's internal
 * allreduce; every MPI program exercises them anyway.)
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
#define PROG "alltoall_check"
#include "check_common.h"

/* ---------------------------------------------------------------- the case */

typedef struct {
    const comm_entry_t *comm;
    const type_pair_t *types;
    int count;
    int in_place;
    uint32_t seed; /* the case's index: the same on all ranks */
} case_t;

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

/* One line per failing case and rank. */
static void report_failure(const case_t *c, const char *why)
{
    int rank, wrank;
    MPI_Comm_rank(c->comm->comm, &rank);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    printf(PROG ": FAIL comm=%s type=%s count=%d inplace=%s rank=%d world_rank=%d: %s\n",
           c->comm->label, c->types->name, c->count, c->in_place ? "yes" : "no", rank, wrank,
           why);
    fflush(stdout);
}

/* The call under test in form f (for the persistent form: MPI_Start of
 * *req, which the first start creates); in place, the standard says the send
 * count and type are ignored: they get values that would be wrong if
 * anything looked at them. */
static int call_alltoall(form_t f, MPI_Request *req, int in_place, const void *sbuf, int count,
                         MPI_Datatype stype, void *rbuf, MPI_Datatype rtype, MPI_Comm comm)
{
    if (in_place) {
        sbuf = MPI_IN_PLACE;
        stype = MPI_DATATYPE_NULL;
    }
    const int scount = in_place ? 0 : count;
    switch (f) {
    case FORM_NONBLOCKING:
        return MPI_Ialltoall(sbuf, scount, stype, rbuf, count, rtype, comm, req);
    case FORM_PERSISTENT:
        PERSISTENT_START(Alltoall, req, sbuf, scount, stype, rbuf, count, rtype, comm);
    default:
        return MPI_Alltoall(sbuf, scount, stype, rbuf, count, rtype, comm);
    }
}

/* Runs one case on this rank (every start of it, in form f); returns 1 if
 * it passed. */
static int run_case(const case_t *c, form_t f, tally_t *t)
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

    /* For the collective; a persistent request keeps their addresses. */
    guarded_t send = guarded_alloc(span_of(stype, n));
    guarded_t recv = guarded_alloc(span_of(rtype, n));
    MPI_Request req = MPI_REQUEST_NULL;
    verdict_t v = {1, ""};
    const int starts = form_starts(f);

    for (int s = 0; s < starts; s++) {
        const uint32_t seed = start_seed(c->seed, s, starts);
        guarded_reset(&send);
        guarded_reset(&recv);
        /* Not in place, the receive buffer keeps the sentinel in the
         * datatype's gaps; in place, it starts as the data to send. */
        if (c->in_place)
            fill_pattern(recv.data, recv.len, rblock ? rblock : 1, seed, rank);
        else
            fill_pattern(send.data, send.len, sblock ? sblock : 1, seed, rank);
        /* The reference's buffers start as identical copies. */
        guarded_t ref_send = guarded_copy(c->in_place ? &recv : &send);
        guarded_t ref_recv = guarded_copy(&recv);

        int rc = call_alltoall(f, &req, c->in_place, send.data, c->count, stype, recv.data, rtype,
                               comm);
        rc = form_complete(f, rc, &req);
        int ref_rc = reference_alltoall(ref_send.data, stype, ref_recv.data, rtype, c->count, comm);

        if (s == starts - 1) t->hash = fnv1a(t->hash, recv.data, recv.len);

        /* Not in place, the send buffer must come back untouched. */
        const comparison_t cmp[] = {
            {"receive buffer differs from reference", &recv, &ref_recv, rblock},
            {"send buffer was modified", &send, &ref_send, sblock},
        };
        char why[MPI_MAX_ERROR_STRING + 160];
        verdict_add(&v, judge(rc, ref_rc, cmp, c->in_place ? 1 : 2, why, sizeof why), why, s,
                    starts);
        free(ref_send.base);
        free(ref_recv.base);
    }
    form_release(&req);
    if (v.ok) {
        t->passed++;
    } else {
        t->failed++;
        report_failure(c, v.why);
    }

    free(send.base);
    free(recv.base);
    return v.ok;
}

/* --------------------------------------------------------------- options */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: " PROG " [--counts N,N,...] [--quick] [--types LIST] [--comms LIST]\n"
            "                      [--in-place no|yes|both] [--form FORM]\n");
    common_usage(f, ALL_TYPES, COMM_KINDS);
    fprintf(f,
            "  --in-place  also MPI_IN_PLACE cases (default both; skipped for type\n"
            "              pairs whose send and receive types differ)\n");
}

/* Returns 0 on success, 1 for --help, -1 on bad usage. */
static int parse_options(int argc, char **argv, common_options_t *o)
{
    *o = (common_options_t)COMMON_DEFAULTS;
    if (counts_from_environment(o)) return -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return 1;
        if (parse_common_option(argc, argv, &i, o) != 1) return -1;
    }
    if (o->types && !all_in_list(o->types, ALL_TYPES)) return -1;
    return all_in_list(o->comms, COMM_KINDS) ? 0 : -1;
}

/* ------------------------------------------------------------------- main */

static void run_all(const common_options_t *o, tally_t *t)
{
    type_pair_t types[16];
    comm_entry_t comms[MAX_COMMS];
    int ntypes = build_types(types);
    warm_up_world(o->form);
    int ncomms = build_comms(comms, o->comms);
    warm_up_comms(o->form, comms, ncomms);
    uint32_t seed = 0;

    for (int ci = 0; ci < ncomms; ci++)
        for (int ti = 0; ti < ntypes; ti++) {
            if (o->types && !in_list(o->types, types[ti].name)) continue;
            for (int k = 0; k < o->ncounts; k++)
                for (int ip = 0; ip <= 1; ip++) {
                    if (!runs_in_place_variant(o, ip)) continue;
                    /* In place only the receive type is used: the case of a
                     * different send type would repeat another one. */
                    if (ip && types[ti].send != types[ti].recv) continue;
                    case_t c = {&comms[ci], &types[ti], o->counts[k], ip, seed++};
                    run_case(&c, o->form, t);
                }
        }
    free_comms(comms, ncomms);
    free_types(types, ntypes);
}

int main(int argc, char **argv)
{
    checker_init(&argc, &argv);
    common_options_t o;
    int parsed = parse_options(argc, argv, &o);
    if (parsed != 0) return exit_with_usage(parsed, usage);

    tally_t t = TALLY_START;
    run_all(&o, &t);
    return exit_with_summary(&t);
}
