/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The executor: runs one rank's schedule over a transport.
//
// Round semantics: post the receives, post the sends, complete them, then
// run the round's copies and reductions in order. Rounds finish in order;
// with a window w > 1 the next rounds are posted while earlier ones are in
// flight (at most w at a time, and never before the round they depend on has
// finished: see schedule.h), so a link does not idle while a rank waits for
// one exchange.
// An Execution can be advanced without blocking, which is how the in-memory
// transport runs every rank of a schedule in one thread, and how the glue's
// nonblocking requests progress (through hier_run_t, its state kept by the
// request between calls).
#pragma once

#include "hier_core.h"
#include "schedule.h"

namespace hier {

class Execution {
public:
    Execution(const Schedule &schedule, const hier_transport_t &transport, int window = 1)
        : schedule_(schedule), transport_(transport), window_(schedule.window(window)) {}
    // Resumes one paused where posted() and round() said.
    Execution(const Schedule &schedule, const hier_transport_t &transport, int window, size_t posted,
              size_t finished)
        : schedule_(schedule), transport_(transport), window_(schedule.window(window)), posted_(posted),
          finished_(finished) {}

    // Runs rounds until the schedule is done or, without blocking, until the
    // oldest round in flight is not complete yet. Returns 0 or the
    // transport's first error.
    int advance(bool blocking);

    bool done() const { return finished_ == schedule_.rounds().size(); }
    // Rounds finished so far, and posted so far.
    size_t round() const { return finished_; }
    size_t posted() const { return posted_; }

private:
    bool may_post(size_t round) const;
    int post(const Round &round);
    int finish(const Round &round);

    const Schedule &schedule_;
    const hier_transport_t &transport_;
    size_t window_;
    size_t posted_ = 0;    // rounds [finished_, posted_) are in flight
    size_t finished_ = 0;
};

// Runs the schedule to completion, blocking.
int execute(const Schedule &schedule, const hier_transport_t &transport, int window = 1);

} // namespace hier
