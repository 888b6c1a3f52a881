/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// hier_smpi: coll/hier's own schedules on a machine simulated by SimGrid's
// SMPI. The program links the core (libhiercore) and goes through its C face
// (hier_core.h) as the component does: the settings parsed once, one core
// communicator per rank, hier_comm_decide per call, hier_execute over a
// transport of MPI_Isend, MPI_Irecv, MPI_Waitall and memmove. Where the
// decision is the fallback, the call goes to MPI's own collective, which in
// SMPI is the algorithm of the selector named by --cfg=smpi/<coll>:NAME
// (ompi: Open MPI's tuned decision, as the component hands the call to tuned).
//
//   smpirun ... ./hier_smpi [options]
//     -c COLL     alltoall (default), allgather, scatter, gather, allreduce, barrier
//     -m SIZES    bytes per block: a list (16,256) or MIN:MAX, powers of two (default 1:1024)
//     -a ALG      auto (default), fallback, a registry row of COLL, or mpi (MPI's own
//                 collective only, no hier communicator at all)
//     -i ITERS    timed calls per size (default 5)
//     -x WARMUP   untimed calls per size before them (default 1)
//     -C MAP      coll_hier_cluster_map (e.g. node counts "32,32")
//     -L COSTS    coll_hier_link_costs (e.g. "node=0.1us:50GB/s:0ns,network=4us:12.5GB/s:0ns")
//     -T DIMS     coll_hier_torus_dims (e.g. 8x8x8)
//     -K COST     coll_hier_cost (e.g. file:PATH, a cost matrix of the ranks or nodes)
//     -W WINDOW   coll_hier_window (default 1)
//     -v LEVEL    hier's verbose level for the decision lines (default 1)
//
// Rank 0 prints one CSV line per size (header first) on stdout:
//   collective,size,requested,chosen,avg_us,min_us,max_us,iterations,late,validation,reason
// Every call starts at one simulated instant on every rank (common_start);
// its time is the slowest rank's return less that instant; avg_us is its
// mean over the timed calls, min_us and max_us its extremes, late the most
// calls any rank started after the instant. Every call, warm-up
// included, is validated byte for byte: each block holds a pattern of
// (sender, receiver, byte index), the receive buffer is reset to 0x00 or
// 0xff (alternately) before each call, so a byte never written fails one of
// two calls. validation is "ok" or "FAILED (up to n bad blocks a rank)".
//
// Ranks of one simulated process (--cfg=smpi/privatization:no) share what
// does not depend on the rank, built once: the parsed settings, the node of
// every rank (from MPI_Get_processor_name), the tables the ranks agree
// through. With privatization each rank builds its own and agrees through
// MPI (slower, same results). HIER_SMPI_PROFILE=1 prints this machine's
// wall time per phase, summed over the ranks.
#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <string>
#include <vector>

#include "hier_core.h"

// smpi_helpers.h makes clock_gettime the simulated clock: the wall times
// HIER_SMPI_PROFILE prints are this machine's.
#undef clock_gettime

namespace {

struct Options {
    std::string collective = "alltoall";
    std::string sizes = "1:1024";
    std::string algorithm = "auto";
    int iterations = 5;
    int warmup = 1;
    std::string cluster_map, link_costs, torus_dims, cost;
    int window = 1;
    int verbose = 1;
};

// What every rank of the process shares, built by the first rank that gets
// here (SMPI's ranks of one process run one at a time, never concurrently).
struct Shared {
    int size = 0;
    std::vector<std::string> names;     // host of each rank
    std::vector<int> node_of_rank;      // filled once every name is in
    hier_settings_t *settings = nullptr;
    std::vector<double> seconds, late;  // per rank: what max_over_ranks agrees on
    std::vector<int> bad;               // per rank, blocks wrong in the current size
    int names_in = 0;
    // Wall seconds (this machine's, all ranks summed) per phase, for -P.
    double wall[5] = {0, 0, 0, 0, 0};
};
const char *const kPhases[5] = {"setup", "communicator", "decide", "calls", "validate"};

double wall_now()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}
Shared *shared_state = nullptr;

double now() { return MPI_Wtime(); }

// The byte pattern: block of sender s for receiver r holds, at byte k,
// (h(s, r) + k) mod 256. ramp[i] = i mod 256 for i < kRamp, so an expected
// block is ramp + h.
uint32_t pattern_start(int s, int r)
{
    uint32_t h = uint32_t(s) * 2654435761u ^ (uint32_t(r) + 0x9e3779b9u) * 40503u;
    h ^= h >> 13;
    return h & 0xff;
}

struct Rank;

// The transport the core runs schedules over (hier_core.h).
struct Transport {
    MPI_Comm comm = MPI_COMM_WORLD;
    char *base[3] = {nullptr, nullptr, nullptr};   // SEND, RECV, TMP
    size_t block = 0;
    int tag = 4242;
    bool reduce_int64 = false;
    std::vector<MPI_Request> requests;
    size_t head = 0;   // oldest request not completed
};

int post_send(void *ctx, int peer, hier_buffer_t buf, size_t first, size_t count)
{
    auto *t = static_cast<Transport *>(ctx);
    t->requests.emplace_back();
    return MPI_Isend(t->base[buf] + first * t->block, int(count * t->block), MPI_BYTE, peer, t->tag, t->comm,
                     &t->requests.back());
}

int post_recv(void *ctx, int peer, hier_buffer_t buf, size_t first, size_t count)
{
    auto *t = static_cast<Transport *>(ctx);
    t->requests.emplace_back();
    return MPI_Irecv(t->base[buf] + first * t->block, int(count * t->block), MPI_BYTE, peer, t->tag, t->comm,
                     &t->requests.back());
}

int complete(void *ctx, size_t count, int blocking, int *done)
{
    auto *t = static_cast<Transport *>(ctx);
    int rc = MPI_SUCCESS;
    if (count == 0) {
        if (done) *done = 1;
        return 0;
    }
    if (blocking) {
        // One MPI_Wait per request, in posting order: the same simulated
        // instant as MPI_Waitall (the last completion; no compute is
        // charged between), but SMPI's MPI_Waitall is a loop of waitany over
        // every request left, whose bookkeeping costs this machine
        // O(count^2) per call (most of the wall time at 256 ranks).
        for (size_t k = 0; k < count && rc == MPI_SUCCESS; ++k)
            rc = MPI_Wait(&t->requests[t->head + k], MPI_STATUS_IGNORE);
        if (done) *done = 1;
    } else {
        int flag = 0;
        rc = MPI_Testall(int(count), t->requests.data() + t->head, &flag, MPI_STATUSES_IGNORE);
        *done = flag;
        if (!flag) return rc;
    }
    t->head += count;
    if (t->head == t->requests.size()) {
        t->requests.clear();
        t->head = 0;
    }
    return rc;
}

int copy(void *ctx, hier_buffer_t src, size_t src_first, hier_buffer_t dst, size_t dst_first, size_t count)
{
    auto *t = static_cast<Transport *>(ctx);
    char *from = t->base[src] + src_first * t->block, *to = t->base[dst] + dst_first * t->block;
    if (from != to) memmove(to, from, count * t->block);
    return 0;
}

int reduce(void *ctx, hier_buffer_t src, size_t src_first, hier_buffer_t dst, size_t dst_first, size_t count)
{
    auto *t = static_cast<Transport *>(ctx);
    return MPI_Reduce_local(t->base[src] + src_first * t->block, t->base[dst] + dst_first * t->block,
                            int(count * t->block / 8), MPI_LONG_LONG, MPI_SUM);
}

int agree_max(void *, double *values, int count)
{
    return MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

bool parse_op(const std::string &name, hier_op_t *op)
{
    for (int o = 0; o < HIER_OP_COUNT; ++o) {
        if (name == hier_op_name(hier_op_t(o)) && o != HIER_OP_ALLTOALLV) {
            *op = hier_op_t(o);
            return true;
        }
    }
    return false;
}

std::vector<size_t> parse_sizes(const std::string &text)
{
    std::vector<size_t> sizes;
    size_t colon = text.find(':');
    if (colon != std::string::npos) {
        size_t lo = strtoull(text.c_str(), nullptr, 10), hi = strtoull(text.c_str() + colon + 1, nullptr, 10);
        for (size_t s = std::max<size_t>(lo, 1); s <= hi; s *= 2) sizes.push_back(s);
        if (lo == 0) sizes.insert(sizes.begin(), 0);
        return sizes;
    }
    const char *p = text.c_str();
    while (*p) {
        char *end;
        sizes.push_back(strtoull(p, &end, 10));
        p = *end == ',' ? end + 1 : end;
        if (end == p && *p) break;
    }
    return sizes;
}

// Buffers of one call of op at block bytes b on p ranks: blocks of SEND and
// RECV (hier_core.h's contract).
void buffer_blocks(hier_op_t op, int p, int rank, int root, size_t *send_blocks, size_t *recv_blocks)
{
    switch (op) {
    case HIER_OP_ALLTOALL: *send_blocks = p, *recv_blocks = p; break;
    case HIER_OP_SCATTER: *send_blocks = rank == root ? p : 0, *recv_blocks = 1; break;
    case HIER_OP_GATHER: *send_blocks = 1, *recv_blocks = rank == root ? p : 0; break;
    case HIER_OP_ALLGATHER: *send_blocks = 1, *recv_blocks = p; break;
    case HIER_OP_ALLREDUCE: *send_blocks = 1, *recv_blocks = 1; break;
    default: *send_blocks = 0, *recv_blocks = 0; break;
    }
}

const unsigned char *ramp()
{
    static unsigned char r[1 << 20];
    static bool made = false;
    if (!made) {
        for (size_t i = 0; i < sizeof r; ++i) r[i] = (unsigned char)(i & 0xff);
        made = true;
    }
    return r;
}

void fill_block(unsigned char *to, int s, int r, size_t b)
{
    const unsigned char *src = ramp() + pattern_start(s, r);
    while (b > 0) {
        size_t n = std::min<size_t>(b, (1 << 20) - 256);
        memcpy(to, src, n);
        to += n, b -= n;   // n is a multiple of 256 or the rest: the ramp continues
    }
}

bool block_ok(const unsigned char *at, int s, int r, size_t b)
{
    const unsigned char *src = ramp() + pattern_start(s, r);
    while (b > 0) {
        size_t n = std::min<size_t>(b, (1 << 20) - 256);
        if (memcmp(at, src, n) != 0) return false;
        at += n, b -= n;
    }
    return true;
}

// Fills this rank's SEND for op.
void fill_send(hier_op_t op, int p, int rank, int root, size_t b, unsigned char *send)
{
    switch (op) {
    case HIER_OP_ALLTOALL:
        for (int j = 0; j < p; ++j) fill_block(send + j * b, rank, j, b);
        break;
    case HIER_OP_SCATTER:
        if (rank == root)
            for (int j = 0; j < p; ++j) fill_block(send + j * b, root, j, b);
        break;
    case HIER_OP_GATHER: fill_block(send, rank, root, b); break;
    case HIER_OP_ALLGATHER: fill_block(send, rank, 0, b); break;
    case HIER_OP_ALLREDUCE: {
        auto *v = reinterpret_cast<long long *>(send);
        for (size_t i = 0; i < b / 8; ++i) v[i] = (long long)rank * 1000003 + (long long)i;
        break;
    }
    default: break;
    }
}

// Blocks of RECV that do not hold what they should.
int check_recv(hier_op_t op, int p, int rank, int root, size_t b, const unsigned char *recv)
{
    int bad = 0;
    switch (op) {
    case HIER_OP_ALLTOALL:
        for (int j = 0; j < p; ++j) bad += !block_ok(recv + j * b, j, rank, b);
        break;
    case HIER_OP_SCATTER: bad += !block_ok(recv, root, rank, b); break;
    case HIER_OP_GATHER:
        if (rank == root)
            for (int j = 0; j < p; ++j) bad += !block_ok(recv + j * b, j, root, b);
        break;
    case HIER_OP_ALLGATHER:
        for (int j = 0; j < p; ++j) bad += !block_ok(recv + j * b, j, 0, b);
        break;
    case HIER_OP_ALLREDUCE: {
        auto *v = reinterpret_cast<const long long *>(recv);
        long long pp = p, ranks_sum = pp * (pp - 1) / 2 * 1000003;
        for (size_t i = 0; i < b / 8; ++i)
            if (v[i] != ranks_sum + pp * (long long)i) {
                ++bad;
                break;
            }
        break;
    }
    default: break;
    }
    return bad;
}

// MPI's own collective (SMPI's selector's algorithm).
int run_mpi(hier_op_t op, int root, size_t b, void *send, void *recv)
{
    int n = int(b);
    switch (op) {
    case HIER_OP_ALLTOALL: return MPI_Alltoall(send, n, MPI_BYTE, recv, n, MPI_BYTE, MPI_COMM_WORLD);
    case HIER_OP_SCATTER: return MPI_Scatter(send, n, MPI_BYTE, recv, n, MPI_BYTE, root, MPI_COMM_WORLD);
    case HIER_OP_GATHER: return MPI_Gather(send, n, MPI_BYTE, recv, n, MPI_BYTE, root, MPI_COMM_WORLD);
    case HIER_OP_ALLGATHER: return MPI_Allgather(send, n, MPI_BYTE, recv, n, MPI_BYTE, MPI_COMM_WORLD);
    case HIER_OP_ALLREDUCE: return MPI_Allreduce(send, recv, n / 8, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    case HIER_OP_BARRIER: return MPI_Barrier(MPI_COMM_WORLD);
    default: return MPI_ERR_OTHER;
    }
}

// A dissemination barrier of MPI_Sendrecv (ceil(log2 p) rounds): SMPI's
// default MPI_Barrier and MPI_Reduce gather at one rank with a waitall over
// p requests, which costs this machine O(p^2) per call (as much wall time as
// a 512-rank alltoall); this one costs O(p log p) and no rank leaves before
// every rank has entered.
void barrier(int rank, int p)
{
    char out = 0, in = 0;
    for (int d = 1; d < p; d *= 2)
        MPI_Sendrecv(&out, 1, MPI_BYTE, (rank + d) % p, 4243, &in, 1, MPI_BYTE, (rank - d + p) % p, 4243,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

// The largest of every rank's value, at every rank: through the process's
// shared table when the ranks share one (two barriers), else MPI_Allreduce.
double max_over_ranks(Shared &sh, bool shared, int rank, int p, double mine)
{
    if (!shared) {
        double all = 0;
        MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        return all;
    }
    sh.seconds[rank] = mine;
    barrier(rank, p);
    double all = *std::max_element(sh.seconds.begin(), sh.seconds.end());
    barrier(rank, p);
    return all;
}

// The pair (largest of a, largest of b) over the ranks, as max_over_ranks.
void max2_over_ranks(Shared &sh, bool shared, int rank, int p, double *a, double *b)
{
    if (!shared) {
        double v[2] = {*a, *b}, all[2];
        MPI_Allreduce(v, all, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        *a = all[0], *b = all[1];
        return;
    }
    sh.seconds[rank] = *a;
    sh.late[rank] = *b;
    barrier(rank, p);
    *a = *std::max_element(sh.seconds.begin(), sh.seconds.end());
    *b = *std::max_element(sh.late.begin(), sh.late.end());
    barrier(rank, p);
}

// hier_bench's clock start: every rank starts the call at one simulated
// instant T, a barrier and two agreements after the last rank left a
// barrier, with room for four more barriers (the slowest seen). Returns T;
// *late: this rank was past T already (T then starts it late, and the call
// is counted late).
double common_start(Shared &sh, bool shared, int rank, int p, bool *late)
{
    double in = now();
    barrier(rank, p);
    double exit = now(), span = exit - in;
    max2_over_ranks(sh, shared, rank, p, &exit, &span);
    double start = exit + 4 * span + 1e-6, t = now();
    *late = t > start;
    if (t < start) {
        timespec ts;
        double wait = start - t;
        ts.tv_sec = time_t(wait);
        ts.tv_nsec = long((wait - double(ts.tv_sec)) * 1e9);
        nanosleep(&ts, nullptr);   // SMPI's: simulated time passes, nothing else
    }
    return start;
}

int usage()
{
    fprintf(stderr, "usage: hier_smpi [-c COLL] [-m SIZES] [-a ALG] [-i ITERS] [-x WARMUP] [-C MAP] [-L COSTS] "
                    "[-T DIMS] [-K COST] [-W WINDOW] [-v LEVEL]\n");
    return 2;
}

} // namespace

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    Options o;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a.size() != 2 || a[0] != '-' || i + 1 >= argc) {
            if (rank == 0) usage();
            MPI_Finalize();
            return 2;
        }
        std::string v = argv[++i];
        switch (a[1]) {
        case 'c': o.collective = v; break;
        case 'm': o.sizes = v; break;
        case 'a': o.algorithm = v; break;
        case 'i': o.iterations = atoi(v.c_str()); break;
        case 'x': o.warmup = atoi(v.c_str()); break;
        case 'C': o.cluster_map = v; break;
        case 'L': o.link_costs = v; break;
        case 'T': o.torus_dims = v; break;
        case 'K': o.cost = v; break;
        case 'W': o.window = atoi(v.c_str()); break;
        case 'v': o.verbose = atoi(v.c_str()); break;
        default:
            if (rank == 0) usage();
            MPI_Finalize();
            return 2;
        }
    }
    hier_op_t op;
    if (!parse_op(o.collective, &op)) {
        if (rank == 0) fprintf(stderr, "hier_smpi: -c %s: not a collective hier_smpi runs\n", o.collective.c_str());
        MPI_Finalize();
        return 2;
    }
    const bool mpi_only = o.algorithm == "mpi";
    int requested = HIER_ALG_AUTO;
    if (!mpi_only) {
        requested = -1;
        for (int id = 0; id < hier_algorithm_count(op); ++id)
            if (o.algorithm == hier_algorithm_name(op, id)) requested = id;
        if (requested < 0) {
            if (rank == 0) fprintf(stderr, "hier_smpi: -a %s: no such row of %s\n", o.algorithm.c_str(), o.collective.c_str());
            MPI_Finalize();
            return 2;
        }
    }
    std::vector<size_t> sizes = parse_sizes(o.sizes);
    if (op == HIER_OP_ALLREDUCE)
        for (auto &s : sizes) s = std::max<size_t>(8, (s + 7) / 8 * 8);
    if (op == HIER_OP_BARRIER) sizes = {0};
    const int root = 0;
    double w0 = wall_now();

    // The shared state: names, nodes, settings, built once per process.
    char name[MPI_MAX_PROCESSOR_NAME] = {0};
    int len = 0;
    MPI_Get_processor_name(name, &len);
    if (shared_state == nullptr) {
        shared_state = new Shared;
        shared_state->size = p;
        shared_state->names.resize(p);
        shared_state->seconds.assign(p, 0);
        shared_state->late.assign(p, 0);
        shared_state->bad.assign(p, 0);
    }
    Shared &sh = *shared_state;
    sh.names[rank] = name;
    ++sh.names_in;
    barrier(rank, p);
    const bool shared = sh.names_in == p;   // one process, unprivatized: the table is everyone's
    if (!shared) {
        // Privatized: this rank sees only its own copy; gather the names.
        std::vector<char> all(size_t(p) * HIER_HOST_NAME_WIDTH, 0), mine(HIER_HOST_NAME_WIDTH, 0);
        strncpy(mine.data(), name, HIER_HOST_NAME_WIDTH - 1);
        MPI_Allgather(mine.data(), HIER_HOST_NAME_WIDTH, MPI_CHAR, all.data(), HIER_HOST_NAME_WIDTH, MPI_CHAR,
                      MPI_COMM_WORLD);
        for (int r = 0; r < p; ++r) sh.names[r] = &all[size_t(r) * HIER_HOST_NAME_WIDTH];
        sh.names_in = p;
    }
    if (sh.node_of_rank.empty()) {
        std::map<std::string, int> ids;
        sh.node_of_rank.resize(p);
        for (int r = 0; r < p; ++r) sh.node_of_rank[r] = ids.emplace(sh.names[r], int(ids.size())).first->second;
    }
    if (!mpi_only && sh.settings == nullptr) {
        hier_settings_input_t in = {};
        in.cluster_map = o.cluster_map.empty() ? nullptr : o.cluster_map.c_str();
        in.torus_dims = o.torus_dims.empty() ? nullptr : o.torus_dims.c_str();
        in.link_costs = o.link_costs.c_str();   // "" = every class unknown: never probe in SMPI
        in.cost = o.cost.empty() ? nullptr : o.cost.c_str();
        in.tcp_eager_limit = 65536;             // SMPI's smpi/send-is-detached-thresh
        in.backbone_piece = -1;                 // the transport below sends whole messages
        in.world_size = p;
        in.in_use = 1;
        sh.settings = hier_settings_create(&in);
        int in_use_only;
        for (int k = 0; rank == 0 && sh.settings && hier_settings_problem(sh.settings, k, &in_use_only); ++k)
            fprintf(stderr, "hier_smpi: %s\n", hier_settings_problem(sh.settings, k, &in_use_only));
    }
    hier_comm_t *comm = nullptr;
    sh.wall[0] += wall_now() - w0;
    w0 = wall_now();
    if (!mpi_only) {
        hier_comm_input_t in = {};
        in.settings = sh.settings;
        in.size = p;
        in.rank = rank;
        in.node_of_rank = sh.node_of_rank.data();
        in.job_wide = 1;
        in.world_size = p;
        in.window = o.window;
        in.agree_max = agree_max;
        char err[512] = {0};
        comm = hier_comm_create(&in, err, sizeof err, nullptr);
        if (comm == nullptr) {
            if (rank == 0) fprintf(stderr, "hier_smpi: no hier communicator: %s\n", err[0] ? err : "out of memory");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (rank == 0 && o.verbose >= 1)
            fprintf(stderr, "hier_smpi: %d ranks, %d nodes, %d clusters\n", p, hier_comm_node_count(comm),
                    hier_comm_cluster_count(comm));
    }
    sh.wall[1] += wall_now() - w0;
    barrier(rank, p);

    if (rank == 0) printf("collective,size,requested,chosen,avg_us,min_us,max_us,iterations,late,validation,reason\n");
    Transport t;
    hier_transport_t table = {&t, post_send, post_recv, complete, copy, reduce};
    for (size_t b : sizes) {
        size_t sb, rb;
        buffer_blocks(op, p, rank, root, &sb, &rb);
        std::vector<unsigned char> send(std::max<size_t>(sb * b, 1)), recv(std::max<size_t>(rb * b, 1));
        fill_send(op, p, rank, root, b, send.data());
        hier_decision_t d;
        memset(&d, 0, sizeof d);
        const hier_schedule_t *schedule = nullptr;
        int window = o.window, chosen = HIER_ALG_FALLBACK;
        w0 = wall_now();
        char reason_text[512] = "";
        std::string predictions;
        if (!mpi_only) {
            hier_comm_decide(comm, op, requested, root, b, nullptr, 0, o.verbose, &d);
            schedule = d.schedule;
            chosen = d.chosen;
            window = d.window;
            hier_comm_explain(comm, op, &d, nullptr, 0, reason_text, sizeof reason_text);
            const char *said = hier_comm_predictions(comm);   // NULL when none is kept
            predictions = said ? said : "";
        }
        sh.wall[2] += wall_now() - w0;
        std::vector<unsigned char> tmp(schedule ? std::max<size_t>(hier_schedule_tmp_blocks(schedule) * b, 1) : 1);
        t.base[HIER_BUF_SEND] = reinterpret_cast<char *>(send.data());
        t.base[HIER_BUF_RECV] = reinterpret_cast<char *>(recv.data());
        t.base[HIER_BUF_TMP] = reinterpret_cast<char *>(tmp.data());
        t.block = b;
        int bad = 0, late_calls = 0;
        std::vector<double> times;
        for (int it = 0; it < o.warmup + o.iterations; ++it) {
            if (rb) memset(recv.data(), it % 2 ? 0xff : 0x00, recv.size());
            bool late = false;
            double t0 = common_start(sh, shared, rank, p, &late);
            late_calls += late;
            w0 = wall_now();
            int rc = schedule ? hier_execute(schedule, &table, window) : run_mpi(op, root, b, send.data(), recv.data());
            double t1 = now();
            sh.wall[3] += wall_now() - w0;   // with every other rank's time while this one waited
            w0 = wall_now();
            if (rc != 0) {
                fprintf(stderr, "hier_smpi: rank %d: size %zu: error %d\n", rank, b, rc);
                ++bad;
            }
            bad += check_recv(op, p, rank, root, b, recv.data());
            sh.wall[4] += wall_now() - w0;
            double slowest = max_over_ranks(sh, shared, rank, p, t1) - t0;
            if (it >= o.warmup) times.push_back(slowest);
        }
        // Any wrong block anywhere (a count would need a sum; the largest
        // count over the ranks says as much: 0 or not).
        double bad_most = bad, late_most = late_calls;
        max2_over_ranks(sh, shared, rank, p, &bad_most, &late_most);
        int bad_total = int(bad_most);
        if (rank == 0) {
            double sum = 0, lo = 1e30, hi = 0;
            for (double x : times) sum += x, lo = std::min(lo, x), hi = std::max(hi, x);
            const char *chosen_name = mpi_only ? "mpi" : hier_algorithm_name(op, chosen);
            std::string reason = reason_text;
            std::replace(reason.begin(), reason.end(), ',', ';');
            char validation[64];
            if (op == HIER_OP_BARRIER) snprintf(validation, sizeof validation, "ok (no data)");
            else if (bad_total == 0) snprintf(validation, sizeof validation, "ok");
            else snprintf(validation, sizeof validation, "FAILED (up to %d bad blocks a rank)", bad_total);
            printf("%s,%zu,%s,%s,%.2f,%.2f,%.2f,%zu,%d,%s,%s\n", o.collective.c_str(), b, o.algorithm.c_str(),
                   chosen_name, sum / times.size() * 1e6, lo * 1e6, hi * 1e6, times.size(), int(late_most), validation,
                   reason.c_str());
            if (!mpi_only && o.verbose >= 2 && !predictions.empty())
                fprintf(stderr, "hier_smpi: %s %zu B: %s\n", o.collective.c_str(), b, predictions.c_str());
            fflush(stdout);
        }
    }
    if (comm) hier_comm_destroy(comm);
    barrier(rank, p);
    if (rank == 0 && getenv("HIER_SMPI_PROFILE")) {
        // Ranks run one at a time in one process: a phase's sum over the
        // ranks is this machine's time in it (calls: SMPI's too).
        for (int k = 0; k < 5; ++k) fprintf(stderr, "hier_smpi: wall %s %.2f s\n", kPhases[k], sh.wall[k]);
    }
    MPI_Finalize();
    return 0;
}
