// The in-memory transport.
#include "memory_transport.h"

#include <algorithm>
#include <cstring>

#include "execute.h"

namespace hier {

namespace {

const char *buffer_name(hier_buffer_t buf)
{
    switch (buf) {
    case HIER_BUF_SEND: return "SEND";
    case HIER_BUF_RECV: return "RECV";
    case HIER_BUF_TMP: return "TMP";
    }
    return "?";
}

constexpr int kFailed = 1;

} // namespace

MemoryWorld::MemoryWorld(int size, size_t block_bytes)
    : size_(size), block_bytes_(block_bytes), buffers_(size_t(size) * 3), blocks_(size_t(size) * 3),
      endpoints_(size)
{
    for (int rank = 0; rank < size; ++rank) {
        Endpoint &endpoint = endpoints_[rank];
        endpoint.world = this;
        endpoint.rank = rank;
        endpoint.transport = hier_transport_t{&endpoint, post_send, post_recv, complete, copy, reduce};
    }
}

std::vector<uint8_t> &MemoryWorld::buffer(int rank, hier_buffer_t buf)
{
    return buffers_[size_t(rank) * 3 + buf];
}

void MemoryWorld::set_blocks(int rank, hier_buffer_t buf, std::vector<size_t> start, std::vector<size_t> bytes)
{
    blocks_[size_t(rank) * 3 + buf] = Blocks{std::move(start), std::move(bytes)};
}

MemoryWorld::Span MemoryWorld::resolve(Endpoint &endpoint, hier_buffer_t buf, size_t first, size_t count)
{
    std::vector<uint8_t> &bytes = buffer(endpoint.rank, buf);
    const Blocks &blocks = blocks_[size_t(endpoint.rank) * 3 + buf];
    const auto fail = [&](const char *why) {
        endpoint.error = "rank " + std::to_string(endpoint.rank) + ": blocks [" + std::to_string(first) + ", " +
                         std::to_string(first + count) + ") " + why + " " + buffer_name(buf);
        return Span{nullptr, 0, false};
    };
    size_t start = first * block_bytes_, length = count * block_bytes_;
    if (!blocks.start.empty()) {
        if (first + count > blocks.start.size()) {
            return fail("lie outside");
        }
        start = count ? blocks.start[first] : 0;
        length = 0;
        for (size_t b = first; b < first + count; ++b) {
            if (blocks.start[b] != start + length) {
                return fail("are not contiguous in");
            }
            length += blocks.bytes[b];
        }
    }
    if (start + length > bytes.size()) {
        return fail("lie outside");
    }
    return {bytes.data() + start, length, true};
}

int MemoryWorld::post_send(void *ctx, int peer, hier_buffer_t buf, size_t first, size_t count)
{
    auto &endpoint = *static_cast<Endpoint *>(ctx);
    MemoryWorld &world = *endpoint.world;
    const Span from = world.resolve(endpoint, buf, first, count);
    if (!from.ok) {
        return kFailed;
    }
    if (peer < 0 || peer >= world.size_) {
        endpoint.error = "rank " + std::to_string(endpoint.rank) + " sends to rank " + std::to_string(peer);
        return kFailed;
    }
    world.channels_[{endpoint.rank, peer}].emplace_back(from.data, from.data + from.bytes);
    ++world.messages_sent_;
    endpoint.pending.push_back(Pending{false, peer, nullptr, 0, true});
    return 0;
}

int MemoryWorld::post_recv(void *ctx, int peer, hier_buffer_t buf, size_t first, size_t count)
{
    auto &endpoint = *static_cast<Endpoint *>(ctx);
    const Span to = endpoint.world->resolve(endpoint, buf, first, count);
    if (!to.ok) {
        return kFailed;
    }
    endpoint.pending.push_back(Pending{true, peer, to.data, to.bytes, false});
    return 0;
}

int MemoryWorld::complete(void *ctx, size_t count, int blocking, int *done)
{
    auto &endpoint = *static_cast<Endpoint *>(ctx);
    MemoryWorld &world = *endpoint.world;
    if (count > endpoint.pending.size()) {
        endpoint.error = "rank " + std::to_string(endpoint.rank) + " completes " + std::to_string(count) +
                         " operations but has " + std::to_string(endpoint.pending.size()) + " posted";
        return kFailed;
    }
    bool all_matched = true;
    for (size_t i = 0; i < count; ++i) {
        Pending &op = endpoint.pending[i];
        if (op.matched) {
            continue;
        }
        auto channel = world.channels_.find({op.peer, endpoint.rank});
        if (channel == world.channels_.end() || channel->second.empty()) {
            all_matched = false;
            continue;
        }
        const std::vector<uint8_t> &message = channel->second.front();
        if (message.size() != op.bytes) {
            endpoint.error = "rank " + std::to_string(endpoint.rank) + " expects " + std::to_string(op.bytes) +
                             " bytes from rank " + std::to_string(op.peer) + " and gets " +
                             std::to_string(message.size());
            return kFailed;
        }
        if (!message.empty()) {
            std::memcpy(op.to, message.data(), message.size());
        }
        channel->second.pop_front();
        op.matched = true;
    }
    if (!all_matched && blocking) {
        endpoint.error = "rank " + std::to_string(endpoint.rank) + " would block in memory";
        return kFailed;
    }
    if (all_matched) {
        endpoint.pending.erase(endpoint.pending.begin(), endpoint.pending.begin() + count);
    }
    *done = all_matched;
    return 0;
}

int MemoryWorld::copy(void *ctx, hier_buffer_t src, size_t src_first, hier_buffer_t dst,
                      size_t dst_first, size_t count)
{
    auto &endpoint = *static_cast<Endpoint *>(ctx);
    const Span from = endpoint.world->resolve(endpoint, src, src_first, count);
    const Span to = endpoint.world->resolve(endpoint, dst, dst_first, count);
    if (!from.ok || !to.ok) {
        return kFailed;
    }
    if (from.bytes != to.bytes) {
        endpoint.error = "rank " + std::to_string(endpoint.rank) + " copies " + std::to_string(from.bytes) +
                         " bytes into a region of " + std::to_string(to.bytes);
        return kFailed;
    }
    if (from.bytes > 0) {
        std::memmove(to.data, from.data, from.bytes);
    }
    return 0;
}

int MemoryWorld::reduce(void *ctx, hier_buffer_t src, size_t src_first, hier_buffer_t dst,
                        size_t dst_first, size_t count)
{
    auto &endpoint = *static_cast<Endpoint *>(ctx);
    const Span from = endpoint.world->resolve(endpoint, src, src_first, count);
    const Span to = endpoint.world->resolve(endpoint, dst, dst_first, count);
    if (!from.ok || !to.ok) {
        return kFailed;
    }
    for (size_t i = 0; i < std::min(from.bytes, to.bytes); ++i) {
        to.data[i] = static_cast<uint8_t>(to.data[i] + from.data[i]);
    }
    return 0;
}

std::string MemoryWorld::run(const std::vector<Schedule> &schedules, int window)
{
    if (static_cast<int>(schedules.size()) != size_) {
        return "expected " + std::to_string(size_) + " schedules, got " + std::to_string(schedules.size());
    }
    std::vector<Execution> executions;
    executions.reserve(size_);
    for (int rank = 0; rank < size_; ++rank) {
        if (blocks_[size_t(rank) * 3 + HIER_BUF_TMP].start.empty()) {
            buffer(rank, HIER_BUF_TMP).assign(schedules[rank].tmp_blocks() * block_bytes_, 0);
        }
        executions.emplace_back(schedules[rank], endpoints_[rank].transport, window);
    }
    // Progress is a message sent or a round finished; a sweep over all ranks
    // without either means no rank can ever go on.
    auto events = [&] {
        size_t count = messages_sent_;
        for (const Execution &execution : executions) {
            count += execution.round();
        }
        return count;
    };
    for (;;) {
        const size_t before = events();
        bool all_done = true;
        for (int rank = 0; rank < size_; ++rank) {
            if (executions[rank].advance(false) != 0) {
                return endpoints_[rank].error.empty() ? "rank " + std::to_string(rank) + ": the transport failed"
                                                      : endpoints_[rank].error;
            }
            all_done = all_done && executions[rank].done();
        }
        if (all_done) {
            break;
        }
        if (events() == before) {
            std::string stuck = "deadlock: ranks";
            for (int rank = 0; rank < size_; ++rank) {
                if (!executions[rank].done()) {
                    stuck += " " + std::to_string(rank) + "@round" + std::to_string(executions[rank].round());
                }
            }
            return stuck;
        }
    }
    for (const auto &[pair, messages] : channels_) {
        if (!messages.empty()) {
            return std::to_string(messages.size()) + " message(s) from rank " + std::to_string(pair.first) +
                   " to rank " + std::to_string(pair.second) + " never received";
        }
    }
    return {};
}

} // namespace hier
