/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The algorithm table, selection, and the C ABI the component uses.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "autoselect.h"
#include "capi_helpers.h"
#include "hier_core.h"
#include "registry.h"

namespace hier {
namespace {

TEST(Registry, AlltoallIdsAreAutoFallbackThenTheTable)
{
    const std::vector<const char *> alltoall = {"auto",  "fallback", "lg",  "lg_at_once", "factor",
                                                "edgecolor", "pairwise", "ring", "ring2", "mesh",
                                                "xor",       "hypercube", "lg_overlap", "node_lg"};
    // Alltoallv runs the alltoall rows whose regions it can map (alltoallv_id).
    const std::vector<const char *> alltoallv = {"auto",      "fallback",  "lg",  "lg_at_once", "factor",
                                                 "edgecolor", "pairwise", "xor", "lg_overlap", "node_lg"};
    for (const auto &[op, names] : {std::pair{HIER_OP_ALLTOALL, alltoall}, std::pair{HIER_OP_ALLTOALLV, alltoallv}}) {
        const int count = int(names.size());
        ASSERT_EQ(hier_algorithm_count(op), count);
        for (int id = 0; id < count; ++id) {
            EXPECT_STREQ(hier_algorithm_name(op, id), names[id]);
            EXPECT_NE(hier_algorithm_description(op, id), nullptr);
        }
        EXPECT_EQ(hier_algorithm_name(op, count), nullptr);
    }
    EXPECT_STREQ(hier_op_name(HIER_OP_ALLTOALL), "alltoall");
    EXPECT_STREQ(hier_op_name(HIER_OP_ALLTOALLV), "alltoallv");
}

// A row's id is what the MCA enum, rules files and MPI_T name it by: a
// changed id silently turns a site's rules and scripts to another
// algorithm. Every row's, pinned (a new row adds a line here).
TEST(Registry, EveryRowKeepsItsId)
{
    struct Pinned {
        hier_op_t op;
        const char *name;
        int id;
    };
    const Pinned pinned[] = {
        {HIER_OP_ALLTOALL, "lg", 2},         {HIER_OP_ALLTOALL, "lg_at_once", 3},
        {HIER_OP_ALLTOALL, "factor", 4},     {HIER_OP_ALLTOALL, "edgecolor", 5},
        {HIER_OP_ALLTOALL, "pairwise", 6},   {HIER_OP_ALLTOALL, "ring", 7},
        {HIER_OP_ALLTOALL, "ring2", 8},      {HIER_OP_ALLTOALL, "mesh", 9},
        {HIER_OP_ALLTOALL, "xor", 10},       {HIER_OP_ALLTOALL, "hypercube", 11},
        {HIER_OP_ALLTOALL, "lg_overlap", 12}, {HIER_OP_ALLTOALL, "node_lg", 13},
        {HIER_OP_ALLTOALLV, "lg", 2},        {HIER_OP_ALLTOALLV, "lg_at_once", 3},
        {HIER_OP_ALLTOALLV, "factor", 4},    {HIER_OP_ALLTOALLV, "edgecolor", 5},
        {HIER_OP_ALLTOALLV, "pairwise", 6},  {HIER_OP_ALLTOALLV, "xor", 7},
        {HIER_OP_ALLTOALLV, "lg_overlap", 8}, {HIER_OP_ALLTOALLV, "node_lg", 9},
        {HIER_OP_SCATTER, "opt", 2},         {HIER_OP_SCATTER, "sdf", 3},
        {HIER_OP_GATHER, "opt", 2},          {HIER_OP_GATHER, "sdf", 3},
        {HIER_OP_ALLGATHER, "hypercube", 2}, {HIER_OP_ALLREDUCE, "hypercube", 2},
        {HIER_OP_BARRIER, "hypercube", 2},
    };
    int rows = 0;
    for (int op = 0; op < HIER_OP_COUNT; ++op) {
        for (const Algorithm *row : algorithms_for(hier_op_t(op))) {
            ++rows;
            const int id = row->id_for(hier_op_t(op));
            bool found = false;
            for (const Pinned &p : pinned) {
                if (p.op == op && std::string(p.name) == row->name) {
                    EXPECT_EQ(id, p.id) << op_name(hier_op_t(op)) << " " << row->name;
                    found = true;
                }
            }
            EXPECT_TRUE(found) << op_name(hier_op_t(op)) << " " << row->name << " has no pinned id";
            EXPECT_EQ(algorithm_by_id(hier_op_t(op), id), row) << row->name;
            EXPECT_EQ(pick(hier_op_t(op), row).id, id) << row->name;
        }
        // The ids are 2, 3, ... without a gap: the MCA enum counts them.
        for (int id = 2; id < algorithm_id_count(hier_op_t(op)); ++id) {
            EXPECT_NE(algorithm_by_id(hier_op_t(op), id), nullptr) << op_name(hier_op_t(op)) << " " << id;
        }
    }
    EXPECT_EQ(rows, int(std::size(pinned)));
}

// Alltoallv has no block size every rank knows alike, so no time model:
// the rows' rules pick lg_at_once across clusters and nothing else.
TEST(Registry, AutoForAlltoallvTakesLgAtOnceAcrossClustersOnly)
{
    const LinkCostSpec unknown;
    const Choice two = choose_auto(HIER_OP_ALLTOALLV, Topology({0, 1, 2}, {0, 1, 1}), Plans(), 0, 1, unknown, nullptr);
    ASSERT_NE(two.algorithm, nullptr);
    EXPECT_STREQ(two.algorithm->name, "lg_at_once");
    const Choice three =
        choose_auto(HIER_OP_ALLTOALLV, Topology({0, 1, 2}, {0, 1, 2}), Plans(), 0, 1, unknown, nullptr);
    ASSERT_NE(three.algorithm, nullptr);
    EXPECT_STREQ(three.algorithm->name, "lg_at_once");
    const Choice smp = choose_auto(HIER_OP_ALLTOALLV, Topology::from_node_sizes({4, 3, 2, 1}), Plans(), 0, 1, unknown,
                                   nullptr);
    EXPECT_EQ(smp.algorithm, nullptr);
}

TEST(Registry, NamedAlgorithmRunsEvenOnOneNode)
{
    const Choice choice = choose_requested(HIER_OP_ALLTOALL, 6, Topology::from_node_sizes({8}));
    ASSERT_NE(choice.algorithm, nullptr);
    EXPECT_STREQ(choice.algorithm->name, "pairwise");
    EXPECT_STREQ(choose_requested(HIER_OP_ALLTOALL, HIER_ALG_FALLBACK, Topology::from_node_sizes({2, 2})).reason,
                 "requested");
    const Choice unfit = choose_requested(HIER_OP_ALLTOALL, 2, Topology::from_node_sizes({2, 2}));
    EXPECT_EQ(unfit.algorithm, nullptr);
    ASSERT_NE(unfit.unfit, nullptr);
    EXPECT_STREQ(unfit.unfit->name, "lg");
    const Choice odd = choose_requested(HIER_OP_ALLTOALL, 10, Topology::from_node_sizes({3, 3}));
    ASSERT_NE(odd.unfit, nullptr);
    EXPECT_STREQ(odd.unfit->name, "xor");
}

hier_comm_t *create(int size, int rank, const int *node_of_rank, const int *cluster_of_rank,
                    const char *cluster_map, char *error, size_t errlen, const char *link_costs = nullptr)
{
    hier_comm_input_t input{};
    input.settings = hier_test::settings([&](hier_settings_input_t &in) {
        in.cluster_map = cluster_map;
        in.link_costs = link_costs;
    });
    input.size = size;
    input.rank = rank;
    input.node_of_rank = node_of_rank;
    input.cluster_of_rank = cluster_of_rank;
    input.window = 1;
    return hier_comm_create(&input, error, errlen, nullptr);
}

// An alltoall selection at verbose 2 with 128-character reason and
// 1024-character line buffers; *code: its reason code.
const hier_schedule_t *select(hier_comm_t *comm, int requested, size_t block_bytes, int *chosen, char *reason,
                              char *line, hier_reason_t *code = nullptr)
{
    const hier_test::Decided decided = hier_test::decide(comm, HIER_OP_ALLTOALL, requested, -1, block_bytes);
    *chosen = decided.chosen;
    std::snprintf(reason, 128, "%s", decided.reason.c_str());
    std::snprintf(line, 1024, "%s", decided.predictions.c_str());
    if (code) {
        *code = decided.code;
    }
    return decided.schedule;
}

TEST(CApi, SelectCachesOneSchedulePerAlgorithm)
{
    const int node_of_rank[] = {0, 0, 0, 1, 1, 2};
    char error[256];
    hier_comm_t *comm = create(6, 4, node_of_rank, nullptr, nullptr, error, sizeof error);
    ASSERT_NE(comm, nullptr);
    EXPECT_EQ(hier_comm_node_count(comm), 3);
    int chosen = -1;
    char reason[128] = "";
    char line[1024] = "";
    const hier_schedule_t *first = select(comm, 4, 8, &chosen, reason, line);
    ASSERT_NE(first, nullptr);
    EXPECT_EQ(chosen, 4);
    EXPECT_STREQ(hier_algorithm_name(HIER_OP_ALLTOALL, chosen), "factor");
    EXPECT_EQ(select(comm, 4, 4096, &chosen, reason, line), first);
    EXPECT_EQ(hier_schedule_tmp_blocks(first), 0u);
    EXPECT_EQ(select(comm, HIER_ALG_FALLBACK, 8, &chosen, reason, line), nullptr);
    EXPECT_EQ(chosen, HIER_ALG_FALLBACK);
    EXPECT_STREQ(reason, "requested");
    EXPECT_STREQ(line, "");
    hier_reason_t code = HIER_REASON_RUNS;
    EXPECT_EQ(select(comm, 2, 8, &chosen, reason, line, &code), nullptr);
    EXPECT_STREQ(reason, "lg does not apply: needs two clusters or more (coll_hier_cluster_map)");
    EXPECT_EQ(code, HIER_REASON_UNFIT);
    select(comm, 4, 8, &chosen, reason, line, &code);
    EXPECT_EQ(code, HIER_REASON_RUNS);
    hier_comm_destroy(comm);
}

TEST(CApi, ClusterMapGroupsNodesInOrder)
{
    const int node_of_rank[] = {7, 7, 3, 9, 3, 5};  // nodes, in order: 7, 3, 9, 5
    char error[256];
    hier_comm_t *comm = create(6, 0, node_of_rank, nullptr, "1,3", error, sizeof error);
    ASSERT_NE(comm, nullptr) << error;
    EXPECT_EQ(hier_comm_cluster_count(comm), 2);
    int chosen = -1;
    char reason[128];
    char line[1024];
    EXPECT_NE(select(comm, 2, 8, &chosen, reason, line), nullptr);
    EXPECT_STREQ(hier_algorithm_name(HIER_OP_ALLTOALL, chosen), "lg");
    hier_comm_destroy(comm);

    EXPECT_EQ(create(6, 0, node_of_rank, nullptr, "2,3", error, sizeof error), nullptr);
    EXPECT_NE(std::strstr(error, "coll_hier_cluster_map \"2,3\" covers 5 nodes but there are 4"), nullptr) << error;
    EXPECT_EQ(create(6, 0, node_of_rank, nullptr, "a", error, sizeof error), nullptr);
    EXPECT_NE(std::strstr(error, "expected cluster sizes in nodes"), nullptr) << error;

    // Clusters given per rank (a node map's, inherited) win over the map.
    const int cluster_of_rank[] = {4, 4, 8, 8, 8, 8};
    comm = create(6, 0, node_of_rank, cluster_of_rank, "9", error, sizeof error);
    ASSERT_NE(comm, nullptr) << error;
    EXPECT_EQ(hier_comm_cluster_count(comm), 2);
    hier_comm_destroy(comm);

}

TEST(CApi, AutoDecidesOncePerSizeClassAndSaysWhatItCompared)
{
    // 16 + 16 one-process nodes across a wide-area backbone, 96-byte blocks:
    // Open MPI's tuned takes modified Bruck (log p rounds, several across the
    // backbone), lg_overlap crosses it once (as lg_at_once, predicted 2 %
    // slower).
    std::vector<int> node_of_rank(32), cluster_of_rank(32);
    for (int rank = 0; rank < 32; ++rank) {
        node_of_rank[rank] = rank;
        cluster_of_rank[rank] = rank < 16 ? 0 : 1;
    }
    char error[256], reason[128] = "", line[1024] = "";
    hier_comm_t *comm = create(32, 5, node_of_rank.data(), cluster_of_rank.data(), nullptr, error, sizeof error,
                               "network=50us:1Gbit/s,backbone=5ms:100Mbit/s");
    ASSERT_NE(comm, nullptr) << error;
    int chosen = -1;
    const hier_schedule_t *picked = select(comm, HIER_ALG_AUTO, 96, &chosen, reason, line);
    ASSERT_NE(picked, nullptr) << reason;
    EXPECT_STREQ(hier_algorithm_name(HIER_OP_ALLTOALL, chosen), "lg_overlap");
    EXPECT_NE(std::strstr(line, "open-mpi(bruck)"), nullptr) << line;
    EXPECT_NE(std::strstr(line, "picks lg_overlap"), nullptr) << line;
    EXPECT_EQ(std::strchr(line, '\n'), nullptr);
    // Same class (64..127 bytes): the cached decision, no line.
    EXPECT_EQ(select(comm, HIER_ALG_AUTO, 127, &chosen, reason, line), picked);
    EXPECT_STREQ(line, "");
    // Another class: decided anew (tuned takes linear at 2 KiB).
    select(comm, HIER_ALG_AUTO, 2048, &chosen, reason, line);
    EXPECT_NE(std::strstr(line, "open-mpi(linear"), nullptr) << line;
    hier_comm_destroy(comm);

    // One node: the fallback, without running the model.
    const int one_node[] = {0, 0, 0, 0};
    comm = create(4, 0, one_node, nullptr, nullptr, error, sizeof error);
    ASSERT_NE(comm, nullptr);
    EXPECT_EQ(select(comm, HIER_ALG_AUTO, 64, &chosen, reason, line), nullptr);
    EXPECT_STREQ(reason, "all ranks on one node");
    EXPECT_STREQ(line, "model not run: all ranks on one node");
    hier_comm_destroy(comm);
}

TEST(CApi, RulesDecideAutoPerMessageSizeWithTheirWindow)
{
    // Alltoall on 10 ranks: factor below 1000 bytes in all (block * 10),
    // edgecolor with window 4 from there, auto again from 100000; the
    // algorithm asked for by name ignores the rules.
    const std::string path = ::testing::TempDir() + "hier-rules-capi.txt";
    {
        std::FILE *file = std::fopen(path.c_str(), "w");
        ASSERT_NE(file, nullptr);
        std::fputs("rule-file-version-2\n1\n3\n1\n1\n3\n0 factor 0 0\n1000 edgecolor 0 0 4\n100000 auto 0 0\n", file);
        std::fclose(file);
    }
    char error[512], reason[128];
    const hier_settings_t *settings =
        hier_test::settings([&](hier_settings_input_t &in) { in.dynamic_rules = path.c_str(); });
    long long hash;
    ASSERT_EQ(hier_settings_rules(settings, &hash), 1);
    ASSERT_GE(hash, 0) << hier_test::problems(settings);
    const int node_of_rank[] = {0, 0, 0, 0, 1, 1, 1, 2, 2, 3};
    hier_comm_input_t input{};
    input.settings = settings;
    input.size = 10;
    input.node_of_rank = node_of_rank;
    input.window = 1;
    input.rules_agreed = 1;
    hier_comm_t *comm = hier_comm_create(&input, error, sizeof error, nullptr);
    ASSERT_NE(comm, nullptr) << error;
    const int factor = 4, edgecolor = 5, pairwise = 6;
    int chosen = -1, window = -1;
    auto select_at = [&](int requested, size_t block_bytes) {
        const hier_test::Decided decided = hier_test::decide(comm, HIER_OP_ALLTOALL, requested, -1, block_bytes);
        chosen = decided.chosen;
        window = decided.window;
        std::snprintf(reason, sizeof reason, "%s", decided.reason.c_str());
        return decided.schedule;
    };
    EXPECT_NE(select_at(HIER_ALG_AUTO, 99), nullptr);
    EXPECT_EQ(chosen, factor);
    EXPECT_EQ(window, 1);
    EXPECT_STREQ(reason, "by coll_hier_dynamic_rules");
    EXPECT_NE(select_at(HIER_ALG_AUTO, 100), nullptr);  // same size class as 99, another rule
    EXPECT_EQ(chosen, edgecolor);
    EXPECT_EQ(window, 4);
    select_at(HIER_ALG_AUTO, 10000);  // auto: the model decides
    EXPECT_EQ(window, 1);
    EXPECT_STRNE(reason, "by coll_hier_dynamic_rules");
    EXPECT_NE(select_at(pairwise, 100), nullptr);
    EXPECT_EQ(chosen, pairwise);
    EXPECT_EQ(window, 1);
    hier_comm_destroy(comm);
    // Rules the ranks did not agree on are not used.
    input.rules_agreed = 0;
    comm = hier_comm_create(&input, error, sizeof error, nullptr);
    ASSERT_NE(comm, nullptr) << error;
    select_at(HIER_ALG_AUTO, 99);
    EXPECT_STRNE(reason, "by coll_hier_dynamic_rules");
    hier_comm_destroy(comm);
    std::remove(path.c_str());
}

TEST(CApi, RulesFileErrorsNameTheParameterAndLine)
{
    const hier_settings_t *settings =
        hier_test::settings([](hier_settings_input_t &in) { in.dynamic_rules = "/nonexistent/hier-rules"; });
    long long hash;
    EXPECT_EQ(hier_settings_rules(settings, &hash), 1);
    EXPECT_EQ(hash, -1);
    const std::string lines = hier_test::problems(settings);
    EXPECT_EQ(lines.rfind("coll_hier_dynamic_rules /nonexistent/hier-rules: cannot be read", 0), 0u) << lines;
    EXPECT_NE(lines.find("; auto decides\n"), std::string::npos) << lines;
}

// 3 + 6 one-process nodes, costs unknown, 64 KiB blocks: no row wins on
// every machine, the LG rows tie with Open MPI's on some (autoselect). Rank 0
// of it, measuring 3 calls a row.
hier_comm_input_t model_cannot_tell()
{
    static const int node_of_rank[] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    hier_comm_input_t input{};
    input.settings = hier_test::settings([](hier_settings_input_t &in) {
        in.cluster_map = "3,6";
        in.auto_trial_calls = 3;
    });
    input.size = 9;
    input.rank = 0;
    input.node_of_rank = node_of_rank;
    input.window = 1;
    return input;
}

TEST(CApi, AutoMeasuresWhereTheModelCannotTellAndKeepsTheFastest)
{
    hier_comm_input_t input = model_cannot_tell();
    char error[256], reason[256], line[1024];
    hier_comm_t *comm = hier_comm_create(&input, error, sizeof error, nullptr);
    ASSERT_NE(comm, nullptr) << error;
    auto decided = [&](const hier_test::Decided &decision, int *chosen, int *trial_call) {
        *chosen = decision.chosen;
        *trial_call = decision.trial_call;
        std::snprintf(reason, sizeof reason, "%s", decision.reason.c_str());
        std::snprintf(line, sizeof line, "%s", decision.predictions.c_str());
        return decision.schedule;
    };
    auto select = [&](int *chosen, int *trial_call, size_t block_bytes = 65536) {
        return decided(hier_test::decide(comm, HIER_OP_ALLTOALL, HIER_ALG_AUTO, -1, block_bytes), chosen, trial_call);
    };
    auto conclude = [&](int *chosen) {
        hier_decision_t out;
        const int concluded = hier_comm_trial_conclude(comm, HIER_OP_ALLTOALL, 65536, &out);
        const hier_test::Decided decision = hier_test::explained(comm, HIER_OP_ALLTOALL, out, 2);
        *chosen = decision.chosen;
        std::snprintf(reason, sizeof reason, "%s", decision.reason.c_str());
        std::snprintf(line, sizeof line, "%s", decision.predictions.c_str());
        return concluded;
    };
    // A trial's call, recorded: whether the ranks must now conclude.
    auto record = [&](int call, double seconds) {
        return hier_comm_trial_record(comm, HIER_OP_ALLTOALL, 65536, call, seconds);
    };
    int chosen = -1, trial_call = -1;
    EXPECT_EQ(select(&chosen, &trial_call), nullptr);
    EXPECT_EQ(trial_call, 0);
    EXPECT_NE(std::strstr(line, "; picks fallback, or lg_overlap, "), nullptr) << line;
    EXPECT_NE(std::strstr(reason, "measuring it against lg_overlap, "), nullptr) << reason;
    // Open MPI's and 3 rows, one call each to warm up, then 3 each: 16
    // calls. The first cycle warms up (1 s a call, not counted); then each
    // call takes 0.1 s, but those of the row of call 2 (the second), 0.08 s.
    const int calls = 16, contenders = 4;
    EXPECT_EQ(record(0, 1), 0);
    int second_row = -1;
    for (int call = 1; call < calls; ++call) {
        const hier_schedule_t *schedule = select(&chosen, &trial_call);
        EXPECT_EQ(trial_call, call);
        EXPECT_STREQ(line, "");
        EXPECT_EQ(schedule == nullptr, chosen == HIER_ALG_FALLBACK) << call;
        second_row = call == 2 ? chosen : second_row;
        EXPECT_EQ(record(call, call < contenders ? 1 : chosen == second_row ? 0.08 : 0.10), call + 1 == calls);
    }
    EXPECT_EQ(conclude(&chosen), HIER_TRIAL_CONCLUDED);
    EXPECT_EQ(chosen, second_row);
    EXPECT_NE(std::strstr(line, "measured over 3 calls each"), nullptr) << line;
    // Decided: the same row from now on, for the whole size class, no trial.
    EXPECT_NE(select(&chosen, &trial_call), nullptr);
    EXPECT_EQ(trial_call, -1);
    EXPECT_EQ(chosen, second_row);
    EXPECT_EQ(select(&chosen, &trial_call, 100000) != nullptr, true);
    EXPECT_EQ(trial_call, -1);
    hier_comm_destroy(comm);

    // Ratios whose interval holds 1: another round. Open MPI's 0.10 s three
    // times, the second row's 0.08, 0.12 and 0.09 (ratios 0.8, 1.2 and 0.9:
    // their range holds 1), the others' 0.2; then Open MPI's 0.12 and the
    // second row's 0.06 three times (0.5): over 6, median 0.65, interval
    // (the 2nd to the 5th) 0.5 to 0.9, decided.
    comm = hier_comm_create(&input, error, sizeof error, nullptr);
    ASSERT_NE(comm, nullptr) << error;
    const double open_mpi[] = {0.10, 0.10, 0.10, 0.12, 0.12, 0.12};
    const double second_row_times[] = {0.08, 0.12, 0.09, 0.06, 0.06, 0.06};
    int open_mpi_calls = 0, second_row_calls = 0;
    for (int round = 0, call = 0; round < 2; ++round) {
        for (const int end = round == 0 ? 16 : 28; call < end; ++call) {
            select(&chosen, &trial_call);
            ASSERT_EQ(trial_call, call);
            second_row = call == 2 ? chosen : second_row;
            const double seconds = call < contenders               ? 1
                                   : chosen == HIER_ALG_FALLBACK ? open_mpi[open_mpi_calls++]
                                   : chosen == second_row        ? second_row_times[second_row_calls++]
                                                                 : 0.2;
            EXPECT_EQ(record(call, seconds), call + 1 == end);
        }
        const int concluded = conclude(&chosen);
        EXPECT_EQ(concluded, round);
        EXPECT_NE(std::strstr(line, round == 0 ? "3 more calls each" : "measured over 6 calls each"), nullptr)
            << line;
    }
    EXPECT_EQ(chosen, second_row);
    hier_comm_destroy(comm);

    // Measuring off: the model's choice at once.
    input.settings = hier_test::settings([](hier_settings_input_t &in) { in.cluster_map = "3,6"; });
    comm = hier_comm_create(&input, error, sizeof error, nullptr);
    ASSERT_NE(comm, nullptr) << error;
    EXPECT_EQ(select(&chosen, &trial_call), nullptr);
    EXPECT_EQ(trial_call, -1);
    EXPECT_STREQ(reason, "no hier algorithm predicted 20 % faster than Open MPI's");
    // No trial runs: nothing to record, and concluding keeps the class's choice.
    EXPECT_EQ(hier_comm_trial_record(comm, HIER_OP_ALLTOALL, 65536, 0, 1.0), 0);
    hier_decision_t none;
    EXPECT_EQ(hier_comm_trial_conclude(comm, HIER_OP_ALLTOALL, 65536, &none), HIER_TRIAL_CONCLUDED);
    EXPECT_EQ(none.chosen, HIER_ALG_FALLBACK);
    EXPECT_EQ(none.reason, HIER_REASON_FALLBACK);
    hier_comm_destroy(comm);
}

// A nonblocking call (hier_comm_decide's nonblocking) may not communicate:
// auto decides its class by the model alone, without the agreement the
// glue lends and without a trial; and during a blocking trial it takes the
// model's choice without taking a call of the trial.
TEST(CApi, NonblockingCallsDecideWithoutCommunicating)
{
    int agreements = 0;
    hier_comm_input_t input = model_cannot_tell();
    input.agree_max = [](void *ctx, double *, int) {
        ++*static_cast<int *>(ctx);
        return 0;
    };
    input.agree_ctx = &agreements;
    char error[256];
    const auto decide = [](hier_comm_t *comm, size_t block_bytes, int nonblocking) {
        return hier_test::decide(comm, HIER_OP_ALLTOALL, HIER_ALG_AUTO, -1, block_bytes, 2, nullptr, nonblocking);
    };

    // Nonblocking first: the model's pick, no trial, no agreement; the class
    // is then decided for the blocking calls too.
    hier_comm_t *first = hier_comm_create(&input, error, sizeof error, nullptr);
    ASSERT_NE(first, nullptr) << error;
    const hier_test::Decided nonblocking = decide(first, 65536, 1);
    EXPECT_EQ(nonblocking.trial_call, -1);
    EXPECT_EQ(nonblocking.chosen, HIER_ALG_FALLBACK);
    EXPECT_NE(nonblocking.predictions.find("; picks fallback, or lg_overlap, "), std::string::npos)
        << nonblocking.predictions;
    EXPECT_EQ(agreements, 0);
    const hier_test::Decided blocking = decide(first, 65536, 0);
    EXPECT_EQ(blocking.trial_call, -1);
    EXPECT_EQ(blocking.chosen, nonblocking.chosen);
    EXPECT_EQ(agreements, 0);
    hier_comm_destroy(first);

    // Blocking first (one rank alone: no agreement, which would leave the
    // other ranks' part of the model empty here): a trial; a nonblocking
    // call between its calls takes the model's pick and leaves the trial's
    // next call to the next blocking one.
    input.agree_max = nullptr;
    hier_comm_t *second = hier_comm_create(&input, error, sizeof error, nullptr);
    ASSERT_NE(second, nullptr) << error;
    EXPECT_EQ(decide(second, 65536, 0).trial_call, 0);
    const hier_test::Decided between = decide(second, 65536, 1);
    EXPECT_EQ(between.trial_call, -1);
    EXPECT_EQ(between.chosen, HIER_ALG_FALLBACK);
    EXPECT_EQ(decide(second, 65536, 0).trial_call, 1);
    hier_comm_destroy(second);
}

TEST(CApi, ProbedLatencySplitsTheNodesIntoClusters)
{
    // Nodes 0-2 and 3-8: 20 us apart inside a cluster, 200 us across.
    const int node_of_rank[] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    std::vector<double> latency(81);
    for (int a = 0; a < 9; ++a) {
        for (int b = 0; b < 9; ++b) {
            latency[a * 9 + b] = a == b ? 0 : (a < 3) != (b < 3) ? 200e-6 : 20e-6;
        }
    }
    hier_comm_input_t input{};
    input.settings = hier_test::settings([](hier_settings_input_t &in) { in.cluster_map = "probe"; });
    input.size = 9;
    input.node_of_rank = node_of_rank;
    input.node_latency = latency.data();
    char error[256];
    hier_comm_t *comm = hier_comm_create(&input, error, sizeof error, nullptr);
    ASSERT_NE(comm, nullptr) << error;
    EXPECT_EQ(hier_comm_cluster_count(comm), 2);
    hier_comm_destroy(comm);
    input.node_latency = nullptr;
    EXPECT_EQ(hier_comm_create(&input, error, sizeof error, nullptr), nullptr);
    EXPECT_NE(std::strstr(error, "the latency probe did not run"), nullptr) << error;
}

TEST(CApi, LinkCostsAreCheckedInOneLine)
{
    char error[512];
    const auto link_costs = [](const char *value) {
        return hier_test::problems(hier_test::settings([&](hier_settings_input_t &in) {
            in.link_costs = value;
            in.in_use = 0;  // said whether or not hier is in use
        }));
    };
    EXPECT_EQ(link_costs(""), "");
    EXPECT_EQ(link_costs(nullptr), "");
    EXPECT_EQ(link_costs("node=1us:40Gbit/s,network=30us:200Mbit/s,backbone=5ms:100Mbit/s"), "");
    const std::string line = link_costs("network=30us");
    EXPECT_EQ(line.find("coll_hier_link_costs \"network=30us\""), 0u) << line;
    EXPECT_NE(line.find("expected CLASS=LATENCY:BANDWIDTH[:OVERHEAD]"), std::string::npos) << line;
    EXPECT_EQ(line.find('\n'), line.size() - 1);
    EXPECT_NE(line.find("; using unknown costs\n"), std::string::npos) << line;
    // A bad value given to a communicator counts as unknown costs.
    const int nodes[] = {0, 1};
    hier_comm_t *comm = create(2, 0, nodes, nullptr, nullptr, error, sizeof error, "bogus");
    ASSERT_NE(comm, nullptr);
    hier_comm_destroy(comm);
}

TEST(CApi, NodeMapIsParsedOnceAgainstTheJob)
{
    const auto node_map = [](const char *value) {
        return hier_test::settings([&](hier_settings_input_t &in) {
            in.node_map = value;
            in.world_size = 10;
        });
    };
    const hier_settings_t *settings = node_map("4,3,2,1");
    int node = -1;
    EXPECT_EQ(hier_settings_node_map(settings, 9, &node), 1);
    EXPECT_EQ(node, 3);
    EXPECT_EQ(hier_settings_unusable(settings), nullptr);
    settings = node_map("4,3");
    EXPECT_EQ(hier_settings_node_map(settings, 9, &node), 0);
    EXPECT_STREQ(hier_settings_unusable(settings), "invalid coll_hier_node_map or coll_hier_cluster_map");
    EXPECT_EQ(hier_test::problems(settings), "coll_hier_node_map \"4,3\" covers 7 ranks but there are 10; expected "
                                             "node sizes for consecutive ranks, e.g. \"4,3,2,1\" (a node's sockets "
                                             "joined by +: \"2+2,3,2,1\"); falling back to Open MPI's own "
                                             "collectives\n");
}

} // namespace
} // namespace hier
