/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// What a communicator is built from and when it asks for more: node leaders
// numbered one way for the glue and the core, and the link-cost probes run
// only at the first decision that weighs link costs, once.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "capi_helpers.h"
#include "hier_core.h"

namespace {

// A probe the glue would lend: counts its runs, answers fixed measurements.
struct FakeProbes {
    int runs = 0;
    bool latency_asked = false;
    int nodes = 0;

    static int run(void *ctx, double *node_latency, double message_cost[2])
    {
        auto *self = static_cast<FakeProbes *>(ctx);
        ++self->runs;
        self->latency_asked = node_latency != nullptr;
        if (node_latency) {
            for (int a = 0; a < self->nodes; ++a) {
                for (int b = 0; b < self->nodes; ++b) {
                    node_latency[a * self->nodes + b] = a == b ? 0 : 30e-6;
                }
            }
        }
        message_cost[0] = 45e-6;
        message_cost[1] = 60e-6;
        return 0;
    }
};

hier_comm_t *create_with_probes(const int *node_of_rank, int size, const char *link_costs, FakeProbes *probes,
                                const int *cluster_of_rank = nullptr)
{
    hier_comm_input_t input{};
    input.cluster_of_rank = cluster_of_rank;
    input.settings = hier_test::settings([&](hier_settings_input_t &in) { in.link_costs = link_costs; });
    input.size = size;
    input.rank = 0;
    input.node_of_rank = node_of_rank;
    input.window = 1;
    input.probe_links = FakeProbes::run;
    input.probe_ctx = probes;
    char error[256];
    hier_comm_t *comm = hier_comm_create(&input, error, sizeof error, nullptr);
    EXPECT_NE(comm, nullptr) << error;
    return comm;
}

} // namespace

TEST(Gathering, NodeLeadersAreTheLowestRanksInTheCoresNumbering)
{
    const int node_of_rank[] = {7, 7, 3, 9, 3, 5};
    int leaders[6];
    ASSERT_EQ(hier_node_leaders(6, node_of_rank, leaders), 4);
    EXPECT_EQ(leaders[0], 0);
    EXPECT_EQ(leaders[1], 2);
    EXPECT_EQ(leaders[2], 3);
    EXPECT_EQ(leaders[3], 5);
    FakeProbes probes;
    hier_comm_t *comm = create_with_probes(node_of_rank, 6, "", &probes);
    ASSERT_NE(comm, nullptr);
    for (int node = 0; node < 4; ++node) {
        EXPECT_EQ(hier_comm_node_leader(comm, node), leaders[node]);
        EXPECT_EQ(hier_comm_node_of(comm, leaders[node]), node);
    }
    hier_comm_destroy(comm);
}

TEST(Gathering, LinkCostsAreProbedOnceAtTheFirstDecisionThatWeighsThem)
{
    const int node_of_rank[] = {0, 0, 0, 0, 1, 1, 1, 2, 2, 3};
    FakeProbes probes;
    probes.nodes = 4;
    hier_comm_t *comm = create_with_probes(node_of_rank, 10, "probe", &probes);
    ASSERT_NE(comm, nullptr);
    // Collectives whose auto goes by rules, and a nonblocking alltoall (which
    // may not communicate), pay nothing.
    hier_test::decide(comm, HIER_OP_ALLREDUCE, HIER_ALG_AUTO, -1, 8);
    hier_test::decide(comm, HIER_OP_BARRIER, HIER_ALG_AUTO, -1, 0);
    hier_test::decide(comm, HIER_OP_ALLGATHER, HIER_ALG_AUTO, -1, 64);
    hier_test::decide(comm, HIER_OP_ALLTOALL, HIER_ALG_AUTO, -1, 4096, 2, nullptr, 1);
    EXPECT_EQ(probes.runs, 0);
    // The first blocking alltoall under auto measures, and weighs what it measured.
    const hier_test::Decided first = hier_test::decide(comm, HIER_OP_ALLTOALL, HIER_ALG_AUTO, -1, 8);
    EXPECT_EQ(probes.runs, 1);
    EXPECT_TRUE(probes.latency_asked);
    EXPECT_NE(first.predictions.find("probed per message within a node 45us, probed per message between nodes 60us"),
              std::string::npos)
        << first.predictions;
    // Another size class: measured already.
    hier_test::decide(comm, HIER_OP_ALLTOALL, HIER_ALG_AUTO, -1, 512);
    EXPECT_EQ(probes.runs, 1);
    hier_comm_destroy(comm);
}

TEST(Gathering, NoProbeWhereTheLinkCostsDoNotAskForIt)
{
    const int node_of_rank[] = {0, 0, 0, 0, 1, 1, 1, 2, 2, 3};
    FakeProbes probes;
    probes.nodes = 4;
    for (const char *costs : {"", "network=50us:1Gbit/s"}) {
        hier_comm_t *comm = create_with_probes(node_of_rank, 10, costs, &probes);
        ASSERT_NE(comm, nullptr);
        const hier_test::Decided decided = hier_test::decide(comm, HIER_OP_ALLTOALL, HIER_ALG_AUTO, -1, 8);
        EXPECT_EQ(decided.predictions.find("probed per message"), std::string::npos) << decided.predictions;
        hier_comm_destroy(comm);
    }
    // One node: the model is not asked, so neither is the probe.
    const int one_node[] = {0, 0, 0, 0};
    hier_comm_t *comm = create_with_probes(one_node, 4, "probe", &probes);
    ASSERT_NE(comm, nullptr);
    hier_test::decide(comm, HIER_OP_ALLTOALL, HIER_ALG_AUTO, -1, 8);
    hier_comm_destroy(comm);
    EXPECT_EQ(probes.runs, 0);
}

TEST(Gathering, MessageProbePartnersAreNamedByTheCore)
{
    const int node_of_rank[] = {0, 0, 0, 0, 1, 1, 1, 2, 2, 3};
    const int cluster_of_rank[] = {0, 0, 0, 0, 0, 0, 0, 1, 1, 1};
    FakeProbes probes;
    hier_comm_t *comm = create_with_probes(node_of_rank, 10, "", &probes, cluster_of_rank);
    ASSERT_NE(comm, nullptr);
    int partners[16], left_out = -1;
    // Nearest first, either way round, each once.
    ASSERT_EQ(hier_comm_probe_partners(comm, 0, 0, 8, partners, &left_out), 3);
    EXPECT_EQ((std::vector<int>(partners, partners + 3)), (std::vector<int>{1, 2, 3}));
    EXPECT_EQ(left_out, 0);
    // Other nodes: those of the other cluster (9, 8, 7) are passed over.
    ASSERT_EQ(hier_comm_probe_partners(comm, 0, 1, 8, partners, &left_out), 3);
    EXPECT_EQ((std::vector<int>(partners, partners + 3)), (std::vector<int>{4, 6, 5}));
    EXPECT_EQ(left_out, 3);
    // The reach bounds the distance.
    ASSERT_EQ(hier_comm_probe_partners(comm, 0, 1, 3, partners, &left_out), 0);
    EXPECT_EQ(left_out, 3);
    hier_comm_destroy(comm);
}
