// hier-inspect registry: the core's table of algorithms (core/registry.cc),
// one row a line, "COLLECTIVE ID NAME", in table order per collective (the
// ids of coll_hier_<collective>_algorithm; auto and fallback, ids 0 and 1,
// are not rows). With a collective, only its rows. The MPI test layer
// (test/mpi/run_mpi_tests.sh) generates its runs from this list, so that a
// new row is tested without an edit to the runner.
#include <cstdio>
#include <string>

#include "commands.h"
#include "registry.h"

namespace hier::inspect {

int registry(const Arguments &args)
{
    int only = -1;
    if (args.size() > 1) {
        std::fprintf(stderr, "hier-inspect: registry takes at most one collective, e.g. registry alltoall\n");
        return 2;
    }
    if (args.size() == 1) {
        for (int op = 0; op < HIER_OP_COUNT; ++op) {
            if (args[0] == op_name(hier_op_t(op))) {
                only = op;
            }
        }
        if (only < 0) {
            std::fprintf(stderr, "hier-inspect: registry \"%s\": expected a collective (alltoall, scatter, gather, "
                                 "allgather, allreduce, barrier or alltoallv)\n",
                         args[0].c_str());
            return 2;
        }
    }
    for (int op = 0; op < HIER_OP_COUNT; ++op) {
        if (only >= 0 && op != only) {
            continue;
        }
        const auto &rows = algorithms_for(hier_op_t(op));
        for (size_t row = 0; row < rows.size(); ++row) {
            std::printf("%s %zu %s\n", op_name(hier_op_t(op)), row + 2, rows[row]->name);
        }
    }
    return 0;
}

} // namespace hier::inspect
