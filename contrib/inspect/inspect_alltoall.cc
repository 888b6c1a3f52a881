/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// hier-inspect alltoall: every alltoall schedule that applies to described
// nodes, and Open MPI's own, side by side as auto weighs them: rounds,
// messages and bytes per link class, the time the model predicts on each
// machine the link costs allow, and what auto picks (core/autoselect.h).
// With --share K, also the model's work per rank when K ranks share it
// (autoselect.h: ModelShare), as a sequential rehearsal of the K ranks.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <numeric>
#include <string>

#include "autoselect.h"
#include "commands.h"
#include "link_costs.h"
#include "topology.h"

namespace hier::inspect {

namespace {

const char *const kUsage =
    "hier-inspect: alltoall takes NODE_SIZES [--clusters SIZES] [--torus DIMS] [--costs LINK_COSTS] "
    "[--bytes B [--exact]] [--window W] [--share K], e.g. alltoall 4,3,2,1 "
    "--costs node=1us:40Gbit/s,network=50us:200Mbit/s "
    "--bytes 65536";

// node/network/backbone, and /socket where the node map has sockets.
std::string per_class(const Prediction &p, bool bytes, bool sockets)
{
    std::string text;
    for (int c = 0; c < (sockets ? kLinkClasses : kSocketLink); ++c) {
        text += (c ? "/" : "") + std::to_string(bytes ? p.traffic[c].bytes : p.traffic[c].messages);
    }
    return text;
}

void print_row(const Contender &contender, const std::string &label, bool sockets)
{
    if (contender.predictions.empty()) {  // a row the scale model does not predict
        std::printf("  %-22s not modelled\n", label.c_str());
        return;
    }
    const Prediction &first = contender.predictions[0];
    std::printf("  %-22s %6zu  %-18s %-26s", label.c_str(), first.rounds, per_class(first, false, sockets).c_str(),
                per_class(first, true, sockets).c_str());
    for (const Prediction &p : contender.predictions) {
        std::printf(" %10s", p.error.empty() ? format_seconds(p.seconds, " ").c_str() : "-");
    }
    if (contender.modelled()) {
        std::printf("   x%.2f", contender.worst_ratio);
    }
    std::printf("\n");
}

// The machines the predictions are for (link classes as LATENCY:BANDWIDTH:OVERHEAD).
void print_machines(const Comparison &comparison, const Topology &topology)
{
    const char *source = comparison.machines.size() == 1 ? "given" : "the classes not given at their corner values";
    std::printf("machines (%s):\n", source);
    std::vector<int> classes = {kNodeLink, kNetworkLink};
    if (topology.cluster_count() > 1) {
        classes.push_back(kBackboneLink);
    }
    if (topology.has_sockets()) {
        classes.push_back(kSocketLink);
    }
    for (size_t m = 0; m < comparison.machines.size(); ++m) {
        std::printf("  M%zu:", m + 1);
        for (const int c : classes) {
            std::printf("%s %s %s", c ? "," : "", link_class_name(c), describe(comparison.machines[m].link[c]).c_str());
        }
        if (topology.torus_of_nodes()) {
            std::printf(", hop %s", format_seconds(comparison.machines[m].hop_latency).c_str());
        }
        std::printf("\n");
    }
}

// Seconds of this thread's CPU time of the fastest of three runs of f: the
// work itself, not the other processes of a shared host (wall time is that
// where a rank has a core of its own).
template <typename F> double fastest_of_three(F f)
{
    auto cpu = [] {
        timespec now{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
        return double(now.tv_sec) + 1e-9 * double(now.tv_nsec);
    };
    double best = std::numeric_limits<double>::infinity();
    for (int run = 0; run < 3; ++run) {
        const double start = cpu();
        f();
        best = std::min(best, cpu() - start);
    }
    return best;
}

// The comparison unshared, then as each of `ranks` ranks computes its share
// (one after the other here; agree keeps each share's vector), then once
// more as rank 0 with the shares combined by MAX, which must give the
// unshared comparison's line.
void print_shares(const Topology &topology, const Plans &plans, size_t block_bytes, const MachineOptions &o,
                  int ranks)
{
    std::string unshared_line;
    const double unshared = fastest_of_three(
        [&] { unshared_line = describe(compare_alltoall(topology, plans, block_bytes, o.window, o.costs)); });
    std::vector<std::vector<double>> shares(static_cast<size_t>(ranks));
    double largest = 0, sum = 0;
    int largest_rank = 0;
    for (int rank = 0; rank < ranks; ++rank) {
        ModelShare share;
        share.index = rank;
        share.count = ranks;
        share.agree = [&](double *values, size_t length) {
            shares[size_t(rank)].assign(values, values + length);
            return true;
        };
        const double seconds =
            fastest_of_three([&] { compare_alltoall(topology, plans, block_bytes, o.window, o.costs, share); });
        sum += seconds;
        if (seconds > largest) {
            largest = seconds;
            largest_rank = rank;
        }
    }
    ModelShare combined;
    combined.count = ranks;
    combined.agree = [&](double *values, size_t length) {
        for (size_t i = 0; i < length; ++i) {
            for (const std::vector<double> &share : shares) {
                values[i] = std::max(values[i], share.size() == length ? share[i] : -HUGE_VAL);
            }
        }
        return true;
    };
    const bool same =
        describe(compare_alltoall(topology, plans, block_bytes, o.window, o.costs, combined)) == unshared_line;
    std::printf("shared over %d ranks: unshared %s, largest share %s (rank %d), all shares %s; combined %s the "
                "unshared comparison (CPU time, fastest of 3 runs each)\n",
                ranks, format_seconds(unshared, " ").c_str(), format_seconds(largest, " ").c_str(), largest_rank,
                format_seconds(sum, " ").c_str(), same ? "gives" : "DIFFERS FROM");
}

} // namespace

int alltoall(const Arguments &all_args)
{
    // --share K is this command's own: the other options are every command's.
    Arguments args;
    int share_ranks = 0;
    for (size_t i = 0; i < all_args.size(); ++i) {
        if (all_args[i] == "--share" && i + 1 < all_args.size()) {
            char *end = nullptr;
            const long k = std::strtol(all_args[i + 1].c_str(), &end, 10);
            if (all_args[i + 1].empty() || *end || k < 1 || k > 1 << 20) {
                std::fprintf(stderr, "hier-inspect: --share \"%s\": expected a positive integer\n",
                             all_args[i + 1].c_str());
                return 2;
            }
            share_ranks = int(k);
            ++i;
        } else {
            args.push_back(all_args[i]);
        }
    }
    MachineOptions o;
    if (int rc = parse_machine_options(args, kUsage, &o)) {
        return rc;
    }
    const Topology topology = machine_topology(o);
    const Plans plans;  // as a communicator keeps them beside its topology
    const int klass = size_class(o.bytes);
    const size_t modelled = o.exact ? o.bytes : class_block_bytes(klass);
    const Comparison comparison = compare_alltoall(topology, plans, modelled, o.window, o.costs);

    const std::string torus = topology.torus() ? ", torus " + topology.torus()->describe() : "";
    std::printf("alltoall on nodes %s (%d ranks, %d nodes, %d cluster%s%s), blocks of %zu B, window %d\n",
                topology.describe().c_str(), topology.size(), topology.node_count(), topology.cluster_count(),
                topology.cluster_count() == 1 ? "" : "s", torus.c_str(), o.bytes, comparison.window);
    if (o.exact) {
        std::printf("modelled at exactly %zu B (auto decides for the size class %zu..%zu B at %zu B)\n", modelled,
                    size_t(1) << klass, (size_t(2) << klass) - 1, class_block_bytes(klass));
    } else {
        std::printf("auto decides once per size class: %zu..%zu B, modelled at %zu B\n", size_t(1) << klass,
                    (size_t(2) << klass) - 1, modelled);
    }
    if (comparison.why_not) {
        std::printf("auto picks fallback: %s (no model run)\n", comparison.why_not);
        return 0;
    }
    print_machines(comparison, topology);
    const bool sockets = topology.has_sockets();
    const char *const messages = sockets ? "messages n/net/bb/sock" : "messages n/net/bb";
    std::printf("  %-22s %6s  %-18s %-26s", "schedule", "rounds", messages,
                sockets ? "bytes n/net/bb/sock" : "bytes n/net/bb");
    for (size_t m = 0; m < comparison.machines.size(); ++m) {
        std::printf(" %10s", ("M" + std::to_string(m + 1)).c_str());
    }
    std::printf("   worst vs Open MPI\n");
    print_row(comparison.open_mpi, std::string("open-mpi(") + comparison.open_mpi.name + ")", sockets);
    std::string unfit;
    for (const Contender &row : comparison.rows) {
        print_row(row, row.name, sockets);
    }
    for (const Algorithm *algorithm : algorithms_for(HIER_OP_ALLTOALL)) {
        if (const char *why = algorithm->unfit(topology)) {
            unfit += std::string(unfit.empty() ? "" : "; ") + algorithm->name + " (" + why + ")";
        }
    }
    if (!unfit.empty()) {
        std::printf("not applicable: %s\n", unfit.c_str());
    }
    const Choice &choice = comparison.choice;
    if (choice.algorithm) {
        std::printf("auto picks %s (a row needs x%.2f of Open MPI's time or less on every machine)\n",
                    choice.algorithm->name, 1 - kAutoMargin);
    } else {
        std::printf("auto picks fallback: %s (a row needs x%.2f or less on every machine)\n", choice.reason,
                    1 - kAutoMargin);
    }
    if (!comparison.measure.empty()) {
        std::printf("unless measured: %s under x%.2f on some machine, so the first calls of the class run %s and "
                    "Open MPI's in turn (coll_hier_auto_trial_calls), and keep the fastest if %.0f %% faster than "
                    "Open MPI's\n",
                    names(algorithms_of(comparison.measure)).c_str(), kTrialUpTo, comparison.measure.size() == 1 ? "it" : "them",
                    100 * kTrialGain);
    }
    const ModelShare any_share{0, 2, [](double *, size_t) { return true; }};
    if (share_ranks > 0 && !model_shared(HIER_OP_ALLTOALL, topology, any_share)) {
        std::printf("not shared: the scale model decides above %d ranks\n", kMaxModelledRanks);
    } else if (share_ranks > 0) {
        print_shares(topology, plans, modelled, o, share_ranks);
    }
    return 0;
}

} // namespace hier::inspect
