/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Alltoallv's program: the size pass, the layout of TMP, the data pass.
//
// A schedule that forwards blocks through TMP (lg) needs the size of every
// TMP block before the data moves, and no rank knows the sizes of the
// blocks it forwards. So the schedule first runs over blocks of one 8-byte
// integer holding each block's size in bytes: the sizes travel exactly where
// the data will, and each rank finds in its TMP the size of every block it
// will hold there (every TMP block is written once in the schedules
// alltoallv runs). TMP is then laid out packed and the same schedule runs
// over the data. Algorithms that use no TMP on any rank skip the size pass
// (Schedule::tmp_on_some_rank: every rank decides alike).
//
// The program moves nothing itself: it runs the executor over the caller's
// transport, and between the passes asks the caller's host
// (hier_alltoallv_host_t) to lay the buffers out. The component runs it over
// the PML, the unit tests over the in-memory transport.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "execute.h"
#include "hier_core.h"
#include "schedule.h"

namespace hier {

class AlltoallvProgram {
public:
    // Starts a call of schedule on a communicator of `size` ranks (the host
    // lays out the first pass's buffers now; nothing is posted). transport
    // and host are copied. Returns 0, the host's error, or
    // host.out_of_memory.
    int begin(const Schedule &schedule, int size, const hier_transport_t &transport,
              const hier_alltoallv_host_t &host, int window);

    // Runs rounds until the call is done or, without blocking, until the
    // oldest round in flight is not complete yet. Returns 0, the transport's
    // or the host's first error, or host.out_of_memory.
    int advance(bool blocking);

    bool done() const { return pass_ == Pass::Done; }
    // Rounds finished in this call so far, over both passes.
    size_t rounds_finished() const;

private:
    enum class Pass { Sizes, Data, Done };

    int begin_data_pass();

    const Schedule *schedule_ = nullptr;
    hier_transport_t transport_{};
    hier_alltoallv_host_t host_{};
    int window_ = 1;
    Pass pass_ = Pass::Done;
    size_t size_pass_rounds_ = 0;  // rounds the size pass finished
    std::optional<Execution> execution_;
    // Kept from call to call, so that a call allocates only when it needs
    // more than every call before it: the size pass's SEND (p), RECV (p) and
    // TMP blocks, one after the other; TMP's packed offsets.
    std::vector<uint64_t> sizes_;
    std::vector<size_t> tmp_offsets_;
};

} // namespace hier
