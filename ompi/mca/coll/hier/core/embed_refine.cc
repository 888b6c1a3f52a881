/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// refine: ours, beyond Figueira and Janapa Reddi (Sec. 4 builds an
// embedding greedily and Sec. 5.1 only measures it; here calc_cost itself
// is optimised).
//
// 1. Starts: blind, Dim2_Cube, TSTS_Cube, Eff_Cube with the paper's seeds,
//    and Eff_Cube seeded by cost (the notes allow it): a central point (least
//    sum of its d cheapest costs) on position 0 and its d cheapest partners
//    on its neighbours, cheapest in dimension 0. The start of least
//    calc_cost (with the fold) goes on.
// 2. Local search: calc_cost is the longest path through the cube's
//    exchanges, so only a swap that touches the critical path can lower it.
//    For each position on the critical path, heaviest edge first, the swaps
//    of its point with the points whose exchange of positions lowers the sum
//    of the two positions' edge costs most are tried (kCandidates of them),
//    each judged by the full calc_cost; the first that lowers (calc_cost,
//    sum of every point's cost after every dimension) - the second term
//    lets the search cross plateaus where several paths are equally long -
//    is kept, and the search starts over, until no such swap is left.
// 3. Kicks (iterated local search): kKickSwaps random swaps of the best
//    embedding so far, one end of each on its critical path, then descend
//    again, keeping what is better; until a budget of
//    max(kMinEvaluations, kEvaluationsPerPoint n) evaluations of O(n log n)
//    each, about Eff_Cube's own O(n^2 log n).
// Deterministic: the kicks come from a fixed seed, so every rank computes
// the same embedding from the same costs.
#include "embedding.h"

#include <algorithm>
#include <numeric>

namespace hier {

namespace {

constexpr size_t kCandidates = 8;
constexpr int kCostSeededStarts = 1;
constexpr size_t kMinEvaluations = 4096;
constexpr size_t kEvaluationsPerPoint = 4;
constexpr int kKickSwaps = 3;
constexpr uint64_t kKickSeed = 20040901;

int dimensions(size_t n)
{
    int d = 0;
    while ((size_t(1) << d) < n) {
        ++d;
    }
    return d;
}

// Lexicographic: the cube's cost, then the sum of all points' costs after
// every dimension.
struct Score {
    double makespan;
    double total;
    bool operator<(const Score &other) const
    {
        return makespan < other.makespan || (makespan == other.makespan && total < other.total);
    }
};

// calc_cost with every dimension's costs kept, to find the critical path.
class Evaluator {
public:
    Evaluator(const PointCosts &costs, const Fold &fold)
        : costs_(costs), fold_(fold), n_(size_t(costs.size())), d_(dimensions(n_)),
          layers_(size_t(d_ + 1) * n_)
    {
    }

    Score score(const Embedding &e)
    {
        ++evaluations_;
        double *first = layers_.data();
        for (size_t x = 0; x < n_; ++x) {
            first[x] = fold_.ready.empty() ? 0.0 : fold_.ready[e[x]];
        }
        double total = 0;
        for (int t = 0; t < d_; ++t) {
            const size_t bit = size_t(1) << t;
            const double *cost = layers_.data() + size_t(t) * n_;
            double *next = layers_.data() + size_t(t + 1) * n_;
            for (size_t x = 0; x < n_; ++x) {
                if (x & bit) {
                    continue;
                }
                const size_t y = x ^ bit;
                const double w = costs_(e[x], e[y]);
                const double start = std::max(cost[x], cost[y]);
                next[x] = next[y] = start + w;
                total += 2 * (start + w);
            }
        }
        const double *last = layers_.data() + size_t(d_) * n_;
        double makespan = 0;
        for (size_t x = 0; x < n_; ++x) {
            makespan = std::max(makespan, last[x] + (fold_.after.empty() ? 0.0 : fold_.after[e[x]]));
        }
        return {makespan, total};
    }

    // The positions on the critical path of the embedding last scored,
    // heaviest edge first (each once).
    std::vector<size_t> critical_positions(const Embedding &e) const
    {
        const double *last = layers_.data() + size_t(d_) * n_;
        size_t v = 0;
        double longest = -1;
        for (size_t x = 0; x < n_; ++x) {
            const double finish = last[x] + (fold_.after.empty() ? 0.0 : fold_.after[e[x]]);
            if (finish > longest) {
                longest = finish;
                v = x;
            }
        }
        std::vector<std::pair<double, size_t>> edges;
        for (int t = d_ - 1; t >= 0; --t) {
            const size_t u = v ^ (size_t(1) << t);
            const double w = costs_(e[v], e[u]);
            edges.emplace_back(w, v);
            edges.emplace_back(w, u);
            const double *before = layers_.data() + size_t(t) * n_;
            v = before[v] >= before[u] ? v : u;
        }
        std::stable_sort(edges.begin(), edges.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
        std::vector<size_t> positions;
        for (const auto &edge : edges) {
            if (std::find(positions.begin(), positions.end(), edge.second) == positions.end()) {
                positions.push_back(edge.second);
            }
        }
        return positions;
    }

    size_t evaluations() const { return evaluations_; }

private:
    const PointCosts &costs_;
    const Fold &fold_;
    size_t n_;
    int d_;
    std::vector<double> layers_;
    size_t evaluations_ = 0;
};

// Sum of the edge costs of position x if point sat there (the edge to
// `skip`, the other position of a swap, is left out: it keeps its cost).
double edge_sum(const PointCosts &costs, const Embedding &e, size_t x, int point, size_t skip)
{
    double sum = 0;
    for (size_t bit = 1; bit < e.size(); bit <<= 1) {
        if ((x ^ bit) != skip) {
            sum += costs(point, e[x ^ bit]);
        }
    }
    return sum;
}

// The positions whose swap with a lowers the two positions' edge costs most.
std::vector<size_t> swap_candidates(const PointCosts &costs, const Embedding &e, size_t a)
{
    const double here = edge_sum(costs, e, a, e[a], a);
    std::vector<std::pair<double, size_t>> gains;
    gains.reserve(e.size());
    for (size_t z = 0; z < e.size(); ++z) {
        if (z == a) {
            continue;
        }
        const double before = here + edge_sum(costs, e, z, e[z], z);
        const double after = edge_sum(costs, e, a, e[z], z) + edge_sum(costs, e, z, e[a], a);
        gains.emplace_back(after - before, z);
    }
    const size_t keep = std::min(kCandidates, gains.size());
    std::partial_sort(gains.begin(), gains.begin() + long(keep), gains.end());
    std::vector<size_t> best;
    for (size_t i = 0; i < keep; ++i) {
        best.push_back(gains[i].second);
    }
    return best;
}

// Descends from e by first-improving swaps on the critical path until none
// improves or the evaluator's budget is spent; returns e's score.
Score descend(const PointCosts &costs, Evaluator &evaluator, size_t budget, Embedding &e)
{
    Score current = evaluator.score(e);
    for (bool improved = true; improved && evaluator.evaluations() < budget;) {
        improved = false;
        const std::vector<size_t> critical = evaluator.critical_positions(e);
        for (size_t i = 0; i < critical.size() && !improved && evaluator.evaluations() < budget; ++i) {
            const size_t a = critical[i];
            for (size_t z : swap_candidates(costs, e, a)) {
                std::swap(e[a], e[z]);
                const Score tried = evaluator.score(e);
                if (tried < current) {
                    current = tried;
                    improved = true;
                    break;
                }
                std::swap(e[a], e[z]);
            }
        }
        // After an improving swap the evaluator's last score is of e as
        // kept, so its critical path is e's.
    }
    return current;
}

// Iterated local search: descend; then, while the budget lasts, kick the
// best embedding so far (kKickSwaps swaps, one end on its critical path)
// and descend again, keeping what is better. The kicks come from a fixed
// seed, so every rank computes the same embedding.
void local_search(const PointCosts &costs, const Fold &fold, Embedding &e)
{
    const size_t n = e.size();
    if (n < 4) {
        return;
    }
    Evaluator evaluator(costs, fold);
    const size_t budget = std::max<size_t>(kMinEvaluations, kEvaluationsPerPoint * n);
    Score best = descend(costs, evaluator, budget, e);
    Embedding kicked;
    uint64_t state = kKickSeed;
    auto next_random = [&state](size_t bound) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return size_t((state >> 33) % bound);
    };
    while (evaluator.evaluations() < budget) {
        kicked = e;
        evaluator.score(kicked);
        const std::vector<size_t> critical = evaluator.critical_positions(kicked);
        for (int kick = 0; kick < kKickSwaps; ++kick) {
            std::swap(kicked[critical[next_random(critical.size())]], kicked[next_random(n)]);
        }
        const Score tried = descend(costs, evaluator, budget, kicked);
        if (tried < best) {
            best = tried;
            e.swap(kicked);
        }
    }
}

// Eff_Cube from a point on position 0 and its d cheapest partners on its
// neighbours.
Embedding eff_seeded_at(const PointCosts &costs, int centre)
{
    const size_t n = size_t(costs.size());
    std::vector<int> others(n);
    std::iota(others.begin(), others.end(), 0);
    others.erase(others.begin() + centre);
    std::stable_sort(others.begin(), others.end(), [&](int a, int b) { return costs(centre, a) < costs(centre, b); });
    Embedding partial(n, kEmpty);
    partial[0] = centre;
    size_t next = 0;
    for (size_t bit = 1; bit < n; bit <<= 1) {
        partial[bit] = others[next++];
    }
    return eff_complete(costs, std::move(partial));
}

// Points in order of the sum of their d cheapest costs: the most central
// first.
std::vector<int> central_points(const PointCosts &costs)
{
    const int n = costs.size();
    const int d = dimensions(size_t(n));
    std::vector<double> centrality(static_cast<size_t>(n));
    std::vector<double> row(static_cast<size_t>(n));
    for (int a = 0; a < n; ++a) {
        for (int b = 0; b < n; ++b) {
            row[b] = costs(a, b);
        }
        row.erase(row.begin() + a);
        std::partial_sort(row.begin(), row.begin() + d, row.end());
        centrality[a] = std::accumulate(row.begin(), row.begin() + d, 0.0);
        row.resize(size_t(n));
    }
    std::vector<int> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return centrality[a] < centrality[b]; });
    return order;
}

} // namespace

Embedding embed_refine(const PointCosts &costs, const Fold &fold)
{
    const int n = costs.size();
    std::vector<Embedding> starts = {embed_blind(costs), embed_dim2(costs), embed_tsts(costs), embed_eff(costs)};
    if (n > 1) {
        const std::vector<int> centres = central_points(costs);
        for (int i = 0; i < std::min(n, kCostSeededStarts); ++i) {
            starts.push_back(eff_seeded_at(costs, centres[size_t(i)]));
        }
    }
    Embedding best;
    double least = 0;
    for (Embedding &start : starts) {
        const double cost = calc_cost(costs, start, fold);
        if (best.empty() || cost < least) {
            least = cost;
            best = std::move(start);
        }
    }
    local_search(costs, fold, best);
    return best;
}

} // namespace hier
