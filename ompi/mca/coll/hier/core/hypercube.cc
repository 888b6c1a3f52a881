/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The embedded hypercube: fold, embed, cost (see hypercube.h).
#include "hypercube.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

namespace hier {

namespace {

int cube_dims(int size)
{
    int d = 0;
    while ((2 << d) <= size) {
        ++d;
    }
    return d;
}

// Rank n + i onto rank i.
std::vector<std::pair<int, int>> fold_blind(int size, int positions)
{
    std::vector<std::pair<int, int>> pairs;
    for (int extra = positions; extra < size; ++extra) {
        pairs.emplace_back(extra - positions, extra);
    }
    return pairs;
}

// One way of building the cube: its fold, the ranks on its points and the
// embedding of the points.
struct Cube {
    std::vector<std::pair<int, int>> pairs;  // host, extra
    std::vector<int> points;                 // point -> rank
    Fold fold;
    Embedding embedding;
    double cost = 0;
};

Cube folded(const Costs &costs, std::vector<std::pair<int, int>> pairs)
{
    Cube cube;
    std::vector<bool> extra(size_t(costs.size()), false);
    std::vector<double> fold_cost(size_t(costs.size()), 0.0);
    for (const auto &[host, folded_rank] : pairs) {
        extra[folded_rank] = true;
        fold_cost[host] = costs(host, folded_rank);
    }
    for (int rank = 0; rank < costs.size(); ++rank) {
        if (!extra[rank]) {
            cube.points.push_back(rank);
            cube.fold.ready.push_back(fold_cost[rank]);
        }
    }
    cube.fold.after = cube.fold.ready;
    cube.pairs = std::move(pairs);
    return cube;
}

Cube embedded(const Costs &costs, Cube cube, int embedding)
{
    const PointCosts points(costs, cube.points);
    cube.embedding = embedding_methods()[size_t(embedding) - 1].embed(points, cube.fold);
    cube.cost = calc_cost(points, cube.embedding, cube.fold);
    return cube;
}

std::string shown(double cost)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", cost);
    return text;
}

HypercubePlan plan_of(const Costs &costs, const Cube &cube, int embedding, double blind_cost)
{
    const int p = costs.size();
    HypercubePlan plan;
    plan.dims = cube_dims(p);
    plan.embedding = embedding;
    plan.cost = cube.cost;
    plan.blind_cost = blind_cost;
    plan.extra_of.assign(size_t(p), -1);
    plan.host_of.assign(size_t(p), -1);
    plan.position_of.assign(size_t(p), -1);
    for (const auto &[host, extra] : cube.pairs) {
        plan.extra_of[host] = extra;
        plan.host_of[extra] = host;
    }
    for (size_t position = 0; position < cube.embedding.size(); ++position) {
        const int rank = cube.points[cube.embedding[position]];
        plan.rank_at.push_back(rank);
        plan.position_of[rank] = int(position);
    }
    for (const auto &[host, extra] : cube.pairs) {
        plan.position_of[extra] = plan.position_of[host];
    }
    const double gain = blind_cost > 0 ? 1 - cube.cost / blind_cost : 0;
    const std::string name = embedding_id_name(embedding);
    plan.summary = name + " embedding, calc_cost " + shown(cube.cost) + ", blind " + shown(blind_cost);
    if (gain < kHypercubeMinGain) {
        plan.too_even = "costs too even: the " + name + " embedding's calc_cost is " +
                        shown(100 * gain) + "% below blind's, auto wants " + shown(100 * kHypercubeMinGain) + "%";
    }
    return plan;
}

} // namespace

void copy_blocks(ScheduleBuilder &b, uint32_t step, hier_buffer_t from, hier_buffer_t to,
                 const std::vector<std::pair<uint32_t, uint32_t>> &moves)
{
    for (size_t i = 0; i < moves.size();) {
        size_t run = 1;
        while (i + run < moves.size() && moves[i + run].first == moves[i].first + run &&
               moves[i + run].second == moves[i].second + run) {
            ++run;
        }
        b.copy(step, Region{from, moves[i].first, uint32_t(run)}, Region{to, moves[i].second, uint32_t(run)});
        i += run;
    }
}

std::vector<std::pair<int, int>> fold_by_cost(const Costs &costs, int extras)
{
    const int p = costs.size();
    std::vector<std::pair<int, int>> pairs;
    if (extras <= 0) {
        return pairs;
    }
    std::vector<double> cheapest(static_cast<size_t>(p));
    for (int a = 0; a < p; ++a) {
        double least = -1;
        for (int b = 0; b < p; ++b) {
            if (b != a && (least < 0 || costs(a, b) < least)) {
                least = costs(a, b);
            }
        }
        cheapest[a] = least;
    }
    std::vector<int> order(static_cast<size_t>(p));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return cheapest[a] < cheapest[b]; });
    std::vector<bool> paired(size_t(p), false);
    for (int a : order) {
        if (int(pairs.size()) == extras) {
            break;
        }
        if (paired[a]) {
            continue;
        }
        int partner = -1;
        for (int b = 0; b < p; ++b) {
            if (b != a && !paired[b] && (partner < 0 || costs(a, b) < costs(a, partner))) {
                partner = b;
            }
        }
        paired[a] = paired[partner] = true;
        pairs.emplace_back(std::min(a, partner), std::max(a, partner));
    }
    return pairs;
}

HypercubePlan plan_hypercube(const Costs &costs, int embedding)
{
    const int p = costs.size();
    const int n = 1 << cube_dims(p);
    const int blind = embedding_id("blind");
    const Cube rank_order = embedded(costs, folded(costs, fold_blind(p, n)), blind);
    if (embedding == blind) {
        return plan_of(costs, rank_order, blind, rank_order.cost);
    }
    if (embedding == kEmbeddingAuto && p > kAutoEmbeddingMaxRanks) {
        return plan_of(costs, rank_order, blind, rank_order.cost);
    }
    const Cube by_cost = folded(costs, fold_by_cost(costs, p - n));
    if (embedding != kEmbeddingAuto) {
        return plan_of(costs, embedded(costs, by_cost, embedding), embedding, rank_order.cost);
    }
    // refine starts from the best of the paper's embeddings and only
    // improves on it, so it is the least of all but blind.
    const int refine = embedding_id("refine");
    const Cube best = embedded(costs, by_cost, refine);
    if (best.cost < rank_order.cost) {
        return plan_of(costs, best, refine, rank_order.cost);
    }
    return plan_of(costs, rank_order, blind, rank_order.cost);
}

} // namespace hier
