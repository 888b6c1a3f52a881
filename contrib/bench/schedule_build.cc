/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// schedule_build: how long building one rank's schedule of every alltoall
// row takes, and how much memory it holds, at p = 1,024, 4,096 and 16,384
// (the project's scale: schedules built once per communicator, O(p) memory
// per rank). Not a test: it prints a table and checks nothing
// (docs/schedule-scale.md has a run).
//
// Layouts, per p:
//   uneven   N = round(p / 112) nodes of consecutive ranks, node i starting
//            at 96 + (7 i mod 33) ranks, then evened out one rank at a time
//            (node 0, 1, ... round-robin, staying within 96..128) until the
//            sizes sum to p;
//   16       p / 16 nodes of 16 (and one of p mod 16);
//   16x4     the same nodes in 4 clusters of N / 4 consecutive nodes (the
//            last takes the rest); 16xC for C clusters (not run by default).
// The topology is made as hier_comm_create (core/capi.cc) makes it: the
// Topology, then coll_hier_cost's default (locality) through
// costs_from_source, and beside it the Plans of
// coll_hier_hypercube_embedding's default (auto). Each of those steps is
// timed apart ("(topology)", "(costs)"), and so is the hypercube embedding
// ("(hypercube plan)"), which the plans build at the first hypercube
// schedule and keep. auto's embedding (refine, which
// weighs every pair of ranks many times) takes minutes at p = 16,384: it is
// measured up to p = 4,096 unless -E says otherwise; above, the plan is the
// blind embedding's (what auto chose on every layout here where it ran) and
// the notes say so.
//
// Per row that applies: wall clock (steady_clock) of building rank 0's
// schedule and a middle rank's (p / 2), the median of -r repetitions; the
// schedule's own bytes (ops and rounds, vector capacities, and the object);
// the peak of heap bytes live during the build, above what was live before
// (operator new, counted here); and the growth of the process's peak RSS
// over the build (VmHWM after, minus VmRSS before, the peak reset through
// /proc/self/clear_refs first). The digest is a hash of the middle rank's
// schedule, to tell that a change to a builder left its schedules alone.
//
// Usage: schedule_build [-p 1024,4096,16384] [-l uneven,16,16x4]
//                       [-a row,row,...|topology] [-r REPS] [-e EMBEDDING] [-E P]
// -a takes alltoall row names and "topology" (the topology steps alone);
// -e another coll_hier_hypercube_embedding than auto (e.g. blind);
// -E the largest p at which auto's embedding is measured (default 4096).
#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include "algorithms.h"
#include "cost.h"
#include "embedding.h"
#include "hypercube.h"
#include "registry.h"
#include "schedule.h"
#include "topology.h"

// Heap accounting: every operator new and delete of the program (the core's
// vectors among them) adds and subtracts the block's usable size.
namespace {
std::atomic<long long> g_live{0};
std::atomic<long long> g_peak{0};

void *counted_alloc(size_t bytes)
{
    void *ptr = std::malloc(bytes ? bytes : 1);
    if (!ptr) {
        throw std::bad_alloc();
    }
    const long long live = g_live += (long long)malloc_usable_size(ptr);
    long long peak = g_peak.load();
    while (live > peak && !g_peak.compare_exchange_weak(peak, live)) {
    }
    return ptr;
}

void counted_free(void *ptr)
{
    if (ptr) {
        g_live -= (long long)malloc_usable_size(ptr);
        std::free(ptr);
    }
}
} // namespace

void *operator new(size_t bytes) { return counted_alloc(bytes); }
void *operator new[](size_t bytes) { return counted_alloc(bytes); }
void operator delete(void *ptr) noexcept { counted_free(ptr); }
void operator delete[](void *ptr) noexcept { counted_free(ptr); }
void operator delete(void *ptr, size_t) noexcept { counted_free(ptr); }
void operator delete[](void *ptr, size_t) noexcept { counted_free(ptr); }

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// A field of /proc/self/status in kB, or -1.
long status_kb(const char *field)
{
    std::ifstream status("/proc/self/status");
    std::string line;
    const size_t length = std::strlen(field);
    while (std::getline(status, line)) {
        if (line.compare(0, length, field) == 0 && line.size() > length && line[length] == ':') {
            return std::strtol(line.c_str() + length + 1, nullptr, 10);
        }
    }
    return -1;
}

// Peak memory over one piece of work: heap bytes (operator new) and RSS.
class MemoryWatch {
public:
    MemoryWatch()
    {
        malloc_trim(0);  // what was freed before does not hide growth in RSS
        std::ofstream("/proc/self/clear_refs") << "5";  // VmHWM back to VmRSS
        rss_before_kb_ = status_kb("VmRSS");
        heap_before_ = g_live.load();
        g_peak.store(heap_before_);
    }
    long long heap_growth() const { return g_peak.load() - heap_before_; }
    long long rss_growth() const
    {
        const long hwm = status_kb("VmHWM");
        return hwm < 0 || rss_before_kb_ < 0 ? -1 : (long long)(hwm - rss_before_kb_) * 1024;
    }

private:
    long rss_before_kb_;
    long long heap_before_;
};

std::vector<int> uneven_sizes(int p)
{
    const int nodes = std::max(1, int((p + 56) / 112));
    std::vector<int> sizes(static_cast<size_t>(nodes));
    long long sum = 0;
    for (int i = 0; i < nodes; ++i) {
        sizes[size_t(i)] = 96 + (7 * i) % 33;
        sum += sizes[size_t(i)];
    }
    // Below 96 * N or above 128 * N ranks (small p) the sizes leave 96..128.
    const int lowest = p >= 96 * nodes ? 96 : 1, highest = p <= 128 * nodes ? 128 : p;
    for (int i = 0; sum != p; i = (i + 1) % nodes) {
        if (sum < p && sizes[size_t(i)] < highest) {
            ++sizes[size_t(i)];
            ++sum;
        } else if (sum > p && sizes[size_t(i)] > lowest) {
            --sizes[size_t(i)];
            --sum;
        }
    }
    return sizes;
}

struct Layout {
    std::string name;
    std::vector<int> node_of_rank;
    std::string cluster_map;  // coll_hier_cluster_map in counts, or ""
    std::string shape;        // for the notes
};

Layout make_layout(const std::string &name, int p)
{
    Layout layout;
    layout.name = name;
    std::vector<int> sizes;
    if (name == "uneven") {
        sizes = uneven_sizes(p);
    } else if (name == "16" || name.compare(0, 3, "16x") == 0) {
        sizes.assign(size_t(p / 16), 16);
        if (p % 16 != 0) {
            sizes.push_back(p % 16);  // p not a multiple of 16: a last, smaller node
        }
    } else {
        return layout;
    }
    for (size_t node = 0; node < sizes.size(); ++node) {
        layout.node_of_rank.insert(layout.node_of_rank.end(), size_t(sizes[node]), int(node));
    }
    const auto [small, large] = std::minmax_element(sizes.begin(), sizes.end());
    std::ostringstream shape;
    shape << sizes.size() << " nodes of " << *small;
    if (*large != *small) {
        shape << ".." << *large;
    }
    if (name.compare(0, 3, "16x") == 0) {
        const int clusters = std::atoi(name.c_str() + 3);
        const int nodes = int(sizes.size());
        if (clusters < 1 || clusters > nodes) {
            layout.node_of_rank.clear();
            return layout;
        }
        for (int c = 0; c < clusters; ++c) {
            const int first = c * (nodes / clusters);
            const int end = c + 1 == clusters ? nodes : first + nodes / clusters;
            layout.cluster_map += (c ? "," : "") + std::to_string(end - first);
        }
        shape << " in clusters of " << layout.cluster_map << " nodes";
    }
    layout.shape = shape.str();
    return layout;
}

// FNV-1a over what a schedule says.
uint64_t digest(const hier::Schedule &s)
{
    uint64_t h = 1469598103934665603ull;
    auto mix = [&](uint64_t v) {
        for (int i = 0; i < 8; ++i) {
            h = (h ^ ((v >> (8 * i)) & 0xff)) * 1099511628211ull;
        }
    };
    auto region = [&](const hier::Region &r) {
        mix(uint64_t(r.buffer));
        mix(r.first);
        mix(r.count);
    };
    mix(uint64_t(s.rank()));
    mix(uint64_t(s.size()));
    mix(s.tmp_blocks());
    mix(s.window(1));
    for (const hier::Round &round : s.rounds()) {
        mix(round.step);
        mix(round.end_op - round.first_op);
        mix(round.messages);
        mix(uint64_t(int64_t(round.depends_on)));
        const hier::Op *ops = s.ops(round);
        for (size_t i = 0; i < s.op_count(round); ++i) {
            mix(uint64_t(ops[i].kind));
            mix(uint64_t(int64_t(ops[i].peer)));
            region(ops[i].from);
            region(ops[i].to);
        }
    }
    return h;
}

size_t op_count(const hier::Schedule &s)
{
    return s.rounds().empty() ? 0 : s.rounds().back().end_op;
}

// ScheduleBuilder::build reserves the ops exactly, so their capacity is their count.
size_t schedule_bytes(const hier::Schedule &s)
{
    return sizeof(hier::Schedule) + s.rounds().capacity() * sizeof(hier::Round) + op_count(s) * sizeof(hier::Op);
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string human(long long bytes)
{
    char text[32];
    if (bytes < 0) {
        return "?";
    }
    if (bytes < 10 * 1024) {
        std::snprintf(text, sizeof text, "%lld B", bytes);
    } else if (bytes < 10 * 1024 * 1024) {
        std::snprintf(text, sizeof text, "%.0f KiB", double(bytes) / 1024);
    } else {
        std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / (1024 * 1024));
    }
    return text;
}

std::vector<std::string> split(const std::string &text)
{
    std::vector<std::string> items;
    std::istringstream fields(text);
    std::string field;
    while (std::getline(fields, field, ',')) {
        if (!field.empty()) {
            items.push_back(field);
        }
    }
    return items;
}

struct Options {
    std::vector<int> sizes{1024, 4096, 16384};
    std::vector<std::string> layouts{"uneven", "16", "16x4"};
    std::vector<std::string> rows;  // empty: every alltoall row and the topology steps
    int repetitions = 5;
    std::string embedding;          // "" = auto, coll_hier_hypercube_embedding's default
    int auto_embedding_limit = 4096;
};

bool wanted(const Options &options, const std::string &row)
{
    return options.rows.empty() || std::find(options.rows.begin(), options.rows.end(), row) != options.rows.end();
}

void print_row(const std::string &layout, int p, const std::string &row, const std::string &ms, long long bytes,
               long long heap, long long rss, const std::string &note)
{
    char per_rank[32] = "";
    if (bytes >= 0) {
        std::snprintf(per_rank, sizeof per_rank, "%.1f", double(bytes) / p);
    }
    std::printf("%-7s %6d  %-16s %17s  %10s %7s  %10s %10s  %s\n", layout.c_str(), p, row.c_str(), ms.c_str(),
                bytes >= 0 ? human(bytes).c_str() : "", per_rank, heap >= 0 ? human(heap).c_str() : "",
                rss >= 0 ? human(rss).c_str() : "", note.c_str());
    std::fflush(stdout);
}

std::string shown_ms(double ms)
{
    char text[32];
    std::snprintf(text, sizeof text, ms < 10 ? "%.2f" : ms < 1000 ? "%.1f" : "%.0f", ms);
    return text;
}

// Times one topology step (once: they are made once per communicator).
template <typename F> void topology_step(const std::string &layout, int p, const std::string &name, F f)
{
    const MemoryWatch watch;
    const Clock::time_point start = Clock::now();
    const std::string note = f();
    const double ms = ms_since(start);
    print_row(layout, p, name, shown_ms(ms), -1, watch.heap_growth(), watch.rss_growth(), note);
}

void run(const Options &options, const std::string &layout_name, int p)
{
    const Layout layout = make_layout(layout_name, p);
    if (layout.node_of_rank.empty()) {
        std::fprintf(stderr, "schedule_build: unknown layout %s (uneven, 16, 16xC)\n", layout_name.c_str());
        std::exit(2);
    }
    std::unique_ptr<hier::Topology> topology;
    const bool auto_skipped = options.embedding.empty() && p > options.auto_embedding_limit;
    const int embedding = auto_skipped             ? hier::embedding_id("blind")
                          : options.embedding.empty() ? hier::kEmbeddingAuto
                                                      : hier::embedding_id(options.embedding.c_str());
    const hier::Plans plans(embedding);
    const bool steps = wanted(options, "topology");
    auto make_topology = [&] {
        // As hier_comm_create: a first Topology numbers the nodes for the
        // cluster map, then the one kept.
        std::vector<int> cluster_of_node;
        if (!layout.cluster_map.empty()) {
            std::string error;
            cluster_of_node = hier::parse_cluster_map(layout.cluster_map, hier::Topology(layout.node_of_rank).node_count(),
                                                      &error);
        }
        topology.reset(new hier::Topology(layout.node_of_rank, cluster_of_node, {}));
        return layout.shape;
    };
    auto make_costs = [&] {
        std::string error;
        auto costs = hier::costs_from_source(*topology, hier::CostSource(), hier::CostSetting(), &error);
        if (!costs) {
            std::fprintf(stderr, "schedule_build: %s\n", error.c_str());
            std::exit(1);
        }
        topology->set_costs(std::move(costs));
        return std::string("coll_hier_cost locality");
    };
    if (steps) {
        topology_step(layout.name, p, "(topology)", make_topology);
        topology_step(layout.name, p, "(costs)", make_costs);
    } else {
        make_topology();
        make_costs();
    }
    for (const hier::Algorithm *row : hier::algorithms_for(HIER_OP_ALLTOALL)) {
        if (!wanted(options, row->name)) {
            continue;
        }
        if (const char *why = row->unfit(*topology)) {
            print_row(layout.name, p, row->name, "-", -1, -1, -1, std::string("does not apply: ") + why);
            continue;
        }
        if (std::strcmp(row->name, "hypercube") == 0) {
            // The embedding, made at the first hypercube schedule and kept.
            topology_step(layout.name, p, "(hypercube plan)", [&] {
                return plans.hypercube(*topology).summary +
                       (auto_skipped ? " (auto's not measured above -E " +
                                           std::to_string(options.auto_embedding_limit) + ")"
                                     : std::string());
            });
        }
        const int ranks[2] = {0, p / 2};
        double ms[2] = {0, 0};
        long long bytes = 0, heap = 0, rss = 0;
        uint64_t hash = 0;
        for (int which = 0; which < 2; ++which) {
            std::vector<double> times;
            for (int rep = 0; rep < options.repetitions; ++rep) {
                const MemoryWatch watch;
                const Clock::time_point start = Clock::now();
                const hier::Schedule schedule = row->build(*topology, plans, ranks[which], -1);
                times.push_back(ms_since(start));
                heap = std::max(heap, watch.heap_growth());
                rss = std::max(rss, watch.rss_growth());
                bytes = std::max(bytes, (long long)schedule_bytes(schedule));
                if (which == 1 && rep == 0) {
                    hash = digest(schedule);
                }
                if (times.back() > 20000) {
                    break;  // one is enough to tell
                }
            }
            ms[which] = median(times);
        }
        char note[64];
        std::snprintf(note, sizeof note, "digest %016llx", (unsigned long long)hash);
        print_row(layout.name, p, row->name, shown_ms(ms[0]) + " / " + shown_ms(ms[1]), bytes, heap, rss, note);
    }
}

[[noreturn]] void usage()
{
    std::fprintf(stderr,
                 "usage: schedule_build [-p 1024,4096,16384] [-l uneven,16,16x4] [-a row,...|topology] "
                 "[-r REPS] [-e EMBEDDING] [-E P]\n");
    std::exit(2);
}

} // namespace

int main(int argc, char **argv)
{
    Options options;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (i + 1 >= argc) {
            usage();
        }
        const std::string value = argv[++i];
        if (flag == "-p") {
            options.sizes.clear();
            for (const std::string &size : split(value)) {
                const int p = std::atoi(size.c_str());
                if (p < 2) {
                    usage();
                }
                options.sizes.push_back(p);
            }
        } else if (flag == "-l") {
            options.layouts = split(value);
        } else if (flag == "-a") {
            options.rows = split(value);
        } else if (flag == "-r") {
            options.repetitions = std::max(1, std::atoi(value.c_str()));
        } else if (flag == "-E") {
            options.auto_embedding_limit = std::atoi(value.c_str());
        } else if (flag == "-e") {
            if (hier::embedding_id(value.c_str()) < 0) {
                std::fprintf(stderr, "schedule_build: unknown embedding %s\n", value.c_str());
                return 2;
            }
            options.embedding = value;
        } else {
            usage();
        }
    }
    std::printf("# build ms: rank 0 / rank p/2, median of %d; schedule: its ops and rounds; heap: peak live\n"
                "# bytes above those before the build; RSS: peak RSS growth over the build\n",
                options.repetitions);
    std::printf("%-7s %6s  %-16s %17s  %10s %7s  %10s %10s  %s\n", "layout", "p", "algorithm", "build ms",
                "schedule", "B/rank", "heap peak", "RSS growth", "notes");
    for (int p : options.sizes) {
        for (const std::string &layout : options.layouts) {
            run(options, layout, p);
        }
    }
    return 0;
}
