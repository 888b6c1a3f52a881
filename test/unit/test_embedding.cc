/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Hypercube embeddings (Figueira and Janapa Reddi): calc_cost by hand, the
// paper's Eff_Cube walk-through, every embedding a permutation, the shape of
// Fig. 6 at small sizes, and the fold of non-powers of two.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "algorithms.h"
#include "embedding.h"
#include "hypercube.h"
#include "topology.h"

namespace hier {
namespace {

CostMatrix matrix_of(int n, const std::function<double(int, int)> &cost)
{
    CostMatrix matrix;
    matrix.n = n;
    matrix.values.assign(size_t(n) * size_t(n), 0);
    for (int a = 0; a < n; ++a) {
        for (int b = 0; b < n; ++b) {
            matrix.values[size_t(a) * n + b] = a == b ? 0 : cost(std::min(a, b), std::max(a, b));
        }
    }
    return matrix;
}

// Fig. 6's topologies: every pair's cost a random integer in 1..max.
CostMatrix random_costs(int n, int max, std::mt19937 &random)
{
    std::uniform_int_distribution<int> draw(1, max);
    std::vector<double> upper(size_t(n) * size_t(n));
    for (auto &cost : upper) {
        cost = draw(random);
    }
    return matrix_of(n, [&](int a, int b) { return upper[size_t(a) * n + b]; });
}

bool is_permutation(const Embedding &embedding)
{
    std::vector<int> sorted = embedding;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i) {
        if (sorted[i] != int(i)) {
            return false;
        }
    }
    return true;
}

TEST(CalcCost, HandComputedCubes)
{
    const Costs pair = Costs::from_matrix(matrix_of(2, [](int, int) { return 3; }));
    EXPECT_EQ(calc_cost(PointCosts(pair), {0, 1}), 3);

    // Square 0-1 (1), 2-3 (5) in dimension 0; 0-2 (2), 1-3 (1) in
    // dimension 1: positions 2 and 3 finish dimension 0 at 5; then 0 and 2
    // at max(1, 5) + 2 = 7, 1 and 3 at max(1, 5) + 1 = 6.
    const double w[4][4] = {{0, 1, 2, 9}, {1, 0, 9, 1}, {2, 9, 0, 5}, {9, 1, 5, 0}};
    const Costs square = Costs::from_matrix(matrix_of(4, [&](int a, int b) { return w[a][b]; }));
    EXPECT_EQ(calc_cost(PointCosts(square), {0, 1, 2, 3}), 7);
    // Points 0 and 3 swapped: dimension 0 pairs 3-1 (1), 2-0 (2); dimension
    // 1 pairs 3-2 (5), 1-0 (1): max(1, 2) + 5 = 7 and max(1, 2) + 1 = 3.
    EXPECT_EQ(calc_cost(PointCosts(square), {3, 1, 2, 0}), 7);
    // Points 0-3 and 1-2 in dimension 0 cost 9 each, then 3-2 adds 5.
    EXPECT_EQ(calc_cost(PointCosts(square), {0, 3, 1, 2}), 14);

    // A 3-cube of unit costs takes 3; a fold of 4 on point 0 delays it to
    // start at 4 (5, 6, 7 after each dimension) and adds 4 at the end.
    const Costs unit = Costs::from_matrix(matrix_of(8, [](int, int) { return 1; }));
    const Embedding blind = embed_blind(PointCosts(unit));
    EXPECT_EQ(calc_cost(PointCosts(unit), blind), 3);
    Fold fold{std::vector<double>(8, 0.0), std::vector<double>(8, 0.0)};
    fold.ready[0] = fold.after[0] = 4;
    EXPECT_EQ(calc_cost(PointCosts(unit), blind, fold), 11);
}

// Figs. 4 and 5: a 3-cube; position 0's neighbours (1, 2, 4) hold points
// 0, 1, 2; at position 1, dimension 0, the empty position 0 weighs point 3
// at 13 + 12 + 0 = 25, point 5 at 11 + 9 + 3 = 23 and point 7 at
// 10 + 4 + 3 = 17, and takes point 7.
TEST(EffCube, PaperWalkThrough)
{
    std::vector<std::vector<double>> w(8, std::vector<double>(8, 6));
    auto set = [&](int a, int b, double cost) { w[a][b] = w[b][a] = cost; };
    set(3, 0, 13), set(3, 1, 12), set(3, 2, 0);
    set(5, 0, 11), set(5, 1, 9), set(5, 2, 3);
    set(7, 0, 10), set(7, 1, 4), set(7, 2, 3);
    set(4, 0, 9), set(4, 1, 8), set(4, 2, 9);  // 26
    set(6, 0, 8), set(6, 1, 7), set(6, 2, 5);  // 20
    const Costs costs = Costs::from_matrix(matrix_of(8, [&](int a, int b) { return w[a][b]; }));
    const PointCosts points(costs);
    Embedding seeded(8, kEmpty);
    seeded[1] = 0, seeded[2] = 1, seeded[4] = 2;
    EXPECT_EQ(eff_local_cost(points, seeded, 0, 3), 25);
    EXPECT_EQ(eff_local_cost(points, seeded, 0, 5), 23);
    EXPECT_EQ(eff_local_cost(points, seeded, 0, 7), 17);
    EXPECT_EQ(eff_local_cost(points, seeded, 0, 4), 26);
    EXPECT_EQ(eff_local_cost(points, seeded, 0, 6), 20);
    const Embedding embedding = embed_eff(points);
    EXPECT_EQ(embedding[1], 0);
    EXPECT_EQ(embedding[2], 1);
    EXPECT_EQ(embedding[4], 2);
    EXPECT_EQ(embedding[0], 7);
    EXPECT_TRUE(is_permutation(embedding));
}

TEST(Dim2Cube, FirstUnusedPointMeetsItsCheapestInDimensionZero)
{
    // Point 0's cheapest is 5, then point 1's cheapest unused is 3.
    const Costs costs = Costs::from_matrix(matrix_of(8, [](int a, int b) {
        return (a == 0 && b == 5) || (a == 1 && b == 3) ? 1 : 4;
    }));
    const Embedding embedding = embed_dim2(PointCosts(costs));
    EXPECT_EQ(embedding[0], 0);
    EXPECT_EQ(embedding[1], 5);
    EXPECT_EQ(embedding[2], 1);
    EXPECT_EQ(embedding[3], 3);
    EXPECT_EQ(embedding[4], 2);
}

TEST(TstsCube, APathIsWalkedInOrderOntoGrayCodePositions)
{
    const Costs line = Costs::from_matrix(matrix_of(16, [](int a, int b) { return b - a; }));
    const Embedding embedding = embed_tsts(PointCosts(line));
    for (int k = 0; k < 16; ++k) {
        EXPECT_EQ(embedding[k ^ (k >> 1)], k);
    }
    // Consecutive tour points are cube neighbours: every dimension-0 edge
    // costs 1 here.
    for (int x = 0; x < 16; x += 2) {
        const int step = std::abs(embedding[x] - embedding[x + 1]);
        EXPECT_EQ(step, 1) << x;
    }
}

TEST(Embeddings, EveryEmbeddingIsAPermutation)
{
    std::mt19937 random(6);
    for (int n = 1; n <= 256; n *= 2) {
        for (int max : {1, 5, 20}) {
            const Costs costs = Costs::from_matrix(random_costs(n, max, random));
            const PointCosts points(costs);
            Fold fold{std::vector<double>(size_t(n), 0.0), std::vector<double>(size_t(n), 0.0)};
            fold.ready[0] = fold.after[0] = 3;
            for (const EmbeddingMethod &method : embedding_methods()) {
                const Embedding embedding = method.embed(points, fold);
                EXPECT_EQ(int(embedding.size()), n) << method.name;
                EXPECT_TRUE(is_permutation(embedding)) << method.name << " n " << n << " max " << max;
            }
        }
    }
}

TEST(Embeddings, TableAndNames)
{
    ASSERT_EQ(embedding_id_count(), 6);
    const char *names[] = {"auto", "blind", "dim2", "tsts", "eff", "refine"};
    for (int id = 0; id < 6; ++id) {
        EXPECT_STREQ(embedding_id_name(id), names[id]);
        EXPECT_NE(embedding_id_description(id), nullptr);
        EXPECT_EQ(embedding_id(names[id]), id);
    }
    EXPECT_EQ(embedding_id_name(6), nullptr);
    EXPECT_EQ(embedding_id("bogus"), -1);
}

// Fig. 6 in small (the full reproduction is contrib/inspect's
// `hier-inspect embed-gains`): 50 random topologies per size. Dim2_Cube
// gains about 10 % over blind at every size, Eff_Cube more and more with
// size, and refine, which starts from the best of them and only improves,
// beats Eff_Cube on average at every size and never loses to it.
TEST(Embeddings, FigureSixInSmallRefineBeatsEff)
{
    std::mt19937 random(2004);
    for (int max : {5, 20}) {
        double eff_at_8 = 0;
        for (int n = 8; n <= 64; n *= 2) {
            double gain[4] = {0, 0, 0, 0};  // dim2, tsts, eff, refine
            const int topologies = 50;
            for (int t = 0; t < topologies; ++t) {
                const Costs costs = Costs::from_matrix(random_costs(n, max, random));
                const PointCosts points(costs);
                const double blind = calc_cost(points, embed_blind(points));
                const double eff = calc_cost(points, embed_eff(points));
                const double refine = calc_cost(points, embed_refine(points, {}));
                EXPECT_LE(refine, eff);
                gain[0] += 1 - calc_cost(points, embed_dim2(points)) / blind;
                gain[1] += 1 - calc_cost(points, embed_tsts(points)) / blind;
                gain[2] += 1 - eff / blind;
                gain[3] += 1 - refine / blind;
            }
            for (double &g : gain) {
                g /= topologies;
            }
            SCOPED_TRACE("n " + std::to_string(n) + " max " + std::to_string(max));
            EXPECT_GT(gain[0], 0.03);
            EXPECT_LT(gain[0], 0.15);
            EXPECT_GT(gain[2], gain[0]);
            EXPECT_GT(gain[3], gain[2] + 0.05);
            if (n == 8) {
                eff_at_8 = gain[2];
            } else {
                EXPECT_GT(gain[2], eff_at_8);
            }
        }
    }
}

TEST(Embeddings, RefineFindsTheOptimumOfSmallCubes)
{
    std::mt19937 random(8);
    for (int t = 0; t < 20; ++t) {
        const Costs costs = Costs::from_matrix(random_costs(8, 5, random));
        const PointCosts points(costs);
        Embedding every = embed_blind(points);
        double best = calc_cost(points, every);
        while (std::next_permutation(every.begin(), every.end())) {
            best = std::min(best, calc_cost(points, every));
        }
        EXPECT_EQ(calc_cost(points, embed_refine(points, {})), best) << "topology " << t;
    }
}

TEST(Fold, PairsTheCheapestPartnersAndKeepsAPowerOfTwo)
{
    // Nodes of 3, 3 and 1 ranks (p = 7, 3 extras): the extras pair within
    // the two nodes of 3 first.
    const Topology topology = Topology::from_node_sizes({3, 3, 1});
    const auto pairs = fold_by_cost(topology.costs(), 3);
    ASSERT_EQ(pairs.size(), 3u);
    std::vector<bool> seen(7, false);
    for (const auto &[host, extra] : pairs) {
        EXPECT_LT(host, extra);
        EXPECT_FALSE(seen[host] || seen[extra]);
        seen[host] = seen[extra] = true;
    }
    int within_nodes = 0;
    for (const auto &[host, extra] : pairs) {
        within_nodes += topology.node_of(host) == topology.node_of(extra);
    }
    EXPECT_EQ(within_nodes, 2);
}

// Every rank sits at one position or is folded onto a rank that does; the
// positions hold a power of two of ranks.
void expect_consistent(const HypercubePlan &plan, int p)
{
    const int n = plan.positions();
    ASSERT_EQ(n, 1 << plan.dims);
    ASSERT_LE(n, p);
    ASSERT_LT(p, 2 * n);
    std::vector<int> count(size_t(p), 0);
    for (int position = 0; position < n; ++position) {
        for (int m = 0; m < plan.members(position); ++m) {
            const int rank = plan.member(position, m);
            ++count[rank];
            EXPECT_EQ(plan.position_of[rank], position);
        }
        EXPECT_EQ(plan.host_of[plan.rank_at[position]], -1);
    }
    for (int rank = 0; rank < p; ++rank) {
        EXPECT_EQ(count[rank], 1) << "rank " << rank;
    }
}

TEST(Plan, EveryEmbeddingAndSizeHasAConsistentCube)
{
    std::mt19937 random(9);
    for (int p = 1; p <= 40; ++p) {
        for (int id = 0; id < embedding_id_count(); ++id) {
            Topology topology(std::vector<int>(size_t(p), 0));
            topology.set_costs(std::make_shared<Costs>(Costs::from_matrix(random_costs(p, 5, random))));
            const Plans plans(id);
            const HypercubePlan &plan = plans.hypercube(topology);
            SCOPED_TRACE("p " + std::to_string(p) + " " + embedding_id_name(id));
            expect_consistent(plan, p);
            if (id == kEmbeddingAuto) {
                EXPECT_LE(plan.cost, plan.blind_cost);
            }
            EXPECT_NE(plan.summary.find("embedding, calc_cost"), std::string::npos);
        }
    }
}

TEST(Plan, BlindFoldsTheLastRanksOntoTheFirst)
{
    const Plans plans(embedding_id("blind"));
    const HypercubePlan &plan = plans.hypercube(Topology::from_node_sizes({6}));
    EXPECT_EQ(plan.dims, 2);
    EXPECT_EQ(plan.rank_at, (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(plan.extra_of[0], 4);
    EXPECT_EQ(plan.extra_of[1], 5);
    EXPECT_EQ(plan.host_of[5], 1);
}

TEST(Plan, AutoKeepsBlindOnEvenCostsAndSaysWhy)
{
    const Plans plans;
    const HypercubePlan &even = plans.hypercube(Topology::from_node_sizes({8}));
    EXPECT_EQ(even.embedding, embedding_id("blind"));
    EXPECT_EQ(even.too_even,
              "costs too even: the blind embedding's calc_cost is 0% below blind's, auto wants 15%");
    // Ranks 0 and 3 share a node, 1 and 2 another: blind crosses nodes in
    // both dimensions; refine pairs node mates in dimension 0.
    const Plans crossed;
    const HypercubePlan &plan = crossed.hypercube(Topology({0, 1, 1, 0}));
    EXPECT_EQ(plan.embedding, embedding_id("refine"));
    EXPECT_EQ(plan.blind_cost, 2 * kSameClusterCost);
    EXPECT_EQ(plan.cost, kSameNodeCost + kSameClusterCost);
    EXPECT_EQ(plan.too_even, "");
}

} // namespace
} // namespace hier
