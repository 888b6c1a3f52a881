/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// What Open MPI 4.1.4 runs for MPI_Alltoall when hier hands a call back: the
// tuned component's fixed decision (ompi/mca/coll/tuned/
// coll_tuned_decision_fixed.c, used unless coll_tuned_use_dynamic_rules is
// set) and the coll/base algorithms it picks (ompi/mca/coll/base/
// coll_base_alltoall.c), as schedules the time model can run. Model-only:
// these are not registry rows, since the fallback already runs them.
//
// From reading that code (no code taken from it):
// - the choice depends on the communicator size and the bytes of one block,
//   in bands of sizes and size thresholds (kTunedBands below);
// - linear posts every receive (from j + 1, j + 2, ...) and every send (to
//   j - 1, j - 2, ...) at once; linear_sync does the same when its request
//   limit is 0, the default (coll_tuned_alltoall_algorithm_max_requests), so
//   it is modelled as linear; two_proc is one exchange, as linear on 2 ranks;
// - pairwise takes p steps of a blocking send-receive, to j + s and from
//   j - s in step s, the own block last;
// - modified Bruck: bruck.cc.
// The MPI_IN_PLACE path (a pairwise swap per peer) is not modelled.
#include "tuned_alltoall.h"

#include <iterator>

namespace hier {

namespace {

struct Threshold {
    size_t below;  // block bytes
    TunedAlltoall algorithm;
};

// Ranks below `below_ranks` (0: any larger communicator) use the first entry
// whose `below` exceeds the block size, else `otherwise`.
struct TunedBand {
    int below_ranks;
    std::vector<Threshold> thresholds;
    TunedAlltoall otherwise;
};

using T = TunedAlltoall;

const TunedBand kTwoRanks = {
    3,
    {{2, T::Pairwise}, {4, T::TwoProcs}, {16, T::Pairwise}, {64, T::TwoProcs}, {256, T::Pairwise},
     {4096, T::TwoProcs}, {32768, T::Pairwise}, {262144, T::LinearSync}, {1048576, T::TwoProcs}},
    T::Pairwise};

const TunedBand kTunedBands[] = {
    {8,
     {{8192, T::LinearSync}, {16384, T::Linear}, {65536, T::LinearSync}, {524288, T::Linear},
      {1048576, T::Pairwise}},
     T::Linear},
    {16, {{262144, T::LinearSync}}, T::Linear},
    {32,
     {{4, T::LinearSync}, {512, T::ModifiedBruck}, {8192, T::LinearSync}, {32768, T::Linear},
      {262144, T::LinearSync}, {524288, T::Linear}},
     T::LinearSync},
    {64, {{512, T::ModifiedBruck}, {524288, T::Linear}}, T::LinearSync},
    {128,
     {{1024, T::ModifiedBruck}, {2048, T::Linear}, {4096, T::LinearSync}, {262144, T::Linear}},
     T::Pairwise},
    {256, {{1024, T::ModifiedBruck}, {2048, T::LinearSync}, {262144, T::Linear}}, T::Pairwise},
    {512, {{1024, T::ModifiedBruck}, {8192, T::LinearSync}, {32768, T::Linear}}, T::Pairwise},
    {1024,
     {{512, T::ModifiedBruck}, {8192, T::LinearSync}, {16384, T::Linear}, {131072, T::LinearSync},
      {262144, T::Linear}},
     T::Pairwise},
    {2048,
     {{512, T::ModifiedBruck}, {1024, T::LinearSync}, {2048, T::Linear}, {16384, T::LinearSync},
      {262144, T::Linear}},
     T::LinearSync},
    {4096,
     {{1024, T::ModifiedBruck}, {4096, T::LinearSync}, {8192, T::Linear}, {131072, T::LinearSync}},
     T::Linear},
    {0,
     {{2048, T::ModifiedBruck}, {8192, T::LinearSync}, {16384, T::Linear}, {32768, T::LinearSync},
      {65536, T::Linear}},
     T::LinearSync},
};

TunedAlltoall pick_in(const TunedBand &band, size_t block_bytes)
{
    for (const Threshold &threshold : band.thresholds) {
        if (block_bytes < threshold.below) {
            return threshold.algorithm;
        }
    }
    return band.otherwise;
}

} // namespace

TunedAlltoall tuned_alltoall_choice(int size, size_t block_bytes)
{
    if (size == 2) {
        return pick_in(kTwoRanks, block_bytes);
    }
    for (const TunedBand &band : kTunedBands) {
        if (band.below_ranks == 0 || size < band.below_ranks) {
            return pick_in(band, block_bytes);
        }
    }
    return T::Linear;  // not reached: the last band takes every size
}

const char *tuned_alltoall_name(TunedAlltoall algorithm)
{
    switch (algorithm) {
    case T::Linear: return "linear";
    case T::Pairwise: return "pairwise";
    case T::ModifiedBruck: return "bruck";
    case T::LinearSync: return "linear_sync";
    case T::TwoProcs: return "two_proc";
    }
    return "?";
}

Schedule build_tuned_linear_alltoall(const Topology &topology, const Plans & /*plans*/, int rank, int /*root*/)
{
    const int p = topology.size();
    ScheduleBuilder b(rank, p);
    for (int i = 1; i < p; ++i) {
        const int from = (rank + i) % p;
        b.recv(0, from, block(HIER_BUF_RECV, from));
    }
    for (int i = 1; i < p; ++i) {
        const int to = (rank - i + p) % p;
        b.send(0, to, block(HIER_BUF_SEND, to));
    }
    b.copy(0, block(HIER_BUF_SEND, rank), block(HIER_BUF_RECV, rank));
    return b.build();
}

Schedule build_tuned_pairwise_alltoall(const Topology &topology, const Plans & /*plans*/, int rank, int /*root*/)
{
    const int p = topology.size();
    ScheduleBuilder b(rank, p);
    for (int s = 1; s < p; ++s) {
        const int to = (rank + s) % p;
        const int from = (rank - s + p) % p;
        b.send(uint32_t(s), to, block(HIER_BUF_SEND, to));
        b.recv(uint32_t(s), from, block(HIER_BUF_RECV, from));
    }
    b.copy(uint32_t(p), block(HIER_BUF_SEND, rank), block(HIER_BUF_RECV, rank));
    return b.build();
}

Builder tuned_alltoall_builder(TunedAlltoall algorithm)
{
    switch (algorithm) {
    case T::Pairwise: return build_tuned_pairwise_alltoall;
    case T::ModifiedBruck: return build_bruck_alltoall;
    case T::Linear:
    case T::LinearSync:
    case T::TwoProcs: break;
    }
    return build_tuned_linear_alltoall;
}

} // namespace hier
