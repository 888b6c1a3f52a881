/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The LG alltoall (Jeannot and Steffenel): two clusters with partial groups,
// k clusters, SMP nodes, both backbone variants, alltoallv.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "harness.h"
#include "registry.h"

namespace hier {
namespace {

// Nodes named by node_of_rank, node name n in cluster cluster_of_name[n].
Topology with_clusters(const std::vector<int> &node_of_rank, const std::vector<int> &cluster_of_name)
{
    const Topology nodes(node_of_rank);
    std::vector<int> cluster_of_node(size_t(nodes.node_count()));
    for (int node = 0; node < nodes.node_count(); ++node) {
        cluster_of_node[node] = cluster_of_name[node_of_rank[nodes.members(node)[0]]];
    }
    return Topology(node_of_rank, cluster_of_node);
}

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

// k clusters (every one non-empty) of SMP nodes of 1..max_node processes,
// about `ranks` ranks in all, every rank placed at random.
Topology random_clusters(std::mt19937 &random, int k, int ranks, int max_node)
{
    std::uniform_int_distribution<int> node_size(1, max_node);
    std::vector<int> node_of_rank;
    int nodes = 0;
    for (; nodes < k || int(node_of_rank.size()) < ranks; ++nodes) {
        node_of_rank.insert(node_of_rank.end(), size_t(node_size(random)), nodes);
    }
    std::vector<int> cluster_of_name(static_cast<size_t>(nodes));
    for (int node = 0; node < nodes; ++node) {
        cluster_of_name[node] = node < k ? node : int(random() % unsigned(k));
    }
    std::shuffle(cluster_of_name.begin(), cluster_of_name.end(), random);
    std::shuffle(node_of_rank.begin(), node_of_rank.end(), random);
    return with_clusters(node_of_rank, cluster_of_name);
}

size_t expected_backbone_messages(const Topology &topology)
{
    size_t messages = 0;
    for (int c = 0; c < topology.cluster_count(); ++c) {
        for (int d = c + 1; d < topology.cluster_count(); ++d) {
            messages += 2 * std::max(topology.cluster_members(c).size(), topology.cluster_members(d).size());
        }
    }
    return messages;
}

// lg_overlap's messages beyond lg_at_once's: per pair of clusters (n1 <= n2),
// small processes carry n1 - 1 blocks besides their own to each large one
// they face, and large process b carries the blocks of the large processes
// whose block for small process a = b mod n1 it relays (the paper's rule:
// group * n1 + a, the group before when that does not exist) besides its own.
size_t expected_carried_messages(const Topology &topology)
{
    size_t messages = 0;
    for (int c = 0; c < topology.cluster_count(); ++c) {
        for (int d = c + 1; d < topology.cluster_count(); ++d) {
            const int n1 = int(std::min(topology.cluster_members(c).size(), topology.cluster_members(d).size()));
            const int n2 = int(std::max(topology.cluster_members(c).size(), topology.cluster_members(d).size()));
            messages += n1 > 1 ? size_t(n2) : 0;
            for (int b = 0; b < n2; ++b) {
                int relayed = 0;
                for (int source = 0; source < n2; ++source) {
                    const int k = source / n1 * n1 + b % n1;
                    relayed += (k < n2 ? k : k - n1) == b;
                }
                messages += relayed > 1;
            }
        }
    }
    return messages;
}

bool has_local_messages(const Topology &topology)
{
    for (int c = 0; c < topology.cluster_count(); ++c) {
        if (topology.cluster_members(c).size() > 1) {
            return true;
        }
    }
    return false;
}

// The backbone exchanges of every rank: step -> partner.
std::vector<std::map<uint32_t, int>> backbone_exchanges(const Topology &topology, const std::vector<Schedule> &schedules)
{
    std::vector<std::map<uint32_t, int>> exchanges(schedules.size());
    for (const Schedule &schedule : schedules) {
        for (const Round &round : schedule.rounds()) {
            for (size_t i = 0; i < schedule.op_count(round); ++i) {
                const Op &op = schedule.ops(round)[i];
                if (op.kind == OpKind::Send && topology.cluster_of(op.peer) != topology.cluster_of(schedule.rank())) {
                    EXPECT_EQ(exchanges[schedule.rank()].count(round.step), 0u) << "two backbone exchanges in one step";
                    exchanges[schedule.rank()][round.step] = op.peer;
                }
            }
        }
    }
    return exchanges;
}

// lg's first-fit promise: for every backbone exchange at step t and every
// earlier backbone step, one of its two processes is busy then.
void check_no_idle_backbone(const Topology &topology, const std::vector<Schedule> &schedules, uint32_t first_step)
{
    const auto exchanges = backbone_exchanges(topology, schedules);
    for (size_t rank = 0; rank < exchanges.size(); ++rank) {
        for (const auto &[step, partner] : exchanges[rank]) {
            for (uint32_t earlier = first_step; earlier < step; ++earlier) {
                EXPECT_TRUE(exchanges[rank].count(earlier) || exchanges[partner].count(earlier))
                    << "ranks " << rank << " and " << partner << " both idle at step " << earlier
                    << " before their exchange at step " << step;
            }
        }
    }
}

// How much of the byte-exact runs a topology gets (the simulation always
// runs): alltoall with window 1; also alltoallv; both with every window.
enum class Bytes { Alltoall, AndAlltoallv, EveryWindow };

// Both variants on one topology: delivery, backbone messages and steps,
// local steps, byte-exact runs (alltoall and alltoallv).
void check_lg(const Topology &topology, Bytes bytes_runs, unsigned seed = 1)
{
    SCOPED_TRACE("nodes " + topology.describe() + ", " + std::to_string(topology.cluster_count()) + " clusters");
    const size_t messages = expected_backbone_messages(topology);
    const bool local = has_local_messages(topology);
    ASSERT_EQ(lg_backbone_messages(topology), messages);

    const auto sequential = test::build_all(build_lg_alltoall, topology);
    const SimulationReport paper = test::simulate_op(HIER_OP_ALLTOALL, topology, sequential);
    ASSERT_EQ(paper.error, "");
    EXPECT_EQ(paper.inter_cluster_messages, messages);
    EXPECT_EQ(paper.inter_cluster_steps, lg_backbone_steps(topology));
    EXPECT_EQ(paper.steps, lg_local_steps(topology) + lg_backbone_steps(topology));
    check_no_idle_backbone(topology, sequential, 1 + lg_local_steps(topology));

    const auto at_once = test::build_all(build_lg_at_once_alltoall, topology);
    const SimulationReport burst = test::simulate_op(HIER_OP_ALLTOALL, topology, at_once);
    ASSERT_EQ(burst.error, "");
    EXPECT_EQ(burst.inter_cluster_messages, messages);
    EXPECT_EQ(burst.inter_cluster_steps, 1u);
    EXPECT_EQ(burst.steps, local ? 2u : 1u);

    // lg_overlap: own blocks beside the local phase, carried ones after it.
    const auto overlapped = test::build_all(build_lg_overlap_alltoall, topology);
    const SimulationReport split = test::simulate_op(HIER_OP_ALLTOALL, topology, overlapped);
    ASSERT_EQ(split.error, "");
    const size_t carried = expected_carried_messages(topology);
    EXPECT_EQ(split.inter_cluster_messages, messages + carried);
    EXPECT_EQ(split.inter_cluster_steps, carried > 0 ? 2u : 1u);
    EXPECT_EQ(split.steps, (local ? 1u : 0u) + (carried > 0 ? 2u : 1u));

    std::mt19937 random(seed);
    for (const auto *schedules : {&sequential, &at_once, &overlapped}) {
        for (int window : test::kWindows) {
            EXPECT_EQ(test::run_alltoall_bytes(topology, *schedules, 2, window), "") << "window " << window;
            if (bytes_runs != Bytes::Alltoall) {
                const auto bytes = test::random_alltoallv_bytes(random, topology.size(), 5);
                EXPECT_EQ(test::run_alltoallv_bytes(topology, *schedules, bytes, seed, window), "") << "window " << window;
            }
            if (bytes_runs != Bytes::EveryWindow) {
                break;
            }
        }
    }
}

TEST(Lg, EveryPairOfClusterSizesUpTo40)
{
    for (int n2 = 1; n2 <= 40; ++n2) {
        for (int n1 = 1; n1 <= n2; ++n1) {
            const Topology topology = two_clusters(n1, n2);
            check_lg(topology, n2 <= 12 ? Bytes::EveryWindow : Bytes::Alltoall);
            // The paper's counts: 2 max(n1, n2) messages (checked above) in ceil(n2/n1) steps.
            EXPECT_EQ(lg_backbone_steps(topology), uint32_t((n2 + n1 - 1) / n1)) << n1 << " + " << n2;
        }
    }
}

TEST(Lg, LargerClusterFirstAndRanksInterleaved)
{
    std::mt19937 random(2007);
    for (int trial = 0; trial < 100; ++trial) {
        std::uniform_int_distribution<int> size(1, 30);
        const int a = size(random), b = size(random);
        const Topology topology = two_clusters(a, b, &random);
        check_lg(topology, trial % 4 ? Bytes::AndAlltoallv : Bytes::EveryWindow, unsigned(trial));
        EXPECT_EQ(lg_backbone_steps(topology), uint32_t((std::max(a, b) + std::min(a, b) - 1) / std::min(a, b)));
    }
}

TEST(Lg, PaperExampleThreeAndSeven)
{
    // The paper's n1 = 3, n2 = 7: its rule names "process 10" for C2
    // process 9's messages to C1 process 1; here they ride with process 7.
    const Topology topology = two_clusters(3, 7);
    check_lg(topology, Bytes::EveryWindow);
    EXPECT_EQ(lg_backbone_steps(topology), 3u);
    EXPECT_EQ(lg_backbone_messages(topology), 14u);
}

TEST(Lg, PaperExperiments)
{
    // Sec. 5: 30 + 30 processes in one backbone step, 20 + 40 in two.
    EXPECT_EQ(lg_backbone_steps(two_clusters(30, 30)), 1u);
    EXPECT_EQ(lg_backbone_messages(two_clusters(30, 30)), 60u);
    EXPECT_EQ(lg_backbone_steps(two_clusters(20, 40)), 2u);
    EXPECT_EQ(lg_backbone_messages(two_clusters(20, 40)), 80u);
}

TEST(Lg, EqualClustersTakeTheRoundsOfTheOneFactorization)
{
    // Every pair of clusters meets in one step, pairs in the rounds of the
    // 1-factorization of the clusters: k - 1 steps for even k, k for odd k.
    for (int k = 2; k <= 6; ++k) {
        for (int n : {1, 2, 5}) {
            std::vector<int> node_of_rank(size_t(k * n));
            std::iota(node_of_rank.begin(), node_of_rank.end(), 0);
            std::vector<int> cluster_of_name(node_of_rank.size());
            for (size_t rank = 0; rank < node_of_rank.size(); ++rank) {
                cluster_of_name[rank] = int(rank) % k;
            }
            const Topology topology = with_clusters(node_of_rank, cluster_of_name);
            EXPECT_EQ(lg_backbone_steps(topology), uint32_t(k % 2 ? k : k - 1)) << k << " clusters of " << n;
            check_lg(topology, Bytes::AndAlltoallv);
        }
    }
}

TEST(Lg, UnevenClustersOverlapTheirPairs)
{
    // Clusters of 2, 3 and 4: pairs of 2, 2 and 2 paper steps, which one
    // after another would take 6; the 4-cluster's processes that the pair
    // with the 2-cluster leaves free take the 3-cluster's exchanges meanwhile.
    std::vector<int> node_of_rank(9);
    std::iota(node_of_rank.begin(), node_of_rank.end(), 0);
    const Topology topology = with_clusters(node_of_rank, {0, 0, 1, 1, 1, 2, 2, 2, 2});
    check_lg(topology, Bytes::EveryWindow);
    EXPECT_LT(lg_backbone_steps(topology), 6u);
    // The 2-cluster's processes carry 7 exchanges: at least 4 steps.
    EXPECT_GE(lg_backbone_steps(topology), 4u);
}

TEST(Lg, KClustersOfSmpNodesInAnyOrder)
{
    std::mt19937 random(4242);
    for (int trial = 0; trial < 40; ++trial) {
        const int k = 2 + trial % 4;
        const int ranks = trial % 13 == 0 ? 200 : int(random() % 40) + k;
        const Topology topology = random_clusters(random, k, ranks, 4);
        ASSERT_EQ(topology.cluster_count(), k);
        check_lg(topology, ranks <= 40 ? Bytes::EveryWindow : Bytes::AndAlltoallv, unsigned(trial));
        // Per process and step at most one backbone exchange (checked in
        // check_no_idle_backbone), so no fewer steps than the busiest
        // process has exchanges.
        const auto exchanges = backbone_exchanges(topology, test::build_all(build_lg_alltoall, topology));
        size_t busiest = 0;
        for (const auto &steps : exchanges) {
            busiest = std::max(busiest, steps.size());
        }
        EXPECT_GE(lg_backbone_steps(topology), busiest);
    }
}

TEST(Lg, OneProcessNodesKeepTheSinglePortModel)
{
    // lg's local phase is factor's (one message in and out per node and
    // step) and its backbone one exchange per process and step.
    std::mt19937 random(5);
    for (int trial = 0; trial < 20; ++trial) {
        const Topology topology = random_clusters(random, 2 + trial % 3, 30, 1);
        const auto schedules = test::build_all(build_lg_alltoall, topology);
        EXPECT_EQ(test::simulate_op(HIER_OP_ALLTOALL, topology, schedules).max_port_load, 1u) << topology.describe();
    }
}

TEST(Lg, SmpLocalPhaseIsTheFactorSchedule)
{
    // One cluster of nodes 1, 2, 3 (Sanders and Traeff's Fig. 3: 15 steps)
    // and one of a single process: the local phase takes factor's 15 steps,
    // then the backbone ceil(6/1) = 6.
    const Topology topology = with_clusters({0, 1, 1, 2, 2, 2, 3}, {0, 0, 0, 1});
    EXPECT_EQ(lg_local_steps(topology), 15u);
    EXPECT_EQ(lg_backbone_steps(topology), 6u);
    check_lg(topology, Bytes::EveryWindow);
}

TEST(Lg, AppliesToTwoClustersOrMore)
{
    EXPECT_NE(lg_unfit(Topology::from_node_sizes({2, 2})), nullptr);
    EXPECT_EQ(lg_unfit(two_clusters(2, 3)), nullptr);
    EXPECT_EQ(lg_unfit(Topology({0, 1, 2}, {0, 1, 2})), nullptr);
}

TEST(Lg, AlltoallvRowsUseSingleUserBlocksAndWriteTmpOnce)
{
    // What the component's alltoallv relies on, for every row it runs:
    // SEND and RECV regions of one block, every TMP block written once.
    std::mt19937 random(77);
    for (int trial = 0; trial < 30; ++trial) {
        const Topology topology = random_clusters(random, 1 + trial % 4, 25, 3);
        for (const Algorithm *algorithm : algorithms_for(HIER_OP_ALLTOALLV)) {
            if (algorithm->unfit(topology)) {
                continue;
            }
            for (const Schedule &schedule : test::build_all(algorithm->build, topology)) {
                std::vector<int> writes(schedule.tmp_blocks(), 0);
                for (const Round &round : schedule.rounds()) {
                    for (size_t i = 0; i < schedule.op_count(round); ++i) {
                        const Op &op = schedule.ops(round)[i];
                        for (const Region &r : {op.from, op.to}) {
                            EXPECT_TRUE(r.buffer == HIER_BUF_TMP || r.count <= 1) << algorithm->name;
                        }
                        if (op.kind != OpKind::Send && op.to.buffer == HIER_BUF_TMP) {
                            for (uint32_t b = op.to.first; b < op.to.first + op.to.count; ++b) {
                                ++writes[b];
                            }
                        }
                    }
                }
                EXPECT_TRUE(std::all_of(writes.begin(), writes.end(), [](int n) { return n <= 1; })) << algorithm->name;
            }
            const auto bytes = test::random_alltoallv_bytes(random, topology.size(), 9);
            EXPECT_EQ(test::run_alltoallv_bytes(topology, test::build_all(algorithm->build, topology), bytes, 3), "")
                << algorithm->name << " on " << topology.describe();
        }
    }
}

} // namespace
} // namespace hier
