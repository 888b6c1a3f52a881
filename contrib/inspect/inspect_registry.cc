/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// hier-inspect registry: the core's table of algorithms (core/registry.cc),
// one row a line, "COLLECTIVE ID NAME", in table order per collective (the
// ids of coll_hier_<collective>_algorithm; auto and fallback, ids 0 and 1,
// are not rows). With a collective, only its rows; with a machine too, each
// line ends with "applies" or "unfit: WHY", from the row's own unfit. The
// MPI test layer (test/mpi/run_mpi_tests.sh) generates its runs from this,
// so that a new row is tested without an edit to the runner.
#include <cstdio>
#include <string>

#include "commands.h"
#include "registry.h"

namespace hier::inspect {

namespace {

const char *const kUsage =
    "hier-inspect: registry takes [COLLECTIVE [NODE_SIZES [--clusters SIZES] [--torus DIMS]]], e.g. registry "
    "scatter 2,2,2,2 --torus 2x2x2";

} // namespace

int registry(const Arguments &args)
{
    int only = -1;
    if (!args.empty()) {
        for (int op = 0; op < HIER_OP_COUNT; ++op) {
            if (args[0] == op_name(hier_op_t(op))) {
                only = op;
            }
        }
        if (only < 0) {
            std::fprintf(stderr, "%s (not \"%s\")\n", kUsage, args[0].c_str());
            return 2;
        }
    }
    MachineOptions o;
    const bool machine = args.size() > 1;
    if (machine) {
        if (int rc = parse_machine_options(Arguments(args.begin() + 1, args.end()), kUsage, &o)) {
            return rc;
        }
    }
    const Topology topology = machine ? machine_topology(o) : Topology::from_node_sizes({1});
    for (int op = 0; op < HIER_OP_COUNT; ++op) {
        if (only >= 0 && op != only) {
            continue;
        }
        const auto &rows = algorithms_for(hier_op_t(op));
        for (size_t row = 0; row < rows.size(); ++row) {
            std::printf("%s %zu %s", op_name(hier_op_t(op)), row + 2, rows[row]->name);
            if (machine) {
                const char *why = rows[row]->unfit(topology);
                std::printf(why ? " unfit: %s" : " applies", why);
            }
            std::printf("\n");
        }
    }
    return 0;
}

} // namespace hier::inspect
