/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The store-and-forward grid alltoall (see grid_exchange.h).
//
// Before phase q (along dimension e = order[q]) a rank x holds the blocks
// (src, dst) whose src agrees with x in the dimensions not worked yet and
// whose dst agrees with x in those already worked. Phase q moves each block
// to the member of x's ring whose coordinate e is dst's. Inside a
// super-block, blocks are ordered by (src's coordinates in the dimensions
// worked before, dst's in those worked after): a function of the block that
// sender and receiver evaluate alike, since both agree on every other
// coordinate.
#include "grid_exchange.h"

namespace hier {

namespace {

int modulo(int a, int k)
{
    return ((a % k) + k) % k;
}

int grid_size(const Grid &grid)
{
    int size = 1;
    for (int k : grid.dims) {
        size *= k;
    }
    return size;
}

// One direction of a phase's ring: `count` super-blocks of `width` blocks
// for the members 1..count steps away in `direction`, staged at TMP `stage`;
// received data alternates between `spare` and `stage`.
struct Leg {
    int direction = 1;
    int count = 0;
    uint32_t stage = 0;
    uint32_t spare = 0;
};

struct Phase {
    int dim;
    int width;  // blocks per super-block: p / k
    Leg ways[2];  // [0] forward, [1] backward (count 0 one way)
    uint32_t first_step;
};

class GridAlltoall {
public:
    GridAlltoall(const Grid &grid, int rank, bool both_ways);
    Schedule build();

private:
    using Coords = std::vector<int>;
    Coords coords_of(int rank) const;
    int rank_of(const Coords &x) const;
    int neighbour(int dim, int step) const;
    uint32_t index_in_block(size_t q, const Coords &src, const Coords &dst) const;
    void decode(size_t q, uint32_t index, Coords &src, Coords &dst) const;
    // Where block (src, dst) goes once the phases before q are done: the
    // staging of the first phase from q on that must move it, or RECV.
    Region place(const Coords &src, const Coords &dst, size_t q) const;
    void run_leg(size_t q, const Leg &leg, CopyMerger &copies);

    const Grid &grid_;
    int size_;
    Coords me_;
    std::vector<int> stride_;
    std::vector<Phase> phases_;
    ScheduleBuilder b_;
};

GridAlltoall::GridAlltoall(const Grid &grid, int rank, bool both_ways)
    : grid_(grid), size_(grid_size(grid)), stride_(grid.dims.size()), b_(rank, size_)
{
    for (size_t e = grid.dims.size(), stride = 1; e-- > 0; stride *= size_t(grid.dims[e])) {
        stride_[e] = int(stride);
    }
    me_ = coords_of(rank);
    uint32_t tmp = 0;
    uint32_t step = 1;  // step 0 lays out the first phase
    for (size_t e = grid.dims.size(); e-- > 0;) {
        const int k = grid.dims[e];
        if (k == 1) {
            continue;
        }
        Phase phase{int(e), size_ / k, {}, step};
        const int forward = both_ways ? k / 2 : k - 1;  // ceil((k - 1) / 2) = floor(k / 2)
        const int counts[2] = {forward, k - 1 - forward};
        for (int way = 0; way < 2; ++way) {
            Leg &leg = phase.ways[way];
            leg.direction = way == 0 ? 1 : -1;
            leg.count = counts[way];
            leg.stage = tmp;
            leg.spare = tmp + uint32_t(leg.count * phase.width);
            tmp = leg.spare + uint32_t(leg.count * phase.width);
        }
        step += uint32_t(forward);
        phases_.push_back(phase);
    }
    b_.reserve_tmp(tmp);
}

GridAlltoall::Coords GridAlltoall::coords_of(int rank) const
{
    Coords x(grid_.dims.size());
    for (size_t e = 0; e < x.size(); ++e) {
        x[e] = rank / stride_[e] % grid_.dims[e];
    }
    return x;
}

int GridAlltoall::rank_of(const Coords &x) const
{
    int rank = 0;
    for (size_t e = 0; e < x.size(); ++e) {
        rank += x[e] * stride_[e];
    }
    return rank;
}

int GridAlltoall::neighbour(int dim, int step) const
{
    Coords x = me_;
    x[dim] = modulo(x[dim] + step, grid_.dims[dim]);
    return rank_of(x);
}

uint32_t GridAlltoall::index_in_block(size_t q, const Coords &src, const Coords &dst) const
{
    uint32_t index = 0;
    for (size_t j = 0; j < phases_.size(); ++j) {
        const int e = phases_[j].dim;
        if (j != q) {
            index = index * uint32_t(grid_.dims[e]) + uint32_t(j < q ? src[e] : dst[e]);
        }
    }
    return index;
}

void GridAlltoall::decode(size_t q, uint32_t index, Coords &src, Coords &dst) const
{
    for (size_t j = phases_.size(); j-- > 0;) {
        const int e = phases_[j].dim;
        if (j != q) {
            (j < q ? src : dst)[e] = int(index % uint32_t(grid_.dims[e]));
            index /= uint32_t(grid_.dims[e]);
        }
    }
}

Region GridAlltoall::place(const Coords &src, const Coords &dst, size_t q) const
{
    for (; q < phases_.size(); ++q) {
        const Phase &phase = phases_[q];
        const int k = grid_.dims[phase.dim];
        const int offset = modulo(dst[phase.dim] - me_[phase.dim], k);
        if (offset == 0) {
            continue;
        }
        const bool forward = offset <= phase.ways[0].count;
        const Leg &leg = phase.ways[forward ? 0 : 1];
        const int distance = forward ? offset : k - offset;
        return block(HIER_BUF_TMP, int(leg.stage) + (distance - 1) * phase.width + int(index_in_block(q, src, dst)));
    }
    return block(HIER_BUF_RECV, rank_of(src));
}

// Round t sends what is left to move (the staged super-blocks, then what
// round t - 1 received minus the first), receives count - t + 1
// super-blocks from the other side, and unpacks the first: it comes from the
// member t steps back and is meant for me.
void GridAlltoall::run_leg(size_t q, const Leg &leg, CopyMerger &copies)
{
    const Phase &phase = phases_[q];
    const auto width = uint32_t(phase.width);
    const int next = neighbour(phase.dim, leg.direction);
    const int prev = neighbour(phase.dim, -leg.direction);
    auto buffer_of_round = [&](int t) { return t % 2 ? leg.spare : leg.stage; };
    for (int t = 1; t <= leg.count; ++t) {
        const uint32_t step = phase.first_step + uint32_t(t) - 1;
        const auto left = uint32_t(leg.count - t + 1) * width;
        const uint32_t from = t == 1 ? leg.stage : buffer_of_round(t - 1) + width;
        const uint32_t into = buffer_of_round(t);
        b_.send(step, next, Region{HIER_BUF_TMP, from, left});
        b_.recv(step, prev, Region{HIER_BUF_TMP, into, left});
        Coords src = me_, dst = me_;
        src[phase.dim] = modulo(me_[phase.dim] - leg.direction * t, grid_.dims[phase.dim]);
        for (uint32_t i = 0; i < width; ++i) {
            decode(q, i, src, dst);
            copies.add(step, block(HIER_BUF_TMP, int(into + i)), place(src, dst, q + 1));
        }
        copies.flush();
    }
}

Schedule GridAlltoall::build()
{
    CopyMerger copies(b_);
    for (int dst = 0; dst < size_; ++dst) {
        copies.add(0, block(HIER_BUF_SEND, dst), place(me_, coords_of(dst), 0));
    }
    copies.flush();
    for (size_t q = 0; q < phases_.size(); ++q) {
        for (const Leg &leg : phases_[q].ways) {
            run_leg(q, leg, copies);
        }
    }
    return b_.build();
}

} // namespace

Schedule build_grid_alltoall(const Grid &grid, int rank, bool both_ways)
{
    return GridAlltoall(grid, rank, both_ways).build();
}

} // namespace hier
