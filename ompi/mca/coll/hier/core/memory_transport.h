/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The in-memory transport: every rank of a schedule inside one process.
//
// Messages are byte copies through FIFO channels, one per ordered pair of
// ranks, as MPI's non-overtaking rule orders them. The reduction is a
// bytewise sum modulo 256: commutative and associative, and a contribution
// counted twice or left out shows in the result. The ranks run round-robin
// with non-blocking advances, so a schedule that would deadlock is reported,
// not hung. Unit tests use it to check every byte of every algorithm without
// MPI. Blocks are of one size, or, buffer by buffer, of sizes of their own at
// offsets of their own (alltoallv).
//
// Several collectives can be in flight at once, as nonblocking requests are:
// worlds that share a MemoryFabric keep their messages apart by a tag each
// (as the PML keeps requests apart), and run_together advances them
// interleaved, each rank starting them in an order of its own.
//
// An alltoallv world runs the core's alltoallv program (alltoallv_program.h)
// as every rank, as the component does: the in-memory transport is its
// transport, the world its host.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "alltoallv_program.h"
#include "execute.h"
#include "hier_core.h"
#include "schedule.h"

namespace hier {

// The channels of one process space: FIFO per (sender, receiver, tag).
class MemoryFabric {
public:
    size_t messages_sent() const { return messages_sent_; }

private:
    friend class MemoryWorld;
    std::map<std::tuple<int, int, int>, std::deque<std::vector<uint8_t>>> channels_;
    size_t messages_sent_ = 0;
};

class MemoryWorld {
public:
    // Without a fabric the world has channels of its own; with one, its
    // messages travel there on `tag`.
    MemoryWorld(int size, size_t block_bytes, MemoryFabric *fabric = nullptr, int tag = 0);
    MemoryWorld(const MemoryWorld &) = delete;
    MemoryWorld &operator=(const MemoryWorld &) = delete;

    // The caller fills SEND and sizes RECV; run() sizes TMP from each
    // schedule, unless the caller gave TMP variable blocks.
    std::vector<uint8_t> &buffer(int rank, hier_buffer_t buffer);

    // From now on start() and run() run alltoallv's program, not the bare
    // schedules: SEND and RECV are the call's (fixed blocks, or set_blocks),
    // and the program lays out TMP and the size pass's buffers.
    void run_alltoallv_program() { alltoallv_ = true; }

    // Variable blocks: block b of the buffer is bytes [start[b], start[b] +
    // bytes[b]) (the caller sizes the buffer). A region of several blocks
    // must lie contiguously in it (packed TMP), or it is reported.
    void set_blocks(int rank, hier_buffer_t buffer, std::vector<size_t> start, std::vector<size_t> bytes);

    // Runs schedules[r] as rank r, with the executor's window, until every
    // rank is done. Returns an empty string, or what went wrong (deadlock, a
    // region outside its buffer, a message of the wrong size, a message
    // nobody received).
    std::string run(const std::vector<Schedule> &schedules, int window = 1);

    // run() in steps, for run_together: start sizes TMP and sets up every
    // rank's execution ("" or what is wrong); advance moves one rank on
    // without blocking (0, or the transport's error, then error(rank));
    // undelivered names a message of this world nobody received, or "".
    std::string start(const std::vector<Schedule> &schedules, int window = 1);
    int advance(int rank);
    bool done(int rank) const;
    size_t rounds_finished() const;
    std::string error(int rank) const;
    std::string undelivered() const;
    int size() const { return size_; }
    int tag() const { return tag_; }
    const MemoryFabric &fabric() const { return fabric_; }

private:
    // A posted operation not completed yet. Sends are eager (their bytes are
    // in the channel at once); a receive completes when its message is there.
    struct Pending {
        bool is_recv;
        int peer;
        uint8_t *to;
        size_t bytes;
        bool matched;
    };
    struct Endpoint {
        MemoryWorld *world;
        int rank;
        std::deque<Pending> pending;  // in posting order
        std::string error;
        hier_transport_t transport;
        hier_alltoallv_host_t host;
        size_t tmp_blocks;  // of the schedule the rank runs
    };
    // Memory an alltoallv program lends a buffer for its size pass, in
    // blocks of one uint64_t; data nullptr: the buffer's own.
    struct Lent {
        uint8_t *data = nullptr;
        size_t blocks = 0;
    };

    static int post_send(void *ctx, int peer, hier_buffer_t buf, size_t first, size_t count);
    static int post_recv(void *ctx, int peer, hier_buffer_t buf, size_t first, size_t count);
    static int complete(void *ctx, size_t count, int blocking, int *done);
    static int copy(void *ctx, hier_buffer_t src, size_t src_first, hier_buffer_t dst,
                    size_t dst_first, size_t count);
    static int reduce(void *ctx, hier_buffer_t src, size_t src_first, hier_buffer_t dst,
                      size_t dst_first, size_t count);
    // The host of alltoallv's program (hier_alltoallv_host_t).
    static size_t send_bytes(void *ctx, size_t block);
    static int lay_out_sizes(void *ctx, uint64_t *send, uint64_t *recv, uint64_t *tmp);
    static int lay_out_data(void *ctx, const size_t *tmp_offsets, size_t tmp_blocks);
    size_t rounds_finished(int rank) const;

    struct Span {
        uint8_t *data;  // may be null for 0 bytes of an empty buffer
        size_t bytes;
        bool ok;
    };
    struct Blocks {
        std::vector<size_t> start, bytes;  // empty: block_bytes_ each, packed
    };
    // The bytes of a region, or not ok (and the endpoint's error) if it lies
    // outside its buffer or is not contiguous.
    Span resolve(Endpoint &endpoint, hier_buffer_t buf, size_t first, size_t count);

    std::deque<std::vector<uint8_t>> &channel(int from, int to);

    int size_;
    size_t block_bytes_;
    MemoryFabric own_fabric_;
    MemoryFabric &fabric_;
    int tag_;
    std::vector<std::vector<uint8_t>> buffers_;  // rank * 3 + buffer
    std::vector<Blocks> blocks_;                 // rank * 3 + buffer
    std::vector<Lent> lent_;                     // rank * 3 + buffer
    std::vector<Endpoint> endpoints_;
    bool alltoallv_ = false;
    std::vector<Execution> executions_;          // or, for alltoallv:
    std::vector<AlltoallvProgram> programs_;     // never moved once begun
};

// Runs the worlds' schedules (worlds[i] runs schedules[i]) at once: worlds
// of one size on one fabric, with tags of their own. Rank r starts them in a
// random order of its own and, at each sweep, advances those it has started
// in a random order, starting the next one at random: requests started and
// completed in any order, as several communicators' may be. Returns "" or
// the first error (a deadlock: no rank could go on).
std::string run_together(const std::vector<MemoryWorld *> &worlds,
                         const std::vector<const std::vector<Schedule> *> &schedules, int window, uint32_t seed);

} // namespace hier
