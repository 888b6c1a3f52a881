/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// hier-inspect: looks at the core's schedules without MPI. Each command
// describes a machine on its command line, builds every rank's schedule and
// reports what the simulator proves and counts (see commands.h).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "commands.h"

namespace hier::inspect {

std::vector<int> parse_sizes(const std::string &text, const char *what)
{
    std::vector<int> sizes;
    std::istringstream fields(text);
    std::string field;
    while (std::getline(fields, field, ',')) {
        char *end = nullptr;
        const long value = std::strtol(field.c_str(), &end, 10);
        if (field.empty() || *end != '\0' || value < 1 || value > 1 << 20) {
            std::fprintf(stderr, "hier-inspect: %s \"%s\": expected positive integers separated by commas, e.g. 4,3,2,1\n",
                         what, text.c_str());
            return {};
        }
        sizes.push_back(int(value));
    }
    if (sizes.empty() || text.back() == ',') {
        std::fprintf(stderr, "hier-inspect: %s \"%s\": expected positive integers separated by commas, e.g. 4,3,2,1\n",
                     what, text.c_str());
        return {};
    }
    return sizes;
}

namespace {

struct Command {
    const char *name;
    const char *usage;
    const char *summary;
    int (*run)(const Arguments &args);
};

const Command kCommands[] = {
    {"schedule", "schedule OP ALGORITHM NODE_SIZES [--clusters SIZES] [--torus DIMS] [--root R]",
     "simulate one algorithm of a collective on nodes of the given sizes: delivery, rounds, steps, "
     "messages per link class, port and NIC load",
     schedule},
    {"alltoall", "alltoall NODE_SIZES [--clusters SIZES] [--torus DIMS] [--costs LINK_COSTS] [--bytes B [--exact]] "
     "[--window W] [--share K]",
     "every alltoall schedule that applies and Open MPI's own: rounds, messages and bytes per link class "
     "(node/network/backbone, /socket where nodes have sockets), the time the model predicts on each machine "
     "the link costs allow "
     "(coll_hier_link_costs syntax; default: unknown), and what auto picks; --torus DIMS (one rank per node): "
     "messages between nodes take the torus's links, dimension by dimension; --exact models B itself, not its "
     "size class's middle; --share K: the CPU time of the model's work on the largest share when K ranks share it",
     alltoall},
    {"rules", "rules NODE_SIZES [--clusters SIZES] [--torus DIMS] [--costs LINK_COSTS] [--bytes B] [--window W]",
     "the rules auto would apply on those nodes, per collective and size class of blocks up to B (1 MiB), "
     "as a coll_hier_dynamic_rules file to freeze and edit (docs/rules-file.md)",
     rules},
    {"registry", "registry [COLLECTIVE [NODE_SIZES [--clusters SIZES] [--torus DIMS]]]",
     "the core's table of algorithms, one row a line: collective, id (coll_hier_<collective>_algorithm's value) "
     "and name; with a machine, whether each row applies there (or why not); the MPI tests run every row",
     registry},
    {"hierarchy", "hierarchy NODE_SIZES MAP [--hosts NAMES] [--addresses ADDRESSES [--pattern PATTERN]]",
     "the clusters a coll_hier_cluster_map value (counts, host patterns, slurm[:LEVEL], topology:PATH, "
     "coordinates:PATH) gives those nodes, found as the component finds them from each node's host name "
     "(NAMES) or SLURM_TOPOLOGY_ADDR (ADDRESSES, comma-separated): the verbose line's (size, nodes, clusters), "
     "then each cluster's nodes and ranks; a map that does not fit: the component's line, exit 1",
     hierarchy},
    {"torus", "torus DIMS",
     "the OPT partition of a torus of the given sizes, e.g. 7x5 or 4x8x8 (region sizes, a picture for two "
     "dimensions), the lower bound, and the simulated steps of opt and sdf scatter and gather",
     torus},
    {"embed", "embed COST_FILE | embed --random SIZE MAX SEED | embed --nodes SIZES [--clusters SIZES]",
     "every hypercube embedding of a cost matrix (coll_hier_cost's file format, random costs 1..MAX, or "
     "locality's on nodes of consecutive ranks): calc_cost, gain over blind, what auto does",
     embed},
    {"embed-gains", "embed-gains [--sizes 8,16,...] [--topologies N] [--max MAX] [--seed S]",
     "Figueira and Janapa Reddi's Fig. 6: average gain over blind of each embedding on random topologies",
     embed_gains},
};

void usage(FILE *out)
{
    std::fprintf(out, "usage: hier-inspect COMMAND ARGS...\n");
    for (const Command &command : kCommands) {
        std::fprintf(out, "  hier-inspect %s\n      %s\n", command.usage, command.summary);
    }
}

} // namespace

} // namespace hier::inspect

int main(int argc, char **argv)
{
    using namespace hier::inspect;
    if (argc < 2 || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    for (const Command &command : kCommands) {
        if (!std::strcmp(argv[1], command.name)) {
            return command.run(Arguments(argv + 2, argv + argc));
        }
    }
    std::fprintf(stderr, "hier-inspect: unknown command \"%s\"\n", argv[1]);
    usage(stderr);
    return 2;
}
