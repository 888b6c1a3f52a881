/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Figueira and Janapa Reddi, Sec. 5.1: calc_cost, the cost of an embedded
// hypercube; the blind embedding; the table of embeddings.
#include "embedding.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "keywords.h"

namespace hier {

PointCosts::PointCosts(const Costs &costs, std::vector<int> process_of_point)
    : costs_(costs), process_(std::move(process_of_point))
{
}

PointCosts::PointCosts(const Costs &costs) : costs_(costs), process_(size_t(costs.size()))
{
    std::iota(process_.begin(), process_.end(), 0);
}

double calc_cost(const PointCosts &costs, const Embedding &embedding, const Fold &fold)
{
    const size_t n = embedding.size();
    std::vector<double> cost(n, 0.0), next(n);
    if (!fold.ready.empty()) {
        for (size_t x = 0; x < n; ++x) {
            cost[x] = fold.ready[embedding[x]];
        }
    }
    for (size_t bit = 1; bit < n; bit <<= 1) {
        for (size_t x = 0; x < n; ++x) {
            next[x] = std::max(cost[x], cost[x ^ bit]) + costs(embedding[x], embedding[x ^ bit]);
        }
        cost.swap(next);
    }
    double largest = 0;
    for (size_t x = 0; x < n; ++x) {
        largest = std::max(largest, cost[x] + (fold.after.empty() ? 0.0 : fold.after[embedding[x]]));
    }
    return largest;
}

Embedding embed_blind(const PointCosts &costs)
{
    Embedding embedding(size_t(costs.size()));
    std::iota(embedding.begin(), embedding.end(), 0);
    return embedding;
}

namespace {

Embedding blind(const PointCosts &costs, const Fold &)
{
    return embed_blind(costs);
}
Embedding dim2(const PointCosts &costs, const Fold &)
{
    return embed_dim2(costs);
}
Embedding tsts(const PointCosts &costs, const Fold &)
{
    return embed_tsts(costs);
}
Embedding eff(const PointCosts &costs, const Fold &)
{
    return embed_eff(costs);
}

} // namespace

const std::vector<EmbeddingMethod> &embedding_methods()
{
    static const std::vector<EmbeddingMethod> methods = {
        {"blind", "position i holds rank i; ranks beyond the power of two fold onto the first ones", blind},
        {"dim2", "Dim2_Cube (Figueira and Janapa Reddi, Sec. 4.1): cheapest partners in dimension 0", dim2},
        {"tsts", "TSTS_Cube (Sec. 4.2): a spanning-tree tour laid on positions in Gray-code order", tsts},
        {"eff", "Eff_Cube (Sec. 4.3): each empty position gets the point of least local cost", eff},
        {"refine",
         "ours: the best of the others and of Eff_Cube seeded by cost, improved by swaps while calc_cost falls",
         embed_refine},
    };
    return methods;
}

int embedding_id_count()
{
    return 1 + static_cast<int>(embedding_methods().size());
}

const char *embedding_id_name(int id)
{
    if (id == kEmbeddingAuto) {
        return kAutoKeyword;
    }
    return id > 0 && id < embedding_id_count() ? embedding_methods()[size_t(id) - 1].name : nullptr;
}

const char *embedding_id_description(int id)
{
    if (id == kEmbeddingAuto) {
        return "the embedding of least calc_cost (blind beyond 1,024 ranks, where the search takes seconds)";
    }
    return id > 0 && id < embedding_id_count() ? embedding_methods()[size_t(id) - 1].description : nullptr;
}

int embedding_id(const char *name)
{
    for (int id = 0; id < embedding_id_count(); ++id) {
        if (name && std::strcmp(name, embedding_id_name(id)) == 0) {
            return id;
        }
    }
    return -1;
}

} // namespace hier
