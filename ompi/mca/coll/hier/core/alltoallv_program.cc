/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Alltoallv's program, and its C face.
#include "alltoallv_program.h"

#include <algorithm>
#include <new>

#include "communicator.h"

namespace hier {

int AlltoallvProgram::begin(const Schedule &schedule, int size, const hier_transport_t &transport,
                            const hier_alltoallv_host_t &host, int window)
{
    const size_t p = size_t(size), tmp_blocks = schedule.tmp_blocks();
    schedule_ = &schedule;
    transport_ = transport;
    host_ = host;
    window_ = window;
    pass_ = Pass::Done;
    size_pass_rounds_ = 0;
    execution_.reset();
    try {
        tmp_offsets_.resize(tmp_blocks + 1);
        sizes_.resize(schedule.tmp_on_some_rank() ? 2 * p + tmp_blocks : 0);
    } catch (const std::bad_alloc &) {
        return host_.out_of_memory;
    }
    if (!schedule.tmp_on_some_rank()) {
        return begin_data_pass();
    }
    for (size_t block = 0; block < p; ++block) {
        sizes_[block] = host_.send_bytes(host_.ctx, block);
    }
    std::fill(sizes_.begin() + long(p), sizes_.end(), 0);
    if (int rc = host_.lay_out_sizes(host_.ctx, sizes_.data(), sizes_.data() + p, sizes_.data() + 2 * p)) {
        return rc;
    }
    pass_ = Pass::Sizes;
    execution_.emplace(schedule, transport_, window_);
    return 0;
}

// TMP's offsets from the sizes the size pass left at the end of sizes_.
int AlltoallvProgram::begin_data_pass()
{
    const size_t tmp_blocks = schedule_->tmp_blocks();
    const uint64_t *tmp = sizes_.data() + (sizes_.size() - tmp_blocks);
    tmp_offsets_[0] = 0;
    for (size_t block = 0; block < tmp_blocks; ++block) {
        tmp_offsets_[block + 1] = tmp_offsets_[block] + size_t(tmp[block]);
    }
    if (int rc = host_.lay_out_data(host_.ctx, tmp_offsets_.data(), tmp_blocks)) {
        pass_ = Pass::Done;
        return rc;
    }
    size_pass_rounds_ = execution_ ? execution_->round() : 0;
    pass_ = Pass::Data;
    execution_.emplace(*schedule_, transport_, window_);
    return 0;
}

int AlltoallvProgram::advance(bool blocking)
{
    while (pass_ != Pass::Done) {
        if (int rc = execution_->advance(blocking)) {
            return rc;
        }
        if (!execution_->done()) {
            return 0;
        }
        if (pass_ == Pass::Data) {
            pass_ = Pass::Done;
        } else if (int rc = begin_data_pass()) {
            return rc;
        }
    }
    return 0;
}

size_t AlltoallvProgram::rounds_finished() const
{
    return size_pass_rounds_ + (execution_ ? execution_->round() : 0);
}

} // namespace hier

struct hier_alltoallv {
    hier::AlltoallvProgram program;
};

extern "C" {

hier_alltoallv_t *hier_alltoallv_create(void)
{
    return new (std::nothrow) hier_alltoallv;
}

void hier_alltoallv_destroy(hier_alltoallv_t *program)
{
    delete program;
}

int hier_alltoallv_begin(hier_alltoallv_t *program, const hier_schedule_t *schedule, int size,
                         const hier_transport_t *transport, const hier_alltoallv_host_t *host, int window)
{
    return program->program.begin(schedule->schedule, size, *transport, *host, window);
}

int hier_alltoallv_advance(hier_alltoallv_t *program, int blocking, int *done)
{
    const int rc = program->program.advance(blocking != 0);
    *done = program->program.done();
    return rc;
}

} // extern "C"
