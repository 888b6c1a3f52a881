/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// TSTS_Cube: Figueira and Janapa Reddi, Sec. 4.2. A minimum spanning tree
// (Prim's, O(n^2), rooted at point 0), its preorder walk (the
// travelling-salesman tour with shortcuts, at most twice the optimal tour),
// and the k-th point of the walk on the k-th position in Gray-code order,
// k XOR (k >> 1), so that consecutive points of the tour are neighbours in
// the cube. The paper does not say in which order a node's subtrees are
// walked: here the cheaper edge first, ties to the lower point.
#include "embedding.h"

#include <algorithm>
#include <limits>

namespace hier {

namespace {

// parent[point] in a minimum spanning tree rooted at 0 (-1 for the root).
std::vector<int> minimum_spanning_tree(const PointCosts &costs)
{
    const int n = costs.size();
    std::vector<int> parent(size_t(n), -1);
    std::vector<double> reach(size_t(n), std::numeric_limits<double>::infinity());
    std::vector<bool> in_tree(size_t(n), false);
    reach[0] = 0;
    for (int added = 0; added < n; ++added) {
        int next = -1;
        for (int point = 0; point < n; ++point) {
            if (!in_tree[point] && (next < 0 || reach[point] < reach[next])) {
                next = point;
            }
        }
        in_tree[next] = true;
        for (int point = 0; point < n; ++point) {
            if (!in_tree[point] && costs(next, point) < reach[point]) {
                reach[point] = costs(next, point);
                parent[point] = next;
            }
        }
    }
    return parent;
}

// The preorder walk of the tree, children by cheaper edge first.
std::vector<int> preorder_walk(const PointCosts &costs, const std::vector<int> &parent)
{
    const int n = costs.size();
    std::vector<std::vector<int>> children(static_cast<size_t>(n));
    for (int point = 1; point < n; ++point) {
        children[parent[point]].push_back(point);
    }
    for (int point = 0; point < n; ++point) {
        std::stable_sort(children[point].begin(), children[point].end(), [&](int a, int b) {
            return costs(point, a) < costs(point, b);
        });
    }
    std::vector<int> walk, stack{0};
    while (!stack.empty()) {
        const int point = stack.back();
        stack.pop_back();
        walk.push_back(point);
        stack.insert(stack.end(), children[point].rbegin(), children[point].rend());
    }
    return walk;
}

} // namespace

Embedding embed_tsts(const PointCosts &costs)
{
    const std::vector<int> walk = preorder_walk(costs, minimum_spanning_tree(costs));
    Embedding embedding(walk.size());
    for (size_t k = 0; k < walk.size(); ++k) {
        embedding[k ^ (k >> 1)] = walk[k];
    }
    return embedding;
}

} // namespace hier
