/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The time model: a discrete-event simulation of the executor on every rank,
// with messages as fluid flows sharing the machine's resources max-min fairly.
//
// Two groupings keep the events and the work per event small without
// changing a result: messages that leave at the same instant on the same
// path with the same size progress identically, so they move as one stream;
// and every message on one path (same resources) gets the same max-min rate,
// so bandwidth is shared among paths, weighted by their messages in flight.
#include "model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <queue>
#include <unordered_map>

namespace hier {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

struct Message {
    int src, dst;
    int link_class;
    int path;
    uint32_t src_round;
    uint32_t dst_round = 0;
    double bytes;
    double ready;             // when the sender has paid its overhead
    double recv_posted = -1;  // when its receive was posted
    double arrived = -1;      // when its last byte reached the receiver
    bool matched = false;     // its receive is posted
    bool scheduled = false;   // its start is an event
};

// Messages that left together on one path with one size.
struct Stream {
    int path;
    double remaining;  // bytes left, of each message
    double rate = 0;   // of each message
    double finish = kInfinity;
    std::vector<int> messages;
};

// The resources a message uses, and the max-min rate of each message on them.
struct Path {
    std::vector<int> resources;
    double latency = 0;  // one way, end to end
    int in_flight = 0;   // messages, while sharing bandwidth
    double rate = 0;
};

struct Event {
    enum Kind { Start, Arrival, RecvDone, RoundDone };
    double time;
    uint64_t order;  // ties keep their scheduling order: every rank computes alike
    Kind kind;
    int a;           // message (Start), stream (Arrival), rank (RecvDone, RoundDone)
    uint32_t round;  // RecvDone: the receiver's round
    bool operator>(const Event &other) const
    {
        return time != other.time ? time > other.time : order > other.order;
    }
};

struct RankState {
    size_t posted = 0;
    size_t finished = 0;
    bool finishing = false;
    double cpu = 0;  // when this rank's CPU is free
    double done = 0;
    std::vector<uint32_t> pending;  // per round: messages not complete
};

// Messages between one ordered pair, matched in order (MPI's non-overtaking
// rule): the n-th send meets the n-th receive.
struct PairQueue {
    std::vector<int> sends;                          // messages
    std::vector<std::pair<uint32_t, double>> recvs;  // (round, time posted)
};

class Model {
public:
    Model(const Topology &topology, const std::vector<Schedule> &schedules, size_t block_bytes, int window,
          const LinkCosts &costs);
    Prediction run();

private:
    int link_class(int src, int dst) const;
    int path_of(int src, int dst, int link_class);
    void schedule(double time, Event::Kind kind, int a, uint32_t round = 0);

    // The executor of one rank.
    void advance(int rank, double now);
    double post_round(int rank, size_t index, double start);
    double post_send(int rank, uint32_t round, const Op &op, double start);
    void post_recv(int rank, uint32_t round, const Op &op, double now);
    void schedule_start(int message);
    void complete(int rank, uint32_t round, double now);
    void receive(int message, double now);

    // The network.
    void progress(double now);
    void start_streams();
    void finish_streams(double now);
    void share_bandwidth(double now);
    void handle(const Event &event);

    const Topology &topology_;
    const std::vector<Schedule> &schedules_;
    double block_bytes_;
    int window_;  // as asked: each schedule may keep more in flight
    const LinkCosts &costs_;

    std::vector<RankState> ranks_;
    std::vector<Message> messages_;
    std::unordered_map<uint64_t, PairQueue> pairs_;
    std::vector<Path> paths_;
    std::unordered_map<uint64_t, int> path_ids_;  // by source and destination node
    std::vector<Stream> streams_;
    std::vector<int> active_;    // streams in flight
    std::vector<int> starting_;  // messages whose start event has come
    std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
    uint64_t event_order_ = 0;
    double clock_ = 0;  // active streams' remaining bytes are as of this time

    // Resources: node memory [0, N), NIC out [N, 2N), NIC in [2N, 3N),
    // uplink out [3N, 3N + C), uplink in [3N + C, 3N + 2C); on a torus of
    // nodes, the links out of each node from 3N + 2C on (torus_links_ each);
    // with sockets, each node's link between its sockets, the last N.
    int torus_links_ = 0;   // per node; 0: the network is a crossbar of NICs
    int first_torus_link_ = 0;
    int first_socket_link_ = -1;  // -1: no sockets
    std::vector<double> capacity_;
    std::vector<double> left_;  // capacity not yet given, while sharing
    std::vector<int> users_;    // messages not yet given a rate, while sharing
    std::vector<std::vector<int>> paths_through_;
    std::vector<int> touched_;
    size_t work_ = 0;
    Prediction prediction_;
};

Model::Model(const Topology &topology, const std::vector<Schedule> &schedules, size_t block_bytes, int window,
             const LinkCosts &costs)
    : topology_(topology), schedules_(schedules), block_bytes_(double(block_bytes)),
      window_(window), costs_(costs), ranks_(schedules.size())
{
    const int nodes = topology.node_count();
    const int clusters = topology.cluster_count();
    if (const Torus *torus = topology.torus_of_nodes()) {
        torus_links_ = int(torus->links().size());
        first_torus_link_ = 3 * nodes + 2 * clusters;
    }
    capacity_.assign(size_t(3 * nodes + 2 * clusters + nodes * torus_links_), 0);
    for (size_t r = size_t(first_torus_link_); r < capacity_.size(); ++r) {
        capacity_[r] = costs.link[kNetworkLink].bandwidth;
    }
    if (topology.has_sockets()) {
        first_socket_link_ = int(capacity_.size());
        capacity_.resize(capacity_.size() + size_t(nodes), costs.link[kSocketLink].bandwidth);
    }
    for (int n = 0; n < nodes; ++n) {
        capacity_[n] = costs.link[kNodeLink].bandwidth;
        capacity_[nodes + n] = capacity_[2 * nodes + n] = costs.link[kNetworkLink].bandwidth;
    }
    std::vector<int> cluster_nodes(size_t(clusters), 0);
    for (int n = 0; n < nodes; ++n) {
        ++cluster_nodes[size_t(topology.cluster_of(topology.members(n).front()))];
    }
    for (int c = 0; c < clusters; ++c) {
        capacity_[3 * nodes + c] = capacity_[3 * nodes + clusters + c] =
            uplink_bandwidth(costs, cluster_nodes[size_t(c)]);
    }
    left_.assign(capacity_.size(), 0);
    users_.assign(capacity_.size(), 0);
    paths_through_.resize(capacity_.size());
    for (size_t rank = 0; rank < schedules.size(); ++rank) {
        ranks_[rank].pending.assign(schedules[rank].rounds().size(), 0);
        prediction_.rounds = std::max(prediction_.rounds, schedules[rank].rounds().size());
    }
}

int Model::link_class(int src, int dst) const
{
    if (topology_.node_of(src) == topology_.node_of(dst)) {
        return topology_.socket_of(src) == topology_.socket_of(dst) ? kNodeLink : kSocketLink;
    }
    return topology_.cluster_of(src) == topology_.cluster_of(dst) ? kNetworkLink : kBackboneLink;
}

// A message within a node uses the node's memory, and between its sockets
// also the node's link between them, which all such messages share, either
// way (the copy still goes through memory: the link is a further limit);
// between nodes both NICs, and between clusters both uplinks too; on a torus
// of nodes, the links of its route instead of NICs. A resource of infinite
// capacity never limits a message: left out.
int Model::path_of(int src, int dst, int cls)
{
    const int nodes = topology_.node_count();
    const int src_node = topology_.node_of(src);
    const int dst_node = topology_.node_of(dst);
    const uint64_t nodes_pair = uint64_t(src_node) * uint64_t(nodes) + uint64_t(dst_node);
    const auto inserted = path_ids_.emplace(2 * nodes_pair + (cls == kSocketLink ? 1 : 0), int(paths_.size()));
    if (!inserted.second) {
        return inserted.first->second;
    }
    Path path;
    auto use = [&](int resource) {
        if (std::isfinite(capacity_[resource])) {
            path.resources.push_back(resource);
        }
    };
    path.latency = costs_.link[cls].latency;
    if (cls == kNodeLink || cls == kSocketLink) {
        use(src_node);
        if (cls == kSocketLink) {
            use(first_socket_link_ + src_node);
        }
    } else if (torus_links_ > 0) {
        const auto route = topology_.torus_of_nodes()->route(src, dst);
        for (const auto &[at, link] : route) {
            use(first_torus_link_ + at * torus_links_ + link);
        }
        path.latency += double(route.size() - 1) * costs_.hop_latency;
    } else {
        use(nodes + src_node);
        use(2 * nodes + dst_node);
    }
    if (cls == kBackboneLink) {
        const int clusters = topology_.cluster_count();
        use(3 * nodes + topology_.cluster_of(src));
        use(3 * nodes + clusters + topology_.cluster_of(dst));
        path.latency += costs_.link[kNetworkLink].latency;
    }
    paths_.push_back(path);
    return inserted.first->second;
}

void Model::schedule(double time, Event::Kind kind, int a, uint32_t round)
{
    events_.push(Event{time, event_order_++, kind, a, round});
}

// The executor's loop: post what the window and the dependencies allow, then
// finish the oldest round once its messages are complete (its copies take
// the CPU at the node's bandwidth).
void Model::advance(int rank, double now)
{
    RankState &state = ranks_[rank];
    const auto &rounds = schedules_[rank].rounds();
    const double start = std::max(state.cpu, now);
    double busy = 0;
    const size_t window = schedules_[rank].window(window_);
    while (state.posted < rounds.size() && state.posted - state.finished < window &&
           rounds[state.posted].depends_on < int32_t(state.finished)) {
        busy += post_round(rank, state.posted++, start);
    }
    state.cpu = start + busy;
    if (state.finished < rounds.size() && !state.finishing && state.pending[state.finished] == 0) {
        const Round &round = rounds[state.finished];
        const Op *ops = schedules_[rank].ops(round);
        double copy_bytes = 0;
        for (size_t i = 0; i < schedules_[rank].op_count(round); ++i) {
            if (ops[i].kind == OpKind::Copy || ops[i].kind == OpKind::Reduce) {
                copy_bytes += ops[i].from.count * block_bytes_;
            }
        }
        state.cpu = std::max(state.cpu, now) + copy_bytes / costs_.link[kNodeLink].bandwidth;
        state.finishing = true;
        schedule(state.cpu, Event::RoundDone, rank);
    }
}

// The sends of the rounds posted together each leave one overhead after
// the CPU takes them up, and keep the CPU busy for the sum of their
// overheads: the CPU's total is LogP's, but the messages start together
// rather than one overhead apart, which keeps the model's events few.
// Returns the CPU time the round's sends cost.
double Model::post_round(int rank, size_t index, double start)
{
    const Schedule &schedule = schedules_[rank];
    const Round &round = schedule.rounds()[index];
    ranks_[rank].pending[index] = round.messages;
    const Op *ops = schedule.ops(round);
    for (size_t i = 0; i < schedule.op_count(round); ++i) {
        if (ops[i].kind == OpKind::Recv) {
            post_recv(rank, uint32_t(index), ops[i], start);
        }
    }
    double busy = 0;
    for (size_t i = 0; i < schedule.op_count(round); ++i) {
        if (ops[i].kind == OpKind::Send) {
            busy += post_send(rank, uint32_t(index), ops[i], start);
        }
    }
    return busy;
}

double Model::post_send(int rank, uint32_t round, const Op &op, double start)
{
    Message message{};
    message.src = rank;
    message.dst = op.peer;
    message.link_class = link_class(rank, op.peer);
    message.path = path_of(rank, op.peer, message.link_class);
    message.src_round = round;
    message.bytes = op.from.count * block_bytes_;
    const double overhead = costs_.link[message.link_class].overhead;
    message.ready = start + overhead;
    prediction_.traffic[message.link_class].messages += 1;
    prediction_.traffic[message.link_class].bytes += size_t(message.bytes);
    const int id = int(messages_.size());
    messages_.push_back(message);
    PairQueue &pair = pairs_[uint64_t(rank) * schedules_.size() + uint64_t(op.peer)];
    pair.sends.push_back(id);
    if (pair.recvs.size() >= pair.sends.size()) {
        const auto &[recv_round, posted] = pair.recvs[pair.sends.size() - 1];
        messages_[id].matched = true;
        messages_[id].dst_round = recv_round;
        messages_[id].recv_posted = posted;
    }
    schedule_start(id);
    return overhead;
}

void Model::post_recv(int rank, uint32_t round, const Op &op, double now)
{
    PairQueue &pair = pairs_[uint64_t(op.peer) * schedules_.size() + uint64_t(rank)];
    pair.recvs.emplace_back(round, now);
    if (pair.sends.size() < pair.recvs.size()) {
        return;
    }
    const int id = pair.sends[pair.recvs.size() - 1];
    Message &message = messages_[id];
    message.matched = true;
    message.dst_round = round;
    message.recv_posted = now;
    if (message.arrived >= 0) {  // an eager message that was already there
        receive(id, now);
    } else {
        schedule_start(id);
    }
}

// Eager messages leave when ready; larger ones after the rendezvous: the
// request reaches the receiver, which answers once its receive is posted.
void Model::schedule_start(int id)
{
    Message &message = messages_[id];
    if (message.scheduled) {
        return;
    }
    if (message.bytes <= double(costs_.link[message.link_class].eager_limit)) {
        message.scheduled = true;
        schedule(message.ready, Event::Start, id);
    } else if (message.matched) {
        const double latency = paths_[message.path].latency;
        message.scheduled = true;
        schedule(std::max(message.ready + latency, message.recv_posted) + latency, Event::Start, id);
    }
}

// One message of a round is complete: the round may finish.
void Model::complete(int rank, uint32_t round, double now)
{
    --ranks_[rank].pending[round];
    advance(rank, now);
}

// The receiver pays its overhead once the data is there and the receive posted.
void Model::receive(int id, double now)
{
    const Message &message = messages_[id];
    RankState &state = ranks_[message.dst];
    state.cpu = std::max(state.cpu, std::max(now, message.arrived)) + costs_.link[message.link_class].overhead;
    schedule(state.cpu, Event::RecvDone, message.dst, message.dst_round);
}

void Model::progress(double now)
{
    for (int s : active_) {
        Stream &stream = streams_[s];
        stream.remaining = std::isfinite(stream.rate) ? std::max(0.0, stream.remaining - stream.rate * (now - clock_)) : 0;
    }
    work_ += active_.size();
    clock_ = now;
}

// The messages whose start came at this instant, as streams: one per path
// and size.
void Model::start_streams()
{
    std::map<std::pair<int, double>, int> stream_of;
    for (int id : starting_) {
        const Message &message = messages_[id];
        const auto inserted = stream_of.emplace(std::make_pair(message.path, message.bytes), int(streams_.size()));
        if (inserted.second) {
            streams_.push_back(Stream{message.path, message.bytes, 0, kInfinity, {}});
            active_.push_back(inserted.first->second);
        }
        streams_[inserted.first->second].messages.push_back(id);
    }
    starting_.clear();
}

void Model::finish_streams(double now)
{
    const double tolerance = now * 1e-12 + 1e-15;
    std::vector<int> still;
    std::vector<int> done;
    for (int s : active_) {
        (streams_[s].finish <= now + tolerance ? done : still).push_back(s);
    }
    active_.swap(still);
    for (int s : done) {
        schedule(now + paths_[streams_[s].path].latency, Event::Arrival, s);
        for (int id : streams_[s].messages) {
            complete(messages_[id].src, messages_[id].src_round, now);
        }
    }
}

// Max-min fair rates by progressive filling over paths: the resource with
// the smallest share per message fixes the rate of every path through it,
// which leaves the other resources more; shares only grow, so a stale heap
// entry is pushed again.
void Model::share_bandwidth(double now)
{
    for (int r : touched_) {
        users_[r] = 0;
        paths_through_[r].clear();
    }
    touched_.clear();
    std::vector<int> busy;
    for (int s : active_) {
        Path &path = paths_[streams_[s].path];
        if (path.in_flight == 0) {
            busy.push_back(streams_[s].path);
            path.rate = kInfinity;
        }
        path.in_flight += int(streams_[s].messages.size());
    }
    for (int p : busy) {
        const Path &path = paths_[p];
        for (const int r : path.resources) {
            if (users_[r] == 0) {
                touched_.push_back(r);
                left_[r] = capacity_[r];
            }
            users_[r] += path.in_flight;
            paths_through_[r].push_back(p);
        }
    }
    using Share = std::pair<double, int>;
    std::priority_queue<Share, std::vector<Share>, std::greater<Share>> shares;
    for (int r : touched_) {
        shares.emplace(left_[r] / users_[r], r);
    }
    while (!shares.empty()) {
        const int r = shares.top().second;
        const double popped = shares.top().first;
        shares.pop();
        if (users_[r] == 0) {
            continue;
        }
        const double share = std::max(0.0, left_[r] / users_[r]);
        if (share > popped) {
            shares.emplace(share, r);
            continue;
        }
        for (int p : paths_through_[r]) {
            Path &path = paths_[p];
            if (path.rate != kInfinity) {
                continue;  // fixed by an earlier bottleneck
            }
            path.rate = share;
            for (const int other : path.resources) {
                left_[other] -= share * path.in_flight;
                users_[other] -= path.in_flight;
                if (users_[other] > 0 && other != r) {
                    shares.emplace(std::max(0.0, left_[other] / users_[other]), other);
                }
            }
        }
        work_ += paths_through_[r].size();
    }
    for (int s : active_) {
        Stream &stream = streams_[s];
        stream.rate = paths_[stream.path].rate;
        stream.finish = stream.remaining <= 0 ? now : now + stream.remaining / stream.rate;
    }
    for (int p : busy) {
        paths_[p].in_flight = 0;
    }
    work_ += active_.size();
}

void Model::handle(const Event &event)
{
    switch (event.kind) {
    case Event::Start:
        starting_.push_back(event.a);
        break;
    case Event::Arrival:
        for (int id : streams_[event.a].messages) {
            messages_[id].arrived = event.time;
            if (messages_[id].matched) {
                receive(id, event.time);
            }
        }
        break;
    case Event::RecvDone:
        complete(event.a, event.round, event.time);
        break;
    case Event::RoundDone: {
        RankState &state = ranks_[event.a];
        state.finishing = false;
        ++state.finished;
        state.done = event.time;
        advance(event.a, event.time);
        break;
    }
    }
}

Prediction Model::run()
{
    for (size_t rank = 0; rank < ranks_.size(); ++rank) {
        advance(int(rank), 0);
    }
    while (!events_.empty() || !active_.empty()) {
        if (work_ > kModelWorkLimit) {
            prediction_.error = error_text(1);
            return prediction_;
        }
        double next_finish = kInfinity;
        for (int s : active_) {
            next_finish = std::min(next_finish, streams_[s].finish);
        }
        const double next_event = events_.empty() ? kInfinity : events_.top().time;
        const double now = std::min(next_finish, next_event);
        progress(now);
        const size_t streams_before = active_.size();
        if (next_finish <= next_event) {
            finish_streams(now);
        }
        while (!events_.empty() && events_.top().time <= now) {
            const Event event = events_.top();
            events_.pop();
            handle(event);
        }
        const bool changed = !starting_.empty() || active_.size() != streams_before;
        start_streams();
        if (changed) {
            share_bandwidth(now);
        }
    }
    for (size_t rank = 0; rank < ranks_.size(); ++rank) {
        if (ranks_[rank].finished != schedules_[rank].rounds().size()) {
            prediction_.error = error_text(2 + double(rank));
            return prediction_;
        }
        prediction_.seconds = std::max(prediction_.seconds, ranks_[rank].done);
    }
    return prediction_;
}

} // namespace

Prediction predict_time(const Topology &topology, const std::vector<Schedule> &schedules, size_t block_bytes,
                        int window, const LinkCosts &costs)
{
    return Model(topology, schedules, block_bytes, window, costs).run();
}

double error_code(const std::string &error)
{
    if (error.empty()) {
        return 0;
    }
    if (error == error_text(1)) {
        return 1;
    }
    int rank = -1;
    if (std::sscanf(error.c_str(), "rank %d ", &rank) == 1 && rank >= 0 && error == error_text(2 + double(rank))) {
        return 2 + double(rank);
    }
    return -1;
}

std::string error_text(double code)
{
    if (code == 1) {
        return "too large to model";
    }
    if (code >= 2) {
        return "rank " + std::to_string(int(code - 2)) + " never finishes (a receive nobody sends)";
    }
    return code < 0 ? "an error without a code (model.h: error_code)" : "";
}

std::string format_seconds(double seconds, const char *separator)
{
    char text[32];
    if (seconds >= 1) {
        std::snprintf(text, sizeof text, "%.3g%ss", seconds, separator);
    } else if (seconds >= 1e-3) {
        std::snprintf(text, sizeof text, "%.3g%sms", seconds * 1e3, separator);
    } else {
        std::snprintf(text, sizeof text, "%.3g%sus", seconds * 1e6, separator);
    }
    return text;
}

} // namespace hier
