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
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "hier_core.h"
#include "schedule.h"

namespace hier {

class MemoryWorld {
public:
    MemoryWorld(int size, size_t block_bytes);

    // The caller fills SEND and sizes RECV; run() sizes TMP from each
    // schedule, unless the caller gave TMP variable blocks.
    std::vector<uint8_t> &buffer(int rank, hier_buffer_t buffer);

    // Variable blocks: block b of the buffer is bytes [start[b], start[b] +
    // bytes[b]) (the caller sizes the buffer). A region of several blocks
    // must lie contiguously in it (packed TMP), or it is reported.
    void set_blocks(int rank, hier_buffer_t buffer, std::vector<size_t> start, std::vector<size_t> bytes);

    // Runs schedules[r] as rank r, with the executor's window, until every
    // rank is done. Returns an empty string, or what went wrong (deadlock, a
    // region outside its buffer, a message of the wrong size, a message
    // nobody received).
    std::string run(const std::vector<Schedule> &schedules, int window = 1);

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
    };

    static int post_send(void *ctx, int peer, hier_buffer_t buf, size_t first, size_t count);
    static int post_recv(void *ctx, int peer, hier_buffer_t buf, size_t first, size_t count);
    static int complete(void *ctx, size_t count, int blocking, int *done);
    static int copy(void *ctx, hier_buffer_t src, size_t src_first, hier_buffer_t dst,
                    size_t dst_first, size_t count);
    static int reduce(void *ctx, hier_buffer_t src, size_t src_first, hier_buffer_t dst,
                      size_t dst_first, size_t count);

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

    int size_;
    size_t block_bytes_;
    std::vector<std::vector<uint8_t>> buffers_;  // rank * 3 + buffer
    std::vector<Blocks> blocks_;                 // rank * 3 + buffer
    std::vector<Endpoint> endpoints_;
    std::map<std::pair<int, int>, std::deque<std::vector<uint8_t>>> channels_;
    size_t messages_sent_ = 0;
};

} // namespace hier
