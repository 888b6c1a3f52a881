// Shared checks for the unit tests.
#include "harness.h"

#include <algorithm>
#include <functional>

#include "memory_transport.h"

namespace hier::test {

std::vector<Schedule> build_all(Builder builder, const Topology &topology, int root)
{
    std::vector<Schedule> schedules;
    for (int rank = 0; rank < topology.size(); ++rank) {
        schedules.push_back(builder(topology, rank, root));
    }
    return schedules;
}

namespace {

// The byte a rank sends at offset `offset` of its message to `dest`: any
// misplaced block or byte shows.
uint8_t pattern(int source, int dest, size_t offset)
{
    return static_cast<uint8_t>(source * 131 + dest * 31 + offset * 7 + 1);
}

} // namespace

std::string run_alltoall_bytes(const Topology &topology, const std::vector<Schedule> &schedules,
                               size_t block_bytes, int window)
{
    const int p = topology.size();
    MemoryWorld world(p, block_bytes);
    for (int rank = 0; rank < p; ++rank) {
        auto &send = world.buffer(rank, HIER_BUF_SEND);
        send.resize(size_t(p) * block_bytes);
        for (int dest = 0; dest < p; ++dest) {
            for (size_t offset = 0; offset < block_bytes; ++offset) {
                send[dest * block_bytes + offset] = pattern(rank, dest, offset);
            }
        }
        world.buffer(rank, HIER_BUF_RECV).assign(size_t(p) * block_bytes, 0xEE);
    }
    if (std::string error = world.run(schedules, window); !error.empty()) {
        return error;
    }
    for (int rank = 0; rank < p; ++rank) {
        const auto &recv = world.buffer(rank, HIER_BUF_RECV);
        for (int source = 0; source < p; ++source) {
            for (size_t offset = 0; offset < block_bytes; ++offset) {
                if (recv[source * block_bytes + offset] != pattern(source, rank, offset)) {
                    return "rank " + std::to_string(rank) + " has a wrong byte " + std::to_string(offset) +
                           " in the block from rank " + std::to_string(source);
                }
            }
        }
    }
    return {};
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
