/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The settings parsed once per process (core/settings.*) and the
// per-communicator class built from them (core/communicator.*), through
// the C face the glue uses.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "capi_helpers.h"
#include "communicator.h"
#include "hier_core.h"

namespace {

using hier_test::problems;
using hier_test::settings;

hier_comm_t *create(const hier_settings_t *with, const std::vector<int> &nodes, std::string *error,
                    hier_comm_failure_t *failure = nullptr)
{
    hier_comm_input_t input{};
    input.settings = with;
    input.size = int(nodes.size());
    input.node_of_rank = nodes.data();
    input.window = 1;
    char line[512];
    hier_comm_t *comm = hier_comm_create(&input, line, sizeof line, failure);
    *error = line;
    return comm;
}

TEST(Settings, OnlyLinkCostsAndBackbonePiecesAreReadWhenHierIsNotInUse)
{
    const hier_settings_t *unused = settings([](hier_settings_input_t &in) {
        in.in_use = 0;
        in.node_map = "bogus";
        in.cost = "bogus";
        in.link_costs = "bogus";
        in.backbone_piece = -5;
    });
    int in_use_only = -1;
    ASSERT_NE(hier_settings_problem(unused, 0, &in_use_only), nullptr);
    EXPECT_EQ(in_use_only, 0);
    EXPECT_EQ(std::string(hier_settings_problem(unused, 1, &in_use_only)),
              "coll_hier_backbone_piece -5 is not -1 (whole messages), 0 (under the TCP eager limit) or a byte "
              "count; using 0");
    EXPECT_EQ(hier_settings_problem(unused, 2, &in_use_only), nullptr);
    EXPECT_EQ(hier_settings_unusable(unused), nullptr);
}

TEST(Settings, BackbonePiecesComeFromTheEagerLimitUnlessGiven)
{
    const auto piece = [](int value, size_t eager_limit) {
        return hier_settings_backbone_piece(settings([&](hier_settings_input_t &in) {
            in.backbone_piece = value;
            in.tcp_eager_limit = eager_limit;
        }));
    };
    EXPECT_EQ(piece(0, 65536), 64512u);
    EXPECT_EQ(piece(-5, 65536), 64512u);  // reported, taken as 0
    EXPECT_EQ(piece(0, 0), 32768u);
    EXPECT_EQ(piece(-1, 65536), 0u);
    EXPECT_EQ(piece(700, 65536), 700u);
}

TEST(Settings, ClusterCountsAreParsedOnceAndFittedToEachCommunicator)
{
    // Without a node map, counts apply to each communicator's nodes.
    const hier_settings_t *counts = settings([](hier_settings_input_t &in) { in.cluster_map = "1,3"; });
    EXPECT_EQ(problems(counts), "");
    std::string error;
    hier_comm_t *comm = create(counts, {7, 7, 3, 9, 3, 5}, &error);
    ASSERT_NE(comm, nullptr) << error;
    EXPECT_EQ(hier_comm_cluster_count(comm), 2);
    EXPECT_EQ(hier_comm_cluster_of(comm, 2), 1);
    hier_comm_destroy(comm);
    hier_comm_failure_t failure{};
    EXPECT_EQ(create(counts, {0, 1, 2}, &error, &failure), nullptr);
    EXPECT_EQ(error.find("coll_hier_cluster_map \"1,3\" covers 4 nodes but there are 3; expected"), 0u) << error;
    EXPECT_STREQ(failure.reason, "invalid coll_hier_cluster_map");
    EXPECT_EQ(failure.reported, 0);  // the communicator's own: the glue says it

    // Counts that do not parse fail every communicator, said once.
    const hier_settings_t *bad = settings([](hier_settings_input_t &in) { in.cluster_map = "3,x"; });
    EXPECT_STREQ(hier_settings_unusable(bad), "invalid coll_hier_cluster_map");
    EXPECT_EQ(problems(bad).find("coll_hier_cluster_map \"3,x\" has \"x\", which is not a positive integer"), 0u)
        << problems(bad);
    EXPECT_EQ(create(bad, {0, 1}, &error, &failure), nullptr);
    EXPECT_EQ(failure.reported, 1);
}

TEST(Settings, WithANodeMapCountsAreTheJobsAndEveryCommunicatorInheritsThem)
{
    // Nodes 0..3 of sizes 2, 1, 2, 1 over 6 ranks; clusters {0, 1} and {2, 3}.
    const auto with = [](const char *clusters) {
        return settings([&](hier_settings_input_t &in) {
            in.node_map = "2,1,2,1";
            in.cluster_map = clusters;
            in.world_size = 6;
        });
    };
    const hier_settings_t *mapped = with("2,2");
    EXPECT_EQ(problems(mapped), "");
    int node = -1;
    ASSERT_EQ(hier_settings_node_map(mapped, 4, &node), 1);
    EXPECT_EQ(node, 2);
    // A split of ranks 2, 3 and 5 (nodes 1, 2, 3): clusters by the job's nodes.
    std::string error;
    hier_comm_t *comm = create(mapped, {1, 2, 3}, &error);
    ASSERT_NE(comm, nullptr) << error;
    EXPECT_EQ(hier_comm_cluster_count(comm), 2);
    EXPECT_EQ(hier_comm_cluster_of(comm, 0), 0);
    EXPECT_EQ(hier_comm_cluster_of(comm, 1), 1);
    hier_comm_destroy(comm);

    const hier_settings_t *misfit = with("2,3");
    EXPECT_STREQ(hier_settings_unusable(misfit), "invalid coll_hier_node_map or coll_hier_cluster_map");
    EXPECT_EQ(problems(misfit),
              "coll_hier_cluster_map \"2,3\" covers 5 nodes but there are 4; expected cluster sizes in nodes, nodes "
              "in the order of their lowest rank, e.g. \"3,6\"; or host patterns, e.g. "
              "\"nancy:cvn[1-3];rennes:cvn[4-9]\"; or \"probe\"; falling back to Open MPI's own collectives\n");
    // One line for counts that do not parse either.
    const std::string lines = problems(with("x"));
    EXPECT_EQ(lines.find('\n'), lines.size() - 1) << lines;
}

TEST(Settings, TheTorusDimsApplyToCommunicatorsTheyCover)
{
    const hier_settings_t *torus = settings([](hier_settings_input_t &in) {
        in.torus_dims = "2x3";
        in.world_size = 6;
    });
    std::string error;
    hier_comm_t *whole = create(torus, {0, 1, 2, 3, 4, 5}, &error);
    ASSERT_NE(whole, nullptr) << error;
    EXPECT_EQ(hier_test::decide(whole, HIER_OP_BARRIER, HIER_ALG_FALLBACK, -1, 0, 1).where,
              "size 6, 6 nodes, torus 2x3");
    hier_comm_destroy(whole);
    hier_comm_t *part = create(torus, {0, 1, 2}, &error);
    ASSERT_NE(part, nullptr) << error;
    EXPECT_EQ(hier_test::decide(part, HIER_OP_BARRIER, HIER_ALG_FALLBACK, -1, 0, 1).where, "size 3, 3 nodes");
    hier_comm_destroy(part);
}

TEST(Settings, TheCostFileIsReadOnce)
{
    const std::string path = ::testing::TempDir() + "hier-costs-once.txt";
    std::FILE *file = std::fopen(path.c_str(), "w");
    ASSERT_NE(file, nullptr);
    std::fputs("0 1\n1 0\n", file);
    std::fclose(file);
    const std::string value = "file:" + path;
    const hier_settings_t *costs = settings([&](hier_settings_input_t &in) { in.cost = value.c_str(); });
    std::remove(path.c_str());  // read already: communicators made later still get it
    EXPECT_EQ(problems(costs), "");
    EXPECT_STREQ(hier_settings_cost_file(costs), value.c_str());
    std::string error;
    hier_comm_t *comm = create(costs, {0, 1}, &error);
    ASSERT_NE(comm, nullptr) << error;
    hier_comm_destroy(comm);
    EXPECT_EQ(hier_settings_cost_file(settings([](hier_settings_input_t &in) { in.cost = "probe"; })), nullptr);
}

TEST(Settings, ProbesAreAskedForWhereTheyWillBeUsed)
{
    const hier_settings_t *probed = settings([](hier_settings_input_t &in) { in.link_costs = "probe"; });
    EXPECT_EQ(hier_settings_probes(probed, HIER_ALG_AUTO, 8, 1), HIER_PROBE_LATENCY | HIER_PROBE_MESSAGES);
    EXPECT_EQ(hier_settings_probes(probed, HIER_ALG_AUTO, 8, 0), 0);    // one node: no model
    EXPECT_EQ(hier_settings_probes(probed, HIER_ALG_AUTO, 129, 1), 0);  // beyond the model
    EXPECT_EQ(hier_settings_probes(probed, 4, 8, 1), 0);                // the alltoall asked for by name
    const hier_settings_t *latency = settings([](hier_settings_input_t &in) {
        in.link_costs = "";
        in.cluster_map = "probe";
    });
    EXPECT_EQ(hier_settings_probes(latency, HIER_ALG_AUTO, 8, 1), HIER_PROBE_LATENCY);
    const hier_settings_t *unknown = settings([](hier_settings_input_t &in) { in.link_costs = "bogus"; });
    EXPECT_EQ(hier_settings_probes(unknown, HIER_ALG_AUTO, 8, 1), 0);  // reported, taken as unknown costs
}

TEST(Communicator, OneCallIsAnsweredWhole)
{
    std::string error;
    hier_comm_t *comm = create(settings([](hier_settings_input_t &in) { in.cluster_map = "1,1"; }), {0, 0, 1, 1},
                               &error);
    ASSERT_NE(comm, nullptr) << error;
    // Unsupported: the fallback for that reason.
    hier_test::Decided decided = hier_test::decide(comm, HIER_OP_ALLREDUCE, HIER_ALG_AUTO, -1, 8, 1,
                                                   "non-commutative operation");
    EXPECT_EQ(decided.schedule, nullptr);
    EXPECT_EQ(decided.chosen, HIER_ALG_FALLBACK);
    EXPECT_EQ(decided.reason, "non-commutative operation");
    EXPECT_EQ(decided.where, "size 4, 2 nodes, 2 clusters");
    EXPECT_EQ(decided.code, HIER_REASON_FALLBACK);
    // The answer is a small value: its texts are rendered where printed.
    EXPECT_LE(sizeof(hier_decision_t), 48u);
    // Verbose 0: no text is rendered.
    decided = hier_test::decide(comm, HIER_OP_ALLTOALL, 2, -1, 8, 0);  // lg
    ASSERT_NE(decided.schedule, nullptr);
    EXPECT_EQ(decided.where, "");
    EXPECT_EQ(decided.reason, "");
    EXPECT_EQ(decided.window, 1);
    EXPECT_EQ(decided.trial_call, -1);
    // Verbose 1: the reason, with the backbone pieces where clusters are.
    decided = hier_test::decide(comm, HIER_OP_ALLTOALL, 2, -1, 8, 1);
    EXPECT_NE(decided.reason.find("backbone pieces of 32768 B"), std::string::npos) << decided.reason;
    hier_comm_destroy(comm);
}

int agreed_calls = 0;
int agree_twice(void *ctx, double *values, int count)
{
    ++agreed_calls;
    for (int i = 0; i < count; ++i) {
        values[i] *= *static_cast<double *>(ctx);
    }
    return 0;
}

TEST(Communicator, KeepsTheAgreementTheGlueLendsIt)
{
    double factor = 2;
    const std::vector<int> nodes = {0, 1};
    hier_comm_input_t input{};
    input.size = 2;
    input.node_of_rank = nodes.data();
    input.agree_max = agree_twice;
    input.agree_ctx = &factor;
    char error[256];
    hier_comm_t *comm = hier_comm_create(&input, error, sizeof error, nullptr);
    ASSERT_NE(comm, nullptr) << error;
    const hier::AgreeMax &agree = comm->communicator->agree();
    ASSERT_EQ(agree.fn, &agree_twice);
    double values[2] = {1, 3};
    EXPECT_EQ(agree.fn(agree.ctx, values, 2), 0);
    EXPECT_EQ(values[1], 6);
    EXPECT_EQ(agreed_calls, 1);
    hier_comm_destroy(comm);
}

} // namespace
