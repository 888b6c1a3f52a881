/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Shared checks for the unit tests.
#include "harness.h"

#include <algorithm>
#include <functional>

#include "memory_transport.h"
#include "registry.h"

namespace hier::test {

std::vector<Schedule> build_all(Builder builder, const Topology &topology, int root)
{
    return build_all(builder, topology, Plans(), root);
}

std::vector<Schedule> build_all(Builder builder, const Topology &topology, const Plans &plans, int root)
{
    std::vector<Schedule> schedules;
    for (int rank = 0; rank < topology.size(); ++rank) {
        schedules.push_back(builder(topology, plans, rank, root));
    }
    return schedules;
}

namespace {

// Byte `offset` of the block that `source` contributes for `dest` (for the
// rootless collectives that send one block to all, dest is -1): any
// misplaced block or byte shows.
uint8_t pattern(int source, int dest, size_t offset)
{
    return static_cast<uint8_t>(source * 131 + dest * 31 + offset * 7 + 1);
}

// What each rank sends, and what each RECV block must hold after op: the
// source block of a (rank, block) pair, or the sum of all for allreduce.
struct Expectation {
    hier_op_t op;
    int size;
    int root;

    size_t send_blocks(int rank) const { return contract_for(op, size, root).send_blocks(rank); }
    size_t recv_blocks(int rank) const { return contract_for(op, size, root).recv_blocks(rank); }
    // The byte at `offset` of SEND block `block` of `rank`.
    uint8_t sent(int rank, size_t block, size_t offset) const
    {
        const bool one_block_for_all = op == HIER_OP_GATHER || op == HIER_OP_ALLGATHER || op == HIER_OP_ALLREDUCE;
        return pattern(rank, one_block_for_all ? -1 : int(block), offset);
    }
    // The byte at `offset` that RECV block `block` of `rank` must hold.
    uint8_t received(int rank, size_t block, size_t offset) const
    {
        switch (op) {
        case HIER_OP_ALLTOALL:
        case HIER_OP_ALLTOALLV: return sent(int(block), size_t(rank), offset);
        case HIER_OP_SCATTER: return sent(root, size_t(rank), offset);
        case HIER_OP_GATHER:
        case HIER_OP_ALLGATHER: return sent(int(block), 0, offset);
        case HIER_OP_ALLREDUCE: {
            uint8_t sum = 0;
            for (int source = 0; source < size; ++source) {
                sum = static_cast<uint8_t>(sum + sent(source, 0, offset));
            }
            return sum;
        }
        case HIER_OP_BARRIER:
        case HIER_OP_COUNT: break;
        }
        return 0;
    }
};

} // namespace

void fill_bytes(MemoryWorld &world, hier_op_t op, int root, size_t block_bytes)
{
    const int p = world.size();
    const Expectation expect{op, p, root};
    for (int rank = 0; rank < p; ++rank) {
        auto &send = world.buffer(rank, HIER_BUF_SEND);
        send.resize(expect.send_blocks(rank) * block_bytes);
        for (size_t block = 0; block < expect.send_blocks(rank); ++block) {
            for (size_t offset = 0; offset < block_bytes; ++offset) {
                send[block * block_bytes + offset] = expect.sent(rank, block, offset);
            }
        }
        world.buffer(rank, HIER_BUF_RECV).assign(expect.recv_blocks(rank) * block_bytes, 0xEE);
    }
}

std::string check_bytes(MemoryWorld &world, hier_op_t op, int root, size_t block_bytes)
{
    const int p = world.size();
    const Expectation expect{op, p, root};
    for (int rank = 0; rank < p; ++rank) {
        const auto &recv = world.buffer(rank, HIER_BUF_RECV);
        for (size_t block = 0; block < expect.recv_blocks(rank); ++block) {
            for (size_t offset = 0; offset < block_bytes; ++offset) {
                if (recv[block * block_bytes + offset] != expect.received(rank, block, offset)) {
                    return std::string(op_name(op)) + ": rank " + std::to_string(rank) + " has a wrong byte " +
                           std::to_string(offset) + " in RECV block " + std::to_string(block);
                }
            }
        }
    }
    return {};
}

std::string run_bytes(hier_op_t op, const Topology &topology, const std::vector<Schedule> &schedules, int root,
                      size_t block_bytes, int window)
{
    if (op == HIER_OP_BARRIER) {
        block_bytes = 0;
    }
    MemoryWorld world(topology.size(), block_bytes);
    fill_bytes(world, op, root, block_bytes);
    if (std::string error = world.run(schedules, window); !error.empty()) {
        return error;
    }
    return check_bytes(world, op, root, block_bytes);
}

namespace {

// Blocks of the given sizes placed in a shuffled order, each after a gap of
// 0 to 3 bytes; the buffer's size is the return value.
size_t scatter_blocks(const std::vector<size_t> &sizes, std::mt19937 &random, std::vector<size_t> &start)
{
    std::vector<size_t> order(sizes.size());
    for (size_t i = 0; i < order.size(); ++i) {
        order[i] = i;
    }
    std::shuffle(order.begin(), order.end(), random);
    start.assign(sizes.size(), 0);
    size_t at = 0;
    for (size_t block : order) {
        at += random() % 4;
        start[block] = at;
        at += sizes[block];
    }
    return at + random() % 4;
}

constexpr uint8_t kGap = 0xEE;

} // namespace

std::string run_alltoallv_bytes(const Topology &topology, const std::vector<Schedule> &schedules,
                                const std::vector<std::vector<size_t>> &bytes, unsigned seed, int window)
{
    const int p = topology.size();
    std::mt19937 random(seed);
    MemoryWorld world(p, 0);
    world.run_alltoallv_program();
    std::vector<std::vector<size_t>> recv_start(p), recv_sizes(p);
    for (int rank = 0; rank < p; ++rank) {
        std::vector<size_t> start;
        auto &send = world.buffer(rank, HIER_BUF_SEND);
        send.assign(scatter_blocks(bytes[rank], random, start), kGap);
        for (int dest = 0; dest < p; ++dest) {
            for (size_t offset = 0; offset < bytes[rank][dest]; ++offset) {
                send[start[dest] + offset] = pattern(rank, dest, offset);
            }
        }
        world.set_blocks(rank, HIER_BUF_SEND, start, bytes[rank]);
        for (int source = 0; source < p; ++source) {
            recv_sizes[rank].push_back(bytes[source][rank]);
        }
        world.buffer(rank, HIER_BUF_RECV).assign(scatter_blocks(recv_sizes[rank], random, recv_start[rank]), kGap);
        world.set_blocks(rank, HIER_BUF_RECV, recv_start[rank], recv_sizes[rank]);
    }
    if (std::string failed = world.run(schedules, window); !failed.empty()) {
        return failed;
    }
    for (int rank = 0; rank < p; ++rank) {
        std::vector<uint8_t> expected(world.buffer(rank, HIER_BUF_RECV).size(), kGap);
        for (int source = 0; source < p; ++source) {
            for (size_t offset = 0; offset < recv_sizes[rank][source]; ++offset) {
                expected[recv_start[rank][source] + offset] = pattern(source, rank, offset);
            }
        }
        const auto &recv = world.buffer(rank, HIER_BUF_RECV);
        const auto wrong = std::mismatch(recv.begin(), recv.end(), expected.begin());
        if (wrong.first != recv.end()) {
            return "alltoallv: rank " + std::to_string(rank) + " has a wrong byte at offset " +
                   std::to_string(wrong.first - recv.begin()) + " of RECV";
        }
    }
    return {};
}

std::vector<std::vector<size_t>> random_alltoallv_bytes(std::mt19937 &random, int size, size_t max_bytes)
{
    std::uniform_int_distribution<size_t> bytes(0, max_bytes);
    std::vector<std::vector<size_t>> sizes(size, std::vector<size_t>(size));
    for (auto &row : sizes) {
        for (size_t &cell : row) {
            cell = random() % 3 == 0 ? 0 : bytes(random);
        }
    }
    return sizes;
}

SimulationReport simulate_op(hier_op_t op, const Topology &topology, const std::vector<Schedule> &schedules, int root,
                             int window)
{
    return simulate(topology, schedules, contract_for(op, topology.size(), root), window);
}

std::vector<std::vector<int>> node_size_multisets(int max_nodes, int max_size)
{
    std::vector<std::vector<int>> all;
    std::vector<int> current;
    // Non-decreasing sequences enumerate each multiset once.
    std::function<void(int)> extend = [&](int smallest) {
        if (!current.empty()) {
            all.push_back(current);
        }
        if (int(current.size()) == max_nodes) {
            return;
        }
        for (int size = smallest; size <= max_size; ++size) {
            current.push_back(size);
            extend(size);
            current.pop_back();
        }
    };
    extend(1);
    return all;
}

Topology interleaved(const std::vector<int> &sizes)
{
    std::vector<int> room = sizes;
    std::vector<int> node_of_rank;
    for (bool placed = true; placed;) {
        placed = false;
        for (size_t node = 0; node < room.size(); ++node) {
            if (room[node] > 0) {
                --room[node];
                node_of_rank.push_back(int(node));
                placed = true;
            }
        }
    }
    return Topology(node_of_rank);
}

Topology random_topology(std::mt19937 &random, int max_ranks, int max_node_size)
{
    std::uniform_int_distribution<int> ranks_dist(2, max_ranks);
    std::uniform_int_distribution<int> node_size_dist(1, max_node_size);
    const int p = ranks_dist(random);
    std::vector<int> node_of_rank;
    for (int node = 0; int(node_of_rank.size()) < p; ++node) {
        const int size = std::min(node_size_dist(random), p - int(node_of_rank.size()));
        node_of_rank.insert(node_of_rank.end(), size, node * 7 + 3);
    }
    std::shuffle(node_of_rank.begin(), node_of_rank.end(), random);
    return Topology(node_of_rank);
}

} // namespace hier::test
