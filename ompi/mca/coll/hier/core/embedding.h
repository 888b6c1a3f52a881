/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Hypercube embeddings: which process sits at which position of a
// d-dimensional hypercube, for the recursive-doubling collectives in which
// position x meets position x XOR 2^i in step i. Figueira and Janapa Reddi,
// "Topology-Based Hypercube Structures for Global Communication in
// Heterogeneous Networks": Sec. 3 (the pattern), Sec. 4 (Dim2_Cube,
// TSTS_Cube, Eff_Cube), Sec. 5.1 (calc_cost). One file per embedding.
//
// An embedding places n = 2^d points; a point is a process of the cube
// (hypercube.h folds the processes beyond a power of two onto points).
#pragma once

#include <cstdint>
#include <vector>

#include "cost.h"

namespace hier {

// The costs among the points to embed: point i is process points[i].
class PointCosts {
public:
    PointCosts(const Costs &costs, std::vector<int> process_of_point);
    // Every process a point, in order.
    explicit PointCosts(const Costs &costs);

    int size() const { return static_cast<int>(process_.size()); }
    double operator()(int a, int b) const { return costs_(process_[a], process_[b]); }
    int process(int point) const { return process_[point]; }

private:
    const Costs &costs_;
    std::vector<int> process_;
};

// point_at[position] for positions 0..n-1: a permutation of the points.
using Embedding = std::vector<int>;

// What folding adds to the cube (hypercube.h): point p may start the cube
// only at ready[p] (its folded partner's data must reach it first) and is
// done only after[p] after its last exchange (the result goes back). Empty
// vectors are zeros, the paper's case.
struct Fold {
    std::vector<double> ready;
    std::vector<double> after;
};

// Sec. 5.1's calc_cost: a synchronous exchange per dimension, a point not
// starting dimension i before its partner in it has finished dimension
// i - 1: cost(x) = w(x, nbr_0(x)); for each further dimension i,
// cost(x) = max(cost(x), cost(nbr_i(x))) + w(x, nbr_i(x)); the cube costs
// the largest cost(x). With a fold, cost(x) starts at ready and ends with
// after.
double calc_cost(const PointCosts &costs, const Embedding &embedding, const Fold &fold = {});

// The embedders (n = costs.size() must be a power of two).
// Position i holds point i.
Embedding embed_blind(const PointCosts &costs);
// Sec. 4.1, Dim2_Cube: for each even position, the first unused point and
// its cheapest unused point become neighbours in dimension 0.
Embedding embed_dim2(const PointCosts &costs);
// Sec. 4.2, TSTS_Cube: a minimum spanning tree, its preorder walk (a
// travelling-salesman tour with shortcuts) laid on positions in Gray-code
// order.
Embedding embed_tsts(const PointCosts &costs);
// Sec. 4.3, Eff_Cube, seeded as in the paper: position 0's neighbours get
// points 0, 1, ..., d - 1, then every empty neighbour of each position in
// turn gets the unused point of least local cost.
Embedding embed_eff(const PointCosts &costs);
// Eff_Cube's local cost of point at the empty position: the sum of its
// costs to the points already on the position's neighbours (kEmpty: none).
constexpr int kEmpty = -1;
double eff_local_cost(const PointCosts &costs, const Embedding &partial, int position, int point);
// Eff_Cube's main loop from a partial embedding (kEmpty where nothing sits).
Embedding eff_complete(const PointCosts &costs, Embedding partial);
// Ours: the best of the others and of Eff_Cube seeded by cost, improved by
// swapping points while calc_cost (with the fold) falls.
Embedding embed_refine(const PointCosts &costs, const Fold &fold);

// The table of embeddings coll_hier_hypercube_embedding names. Ids: 0 is
// auto (the one of least calc_cost, ties to the earlier row), then the rows.
struct EmbeddingMethod {
    const char *name;
    const char *description;
    Embedding (*embed)(const PointCosts &costs, const Fold &fold);
};
constexpr int kEmbeddingAuto = 0;
const std::vector<EmbeddingMethod> &embedding_methods();
int embedding_id_count();
const char *embedding_id_name(int id);
const char *embedding_id_description(int id);
// The id of a name, or -1.
int embedding_id(const char *name);

} // namespace hier
