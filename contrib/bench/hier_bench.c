/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/*
 * hier_bench: an osu_alltoall-style benchmark of one collective.
 *
 * For each size: warm-up (-x calls, and for hier's alltoall auto the calls
 * with which it may measure candidates before it decides: see
 * auto_trial_calls), then timed iterations; the time of an iteration is
 * the slowest rank's; the table gives the average, minimum and maximum of
 * that over the iterations, then one validated call (every byte checked),
 * then the median (less moved than the average by the rare iteration
 * that takes several times the others on a host shared by more processes
 * than cores), and last the paired ratio: the median over iterations of
 * the variant's time over the first variant's in the same iteration, with
 * its 95 % confidence interval (see paired_ratio; 1 for the first variant,
 * and for a run without -v).
 *
 * Two ways to start an iteration:
 * - barrier: OSU's, MPI_Barrier then the clock. The barrier's exit skew (a
 *   few milliseconds across a slow link) is counted in the collective.
 * - clock:   a common start instant on CLOCK_MONOTONIC: after a barrier (every
 *   rank is done with the previous call), rank 0 broadcasts an instant a
 *   little ahead, every rank sleeps until it with clock_nanosleep and times
 *   from it. This needs one clock for all ranks: true on one host
 *   and on the emulated cluster (namespaces share the kernel), not on a real
 *   cluster. Ranks that wake after the instant are counted as "late".
 *
 * Usage: hier_bench [-c collective] [-m min:max|size,...] [-i iters]
 *                   [-I large_iters] [-x warmup] [-s barrier|clock|both]
 *                   [-r root] [-f table|csv] [-t tests] [-v variant,...]
 * -v runs several variants (open-mpi, hier, ALG[:W]) in one job; see
 * create_variants.
 * Collectives: alltoall alltoallv scatter gather barrier allreduce allgather,
 * and their nonblocking forms ialltoall ... iallgather, which are measured
 * as osu_ialltoall does (communication time, time with computation between
 * start and wait, overlap; -t MPI_Test calls during the computation): see
 * measure_nonblocking.
 * Sizes are bytes per block (per peer for alltoall, scatter, gather and
 * allgather; the whole vector for allreduce, as MPI_INT): -m min:max doubles
 * from min, or lists them.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LARGE_SIZE (64 * 1024)

typedef struct {
    int rank, size, root;
    size_t bytes;             /* per block */
    unsigned char *send, *recv;
    int *counts, *displs;     /* alltoallv */
    MPI_Comm comm;            /* the variant's communicator */
} bench_call_t;

typedef struct {
    const char *name;
    int sized;                /* barrier has no size */
    size_t (*send_bytes)(const bench_call_t *c);
    size_t (*recv_bytes)(const bench_call_t *c);
    void (*fill)(bench_call_t *c);
    void (*run)(bench_call_t *c);
    int (*check)(const bench_call_t *c);  /* number of wrong bytes */
    const char *hier_op;      /* whose coll_hier_<op>_algorithm selects it */
    void (*start)(bench_call_t *c, MPI_Request *request);  /* the nonblocking form; run is then its blocking twin */
} collective_t;

/* The byte that src sends to dst at offset k: a misplaced block shows. */
static unsigned char pattern(int src, int dst, size_t k)
{
    return (unsigned char)(src * 131 + dst * 31 + k * 7 + 1);
}

static size_t all_blocks(const bench_call_t *c) { return c->bytes * (size_t)c->size; }
static size_t one_block(const bench_call_t *c) { return c->bytes; }
static size_t root_blocks(const bench_call_t *c) { return c->rank == c->root ? all_blocks(c) : 0; }
static size_t no_bytes(const bench_call_t *c) { (void)c; return 0; }

static void fill_per_destination(bench_call_t *c)
{
    for (int dst = 0; dst < c->size; ++dst)
        for (size_t k = 0; k < c->bytes; ++k)
            c->send[dst * c->bytes + k] = pattern(c->rank, dst, k);
}

static int check_from_every_source(const bench_call_t *c)
{
    int wrong = 0;
    for (int src = 0; src < c->size; ++src)
        for (size_t k = 0; k < c->bytes; ++k)
            wrong += c->recv[src * c->bytes + k] != pattern(src, c->rank, k);
    return wrong;
}

static void run_alltoall(bench_call_t *c)
{
    MPI_Alltoall(c->send, (int)c->bytes, MPI_BYTE, c->recv, (int)c->bytes, MPI_BYTE, c->comm);
}

static void run_alltoallv(bench_call_t *c)
{
    MPI_Alltoallv(c->send, c->counts, c->displs, MPI_BYTE, c->recv, c->counts, c->displs, MPI_BYTE,
                  c->comm);
}

static void fill_scatter(bench_call_t *c)
{
    if (c->rank == c->root) fill_per_destination(c);
}

static void run_scatter(bench_call_t *c)
{
    MPI_Scatter(c->send, (int)c->bytes, MPI_BYTE, c->recv, (int)c->bytes, MPI_BYTE, c->root, c->comm);
}

static int check_scatter(const bench_call_t *c)
{
    int wrong = 0;
    for (size_t k = 0; k < c->bytes; ++k) wrong += c->recv[k] != pattern(c->root, c->rank, k);
    return wrong;
}

static void fill_to_root(bench_call_t *c)
{
    for (size_t k = 0; k < c->bytes; ++k) c->send[k] = pattern(c->rank, c->root, k);
}

static void run_gather(bench_call_t *c)
{
    MPI_Gather(c->send, (int)c->bytes, MPI_BYTE, c->recv, (int)c->bytes, MPI_BYTE, c->root, c->comm);
}

static int check_gather(const bench_call_t *c)
{
    int wrong = 0;
    if (c->rank != c->root) return 0;
    for (int src = 0; src < c->size; ++src)
        for (size_t k = 0; k < c->bytes; ++k)
            wrong += c->recv[src * c->bytes + k] != pattern(src, c->root, k);
    return wrong;
}

static void run_allgather(bench_call_t *c)
{
    MPI_Allgather(c->send, (int)c->bytes, MPI_BYTE, c->recv, (int)c->bytes, MPI_BYTE, c->comm);
}

static int check_allgather(const bench_call_t *c)
{
    int wrong = 0;
    for (int src = 0; src < c->size; ++src)
        for (size_t k = 0; k < c->bytes; ++k)
            wrong += c->recv[src * c->bytes + k] != pattern(src, 0, k);
    return wrong;
}

static void fill_allgather(bench_call_t *c)
{
    for (size_t k = 0; k < c->bytes; ++k) c->send[k] = pattern(c->rank, 0, k);
}

static int ints(const bench_call_t *c) { return (int)(c->bytes / sizeof(int)) > 0 ? (int)(c->bytes / sizeof(int)) : 1; }
static size_t int_bytes(const bench_call_t *c) { return (size_t)ints(c) * sizeof(int); }

static void fill_allreduce(bench_call_t *c)
{
    int *v = (int *)c->send;
    for (int i = 0; i < ints(c); ++i) v[i] = c->rank + i % 1000;
}

static void run_allreduce(bench_call_t *c)
{
    MPI_Allreduce(c->send, c->recv, ints(c), MPI_INT, MPI_SUM, c->comm);
}

static int check_allreduce(const bench_call_t *c)
{
    const int *v = (const int *)c->recv;
    int wrong = 0;
    for (int i = 0; i < ints(c); ++i)
        wrong += v[i] != c->size * (i % 1000) + c->size * (c->size - 1) / 2;
    return wrong;
}

static void fill_nothing(bench_call_t *c) { (void)c; }
static void run_barrier(bench_call_t *c) { MPI_Barrier(c->comm); }
static int check_nothing(const bench_call_t *c) { (void)c; return 0; }

/* The nonblocking forms: the same buffers as their blocking twins. */
static void start_ialltoall(bench_call_t *c, MPI_Request *r)
{
    MPI_Ialltoall(c->send, (int)c->bytes, MPI_BYTE, c->recv, (int)c->bytes, MPI_BYTE, c->comm, r);
}

static void start_ialltoallv(bench_call_t *c, MPI_Request *r)
{
    MPI_Ialltoallv(c->send, c->counts, c->displs, MPI_BYTE, c->recv, c->counts, c->displs, MPI_BYTE, c->comm, r);
}

static void start_iscatter(bench_call_t *c, MPI_Request *r)
{
    MPI_Iscatter(c->send, (int)c->bytes, MPI_BYTE, c->recv, (int)c->bytes, MPI_BYTE, c->root, c->comm, r);
}

static void start_igather(bench_call_t *c, MPI_Request *r)
{
    MPI_Igather(c->send, (int)c->bytes, MPI_BYTE, c->recv, (int)c->bytes, MPI_BYTE, c->root, c->comm, r);
}

static void start_ibarrier(bench_call_t *c, MPI_Request *r) { MPI_Ibarrier(c->comm, r); }

static void start_iallreduce(bench_call_t *c, MPI_Request *r)
{
    MPI_Iallreduce(c->send, c->recv, ints(c), MPI_INT, MPI_SUM, c->comm, r);
}

static void start_iallgather(bench_call_t *c, MPI_Request *r)
{
    MPI_Iallgather(c->send, (int)c->bytes, MPI_BYTE, c->recv, (int)c->bytes, MPI_BYTE, c->comm, r);
}

static const collective_t collectives[] = {
    {"alltoall", 1, all_blocks, all_blocks, fill_per_destination, run_alltoall, check_from_every_source, "alltoall", NULL},
    {"alltoallv", 1, all_blocks, all_blocks, fill_per_destination, run_alltoallv, check_from_every_source, "alltoallv", NULL},
    {"scatter", 1, root_blocks, one_block, fill_scatter, run_scatter, check_scatter, "scatter", NULL},
    {"gather", 1, one_block, root_blocks, fill_to_root, run_gather, check_gather, "gather", NULL},
    {"barrier", 0, no_bytes, no_bytes, fill_nothing, run_barrier, check_nothing, "barrier", NULL},
    {"allreduce", 1, int_bytes, int_bytes, fill_allreduce, run_allreduce, check_allreduce, "allreduce", NULL},
    {"allgather", 1, one_block, all_blocks, fill_allgather, run_allgather, check_allgather, "allgather", NULL},
    {"ialltoall", 1, all_blocks, all_blocks, fill_per_destination, run_alltoall, check_from_every_source, "alltoall",
     start_ialltoall},
    {"ialltoallv", 1, all_blocks, all_blocks, fill_per_destination, run_alltoallv, check_from_every_source,
     "alltoallv", start_ialltoallv},
    {"iscatter", 1, root_blocks, one_block, fill_scatter, run_scatter, check_scatter, "scatter", start_iscatter},
    {"igather", 1, one_block, root_blocks, fill_to_root, run_gather, check_gather, "gather", start_igather},
    {"ibarrier", 0, no_bytes, no_bytes, fill_nothing, run_barrier, check_nothing, "barrier", start_ibarrier},
    {"iallreduce", 1, int_bytes, int_bytes, fill_allreduce, run_allreduce, check_allreduce, "allreduce",
     start_iallreduce},
    {"iallgather", 1, one_block, all_blocks, fill_allgather, run_allgather, check_allgather, "allgather",
     start_iallgather},
};

#define MAX_SIZES 64
typedef struct {
    const collective_t *collective;
    size_t sizes[MAX_SIZES];  /* -m, in order */
    int size_count;
    int iters, large_iters, warmup, root;
    int barrier_start, clock_start, csv;
    int tests;                /* -t: MPI_Test calls during a nonblocking collective's computation */
    const char *variants;     /* -v: comma-separated, or NULL for MPI_COMM_WORLD alone */
} options_t;

#define USAGE "usage: hier_bench [-c collective] [-m min:max|size,...] [-i iters] [-I large_iters] [-x warmup]\n" \
              "                  [-s barrier|clock|both] [-r root] [-f table|csv] [-t tests] [-v variant,...]\n"

static void usage_exit(const char *why)
{
    fprintf(stderr, "hier_bench: %s\n" USAGE, why);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static const collective_t *find_collective(const char *name)
{
    for (size_t i = 0; i < sizeof collectives / sizeof *collectives; ++i)
        if (strcmp(collectives[i].name, name) == 0) return &collectives[i];
    usage_exit("unknown collective");
    return NULL;
}

/* -m: min:max (doubling from min, 0 then 1) or a comma-separated list. */
static void parse_sizes(options_t *o, const char *text)
{
    size_t min, max;
    char end;
    o->size_count = 0;
    if (sscanf(text, "%zu:%zu%c", &min, &max, &end) == 2) {
        if (min > max) usage_exit("-m takes min:max in bytes, min <= max, or a comma-separated list of sizes");
        for (size_t bytes = min; bytes <= max && o->size_count < MAX_SIZES; bytes = bytes ? bytes * 2 : 1)
            o->sizes[o->size_count++] = bytes;
        return;
    }
    for (const char *p = text; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] != 0)) {
        int used = 0;
        if (o->size_count == MAX_SIZES || sscanf(p, "%zu%n", &o->sizes[o->size_count], &used) != 1 ||
            (p[used] != ',' && p[used] != 0))
            usage_exit("-m takes min:max in bytes, min <= max, or a comma-separated list of at most 64 sizes");
        ++o->size_count;
    }
    if (o->size_count == 0) usage_exit("-m takes min:max in bytes, min <= max, or a comma-separated list of sizes");
}

static options_t parse_options(int argc, char **argv)
{
    options_t o = {find_collective("alltoall"), {0}, 0, 50, 10, 5, 0, 1, 1, 0, 0, NULL};
    parse_sizes(&o, "1:1048576");
    int opt;
    while ((opt = getopt(argc, argv, "c:m:i:I:x:s:r:f:t:v:")) != -1) {
        switch (opt) {
        case 'c': o.collective = find_collective(optarg); break;
        case 'm': parse_sizes(&o, optarg); break;
        case 't': o.tests = atoi(optarg); break;
        case 'i': o.iters = atoi(optarg); break;
        case 'I': o.large_iters = atoi(optarg); break;
        case 'x': o.warmup = atoi(optarg); break;
        case 'r': o.root = atoi(optarg); break;
        case 's':
            o.barrier_start = strcmp(optarg, "clock") != 0;
            o.clock_start = strcmp(optarg, "barrier") != 0;
            if (!o.barrier_start && !o.clock_start) usage_exit("-s takes barrier, clock or both");
            break;
        case 'f': o.csv = strcmp(optarg, "csv") == 0; break;
        case 'v': o.variants = optarg; break;
        default: usage_exit("unknown option");
        }
    }
    if (o.iters < 1 || o.large_iters < 1 || o.warmup < 0) usage_exit("iterations must be positive");
    if (o.tests < 0) usage_exit("-t takes a number of MPI_Test calls, 0 or more");
    if (!o.collective->sized) {  /* one row, of no size */
        o.sizes[0] = 0;
        o.size_count = 1;
    }
    return o;
}

/*
 * Variants (-v): one communicator each, duplicated from MPI_COMM_WORLD while
 * hier's control variables say what the variant runs (hier fixes them per
 * communicator when it is created):
 *   open-mpi  every coll_hier_<op>_algorithm fallback: hier declines the
 *             communicator, and Open MPI selects as if it were not there;
 *   hier      coll_hier_<collective>_algorithm auto;
 *   ALG[:W]   coll_hier_<collective>_algorithm ALG (and coll_hier_window W).
 * A nonblocking collective takes its blocking twin's parameter (ialltoall:
 * coll_hier_alltoall_algorithm), as hier does.
 * Their iterations alternate, so that every variant meets the machine in the
 * same state: no run-to-run spread between them.
 */
#define MAX_VARIANTS 64
typedef struct {
    char name[64];
    MPI_Comm comm;
    int trial_calls;  /* calls auto may measure per size class before it decides */
} variant_t;

static const char *const hier_ops[] = {"alltoall", "alltoallv", "scatter", "gather",
                                       "barrier", "allreduce", "allgather"};
#define HIER_OPS (int)(sizeof hier_ops / sizeof *hier_ops)

static int cvar_index(const char *name)
{
    int index;
    return MPI_T_cvar_get_index(name, &index) == MPI_SUCCESS ? index : -1;
}

static int cvar_access(int index, int *value, int write)
{
    MPI_T_cvar_handle handle;
    int count, rc = MPI_T_cvar_handle_alloc(index, NULL, &handle, &count);
    if (rc != MPI_SUCCESS) return rc;
    rc = write ? MPI_T_cvar_write(handle, value) : MPI_T_cvar_read(handle, value);
    MPI_T_cvar_handle_free(&handle);
    return rc;
}

/* The value of an enumerated control variable's item, or -1. */
static int cvar_enum_value(int index, const char *item)
{
    char name[256], enum_name[256];
    int name_len = sizeof name, enum_len = sizeof enum_name, desc_len = 0, verbosity, bind, scope, items;
    MPI_Datatype type;
    MPI_T_enum enumtype = MPI_T_ENUM_NULL;
    MPI_T_cvar_get_info(index, name, &name_len, &verbosity, &type, &enumtype, NULL, &desc_len, &bind, &scope);
    if (enumtype == MPI_T_ENUM_NULL || MPI_T_enum_get_info(enumtype, &items, enum_name, &enum_len) != MPI_SUCCESS)
        return -1;
    for (int i = 0; i < items; ++i) {
        int value, len = sizeof name;
        if (MPI_T_enum_get_item(enumtype, i, &value, name, &len) == MPI_SUCCESS && strcmp(name, item) == 0)
            return value;
    }
    return -1;
}

static void set_hier(const char *param, const char *value_name, int value)
{
    char name[96];
    snprintf(name, sizeof name, "coll_hier_%s", param);
    const int index = cvar_index(name);
    if (index < 0) usage_exit("a hier variant needs coll/hier loaded (its control variables are missing)");
    if (value_name && (value = cvar_enum_value(index, value_name)) < 0) {
        fprintf(stderr, "hier_bench: %s has no value %s\n", name, value_name);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (cvar_access(index, &value, 1) != MPI_SUCCESS) usage_exit("MPI_T cannot write hier's control variables");
}

/* The calls with which hier's alltoall auto may measure candidates, where
 * its model cannot tell them from Open MPI's (at most 4 contenders, one
 * call each to warm up, then coll_hier_auto_trial_calls each per round, up
 * to 5 rounds: the core's kTrialRounds): the warm-up covers them, so that
 * the timed iterations run what auto kept. 0 without hier. */
static int auto_trial_calls(const char *collective)
{
    const int index = cvar_index("coll_hier_auto_trial_calls");
    int calls = 0;
    if (strcmp(collective, "alltoall") != 0 || index < 0 || cvar_access(index, &calls, 0) != MPI_SUCCESS) return 0;
    return calls > 0 ? 4 * (1 + 5 * calls) : 0;
}

/* Duplicates MPI_COMM_WORLD under the variant's settings, then puts the
 * settings back as they were. */
static void create_variant(variant_t *v, const char *collective)
{
    int saved[HIER_OPS + 1], index[HIER_OPS + 1];  /* the algorithms, then the window */
    char name[96];
    for (int op = 0; op < HIER_OPS; ++op) {
        snprintf(name, sizeof name, "coll_hier_%s_algorithm", hier_ops[op]);
        index[op] = cvar_index(name);
    }
    index[HIER_OPS] = cvar_index("coll_hier_window");
    for (int i = 0; i <= HIER_OPS; ++i)
        if (index[i] >= 0) cvar_access(index[i], &saved[i], 0);
    char algorithm_param[64];
    snprintf(algorithm_param, sizeof algorithm_param, "%s_algorithm", collective);
    if (strcmp(v->name, "open-mpi") == 0) {
        for (int op = 0; op < HIER_OPS; ++op) {
            snprintf(name, sizeof name, "%s_algorithm", hier_ops[op]);
            if (index[op] >= 0) set_hier(name, "fallback", 0);
        }
    } else if (strcmp(v->name, "hier") == 0) {
        set_hier(algorithm_param, "auto", 0);
        v->trial_calls = auto_trial_calls(collective);
    } else {
        char algorithm[64];
        int window;
        const int fields = sscanf(v->name, "%63[^:]:%d", algorithm, &window);
        set_hier(algorithm_param, algorithm, 0);
        if (fields == 2) set_hier("window", NULL, window);
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &v->comm);
    for (int i = 0; i <= HIER_OPS; ++i)
        if (index[i] >= 0) cvar_access(index[i], &saved[i], 1);
}

/* The variants of -v, or MPI_COMM_WORLD alone (named "-") without it. */
static variant_t *create_variants(const options_t *o, int *count)
{
    *count = 0;
    variant_t *variants = calloc(MAX_VARIANTS, sizeof *variants);
    if (!variants) usage_exit("out of memory");
    if (!o->variants) {
        strcpy(variants[0].name, "-");
        variants[0].comm = MPI_COMM_WORLD;
        variants[0].trial_calls = auto_trial_calls(o->collective->hier_op);
        *count = 1;
        return variants;
    }
    int provided;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    for (const char *p = o->variants; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] != 0)) {
        const size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof variants->name) usage_exit("-v takes open-mpi, hier, ALG or ALG:W, comma-separated");
        if (*count == MAX_VARIANTS) usage_exit("-v takes at most 64 variants");
        memcpy(variants[*count].name, p, len);
        create_variant(&variants[(*count)++], o->collective->hier_op);
    }
    MPI_T_finalize();
    return variants;
}

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void sleep_until(int64_t instant)
{
    struct timespec t = {(time_t)(instant / 1000000000), (long)(instant % 1000000000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) != 0) {
    }
}

/* How far ahead rank 0 must set a common start so that every rank has it
 * in time: three times the slowest broadcast seen after a barrier, and at
 * least 200 us. */
static int64_t start_lead(void)
{
    int64_t worst = 0;
    for (int i = 0; i < 5; ++i) {
        MPI_Barrier(MPI_COMM_WORLD);
        int64_t sent = now_ns();
        MPI_Bcast(&sent, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
        int64_t delay = now_ns() - sent, slowest;
        MPI_Allreduce(&delay, &slowest, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
        if (slowest > worst) worst = slowest;
    }
    return worst * 3 > 200000 ? worst * 3 : 200000;
}

/* Starts an iteration on every rank: the instant it starts, on now_ns's
 * clock; *late counts a clock start that came too late. */
static int64_t begin_iteration(MPI_Comm comm, int clock_start, int64_t lead, int *late)
{
    if (!clock_start) {
        MPI_Barrier(comm);
        return now_ns();
    }
    /* Everyone is done with the previous call before rank 0 sets the
     * instant: a rank still finishing it would otherwise start late and
     * count the previous call's tail in this one. */
    MPI_Barrier(MPI_COMM_WORLD);
    int64_t start = now_ns() + lead;
    MPI_Bcast(&start, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    *late += now_ns() > start;
    sleep_until(start);
    return start;
}

/* One timed call in seconds. */
static double timed_call(const collective_t *coll, bench_call_t *call, int clock_start, int64_t lead, int *late)
{
    const int64_t start = begin_iteration(call->comm, clock_start, lead, late);
    coll->run(call);
    return (now_ns() - start) * 1e-9;
}

static void prepare(bench_call_t *call, const collective_t *coll)
{
    for (int i = 0; i < call->size; ++i) {
        call->counts[i] = (int)call->bytes;
        call->displs[i] = (int)(call->bytes * (size_t)i);
    }
    memset(call->recv, 0xEE, coll->recv_bytes(call));
    coll->fill(call);
}

static int compare_doubles(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of values[0..n), which it sorts. */
static double median_of(double *values, int n)
{
    qsort(values, (size_t)n, sizeof(*values), compare_doubles);
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/* The slowest rank's time per iteration, on rank 0. */
static void slowest_per_iteration(const double *times, double *slowest, int iters)
{
    MPI_Reduce(times, slowest, iters, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
}

/* How far in from each end of n sorted values the distribution-free
 * confidence interval of their median lies: the largest k (at least 1) with
 * P(B < k) <= 2.5 % for B ~ Binomial(n, 1/2), so that [x(k), x(n+1-k)],
 * 1-based, holds the median with at least 95 % confidence. Below 6 values
 * no interval reaches 95 %, and k = 1 gives [min, max]. */
static int median_interval_inset(int n)
{
    double outside = 0;  /* P(B < k) */
    int k = 0;
    while (k < n / 2) {
        const double p = exp(lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0) - n * log(2.0));
        if (2 * (outside + p) > 0.05) break;
        outside += p;
        ++k;
    }
    return k > 0 ? k : 1;
}

/* The paired statistic, robust to the machine's slow phases (every variant
 * runs within each iteration, so a slow phase slows the pair): the median
 * over iterations of this variant's time over the first variant's in the
 * same iteration, and its 95 % interval. ratios is scratch of iters. */
typedef struct {
    double median, low, high;
} paired_t;

static paired_t paired_ratio(const double *slowest, const double *first, int iters, double *ratios)
{
    for (int i = 0; i < iters; ++i) ratios[i] = first[i] > 0 ? slowest[i] / first[i] : 1;
    paired_t r;
    r.median = median_of(ratios, iters);
    const int k = median_interval_inset(iters);  /* at least 1 */
    r.low = ratios[k - 1];
    r.high = ratios[iters - k];
    return r;
}

/* What a variant's row reports besides its times, on rank 0: the late
 * starts summed over the ranks, and the wrong bytes of one validated call
 * on every rank, in the form measured (a nonblocking one from its start to
 * its wait). */
static void validate(const collective_t *coll, const bench_call_t *call, const variant_t *v, int late,
                     int *total_late, int *total_wrong)
{
    bench_call_t check = *call;
    int wrong;

    *total_late = *total_wrong = 0;
    MPI_Reduce(&late, total_late, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    check.comm = v->comm;
    prepare(&check, coll);
    if (coll->start) {
        MPI_Request request;
        coll->start(&check, &request);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
    } else {
        coll->run(&check);
    }
    wrong = coll->check(&check);
    MPI_Reduce(&wrong, total_wrong, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
}

/* One variant's row. slowest and first (the first variant's) are rank 0's
 * per-iteration times; the validated call runs on every rank. */
static void report(const options_t *o, const bench_call_t *call, const variant_t *v, const double *slowest,
                   const double *first, int iters, int late, int clock_start, double *scratch)
{
    const collective_t *coll = o->collective;
    int total_late, total_wrong;
    validate(coll, call, v, late, &total_late, &total_wrong);

    if (call->rank == 0) {
        double sum = 0, min = slowest[0], max = slowest[0];
        for (int i = 0; i < iters; ++i) {
            sum += slowest[i];
            if (slowest[i] < min) min = slowest[i];
            if (slowest[i] > max) max = slowest[i];
        }
        const paired_t paired = paired_ratio(slowest, first, iters, scratch);
        const char *start = clock_start ? "clock" : "barrier";
        const char *valid = !coll->sized ? "-" : total_wrong ? "Fail" : "Pass";
        if (o->variants) printf(o->csv ? "%s," : "%-14s ", v->name);
        memcpy(scratch, slowest, sizeof(double) * (size_t)iters);  /* slowest stays in order: it may be first */
        const double median = median_of(scratch, iters);
        if (o->csv)
            printf("%s,%s,%zu,%.2f,%.2f,%.2f,%d,%s,%d,%.2f,%.4f,%.4f,%.4f\n", coll->name, start, call->bytes,
                   sum / iters * 1e6, min * 1e6, max * 1e6, iters, valid, total_late, median * 1e6, paired.median,
                   paired.low, paired.high);
        else
            printf("%-10zu %-8s %14.2f %14.2f %14.2f %8d %10s %5d %14.2f %8.3f [%.3f, %.3f]\n", call->bytes, start,
                   sum / iters * 1e6, min * 1e6, max * 1e6, iters, valid, total_late, median * 1e6, paired.median,
                   paired.low, paired.high);
        fflush(stdout);
    }
}

/* Warm-up, then the timed iterations, each variant in turn within each
 * iteration, the first one moving on by one at each iteration (a variant
 * that runs right after another one does not always follow the same);
 * times[v * iters + i]. */
static void measure(const options_t *o, bench_call_t *call, const variant_t *variants, int count, int clock_start,
                    double *times, double *slowest, double *scratch)
{
    const collective_t *coll = o->collective;
    const int iters = call->bytes > LARGE_SIZE ? o->large_iters : o->iters;
    const int64_t lead = clock_start ? start_lead() : 0;
    int late[MAX_VARIANTS] = {0}, ignored = 0;
    prepare(call, coll);
    for (int v = 0; v < count; ++v) {
        call->comm = variants[v].comm;
        for (int i = 0; i < o->warmup + variants[v].trial_calls; ++i) timed_call(coll, call, clock_start, lead, &ignored);
    }
    for (int i = 0; i < iters; ++i) {
        for (int k = 0; k < count; ++k) {
            const int v = (i + k) % count;
            call->comm = variants[v].comm;
            times[v * iters + i] = timed_call(coll, call, clock_start, lead, &late[v]);
        }
    }
    /* Ranks done with a call wait in the next call's barrier; so they do
     * after the last one too. Without it, the last call (always the same
     * variant's, for a given number of iterations) ran into the reports'
     * reductions: on one node it took up to 6 times the others, and that
     * variant's average of 10 up to 1.4 times the others'. */
    MPI_Barrier(MPI_COMM_WORLD);
    for (int v = 0; v < count; ++v) slowest_per_iteration(times + v * iters, slowest + v * iters, iters);
    for (int v = 0; v < count; ++v)
        report(o, call, &variants[v], slowest + v * iters, slowest, iters, late[v], clock_start, scratch);
}

/*
 * Nonblocking collectives (-c ialltoall ...), measured as OSU's
 * osu_ialltoall does, per variant and size:
 * - pure:    start and wait with nothing between: the communication's time;
 * - overall: start, a computation of about the pure time (the variant's
 *            median pure time, the same on every rank), wait;
 * - compute: the computation's own time, the MPI_Test calls left out;
 * - test:    the time in -t MPI_Test calls spread over the computation
 *            (OSU's -t). Where nothing else advances a request, as on a
 *            host with more processes than cores, the collective moves only
 *            inside these calls and the wait;
 * - exposed: overall - compute on a rank: the communication the
 *            computation did not hide there, the tests' time included;
 * - overlap: OSU's max(0, 100 (1 - (overall - compute) / pure)), the share
 *            of the communication that the computation hid, as
 *            100 (1 - exposed / pure).
 * Each time is the slowest rank's in an iteration (the maximum over ranks,
 * column by column: exposed is the worst rank's own overall - compute, not
 * the difference of two maxima, which a rank descheduled while it computes
 * would flatter). The table gives the medians over the iterations and the
 * overlap of those medians, then the overlap of the averages (OSU's
 * statistic, though OSU averages over ranks); the CSV gives both sets.
 * Before a variant's timed iterations: one blocking barrier on its
 * communicator (hier gathers the topology at a communicator's first
 * blocking collective, and until then runs Open MPI's nonblocking forms)
 * and 1 + auto_trial_calls blocking calls of the twin at this size (auto
 * then decides the size class as it does for the blocking call).
 */
static volatile double busy_sink;

/* Spins (a dependent chain of multiply-adds, neither vectorised nor
 * removed) until `seconds` have passed since `from`. Bound by the clock,
 * as OSU's loop is, not by a count of rounds calibrated beforehand: with
 * more processes than cores, a rate measured with every rank spinning
 * underestimates a short spell on a core of one's own by several times
 * (a 21 us target took 5 us), and one measured alone overestimates a long
 * one. Time descheduled counts as computation either way. */
static void busy_until(int64_t from, double seconds)
{
    const int64_t until = from + (int64_t)(seconds * 1e9);
    double x = busy_sink;
    do {
        for (int i = 0; i < 100; ++i) x = x * 0.9999999 + 1e-7;
    } while (now_ns() < until);
    busy_sink = x;
}

/* The computation between start and wait: `seconds` in `tests` equal
 * spells (one without tests), MPI_Test after each. Returns its time without
 * the tests', which go to *test_seconds. */
static double compute(double seconds, int tests, MPI_Request *request, double *test_seconds)
{
    const int spells = tests > 0 ? tests : 1;
    int64_t testing = 0;
    const int64_t t0 = now_ns();
    for (int k = 0; k < spells; ++k) {
        busy_until(now_ns(), seconds / spells);
        if (tests) {
            const int64_t t = now_ns();
            int done;
            MPI_Test(request, &done, MPI_STATUS_IGNORE);
            testing += now_ns() - t;
        }
    }
    *test_seconds = testing * 1e-9;
    return (now_ns() - t0 - testing) * 1e-9;
}

static double overlap_percent(double pure, double exposed)
{
    const double overlap = 100 * (1 - exposed / pure);
    return overlap > 0 ? overlap : 0;
}

enum { PURE, OVERALL, COMPUTE, TEST, EXPOSED, KINDS };  /* the times of an iteration */

/* One variant's row; slowest[kind * n + i] are rank 0's per-iteration
 * times (the slowest rank's). The validated call runs on every rank. */
static void report_nonblocking(const options_t *o, const bench_call_t *call, const variant_t *v,
                               const double *slowest, size_t n, int iters, int late, int clock_start,
                               double *scratch)
{
    const collective_t *coll = o->collective;
    int total_late, total_wrong;
    validate(coll, call, v, late, &total_late, &total_wrong);
    if (call->rank != 0) return;

    double avg[KINDS], median[KINDS];
    for (int kind = 0; kind < KINDS; ++kind) {
        double sum = 0;
        for (int i = 0; i < iters; ++i) sum += scratch[i] = slowest[kind * n + i];
        avg[kind] = sum / iters;
        median[kind] = median_of(scratch, iters);
    }
    const double overlap_avg = overlap_percent(avg[PURE], avg[EXPOSED]);
    const double overlap_median = overlap_percent(median[PURE], median[EXPOSED]);
    const char *start = clock_start ? "clock" : "barrier";
    const char *valid = !coll->sized ? "-" : total_wrong ? "Fail" : "Pass";
    if (o->variants) printf(o->csv ? "%s," : "%-14s ", v->name);
    if (o->csv)
        printf("%s,%s,%zu,%d,%d,%s,%d,%.2f,%.2f,%.2f,%.2f,%.2f,%.1f,%.2f,%.2f,%.2f,%.2f,%.2f,%.1f\n", coll->name,
               start, call->bytes, o->tests, iters, valid, total_late, avg[PURE] * 1e6, avg[OVERALL] * 1e6,
               avg[COMPUTE] * 1e6, avg[TEST] * 1e6, avg[EXPOSED] * 1e6, overlap_avg, median[PURE] * 1e6,
               median[OVERALL] * 1e6, median[COMPUTE] * 1e6, median[TEST] * 1e6, median[EXPOSED] * 1e6,
               overlap_median);
    else
        printf("%-10zu %-8s %12.2f %12.2f %12.2f %10.2f %12.2f %7.1f %7.1f %6d %10s %5d\n", call->bytes, start,
               median[PURE] * 1e6, median[OVERALL] * 1e6, median[COMPUTE] * 1e6, median[TEST] * 1e6,
               median[EXPOSED] * 1e6, overlap_median, overlap_avg, iters, valid, total_late);
    fflush(stdout);
}

/* One size of a nonblocking collective: the untimed calls, the pure
 * iterations, then the overall ones, the variants alternating within each
 * iteration as in measure. */
static void measure_nonblocking(const options_t *o, bench_call_t *call, const variant_t *variants, int count,
                                int clock_start, double *scratch)
{
    const collective_t *coll = o->collective;
    const int iters = call->bytes > LARGE_SIZE ? o->large_iters : o->iters;
    const int64_t lead = clock_start ? start_lead() : 0;
    const size_t n = (size_t)count * (size_t)iters;  /* times of one kind: [v * iters + i] */
    double *mine = calloc(KINDS * n, sizeof *mine), *slowest = calloc(KINDS * n, sizeof *slowest);
    double target[MAX_VARIANTS];  /* each variant's computation, in seconds */
    int late[MAX_VARIANTS] = {0}, ignored = 0;
    MPI_Request request;
    if (!mine || !slowest) usage_exit("out of memory");
    prepare(call, coll);
    for (int v = 0; v < count; ++v) {
        call->comm = variants[v].comm;
        MPI_Barrier(call->comm);
        for (int i = 0; i <= variants[v].trial_calls; ++i) coll->run(call);
        for (int i = 0; i < o->warmup; ++i) {
            begin_iteration(call->comm, clock_start, lead, &ignored);
            coll->start(call, &request);
            MPI_Wait(&request, MPI_STATUS_IGNORE);
        }
    }
    for (int i = 0; i < iters; ++i)
        for (int k = 0; k < count; ++k) {
            const int v = (i + k) % count;
            call->comm = variants[v].comm;
            const int64_t start = begin_iteration(call->comm, clock_start, lead, &late[v]);
            coll->start(call, &request);
            MPI_Wait(&request, MPI_STATUS_IGNORE);
            mine[PURE * n + (size_t)v * iters + i] = (now_ns() - start) * 1e-9;
        }
    MPI_Barrier(MPI_COMM_WORLD);  /* as in measure: the last call does not run into the reduction */
    MPI_Reduce(mine + PURE * n, slowest + PURE * n, (int)n, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (call->rank == 0)
        for (int v = 0; v < count; ++v) {
            memcpy(scratch, slowest + PURE * n + (size_t)v * iters, sizeof(double) * (size_t)iters);
            target[v] = median_of(scratch, iters);
        }
    MPI_Bcast(target, count, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int i = 0; i < iters; ++i)
        for (int k = 0; k < count; ++k) {
            const int v = (i + k) % count;
            const size_t at = (size_t)v * iters + i;
            call->comm = variants[v].comm;
            const int64_t start = begin_iteration(call->comm, clock_start, lead, &late[v]);
            coll->start(call, &request);
            mine[COMPUTE * n + at] = compute(target[v], o->tests, &request, &mine[TEST * n + at]);
            MPI_Wait(&request, MPI_STATUS_IGNORE);
            mine[OVERALL * n + at] = (now_ns() - start) * 1e-9;
            mine[EXPOSED * n + at] = mine[OVERALL * n + at] - mine[COMPUTE * n + at];
        }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Reduce(mine + OVERALL * n, slowest + OVERALL * n, (int)((KINDS - OVERALL) * n), MPI_DOUBLE, MPI_MAX, 0,
               MPI_COMM_WORLD);
    for (int v = 0; v < count; ++v)
        report_nonblocking(o, call, &variants[v], slowest + (size_t)v * iters, n, iters, late[v], clock_start,
                           scratch);
    free(slowest);
    free(mine);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const options_t o = parse_options(argc, argv);
    bench_call_t call = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &call.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &call.size);
    call.root = o.root;
    if (o.root < 0 || o.root >= call.size) usage_exit("-r must name a rank");
    int count;
    variant_t *variants = create_variants(&o, &count);

    size_t max_bytes = 0;
    for (int k = 0; k < o.size_count; ++k)
        if (o.sizes[k] > max_bytes) max_bytes = o.sizes[k];
    const size_t most = max_bytes * (size_t)call.size + sizeof(int);
    const int most_iters = o.iters > o.large_iters ? o.iters : o.large_iters;
    call.send = malloc(most);
    call.recv = malloc(most);
    call.counts = malloc(sizeof(int) * (size_t)call.size);
    call.displs = malloc(sizeof(int) * (size_t)call.size);
    double *times = malloc(sizeof(double) * (size_t)most_iters * (size_t)count);
    double *slowest = malloc(sizeof(double) * (size_t)most_iters * (size_t)count);
    double *scratch = malloc(sizeof(double) * (size_t)most_iters);
    if (!call.send || !call.recv || !call.counts || !call.displs || !times || !slowest || !scratch)
        usage_exit("out of memory");

    const int nonblocking = o.collective->start != NULL;
    if (call.rank == 0) {
        const char *variant_column = o.variants ? (o.csv ? "variant," : "# Variant      ") : "";
        if (nonblocking && o.csv)
            printf("%scollective,start,size,tests,iterations,validation,late,pure_avg_us,overall_avg_us,"
                   "compute_avg_us,test_avg_us,exposed_avg_us,overlap_avg,pure_median_us,overall_median_us,"
                   "compute_median_us,test_median_us,exposed_median_us,overlap_median\n", variant_column);
        else if (nonblocking)
            printf("# hier_bench %s, %d ranks, %d MPI_Test calls in the computation (times: the slowest rank per\n"
                   "# iteration, median over the iterations; Exposed: overall - compute on a rank; Ovl: overlap %%,\n"
                   "# 100 (1 - exposed / pure), of the medians, and of the averages)\n"
                   "%s%-10s %-8s %12s %12s %12s %10s %12s %7s %7s %6s %10s %5s\n", o.collective->name, call.size,
                   o.tests, variant_column, o.variants ? "Size(B)" : "# Size(B)", "Start", "Pure(us)", "Overall(us)",
                   "Compute(us)", "Test(us)", "Exposed(us)", "Ovl(%)", "Ovl.avg", "Iters", "Validation", "Late");
        else if (o.csv)
            printf("%scollective,start,size,avg_us,min_us,max_us,iterations,validation,late,median_us,"
                   "over_first,over_first_low,over_first_high\n", variant_column);
        else
            printf("# hier_bench %s, %d ranks (times: the slowest rank per iteration)\n"
                   "%s%-10s %-8s %14s %14s %14s %8s %10s %5s %14s %8s [95 %%]\n", o.collective->name, call.size,
                   variant_column, o.variants ? "Size(B)" : "# Size(B)", "Start", "Avg(us)", "Min(us)", "Max(us)",
                   "Iters", "Validation", "Late", "Median(us)", "/first");
    }
    for (int k = 0; k < o.size_count; ++k) {
        call.bytes = o.sizes[k];
        for (int clock_start = 0; clock_start <= 1; ++clock_start) {
            if (!(clock_start ? o.clock_start : o.barrier_start)) continue;
            if (nonblocking)
                measure_nonblocking(&o, &call, variants, count, clock_start, scratch);
            else
                measure(&o, &call, variants, count, clock_start, times, slowest, scratch);
        }
    }
    for (int v = 0; v < count; ++v)
        if (variants[v].comm != MPI_COMM_WORLD) MPI_Comm_free(&variants[v].comm);
    free(variants);
    free(scratch);
    free(slowest);
    free(times);
    free(call.displs);
    free(call.counts);
    free(call.recv);
    free(call.send);
    MPI_Finalize();
    return 0;
}
