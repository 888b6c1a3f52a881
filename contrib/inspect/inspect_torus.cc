/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// hier-inspect torus: the OPT partition of a torus (region sizes, and a
// picture of it for two dimensions), the lower bound, and the step counts of
// OPT and SDF scatter and gather from the simulator.
#include <cstdio>
#include <string>
#include <vector>

#include "algorithms.h"
#include "commands.h"
#include "simulate.h"
#include "topology.h"

namespace hier::inspect {

namespace {

// A link as seen in the picture: rows are dimension 0 (growing downward),
// columns dimension 1 (growing to the right).
char letter(const TorusLink &link)
{
    return link.dim == 0 ? (link.dir > 0 ? 'D' : 'U') : (link.dir > 0 ? 'R' : 'L');
}

std::string link_name(const TorusLink &link)
{
    return "dim " + std::to_string(link.dim) + (link.dir > 0 ? " +" : " -");
}

// The regions on a 2-D torus with the root '*' in the middle, as the
// paper's figures draw them: each node shows the link its region hangs from.
void print_picture(const Torus &torus, const TorusPartition &partition)
{
    const int rows = torus.dims()[0];
    const int columns = torus.dims()[1];
    std::printf("  regions (root * in the middle; rows: dim 0, down = +; columns: dim 1, right = +):\n");
    for (int r = 0; r < rows; ++r) {
        std::printf("    ");
        for (int c = 0; c < columns; ++c) {
            // Row r shows coordinate r - (rows - 1) / 2, modulo the size.
            const int x = (r - (rows - 1) / 2 + rows) % rows;
            const int y = (c - (columns - 1) / 2 + columns) % columns;
            const int v = x * columns + y;
            std::printf("%c%s", v == 0 ? '*' : letter(torus.links()[partition.region[v]]),
                        c + 1 < columns ? " " : "\n");
        }
    }
}

// Simulates the schedules of op from root 0; returns their steps, or -1
// with the simulator's complaint printed.
long simulated_steps(const Topology &topology, hier_op_t op, const std::vector<Schedule> &schedules,
                     const char *what)
{
    const SimulationReport report = simulate(topology, schedules, contract_for(op, topology.size(), 0));
    if (!report.error.empty() || report.max_link_load > 1) {
        std::printf("  %s FAILS: %s\n", what,
                    report.error.empty() ? "more than one message on a link in a step" : report.error.c_str());
        return -1;
    }
    return long(report.steps);
}

} // namespace

int torus(const Arguments &args)
{
    constexpr int kMostRanks = 1 << 16;  // keeps a run within seconds
    std::string error;
    const std::vector<int> dims = args.size() == 1 ? parse_torus_dims(args[0], -1, &error) : std::vector<int>();
    if (dims.empty()) {
        std::fprintf(stderr, "hier-inspect: torus needs DIMS, e.g. torus 7x5%s%s\n", error.empty() ? "" : ": ",
                     error.c_str());
        return 2;
    }
    const Torus shape(dims);
    if (shape.size() < 2 || shape.size() > kMostRanks) {
        std::fprintf(stderr, "hier-inspect: torus %s has %d ranks; expected 2 to %d\n", shape.describe().c_str(),
                     shape.size(), kMostRanks);
        return 2;
    }
    const Topology topology = Topology::from_torus_dims(dims);
    const Torus &torus = *topology.torus();
    const Plans plans;
    const TorusPartition &partition = plans.torus_partition(topology);
    const int links = int(torus.links().size());
    const int bound = torus_scatter_bound(torus);

    std::printf("torus %s: %d ranks, %d root links:", torus.describe().c_str(), torus.size(), links);
    for (const TorusLink &link : torus.links()) {
        std::printf(" %s", link_name(link).c_str());
        if (torus.dimensions() == 2) {
            std::printf(" (%c)", letter(link));
        }
    }
    std::printf("\n  lower bound: ceil(%d / %d) = %d steps\n", torus.size() - 1, links, bound);
    std::printf("  partition:   regions of");
    for (size_t r = 0; r < partition.sizes.size(); ++r) {
        std::printf("%s %d", r ? "," : "", partition.sizes[r]);
    }
    std::printf(" nodes; largest %d%s (greedy alone: %d)\n", partition.largest(),
                partition.largest() == bound ? ", the bound" : ", ABOVE the bound",
                partition_torus(torus, false).largest());
    const std::string broken = partition_error(torus, partition);
    if (!broken.empty()) {
        std::printf("  partition FAILS: %s\n", broken.c_str());
    }
    const long opt = simulated_steps(topology, HIER_OP_SCATTER, opt_schedules(topology, plans, HIER_OP_SCATTER, 0),
                                     "opt scatter");
    const long opt_gather =
        simulated_steps(topology, HIER_OP_GATHER, opt_schedules(topology, plans, HIER_OP_GATHER, 0), "opt gather");
    const long sdf = simulated_steps(topology, HIER_OP_SCATTER, sdf_schedules(topology, HIER_OP_SCATTER, 0),
                                     "sdf scatter");
    const long sdf_gather =
        simulated_steps(topology, HIER_OP_GATHER, sdf_schedules(topology, HIER_OP_GATHER, 0), "sdf gather");
    std::printf("  opt:         scatter %ld steps, gather %ld (simulated: every block delivered once, one message per "
                "link and step)\n", opt, opt_gather);
    std::printf("  sdf:         scatter %ld steps, gather %ld (simulated)\n", sdf, sdf_gather);
    if (torus.dimensions() == 2) {
        print_picture(torus, partition);
    }
    const bool ok = broken.empty() && opt == partition.largest() && opt_gather == opt && sdf > 0 && sdf_gather == sdf;
    return ok ? 0 : 1;
}

} // namespace hier::inspect
