/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The executor.
#include "execute.h"

namespace hier {

int Execution::post(const Round &round)
{
    const Op *ops = schedule_.ops(round);
    const size_t count = schedule_.op_count(round);
    // Receives first, so that a send to a peer that is already waiting, or
    // to ourselves, always finds its receive posted.
    for (size_t i = 0; i < count; ++i) {
        const Op &op = ops[i];
        if (op.kind == OpKind::Recv) {
            if (int rc = transport_.post_recv(transport_.ctx, op.peer, op.to.buffer, op.to.first, op.to.count)) {
                return rc;
            }
        }
    }
    for (size_t i = 0; i < count; ++i) {
        const Op &op = ops[i];
        if (op.kind == OpKind::Send) {
            if (int rc = transport_.post_send(transport_.ctx, op.peer, op.from.buffer, op.from.first, op.from.count)) {
                return rc;
            }
        }
    }
    return 0;
}

int Execution::finish(const Round &round)
{
    const Op *ops = schedule_.ops(round);
    const size_t count = schedule_.op_count(round);
    for (size_t i = 0; i < count; ++i) {
        const Op &op = ops[i];
        if (op.kind == OpKind::Copy || op.kind == OpKind::Reduce) {
            const auto apply = op.kind == OpKind::Copy ? transport_.copy : transport_.reduce;
            if (int rc = apply(transport_.ctx, op.from.buffer, op.from.first, op.to.buffer, op.to.first,
                               op.from.count)) {
                return rc;
            }
        }
    }
    return 0;
}

bool Execution::may_post(size_t round) const
{
    const auto &rounds = schedule_.rounds();
    return round < rounds.size() && round - finished_ < window_ &&
           rounds[round].depends_on < static_cast<int32_t>(finished_);
}

int Execution::advance(bool blocking)
{
    const auto &rounds = schedule_.rounds();
    while (!done()) {
        for (; may_post(posted_); ++posted_) {
            if (int rc = post(rounds[posted_])) {
                return rc;
            }
        }
        const Round &oldest = rounds[finished_];
        int complete = 1;
        if (oldest.messages > 0) {
            if (int rc = transport_.complete(transport_.ctx, oldest.messages, blocking, &complete)) {
                return rc;
            }
        }
        if (!complete) {
            return 0;
        }
        if (int rc = finish(oldest)) {
            return rc;
        }
        ++finished_;
    }
    return 0;
}

int execute(const Schedule &schedule, const hier_transport_t &transport, int window)
{
    Execution execution(schedule, transport, window);
    return execution.advance(true);
}

} // namespace hier
