/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The XOR variant of the 1-factor alltoall in the encyclopedia text
// ("All-to-all (parallel pattern)", 1-factor algorithm, last paragraph): for
// p a power of two, round i = 1 .. p - 1 pairs j with j XOR i, so every round
// is a perfect matching and each pair meets once: p - 1 rounds of
// (ts + tw m). The text notes it suits hypercubes and fat trees, where the
// pairs of a round use disjoint links.
#include "algorithms.h"

namespace hier {

namespace {

bool power_of_two(int p)
{
    return p > 0 && (p & (p - 1)) == 0;
}

} // namespace

const char *xor_unfit(const Topology &topology)
{
    return power_of_two(topology.size()) ? nullptr : "needs a power-of-two number of ranks";
}

Schedule build_xor_alltoall(const Topology &topology, const Plans & /*plans*/, int rank, int /*root*/)
{
    ScheduleBuilder b(rank, topology.size());
    b.copy(1, block(HIER_BUF_SEND, rank), block(HIER_BUF_RECV, rank));
    for (int round = 1; round < topology.size(); ++round) {
        const int peer = rank ^ round;
        b.exchange(uint32_t(round), peer, block(HIER_BUF_SEND, peer), block(HIER_BUF_RECV, peer));
    }
    return b.build();
}

} // namespace hier
