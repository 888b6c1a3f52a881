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
        if (op.kind == OpKind::Copy) {
            if (int rc = transport_.copy(transport_.ctx, op.from.buffer, op.from.first, op.to.buffer,
                                         op.to.first, op.from.count)) {
                return rc;
            }
        }
    }
    return 0;
}

int Execution::advance(bool blocking)
{
    const auto &rounds = schedule_.rounds();
    while (round_ < rounds.size()) {
        const Round &round = rounds[round_];
        if (!posted_) {
            if (int rc = post(round)) {
                return rc;
            }
            posted_ = true;
        }
        int complete = 0;
        if (int rc = transport_.complete(transport_.ctx, blocking, &complete)) {
            return rc;
        }
        if (!complete) {
            return 0;
        }
        if (int rc = finish(round)) {
            return rc;
        }
        posted_ = false;
        ++round_;
    }
    return 0;
}

int execute(const Schedule &schedule, const hier_transport_t &transport)
{
    Execution execution(schedule, transport);
    return execution.advance(true);
}

} // namespace hier
