/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// auto's alltoall comparison shared out over ranks (autoselect.h:
// ModelShare): k ranks, rehearsed one after the other with a fake
// allreduce (MAX), must reach exactly the unshared comparison, bit for bit,
// and call agree exactly when model_shared says, once per rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>

#include "autoselect.h"
#include "model.h"

namespace hier {
namespace {

uint64_t bits(double value)
{
    uint64_t out;
    std::memcpy(&out, &value, sizeof out);
    return out;
}

std::string text(const char *reason)
{
    return reason ? reason : "(none)";
}

void expect_same_prediction(const Prediction &a, const Prediction &b, const std::string &where)
{
    EXPECT_EQ(a.error, b.error) << where;
    EXPECT_EQ(bits(a.seconds), bits(b.seconds)) << where << ": " << a.seconds << " " << b.seconds;
    EXPECT_EQ(a.rounds, b.rounds) << where;
    for (int c = 0; c < kLinkClasses; ++c) {
        EXPECT_EQ(a.traffic[c].messages, b.traffic[c].messages) << where << " class " << c;
        EXPECT_EQ(a.traffic[c].bytes, b.traffic[c].bytes) << where << " class " << c;
    }
}

void expect_same_contender(const Contender &a, const Contender &b, const std::string &where)
{
    EXPECT_EQ(a.algorithm, b.algorithm) << where;
    EXPECT_EQ(text(a.name), text(b.name)) << where;
    EXPECT_EQ(bits(a.worst_ratio), bits(b.worst_ratio)) << where;
    ASSERT_EQ(a.predictions.size(), b.predictions.size()) << where;
    for (size_t m = 0; m < a.predictions.size(); ++m) {
        expect_same_prediction(a.predictions[m], b.predictions[m], where + " M" + std::to_string(m + 1));
    }
}

// Everything auto and hier-inspect read of a comparison.
void expect_same(const Comparison &shared, const Comparison &alone, const std::string &where)
{
    EXPECT_EQ(describe(shared), describe(alone)) << where;
    EXPECT_EQ(text(shared.why_not), text(alone.why_not)) << where;
    EXPECT_EQ(shared.scale_model, alone.scale_model) << where;
    EXPECT_EQ(shared.choice.id, alone.choice.id) << where;
    EXPECT_EQ(shared.choice.algorithm, alone.choice.algorithm) << where;
    EXPECT_EQ(text(shared.choice.reason), text(alone.choice.reason)) << where;
    EXPECT_EQ(shared.machines.size(), alone.machines.size()) << where;
    expect_same_contender(shared.open_mpi, alone.open_mpi, where + " open-mpi");
    ASSERT_EQ(shared.rows.size(), alone.rows.size()) << where;
    for (size_t r = 0; r < shared.rows.size(); ++r) {
        expect_same_contender(shared.rows[r], alone.rows[r], where + " " + text(alone.rows[r].name));
    }
    ASSERT_EQ(shared.measure.size(), alone.measure.size()) << where;
    for (size_t r = 0; r < shared.measure.size(); ++r) {
        EXPECT_EQ(shared.measure[r].algorithm, alone.measure[r].algorithm) << where;
        EXPECT_EQ(bits(shared.measure[r].best_ratio), bits(alone.measure[r].best_ratio)) << where;
        EXPECT_EQ(bits(shared.measure[r].worst_ratio), bits(alone.measure[r].worst_ratio)) << where;
    }
}

// k ranks deciding one after the other, as the glue's ranks would at once:
// first each computes its share and hands its vector to agree (kept here),
// then the vectors' element-wise MAX is what agree gives every rank on a
// second run, whose comparisons are returned. *calls: agree's calls per
// rank on the second run; the first run's must be the same.
std::vector<Comparison> decide_shared(const Topology &topology, size_t block_bytes, int window,
                                      const LinkCostSpec &costs, int k, std::vector<int> *calls,
                                      bool agree_fails = false)
{
    std::vector<std::vector<double>> sent(static_cast<size_t>(k));
    std::vector<int> first_calls(size_t(k), 0);
    for (int rank = 0; rank < k; ++rank) {
        ModelShare share;
        share.index = rank;
        share.count = k;
        share.agree = [&](double *values, size_t length) {
            sent[size_t(rank)].assign(values, values + length);
            ++first_calls[size_t(rank)];
            return true;
        };
        compare_alltoall(topology, Plans(), block_bytes, window, costs, share);
    }
    std::vector<double> combined;
    for (const std::vector<double> &vector : sent) {
        if (combined.empty()) {
            combined.assign(vector.size(), -std::numeric_limits<double>::infinity());
        }
        EXPECT_EQ(vector.size(), combined.size()) << "every rank's vector is as long";
        for (size_t i = 0; i < std::min(vector.size(), combined.size()); ++i) {
            combined[i] = std::max(combined[i], vector[i]);
        }
    }
    calls->assign(size_t(k), 0);
    std::vector<Comparison> comparisons;
    for (int rank = 0; rank < k; ++rank) {
        ModelShare share;
        share.index = rank;
        share.count = k;
        share.agree = [&](double *values, size_t length) {
            // The rank computes the same share again: nothing varies between runs.
            EXPECT_TRUE(std::equal(values, values + length, sent[size_t(rank)].begin(), sent[size_t(rank)].end()));
            ++(*calls)[size_t(rank)];
            if (agree_fails || length != combined.size()) {
                return false;
            }
            std::copy(combined.begin(), combined.end(), values);
            return true;
        };
        comparisons.push_back(compare_alltoall(topology, Plans(), block_bytes, window, costs, share));
    }
    EXPECT_EQ(first_calls, *calls);
    return comparisons;
}

Topology clusters_of(const std::vector<int> &node_sizes, const std::vector<int> &nodes_per_cluster)
{
    const Topology nodes = Topology::from_node_sizes(node_sizes);
    std::vector<int> node_of_rank(size_t(nodes.size()));
    for (int rank = 0; rank < nodes.size(); ++rank) {
        node_of_rank[size_t(rank)] = nodes.node_of(rank);
    }
    std::vector<int> cluster_of_node;
    for (size_t c = 0; c < nodes_per_cluster.size(); ++c) {
        cluster_of_node.insert(cluster_of_node.end(), size_t(nodes_per_cluster[c]), int(c));
    }
    return Topology(node_of_rank, cluster_of_node);
}

LinkCostSpec parsed(const char *costs)
{
    LinkCostSpec spec;
    std::string error;
    EXPECT_TRUE(parse_link_costs(costs, &spec, &error)) << error;
    return spec;
}

struct Case {
    std::string name;
    Topology topology;
};

// The units of a comparison: its contenders on its machines.
size_t units_of(const Comparison &comparison)
{
    return (comparison.rows.size() + 1) * comparison.machines.size();
}

void expect_shared_as_alone(const Case &c, size_t block_bytes, int window, const LinkCostSpec &costs,
                            const std::string &costs_name, std::vector<int> ks)
{
    const Comparison alone = compare_alltoall(c.topology, Plans(), block_bytes, window, costs);
    const bool modelled = !alone.scale_model && alone.why_not == nullptr;
    ks.push_back(c.topology.size());
    ks.push_back(int(units_of(alone)) + 3);  // more ranks than units: some compute nothing
    for (int k : ks) {
        const std::string where = c.name + ", " + std::to_string(block_bytes) + " B, window " +
                                  std::to_string(window) + ", costs " + costs_name + ", " + std::to_string(k) +
                                  " ranks";
        std::vector<int> calls;
        const std::vector<Comparison> shared = decide_shared(c.topology, block_bytes, window, costs, k, &calls);
        ModelShare share{0, k, [](double *, size_t) { return true; }};
        EXPECT_EQ(model_shared(HIER_OP_ALLTOALL, c.topology, share), modelled && k > 1) << where;
        for (int rank = 0; rank < k; ++rank) {
            EXPECT_EQ(calls[size_t(rank)], modelled && k > 1 ? 1 : 0) << where << ", rank " << rank;
            expect_same(shared[size_t(rank)], alone, where + ", rank " + std::to_string(rank));
        }
    }
}

TEST(SharedModel, EveryShareGivesTheUnsharedComparisonBitForBit)
{
    const std::vector<Case> cases = {
        {"2 nodes of 1", Topology::from_node_sizes({1, 1})},
        {"uniform 4x4", Topology::from_node_sizes({4, 4, 4, 4})},
        {"uneven 4,3,2,1", Topology::from_node_sizes({4, 3, 2, 1})},
        {"uneven 5,1,3,7", Topology::from_node_sizes({5, 1, 3, 7})},
        {"two-clusters 3+6", clusters_of(std::vector<int>(9, 1), {3, 6})},
        {"two-clusters-smp", clusters_of(std::vector<int>(9, 2), {3, 6})},
        {"three clusters", clusters_of({2, 1, 3, 2, 2, 1}, {2, 1, 3})},
        {"torus 3x4", Topology::from_torus_dims({3, 4})},
        {"torus 2x2x4", Topology::from_torus_dims({2, 2, 4})},
        {"one node", Topology::from_node_sizes({6})},
    };
    LinkCostSpec probed = parsed("probe");
    apply_probe(&probed, std::vector<double>(16, 60e-6), {});
    const double per_message[kBackboneLink] = {45e-6, 60e-6};
    apply_message_probe(&probed, per_message);
    const std::vector<std::pair<std::string, LinkCostSpec>> costs = {
        {"unknown", LinkCostSpec()},
        {"given", parsed("node=1us:40Gbit/s,network=50us:1Gbit/s,backbone=5ms:100Mbit/s,hop=2us")},
        {"probed", probed},
    };
    for (const Case &c : cases) {
        for (const auto &[costs_name, spec] : costs) {
            for (size_t bytes : {size_t(8), size_t(98304)}) {
                expect_shared_as_alone(c, bytes, 1, spec, costs_name, {1, 2, 3, 7, 18});
            }
        }
        expect_shared_as_alone(c, 1536, 64, LinkCostSpec(), "unknown", {2, 7});
    }
}

TEST(SharedModel, LargeCommunicatorsToo)
{
    // 64 and 128 ranks: the simulator's largest; 129: the scale model,
    // which is not shared (agree not called, the comparison as alone).
    const std::vector<Case> cases = {
        {"8 nodes of 8", Topology::from_node_sizes(std::vector<int>(8, 8))},
        {"torus 4x4x4", Topology::from_torus_dims({4, 4, 4})},
        {"8 nodes of 16", Topology::from_node_sizes(std::vector<int>(8, 16))},
        {"two clusters of 4 nodes of 16", clusters_of(std::vector<int>(8, 16), {4, 4})},
        {"129 nodes of 1", Topology::from_node_sizes(std::vector<int>(129, 1))},
    };
    // At 128 ranks only p and more than the units (each k costs two whole
    // comparisons here, a second each; at given costs 18 is more than the
    // units too).
    const LinkCostSpec given = parsed("node=1us:40Gbit/s,network=50us:1Gbit/s,backbone=5ms:100Mbit/s");
    for (const Case &c : cases) {
        expect_shared_as_alone(c, 1536, 1, given, "given",
                               c.topology.size() <= 64 ? std::vector<int>{1, 2, 3, 7, 18} : std::vector<int>{});
    }
    expect_shared_as_alone(cases[0], 96, 1, LinkCostSpec(), "unknown", {3, 18});
}

TEST(SharedModel, AgreeIsCalledOnlyForASimulatedAlltoall)
{
    int calls = 0;
    const ModelShare share{0, 4, [&](double *, size_t) {
                               ++calls;
                               return true;
                           }};
    const Topology two = Topology::from_node_sizes({2, 2});
    std::string line;
    for (hier_op_t op : {HIER_OP_BARRIER, HIER_OP_ALLTOALLV, HIER_OP_ALLGATHER, HIER_OP_ALLREDUCE}) {
        choose_auto(op, two, Plans(), 64, 1, LinkCostSpec(), &line, nullptr, share);
        EXPECT_FALSE(model_shared(op, two, share)) << op_name(op);
    }
    EXPECT_EQ(calls, 0);
    const Topology wide = Topology::from_node_sizes(std::vector<int>(kMaxModelledRanks + 1, 1));
    EXPECT_FALSE(model_shared(HIER_OP_ALLTOALL, wide, share));
    const Choice scaled = choose_auto(HIER_OP_ALLTOALL, wide, Plans(), 64, 1, LinkCostSpec(), &line, nullptr, share);
    EXPECT_EQ(calls, 0);
    EXPECT_EQ(scaled.id, compare_alltoall(wide, Plans(), 64, 1, LinkCostSpec()).choice.id);
    EXPECT_FALSE(model_shared(HIER_OP_ALLTOALL, Topology::from_node_sizes({8}), share));
    choose_auto(HIER_OP_ALLTOALL, Topology::from_node_sizes({8}), Plans(), 64, 1, LinkCostSpec(), &line, nullptr,
                share);
    EXPECT_EQ(calls, 0);
    // Not shared: one rank, or no callback.
    EXPECT_FALSE(model_shared(HIER_OP_ALLTOALL, two, ModelShare{0, 1, share.agree}));
    EXPECT_FALSE(model_shared(HIER_OP_ALLTOALL, two, ModelShare{0, 4, nullptr}));
    choose_auto(HIER_OP_ALLTOALL, two, Plans(), 64, 1, LinkCostSpec(), &line, nullptr, ModelShare{0, 1, share.agree});
    EXPECT_EQ(calls, 0);
    // Shared: once per decision, through choose_auto as through compare_alltoall.
    EXPECT_TRUE(model_shared(HIER_OP_ALLTOALL, two, share));
    choose_auto(HIER_OP_ALLTOALL, two, Plans(), 64, 1, LinkCostSpec(), &line, nullptr, share);
    EXPECT_EQ(calls, 1);
}

TEST(SharedModel, ChooseAutoSharedGivesTheUnsharedChoiceLineAndRows)
{
    // two-clusters-smp at 64 KiB, costs unknown: the model cannot tell, rows to measure.
    const Topology topology = clusters_of(std::vector<int>(9, 2), {3, 6});
    std::string alone_line;
    std::vector<TrialRow> alone_rows;
    const Choice alone =
        choose_auto(HIER_OP_ALLTOALL, topology, Plans(), 98304, 1, LinkCostSpec(), &alone_line, &alone_rows);
    std::vector<int> calls;
    const std::vector<Comparison> shared = decide_shared(topology, 98304, 1, LinkCostSpec(), 18, &calls);
    ASSERT_EQ(shared.size(), 18u);
    EXPECT_EQ(describe(shared[0]), alone_line);
    EXPECT_EQ(shared[5].choice.id, alone.id);
    EXPECT_EQ(algorithms_of(shared[17].measure), algorithms_of(alone_rows));
    EXPECT_FALSE(alone_rows.empty()) << alone_line;
}

TEST(SharedModel, AFailedAgreeFallsBackOnEveryRank)
{
    const Topology topology = clusters_of(std::vector<int>(9, 2), {3, 6});
    std::vector<int> calls;
    // 16 + 16 nodes at 96 B: alone, lg_overlap is picked (test_model.cc).
    const Topology picked = clusters_of(std::vector<int>(32, 1), {16, 16});
    ASSERT_NE(compare_alltoall(picked, Plans(), 96, 1, LinkCostSpec()).choice.algorithm, nullptr);
    for (const Topology *t : {&topology, &picked}) {
        const std::vector<Comparison> failed = decide_shared(*t, 96, 1, LinkCostSpec(), 5, &calls, true);
        for (const Comparison &comparison : failed) {
            EXPECT_EQ(comparison.choice.algorithm, nullptr);
            EXPECT_EQ(comparison.choice.id, HIER_ALG_FALLBACK);
            ASSERT_NE(comparison.choice.reason, nullptr);
            EXPECT_NE(std::string(comparison.choice.reason).find("could not combine"), std::string::npos);
            EXPECT_TRUE(comparison.measure.empty());
            EXPECT_EQ(describe(comparison), describe(failed[0]));
        }
        EXPECT_EQ(calls, std::vector<int>(5, 1));
    }
}

TEST(SharedModel, AUnitNoRankComputedFallsBackOnEveryRank)
{
    // Two ranks that both say they are rank 0 of 2: rank 1's units stay
    // -inf after the MAX, and both fall back rather than decide on them.
    const Topology topology = Topology::from_node_sizes({4, 3, 2, 1});
    std::vector<double> first;
    const ModelShare keep{0, 2, [&](double *values, size_t length) {
                              first.assign(values, values + length);
                              return true;
                          }};
    compare_alltoall(topology, Plans(), 1536, 1, LinkCostSpec(), keep);
    ASSERT_FALSE(first.empty());
    const ModelShare combine{0, 2, [&](double *values, size_t length) {
                                 for (size_t i = 0; i < length; ++i) {
                                     values[i] = std::max(values[i], first[i]);
                                 }
                                 return true;
                             }};
    const Comparison comparison = compare_alltoall(topology, Plans(), 1536, 1, LinkCostSpec(), combine);
    EXPECT_EQ(comparison.choice.algorithm, nullptr);
    EXPECT_NE(describe(comparison).find("could not combine"), std::string::npos) << describe(comparison);
}

TEST(SharedModel, UnitsGoToRanksInConsecutiveRunsOfEqualCount)
{
    for (size_t units : {size_t(1), size_t(9), size_t(44), size_t(48)}) {
        for (int count : {1, 2, 3, 7, 18, 128}) {
            const std::vector<int> owner = share_units(units, count);
            ASSERT_EQ(owner.size(), units);
            std::vector<size_t> per_rank(size_t(count), 0);
            for (size_t u = 0; u < units; ++u) {
                ASSERT_GE(owner[u], 0);
                ASSERT_LT(owner[u], count);
                EXPECT_TRUE(u == 0 || owner[u] >= owner[u - 1]) << units << " over " << count;
                ++per_rank[size_t(owner[u])];
            }
            const auto [least, most] = std::minmax_element(per_rank.begin(), per_rank.end());
            EXPECT_LE(*most - *least, 1u) << units << " over " << count;
        }
    }
}

TEST(SharedModel, ErrorsGoBetweenRanksAsCodes)
{
    EXPECT_EQ(error_text(0), "");
    EXPECT_EQ(error_code(""), 0);
    EXPECT_EQ(error_text(1), "too large to model");
    for (double code : {1.0, 2.0, 3.0, 129.0}) {
        EXPECT_EQ(error_code(error_text(code)), code);
    }
    EXPECT_EQ(error_text(2 + 5), "rank 5 never finishes (a receive nobody sends)");
    EXPECT_EQ(error_code("something else"), -1);
    EXPECT_FALSE(error_text(-1).empty());  // still an error on the ranks that did not compute it
}

} // namespace
} // namespace hier
