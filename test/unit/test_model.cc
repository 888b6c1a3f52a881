/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The time model: the textbook's formulas where the text's assumptions hold
// (one link class, no contention), hand-computed cases of sharing, latency,
// rendezvous and overhead; coll_hier_link_costs; Open MPI's own choice; and
// auto's decisions on the scenarios measured on the emulated cluster.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <tuple>

#include "autoselect.h"
#include "harness.h"
#include "model.h"
#include "tuned_alltoall.h"

namespace hier {
namespace {

constexpr double kUnlimited = std::numeric_limits<double>::infinity();

// The text's machine: a message costs ts + tw m; local copies are free, no
// per-message CPU overhead, every message eager.
LinkCosts textbook(double ts, double tw)
{
    const LinkClass free_copy{0, kUnlimited, 0, std::numeric_limits<size_t>::max()};
    const LinkClass wire{ts, 1 / tw, 0, std::numeric_limits<size_t>::max()};
    return LinkCosts{{free_copy, wire, wire}};
}

Topology one_process_nodes(int p)
{
    return Topology::from_node_sizes(std::vector<int>(size_t(p), 1));
}

double predict(Builder build, const Topology &topology, size_t m, const LinkCosts &costs, int window = 1)
{
    const Prediction prediction = predict_time(topology, test::build_all(build, topology), m, window, costs);
    EXPECT_EQ(prediction.error, "");
    return prediction.seconds;
}

constexpr double ts = 20e-6;
constexpr double tw = 1e-8;  // 100 MB/s
constexpr size_t m = 1000;

TEST(Model, RingIsTheTextsFormula)
{
    // (ts + tw m p / 2)(p - 1)
    for (int p = 2; p <= 16; ++p) {
        const double expected = (ts + tw * m * p / 2) * (p - 1);
        EXPECT_NEAR(predict(build_ring_alltoall, one_process_nodes(p), m, textbook(ts, tw)), expected, expected * 1e-9)
            << "p = " << p;
    }
}

TEST(Model, MeshIsTheTextsFormulaOnSquareGrids)
{
    // (2 ts + tw m p)(sqrt(p) - 1)
    for (int side = 2; side <= 7; ++side) {
        const int p = side * side;
        const double expected = (2 * ts + tw * m * p) * (side - 1);
        EXPECT_NEAR(predict(build_mesh_alltoall, one_process_nodes(p), m, textbook(ts, tw)), expected, expected * 1e-9)
            << "p = " << p;
    }
}

TEST(Model, OneFactorAndXorAreTheTextsFormulas)
{
    // (p - 1)(ts + tw m) for even p, and XOR. For odd p the text's
    // p (ts + tw m) assumes rounds in lock-step; here a process idle in
    // round 0 sends its round-1 message at once, and on its partner's NIC it
    // shares the bandwidth with that partner's round-0 message: one more
    // transfer time, tw m, after which the rounds follow the text's.
    for (int p = 2; p <= 16; ++p) {
        const double expected = p % 2 ? p * (ts + tw * m) + tw * m : (p - 1) * (ts + tw * m);
        EXPECT_NEAR(predict(build_pairwise_alltoall, one_process_nodes(p), m, textbook(ts, tw)), expected,
                    expected * 1e-9)
            << "p = " << p;
    }
    for (int p : {2, 4, 8, 16}) {
        const double expected = (p - 1) * (ts + tw * m);
        EXPECT_NEAR(predict(build_xor_alltoall, one_process_nodes(p), m, textbook(ts, tw)), expected, expected * 1e-9);
    }
}

TEST(Model, BothWaysRoundShareOneNic)
{
    // p = 5: two rounds, each sending two messages at once through one NIC
    // (2 + 2 blocks, then 1 + 1): 2 ts + 6 tw m. On the text's ring of links
    // each direction would have its own link (2 ts + 3 tw m); one NIC per
    // node halves that gain away. The ring itself: 4 ts + 10 tw m.
    const double both_ways = predict(build_ring2_alltoall, one_process_nodes(5), m, textbook(ts, tw));
    EXPECT_NEAR(both_ways, 2 * ts + 6 * tw * m, 1e-12);
}

TEST(Model, AllAtOnceIsTheBusiestNic)
{
    // Open MPI's linear on nodes of 4, 3, 2, 1: node 0's NIC carries 24
    // messages each way, each at a 24th of the bandwidth all along (max-min
    // sharing): ts + 24 tw m. Shared memory is free here.
    const double uneven = predict(build_tuned_linear_alltoall, Topology::from_node_sizes({4, 3, 2, 1}), m,
                                  textbook(ts, tw));
    EXPECT_NEAR(uneven, ts + 24 * tw * m, 1e-12);
    const double pairs = predict(build_tuned_linear_alltoall, Topology::from_node_sizes({2, 2}), m, textbook(ts, tw));
    EXPECT_NEAR(pairs, ts + 4 * tw * m, 1e-12);
}

// One round of sends and receives on the given nodes: (from, to, blocks).
struct Send {
    int from, to;
    uint32_t blocks;
};
std::vector<Schedule> one_round(int p, const std::vector<Send> &sends)
{
    std::vector<ScheduleBuilder> builders;
    for (int rank = 0; rank < p; ++rank) {
        builders.emplace_back(rank, p);
    }
    uint32_t at = 0;
    for (const Send &send : sends) {
        builders[send.from].send(0, send.to, Region{HIER_BUF_SEND, at, send.blocks});
        builders[send.to].recv(0, send.from, Region{HIER_BUF_RECV, at, send.blocks});
        at += send.blocks;
    }
    std::vector<Schedule> schedules;
    for (auto &b : builders) {
        schedules.push_back(b.build());
    }
    return schedules;
}

TEST(Model, MaxMinSharingGivesTheLeftoverToWhoCanUseIt)
{
    // Ranks 0 and 1 on node X, 2 on W, 3 on Y, 4 on Z. Y's NIC takes three
    // messages of one block (from 0, 1, 2): a third of the bandwidth each.
    // W's NIC is left two thirds for its four blocks to Z until those end
    // (3 tw m), then all of it for the two blocks left: 5 tw m in all.
    // An equal split per NIC would give W -> Z half instead, 6 tw m.
    const Topology topology({0, 0, 1, 2, 3});
    const auto schedules = one_round(5, {{0, 3, 1}, {1, 3, 1}, {2, 3, 1}, {2, 4, 4}});
    const Prediction prediction = predict_time(topology, schedules, m, 1, textbook(ts, tw));
    ASSERT_EQ(prediction.error, "");
    EXPECT_NEAR(prediction.seconds, ts + 5 * tw * m, 1e-12);
    EXPECT_EQ(prediction.traffic[kNetworkLink].messages, 4u);
    EXPECT_EQ(prediction.traffic[kNetworkLink].bytes, 7 * m);
}

TEST(Model, OnATorusRoutesThatShareALinkShareItsBandwidth)
{
    // A ring of 8 nodes: every rank sending two hops ahead puts two messages
    // on every + link (ts + 2 tw m); even ranks ahead and odd ranks back put
    // one on each link used (ts + tw m). Without the torus the network is a
    // crossbar of NICs and both take ts + tw m.
    std::vector<Send> ahead;
    std::vector<Send> both_ways;
    for (int rank = 0; rank < 8; ++rank) {
        ahead.push_back({rank, (rank + 2) % 8, 1});
        both_ways.push_back({rank, (rank + (rank % 2 ? 6 : 2)) % 8, 1});
    }
    const Topology ring = Topology::from_torus_dims({8});
    const Topology crossbar = one_process_nodes(8);
    // (machine, messages on the busiest link sending ahead, and both ways)
    for (const auto &[topology, ahead_load, both_ways_load] :
         {std::make_tuple(&ring, 2.0, 1.0), std::make_tuple(&crossbar, 1.0, 1.0)}) {
        const Prediction a = predict_time(*topology, one_round(8, ahead), m, 1, textbook(ts, tw));
        const Prediction b = predict_time(*topology, one_round(8, both_ways), m, 1, textbook(ts, tw));
        ASSERT_EQ(a.error + b.error, "");
        EXPECT_NEAR(a.seconds, ts + ahead_load * tw * m, 1e-12);
        EXPECT_NEAR(b.seconds, ts + both_ways_load * tw * m, 1e-12);
    }
}

TEST(Model, OnATorusEachNodePassedThroughAddsTheHopLatency)
{
    // One message three hops round a ring of 8 nodes: it passes through two
    // nodes. On a crossbar of NICs there is no hop to pay.
    LinkCosts costs = textbook(ts, tw);
    costs.hop_latency = 7e-6;
    const Prediction ring = predict_time(Topology::from_torus_dims({8}), one_round(8, {{0, 3, 1}}), m, 1, costs);
    const Prediction crossbar = predict_time(one_process_nodes(8), one_round(8, {{0, 3, 1}}), m, 1, costs);
    ASSERT_EQ(ring.error + crossbar.error, "");
    EXPECT_NEAR(ring.seconds, ts + 2 * 7e-6 + tw * m, 1e-12);
    EXPECT_NEAR(crossbar.seconds, ts + tw * m, 1e-12);
}

TEST(Model, BackboneAddsItsLatencyAndLimitsTheRate)
{
    // Two clusters of one node: the network's latency plus the backbone's,
    // at the slower of the two rates; both ways at once, full duplex.
    LinkCosts costs = textbook(ts, tw);
    costs.link[kBackboneLink] = LinkClass{5e-3, 1 / (4 * tw), 0, std::numeric_limits<size_t>::max()};
    const Topology topology({0, 1}, {0, 1});
    const double t = predict(build_pairwise_alltoall, topology, m, costs);
    EXPECT_NEAR(t, ts + 5e-3 + 4 * tw * m, 1e-12);
    const Prediction prediction = predict_time(topology, test::build_all(build_pairwise_alltoall, topology), m, 1, costs);
    EXPECT_EQ(prediction.traffic[kBackboneLink].messages, 2u);
    EXPECT_EQ(prediction.traffic[kNetworkLink].messages, 0u);
}

// Leaf uplinks: nodes 0 and 1 (one leaf) each send to a node of the other
// leaf at once. At 4:1 their uplink, 2 NICs over 4, gives each message a
// quarter of a NIC; at 1:1 it is both NICs, and the NICs limit.
TEST(Model, LeafUplinksCarryTheirNodesNicsOverTheRatio)
{
    const Topology topology({0, 1, 2, 3}, {0, 0, 1, 1});
    for (const double ratio : {1.0, 4.0}) {
        LinkCostSpec spec;
        std::string error;
        ASSERT_TRUE(parse_link_costs("node=0us:800Mbit/s:0us,network=20us:800Mbit/s:0us,oversubscription=" +
                                         std::to_string(int(ratio)),
                                     &spec, &error))
            << error;
        const LinkCosts costs = cost_corners(spec, true).front();
        const Prediction prediction = predict_time(topology, one_round(4, {{0, 2, 1}, {1, 3, 1}}), m, 1, costs);
        ASSERT_EQ(prediction.error, "");
        EXPECT_NEAR(prediction.seconds, ts + std::max(1.0, ratio) * tw * m, 1e-12) << ratio;
    }
}

TEST(Model, RendezvousCostsTwoMoreLatencies)
{
    LinkCosts costs = textbook(ts, tw);
    costs.link[kNetworkLink].eager_limit = m - 1;
    const double t = predict(build_pairwise_alltoall, one_process_nodes(2), m, costs);
    EXPECT_NEAR(t, 3 * ts + tw * m, 1e-12);
}

TEST(Model, OverheadsSerializeOnTheCpu)
{
    // Latency and bandwidth free, an overhead o per message at each end:
    // linear's p - 1 sends take (p - 1) o, then its p - 1 receives as much.
    const double o = 1e-6;
    LinkCosts costs = textbook(0, 0);
    costs.link[kNetworkLink] = LinkClass{0, kUnlimited, o, std::numeric_limits<size_t>::max()};
    for (int p : {2, 5, 9}) {
        EXPECT_NEAR(predict(build_tuned_linear_alltoall, one_process_nodes(p), m, costs), 2 * (p - 1) * o, 1e-15);
    }
}

TEST(Model, WindowLetsIndependentRoundsOverlap)
{
    // Pairwise on p one-process nodes: strict rounds pay p - 1 latencies; a
    // window as wide as the schedule pays about one, and the bandwidth.
    const int p = 8;
    const double strict = predict(build_pairwise_alltoall, one_process_nodes(p), m, textbook(ts, tw), 1);
    const double wide = predict(build_pairwise_alltoall, one_process_nodes(p), m, textbook(ts, tw), 64);
    EXPECT_NEAR(strict, (p - 1) * (ts + tw * m), 1e-12);
    EXPECT_NEAR(wide, ts + (p - 1) * tw * m, 1e-12);
}

// Ranks by a node map with sockets ("2+2,2+2"), as coll_hier_node_map gives them.
Topology with_sockets(const std::string &node_map, int size)
{
    std::string error;
    std::vector<int> sockets;
    Topology topology(parse_node_map(node_map, size, &error, &sockets));
    EXPECT_EQ(error, "");
    topology.set_sockets(sockets);
    return topology;
}

TEST(Model, AMessageBetweenSocketsTakesTheSocketClassAndTheLinkBetweenThem)
{
    // One node of two sockets, one rank on each; shared memory is free. One
    // message of m bytes: the sender's overhead, m at the link's bandwidth,
    // the socket's latency, the receiver's overhead. Both ways at once share
    // the one link: each at half its bandwidth.
    const double latency = 3e-6, overhead = 1e-6, bandwidth = 1e9;
    LinkCosts costs = textbook(ts, tw);
    costs.link[kSocketLink] = LinkClass{latency, bandwidth, overhead, std::numeric_limits<size_t>::max()};
    const Topology topology = with_sockets("1+1", 2);
    ASSERT_TRUE(topology.has_sockets());
    const Prediction one = predict_time(topology, one_round(2, {{0, 1, 1}}), m, 1, costs);
    ASSERT_EQ(one.error, "");
    EXPECT_NEAR(one.seconds, overhead + m / bandwidth + latency + overhead, 1e-15);
    EXPECT_EQ(one.traffic[kSocketLink].messages, 1u);
    EXPECT_EQ(one.traffic[kNodeLink].messages, 0u);
    const Prediction both = predict_time(topology, one_round(2, {{0, 1, 1}, {1, 0, 1}}), m, 1, costs);
    EXPECT_NEAR(both.seconds, overhead + 2 * m / bandwidth + latency + overhead, 1e-15);
    // The same pair on one socket takes the node class: free here.
    EXPECT_NEAR(predict_time(Topology({0, 0}), one_round(2, {{0, 1, 1}}), m, 1, costs).seconds, 0, 1e-15);
    // The link is a further limit: a memory slower than it bounds the message.
    costs.link[kNodeLink].bandwidth = bandwidth / 4;
    EXPECT_NEAR(predict_time(topology, one_round(2, {{0, 1, 1}}), m, 1, costs).seconds,
                overhead + 4 * m / bandwidth + latency + overhead, 1e-15);
}

TEST(Model, AlltoallOnTwoSocketsPerNodeDiffersFromOneAsTheClassesSay)
{
    LinkCostSpec spec;
    std::string error;
    ASSERT_TRUE(parse_link_costs("node=0.5us:40Gbit/s,network=20us:10Gbit/s", &spec, &error)) << error;
    LinkCosts costs = cost_corners(spec, false).front();
    const Topology sockets = with_sockets("2+2,2+2", 8), nodes = Topology::from_node_sizes({4, 4});
    auto alltoall = [&](const Topology &topology, size_t block) {
        return predict_time(topology, test::build_all(build_tuned_linear_alltoall, topology), block, 1, costs);
    };
    // Each rank has one peer on its socket, two on the other socket of its
    // node, four on the other node.
    const Prediction split = alltoall(sockets, 64), whole = alltoall(nodes, 64);
    EXPECT_EQ(split.traffic[kNodeLink].messages, 8u);
    EXPECT_EQ(split.traffic[kSocketLink].messages, 16u);
    EXPECT_EQ(split.traffic[kNetworkLink].messages, 32u);
    EXPECT_EQ(whole.traffic[kNodeLink].messages, 24u);
    EXPECT_EQ(whole.traffic[kSocketLink].messages, 0u);
    // Not given: the node's bandwidth at twice its latency. Here the
    // network's 20 us hide it; on one node the small blocks pay it.
    EXPECT_DOUBLE_EQ(costs.link[kSocketLink].latency, 2 * costs.link[kNodeLink].latency);
    EXPECT_GE(split.seconds, whole.seconds);
    EXPECT_GT(alltoall(with_sockets("2+2", 4), 64).seconds, alltoall(Topology::from_node_sizes({4}), 64).seconds);
    for (size_t block : {size_t(64), size_t(1) << 20}) {
        costs.link[kSocketLink] = costs.link[kNodeLink];  // a socket class like the node's: no difference
        const double one_socket = alltoall(nodes, block).seconds;
        EXPECT_NEAR(alltoall(sockets, block).seconds, one_socket, one_socket * 1e-12) << block;
        // A narrow link, the node's memory over 32: the large blocks wait
        // for its 8 MiB per node at 5/32 GB/s, 4 times as long as the NIC's
        // 16 MiB at 1.25 GB/s.
        costs.link[kSocketLink].bandwidth /= 32;
        EXPECT_EQ(alltoall(nodes, block).seconds, one_socket) << block;  // without sockets never read
        const double narrow = alltoall(sockets, block).seconds;
        EXPECT_GE(narrow, one_socket) << block;
        if (block > 64) {
            EXPECT_GT(narrow, 3 * one_socket) << block;
        }
    }
}

TEST(LinkCosts, ParsesTheDocumentedForm)
{
    LinkCostSpec spec;
    std::string error;
    ASSERT_TRUE(parse_link_costs("node=1us:40Gbit/s,network=30us:200Mbit/s:5us,backbone=5ms:100Mbit/s", &spec, &error))
        << error;
    EXPECT_TRUE(spec.given[kNodeLink] && spec.given[kNetworkLink] && spec.given[kBackboneLink]);
    EXPECT_DOUBLE_EQ(spec.costs.link[kNodeLink].latency, 1e-6);
    EXPECT_DOUBLE_EQ(spec.costs.link[kNodeLink].bandwidth, 5e9);
    EXPECT_DOUBLE_EQ(spec.costs.link[kNetworkLink].bandwidth, 25e6);
    EXPECT_DOUBLE_EQ(spec.costs.link[kNetworkLink].overhead, 5e-6);
    EXPECT_DOUBLE_EQ(spec.costs.link[kBackboneLink].latency, 5e-3);
    EXPECT_EQ(cost_corners(spec, true).size(), 1u);
    EXPECT_EQ(describe(spec.costs.link[kNetworkLink]), "30us:200Mbit/s:5us");
    ASSERT_TRUE(parse_link_costs("hop=12us,network=30us:200Mbit/s", &spec, &error)) << error;
    EXPECT_TRUE(spec.hop_given);
    for (const LinkCosts &machine : cost_corners(spec, false)) {
        EXPECT_DOUBLE_EQ(machine.hop_latency, 12e-6);
    }

    ASSERT_TRUE(parse_link_costs("backbone=0.5ms:1.5GB/s", &spec, &error));
    EXPECT_DOUBLE_EQ(spec.costs.link[kBackboneLink].bandwidth, 1.5e9);
    EXPECT_FALSE(spec.given[kNetworkLink]);
    // Unknown: node has one corner, network two; the backbone's two only count with clusters.
    EXPECT_EQ(cost_corners(spec, true).size(), 2u);
    ASSERT_TRUE(parse_link_costs("", &spec, &error));
    EXPECT_FALSE(spec.any_given());
    EXPECT_EQ(cost_corners(spec, false).size(), 2u);
    EXPECT_EQ(cost_corners(spec, true).size(), 4u);
}

TEST(LinkCosts, TheSocketClassParsesOrFollowsTheNodeClass)
{
    LinkCostSpec spec;
    std::string error;
    ASSERT_TRUE(parse_link_costs("node=1us:40Gbit/s,socket=3us:20Gbit/s:1us", &spec, &error)) << error;
    EXPECT_TRUE(spec.given[kSocketLink]);
    EXPECT_FALSE(spec.given[kNetworkLink]);
    for (const LinkCosts &machine : cost_corners(spec, false)) {
        EXPECT_EQ(describe(machine.link[kSocketLink]), "3us:20Gbit/s:1us");
        EXPECT_EQ(machine.link[kSocketLink].eager_limit, machine.link[kNodeLink].eager_limit);  // vader's
    }
    ASSERT_TRUE(parse_link_costs("socket=3us:20Gbit/s", &spec, &error)) << error;
    EXPECT_TRUE(spec.any_given());
    EXPECT_DOUBLE_EQ(spec.costs.link[kSocketLink].overhead, 0.2e-6);  // shared memory's default
    // Not given: each machine's node class at twice its latency, and no
    // corners of its own: auto weighs as many machines as without sockets.
    for (const char *text : {"", "node=1us:40Gbit/s:3us", "probe"}) {
        ASSERT_TRUE(parse_link_costs(text, &spec, &error)) << error;
        const double probed[kBackboneLink] = {5e-6, 60e-6};
        if (spec.probe) {
            apply_message_probe(&spec, probed);  // the node's probed overhead: the socket's too
        }
        const std::vector<LinkCosts> machines = cost_corners(spec, true);
        EXPECT_EQ(machines.size(), 4u) << text;  // node 1, network 2, backbone 2
        for (const LinkCosts &machine : machines) {
            const LinkClass &node = machine.link[kNodeLink], &socket = machine.link[kSocketLink];
            EXPECT_DOUBLE_EQ(socket.latency, kSocketLatencyFactor * node.latency) << text;
            EXPECT_DOUBLE_EQ(socket.bandwidth, node.bandwidth) << text;
            EXPECT_DOUBLE_EQ(socket.overhead, node.overhead) << text;
            EXPECT_DOUBLE_EQ(socket.overhead, spec.probe ? 5e-6 : spec.given[kNodeLink] ? 3e-6 : 0.2e-6) << text;
        }
    }
}

TEST(LinkCosts, ProbedLatenciesReplaceTheCornersOfClassesNotGiven)
{
    LinkCostSpec spec;
    std::string error;
    ASSERT_TRUE(parse_link_costs("probe,node=1us:40Gbit/s", &spec, &error)) << error;
    EXPECT_TRUE(spec.probe);
    // Nodes 0, 1 in one cluster and 2, 3 in another: 10 us within, 2 ms across.
    const double w = 10e-6, x = 2e-3;
    const std::vector<double> latency = {0, w, x, x,  //
                                         w, 0, x, x,  //
                                         x, x, 0, w,  //
                                         x, x, w, 0};
    apply_probe(&spec, latency, {0, 0, 1, 1});
    EXPECT_DOUBLE_EQ(spec.measured_network, w);
    EXPECT_DOUBLE_EQ(spec.measured_crossing, x);
    const std::vector<LinkCosts> machines = cost_corners(spec, true);
    ASSERT_EQ(machines.size(), 4u);
    for (const LinkCosts &machine : machines) {
        EXPECT_DOUBLE_EQ(machine.link[kNetworkLink].latency, w);
        EXPECT_DOUBLE_EQ(machine.link[kBackboneLink].latency, x - w);  // a crossing pays both
        EXPECT_DOUBLE_EQ(machine.link[kNodeLink].latency, 1e-6);
    }
    // One cluster: nothing crosses; a class the user gave keeps its value.
    ASSERT_TRUE(parse_link_costs("network=30us:1Gbit/s,probe", &spec, &error));
    apply_probe(&spec, latency, {});
    EXPECT_LT(spec.measured_crossing, 0);
    EXPECT_DOUBLE_EQ(cost_corners(spec, false)[0].link[kNetworkLink].latency, 30e-6);
    EXPECT_FALSE(parse_link_costs("probe,probe", &spec, &error));
}

TEST(LinkCosts, OnATorusTheProbeFitsANeighboursLatencyAndOnePerHop)
{
    // A 4x4 torus of nodes: 50 us to a neighbour and 7 us more per node
    // passed through, one pair 1 ms slower (a stall): neither the slope
    // (over each hop count's median) nor the neighbour's latency moves.
    const Torus torus({4, 4});
    std::vector<double> latency(256, 0);
    std::vector<int> hops(256, 0);
    for (int a = 0; a < 16; ++a) {
        for (int b = 0; b < 16; ++b) {
            hops[a * 16 + b] = torus.distance(a, b);
            latency[a * 16 + b] = a == b ? 0 : 50e-6 + 7e-6 * (torus.distance(a, b) - 1);
        }
    }
    latency[0 * 16 + 5] += 1e-3;
    LinkCostSpec spec;
    std::string error;
    ASSERT_TRUE(parse_link_costs("probe", &spec, &error)) << error;
    apply_probe(&spec, latency, {}, hops);
    EXPECT_NEAR(spec.measured_hop, 7e-6, 1e-12);
    EXPECT_NEAR(spec.measured_network, 50e-6, 1e-12);
    for (const LinkCosts &machine : cost_corners(spec, false)) {
        EXPECT_DOUBLE_EQ(machine.hop_latency, spec.measured_hop);
    }
    // Latency falling with distance fits no hop latency; without a torus
    // nothing is fitted; a hop latency the user gave stays.
    for (int i = 0; i < 256; ++i) {
        latency[i] = hops[i] ? 80e-6 - 5e-6 * hops[i] : 0;
    }
    apply_probe(&spec, latency, {}, hops);
    EXPECT_DOUBLE_EQ(spec.measured_hop, 0);
    ASSERT_TRUE(parse_link_costs("probe,hop=20us", &spec, &error)) << error;
    apply_probe(&spec, latency, {});
    EXPECT_LT(spec.measured_hop, 0);
    apply_probe(&spec, latency, {}, hops);
    EXPECT_DOUBLE_EQ(cost_corners(spec, false)[0].hop_latency, 20e-6);
}

TEST(LinkCosts, ProbedMessageCostsBecomeTheOverheadsOfClassesNotGiven)
{
    LinkCostSpec spec;
    std::string error;
    ASSERT_TRUE(parse_link_costs("probe,node=1us:40Gbit/s:3us", &spec, &error)) << error;
    const double within[kBackboneLink] = {20e-6, 60e-6};
    apply_message_probe(&spec, within);
    for (const LinkCosts &machine : cost_corners(spec, true)) {
        EXPECT_DOUBLE_EQ(machine.link[kNodeLink].overhead, 3e-6);  // given: kept
        EXPECT_DOUBLE_EQ(machine.link[kNetworkLink].overhead, 60e-6);
        EXPECT_DOUBLE_EQ(machine.link[kBackboneLink].overhead, 60e-6);  // the CPU's cost, not the link's
    }
    // A class no two ranks formed (-1) keeps its corners' overhead.
    ASSERT_TRUE(parse_link_costs("probe", &spec, &error)) << error;
    const double network_only[kBackboneLink] = {-1, 60e-6};
    apply_message_probe(&spec, network_only);
    const LinkCostSpec unknown;
    const std::vector<LinkCosts> probed = cost_corners(spec, false), corners = cost_corners(unknown, false);
    ASSERT_EQ(probed.size(), corners.size());
    for (size_t m = 0; m < probed.size(); ++m) {
        EXPECT_DOUBLE_EQ(probed[m].link[kNodeLink].overhead, corners[m].link[kNodeLink].overhead);
        EXPECT_DOUBLE_EQ(probed[m].link[kNetworkLink].overhead, 60e-6);
    }
}

// oversubscription=RATIO gives the backbone as leaf uplinks: a crossing
// takes the network's latency and overhead, and each cluster's uplink its
// nodes' NICs over the ratio.
TEST(LinkCosts, OversubscriptionPricesEachClustersUplinkByItsNodes)
{
    for (const char *text : {"network=2us:100Gbit/s:1us,oversubscription=4", "oversubscription=4:1,network=2us:100Gbit/s:1us"}) {
        LinkCostSpec spec;
        std::string error;
        ASSERT_TRUE(parse_link_costs(text, &spec, &error)) << error;
        EXPECT_TRUE(spec.given[kBackboneLink]);
        const std::vector<LinkCosts> machines = cost_corners(spec, true);
        ASSERT_EQ(machines.size(), 1u);  // the node's one corner
        const LinkCosts &machine = machines[0];
        EXPECT_DOUBLE_EQ(machine.oversubscription, 4);
        EXPECT_DOUBLE_EQ(machine.link[kBackboneLink].latency, 0);
        EXPECT_DOUBLE_EQ(machine.link[kBackboneLink].overhead, 1e-6);
        EXPECT_DOUBLE_EQ(uplink_bandwidth(machine, 1), 12.5e9 / 4);
        EXPECT_DOUBLE_EQ(uplink_bandwidth(machine, 16), 16 * 12.5e9 / 4);
    }
    // A backbone given as a class: one bandwidth, whatever the cluster.
    LinkCostSpec spec;
    std::string error;
    ASSERT_TRUE(parse_link_costs("backbone=5ms:100Mbit/s", &spec, &error)) << error;
    EXPECT_DOUBLE_EQ(uplink_bandwidth(cost_corners(spec, true)[0], 16), 12.5e6);
}

// Clusters from a switch source with the backbone unknown: the corners are
// leaf uplinks at 1:1 and 4:1 (no 5 ms wide-area link); typed by hand, a
// campus link and a wide-area one as before.
TEST(LinkCosts, SwitchClustersWeighLeafUplinksAtOneToOneAndFourToOne)
{
    LinkCostSpec spec;
    spec.switch_clusters = true;
    const std::vector<LinkCosts> machines = cost_corners(spec, true);
    ASSERT_EQ(machines.size(), 4u);  // 2 networks x 2 ratios
    for (size_t m = 0; m < machines.size(); ++m) {
        EXPECT_DOUBLE_EQ(machines[m].oversubscription, kLeafCorners[m % 2]);
        EXPECT_DOUBLE_EQ(machines[m].link[kBackboneLink].latency, 0);
        EXPECT_DOUBLE_EQ(machines[m].link[kBackboneLink].bandwidth,
                         machines[m].link[kNetworkLink].bandwidth / kLeafCorners[m % 2]);
    }
    EXPECT_EQ(cost_corners(spec, false).size(), 2u);  // nothing crosses: one value is enough
    spec.switch_clusters = false;
    for (const LinkCosts &machine : cost_corners(spec, true)) {
        EXPECT_DOUBLE_EQ(machine.oversubscription, 0);
    }
    // A crossing the probe measured stands: the switch hops it found.
    std::string error;
    ASSERT_TRUE(parse_link_costs("probe", &spec, &error)) << error;
    spec.switch_clusters = true;
    const double w = 10e-6, x = 12e-6;
    apply_probe(&spec, {0, w, x, x, w, 0, x, x, x, x, 0, w, x, x, w, 0}, {0, 0, 1, 1});
    for (const LinkCosts &machine : cost_corners(spec, true)) {
        EXPECT_NEAR(machine.link[kBackboneLink].latency, x - w, 1e-18);
        EXPECT_GT(machine.oversubscription, 0);
    }
}

TEST(LinkCosts, BadValuesGiveOneLineNamingTheParameterAndTheForm)
{
    for (const char *bad : {"network", "network=30us", "network=30:1Gbit/s", "network=30us:1Gbps", "net=1us:1Gbit/s",
                            "node=1us:1Gbit/s,node=1us:1Gbit/s", "network=1us:0Gbit/s", ",", "network=1us:1Gbit/s:x",
                            "network=1us:1Gbit/s:1us:1us", "network=-1us:1Gbit/s", "hop=7", "hop=1us,hop=2us",
                            "hop=1us:1Gbit/s", "oversubscription=0", "oversubscription=x", "oversubscription=4:2",
                            "oversubscription=-4", "oversubscription=4,oversubscription=2",
                            "oversubscription=4,backbone=5ms:1Gbit/s", "backbone=5ms:1Gbit/s,oversubscription=4",
                            "socket=1us", "socket=1us:1Gbit/s,socket=2us:1Gbit/s", "sockets=1us:1Gbit/s"}) {
        LinkCostSpec spec;
        std::string error;
        EXPECT_FALSE(parse_link_costs(bad, &spec, &error)) << bad;
        EXPECT_EQ(error.find("coll_hier_link_costs \"" + std::string(bad) + "\""), 0u) << error;
        EXPECT_NE(error.find("expected CLASS=LATENCY:BANDWIDTH[:OVERHEAD]"), std::string::npos) << error;
        EXPECT_EQ(error.find('\n'), std::string::npos);
        EXPECT_FALSE(spec.any_given());
    }
}

TEST(Tuned, OpenMpisFixedDecisionForAlltoall)
{
    EXPECT_EQ(tuned_alltoall_choice(10, 65536), TunedAlltoall::LinearSync);
    EXPECT_EQ(tuned_alltoall_choice(10, 262144), TunedAlltoall::Linear);
    EXPECT_EQ(tuned_alltoall_choice(9, 1024), TunedAlltoall::LinearSync);
    EXPECT_EQ(tuned_alltoall_choice(32, 96), TunedAlltoall::ModifiedBruck);
    EXPECT_EQ(tuned_alltoall_choice(16, 3), TunedAlltoall::LinearSync);
    EXPECT_EQ(tuned_alltoall_choice(100, 1 << 20), TunedAlltoall::Pairwise);
    EXPECT_EQ(tuned_alltoall_choice(2, 8), TunedAlltoall::Pairwise);
    EXPECT_EQ(tuned_alltoall_choice(2, 100000), TunedAlltoall::LinearSync);
    EXPECT_EQ(tuned_alltoall_choice(5000, 100), TunedAlltoall::ModifiedBruck);
    EXPECT_STREQ(tuned_alltoall_name(TunedAlltoall::ModifiedBruck), "bruck");
}

TEST(Auto, SizeClassesArePowersOfTwo)
{
    EXPECT_EQ(size_class(1), 0);
    EXPECT_EQ(size_class(64), 6);
    EXPECT_EQ(size_class(127), 6);
    EXPECT_EQ(size_class(128), 7);
    EXPECT_EQ(class_block_bytes(0), 1u);
    EXPECT_EQ(class_block_bytes(6), 96u);
    EXPECT_EQ(size_class(class_block_bytes(20)), 20);
}

// The emulated cluster's scenarios (contrib/cluster/scenarios), as link costs.
const char *const kUnevenSmpCosts = "node=1us:40Gbit/s,network=50us:200Mbit/s";
const char *const kTwoClustersCosts = "node=1us:40Gbit/s,network=50us:1Gbit/s,backbone=5ms:100Mbit/s";

Topology two_clusters(int first, int second)
{
    std::vector<int> node_of_rank(size_t(first + second));
    std::iota(node_of_rank.begin(), node_of_rank.end(), 0);
    std::vector<int> cluster_of_node(node_of_rank.size(), 1);
    std::fill(cluster_of_node.begin(), cluster_of_node.begin() + first, 0);
    return Topology(node_of_rank, cluster_of_node);
}

const char *pick(const Topology &topology, size_t block_bytes, int window, const char *costs)
{
    LinkCostSpec spec;
    std::string error;
    EXPECT_TRUE(parse_link_costs(costs, &spec, &error)) << error;
    const Comparison comparison = compare_alltoall(topology, Plans(), block_bytes, window, spec);
    return comparison.choice.algorithm ? comparison.choice.algorithm->name : "fallback";
}

TEST(Model, LgOverlapKeepsTheBackboneBusyThroughTheLocalPhase)
{
    // 3 + 6 one-process nodes, 1 MiB blocks, the two-clusters stage's costs:
    // lg_at_once's backbone waits for the local phase (7 blocks per NIC at
    // 1 Gbit/s, 59 ms); lg_overlap's own blocks cross meanwhile, so it takes
    // what Open MPI's direct exchange takes, the backbone's time. At window
    // 1 too: the schedule keeps its two rounds in flight (without them its
    // carried messages would wait for its own blocks to arrive).
    LinkCostSpec spec;
    std::string error;
    ASSERT_TRUE(parse_link_costs(kTwoClustersCosts, &spec, &error)) << error;
    const LinkCosts costs = cost_corners(spec, true).front();
    const Topology clusters = two_clusters(3, 6);
    const size_t mib = size_t(1) << 20;
    const double overlap = predict(build_lg_overlap_alltoall, clusters, mib, costs, 1);
    const double at_once = predict(build_lg_at_once_alltoall, clusters, mib, costs, 1);
    const double direct = predict(build_tuned_linear_alltoall, clusters, mib, costs, 1);
    EXPECT_LT(overlap, at_once - 0.04);
    EXPECT_NEAR(overlap, direct, direct * 0.01);
    EXPECT_DOUBLE_EQ(overlap, predict(build_lg_overlap_alltoall, clusters, mib, costs, 2));
}

TEST(Auto, MeasuredScenariosPickWhatWasMeasuredFastest)
{
    // Measured on the emulated cluster (docs/measurements.md): Open MPI was the fastest
    // at every size and window below, except edgecolor with a window of 64
    // at 256 KiB on uneven-smp (343 ms against 381), which the model
    // predicts equal to Open MPI (both meet the busiest NIC's bound when the
    // network shares fairly; the gain measured is TCP's, docs/tuning.md),
    // so auto keeps the fallback there: its safe side.
    const Topology uneven = Topology::from_node_sizes({4, 3, 2, 1});
    const Topology clusters = two_clusters(3, 6);
    for (int window : {1, 64}) {
        for (size_t bytes : {size_t(65536), size_t(262144)}) {
            EXPECT_STREQ(pick(uneven, bytes, window, kUnevenSmpCosts), "fallback") << bytes << " " << window;
            EXPECT_STREQ(pick(uneven, bytes, window, ""), "fallback") << bytes << " " << window;
        }
        for (size_t bytes : {size_t(1024), size_t(262144)}) {
            EXPECT_STREQ(pick(clusters, bytes, window, kTwoClustersCosts), "fallback") << bytes << " " << window;
            EXPECT_STREQ(pick(clusters, bytes, window, ""), "fallback") << bytes << " " << window;
        }
    }
}

TEST(Auto, ModelTracksTheMeasuredLatencyBoundCases)
{
    // two-clusters at 1 KiB, strict rounds (docs/measurements.md): Open MPI 7.0 ms, lg 13.0,
    // factor 42.8; lg with a window of 64: 7.8. The model's ratios to Open
    // MPI stay within 15 % of those measured.
    LinkCostSpec spec;
    std::string error;
    ASSERT_TRUE(parse_link_costs(kTwoClustersCosts, &spec, &error));
    const Topology clusters = two_clusters(3, 6);
    auto ratio = [&](const char *name, int window) {
        const Comparison comparison = compare_alltoall(clusters, Plans(), 1024, window, spec);
        for (const Contender &row : comparison.rows) {
            if (std::string(row.name) == name) {
                return row.worst_ratio;
            }
        }
        return 0.0;
    };
    EXPECT_NEAR(ratio("lg", 1), 13.0 / 7.0, 0.15 * 13.0 / 7.0);
    EXPECT_NEAR(ratio("factor", 1), 42.8 / 7.0, 0.15 * 42.8 / 7.0);
    EXPECT_NEAR(ratio("lg", 64), 7.8 / 7.0, 0.15 * 7.8 / 7.0);
}

TEST(Auto, ProbedCostPerMessageDecidesSmallBlocksOnUnevenSmp)
{
    // uneven-smp, 10 processes on 2 cores: the probes measured about 60 us
    // latency and 45 (node) and 60 us (network) per message; hypercube took
    // 1.16 ms against Open MPI's 1.78 at 8 B, and lost from 4 KiB (4.6 ms
    // against 3.4) (docs/tuning.md). With those costs auto picks hypercube
    // for small blocks and keeps Open MPI's for large; unknown costs keep
    // Open MPI's everywhere.
    const Topology uneven = Topology::from_node_sizes({4, 3, 2, 1});
    LinkCostSpec spec;
    std::string error;
    ASSERT_TRUE(parse_link_costs("probe", &spec, &error)) << error;
    apply_probe(&spec, std::vector<double>(16, 60e-6), {});
    const double per_message[kBackboneLink] = {45e-6, 60e-6};
    apply_message_probe(&spec, per_message);
    auto picks = [&](size_t bytes) {
        const Choice choice = compare_alltoall(uneven, Plans(), bytes, 1, spec).choice;
        return std::string(choice.algorithm ? choice.algorithm->name : "fallback");
    };
    EXPECT_EQ(picks(8), "hypercube");
    EXPECT_EQ(picks(256), "hypercube");
    EXPECT_EQ(picks(4096), "fallback");
    EXPECT_EQ(picks(65536), "fallback");
    EXPECT_STREQ(pick(uneven, 8, 1, ""), "fallback");
    const std::string line = describe(compare_alltoall(uneven, Plans(), 8, 1, spec));
    EXPECT_NE(line.find("probed per message within a node 45us, probed per message between nodes 60us"),
              std::string::npos)
        << line;
}

TEST(Auto, NearTheMarginTheProbedCostsGiveWayToTheCorners)
{
    // smp-4x4 on the emulated cluster: probes from job to job put node_lg's
    // worst ratio anywhere in 0.75 .. 0.87 at 384 B. Within kProbeBand of
    // the margin auto decides on the corners, as if nothing were probed;
    // farther from it the probed prediction decides.
    const Topology smp = Topology::from_node_sizes({4, 4, 4, 4});
    auto probed = [](double latency, double node, double network) {
        LinkCostSpec spec;
        std::string error;
        EXPECT_TRUE(parse_link_costs("probe", &spec, &error)) << error;
        apply_probe(&spec, std::vector<double>(16, latency), {});
        const double per_message[kBackboneLink] = {node, network};
        apply_message_probe(&spec, per_message);
        return spec;
    };
    auto picks = [&](size_t bytes, const LinkCostSpec &spec, std::string *line) {
        const Choice choice = choose_auto(HIER_OP_ALLTOALL, smp, Plans(), bytes, 1, spec, line);
        return std::string(choice.algorithm ? choice.algorithm->name : "fallback");
    };
    auto ratio = [&](size_t bytes, const LinkCostSpec &spec) {
        for (const Contender &row : compare_alltoall(smp, Plans(), bytes, 1, spec).rows) {
            if (std::string(row.name) == "node_lg") {
                return row.worst_ratio;
            }
        }
        return 0.0;
    };
    std::string line;
    const LinkCostSpec jobs[] = {probed(112e-6, 32.7e-6, 36.4e-6), probed(80e-6, 39e-6, 46.9e-6),
                                 probed(89.3e-6, 20.2e-6, 38.4e-6)};
    for (const LinkCostSpec &job : jobs) {
        const double r = ratio(384, job);
        EXPECT_LE(std::abs(r - (1 - kAutoMargin)), kProbeBand) << r;
        EXPECT_EQ(picks(384, job, &line), "node_lg") << line;  // the corners' pick
        EXPECT_NE(line.find("is within the probes' noise of the margin or of another row: as without them, model at 384 B/block"),
                  std::string::npos)
            << line;
    }
    // 1 KiB's class: probed x0.79 (near), the corners keep Open MPI's.
    const LinkCostSpec near = probed(31.6e-6, 10e-6, 31.6e-6);
    EXPECT_LE(std::abs(ratio(1536, near) - (1 - kAutoMargin)), kProbeBand);
    EXPECT_EQ(picks(1536, near, &line), "fallback") << line;
    // A pick far from the margin, but hypercube within 0.1 of node_lg (x0.69
    // and x0.62 at 24 B): which of the two the probes favour is their noise,
    // so the corners decide (node_lg, x0.55).
    const LinkCostSpec tie = probed(70e-6, 10e-6, 45e-6);
    const Comparison tied = compare_alltoall(smp, Plans(), 24, 1, tie);
    EXPECT_GT(std::abs(ratio(24, tie) - (1 - kAutoMargin)), kProbeBand);
    EXPECT_TRUE(probes_could_tip(tied));
    EXPECT_EQ(picks(24, tie, &line), "node_lg") << line;
    EXPECT_NE(line.find("of the margin or of another row: as without them, model at 24 B/block"), std::string::npos)
        << line;
    // Far from the margin the probes decide: x0.47 at 1536 B with 100 us a message.
    const LinkCostSpec far = probed(100e-6, 10e-6, 100e-6);
    EXPECT_LT(ratio(1536, far), 1 - kAutoMargin - kProbeBand);
    EXPECT_EQ(picks(1536, far, &line), "node_lg") << line;
    EXPECT_EQ(line.find("probes' noise"), std::string::npos) << line;
}

TEST(Auto, PicksAnLgThatCrossesOnceWhereTunedsBruckCrossesTheBackboneEveryRound)
{
    // 16 + 16 one-process nodes, small blocks: tuned runs modified Bruck,
    // whose log p rounds each wait for the backbone; lg_at_once and
    // lg_overlap cross it once, after one local step (lg's local phase takes
    // 15 single-port steps). Robust: they win on every machine the unknown
    // costs could be. lg_overlap is predicted 2 % ahead: its own blocks are
    // on the backbone during the local step.
    EXPECT_STREQ(pick(two_clusters(16, 16), 96, 1, kTwoClustersCosts), "lg_overlap");
    EXPECT_STREQ(pick(two_clusters(16, 16), 96, 1, ""), "lg_overlap");
    // Larger blocks: tuned runs linear, which the model cannot beat by 20 %.
    EXPECT_STREQ(pick(two_clusters(16, 16), 1536, 1, kTwoClustersCosts), "fallback");
}

TEST(Auto, OneNodeTooManyRanksAndOtherCollectivesFallBack)
{
    EXPECT_STREQ(pick(Topology::from_node_sizes({8}), 64, 1, ""), "fallback");
    EXPECT_STREQ(pick(Topology::from_node_sizes({8}), 64, 1, kUnevenSmpCosts), "fallback");
    const Comparison large =
        compare_alltoall(Topology::from_node_sizes(std::vector<int>(129, 1)), Plans(), 64, 1, LinkCostSpec());
    // Above kMaxModelledRanks the scale model decides (test_scale_model.cc).
    EXPECT_EQ(large.choice.algorithm, nullptr);
    EXPECT_TRUE(large.scale_model);
    EXPECT_EQ(large.why_not, nullptr);
    std::string line;
    EXPECT_EQ(
        choose_auto(HIER_OP_BARRIER, Topology::from_node_sizes({2, 2}), Plans(), 0, 1, LinkCostSpec(), &line).algorithm,
        nullptr);
    EXPECT_NE(line.find("no time model"), std::string::npos);
}

TEST(Auto, EveryRowIsWeighedAndTheLineNamesThemAll)
{
    LinkCostSpec spec;
    const Comparison comparison = compare_alltoall(Topology::from_node_sizes({4, 3, 2, 1}), Plans(), 1024, 1, spec);
    EXPECT_EQ(comparison.machines.size(), 2u);
    std::string line = describe(comparison);
    EXPECT_NE(line.find("open-mpi(linear_sync)"), std::string::npos) << line;
    for (const Algorithm *algorithm : algorithms_for(HIER_OP_ALLTOALL)) {
        const bool applies = algorithm->unfit(Topology::from_node_sizes({4, 3, 2, 1})) == nullptr;
        EXPECT_EQ(line.find(std::string(", ") + algorithm->name + " ") != std::string::npos, applies)
            << algorithm->name << ": " << line;
    }
    EXPECT_NE(line.find("picks fallback"), std::string::npos);
}

const Algorithm *row(const char *name)
{
    for (const Algorithm *algorithm : algorithms_for(HIER_OP_ALLTOALL)) {
        if (std::string(algorithm->name) == name) {
            return algorithm;
        }
    }
    return nullptr;
}

std::string names_of(const std::vector<const Algorithm *> &rows)
{
    return rows.empty() ? "none" : names(rows);
}

TEST(Auto, MeasuresTheRowsTheModelCannotTellFromOpenMpis)
{
    // 3 + 6 nodes, 64 KiB, costs unknown: on the machines with a slow
    // backbone lg_overlap ties with Open MPI's linear (both wait for the
    // backbone), on those with a fast one it is 1.5 times slower. Neither
    // wins everywhere: the closest rows are measured, lg_overlap first.
    const Comparison large = compare_alltoall(two_clusters(3, 6), Plans(), 65536, 1, LinkCostSpec());
    EXPECT_EQ(large.choice.algorithm, nullptr);
    ASSERT_EQ(large.measure.size(), kTrialRows) << names_of(algorithms_of(large.measure));
    EXPECT_STREQ(large.measure[0].algorithm->name, "lg_overlap");
    EXPECT_NE(describe(large).find("picks fallback, or " + names(algorithms_of(large.measure), " or ") +
                                   " if measured faster"),
              std::string::npos)
        << describe(large);
    // A row predicted 20 % faster everywhere is picked, nothing measured.
    const Comparison bruck = compare_alltoall(two_clusters(16, 16), Plans(), 96, 1, LinkCostSpec());
    ASSERT_NE(bruck.choice.algorithm, nullptr);
    EXPECT_TRUE(bruck.measure.empty()) << names_of(algorithms_of(bruck.measure));
    // Every row far slower on every machine: nothing to measure. uneven-smp
    // at 64 KiB with its NICs' 200 Mbit/s given, a window of 1: factor and
    // the others run strict single-port steps, 1.3 to 5 times Open MPI's
    // linear_sync.
    const Comparison strict = compare_alltoall(Topology::from_node_sizes({4, 3, 2, 1}), Plans(), 65536, 1,
                                               [] {
                                                   LinkCostSpec spec;
                                                   std::string error;
                                                   parse_link_costs(kUnevenSmpCosts, &spec, &error);
                                                   return spec;
                                               }());
    for (const TrialRow &measured : strict.measure) {
        for (const Contender &contender : strict.rows) {
            if (contender.algorithm == measured.algorithm) {
                EXPECT_LT(contender.worst_ratio, kTrialUpTo) << measured.algorithm->name;
                EXPECT_DOUBLE_EQ(measured.worst_ratio, contender.worst_ratio);
                EXPECT_LE(measured.best_ratio, measured.worst_ratio);
            }
        }
    }
    // One node: no model, nothing measured.
    EXPECT_TRUE(compare_alltoall(Topology::from_node_sizes({8}), Plans(), 64, 1, LinkCostSpec()).measure.empty());
}

// Sets a trial's times from call `from` on: each call takes the next time
// of its contender's list (0: Open MPI's), in the order the calls run them.
void record(Trial &trial, int from, const std::vector<std::vector<double>> &by_contender)
{
    std::vector<size_t> next(by_contender.size(), 0);
    for (int call = from; call < trial.calls(); ++call) {
        const size_t contender = trial.contender_of(call);
        trial.record(call, by_contender.at(contender).at(next[contender]++));
    }
}

TEST(Trial, WarmsUpThenTakesTurnsStartingEachCycleWithTheNext)
{
    for (const int rows : {1, 2, 3}) {
        for (const int calls_each : {1, 3}) {
            std::vector<TrialRow> measured(size_t(rows), row("hypercube"));
            Trial trial(measured, calls_each);
            const int contenders = rows + 1;
            ASSERT_EQ(trial.calls(), contenders * (calls_each + 1));
            for (int cycle = 0; cycle < trial.calls() / contenders; ++cycle) {
                std::vector<int> seen(size_t(contenders), 0);
                for (int k = 0; k < contenders; ++k) {
                    ++seen[trial.contender_of(cycle * contenders + k)];
                }
                EXPECT_EQ(seen, std::vector<int>(size_t(contenders), 1)) << rows << " rows, cycle " << cycle;
                EXPECT_EQ(trial.contender_of(cycle * contenders), size_t(cycle % contenders));
            }
        }
    }
    // The warm-up's times do not count: Open MPI's first call took 1 s and
    // hypercube's 1 ms, then 10 ms and 12 ms; counted, they would give
    // hypercube the lower median.
    Trial trial({row("hypercube")}, 1);
    record(trial, 0, {{1, 10e-3}, {1e-3, 12e-3}});
    std::string line;
    EXPECT_EQ(trial.conclude(&line).algorithm, nullptr);
    EXPECT_EQ(line, "measured over 1 call each (medians from a common start): open-mpi 10ms, hypercube 12ms; "
                    "each over open-mpi's of its cycle: hypercube x1.20; picks fallback");
}

TEST(Trial, RunsEachContenderInTurnAndKeepsTheFastestMedian)
{
    Trial trial({row("lg_overlap"), row("lg_at_once")}, 3);
    ASSERT_EQ(trial.calls(), 12);
    const char *names[] = {"fallback", "lg_overlap", "lg_at_once"};
    for (int call = 0; call < trial.calls(); ++call) {
        const Choice choice = trial.choice(call);
        EXPECT_STREQ(choice.algorithm ? choice.algorithm->name : "fallback", names[trial.contender_of(call)]) << call;
    }
    EXPECT_NE(std::string(trial.choice(0).reason).find("measuring it against lg_overlap and lg_at_once: one call "
                                                       "each to warm up, then 3 each (up to 15 while their ratios "
                                                       "cannot tell them apart)"),
              std::string::npos)
        << trial.choice(0).reason;
    // Warm-up calls of 1 s (not counted), then Open MPI's 10 ms, lg_overlap
    // 9 ms, lg_at_once 9.5 ms; one call of lg_overlap 30 ms (a stall): the
    // range of its 3 ratios (0.9 to 3) holds 1, so another round runs.
    record(trial, 0, {{1, 10e-3, 10e-3, 10e-3}, {1, 9e-3, 30e-3, 9e-3}, {1, 9.5e-3, 9.5e-3, 9.5e-3}});
    std::string line;
    ASSERT_TRUE(trial.extend(&line));
    ASSERT_EQ(trial.calls(), 21);
    // Without a stall: over 6 ratios, the interval (the 2nd to the 5th, 0.9)
    // tells lg_overlap from 1.
    record(trial, 12, {{10e-3, 10e-3, 10e-3}, {9e-3, 9e-3, 9e-3}, {9.5e-3, 9.5e-3, 9.5e-3}});
    EXPECT_FALSE(trial.extend(&line));
    const Choice kept = trial.conclude(&line);
    ASSERT_NE(kept.algorithm, nullptr);
    EXPECT_STREQ(kept.algorithm->name, "lg_overlap");
    EXPECT_EQ(line, "measured over 6 calls each (medians from a common start): open-mpi 10ms, lg_overlap 9ms, "
                    "lg_at_once 9.5ms; each over open-mpi's of its cycle: lg_overlap x0.90, lg_at_once x0.95; "
                    "picks lg_overlap");
}

TEST(Trial, KeepsOpenMpisUnlessARowIsClearlyFaster)
{
    Trial trial({row("hypercube")}, 2);
    ASSERT_EQ(trial.calls(), 6);
    // 2 % faster: within the spread of a few calls, Open MPI's stays.
    record(trial, 0, {{10e-3, 10e-3, 10e-3}, {9.8e-3, 9.8e-3, 9.8e-3}});
    EXPECT_EQ(trial.conclude(nullptr).algorithm, nullptr);
    // Slower: Open MPI's stays, and says why.
    record(trial, 0, {{10e-3, 10e-3, 10e-3}, {12e-3, 12e-3, 12e-3}});
    const Choice slower = trial.conclude(nullptr);
    EXPECT_EQ(slower.algorithm, nullptr);
    EXPECT_NE(std::string(slower.reason).find("measured no faster"), std::string::npos);
    // 5 % faster: the row.
    record(trial, 0, {{10e-3, 10e-3, 10e-3}, {10e-3, 9.5e-3, 9.5e-3}});
    ASSERT_NE(trial.conclude(nullptr).algorithm, nullptr);
    EXPECT_STREQ(trial.conclude(nullptr).algorithm->name, "hypercube");
}

TEST(Trial, JudgesEachRowByItsRatioToOpenMpisCallOfTheSameCycle)
{
    // The machine slows down from cycle to cycle, both alike: Open MPI's
    // calls 1, 2, 3 ms, hypercube's 0.9, 1.8, 2.7. Their medians (2 and 1.8)
    // differ by less than the calls spread (1 and 0.9); each cycle's ratio
    // is 0.9, without spread: decided at once.
    Trial trial({row("hypercube")}, 3);
    record(trial, 0, {{5e-3, 1e-3, 2e-3, 3e-3}, {5e-3, 0.9e-3, 1.8e-3, 2.7e-3}});
    std::string line;
    EXPECT_FALSE(trial.extend(&line));
    const Choice kept = trial.conclude(&line);
    ASSERT_NE(kept.algorithm, nullptr);
    EXPECT_STREQ(kept.algorithm->name, "hypercube");
    EXPECT_EQ(line, "measured over 3 calls each (medians from a common start): open-mpi 2ms, hypercube 1.8ms; "
                    "each over open-mpi's of its cycle: hypercube x0.90; picks hypercube");
}

TEST(Trial, TakesAnotherRoundWhileTheIntervalOfTheMedianRatioHoldsOne)
{
    Trial trial({row("hypercube"), row("mesh")}, 3);
    // After the warm-up: Open MPI's calls 1 ms; hypercube's 0.8, 1.2, 0.95
    // (ratios' median 0.95; the interval of 3, their range, holds 1); mesh
    // 3 ms.
    record(trial, 0, {{5e-3, 1e-3, 1e-3, 1e-3}, {5e-3, 0.8e-3, 1.2e-3, 0.95e-3}, {5e-3, 3e-3, 3e-3, 3e-3}});
    std::string line;
    ASSERT_TRUE(trial.extend(&line));
    EXPECT_EQ(line, "measured over 3 calls each (medians from a common start): open-mpi 1ms, hypercube 950us, "
                    "mesh 3ms; each over open-mpi's of its cycle: hypercube x0.95, mesh x3.00; hypercube's x0.95 is "
                    "not told from x1 yet (x0.80 to x1.20): 3 more calls each");
    ASSERT_EQ(trial.calls(), 21);
    std::vector<int> calls_of(3, 0);
    for (int call = 12; call < 21; ++call) {
        ++calls_of[trial.contender_of(call)];
    }
    EXPECT_EQ(calls_of, std::vector<int>(3, 3));
    // The second round: Open MPI's at 1.2, hypercube at 0.9 (ratio 0.75).
    // Over 6 cycles: median 0.775, interval (the 2nd to the 5th) 0.75 to
    // 0.95: decided.
    record(trial, 12, {{1.2e-3, 1.2e-3, 1.2e-3}, {0.9e-3, 0.9e-3, 0.9e-3}, {3e-3, 3e-3, 3e-3}});
    EXPECT_FALSE(trial.extend(&line));
    const Choice kept = trial.conclude(&line);
    ASSERT_NE(kept.algorithm, nullptr);
    EXPECT_STREQ(kept.algorithm->name, "hypercube");
    EXPECT_EQ(line.rfind("measured over 6 calls each", 0), 0u) << line;
    // Fewer than 3 ratios tell nothing, however far from 1: 2 calls each
    // take a second round, then 4 ratios of 0.5 decide.
    Trial pair({row("hypercube")}, 2);
    record(pair, 0, {{5e-3, 1e-3, 1e-3}, {5e-3, 0.5e-3, 0.5e-3}});
    ASSERT_TRUE(pair.extend(&line));
    EXPECT_NE(line.find("hypercube's x0.50 is not told from x1 yet (too few calls): 2 more calls each"),
              std::string::npos)
        << line;
    record(pair, 6, {{1e-3, 1e-3}, {0.5e-3, 0.5e-3}});
    EXPECT_FALSE(pair.extend(nullptr));
    // At most kTrialRounds rounds, however close.
    Trial tied({row("hypercube")}, 1);
    int rounds = 1;
    while (tied.extend(nullptr)) {
        ++rounds;
    }
    EXPECT_EQ(rounds, kTrialRounds);
    EXPECT_EQ(tied.calls(), 2 + 2 * kTrialRounds);
}

TEST(Trial, TakesASecondRoundWhenItsFirstGoesAgainstTheModel)
{
    // hypercube, predicted x0.90 to x0.97 of Open MPI's time: a first round
    // at x1.10, x1.05, x1.20 (every ratio above 1) would keep Open MPI's:
    // one more round first; after it, the data decide, whichever way.
    const std::vector<std::vector<double>> slower = {{5e-3, 1e-3, 1e-3, 1e-3}, {5e-3, 1.1e-3, 1.05e-3, 1.2e-3}};
    Trial favoured({TrialRow(row("hypercube"), 0.90, 0.97)}, 3);
    record(favoured, 0, slower);
    std::string line;
    ASSERT_TRUE(favoured.extend(&line));
    EXPECT_NE(line.find("hypercube's x1.10 goes against the model's prediction: 3 more calls each"),
              std::string::npos)
        << line;
    record(favoured, 8, {{1e-3, 1e-3, 1e-3}, {1.1e-3, 1.1e-3, 1.1e-3}});
    EXPECT_FALSE(favoured.extend(nullptr));
    EXPECT_EQ(favoured.conclude(nullptr).algorithm, nullptr);
    // Without a lean (the model had it faster on one machine only, or no
    // model), the same first round settles it.
    for (const TrialRow &unsure : {TrialRow(row("hypercube"), 0.90, 1.05), TrialRow(row("hypercube"))}) {
        Trial trial({unsure}, 3);
        record(trial, 0, slower);
        EXPECT_FALSE(trial.extend(nullptr));
    }
    // The other way: a row predicted slower on every machine measured
    // faster in its first round (x0.80 to x0.90) takes a second round too.
    Trial doubted({TrialRow(row("hypercube"), 1.05, 1.20)}, 3);
    record(doubted, 0, {{5e-3, 1e-3, 1e-3, 1e-3}, {5e-3, 0.8e-3, 0.85e-3, 0.9e-3}});
    ASSERT_TRUE(doubted.extend(nullptr));
    record(doubted, 8, {{1e-3, 1e-3, 1e-3}, {0.85e-3, 0.85e-3, 0.85e-3}});
    EXPECT_FALSE(doubted.extend(nullptr));
    ASSERT_NE(doubted.conclude(nullptr).algorithm, nullptr);
}

} // namespace
} // namespace hier
