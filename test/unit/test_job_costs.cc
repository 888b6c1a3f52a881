// The job's probed costs (core/job_costs.cc): what one communicator
// measured is found by the next, whatever order its nodes come in.
#include <gtest/gtest.h>

#include "hier_core.h"

namespace {

// Node ids far from any other test's, as the store is the process's.
constexpr int kBase = 1000000;

TEST(JobCosts, LatenciesAreKeptPerPairOfNodesAndGrowWithNewNodes)
{
    EXPECT_EQ(hier_job_latency(kBase + 4, kBase + 9), 0);
    hier_job_latency_store(kBase + 9, kBase + 4, 3e-6);
    EXPECT_EQ(hier_job_latency(kBase + 4, kBase + 9), 3e-6);
    EXPECT_EQ(hier_job_latency(kBase + 9, kBase + 4), 3e-6);
    // A node that sorts before the others: the matrix grows, its entries stay.
    hier_job_latency_store(kBase + 1, kBase + 9, 5e-6);
    hier_job_latency_store(kBase + 7, kBase + 1, 2e-6);
    EXPECT_EQ(hier_job_latency(kBase + 4, kBase + 9), 3e-6);
    EXPECT_EQ(hier_job_latency(kBase + 1, kBase + 9), 5e-6);
    EXPECT_EQ(hier_job_latency(kBase + 1, kBase + 7), 2e-6);
    EXPECT_EQ(hier_job_latency(kBase + 4, kBase + 7), 0);  // never measured
    EXPECT_EQ(hier_job_latency(kBase + 4, kBase + 5), 0);  // an unknown node
    // Not a latency: ignored.
    hier_job_latency_store(kBase + 4, kBase + 7, 0);
    hier_job_latency_store(kBase + 4, kBase + 7, -1);
    hier_job_latency_store(kBase + 4, kBase + 4, 1e-6);
    EXPECT_EQ(hier_job_latency(kBase + 4, kBase + 7), 0);
    EXPECT_EQ(hier_job_latency(kBase + 4, kBase + 4), 0);
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
