/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The in-memory transport.
#include "memory_transport.h"

#include <algorithm>
#include <cstring>
#include <random>

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

MemoryWorld::MemoryWorld(int size, size_t block_bytes, MemoryFabric *fabric, int tag)
    : size_(size), block_bytes_(block_bytes), fabric_(fabric ? *fabric : own_fabric_), tag_(tag),
      buffers_(size_t(size) * 3), blocks_(size_t(size) * 3), lent_(size_t(size) * 3), endpoints_(size)
{
    for (int rank = 0; rank < size; ++rank) {
        Endpoint &endpoint = endpoints_[rank];
        endpoint.world = this;
        endpoint.rank = rank;
        endpoint.transport = hier_transport_t{&endpoint, post_send, post_recv, complete, copy, reduce};
        endpoint.host = hier_alltoallv_host_t{&endpoint, send_bytes, lay_out_sizes, lay_out_data, kFailed};
        endpoint.tmp_blocks = 0;
    }
}

std::deque<std::vector<uint8_t>> &MemoryWorld::channel(int from, int to)
{
    return fabric_.channels_[{from, to, tag_}];
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
    if (const Lent &lent = lent_[size_t(endpoint.rank) * 3 + buf]; lent.data != nullptr) {
        if (first + count > lent.blocks) {
            return fail("lie outside");
        }
        return {lent.data + first * sizeof(uint64_t), count * sizeof(uint64_t), true};
    }
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
    world.channel(endpoint.rank, peer).emplace_back(from.data, from.data + from.bytes);
    ++world.fabric_.messages_sent_;
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
        std::deque<std::vector<uint8_t>> &channel = world.channel(op.peer, endpoint.rank);
        if (channel.empty()) {
            all_matched = false;
            continue;
        }
        const std::vector<uint8_t> &message = channel.front();
        if (message.size() != op.bytes) {
            endpoint.error = "rank " + std::to_string(endpoint.rank) + " expects " + std::to_string(op.bytes) +
                             " bytes from rank " + std::to_string(op.peer) + " and gets " +
                             std::to_string(message.size());
            return kFailed;
        }
        if (!message.empty()) {
            std::memcpy(op.to, message.data(), message.size());
        }
        channel.pop_front();
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

size_t MemoryWorld::send_bytes(void *ctx, size_t block)
{
    auto &endpoint = *static_cast<Endpoint *>(ctx);
    return endpoint.world->resolve(endpoint, HIER_BUF_SEND, block, 1).bytes;
}

int MemoryWorld::lay_out_sizes(void *ctx, uint64_t *send, uint64_t *recv, uint64_t *tmp)
{
    auto &endpoint = *static_cast<Endpoint *>(ctx);
    MemoryWorld &world = *endpoint.world;
    Lent *lent = &world.lent_[size_t(endpoint.rank) * 3];
    lent[HIER_BUF_SEND] = Lent{reinterpret_cast<uint8_t *>(send), size_t(world.size_)};
    lent[HIER_BUF_RECV] = Lent{reinterpret_cast<uint8_t *>(recv), size_t(world.size_)};
    lent[HIER_BUF_TMP] = Lent{reinterpret_cast<uint8_t *>(tmp), endpoint.tmp_blocks};
    return 0;
}

int MemoryWorld::lay_out_data(void *ctx, const size_t *tmp_offsets, size_t tmp_blocks)
{
    auto &endpoint = *static_cast<Endpoint *>(ctx);
    MemoryWorld &world = *endpoint.world;
    Lent *lent = &world.lent_[size_t(endpoint.rank) * 3];
    std::fill(lent, lent + 3, Lent{});
    std::vector<size_t> start(tmp_offsets, tmp_offsets + tmp_blocks), bytes(tmp_blocks);
    for (size_t block = 0; block < tmp_blocks; ++block) {
        bytes[block] = tmp_offsets[block + 1] - tmp_offsets[block];
    }
    world.buffer(endpoint.rank, HIER_BUF_TMP).assign(tmp_offsets[tmp_blocks], 0);
    world.set_blocks(endpoint.rank, HIER_BUF_TMP, std::move(start), std::move(bytes));
    return 0;
}

std::string MemoryWorld::start(const std::vector<Schedule> &schedules, int window)
{
    if (static_cast<int>(schedules.size()) != size_) {
        return "expected " + std::to_string(size_) + " schedules, got " + std::to_string(schedules.size());
    }
    executions_.clear();
    executions_.reserve(size_);
    if (alltoallv_) {
        programs_ = std::vector<AlltoallvProgram>(size_t(size_));
    }
    for (int rank = 0; rank < size_; ++rank) {
        if (alltoallv_) {
            Endpoint &endpoint = endpoints_[rank];
            endpoint.tmp_blocks = schedules[rank].tmp_blocks();
            if (programs_[rank].begin(schedules[rank], size_, endpoint.transport, endpoint.host, window) != 0) {
                return error(rank);
            }
            continue;
        }
        if (blocks_[size_t(rank) * 3 + HIER_BUF_TMP].start.empty()) {
            buffer(rank, HIER_BUF_TMP).assign(schedules[rank].tmp_blocks() * block_bytes_, 0);
        }
        executions_.emplace_back(schedules[rank], endpoints_[rank].transport, window);
    }
    return {};
}

int MemoryWorld::advance(int rank)
{
    return alltoallv_ ? programs_[rank].advance(false) : executions_[rank].advance(false);
}

bool MemoryWorld::done(int rank) const
{
    return alltoallv_ ? programs_[rank].done() : executions_[rank].done();
}

size_t MemoryWorld::rounds_finished(int rank) const
{
    return alltoallv_ ? programs_[rank].rounds_finished() : executions_[rank].round();
}

size_t MemoryWorld::rounds_finished() const
{
    size_t count = 0;
    const size_t started = alltoallv_ ? programs_.size() : executions_.size();
    for (int rank = 0; rank < int(started); ++rank) {
        count += rounds_finished(rank);
    }
    return count;
}

std::string MemoryWorld::error(int rank) const
{
    return endpoints_[rank].error.empty() ? "rank " + std::to_string(rank) + ": the transport failed"
                                          : endpoints_[rank].error;
}

std::string MemoryWorld::undelivered() const
{
    for (const auto &[key, messages] : fabric_.channels_) {
        if (std::get<2>(key) == tag_ && !messages.empty()) {
            return std::to_string(messages.size()) + " message(s) from rank " + std::to_string(std::get<0>(key)) +
                   " to rank " + std::to_string(std::get<1>(key)) + " never received";
        }
    }
    return {};
}

std::string MemoryWorld::run(const std::vector<Schedule> &schedules, int window)
{
    if (std::string failed = start(schedules, window); !failed.empty()) {
        return failed;
    }
    // Progress is a message sent or a round finished; a sweep over all ranks
    // without either means no rank can ever go on.
    auto events = [&] { return fabric_.messages_sent_ + rounds_finished(); };
    for (;;) {
        const size_t before = events();
        bool all_done = true;
        for (int rank = 0; rank < size_; ++rank) {
            if (advance(rank) != 0) {
                return error(rank);
            }
            all_done = all_done && done(rank);
        }
        if (all_done) {
            break;
        }
        if (events() == before) {
            std::string stuck = "deadlock: ranks";
            for (int rank = 0; rank < size_; ++rank) {
                if (!done(rank)) {
                    stuck += " " + std::to_string(rank) + "@round" + std::to_string(rounds_finished(rank));
                }
            }
            return stuck;
        }
    }
    return undelivered();
}

std::string run_together(const std::vector<MemoryWorld *> &worlds,
                         const std::vector<const std::vector<Schedule> *> &schedules, int window, uint32_t seed)
{
    if (worlds.empty() || worlds.size() != schedules.size()) {
        return "run_together: expected a schedule set per world";
    }
    const int size = worlds[0]->size();
    for (size_t w = 0; w < worlds.size(); ++w) {
        if (worlds[w]->size() != size || &worlds[w]->fabric() != &worlds[0]->fabric()) {
            return "run_together: the worlds must be of one size on one fabric";
        }
        for (size_t v = 0; v < w; ++v) {
            if (worlds[v]->tag() == worlds[w]->tag()) {
                return "run_together: two worlds share tag " + std::to_string(worlds[w]->tag());
            }
        }
        if (std::string failed = worlds[w]->start(*schedules[w], window); !failed.empty()) {
            return failed;
        }
    }
    std::mt19937 random(seed);
    // order[r]: the worlds in the order rank r starts them; started[r]: how many it has.
    std::vector<std::vector<size_t>> order(size_t(size), std::vector<size_t>(worlds.size()));
    std::vector<size_t> started(size_t(size), 0);
    for (auto &ranks_order : order) {
        for (size_t w = 0; w < ranks_order.size(); ++w) {
            ranks_order[w] = w;
        }
        std::shuffle(ranks_order.begin(), ranks_order.end(), random);
    }
    const MemoryFabric &fabric = worlds[0]->fabric();
    auto events = [&] {
        size_t count = fabric.messages_sent();
        for (const MemoryWorld *world : worlds) {
            count += world->rounds_finished();
        }
        for (size_t n : started) {
            count += n;
        }
        return count;
    };
    // A sweep that moved nothing while some call was still to start: the
    // next starts one on every rank that has one left, so a call never
    // waits on a peer that merely has not started it yet.
    bool start_all = false;
    for (;;) {
        const size_t before = events();
        bool all_done = true, all_started = true;
        for (int rank = 0; rank < size; ++rank) {
            std::vector<size_t> &mine = order[size_t(rank)];
            size_t &count = started[size_t(rank)];
            // Start the next at random, and surely once the started ones are done.
            bool idle = true;
            for (size_t i = 0; i < count; ++i) {
                idle = idle && worlds[mine[i]]->done(rank);
            }
            if (count < mine.size() && (start_all || idle || random() % 2 == 0)) {
                ++count;
            }
            std::vector<size_t> now(mine.begin(), mine.begin() + long(count));
            std::shuffle(now.begin(), now.end(), random);
            for (size_t w : now) {
                if (worlds[w]->advance(rank) != 0) {
                    return worlds[w]->error(rank);
                }
                all_done = all_done && worlds[w]->done(rank);
            }
            all_done = all_done && count == mine.size();
            all_started = all_started && count == mine.size();
        }
        if (all_done) {
            break;
        }
        start_all = events() == before;
        if (start_all && all_started) {
            return "deadlock: no rank of " + std::to_string(worlds.size()) + " collectives in flight could go on";
        }
    }
    for (const MemoryWorld *world : worlds) {
        if (std::string lost = world->undelivered(); !lost.empty()) {
            return "tag " + std::to_string(world->tag()) + ": " + lost;
        }
    }
    return {};
}

} // namespace hier
