/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// hier-inspect embed-gains: Figueira and Janapa Reddi's Fig. 6 (Sec. 5.1):
// for each size, the average gain of each embedding's calc_cost over the
// blind embedding's on random topologies whose pair costs are integers
// drawn from 1..MAX. contrib/inspect/fig6.sh runs it for the paper's two
// panels (MAX 5 and 20) and plots docs/hypercube-fig6.png.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "commands.h"
#include "cost.h"
#include "embedding.h"

namespace hier::inspect {

namespace {

struct Options {
    std::vector<int> sizes = {8, 16, 32, 64, 128, 256, 512, 1024};
    long topologies = 1000;
    long max = 5;
    long seed = 1;
};

bool usage_error()
{
    std::fprintf(stderr, "hier-inspect: embed-gains takes --sizes POWERS_OF_TWO --topologies N --max MAX --seed S "
                         "(positive integers)\n");
    return false;
}

bool parse_options(const Arguments &args, Options *options)
{
    if (args.size() % 2 != 0) {
        return usage_error();
    }
    for (size_t i = 0; i < args.size(); i += 2) {
        const std::string &name = args[i], &value = args[i + 1];
        if (name == "--sizes") {
            options->sizes = parse_sizes(value, "--sizes");
            for (int size : options->sizes) {
                if (size & (size - 1)) {
                    std::fprintf(stderr, "hier-inspect: embed-gains --sizes: %d is not a power of two\n", size);
                    return false;
                }
            }
            if (options->sizes.empty()) {
                return false;
            }
            continue;
        }
        long *target = name == "--topologies" ? &options->topologies
                       : name == "--max"      ? &options->max
                       : name == "--seed"     ? &options->seed
                                              : nullptr;
        char *end = nullptr;
        const long number = std::strtol(value.c_str(), &end, 10);
        if (!target || value.empty() || *end != '\0' || number < 1) {
            return usage_error();
        }
        *target = number;
    }
    return true;
}

} // namespace

int embed_gains(const Arguments &args)
{
    Options options;
    if (!parse_options(args, &options)) {
        return 2;
    }
    const auto &methods = embedding_methods();
    std::printf("# average gain (%%) of calc_cost over blind, %ld random topologies per size, pair costs 1..%ld, "
                "seed %ld\n# size", options.topologies, options.max, options.seed);
    for (size_t m = 1; m < methods.size(); ++m) {
        std::printf(" %8s", methods[m].name);
    }
    std::printf("\n");
    for (int size : options.sizes) {
        std::vector<double> gain(methods.size(), 0.0);
        for (long t = 0; t < options.topologies; ++t) {
            const uint64_t seed = uint64_t(options.seed) * 1000003u + uint64_t(size) * 7919u + uint64_t(t);
            const Costs costs = Costs::from_matrix(random_cost_matrix(size, int(options.max), seed));
            const PointCosts points(costs);
            const double blind = calc_cost(points, embed_blind(points));
            for (size_t m = 1; m < methods.size(); ++m) {
                gain[m] += 1 - calc_cost(points, methods[m].embed(points, {})) / blind;
            }
        }
        std::printf("%6d", size);
        for (size_t m = 1; m < methods.size(); ++m) {
            std::printf(" %8.2f", 100 * gain[m] / double(options.topologies));
        }
        std::printf("\n");
        std::fflush(stdout);
    }
    return 0;
}

} // namespace hier::inspect
