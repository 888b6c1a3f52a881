/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The job's probed costs (core/job_costs.cc): what one communicator
// measured is found by the next, whatever order its nodes come in.
#include <gtest/gtest.h>

#include "hier_core.h"

namespace {

// Node ids far from any other test's, as the store is the process's.
constexpr int kBase = 1000000;

// Stores one pair, as a probe of two nodes would (a 2 x 2 matrix).
void store_pair(int a, int b, double seconds)
{
    const int nodes[] = {a, b};
    const double latency[] = {0, seconds, seconds, 0};
    hier_job_latencies_store(2, nodes, latency);
}

TEST(JobCosts, LatenciesAreKeptPerPairOfNodesAndGrowWithNewNodes)
{
    EXPECT_EQ(hier_job_latency(kBase + 4, kBase + 9), 0);
    store_pair(kBase + 9, kBase + 4, 3e-6);
    EXPECT_EQ(hier_job_latency(kBase + 4, kBase + 9), 3e-6);
    EXPECT_EQ(hier_job_latency(kBase + 9, kBase + 4), 3e-6);
    // A node that sorts before the others: the matrix grows, its entries stay.
    store_pair(kBase + 1, kBase + 9, 5e-6);
    store_pair(kBase + 7, kBase + 1, 2e-6);
    EXPECT_EQ(hier_job_latency(kBase + 4, kBase + 9), 3e-6);
    EXPECT_EQ(hier_job_latency(kBase + 1, kBase + 9), 5e-6);
    EXPECT_EQ(hier_job_latency(kBase + 1, kBase + 7), 2e-6);
    EXPECT_EQ(hier_job_latency(kBase + 4, kBase + 7), 0);  // never measured
    EXPECT_EQ(hier_job_latency(kBase + 4, kBase + 5), 0);  // an unknown node
    // Not a latency: ignored.
    store_pair(kBase + 4, kBase + 7, 0);
    store_pair(kBase + 4, kBase + 7, -1);
    store_pair(kBase + 4, kBase + 4, 1e-6);
    EXPECT_EQ(hier_job_latency(kBase + 4, kBase + 7), 0);
    EXPECT_EQ(hier_job_latency(kBase + 4, kBase + 4), 0);
    // A probe of several nodes, new and known, at once: one matrix.
    const int nodes[] = {kBase + 20, kBase + 4, kBase + 12};
    const double latency[] = {0, 7e-6, 8e-6, 7e-6, 0, 0, 8e-6, 0, 0};
    hier_job_latencies_store(3, nodes, latency);
    EXPECT_EQ(hier_job_latency(kBase + 4, kBase + 20), 7e-6);
    EXPECT_EQ(hier_job_latency(kBase + 12, kBase + 20), 8e-6);
    EXPECT_EQ(hier_job_latency(kBase + 4, kBase + 12), 0);  // 0 in the matrix: not measured
    EXPECT_EQ(hier_job_latency(kBase + 4, kBase + 9), 3e-6);
}

TEST(JobCosts, MessageCostsPerClass)
{
    hier_job_message_cost_store(1, 4e-5);
    hier_job_message_cost_store(1, -1);  // "no such partners": keeps what was measured
    EXPECT_EQ(hier_job_message_cost(1), 4e-5);
    EXPECT_EQ(hier_job_message_cost(2), -1);
    hier_job_message_cost_store(2, 1e-6);
    EXPECT_EQ(hier_job_message_cost(2), -1);
}

} // namespace
