/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The C face of the core (hier_core.h): each function wraps the registry,
// a hier::Communicator (communicator.h) or the executor, and keeps C++
// exceptions out of the C glue. The settings' face is in settings.cc.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "communicator.h"
#include "algorithms.h"
#include "embedding.h"
#include "execute.h"
#include "hier_core.h"
#include "registry.h"

namespace {

// Copies text into out, cut to len - 1 bytes, and its end; nothing for a
// null out or a len of 0.
void write_text(char *out, size_t len, const std::string &text)
{
    if (out && len > 0) {
        const size_t used = std::min(text.size(), len - 1);
        std::memcpy(out, text.data(), used);
        out[used] = '\0';
    }
}

// The fallback for a reason, when the core could not do better.
void fall_back(hier_decision_t *out, const char *why)
{
    out->schedule = nullptr;
    out->chosen = HIER_ALG_FALLBACK;
    out->trial_call = -1;
    out->reason = HIER_REASON_FALLBACK;
    out->phrase = why;
}

} // namespace

extern "C" {

int hier_algorithm_count(hier_op_t op)
{
    return hier::algorithm_id_count(op);
}

const char *hier_algorithm_name(hier_op_t op, int id)
{
    return hier::algorithm_id_name(op, id);
}

const char *hier_algorithm_description(hier_op_t op, int id)
{
    return hier::algorithm_id_description(op, id);
}

const char *hier_op_name(hier_op_t op)
{
    return hier::op_name(op);
}

int hier_one_factor_rounds(int n)
{
    return hier::one_factor_rounds(n);
}

int hier_one_factor_partner(int i, int round, int n)
{
    return hier::one_factor_partner(i, round, n);
}

int hier_embedding_count(void)
{
    return hier::embedding_id_count();
}

const char *hier_embedding_name(int id)
{
    return hier::embedding_id_name(id);
}

hier_comm_t *hier_comm_create(const hier_comm_input_t *input, char *err, size_t errlen,
                              hier_comm_failure_t *failure)
{
    write_text(err, errlen, "");
    try {
        hier::Communicator::Failure why;
        std::unique_ptr<hier::Communicator> communicator = hier::Communicator::create(*input, &why);
        if (!communicator) {
            write_text(err, errlen, why.line);
            if (failure) {
                *failure = {why.reason, why.reported ? 1 : 0};
            }
            return nullptr;
        }
        write_text(err, errlen, why.notice);
        return new hier_comm{std::move(communicator)};
    } catch (...) {  // no C++ exception may reach the C glue
        if (failure) {
            *failure = {"out of memory", 0};
        }
        return nullptr;
    }
}

void hier_comm_destroy(hier_comm_t *comm)
{
    delete comm;
}

int hier_comm_node_count(const hier_comm_t *comm)
{
    return comm->communicator->topology().node_count();
}

int hier_comm_cluster_count(const hier_comm_t *comm)
{
    return comm->communicator->topology().cluster_count();
}

int hier_comm_node_of(const hier_comm_t *comm, int rank)
{
    return comm->communicator->topology().node_of(rank);
}

int hier_comm_cluster_of(const hier_comm_t *comm, int rank)
{
    return comm->communicator->topology().cluster_of(rank);
}

int hier_comm_node_leader(const hier_comm_t *comm, int node)
{
    return comm->communicator->topology().members(node).front();
}

int hier_comm_probe_partners(const hier_comm_t *comm, int rank, int link_class, int reach, int *partners,
                             int *left_out)
{
    const std::vector<int> found =
        hier::message_probe_partners(comm->communicator->topology(), rank, link_class, reach, left_out);
    std::copy(found.begin(), found.end(), partners);
    return int(found.size());
}

void hier_comm_decide(hier_comm_t *comm, hier_op_t op, int requested, int root, size_t block_bytes,
                      const char *unsupported, int nonblocking, int verbose, hier_decision_t *out)
{
    try {
        comm->communicator->decide(op, requested, root, block_bytes, unsupported, nonblocking != 0, verbose, out);
    } catch (...) {  // no C++ exception may reach the C glue
        fall_back(out, "out of memory deciding");
    }
}

void hier_comm_explain(const hier_comm_t *comm, hier_op_t op, const hier_decision_t *decision, char *where,
                       size_t where_len, char *reason, size_t reason_len)
{
    write_text(where, where_len, "");
    write_text(reason, reason_len, "");
    try {
        std::string where_text, reason_text;
        comm->communicator->explain(op, *decision, where ? &where_text : nullptr, reason ? &reason_text : nullptr);
        write_text(where, where_len, where_text);
        write_text(reason, reason_len, reason_text);
    } catch (...) {  // the text only: the decision stands
    }
}

const char *hier_comm_predictions(const hier_comm_t *comm)
{
    return comm->communicator->predictions().c_str();
}

int hier_comm_trial_record(hier_comm_t *comm, hier_op_t op, size_t block_bytes, int trial_call, double seconds)
{
    return comm->communicator->trial_record(op, block_bytes, trial_call, seconds) ? 1 : 0;
}

int hier_comm_trial_conclude(hier_comm_t *comm, hier_op_t op, size_t block_bytes, hier_decision_t *out)
{
    try {
        return comm->communicator->trial_conclude(op, block_bytes, out);
    } catch (...) {  // no C++ exception may reach the C glue
        fall_back(out, "out of memory concluding the measurement");
        return HIER_TRIAL_CONCLUDED;
    }
}

size_t hier_schedule_tmp_blocks(const hier_schedule_t *schedule)
{
    return schedule->schedule.tmp_blocks();
}

int hier_execute(const hier_schedule_t *schedule, const hier_transport_t *transport, int window)
{
    return hier::execute(schedule->schedule, *transport, window);
}

void hier_run_begin(hier_run_t *run, const hier_schedule_t *schedule, const hier_transport_t *transport,
                    int window)
{
    *run = {schedule, transport, window, 0, 0};
}

int hier_run_advance(hier_run_t *run, int *done)
{
    hier::Execution execution(run->schedule->schedule, *run->transport, run->window, run->posted, run->finished);
    const int rc = execution.advance(false);
    run->posted = execution.posted();
    run->finished = execution.round();
    *done = execution.done();
    return rc;
}

} // extern "C"
