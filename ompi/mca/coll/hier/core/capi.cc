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

using hier::write_text;

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

void hier_comm_apply_message_cost(hier_comm_t *comm, const double message_cost[2])
{
    comm->communicator->apply_message_cost(message_cost);
}

void hier_comm_decide(hier_comm_t *comm, hier_op_t op, int requested, int root, size_t block_bytes,
                      const char *unsupported, int nonblocking, int verbose, hier_decision_t *out)
{
    try {
        comm->communicator->decide(op, requested, root, block_bytes, unsupported, nonblocking != 0, verbose, out);
    } catch (...) {  // no C++ exception may reach the C glue
        out->schedule = nullptr;
        out->chosen = HIER_ALG_FALLBACK;
        out->settled = 0;
        write_text(out->reason, verbose >= 1 ? sizeof(out->reason) : 0, "out of memory deciding");
    }
}

int hier_size_class(size_t block_bytes)
{
    return hier::size_class(block_bytes);
}

double *hier_comm_trial_seconds(hier_comm_t *comm, hier_op_t op, size_t block_bytes, int *calls)
{
    return comm->communicator->trial_seconds(op, block_bytes, calls);
}

int hier_comm_trial_conclude(hier_comm_t *comm, hier_op_t op, size_t block_bytes, hier_decision_t *out)
{
    try {
        return comm->communicator->trial_conclude(op, block_bytes, out) ? 1 : 0;
    } catch (...) {  // no C++ exception may reach the C glue
        out->chosen = HIER_ALG_FALLBACK;
        write_text(out->reason, sizeof(out->reason), "out of memory concluding the measurement");
        return 1;
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
