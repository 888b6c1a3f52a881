/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Collectives in flight together, as nonblocking requests are: every row of
// the registry runs beside other rows' schedules through one in-memory
// fabric, each call on a tag of its own, ranks starting and advancing them
// in orders of their own; every byte of every call must arrive.
#include <gtest/gtest.h>

#include <memory>
#include <random>

#include "harness.h"
#include "registry.h"

namespace hier::test {
namespace {

// Nodes of random sizes in random clusters (two or more), ranks in order.
Topology random_clustered(std::mt19937 &random, int max_ranks, int max_node_size)
{
    std::vector<int> sizes;
    for (int ranks = 0; ranks < 2 || int(sizes.size()) < 2;) {
        sizes.push_back(1 + int(random() % unsigned(max_node_size)));
        ranks += sizes.back();
        if (ranks >= max_ranks) {
            break;
        }
    }
    std::vector<int> node_of_rank, cluster_of_node;
    for (size_t node = 0; node < sizes.size(); ++node) {
        node_of_rank.insert(node_of_rank.end(), size_t(sizes[node]), int(node));
        cluster_of_node.push_back(node < 2 ? int(node) : int(random() % 3));
    }
    return Topology(node_of_rank, cluster_of_node);
}

// Topologies of every kind the rows need: uneven nodes, clusters, a torus,
// powers of two.
std::vector<Topology> candidates(std::mt19937 &random)
{
    std::vector<Topology> topologies;
    for (int i = 0; i < 3; ++i) {
        topologies.push_back(random_topology(random, 20, 5));
        topologies.push_back(random_clustered(random, 20, 4));
    }
    topologies.push_back(Topology::from_torus_dims({3, 4}));
    topologies.push_back(Topology::from_node_sizes({4, 4}));
    topologies.push_back(Topology::from_node_sizes({2, 2, 2, 2}));
    std::shuffle(topologies.begin(), topologies.end(), random);
    return topologies;
}

struct Call {
    const Algorithm *row;
    int root;
    size_t block_bytes;
    std::vector<Schedule> schedules;
    std::unique_ptr<MemoryWorld> world;
};

Call make_call(const Algorithm *row, const Topology &topology, std::mt19937 &random, MemoryFabric *fabric, int tag)
{
    const int root = row->op == HIER_OP_SCATTER || row->op == HIER_OP_GATHER
                         ? int(random() % unsigned(topology.size()))
                         : -1;
    const size_t block_bytes = row->op == HIER_OP_BARRIER ? 0 : 1 + random() % 5;
    Call call{row, root, block_bytes, build_all(row->build, topology, root), nullptr};
    call.world = std::make_unique<MemoryWorld>(topology.size(), block_bytes, fabric, tag);
    if (row->op == HIER_OP_ALLTOALLV) {
        call.world->run_alltoallv_program();
    }
    fill_bytes(*call.world, row->op, root, block_bytes);
    return call;
}

// Every row of every collective (alltoallv's through its program, size pass
// and all), on a topology it fits, beside one to three other calls on that
// topology: the same row again and random rows.
TEST(Concurrent, EveryRowBesideOthersDeliversEveryByte)
{
    std::mt19937 random(20261127);
    int runs = 0;
    for (int op = 0; op < HIER_OP_COUNT; ++op) {
        for (const Algorithm *row : algorithms_for(hier_op_t(op))) {
            const std::vector<Topology> topologies = candidates(random);
            const Topology *fitting = nullptr;
            for (const Topology &topology : topologies) {
                if (!row->unfit(topology)) {
                    fitting = &topology;
                    break;
                }
            }
            ASSERT_NE(fitting, nullptr) << op_name(hier_op_t(op)) << " " << row->name
                                        << ": no candidate topology fits it; add one to candidates()";
            std::vector<const Algorithm *> others;
            for (int other_op = 0; other_op < HIER_OP_COUNT; ++other_op) {
                for (const Algorithm *other : algorithms_for(hier_op_t(other_op))) {
                    if (!other->unfit(*fitting)) {
                        others.push_back(other);
                    }
                }
            }
            MemoryFabric fabric;
            std::vector<Call> calls;
            calls.push_back(make_call(row, *fitting, random, &fabric, 0));
            calls.push_back(make_call(row, *fitting, random, &fabric, 1));
            for (int extra = int(random() % 3); extra > 0; --extra) {
                calls.push_back(make_call(others[random() % others.size()], *fitting, random, &fabric,
                                          int(calls.size())));
            }
            std::vector<MemoryWorld *> worlds;
            std::vector<const std::vector<Schedule> *> schedules;
            for (const Call &call : calls) {
                worlds.push_back(call.world.get());
                schedules.push_back(&call.schedules);
            }
            const int window = kWindows[random() % 3];
            const std::string failed = run_together(worlds, schedules, window, random());
            ASSERT_EQ(failed, "") << row->name << " with " << calls.size() - 1 << " other calls, window " << window;
            for (const Call &call : calls) {
                EXPECT_EQ(check_bytes(*call.world, call.row->op, call.root, call.block_bytes), "")
                    << call.row->name << " beside " << row->name;
            }
            ++runs;
        }
    }
    EXPECT_GT(runs, 10);
}

// Calls that share a tag would take each other's messages: refused.
TEST(Concurrent, TwoCallsOnOneTagAreRefused)
{
    const Topology topology = Topology::from_node_sizes({2, 2});
    const Algorithm *row = algorithms_for(HIER_OP_ALLTOALL).front();
    MemoryFabric fabric;
    MemoryWorld a(topology.size(), 2, &fabric, 7), b(topology.size(), 2, &fabric, 7);
    const std::vector<Schedule> schedules = build_all(row->build, topology);
    EXPECT_NE(run_together({&a, &b}, {&schedules, &schedules}, 1, 1).find("share tag 7"), std::string::npos);
}

// Two calls in flight, one rank running another collective's schedule in
// one of them (a mismatch the glue's tags must never allow): the run
// reports it, never hangs.
TEST(Concurrent, AStuckCallIsReportedNotHung)
{
    const Topology topology = Topology::from_node_sizes({3, 2});
    const Algorithm *row = algorithms_for(HIER_OP_ALLTOALL).front();
    MemoryFabric fabric;
    MemoryWorld a(topology.size(), 2, &fabric, 0), b(topology.size(), 2, &fabric, 1);
    fill_bytes(a, HIER_OP_ALLTOALL, -1, 2);
    fill_bytes(b, HIER_OP_ALLTOALL, -1, 2);
    const std::vector<Schedule> good = build_all(row->build, topology);
    std::vector<Schedule> short_of_one = good;
    short_of_one[0] = build_all(algorithms_for(HIER_OP_BARRIER).front()->build, topology)[0];
    EXPECT_NE(run_together({&a, &b}, {&good, &short_of_one}, 1, 5), "");
}

} // namespace
} // namespace hier::test
