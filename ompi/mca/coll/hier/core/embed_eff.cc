/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Eff_Cube: Figueira and Janapa Reddi, Sec. 4.3. Position 0's neighbours
// are seeded with points 0, 1, ..., d - 1 (the walk-through of Figs. 4 and
// 5: in a 3-cube, positions 1, 2, 4 get points 0, 1, 2 and position 0 stays
// empty until position 1's turn); then, for each position i in order and
// each dimension j, an empty neighbour i XOR 2^j gets the unused point of
// least local cost: the sum of its costs to the points on that neighbour's
// own neighbours. O(n^2 log n) for n points; ties go to the lower point
// (the pseudo-code's strict "<").
//
// Reading of the paper: its text says "nodes 0, 1, ..., d, where d is the
// maximum dimension", d + 1 points for d neighbours if d counts dimensions;
// the walk-through (d = 3: points 0, 1, 2) shows that d is the highest
// dimension's index. The notes allow choosing the seeds by cost: refine
// (embed_refine.cc) does, this one keeps the paper's.
#include "embedding.h"

namespace hier {

double eff_local_cost(const PointCosts &costs, const Embedding &partial, int position, int point)
{
    double sum = 0;
    for (size_t bit = 1; bit < partial.size(); bit <<= 1) {
        const int neighbour = partial[size_t(position) ^ bit];
        if (neighbour != kEmpty) {
            sum += costs(point, neighbour);
        }
    }
    return sum;
}

Embedding eff_complete(const PointCosts &costs, Embedding partial)
{
    const size_t n = partial.size();
    std::vector<bool> used(n, false);
    for (int point : partial) {
        if (point != kEmpty) {
            used[point] = true;
        }
    }
    for (size_t position = 0; position < n; ++position) {
        for (size_t bit = 1; bit < n; bit <<= 1) {
            const size_t empty = position ^ bit;
            if (partial[empty] != kEmpty) {
                continue;
            }
            int best = kEmpty;
            double least = 0;
            for (size_t point = 0; point < n; ++point) {
                if (used[point]) {
                    continue;
                }
                const double local = eff_local_cost(costs, partial, int(empty), int(point));
                if (best == kEmpty || local < least) {
                    best = int(point);
                    least = local;
                }
            }
            partial[empty] = best;
            used[best] = true;
        }
    }
    if (n == 1) {
        partial[0] = 0;
    }
    return partial;
}

Embedding embed_eff(const PointCosts &costs)
{
    Embedding partial(size_t(costs.size()), kEmpty);
    int seed = 0;
    for (size_t bit = 1; bit < partial.size(); bit <<= 1) {
        partial[bit] = seed++;
    }
    return eff_complete(costs, std::move(partial));
}

} // namespace hier
