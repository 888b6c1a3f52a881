/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Torus geometry and the coll_hier_torus_dims parser.
#include "torus.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <sstream>

namespace hier {

Torus::Torus(std::vector<int> dims) : dims_(std::move(dims)), stride_(dims_.size())
{
    for (int dim = dimensions() - 1; dim >= 0; --dim) {
        stride_[dim] = size_;
        size_ *= dims_[dim];
    }
    for (int dim = 0; dim < dimensions(); ++dim) {
        if (dims_[dim] >= 2) {
            links_.push_back(TorusLink{dim, +1});
        }
        if (dims_[dim] >= 3) {
            links_.push_back(TorusLink{dim, -1});
        }
    }
}

int Torus::step(int rank, TorusLink link) const
{
    const int n = dims_[link.dim];
    const int here = coordinate(rank, link.dim);
    const int there = (here + link.dir + n) % n;
    return rank + (there - here) * stride_[link.dim];
}

int Torus::hops(int from, int to, int dim) const
{
    const int n = dims_[dim];
    const int ahead = (coordinate(to, dim) - coordinate(from, dim) + n) % n;
    return std::min(ahead, n - ahead);
}

bool Torus::shortens(int from, int to, TorusLink link) const
{
    const int n = dims_[link.dim];
    const int ahead = (coordinate(to, link.dim) - coordinate(from, link.dim) + n) % n;
    if (ahead == 0) {
        return false;
    }
    // Going + takes `ahead` hops, going - takes n - ahead.
    return link.dir > 0 ? 2 * ahead <= n : 2 * ahead >= n;
}

std::vector<std::pair<int, int>> Torus::route(int from, int to) const
{
    std::vector<std::pair<int, int>> hops;
    int at = from;
    for (size_t index = 0; index < links_.size(); ++index) {
        const TorusLink link = links_[index];
        // The + link comes first in links(): a tie goes that way.
        while (coordinate(at, link.dim) != coordinate(to, link.dim) && shortens(at, to, link)) {
            hops.emplace_back(at, int(index));
            at = step(at, link);
        }
    }
    return hops;
}

int Torus::distance(int a, int b) const
{
    int total = 0;
    for (int dim = 0; dim < dimensions(); ++dim) {
        total += hops(a, b, dim);
    }
    return total;
}

int Torus::relative(int rank, int root) const
{
    int result = 0;
    for (int dim = 0; dim < dimensions(); ++dim) {
        const int n = dims_[dim];
        result += (coordinate(rank, dim) - coordinate(root, dim) + n) % n * stride_[dim];
    }
    return result;
}

int Torus::absolute(int rank, int root) const
{
    int result = 0;
    for (int dim = 0; dim < dimensions(); ++dim) {
        result += (coordinate(rank, dim) + coordinate(root, dim)) % dims_[dim] * stride_[dim];
    }
    return result;
}

std::string Torus::describe() const
{
    std::ostringstream out;
    for (int dim = 0; dim < dimensions(); ++dim) {
        out << (dim ? "x" : "") << dims_[dim];
    }
    return out.str();
}

namespace {

// A product of sizes, capped here: above any number of ranks, and no overflow.
constexpr long long kMoreThanAnyRanks = INT_MAX + 1LL;

} // namespace

std::vector<int> parse_torus_dims(const std::string &text, int ranks, std::string *error)
{
    const std::string prefix = "coll_hier_torus_dims \"" + text + "\" ";
    const std::string suffix =
        "; expected dimension sizes joined by x, ranks in row-major order (the last dimension varying fastest), "
        "e.g. \"8x8\" or \"4x8x8\"";
    if (text.empty()) {
        *error = prefix + "is empty" + suffix;
        return {};
    }
    std::vector<int> dims;
    long long covered = 1;
    for (size_t start = 0;;) {
        const size_t end = text.find('x', start);
        const std::string field = text.substr(start, end == std::string::npos ? end : end - start);
        const bool digits = !field.empty() && field.size() <= 9 &&
                            std::all_of(field.begin(), field.end(), [](char c) { return c >= '0' && c <= '9'; });
        const long size = digits ? std::strtol(field.c_str(), nullptr, 10) : 0;
        if (size < 1) {
            *error = prefix + (field.empty() ? std::string("has an empty dimension")
                                             : "has \"" + field + "\", which is not a positive integer") +
                     suffix;
            return {};
        }
        dims.push_back(int(size));
        covered = std::min(covered * size, kMoreThanAnyRanks);
        if (end == std::string::npos) {
            break;
        }
        start = end + 1;
    }
    if (ranks < 0 ? covered == kMoreThanAnyRanks : covered != ranks) {
        const std::string count =
            covered == kMoreThanAnyRanks ? "more than " + std::to_string(INT_MAX) : std::to_string(covered);
        *error = prefix + "covers " + count + " ranks" +
                 (ranks < 0 ? std::string() : " but there are " + std::to_string(ranks)) + suffix;
        return {};
    }
    return dims;
}

} // namespace hier
