/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The hypercube collectives (barrier, allreduce, allgather, alltoall) on
// every embedding, p = 1..64: simulated against their contracts and run byte
// for byte through the in-memory transport with several windows; their step
// counts and volume; broken variants caught; auto's choice; the C ABI.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "harness.h"
#include "capi_helpers.h"
#include "hier_core.h"
#include "hypercube.h"
#include "autoselect.h"
#include "registry.h"

namespace hier {
namespace {

struct Collective {
    hier_op_t op;
    Builder build;
};
const Collective kCollectives[] = {
    {HIER_OP_BARRIER, build_hypercube_barrier},
    {HIER_OP_ALLREDUCE, build_hypercube_allreduce},
    {HIER_OP_ALLGATHER, build_hypercube_allgather},
    {HIER_OP_ALLTOALL, build_hypercube_alltoall},
};

// p ranks on random nodes of up to largest_node ranks, with random pair
// costs in 1..20 (or locality's).
Topology costed_topology(int p, std::mt19937 &random, bool locality, int largest_node = 4)
{
    std::vector<int> node_of_rank;
    std::uniform_int_distribution<int> node_size(1, largest_node);
    for (int node = 0; int(node_of_rank.size()) < p; ++node) {
        node_of_rank.insert(node_of_rank.end(), size_t(std::min(node_size(random), p - int(node_of_rank.size()))),
                            node);
    }
    std::shuffle(node_of_rank.begin(), node_of_rank.end(), random);
    Topology topology(node_of_rank);
    if (!locality) {
        CostMatrix matrix;
        matrix.n = p;
        matrix.values.assign(size_t(p) * size_t(p), 0);
        std::uniform_int_distribution<int> cost(1, 20);
        for (int a = 0; a < p; ++a) {
            for (int b = a + 1; b < p; ++b) {
                matrix.values[size_t(a) * p + b] = matrix.values[size_t(b) * p + a] = cost(random);
            }
        }
        topology.set_costs(std::make_shared<Costs>(Costs::from_matrix(matrix)));
    }
    return topology;
}

int cube_dims(int p)
{
    int d = 0;
    while ((2 << d) <= p) {
        ++d;
    }
    return d;
}

TEST(Hypercube, EveryCollectiveEveryEmbeddingByteExactUpTo64)
{
    std::mt19937 random(2005);
    for (int p = 1; p <= 64; ++p) {
        const bool folded = (p & (p - 1)) != 0;
        for (int embedding = 0; embedding < embedding_id_count(); ++embedding) {
            const Topology topology = costed_topology(p, random, p % 3 == 0);
            const Plans plans(embedding);
            for (const Collective &collective : kCollectives) {
                SCOPED_TRACE(std::string(op_name(collective.op)) + " p " + std::to_string(p) + " " +
                             embedding_id_name(embedding));
                const auto schedules = test::build_all(collective.build, topology, plans);
                const SimulationReport report = test::simulate_op(collective.op, topology, schedules);
                ASSERT_EQ(report.error, "");
                // log2 of the cube's steps, and the two folding steps.
                if (p > 1) {
                    EXPECT_EQ(report.steps, size_t(cube_dims(p)) + (folded ? 2 : 0));
                }
                for (int window : test::kWindows) {
                    ASSERT_EQ(test::run_bytes(collective.op, topology, schedules, -1, 3, window), "")
                        << "window " << window;
                    ASSERT_EQ(test::simulate_op(collective.op, topology, schedules, -1, window).error, "")
                        << "window " << window;
                }
            }
        }
    }
}

// "log p rounds, half the data per round": on a power of two every rank
// sends p/2 blocks in each of log p steps, one message per step.
TEST(Hypercube, AlltoallSendsHalfItsBlocksPerStep)
{
    std::mt19937 random(3);
    for (int p : {2, 4, 8, 16, 32, 64}) {
        const Topology topology = costed_topology(p, random, false, 1);
        const auto schedules = test::build_all(build_hypercube_alltoall, topology);
        const SimulationReport report = test::simulate_op(HIER_OP_ALLTOALL, topology, schedules);
        ASSERT_EQ(report.error, "");
        const size_t d = size_t(cube_dims(p));
        EXPECT_EQ(report.intra_node_blocks + report.inter_node_blocks, size_t(p) * size_t(p / 2) * d);
        EXPECT_EQ(report.intra_node_messages + report.inter_node_messages, size_t(p) * d);
        EXPECT_EQ(report.max_port_load, 1u);
    }
}

// Ranks that disagree on the embedding (the glue's every-rank-the-same
// rule broken) meet the wrong partners: every checker must notice.
TEST(Hypercube, RanksDisagreeingOnTheEmbeddingAreCaught)
{
    std::mt19937 random(4);
    for (const Collective &collective : kCollectives) {
        const int p = 8;
        const Topology topology = costed_topology(p, random, false);
        const Plans one(embedding_id("blind"));
        const Plans other(embedding_id("eff"));
        ASSERT_NE(one.hypercube(topology).rank_at, other.hypercube(topology).rank_at);
        auto schedules = test::build_all(collective.build, topology, one);
        for (int rank = 0; rank < p; rank += 2) {
            schedules[rank] = collective.build(topology, other, rank, -1);
        }
        EXPECT_NE(test::simulate_op(collective.op, topology, schedules).error, "") << op_name(collective.op);
        if (collective.op != HIER_OP_BARRIER) {
            EXPECT_NE(test::run_bytes(collective.op, topology, schedules), "") << op_name(collective.op);
        }
    }
}

// A folded rank that leaves without waiting for its host's release, and an
// allgather that skips placing the gathered blocks: caught.
TEST(Hypercube, AnEarlyExitAndAMissingPlacementAreCaught)
{
    std::mt19937 random(5);
    const Topology topology = costed_topology(6, random, false);
    const Plans plans;
    const HypercubePlan &plan = plans.hypercube(topology);
    auto barrier = test::build_all(build_hypercube_barrier, topology, plans);
    int extra = 0;
    while (plan.host_of[extra] < 0) {
        ++extra;
    }
    ScheduleBuilder leaves_early(extra, 6);
    leaves_early.send(HypercubePlan::kFoldInStep, plan.host_of[extra], block(HIER_BUF_SEND, 0));
    barrier[extra] = leaves_early.build();
    const std::string error = test::simulate_op(HIER_OP_BARRIER, topology, barrier).error;
    EXPECT_NE(error, "");  // the host's release is never received, or the rank leaves early

    const Topology crossed({0, 1, 1, 0, 2, 3, 3, 2});  // not in rank order: gathered in TMP
    ASSERT_NE(Plans().hypercube(crossed).rank_at, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
    auto allgather = test::build_all(build_hypercube_allgather, crossed);
    ScheduleBuilder unplaced(0, 8);
    const Schedule &whole = allgather[0];
    for (const Round &round : whole.rounds()) {
        const Op *ops = whole.ops(round);
        for (size_t i = 0; i < whole.op_count(round); ++i) {
            const Op &op = ops[i];
            if (op.kind == OpKind::Send) {
                unplaced.send(round.step, op.peer, op.from);
            } else if (op.kind == OpKind::Recv) {
                unplaced.recv(round.step, op.peer, op.to);
            } else if (op.to.buffer != HIER_BUF_RECV) {
                unplaced.copy(round.step, op.from, op.to);
            }
        }
    }
    unplaced.reserve_tmp(whole.tmp_blocks());
    allgather[0] = unplaced.build();
    EXPECT_NE(test::simulate_op(HIER_OP_ALLGATHER, crossed, allgather).error, "");
    EXPECT_NE(test::run_bytes(HIER_OP_ALLGATHER, crossed, allgather), "");
}

const Algorithm *hypercube_row(hier_op_t op)
{
    for (const Algorithm *algorithm : algorithms_for(op)) {
        if (std::strcmp(algorithm->name, "hypercube") == 0) {
            return algorithm;
        }
    }
    return nullptr;
}

// A reason auto gives may be the plans' text: they must outlive the choice.
Choice choose(hier_op_t op, int requested, const Topology &topology, const Plans &plans, size_t block_bytes)
{
    return requested == HIER_ALG_AUTO ? choose_auto(op, topology, plans, block_bytes, 1, LinkCostSpec(), nullptr)
                                      : choose_requested(op, requested, topology);
}

TEST(Hypercube, AutoPicksItWhereTheEmbeddingPaysAndMessagesAreSmall)
{
    const Topology crossed({0, 1, 1, 0, 2, 3, 3, 2});
    const Topology even = Topology::from_node_sizes({8});
    const Plans crossed_plans, even_plans;
    for (hier_op_t op : {HIER_OP_BARRIER, HIER_OP_ALLREDUCE, HIER_OP_ALLGATHER, HIER_OP_ALLTOALL}) {
        ASSERT_NE(hypercube_row(op), nullptr) << op_name(op);
        if (op == HIER_OP_ALLTOALL) {
            EXPECT_EQ(hypercube_row(op)->auto_declines, nullptr);  // the time model's to pick, no rule
            continue;
        }
        const Choice chosen = choose(op, HIER_ALG_AUTO, crossed, crossed_plans, 8);
        ASSERT_EQ(chosen.algorithm, hypercube_row(op)) << op_name(op) << ": " << (chosen.reason ? chosen.reason : "");
        const Choice declined = choose(op, HIER_ALG_AUTO, even, even_plans, 8);
        EXPECT_EQ(declined.algorithm, nullptr);
        EXPECT_STREQ(declined.reason,
                     "costs too even: the blind embedding's calc_cost is 0% below blind's, auto wants 15%");
        // By name it runs anyway.
        EXPECT_EQ(choose(op, chosen.id, even, even_plans, 8).algorithm, hypercube_row(op));
    }
    // The rules' limits (auto applies them at the middle of each size class).
    const Algorithm *allreduce = hypercube_row(HIER_OP_ALLREDUCE);
    EXPECT_EQ(allreduce->auto_declines(crossed, crossed_plans, 16383, {}), nullptr);
    EXPECT_STREQ(allreduce->auto_declines(crossed, crossed_plans, 16384, {}),
                 "vector of 16 KiB or more: Open MPI's own allreduce moves less");
    const Algorithm *allgather = hypercube_row(HIER_OP_ALLGATHER);
    EXPECT_EQ(allgather->auto_declines(crossed, crossed_plans, size_t(1) << 20, {}), nullptr);  // no limit
    // The class [8 KiB, 16 KiB).
    EXPECT_EQ(choose(HIER_OP_ALLREDUCE, HIER_ALG_AUTO, crossed, crossed_plans, 12000).algorithm, allreduce);
    EXPECT_EQ(choose(HIER_OP_ALLREDUCE, HIER_ALG_AUTO, crossed, crossed_plans, 17000).algorithm, nullptr);
}

hier_comm_t *create(int size, int rank, const int *node_of_rank, const char *cost, const char *embedding,
                    char *error, size_t errlen)
{
    hier_comm_input_t input{};
    input.settings = hier_test::settings([&](hier_settings_input_t &in) {
        in.cost = cost;
        in.hypercube_embedding = embedding;
    });
    input.size = size;
    input.rank = rank;
    input.node_of_rank = node_of_rank;
    return hier_comm_create(&input, error, errlen, nullptr);
}

TEST(HypercubeCApi, SettingsThatDoNotParseGiveOneLine)
{
    const int nodes[] = {0, 1, 1, 0};
    char error[512];
    EXPECT_EQ(create(4, 0, nodes, "bogus", nullptr, error, sizeof error), nullptr);
    EXPECT_STREQ(error, "coll_hier_cost \"bogus\" is not a cost source; expected locality, probe or file:PATH");
    EXPECT_EQ(create(4, 0, nodes, nullptr, "bogus", error, sizeof error), nullptr);
    EXPECT_STREQ(error,
                 "coll_hier_hypercube_embedding \"bogus\" is not one of auto, blind, dim2, tsts, eff, refine");
    // Mistakes of the job, not of a communicator: the settings say so once,
    // when they are parsed, and a communicator's failure is marked reported.
    const auto problems = [](const char *cost, const char *embedding) {
        return hier_test::problems(hier_test::settings([&](hier_settings_input_t &in) {
            in.cost = cost;
            in.hypercube_embedding = embedding;
        }));
    };
    const std::string falling_back = "; falling back to Open MPI's own collectives\n";
    EXPECT_EQ(problems("bogus", "auto"),
              "coll_hier_cost \"bogus\" is not a cost source; expected locality, probe or file:PATH" + falling_back);
    EXPECT_EQ(problems("file:/nonexistent", nullptr),
              "coll_hier_cost \"file:/nonexistent\" cannot be read: No such file or directory" + falling_back);
    EXPECT_EQ(problems("locality", "tsts"), "");
    EXPECT_EQ(problems(nullptr, "x"),
              "coll_hier_hypercube_embedding \"x\" is not one of auto, blind, dim2, tsts, eff, refine" + falling_back);
    hier_comm_input_t input{};
    input.settings = hier_test::settings([](hier_settings_input_t &in) { in.cost = "bogus"; });
    input.size = 4;
    input.node_of_rank = nodes;
    hier_comm_failure_t failure{};
    EXPECT_EQ(hier_comm_create(&input, error, sizeof error, &failure), nullptr);
    EXPECT_STREQ(failure.reason, "invalid coll_hier_cost");
    EXPECT_EQ(failure.reported, 1);
    EXPECT_EQ(hier_embedding_count(), 6);
    EXPECT_STREQ(hier_embedding_name(5), "refine");
    EXPECT_EQ(hier_embedding_name(6), nullptr);
}

TEST(HypercubeCApi, TheVerboseDetailNamesTheEmbeddingAndItsCost)
{
    const int nodes[] = {0, 1, 1, 0};
    char error[512], reason[256];
    hier_comm_t *comm = create(4, 2, nodes, "locality", "eff", error, sizeof error);
    ASSERT_NE(comm, nullptr) << error;
    (void) reason;
    const hier_test::Decided decided = hier_test::decide(comm, HIER_OP_BARRIER, HIER_ALG_AUTO, -1, 0, 1);
    ASSERT_NE(decided.schedule, nullptr) << decided.reason;
    EXPECT_STREQ(hier_algorithm_name(HIER_OP_BARRIER, decided.chosen), "hypercube");
    EXPECT_EQ(decided.reason, "eff embedding, calc_cost 11, blind 20");
    EXPECT_EQ(decided.where, "size 4, 2 nodes");
    EXPECT_EQ(decided.predictions, "");  // verbose 1
    EXPECT_EQ(hier_test::decide(comm, HIER_OP_BARRIER, decided.chosen, -1, 0, 0).schedule, decided.schedule);
    hier_comm_destroy(comm);
}

TEST(Hypercube, AutoTakesBlindBeyondItsSearchLimit)
{
    // Beyond kAutoEmbeddingMaxRanks auto does not search (refine takes
    // seconds there): blind, whose gain is 0, so auto's rules decline.
    std::vector<int> node_of_rank;
    for (int rank = 0; rank < kAutoEmbeddingMaxRanks + 16; ++rank) {
        node_of_rank.push_back(rank / 16);
    }
    const HypercubePlan beyond = Plans(kEmbeddingAuto).hypercube(Topology(node_of_rank));
    EXPECT_STREQ(embedding_id_name(beyond.embedding), "blind");
    EXPECT_FALSE(beyond.too_even.empty());
    // Within it, auto searches: the placement of the test above, where it
    // finds better than rank order.
    const Topology searched({0, 1, 1, 0, 2, 3, 3, 2});
    EXPECT_STREQ(embedding_id_name(Plans(kEmbeddingAuto).hypercube(searched).embedding), "refine");
}

} // namespace
} // namespace hier
