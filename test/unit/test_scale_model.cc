/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The scale model (scale_model.h): auto's alltoall decisions above
// kMaxModelledRanks. Decisions are the same on every call; where physics
// settles the answer the pick is checked against the reason; rows that do
// not apply are never offered. The agreement with the simulator on p = 16
// to 128 is printed (ScaleModel.AgreesWithTheSimulator; the full table of
// docs/scale-model.md with HIER_SCALE_VALIDATE=1), and so is the time of a
// decision at p = 1,024, 4,096 and 16,384: neither is asserted on.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "autoselect.h"
#include "scale_model.h"

namespace hier {
namespace {

// Nodes of the given sizes (consecutive ranks), in clusters of the given
// numbers of nodes (empty: one cluster).
Topology layout(const std::vector<int> &node_sizes, const std::vector<int> &cluster_nodes = {})
{
    std::vector<int> node_of_rank, cluster_of_node;
    for (size_t node = 0; node < node_sizes.size(); ++node) {
        node_of_rank.insert(node_of_rank.end(), size_t(node_sizes[node]), int(node));
    }
    for (size_t cluster = 0; cluster < cluster_nodes.size(); ++cluster) {
        cluster_of_node.insert(cluster_of_node.end(), size_t(cluster_nodes[cluster]), int(cluster));
    }
    return Topology(node_of_rank, cluster_of_node);
}

std::vector<int> repeat(int count, int size)
{
    return std::vector<int>(size_t(count), size);
}

// Uneven nodes: sizes cycling through 1..largest, `ranks` in all.
std::vector<int> uneven(int ranks, int largest)
{
    std::vector<int> sizes;
    for (int i = 0, left = ranks; left > 0; ++i) {
        const int size = std::min(left, 1 + (i * 7) % largest);
        sizes.push_back(size);
        left -= size;
    }
    return sizes;
}

LinkCostSpec costs(const char *text)
{
    LinkCostSpec spec;
    std::string error;
    EXPECT_TRUE(parse_link_costs(text, &spec, &error)) << error;
    return spec;
}

const char *picked(const Comparison &comparison)
{
    return comparison.choice.algorithm ? comparison.choice.algorithm->name : "fallback";
}

bool is_lg(const char *name)
{
    const std::string n = name;
    return n == "lg" || n == "lg_at_once" || n == "lg_overlap";
}

// The rows that aggregate what crosses a backbone and pay its latency once:
// the lg rows, and node_lg (LG over the nodes).
bool aggregates(const char *name)
{
    return is_lg(name) || std::string(name) == "node_lg";
}

struct Case {
    std::string name;
    Topology topology;
};

// Layouts from 2 to 16,384 ranks: uniform, uneven, 2 and 3 clusters, torus.
std::vector<Case> layouts()
{
    std::vector<Case> cases;
    for (int p : {2, 16, 128, 129, 1024, 4096, 16384}) {
        const int per_node = p >= 16 ? 16 : 1;
        cases.push_back({"uniform " + std::to_string(p), layout(repeat(p / per_node, per_node))});
        if (p >= 16) {
            cases.push_back({"uneven " + std::to_string(p), layout(uneven(p, 32))});
            const int nodes = p / per_node;
            cases.push_back(
                {"2 clusters " + std::to_string(p), layout(repeat(nodes, per_node), {nodes / 4, nodes - nodes / 4})});
            if (nodes >= 3) {
                cases.push_back({"3 clusters " + std::to_string(p),
                                 layout(repeat(nodes, per_node), {nodes / 3, nodes / 3, nodes - 2 * (nodes / 3)})});
            }
        }
    }
    cases.push_back({"torus 4x4", Topology::from_torus_dims({4, 4})});
    cases.push_back({"torus 32x32", Topology::from_torus_dims({32, 32})});
    cases.push_back({"torus 128x128", Topology::from_torus_dims({128, 128})});
    cases.push_back({"torus 16x16x16", Topology::from_torus_dims({16, 16, 16})});
    return cases;
}

TEST(ScaleModel, DecisionsAreTheSameOnEveryCall)
{
    const LinkCostSpec unknown;
    const LinkCostSpec slow_backbone = costs("backbone=5ms:100Mbit/s");
    for (const Case &c : layouts()) {
        for (size_t block : {size_t(1), size_t(96), size_t(1536), size_t(49152)}) {
            // The simulator's cases (p <= 128) are slow: above 16 ranks, the
            // uniform layout at one block size only.
            if (c.topology.size() <= kMaxModelledRanks && c.topology.size() > 16 &&
                (block != 96 || c.name.rfind("uniform", 0) != 0)) {
                continue;
            }
            const LinkCostSpec &spec = c.topology.cluster_count() > 1 ? slow_backbone : unknown;
            const Comparison first = compare_alltoall(c.topology, Plans(), block, 1, spec);
            for (int again = 0; again < 2; ++again) {
                const Comparison next = compare_alltoall(c.topology, Plans(), block, 1, spec);
                EXPECT_EQ(next.choice.id, first.choice.id) << c.name << " at " << block;
                EXPECT_EQ(describe(next), describe(first)) << c.name << " at " << block;
            }
            // A copy of the topology (another rank's) decides alike.
            const Topology copy = c.topology;
            EXPECT_EQ(describe(compare_alltoall(copy, Plans(), block, 1, spec)), describe(first)) << c.name;
            EXPECT_EQ(first.scale_model, c.topology.size() > kMaxModelledRanks) << c.name;
        }
    }
}

// Each alltoall row carries its closed form (Algorithm::scale_cost); only
// edgecolor and hypercube, whose schedules are searches, have none.
TEST(ScaleModel, EveryAlltoallRowButTheSearchedOnesHasAClosedForm)
{
    for (const Algorithm *row : algorithms_for(HIER_OP_ALLTOALL)) {
        const std::string name = row->name;
        EXPECT_EQ(scale_models(row), name != "edgecolor" && name != "hypercube") << name;
    }
    for (const Algorithm *row : algorithms_for(HIER_OP_SCATTER)) {
        EXPECT_FALSE(scale_models(row)) << row->name;
    }
}

TEST(ScaleModel, NoRowThatDoesNotApplyIsOffered)
{
    for (const Case &c : layouts()) {
        if (c.topology.size() <= kMaxModelledRanks) {
            continue;
        }
        const Comparison comparison = compare_alltoall(c.topology, Plans(), 96, 1, LinkCostSpec());
        for (const Contender &row : comparison.rows) {
            EXPECT_EQ(row.algorithm->unfit(c.topology), nullptr) << c.name << ": " << row.name;
            if (!scale_models(row.algorithm)) {
                EXPECT_FALSE(row.modelled()) << c.name << ": " << row.name;
            }
        }
        if (comparison.choice.algorithm) {
            EXPECT_EQ(comparison.choice.algorithm->unfit(c.topology), nullptr) << c.name;
            EXPECT_TRUE(scale_models(comparison.choice.algorithm)) << c.name;
        }
        const bool any_lg = std::any_of(comparison.rows.begin(), comparison.rows.end(),
                                        [](const Contender &row) { return is_lg(row.name); });
        EXPECT_EQ(any_lg, c.topology.cluster_count() > 1) << c.name;
        const bool node_lg = std::any_of(comparison.rows.begin(), comparison.rows.end(),
                                         [](const Contender &row) { return std::string(row.name) == "node_lg"; });
        EXPECT_EQ(node_lg, c.topology.largest_node_size() > 1) << c.name;
        for (const Contender &row : comparison.rows) {
            if (row.modelled()) {
                for (const Prediction &prediction : row.predictions) {
                    EXPECT_TRUE(std::isfinite(prediction.seconds) && prediction.seconds > 0) << c.name << row.name;
                }
            }
        }
    }
}

// Above 128 ranks the scale model decides, but the link-cost probes (an
// N x N table of node leaders' ping-pongs) stay off: Settings::probes
// (settings.cc) follows alltoall_unmodelled.
TEST(ScaleModel, TheProbesStayOffAboveTheSimulatorsLimit)
{
    EXPECT_EQ(alltoall_unmodelled(128, 8), nullptr);
    EXPECT_NE(alltoall_unmodelled(129, 8), nullptr);
    EXPECT_EQ(alltoall_undecided(129, 8), nullptr);
    EXPECT_EQ(alltoall_undecided(16384, 1024), nullptr);
    EXPECT_STREQ(alltoall_unmodelled(16384, 1), "all ranks on one node");
    EXPECT_STREQ(alltoall_undecided(16384, 1), "all ranks on one node");
}

TEST(ScaleModel, OneNodeFallsBackWithItsReason)
{
    for (int p : {129, 1024, 16384}) {
        const Comparison comparison = compare_alltoall(layout({p}), Plans(), 64, 1, LinkCostSpec());
        EXPECT_EQ(comparison.choice.algorithm, nullptr);
        ASSERT_NE(comparison.why_not, nullptr);
        EXPECT_STREQ(comparison.why_not, "all ranks on one node");
        EXPECT_NE(describe(comparison).find("scale model not run: all ranks on one node"), std::string::npos);
    }
}

// Behind a 5 ms backbone every round that crosses it costs 5 ms: tuned's
// Bruck crosses it log2 p times and its pairwise p - r times, LG once (or a
// few steps), with no more bytes over it than any alltoall must move.
TEST(ScaleModel, TwoClustersBehindASlowBackbonePickLgForSmallBlocks)
{
    const LinkCostSpec spec = costs("backbone=5ms:100Mbit/s");
    for (int p : {1024, 4096, 16384}) {
        for (size_t block : {size_t(1), size_t(8), size_t(96)}) {
            const int nodes = p / 16;
            const Comparison even =
                compare_alltoall(layout(repeat(nodes, 16), {nodes / 2, nodes / 2}), Plans(), block, 1, spec);
            EXPECT_TRUE(aggregates(picked(even))) << p << " at " << block << ": " << describe(even);
            EXPECT_TRUE(even.scale_model);
            const Comparison lopsided =
                compare_alltoall(layout(repeat(nodes, 16), {nodes / 4, nodes - nodes / 4}), Plans(), block, 1, spec);
            EXPECT_TRUE(aggregates(picked(lopsided))) << p << " at " << block << ": " << describe(lopsided);
        }
    }
}

TEST(ScaleModel, TheLineSaysScaleModel)
{
    const Comparison comparison = compare_alltoall(layout(repeat(64, 16)), Plans(), 96, 1, LinkCostSpec());
    const std::string line = describe(comparison);
    EXPECT_EQ(line.rfind("scale model at 96 B/block", 0), 0u) << line;
    EXPECT_NE(line.find("edgecolor not modelled"), std::string::npos) << line;
    EXPECT_NE(line.find("hypercube not modelled"), std::string::npos) << line;
    std::string chosen;
    const Choice choice =
        choose_auto(HIER_OP_ALLTOALL, layout(repeat(64, 16)), Plans(), 96, 1, LinkCostSpec(), &chosen);
    EXPECT_EQ(chosen, line);
    EXPECT_EQ(choice.id, comparison.choice.id);
}

// The time of one decision (the topology built beforehand), printed for
// docs/scale-model.md; not asserted on.
TEST(ScaleModel, DecisionTime)
{
    const LinkCostSpec unknown;
    for (int p : {1024, 4096, 16384}) {
        const struct {
            const char *name;
            Topology topology;
        } shapes[] = {
            {"uniform 16/node", layout(repeat(p / 16, 16))},
            {"uneven", layout(uneven(p, 32))},
            {"3 clusters", layout(repeat(p / 16, 16), {p / 48, p / 48, p / 16 - 2 * (p / 48)})},
            {"one rank per node", layout(repeat(p, 1), {p / 2, p / 2})},
        };
        for (const auto &shape : shapes) {
            const int calls = 20;
            const auto start = std::chrono::steady_clock::now();
            int id = 0;
            for (int i = 0; i < calls; ++i) {
                id += compare_alltoall(shape.topology, Plans(), size_t(1) << (i % 17), 1, unknown).choice.id;
            }
            const double ms =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / calls;
            std::printf("[ scale    ] decision at p = %5d, %-18s %d nodes: %.3f ms (ids %d)\n", p, shape.name,
                        shape.topology.node_count(), ms, id);
        }
    }
}

// Where the scale model picks hier at scale (printed for
// docs/scale-model.md; not asserted on): nodes x ranks per node, by block
// size, on the unknown machines' corners and behind a given 5 ms backbone.
TEST(ScaleModel, WhereItPicksHier)
{
    const size_t blocks[] = {1, 16, 256, 4096, 65536};
    auto row = [&](const char *what, const Topology &topology, const LinkCostSpec &spec) {
        std::printf("[ where    ] %-34s", what);
        for (size_t block : blocks) {
            const Comparison c = compare_alltoall(topology, Plans(), block, 1, spec);
            double best = std::numeric_limits<double>::infinity();
            for (const Contender &r : c.rows) {
                best = r.modelled() ? std::min(best, r.worst_ratio) : best;
            }
            std::printf(" %6zu B %-10s x%.2f |", block, picked(c), best);
        }
        std::printf("\n");
    };
    char name[64];
    for (int nodes : {16, 64, 256, 1024}) {
        for (int per_node : {1, 4, 16, 64}) {
            if (nodes * per_node <= kMaxModelledRanks || nodes * per_node > 65536) {
                continue;
            }
            std::snprintf(name, sizeof name, "%d nodes x %d", nodes, per_node);
            row(name, layout(repeat(nodes, per_node)), LinkCostSpec());
        }
    }
    for (int p : {1024, 16384}) {
        std::snprintf(name, sizeof name, "uneven 1..32, p %d", p);
        row(name, layout(uneven(p, 32)), LinkCostSpec());
    }
    const LinkCostSpec wan = costs("backbone=5ms:100Mbit/s");
    for (int nodes : {64, 1024}) {
        for (int per_node : {1, 16}) {
            std::snprintf(name, sizeof name, "2 clusters %d x %d, 5 ms", nodes, per_node);
            row(name, layout(repeat(nodes, per_node), {nodes / 2, nodes / 2}), wan);
            std::snprintf(name, sizeof name, "2 clusters %d x %d, corners", nodes, per_node);
            row(name, layout(repeat(nodes, per_node), {nodes / 2, nodes / 2}), LinkCostSpec());
            std::snprintf(name, sizeof name, "3 clusters %d x %d, 5 ms", nodes, per_node);
            row(name, layout(repeat(nodes, per_node), {nodes / 4, nodes / 4, nodes / 2}), wan);
        }
    }
    row("torus 32x32", Topology::from_torus_dims({32, 32}), LinkCostSpec());
    row("torus 16x16x16", Topology::from_torus_dims({16, 16, 16}), LinkCostSpec());
}

// The scale model against the simulator where both run (p = 16 to 128).
struct Agreement {
    int cases = 0, same_pick = 0, same_side = 0;
    int only_scale_picks_hier = 0;  // the unsafe side: the scale model picks a row the simulator does not
    std::vector<double> errors;  // |scale ratio / simulated ratio - 1|, per row and machine
};

void compare_models(const std::string &name, const Topology &topology, size_t block, const LinkCostSpec &spec,
                    Agreement &all)
{
    const Comparison simulated = compare_alltoall(topology, Plans(), block, 1, spec);
    const Comparison scaled = compare_alltoall_at_scale(topology, block, 1, spec);
    ASSERT_FALSE(simulated.scale_model);
    ASSERT_EQ(simulated.machines.size(), scaled.machines.size());
    std::vector<double> errors;
    for (size_t r = 0; r < simulated.rows.size() && r < scaled.rows.size(); ++r) {
        const Contender &a = simulated.rows[r], &b = scaled.rows[r];
        if (!a.modelled() || !b.modelled()) {
            continue;
        }
        for (size_t m = 0; m < simulated.machines.size(); ++m) {
            const double sim = a.predictions[m].seconds / simulated.open_mpi.predictions[m].seconds;
            const double est = b.predictions[m].seconds / scaled.open_mpi.predictions[m].seconds;
            errors.push_back(std::fabs(est / sim - 1));
        }
    }
    std::sort(errors.begin(), errors.end());
    const double median_error = errors.empty() ? 0 : errors[errors.size() / 2];
    const bool same = simulated.choice.id == scaled.choice.id;
    const bool side = (simulated.choice.algorithm == nullptr) == (scaled.choice.algorithm == nullptr);
    ++all.cases;
    all.same_pick += same;
    all.same_side += side;
    all.only_scale_picks_hier += !side && scaled.choice.algorithm != nullptr;
    all.errors.insert(all.errors.end(), errors.begin(), errors.end());
    if (std::getenv("HIER_SCALE_VALIDATE") && std::string(std::getenv("HIER_SCALE_VALIDATE")) == "lines") {
        std::printf("  sim:   %s\n  scale: %s\n", describe(simulated).c_str(), describe(scaled).c_str());
    }
    std::printf("[ agree    ] %-28s %6zu B  sim %-10s scale %-10s %s  ratio error median %3.0f %%\n", name.c_str(),
                block, picked(simulated), picked(scaled), same ? "same" : side ? "side" : "DIFF", 100 * median_error);
}

void print_summary(const Agreement &all)
{
    std::vector<double> errors = all.errors;
    std::sort(errors.begin(), errors.end());
    auto at = [&](double q) { return errors.empty() ? 0 : errors[size_t(q * double(errors.size() - 1))]; };
    std::printf("[ agree    ] %d cases: same pick %d, same hier-or-fallback %d; ratio error median %.0f %%, "
                "75th %.0f %%, 90th %.0f %%\n",
                all.cases, all.same_pick, all.same_side, 100 * at(0.5), 100 * at(0.75), 100 * at(0.9));
}

TEST(ScaleModel, AgreesWithTheSimulator)
{
    const bool full = std::getenv("HIER_SCALE_VALIDATE") != nullptr;
    struct Layout {
        const char *name;
        Topology topology;
        const char *costs;
    };
    std::vector<Layout> list = {
        {"uniform 4x4", layout(repeat(4, 4)), ""},
        {"uniform 8x4", layout(repeat(8, 4)), ""},
        {"uneven 8,4,2,2", layout({8, 4, 2, 2}), ""},
        {"2 clusters 4+4 nodes x4", layout(repeat(8, 4), {4, 4}), "backbone=5ms:100Mbit/s"},
    };
    if (full) {
        list.push_back({"uniform 16x1", layout(repeat(16, 1)), ""});
        list.push_back({"uniform 32x2", layout(repeat(32, 2)), ""});
        list.push_back({"uniform 8x8", layout(repeat(8, 8)), ""});
        list.push_back({"uniform 16x8", layout(repeat(16, 8)), ""});
        list.push_back({"uniform 2x64", layout(repeat(2, 64)), ""});
        list.push_back({"uniform 4x32", layout(repeat(4, 32)), ""});
        list.push_back({"uneven 16,8,4,2,1,1", layout({16, 8, 4, 2, 1, 1}), ""});
        list.push_back({"uneven 64 (1..32)", layout(uneven(64, 32)), ""});
        list.push_back({"uneven 128 (1..32)", layout(uneven(128, 32)), ""});
        list.push_back({"2 clusters 8+8 nodes x4", layout(repeat(16, 4), {8, 8}), "backbone=5ms:100Mbit/s"});
        list.push_back({"2 clusters 4+12 nodes x4", layout(repeat(16, 4), {4, 12}), "backbone=5ms:100Mbit/s"});
        list.push_back({"2 clusters 8+8 x8, corners", layout(repeat(16, 8), {8, 8}), ""});
        list.push_back({"3 clusters 4+4+8 nodes x4", layout(repeat(16, 4), {4, 4, 8}), "backbone=5ms:100Mbit/s"});
        list.push_back({"3 clusters 2+3+3 x8, corners", layout(repeat(8, 8), {2, 3, 3}), ""});
    }
    Agreement all;
    for (const Layout &l : list) {
        for (size_t block : {size_t(1), size_t(96), size_t(384), size_t(1536), size_t(12288), size_t(65536)}) {
            if (!full && block != 96 && block != 12288) {
                continue;
            }
            compare_models(l.name, l.topology, block, costs(l.costs), all);
        }
    }
    print_summary(all);
}

// Clusters that are leaf switches (coll_hier_cluster_map slurm or
// topology:), their uplinks oversubscribed 1:1 or 4:1 (or 8:1): at 1:1 an
// uplink carries all its nodes' NICs and never limits, so a row that
// groups by leaf wins only by its own aggregation; at 4:1 tuned's Bruck,
// which sends about p/2 blocks per rank through the uplink in each of its
// log2 p rounds, is bound by it where lg sends each block across once.
// The given ratio, or unknown (switch_clusters: the corners 1:1 and 4:1,
// so a grouping row must pay at both).
LinkCostSpec leaf_uplinks(const char *ratio)
{
    LinkCostSpec spec = costs(ratio[0] ? (std::string("oversubscription=") + ratio).c_str() : "");
    spec.switch_clusters = true;
    return spec;
}

// The flow simulator, 8 leaves x 2 nodes x 2 ranks, the 256..511 B class:
// 1:1 keeps a flat row (node_lg x0.72; lg_at_once x0.75, lg_overlap
// x0.75), 4:1 groups by leaf (lg_at_once x0.60), 8:1 too (x0.61). At 1 to
// 96 B lg_at_once wins at 1:1 as well (x0.62 to x0.70): two phases and 7
// backbone messages per rank against Bruck's 5 rounds, whatever the uplink.
TEST(LeafUplinks, TheSimulatorGroupsByLeafWhereTheUplinksAreOversubscribed)
{
    const Topology leaves = layout(repeat(16, 2), repeat(8, 2));
    const Comparison one = compare_alltoall(leaves, Plans(), 384, 1, leaf_uplinks("1"));
    EXPECT_FALSE(is_lg(picked(one))) << describe(one);
    for (const char *ratio : {"4", "8"}) {
        const Comparison over = compare_alltoall(leaves, Plans(), 384, 1, leaf_uplinks(ratio));
        EXPECT_TRUE(is_lg(picked(over))) << ratio << ": " << describe(over);
    }
    const Comparison unknown = compare_alltoall(leaves, Plans(), 384, 1, leaf_uplinks(""));
    EXPECT_FALSE(is_lg(picked(unknown))) << describe(unknown);
    // At 1:1 the machine is the flat one: Open MPI's time is the same.
    const Comparison flat = compare_alltoall(layout(repeat(16, 2)), Plans(), 384, 1, LinkCostSpec());
    ASSERT_EQ(flat.machines.size(), one.machines.size());
    for (size_t m = 0; m < flat.machines.size(); ++m) {
        EXPECT_NEAR(one.open_mpi.predictions[m].seconds, flat.open_mpi.predictions[m].seconds,
                    1e-9 * flat.open_mpi.predictions[m].seconds);
    }
}

// The scale model, 64 leaves x 16 nodes x 16 ranks (16,384 ranks), 1 B:
// 1:1 keeps Open MPI's (lg_at_once x1.15), 4:1 groups by leaf (x0.71), 8:1
// (x0.56). Unknown, the leaf corners keep Open MPI's; the same clusters
// typed by hand weigh a 5 ms wide-area corner, where lg_at_once wins.
TEST(LeafUplinks, TheScaleModelGroupsByLeafWhereTheUplinksAreOversubscribed)
{
    const Topology leaves = layout(repeat(64 * 16, 16), repeat(64, 16));
    const Comparison one = compare_alltoall(leaves, Plans(), 1, 1, leaf_uplinks("1"));
    ASSERT_TRUE(one.scale_model);
    EXPECT_FALSE(is_lg(picked(one))) << describe(one);
    for (const char *ratio : {"4", "8"}) {
        const Comparison over = compare_alltoall(leaves, Plans(), 1, 1, leaf_uplinks(ratio));
        EXPECT_TRUE(is_lg(picked(over))) << ratio << ": " << describe(over);
    }
    EXPECT_FALSE(is_lg(picked(compare_alltoall(leaves, Plans(), 1, 1, leaf_uplinks(""))))) << "leaf corners";
    EXPECT_TRUE(is_lg(picked(compare_alltoall(leaves, Plans(), 1, 1, LinkCostSpec())))) << "campus and wide area";
}

// Where both apply, the two models agree on leaf uplinks as
// docs/scale-model.md reports over its 108 cases: where they split on hier
// or Open MPI's, the scale model keeps Open MPI's (its safe side: here at
// 1 B, lg_at_once x0.89 against the simulator's x0.70, as on uniform 8x4),
// and the median ratio error stays under the 75th percentile reported
// there (15 %; here 10 %, 75th 20 %, 90th 30 %).
TEST(LeafUplinks, BothModelsAgree)
{
    Agreement all;
    for (const char *ratio : {"1", "4", ""}) {
        for (size_t block : {size_t(1), size_t(96), size_t(384), size_t(1536), size_t(12288)}) {
            compare_models(std::string("8 leaves x2 x2, ") + (ratio[0] ? ratio : "corners"),
                           layout(repeat(16, 2), repeat(8, 2)), block, leaf_uplinks(ratio), all);
        }
    }
    print_summary(all);
    EXPECT_EQ(all.only_scale_picks_hier, 0);
    std::vector<double> errors = all.errors;
    std::sort(errors.begin(), errors.end());
    ASSERT_FALSE(errors.empty());
    EXPECT_LT(errors[errors.size() / 2], 0.15);
}

} // namespace
} // namespace hier
