/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Dim2_Cube: Figueira and Janapa Reddi, Sec. 4.1. For every even position
// i, the first unused point goes to i and its cheapest unused point to
// i + 1, its neighbour in dimension 0. Only dimension 0 is optimised; the
// others fall where they may. O(n^2). Ties go to the lower point.
#include "embedding.h"

namespace hier {

Embedding embed_dim2(const PointCosts &costs)
{
    const int n = costs.size();
    Embedding embedding(size_t(n), kEmpty);
    std::vector<bool> used(size_t(n), false);
    int first = 0;
    for (int position = 0; position + 1 < n; position += 2) {
        while (used[first]) {
            ++first;
        }
        used[first] = true;
        int closest = kEmpty;
        for (int point = first + 1; point < n; ++point) {
            if (!used[point] && (closest == kEmpty || costs(first, point) < costs(first, closest))) {
                closest = point;
            }
        }
        used[closest] = true;
        embedding[position] = first;
        embedding[position + 1] = closest;
    }
    if (n == 1) {
        embedding[0] = 0;
    }
    return embedding;
}

} // namespace hier
