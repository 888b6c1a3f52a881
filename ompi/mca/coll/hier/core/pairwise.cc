/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The flat 1-factor alltoall of the encyclopedia text ("All-to-all (parallel
// pattern)", 1-factor algorithm): p odd, p rounds, round i pairs j with
// (i - j) mod p and the one process paired with itself is idle (it copies its
// own block); p even, p - 1 rounds of the odd construction on p - 1
// processes, the idle one, (p/2) i mod (p - 1), paired with p - 1 instead.
// Departure: for even p the own block is copied in round 0, not in a round of
// its own.
#include "algorithms.h"

namespace hier {

int one_factor_rounds(int size)
{
    return size % 2 == 1 ? size : size - 1;
}

int one_factor_partner(int rank, int round, int size)
{
    if (size % 2 == 1) {
        return ((round - rank) % size + size) % size;
    }
    const int odd = size - 1;
    if (rank == odd) {
        return int((long(size / 2) * round) % odd);
    }
    const int partner = ((round - rank) % odd + odd) % odd;
    return partner == rank ? odd : partner;
}

Schedule build_pairwise_alltoall(const Topology &topology, const Plans & /*plans*/, int rank, int /*root*/)
{
    const int size = topology.size();
    ScheduleBuilder b(rank, size);
    b.copy(0, block(HIER_BUF_SEND, rank), block(HIER_BUF_RECV, rank));
    for (int round = 0; round < one_factor_rounds(size); ++round) {
        const int peer = one_factor_partner(rank, round, size);
        if (peer != rank) {
            b.exchange(uint32_t(round), peer, block(HIER_BUF_SEND, peer), block(HIER_BUF_RECV, peer));
        }
    }
    return b.build();
}

} // namespace hier
