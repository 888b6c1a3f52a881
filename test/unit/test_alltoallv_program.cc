/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Alltoallv's program (core/alltoallv_program.h), the one the component
// runs over the PML, here over the in-memory transport: every alltoallv row
// of the registry byte for byte under count patterns with zeros, and the
// size pass only where a schedule forwards through TMP.
#include <gtest/gtest.h>

#include <random>

#include "harness.h"
#include "registry.h"

namespace hier::test {
namespace {

using Counts = std::vector<std::vector<size_t>>;

// The count patterns where a program could go wrong: nothing at all, one
// block only, an empty diagonal, a rank that sends nothing, a rank that
// receives nothing, and random sizes with a third of them 0.
std::vector<std::pair<const char *, Counts>> patterns(std::mt19937 &random, int p)
{
    Counts nothing(p, std::vector<size_t>(p, 0)), one = nothing, no_self(p, std::vector<size_t>(p, 4));
    Counts silent = no_self, deaf = no_self;
    one[0][size_t(p - 1)] = 5;
    for (int rank = 0; rank < p; ++rank) {
        no_self[rank][rank] = 0;
        silent[0][rank] = 0;
        deaf[rank][size_t(p - 1)] = 0;
    }
    return {{"nothing", nothing},    {"one block", one},      {"empty diagonal", no_self},
            {"rank 0 sends nothing", silent}, {"the last rank receives nothing", deaf},
            {"random", random_alltoallv_bytes(random, p, 9)}};
}

// Uneven nodes, one node, and clusters (the rows that forward through TMP
// need two or more), one of them a rank alone, which forwards nothing.
std::vector<Topology> machines()
{
    return {Topology::from_node_sizes({3, 1, 2}), Topology::from_node_sizes({4}),
            Topology({0, 0, 1, 1, 2, 3, 3}, {0, 0, 1, 1}), Topology({0, 1, 2}, {0, 1, 2}),
            Topology({0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 3}, {0, 1, 2, 3})};
}

TEST(AlltoallvProgram, EveryRowDeliversEveryPatternByteForByte)
{
    std::mt19937 random(20261128);
    for (const Algorithm *row : algorithms_for(HIER_OP_ALLTOALLV)) {
        int ran = 0;
        for (const Topology &topology : machines()) {
            if (row->unfit(topology)) {
                continue;
            }
            ++ran;
            const auto schedules = build_all(row->build, topology);
            for (const auto &[name, counts] : patterns(random, topology.size())) {
                for (int window : kWindows) {
                    EXPECT_EQ(run_alltoallv_bytes(topology, schedules, counts, unsigned(random()), window), "")
                        << row->name << " on " << topology.describe() << ", " << name << ", window " << window;
                }
            }
        }
        EXPECT_GT(ran, 0) << row->name << " fits none of the machines here; add one";
    }
}

// Every rank must run the size pass, or none: their messages pair up. It
// must run where some rank holds blocks in TMP, and may where none does;
// it costs as many messages as the data pass.
TEST(AlltoallvProgram, EveryRankAgreesWhetherTheSizePassRuns)
{
    for (const Algorithm *row : algorithms_for(HIER_OP_ALLTOALLV)) {
        for (const Topology &topology : machines()) {
            if (row->unfit(topology)) {
                continue;
            }
            const auto schedules = build_all(row->build, topology);
            const bool size_pass = schedules.front().tmp_on_some_rank();
            for (const Schedule &schedule : schedules) {
                EXPECT_TRUE(size_pass || schedule.tmp_blocks() == 0) << row->name << " on " << topology.describe();
                EXPECT_EQ(schedule.tmp_on_some_rank(), size_pass)
                    << row->name << " on " << topology.describe() << ", rank " << schedule.rank();
            }
            MemoryWorld bare(topology.size(), 2), program(topology.size(), 2);
            program.run_alltoallv_program();
            for (MemoryWorld *world : {&bare, &program}) {
                fill_bytes(*world, HIER_OP_ALLTOALLV, -1, 2);
                ASSERT_EQ(world->run(schedules), "") << row->name << " on " << topology.describe();
                EXPECT_EQ(check_bytes(*world, HIER_OP_ALLTOALLV, -1, 2), "") << row->name;
            }
            EXPECT_EQ(program.fabric().messages_sent(), bare.fabric().messages_sent() * (size_pass ? 2 : 1))
                << row->name << " on " << topology.describe();
        }
    }
}

} // namespace
} // namespace hier::test
