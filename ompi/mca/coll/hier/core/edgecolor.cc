/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// A single-port alltoall whose step count is the busiest NIC's message count:
// our own, beyond Sanders and Traeff (Sec. 3 of their paper bounds the factor
// algorithm by n(p - 1) steps, counting intra-node messages as steps).
//
// On SMP nodes, messages between processes of one node go through shared
// memory and never touch the NIC; only the inter-node messages compete for
// it. Take them as a bipartite multigraph, sending nodes on one side and
// receiving nodes on the other, one edge per message. Its largest degree
// D = max_U |U| (p - |U|) is the most messages any NIC must send or receive,
// a lower bound on the steps of any single-port schedule, and by Koenig's
// edge-colouring theorem D colours suffice: colour c is step c, in which each
// node sends at most one message and receives at most one (full duplex). The
// colouring is built with alternating-path recolouring (Koenig's proof), the
// same on every rank. Intra-node messages are all posted in step 0.
//
// Departures from the factor algorithm: messages are one-way (a pair's two
// directions may fall in different steps), and intra-node messages are not
// steps. Building the colouring takes O(E N) time for the E inter-node
// messages over N nodes and a table of 2 N D entries, once per communicator;
// the schedule it leaves is O(p) per rank. 2 N D grows as p^3 on skewed
// layouts (one large node and many small ones), so the algorithm declines
// communicators whose table would pass kMaxColouringTable.
#include "algorithms.h"

#include <algorithm>
#include <utility>

namespace hier {

namespace {

struct Message {
    int from;  // rank
    int to;
};

// Proper edge colouring of a bipartite multigraph with max-degree colours.
// Vertices 0..sides-1 send, sides..2*sides-1 receive.
class BipartiteColouring {
public:
    BipartiteColouring(int sides, int colours)
        : colours_(colours), at_(size_t(2 * sides) * colours, -1), lowest_free_(size_t(2 * sides), 0) {}

    // Colours edge e (numbered from 0 in the order they are added) between
    // sender s and receiver r.
    void add(int e, int s, int r);

    int colour_of(int e) const { return colour_[e]; }

private:
    int &slot(int vertex, int colour) { return at_[size_t(vertex) * colours_ + colour]; }
    // A free colour at vertex (one exists: a vertex has fewer edges than
    // colours while one of its edges is being added). lowest_free_ only
    // moves back when a path flip frees a colour, so the scans are short.
    int free_colour(int vertex)
    {
        int &c = lowest_free_[vertex];
        while (slot(vertex, c) >= 0) {
            ++c;
        }
        return c;
    }
    void release(int vertex, int colour)
    {
        slot(vertex, colour) = -1;
        lowest_free_[vertex] = std::min(lowest_free_[vertex], colour);
    }
    int other_end(int e, int vertex) const { return ends_[e].first == vertex ? ends_[e].second : ends_[e].first; }
    void flip_path(int start, int a, int b);

    int colours_;
    std::vector<int> at_;  // (vertex, colour) -> edge
    std::vector<int> lowest_free_;  // per vertex: no colour below it is free
    std::vector<int> colour_;
    std::vector<std::pair<int, int>> ends_;
};

// Swaps colours a and b along the path that starts at `start` with an edge
// of colour a: afterwards `start` has a free.
void BipartiteColouring::flip_path(int start, int a, int b)
{
    std::vector<int> path;
    for (int vertex = start, colour = a; slot(vertex, colour) >= 0; colour = colour == a ? b : a) {
        const int e = slot(vertex, colour);
        path.push_back(e);
        vertex = other_end(e, vertex);
    }
    for (int e : path) {
        release(ends_[e].first, colour_[e]);
        release(ends_[e].second, colour_[e]);
    }
    for (int e : path) {
        colour_[e] = colour_[e] == a ? b : a;
        slot(ends_[e].first, colour_[e]) = e;
        slot(ends_[e].second, colour_[e]) = e;
    }
}

void BipartiteColouring::add(int e, int s, int r)
{
    ends_.emplace_back(s, r);
    colour_.push_back(-1);
    const int a = free_colour(s);
    const int b = free_colour(r);
    if (slot(r, a) >= 0) {
        // a is used at r: recolour r's a/b path so that a becomes free there.
        // The path cannot reach s (bipartite parity, and a is free at s).
        flip_path(r, a, b);
    }
    colour_[e] = a;
    slot(s, a) = e;
    slot(r, a) = e;
}

// Every inter-node message, in a fixed order, so that every rank colours alike.
std::vector<Message> inter_node_messages(const Topology &topology)
{
    std::vector<Message> messages;
    for (int from = 0; from < topology.size(); ++from) {
        for (int step = 1; step < topology.size(); ++step) {
            const int to = (from + step) % topology.size();
            if (topology.node_of(from) != topology.node_of(to)) {
                messages.push_back(Message{from, to});
            }
        }
    }
    return messages;
}

// 4 Mi entries, 16 MiB: p = 256 in any layout fits.
constexpr uint64_t kMaxColouringTable = uint64_t(1) << 22;

} // namespace

const char *edgecolor_unfit(const Topology &topology)
{
    const uint64_t table = uint64_t(2) * uint64_t(topology.node_count()) * edgecolor_steps(topology);
    return table <= kMaxColouringTable ? nullptr : "too many ranks for its colouring table (2 N D > 4 Mi)";
}

uint32_t edgecolor_steps(const Topology &topology)
{
    uint32_t busiest = 0;
    for (int node = 0; node < topology.node_count(); ++node) {
        const uint32_t n = uint32_t(topology.node_size(node));
        busiest = std::max(busiest, n * (uint32_t(topology.size()) - n));
    }
    return busiest;
}

Schedule build_edgecolor_alltoall(const Topology &topology, const Plans & /*plans*/, int rank, int /*root*/)
{
    ScheduleBuilder b(rank, topology.size());
    const int my_node = topology.node_of(rank);
    // Step 0 also carries the node's shared-memory messages and the own copy.
    for (int mate : topology.members(my_node)) {
        if (mate == rank) {
            b.copy(0, block(HIER_BUF_SEND, rank), block(HIER_BUF_RECV, rank));
        } else {
            b.exchange(0, mate, block(HIER_BUF_SEND, mate), block(HIER_BUF_RECV, mate));
        }
    }
    const std::vector<Message> messages = inter_node_messages(topology);
    const int colours = int(edgecolor_steps(topology));
    BipartiteColouring colouring(topology.node_count(), colours);
    for (size_t e = 0; e < messages.size(); ++e) {
        const Message &m = messages[e];
        colouring.add(int(e), topology.node_of(m.from), topology.node_count() + topology.node_of(m.to));
    }
    for (size_t e = 0; e < messages.size(); ++e) {
        const Message &m = messages[e];
        const auto step = uint32_t(colouring.colour_of(int(e)));
        if (m.from == rank) {
            b.send(step, m.to, block(HIER_BUF_SEND, m.to));
        } else if (m.to == rank) {
            b.recv(step, m.from, block(HIER_BUF_RECV, m.from));
        }
    }
    return b.build();
}

} // namespace hier
