/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The modified Bruck alltoall that Open MPI's tuned component picks for
// small blocks on 16 ranks or more (Bruck, Ho, Kipnis, Weathersby, "Efficient
// Algorithms for All-to-All Communications in Multiport Message-Passing
// Systems", IEEE TPDS 8(11), 1997, the index algorithm with radix 2, as
// ompi/mca/coll/base/coll_base_alltoall.c arranges it: a rotation, log2 p
// rounds, and one final pass of copies that puts every block in place). Here as
// a schedule for the time model only (tuned_alltoall.h): the fallback already
// runs it where tuned finds it good, and hier's own log p alltoall is the
// hypercube row, which places its rounds by link cost.
//
// Rank j first rotates its blocks, T[i] = SEND[(j + i) mod p]; in round k
// (distance d = 2^k) it sends the T[i] with bit k of i set to j + d and
// receives the same indices from j - d; at the end T[i] holds the block
// from j - i, which goes to RECV[(j - i) mod p]. log2 p rounds, about p / 2
// blocks each.
//
// Departure: the blocks of a round are packed into one contiguous region of
// TMP and unpacked after it (copies), where Open MPI sends them with an
// indexed datatype (which its transport packs too).
#include "tuned_alltoall.h"

#include <algorithm>

namespace hier {

namespace {

// Indices i in [1, p) with `distance` set: the blocks of that round.
std::vector<int> round_blocks(int p, int distance)
{
    std::vector<int> blocks;
    for (int i = 1; i < p; ++i) {
        if (i & distance) {
            blocks.push_back(i);
        }
    }
    return blocks;
}

} // namespace

Schedule build_bruck_alltoall(const Topology &topology, const Plans & /*plans*/, int rank, int /*root*/)
{
    const int p = topology.size();
    ScheduleBuilder b(rank, p);
    CopyMerger copies(b);
    // TMP: T (p blocks), then the packed outgoing round, then the incoming.
    const int rotated = 0;
    const int packed = p;
    const int incoming = p + p / 2;
    b.reserve_tmp(size_t(p) + 2 * size_t(p / 2));
    for (int i = 0; i < p; ++i) {
        copies.add(0, block(HIER_BUF_SEND, (rank + i) % p), block(HIER_BUF_TMP, rotated + i));
    }
    uint32_t step = 0;
    for (int distance = 1; distance < p; distance <<= 1) {
        const std::vector<int> blocks = round_blocks(p, distance);
        for (size_t j = 0; j < blocks.size(); ++j) {  // packed after the previous round's unpacking
            copies.add(step, block(HIER_BUF_TMP, rotated + blocks[j]), block(HIER_BUF_TMP, packed + int(j)));
        }
        copies.flush();
        ++step;
        const auto count = uint32_t(blocks.size());
        b.send(step, (rank + distance) % p, Region{HIER_BUF_TMP, uint32_t(packed), count});
        b.recv(step, (rank - distance + p) % p, Region{HIER_BUF_TMP, uint32_t(incoming), count});
        for (size_t j = 0; j < blocks.size(); ++j) {
            copies.add(step, block(HIER_BUF_TMP, incoming + int(j)), block(HIER_BUF_TMP, rotated + blocks[j]));
        }
    }
    for (int i = 0; i < p; ++i) {
        copies.add(step, block(HIER_BUF_TMP, rotated + i), block(HIER_BUF_RECV, (rank - i + p) % p));
    }
    copies.flush();
    return b.build();
}

} // namespace hier
