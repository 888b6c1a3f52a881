// The time model: a discrete-event simulation of the executor on every rank,
// with messages as fluid flows sharing the machine's resources max-min fairly.
#include "model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <unordered_map>

namespace hier {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

struct Flow {
    int src, dst;
    int link_class;
    uint32_t src_round;
    uint32_t dst_round = 0;
    double bytes;
    double remaining;
    double rate = 0;
    double finish = kInfinity;
    double ready;             // when the sender has paid its overhead
    double arrived = -1;      // when the last byte reached the receiver
    double recv_posted = -1;  // when its receive was posted (-1: not yet)
    bool matched = false;
    bool started = false;
    int resources[4];
    int resource_count = 0;
};

struct Event {
    enum Kind { FlowStart, Arrival, RecvDone, RoundDone };
    double time;
    uint64_t order;  // ties keep their scheduling order: every rank computes alike
    Kind kind;
    int a;           // flow, or rank
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
    std::vector<int> sends;  // flows
    std::vector<std::pair<uint32_t, double>> recvs;  // (round, time posted)
};

class Model {
public:
    Model(const Topology &topology, const std::vector<Schedule> &schedules, size_t block_bytes, int window,
          const LinkCosts &costs);
    Prediction run();

private:
    int link_class(int src, int dst) const;
    // One way, end to end: the network's, plus the backbone's between clusters.
    double path_latency(const Flow &flow) const;
    void add_resource(Flow &flow, int resource) const;
    void schedule(double time, Event::Kind kind, int a, uint32_t round = 0);

    void advance(int rank, double now);
    void post_round(int rank, size_t round, double now);
    void post_send(int rank, uint32_t round, const Op &op, double now);
    void post_recv(int rank, uint32_t round, const Op &op, double now);
    void start_when_matched(int flow_id);
    void complete(int rank, uint32_t round, double now);
    void receive(int flow_id, double now);

    void progress(double now);
    void share_bandwidth(double now);
    void handle(const Event &event);
    void finish_flows(double now);

    const Topology &topology_;
    const std::vector<Schedule> &schedules_;
    double block_bytes_;
    size_t window_;
    const LinkCosts &costs_;

    std::vector<RankState> ranks_;
    std::vector<Flow> flows_;
    std::vector<int> active_;
    std::unordered_map<uint64_t, PairQueue> pairs_;
    std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
    uint64_t event_order_ = 0;
    double clock_ = 0;  // flows' remaining bytes are as of this time

    // Resources: node memory [0, N), NIC out [N, 2N), NIC in [2N, 3N),
    // uplink out [3N, 3N + C), uplink in [3N + C, 3N + 2C).
    std::vector<double> capacity_;
    std::vector<double> remaining_capacity_;
    std::vector<int> users_;
    std::vector<std::vector<int>> members_;
    std::vector<int> touched_;
    size_t work_ = 0;
    Prediction prediction_;
};

Model::Model(const Topology &topology, const std::vector<Schedule> &schedules, size_t block_bytes, int window,
             const LinkCosts &costs)
    : topology_(topology), schedules_(schedules), block_bytes_(double(block_bytes)),
      window_(window < 1 ? 1 : size_t(window)), costs_(costs), ranks_(schedules.size())
{
    const int nodes = topology.node_count();
    const int clusters = topology.cluster_count();
    capacity_.assign(size_t(3 * nodes + 2 * clusters), 0);
    for (int n = 0; n < nodes; ++n) {
        capacity_[n] = costs.link[kNodeLink].bandwidth;
        capacity_[nodes + n] = capacity_[2 * nodes + n] = costs.link[kNetworkLink].bandwidth;
    }
    for (int c = 0; c < clusters; ++c) {
        capacity_[3 * nodes + c] = capacity_[3 * nodes + clusters + c] = costs.link[kBackboneLink].bandwidth;
    }
    remaining_capacity_.assign(capacity_.size(), 0);
    users_.assign(capacity_.size(), 0);
    members_.resize(capacity_.size());
    for (size_t rank = 0; rank < schedules.size(); ++rank) {
        ranks_[rank].pending.assign(schedules[rank].rounds().size(), 0);
        prediction_.rounds = std::max(prediction_.rounds, schedules[rank].rounds().size());
    }
}

int Model::link_class(int src, int dst) const
{
    if (topology_.node_of(src) == topology_.node_of(dst)) {
        return kNodeLink;
    }
    return topology_.cluster_of(src) == topology_.cluster_of(dst) ? kNetworkLink : kBackboneLink;
}

double Model::path_latency(const Flow &flow) const
{
    const double own = costs_.link[flow.link_class].latency;
    return flow.link_class == kBackboneLink ? own + costs_.link[kNetworkLink].latency : own;
}

// A resource of infinite capacity never limits a flow: left out.
void Model::add_resource(Flow &flow, int resource) const
{
    if (std::isfinite(capacity_[resource])) {
        flow.resources[flow.resource_count++] = resource;
    }
}

void Model::schedule(double time, Event::Kind kind, int a, uint32_t round)
{
    events_.push(Event{time, event_order_++, kind, a, round});
}

// The executor's loop: post what the window and the dependencies allow, then
// finish the oldest round once its messages are complete.
void Model::advance(int rank, double now)
{
    RankState &state = ranks_[rank];
    const auto &rounds = schedules_[rank].rounds();
    while (state.posted < rounds.size() && state.posted - state.finished < window_ &&
           rounds[state.posted].depends_on < int32_t(state.finished)) {
        post_round(rank, state.posted++, now);
    }
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

void Model::post_round(int rank, size_t index, double now)
{
    const Schedule &schedule = schedules_[rank];
    const Round &round = schedule.rounds()[index];
    ranks_[rank].pending[index] = round.messages;
    const Op *ops = schedule.ops(round);
    for (size_t i = 0; i < schedule.op_count(round); ++i) {
        if (ops[i].kind == OpKind::Recv) {
            post_recv(rank, uint32_t(index), ops[i], now);
        }
    }
    for (size_t i = 0; i < schedule.op_count(round); ++i) {
        if (ops[i].kind == OpKind::Send) {
            post_send(rank, uint32_t(index), ops[i], now);
        }
    }
}

void Model::post_send(int rank, uint32_t round, const Op &op, double now)
{
    const int cls = link_class(rank, op.peer);
    const LinkClass &link = costs_.link[cls];
    RankState &state = ranks_[rank];
    state.cpu = std::max(state.cpu, now) + link.overhead;
    Flow flow{};
    flow.src = rank;
    flow.dst = op.peer;
    flow.link_class = cls;
    flow.src_round = round;
    flow.bytes = flow.remaining = op.from.count * block_bytes_;
    flow.ready = state.cpu;
    const int src_node = topology_.node_of(rank);
    const int dst_node = topology_.node_of(op.peer);
    const int nodes = topology_.node_count();
    const int clusters = topology_.cluster_count();
    if (cls == kNodeLink) {
        add_resource(flow, src_node);
    } else {
        add_resource(flow, nodes + src_node);
        add_resource(flow, 2 * nodes + dst_node);
        if (cls == kBackboneLink) {
            add_resource(flow, 3 * nodes + topology_.cluster_of(rank));
            add_resource(flow, 3 * nodes + clusters + topology_.cluster_of(op.peer));
        }
    }
    prediction_.traffic[cls].messages += 1;
    prediction_.traffic[cls].bytes += size_t(flow.bytes);
    const int id = int(flows_.size());
    flows_.push_back(flow);
    PairQueue &pair = pairs_[uint64_t(rank) * schedules_.size() + uint64_t(op.peer)];
    pair.sends.push_back(id);
    if (pair.recvs.size() >= pair.sends.size()) {
        const auto &[recv_round, posted] = pair.recvs[pair.sends.size() - 1];
        flows_[id].matched = true;
        flows_[id].dst_round = recv_round;
        flows_[id].recv_posted = posted;
    }
    start_when_matched(id);
}

void Model::post_recv(int rank, uint32_t round, const Op &op, double now)
{
    PairQueue &pair = pairs_[uint64_t(op.peer) * schedules_.size() + uint64_t(rank)];
    pair.recvs.emplace_back(round, now);
    if (pair.sends.size() >= pair.recvs.size()) {
        const int id = pair.sends[pair.recvs.size() - 1];
        Flow &flow = flows_[id];
        flow.matched = true;
        flow.dst_round = round;
        flow.recv_posted = now;
        if (flow.arrived >= 0) {  // an eager message that was already there
            receive(id, now);
        } else {
            start_when_matched(id);
        }
    }
}

// Eager messages leave when ready; larger ones after the rendezvous: the
// request reaches the receiver, which answers once its receive is posted.
void Model::start_when_matched(int id)
{
    Flow &flow = flows_[id];
    if (flow.started) {
        return;
    }
    const LinkClass &link = costs_.link[flow.link_class];
    if (flow.bytes <= double(link.eager_limit)) {
        flow.started = true;
        schedule(flow.ready, Event::FlowStart, id);
    } else if (flow.matched) {
        const double latency = path_latency(flow);
        flow.started = true;
        schedule(std::max(flow.ready + latency, flow.recv_posted) + latency, Event::FlowStart, id);
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
    const Flow &flow = flows_[id];
    RankState &state = ranks_[flow.dst];
    state.cpu = std::max(state.cpu, std::max(now, flow.arrived)) + costs_.link[flow.link_class].overhead;
    schedule(state.cpu, Event::RecvDone, flow.dst, flow.dst_round);
}

void Model::progress(double now)
{
    for (int id : active_) {
        Flow &flow = flows_[id];
        if (std::isfinite(flow.rate)) {
            flow.remaining = std::max(0.0, flow.remaining - flow.rate * (now - clock_));
        } else {
            flow.remaining = 0;
        }
    }
    work_ += active_.size();
    clock_ = now;
}

// Max-min fair rates by progressive filling: the resource with the smallest
// fair share fixes the rate of every flow through it, which leaves the
// others more; shares only grow, so a stale heap entry is pushed again.
void Model::share_bandwidth(double now)
{
    for (int r : touched_) {
        users_[r] = 0;
        members_[r].clear();
    }
    touched_.clear();
    std::vector<char> fixed(active_.size(), 0);
    for (size_t i = 0; i < active_.size(); ++i) {
        Flow &flow = flows_[active_[i]];
        flow.rate = kInfinity;
        for (int k = 0; k < flow.resource_count; ++k) {
            const int r = flow.resources[k];
            if (users_[r]++ == 0) {
                touched_.push_back(r);
                remaining_capacity_[r] = capacity_[r];
            }
            members_[r].push_back(int(i));
        }
    }
    using Share = std::pair<double, int>;
    std::priority_queue<Share, std::vector<Share>, std::greater<Share>> shares;
    for (int r : touched_) {
        shares.emplace(remaining_capacity_[r] / users_[r], r);
    }
    while (!shares.empty()) {
        const int r = shares.top().second;
        const double popped = shares.top().first;
        shares.pop();
        if (users_[r] == 0) {
            continue;
        }
        const double share = std::max(0.0, remaining_capacity_[r] / users_[r]);
        if (share > popped) {
            shares.emplace(share, r);
            continue;
        }
        for (int i : members_[r]) {
            if (fixed[i]) {
                continue;
            }
            fixed[i] = 1;
            Flow &flow = flows_[active_[i]];
            flow.rate = share;
            for (int k = 0; k < flow.resource_count; ++k) {
                const int other = flow.resources[k];
                remaining_capacity_[other] -= share;
                if (--users_[other] > 0 && other != r) {
                    shares.emplace(std::max(0.0, remaining_capacity_[other] / users_[other]), other);
                }
            }
        }
        work_ += members_[r].size();
    }
    for (int id : active_) {
        Flow &flow = flows_[id];
        flow.finish = flow.remaining <= 0 ? now : now + flow.remaining / flow.rate;
    }
}

void Model::finish_flows(double now)
{
    const double tolerance = now * 1e-12 + 1e-15;
    std::vector<int> still;
    std::vector<int> done;
    for (int id : active_) {
        (flows_[id].finish <= now + tolerance ? done : still).push_back(id);
    }
    active_.swap(still);
    for (int id : done) {
        Flow &flow = flows_[id];
        schedule(now + path_latency(flow), Event::Arrival, id);
        complete(flow.src, flow.src_round, now);
    }
}

void Model::handle(const Event &event)
{
    switch (event.kind) {
    case Event::FlowStart:
        active_.push_back(event.a);
        break;
    case Event::Arrival: {
        Flow &flow = flows_[event.a];
        flow.arrived = event.time;
        if (flow.matched) {
            receive(event.a, event.time);
        }
        break;
    }
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
            prediction_.error = "too large to model";
            return prediction_;
        }
        double next_finish = kInfinity;
        for (int id : active_) {
            next_finish = std::min(next_finish, flows_[id].finish);
        }
        const double next_event = events_.empty() ? kInfinity : events_.top().time;
        const double now = std::min(next_finish, next_event);
        progress(now);
        const size_t flows_before = active_.size();
        if (next_finish <= next_event) {
            finish_flows(now);
        }
        bool started = false;
        while (!events_.empty() && events_.top().time <= now) {
            const Event event = events_.top();
            events_.pop();
            started = started || event.kind == Event::FlowStart;
            handle(event);
        }
        if (started || active_.size() != flows_before) {
            share_bandwidth(now);
        }
    }
    for (size_t rank = 0; rank < ranks_.size(); ++rank) {
        if (ranks_[rank].finished != schedules_[rank].rounds().size()) {
            prediction_.error = "rank " + std::to_string(rank) + " never finishes (a receive nobody sends)";
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

} // namespace hier
