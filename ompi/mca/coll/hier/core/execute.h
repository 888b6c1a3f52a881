// The executor: runs one rank's schedule over a transport.
//
// Round semantics: post the receives, post the sends, complete them all,
// then run the round's copies in order. An Execution can be advanced without
// blocking, which is how the in-memory transport runs every rank of a
// schedule in one thread (and how a nonblocking collective would progress).
#pragma once

#include "hier_core.h"
#include "schedule.h"

namespace hier {

class Execution {
public:
    Execution(const Schedule &schedule, const hier_transport_t &transport)
        : schedule_(schedule), transport_(transport) {}

    // Runs rounds until the schedule is done or, without blocking, until the
    // current round's messages are not complete yet. Returns 0 or the
    // transport's first error.
    int advance(bool blocking);

    bool done() const { return round_ == schedule_.rounds().size(); }
    size_t round() const { return round_; }

private:
    int post(const Round &round);
    int finish(const Round &round);

    const Schedule &schedule_;
    const hier_transport_t &transport_;
    size_t round_ = 0;
    bool posted_ = false;
};

// Runs the schedule to completion, blocking.
int execute(const Schedule &schedule, const hier_transport_t &transport);

} // namespace hier
