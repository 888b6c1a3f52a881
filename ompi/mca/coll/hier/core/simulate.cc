/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The simulator.
#include "simulate.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>

namespace hier {

namespace {

BlockContract moving(std::function<size_t(int)> send_blocks, std::function<size_t(int)> recv_blocks,
                     std::function<int64_t(int, size_t)> initial_send,
                     std::function<int64_t(int, size_t)> expected_recv)
{
    BlockContract contract;
    contract.send_blocks = std::move(send_blocks);
    contract.recv_blocks = std::move(recv_blocks);
    contract.initial_send = std::move(initial_send);
    contract.expected_recv = std::move(expected_recv);
    return contract;
}

// A rank's contribution to a reduction: distinct, odd (never 0), and mixed
// so that no sum of other contributions equals it by accident.
int64_t contribution(int rank)
{
    uint64_t x = uint64_t(rank) + 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return int64_t((x ^ (x >> 31)) | 1);
}

} // namespace

BlockContract alltoall_contract(int size)
{
    const int64_t p = size;
    return moving([p](int) { return size_t(p); }, [p](int) { return size_t(p); },
                  [p](int rank, size_t block) { return rank * p + int64_t(block); },
                  [p](int rank, size_t block) { return int64_t(block) * p + rank; });
}

BlockContract scatter_contract(int size, int root)
{
    return moving([size, root](int rank) { return rank == root ? size_t(size) : 0; },
                  [](int) { return size_t(1); },
                  [](int, size_t block) { return int64_t(block); },
                  [](int rank, size_t) { return int64_t(rank); });
}

BlockContract gather_contract(int size, int root)
{
    return moving([](int) { return size_t(1); },
                  [size, root](int rank) { return rank == root ? size_t(size) : 0; },
                  [](int rank, size_t) { return int64_t(rank); },
                  [](int, size_t block) { return int64_t(block); });
}

BlockContract allgather_contract(int size)
{
    return moving([](int) { return size_t(1); }, [size](int) { return size_t(size); },
                  [](int rank, size_t) { return int64_t(rank); },
                  [](int, size_t block) { return int64_t(block); });
}

BlockContract allreduce_contract(int size)
{
    uint64_t sum = 0;
    for (int rank = 0; rank < size; ++rank) {
        sum += uint64_t(contribution(rank));
    }
    BlockContract contract =
        moving([](int) { return size_t(1); }, [](int) { return size_t(1); },
               [](int rank, size_t) { return contribution(rank); }, [sum](int, size_t) { return int64_t(sum); });
    contract.kind = BlockContract::Kind::Reduce;
    return contract;
}

BlockContract barrier_contract(int)
{
    BlockContract contract =
        moving([](int) { return size_t(1); }, [](int) { return size_t(1); },
               [](int rank, size_t) { return int64_t(rank); }, [](int, size_t) { return int64_t(-1); });
    contract.kind = BlockContract::Kind::Synchronize;
    return contract;
}

BlockContract contract_for(hier_op_t op, int size, int root)
{
    switch (op) {
    case HIER_OP_SCATTER: return scatter_contract(size, root);
    case HIER_OP_GATHER: return gather_contract(size, root);
    case HIER_OP_ALLGATHER: return allgather_contract(size);
    case HIER_OP_ALLREDUCE: return allreduce_contract(size);
    case HIER_OP_BARRIER: return barrier_contract(size);
    case HIER_OP_ALLTOALL:
    case HIER_OP_ALLTOALLV:  // the same delivery; sizes do not matter to tokens
    case HIER_OP_COUNT: break;
    }
    return alltoall_contract(size);
}

namespace {

using Tokens = std::vector<int64_t>;
// Which ranks a rank has heard from, through chains of messages.
using Heard = std::vector<bool>;

struct Message {
    uint32_t step;
    Tokens tokens;
    Heard heard;  // the sender's, when the contract synchronizes
};

class Simulation {
public:
    Simulation(const Topology &topology, const std::vector<Schedule> &schedules, const BlockContract &contract,
               int window)
        : topology_(topology), schedules_(schedules), contract_(contract), window_(window < 1 ? 1 : window),
          buffers_(schedules.size() * 3), next_round_(schedules.size(), 0),
          deliveries_(schedules.size())
    {
        if (contract.kind == BlockContract::Kind::Synchronize) {
            heard_.assign(schedules.size(), Heard(schedules.size(), false));
            heard_after_.resize(schedules.size());
            for (size_t rank = 0; rank < heard_.size(); ++rank) {
                heard_[rank][rank] = true;
            }
        }
        report_.node_messages.assign(topology.node_count(), 0);
    }

    SimulationReport run();

private:
    Tokens *region(int rank, Region r);
    void fail(const std::string &message)
    {
        if (report_.error.empty()) {
            report_.error = message;
        }
    }
    // Per node, messages out and in during one step: all, and inter-node.
    struct PortLoad {
        std::vector<size_t> out, in, nic_out, nic_in;
        std::map<std::pair<int, int>, size_t> link;  // messages per (sender, receiver)
        bool backbone_used = false;
        explicit PortLoad(int nodes) : out(nodes), in(nodes), nic_out(nodes), nic_in(nodes) {}
    };
    void send(int rank, const Op &op, uint32_t step, PortLoad &load);
    void receive(int rank, const Op &op, uint32_t step);
    void copy_or_reduce(int rank, const Op &op);
    void write(int rank, Region to, const Tokens &tokens, bool add = false);
    void check_final();
    // What rank had heard when it posted round `round` (see simulate.h).
    Heard heard_when_posted(int rank, size_t round) const;

    const Topology &topology_;
    const std::vector<Schedule> &schedules_;
    const BlockContract &contract_;
    int window_;
    std::vector<Tokens> buffers_;  // rank * 3 + buffer
    std::vector<size_t> next_round_;
    std::vector<std::vector<int>> deliveries_;  // per rank, per RECV block: right token written
    std::map<std::pair<int, int>, std::deque<Message>> channels_;
    std::vector<Heard> heard_;  // per rank, when the contract synchronizes
    std::vector<std::vector<Heard>> heard_after_;  // per rank, after each of its rounds
    SimulationReport report_;
};

Tokens *Simulation::region(int rank, Region r)
{
    Tokens &tokens = buffers_[size_t(rank) * 3 + r.buffer];
    if (size_t(r.first) + r.count > tokens.size()) {
        fail("rank " + std::to_string(rank) + " names blocks beyond buffer " + std::to_string(r.buffer));
        return nullptr;
    }
    return &tokens;
}

void Simulation::write(int rank, Region to, const Tokens &tokens, bool add)
{
    Tokens *target = region(rank, to);
    if (!target) {
        return;
    }
    for (uint32_t i = 0; i < to.count; ++i) {
        const size_t block = to.first + i;
        (*target)[block] = add ? int64_t(uint64_t((*target)[block]) + uint64_t(tokens[i])) : tokens[i];
        if (to.buffer == HIER_BUF_RECV && tokens[i] == contract_.expected_recv(rank, block)) {
            ++deliveries_[rank][block];
        }
    }
}

void Simulation::send(int rank, const Op &op, uint32_t step, PortLoad &load)
{
    const Tokens *source = region(rank, op.from);
    if (!source || op.peer < 0 || op.peer >= topology_.size()) {
        fail("rank " + std::to_string(rank) + " sends outside its buffers or to no rank");
        return;
    }
    Tokens tokens(source->begin() + op.from.first, source->begin() + op.from.first + op.from.count);
    channels_[{rank, op.peer}].push_back(
        Message{step, std::move(tokens), heard_.empty() ? Heard() : heard_when_posted(rank, next_round_[rank] - 1)});
    const int from_node = topology_.node_of(rank);
    const int to_node = topology_.node_of(op.peer);
    ++report_.node_messages[from_node];
    report_.max_link_load = std::max(report_.max_link_load, ++load.link[{rank, op.peer}]);
    report_.max_port_load = std::max({report_.max_port_load, ++load.out[from_node], ++load.in[to_node]});
    if (topology_.cluster_of(rank) != topology_.cluster_of(op.peer)) {
        ++report_.inter_cluster_messages;
        load.backbone_used = true;
    }
    if (from_node == to_node) {
        ++report_.intra_node_messages;
        report_.intra_node_blocks += op.from.count;
    } else {
        ++report_.inter_node_messages;
        report_.inter_node_blocks += op.from.count;
        report_.max_nic_load =
            std::max({report_.max_nic_load, ++load.nic_out[from_node], ++load.nic_in[to_node]});
    }
}

void Simulation::receive(int rank, const Op &op, uint32_t step)
{
    auto &channel = channels_[{op.peer, rank}];
    const std::string who = "rank " + std::to_string(rank) + " at step " + std::to_string(step);
    if (channel.empty() || channel.front().step != step) {
        fail(who + " expects a message from rank " + std::to_string(op.peer) + " that is not sent in that step");
        return;
    }
    if (channel.front().tokens.size() != op.to.count) {
        fail(who + " receives " + std::to_string(op.to.count) + " blocks from rank " +
             std::to_string(op.peer) + ", which sends " + std::to_string(channel.front().tokens.size()));
        return;
    }
    write(rank, op.to, channel.front().tokens);
    for (size_t other = 0; other < channel.front().heard.size(); ++other) {
        heard_[rank][other] = heard_[rank][other] || channel.front().heard[other];
    }
    channel.pop_front();
}

void Simulation::copy_or_reduce(int rank, const Op &op)
{
    const Tokens *source = region(rank, op.from);
    if (!source || op.from.count != op.to.count) {
        fail("rank " + std::to_string(rank) + " copies or reduces a bad region");
        return;
    }
    if (op.kind == OpKind::Reduce && contract_.kind != BlockContract::Kind::Reduce) {
        fail("rank " + std::to_string(rank) + " reduces in a collective that does not");
        return;
    }
    write(rank, op.to, Tokens(source->begin() + op.from.first, source->begin() + op.from.first + op.from.count),
          op.kind == OpKind::Reduce);
}

Heard Simulation::heard_when_posted(int rank, size_t round) const
{
    const Round &posted = schedules_[rank].rounds()[round];
    const long window = long(schedules_[rank].window(window_));
    const long finished = std::max<long>(posted.depends_on, long(round) - window);
    if (finished < 0) {
        Heard alone(heard_.size(), false);
        alone[size_t(rank)] = true;
        return alone;
    }
    return heard_after_[rank][size_t(finished)];
}

void Simulation::check_final()
{
    for (const auto &[pair, messages] : channels_) {
        if (!messages.empty()) {
            fail("a message from rank " + std::to_string(pair.first) + " to rank " +
                 std::to_string(pair.second) + " is never received");
        }
    }
    if (contract_.kind == BlockContract::Kind::Synchronize) {
        for (size_t rank = 0; rank < heard_.size(); ++rank) {
            for (size_t other = 0; other < heard_.size(); ++other) {
                if (!heard_[rank][other]) {
                    fail("rank " + std::to_string(rank) + " may leave before rank " + std::to_string(other) +
                         " has entered");
                    return;
                }
            }
        }
        return;
    }
    // A reduction's result is a sum: written once or several times, it must
    // end right; moved blocks must be written exactly once.
    const bool exactly_once = contract_.kind == BlockContract::Kind::Move;
    for (size_t rank = 0; rank < schedules_.size() && report_.error.empty(); ++rank) {
        const Tokens &received = buffers_[rank * 3 + HIER_BUF_RECV];
        for (size_t block = 0; block < received.size(); ++block) {
            const int64_t expected = contract_.expected_recv(int(rank), block);
            if (received[block] != expected || (exactly_once && deliveries_[rank][block] != 1)) {
                fail("rank " + std::to_string(rank) + " RECV block " + std::to_string(block) + " holds token " +
                     std::to_string(received[block]) + ", expected " + std::to_string(expected) +
                     " delivered once (delivered " + std::to_string(deliveries_[rank][block]) + " times)");
                break;
            }
        }
    }
}

SimulationReport Simulation::run()
{
    const int p = topology_.size();
    if (int(schedules_.size()) != p) {
        fail("expected one schedule per rank");
        return report_;
    }
    std::set<uint32_t> steps;
    for (int rank = 0; rank < p; ++rank) {
        const Schedule &schedule = schedules_[rank];
        Tokens &send = buffers_[size_t(rank) * 3 + HIER_BUF_SEND];
        send.resize(contract_.send_blocks(rank));
        for (size_t block = 0; block < send.size(); ++block) {
            send[block] = contract_.initial_send(rank, block);
        }
        buffers_[size_t(rank) * 3 + HIER_BUF_RECV].assign(contract_.recv_blocks(rank), -1);
        buffers_[size_t(rank) * 3 + HIER_BUF_TMP].assign(schedule.tmp_blocks(), -1);
        deliveries_[rank].assign(contract_.recv_blocks(rank), 0);
        report_.rounds = std::max(report_.rounds, schedule.rounds().size());
        for (size_t i = 0; i < schedule.rounds().size(); ++i) {
            steps.insert(schedule.rounds()[i].step);
            if (i > 0 && schedule.rounds()[i].step <= schedule.rounds()[i - 1].step) {
                fail("rank " + std::to_string(rank) + "'s step labels do not increase");
            }
        }
    }
    for (uint32_t step : steps) {
        PortLoad load(topology_.node_count());
        std::vector<const Round *> now(p, nullptr);
        for (int rank = 0; rank < p; ++rank) {
            const auto &rounds = schedules_[rank].rounds();
            if (next_round_[rank] < rounds.size() && rounds[next_round_[rank]].step == step) {
                now[rank] = &rounds[next_round_[rank]++];
            }
        }
        auto for_ops = [&](OpKind kind, auto &&action) {
            for (int rank = 0; rank < p; ++rank) {
                if (!now[rank]) {
                    continue;
                }
                const Op *ops = schedules_[rank].ops(*now[rank]);
                for (size_t i = 0; i < schedules_[rank].op_count(*now[rank]); ++i) {
                    if (ops[i].kind == kind) {
                        action(rank, ops[i]);
                    }
                }
            }
        };
        for_ops(OpKind::Send, [&](int rank, const Op &op) { send(rank, op, step, load); });
        for_ops(OpKind::Recv, [&](int rank, const Op &op) { receive(rank, op, step); });
        for (int rank = 0; rank < p; ++rank) {  // copies and reductions, in order
            if (now[rank]) {
                const Op *ops = schedules_[rank].ops(*now[rank]);
                for (size_t i = 0; i < schedules_[rank].op_count(*now[rank]); ++i) {
                    if (ops[i].kind == OpKind::Copy || ops[i].kind == OpKind::Reduce) {
                        copy_or_reduce(rank, ops[i]);
                    }
                }
            }
        }
        for (int rank = 0; rank < p && !heard_.empty(); ++rank) {
            if (now[rank]) {
                heard_after_[rank].push_back(heard_[rank]);
            }
        }
        if (std::any_of(load.out.begin(), load.out.end(), [](size_t n) { return n > 0; })) {
            ++report_.steps;
        }
        report_.inter_cluster_steps += load.backbone_used;
        if (!report_.error.empty()) {
            return report_;
        }
    }
    check_final();
    return report_;
}

} // namespace

SimulationReport simulate(const Topology &topology, const std::vector<Schedule> &schedules,
                          const BlockContract &contract, int window)
{
    return Simulation(topology, schedules, contract, window).run();
}

} // namespace hier
