/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// A D-dimensional torus of ranks: coordinates, neighbours, distances, and the
// parser of coll_hier_torus_dims.
//
// Ranks are numbered row-major, the last dimension varying fastest, as
// MPI_Cart_coords numbers the ranks of a Cartesian communicator. A dimension
// of size n >= 3 is a ring: two neighbours, two links. A dimension of size 2
// has one neighbour, reached both ways over ONE link; size 1 has none.
//
// Algorithms work relative to a root: relative(rank, root) moves the root to
// the origin (coordinates subtracted modulo the sizes), absolute() moves back.
// The torus is vertex-transitive, so a plan made for the origin serves every
// root.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace hier {

// One link of a node: a dimension and a direction, +1 or -1 (+1 only in a
// dimension of size 2).
struct TorusLink {
    int dim;
    int dir;
};

class Torus {
public:
    // dims: sizes >= 1, product = the number of ranks. Empty: one rank.
    explicit Torus(std::vector<int> dims = {});

    int size() const { return size_; }
    int dimensions() const { return static_cast<int>(dims_.size()); }
    const std::vector<int> &dims() const { return dims_; }
    int coordinate(int rank, int dim) const { return rank / stride_[dim] % dims_[dim]; }

    // The neighbour of rank one step along a link.
    int step(int rank, TorusLink link) const;
    // The links of every node, in the order dimension 0 +, dimension 0 -,
    // dimension 1 +, ...: two per dimension of size >= 3, one per dimension
    // of size 2, none for size 1.
    const std::vector<TorusLink> &links() const { return links_; }

    // Hops from a to b along a shortest path.
    int distance(int a, int b) const;
    // Hops still to go from `from` to `to` in one dimension, and the links
    // of that dimension that shorten the way (none, one, or both ways when
    // `to` is opposite on an even ring).
    int hops(int from, int to, int dim) const;
    bool shortens(int from, int to, TorusLink link) const;
    // The links a message takes from `from` to `to`, hop by hop, as (the rank
    // it leaves, the index of the link in links()): dimension by dimension,
    // lowest first, each the shorter way round, a tie (opposite on an even
    // ring) the + way. Deterministic dimension-ordered routing, as torus
    // networks commonly route and as the emulated torus does (contrib/cluster).
    std::vector<std::pair<int, int>> route(int from, int to) const;

    // Rank with coordinates rank - root (rank + root for absolute), modulo
    // the sizes.
    int relative(int rank, int root) const;
    int absolute(int rank, int root) const;

    // "7x5"
    std::string describe() const;

private:
    int size_ = 1;
    std::vector<int> dims_;
    std::vector<int> stride_;
    std::vector<TorusLink> links_;
};

// Parses coll_hier_torus_dims, "8x8" or "4x8x8": dimension sizes >= 1 joined
// by 'x', whose product must be `ranks` (ranks < 0: any product that is a
// number of ranks, at most INT_MAX). Returns the sizes, or an empty vector
// and one line in *error naming the parameter and the expected form.
std::vector<int> parse_torus_dims(const std::string &text, int ranks, std::string *error);

} // namespace hier
