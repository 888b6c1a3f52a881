// The LG alltoall for two clusters (Jeannot and Steffenel), partial groups
// included.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "harness.h"

namespace hier {
namespace {

// Two clusters of one-process nodes: `first` ranks in cluster 0 and `second`
// in cluster 1, in an order shuffled by `random` (none: consecutive).
Topology two_clusters(int first, int second, std::mt19937 *random = nullptr)
{
    std::vector<int> cluster_of_rank(first, 0);
    cluster_of_rank.insert(cluster_of_rank.end(), second, 1);
    if (random) {
        std::shuffle(cluster_of_rank.begin(), cluster_of_rank.end(), *random);
    }
    std::vector<int> node_of_rank(first + second);
    std::iota(node_of_rank.begin(), node_of_rank.end(), 0);
    return Topology(node_of_rank, cluster_of_rank);  // node n is rank n
}

// Every C2 process exchanges exactly once over the backbone, so it carries
// 2 max(n1, n2) messages whether or not n1 divides n2 (the partial group's
// messages for C1 processes it cannot face ride with the group before it),
// in ceil(n2/n1) steps.
void check_lg(const Topology &topology, int n1, int n2, bool all_windows)
{
    SCOPED_TRACE("n1 = " + std::to_string(n1) + ", n2 = " + std::to_string(n2));
    const auto schedules = test::build_all(build_lg_alltoall, topology);
    const SimulationReport report = simulate(topology, schedules, alltoall_contract(topology.size()));
    ASSERT_EQ(report.error, "");
    EXPECT_EQ(report.inter_cluster_messages, 2u * size_t(std::max(n1, n2)));
    EXPECT_EQ(report.inter_cluster_steps, size_t((std::max(n1, n2) + std::min(n1, n2) - 1) / std::min(n1, n2)));
    EXPECT_EQ(report.inter_cluster_steps, lg_backbone_steps(topology));
    for (int window : test::kWindows) {
        EXPECT_EQ(test::run_alltoall_bytes(topology, schedules, 2, window), "") << "window " << window;
        if (!all_windows) {
            break;
        }
    }
}

TEST(Lg, EveryPairOfClusterSizesUpTo40)
{
    for (int n2 = 1; n2 <= 40; ++n2) {
        for (int n1 = 1; n1 <= n2; ++n1) {
            check_lg(two_clusters(n1, n2), n1, n2, n2 <= 12);
        }
    }
}

TEST(Lg, LargerClusterFirstAndRanksInterleaved)
{
    std::mt19937 random(2007);
    for (int trial = 0; trial < 100; ++trial) {
        std::uniform_int_distribution<int> size(1, 30);
        const int a = size(random), b = size(random);
        check_lg(two_clusters(a, b, &random), std::min(a, b), std::max(a, b), true);
    }
}

TEST(Lg, PaperExampleThreeAndSeven)
{
    // The paper's n1 = 3, n2 = 7: its rule names "process 10" for C2
    // process 9's messages to C1 process 1; here they ride with process 7.
    const Topology topology = two_clusters(3, 7);
    check_lg(topology, 3, 7, true);
    EXPECT_EQ(lg_backbone_steps(topology), 3u);
}

TEST(Lg, AppliesToTwoClustersOnly)
{
    EXPECT_NE(lg_unfit(Topology::from_node_sizes({2, 2})), nullptr);
    EXPECT_EQ(lg_unfit(two_clusters(2, 3)), nullptr);
    EXPECT_NE(lg_unfit(Topology({0, 1, 2}, {0, 1, 2})), nullptr);
}

} // namespace
} // namespace hier
