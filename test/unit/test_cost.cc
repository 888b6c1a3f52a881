/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Costs between processes: the cost-file parser (its error lines, and the
// inputs fuzzing found), and the three sources of coll_hier_cost.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <vector>
#include <unistd.h>

#include "algorithms.h"
#include "cost.h"
#include "hypercube.h"
#include "topology.h"
#include "torus.h"

namespace hier {
namespace {

std::string parse_error(const std::string &text)
{
    std::string error;
    const CostMatrix matrix = parse_cost_matrix(text, &error);
    EXPECT_EQ(matrix.n, 0) << text;
    EXPECT_EQ(error.find('\n'), std::string::npos) << "one line: " << error;
    return error;
}

TEST(CostFile, ParsesCommentsBlankLinesTabsAndCrLf)
{
    std::string error;
    const CostMatrix matrix =
        parse_cost_matrix("# three nodes\n\n0 1.5\t2e1  # row 0\r\n1.5 0 .5\n20 0.5 0\n   \n", &error);
    ASSERT_EQ(error, "");
    ASSERT_EQ(matrix.n, 3);
    EXPECT_EQ(matrix.at(0, 2), 20.0);
    EXPECT_EQ(matrix.at(2, 1), 0.5);
    EXPECT_EQ(matrix.at(1, 0), 1.5);
    // The diagonal is free (a node matrix's: two processes of one node).
    EXPECT_EQ(parse_cost_matrix("7", &error).n, 1);
    EXPECT_EQ(parse_cost_matrix("1 2\n2 3", &error).at(1, 1), 3.0);
}

TEST(CostFile, EveryMalformedFileGetsOneLineSayingWhere)
{
    EXPECT_EQ(parse_error(""), "has no rows");
    EXPECT_EQ(parse_error("# nothing\n\n"), "has no rows");
    EXPECT_EQ(parse_error("0 1\n1 0 2\n"), "line 2: row 1 has 3 entries but the first row has 2");
    EXPECT_EQ(parse_error("0 1\n1 0\n1 1\n"), "line 3: more rows than the 2 columns: not square");
    EXPECT_EQ(parse_error("0 1 1\n1 0 1\n"), "has 2 rows of 3 entries: not square");
    EXPECT_EQ(parse_error("0 -1\n-1 0\n"), "line 1: \"-1\" is negative");
    EXPECT_EQ(parse_error("0 x\nx 0\n"), "line 1: \"x\" is not a non-negative number");
    EXPECT_EQ(parse_error("0 1,2\n"), "line 1: \"1,2\" is not a non-negative number");
    EXPECT_EQ(parse_error("0 inf\ninf 0\n"), "line 1: \"inf\" is not a non-negative number");
    EXPECT_EQ(parse_error("0 nan\n"), "line 1: \"nan\" is not a non-negative number");
    EXPECT_EQ(parse_error("0 +1\n"), "line 1: \"+1\" is not a non-negative number");
    EXPECT_EQ(parse_error("0 1e\n"), "line 1: \"1e\" is not a non-negative number");
    EXPECT_EQ(parse_error("0 .\n"), "line 1: \".\" is not a non-negative number");
    EXPECT_EQ(parse_error("0 1e999\n1e999 0\n"), "line 1: \"1e999\" is out of range");
    EXPECT_EQ(parse_error("0 1\n2 0\n"), "cost(0, 1) = 1 but cost(1, 0) = 2: not symmetric (rows and columns count from 0)");
    EXPECT_EQ(parse_error("0 " + std::string(70, '1') + "\n"),
              "line 1: an entry of 70 characters (\"111111111111111111111111...\") is too long");
    EXPECT_EQ(parse_error("0 \x01\x7f\n"), "line 1: \"??\" is not a non-negative number");
}

TEST(CostFile, TooManyColumnsIsRefusedBeforeTheMatrixIsAllocated)
{
    std::string row;
    for (int i = 0; i <= kMaxCostRows; ++i) {
        row += "1 ";
    }
    EXPECT_EQ(parse_error(row), "line 1: the first row has 4097 entries, more than 4096");
}

// Inputs from the fuzz target's corpus (test/fuzz: 6.9 million runs, no
// crash), which showed messages to mend: a lone "-" was called negative,
// 0.1 was printed as 0.10000000000000001, "1 rows" and "1 entries".
TEST(CostFile, FuzzRegressions)
{
    EXPECT_EQ(parse_error("-"), "line 1: \"-\" is not a non-negative number");
    EXPECT_EQ(parse_error("-\x7f"), "line 1: \"-?\" is not a non-negative number");
    EXPECT_EQ(parse_error("-35-"), "line 1: \"-35-\" is not a non-negative number");
    EXPECT_EQ(parse_error("0\t0\n.1\t0"), "cost(0, 1) = 0 but cost(1, 0) = 0.1: not symmetric (rows and columns count from 0)");
    EXPECT_EQ(parse_error("1 0 0 0\t0"), "has 1 row of 5 entries: not square");
    EXPECT_EQ(parse_error("0 1 2\n1 "), "line 2: row 1 has 1 entry but the first row has 3");
    EXPECT_EQ(parse_error("1\n4"), "line 2: more rows than the 1 column: not square");
    EXPECT_EQ(parse_error(std::string("0\0$0", 4)), "line 1: \"0?$0\" is not a non-negative number");
    EXPECT_EQ(parse_error("0\t1e-3\xa7\r"), "line 1: \"1e-3?\" is not a non-negative number");
    EXPECT_EQ(parse_error("3e330"), "line 1: \"3e330\" is out of range");
    EXPECT_EQ(parse_error(" "), "has no rows");
    std::string error;
    EXPECT_EQ(parse_cost_matrix("0.", &error).n, 1);
    EXPECT_EQ(parse_cost_matrix("1E+2", &error).n, 1);
    EXPECT_EQ(parse_cost_matrix("0e-400", &error).n, 1);  // zero, however written
}

TEST(CostFile, ReadErrorsNameTheCause)
{
    std::string text, error;
    EXPECT_FALSE(read_cost_file("/nonexistent/costs.txt", &text, &error));
    EXPECT_EQ(error, "cannot be read: No such file or directory");
    EXPECT_FALSE(read_cost_file("/", &text, &error));
    EXPECT_EQ(error, "cannot be read: Is a directory");
}

TEST(Costs, LocalityLevels)
{
    // Nodes 0 and 1 in cluster 0, node 2 in cluster 1.
    const Topology topology({0, 0, 1, 2, 2}, {0, 0, 1});
    const Costs costs = locality_costs(topology);
    EXPECT_EQ(costs(0, 0), 0);
    EXPECT_EQ(costs(0, 1), kSameNodeCost);
    EXPECT_EQ(costs(0, 2), kSameClusterCost);
    EXPECT_EQ(costs(2, 4), kOtherClusterCost);
    EXPECT_EQ(costs(4, 3), kSameNodeCost);
    EXPECT_EQ(topology.costs()(1, 3), kOtherClusterCost);  // the topology's default
}

TEST(Costs, LocalityBeyondTheMatrixLimitIsLevelsOfTheSameValues)
{
    // Up to kMaxLocalityMatrixNodes nodes a matrix, beyond levels computed
    // when asked (O(N), not N^2): both give every pair the level's value,
    // hops on a torus of nodes included (even and odd rings, size 2 and 1).
    const auto expected = [](const Topology &t, int a, int b) {
        const int x = t.node_of(a), y = t.node_of(b);
        if (a == b) {
            return 0.0;
        }
        if (x == y) {
            return kSameNodeCost;
        }
        if (t.cluster_of(a) != t.cluster_of(b)) {
            return kOtherClusterCost;
        }
        const Torus *torus = t.torus_of_nodes();
        const double beyond_first = torus ? torus->distance(x, y) - 1 : 0;
        return kSameClusterCost * (1 + kTorusHopShare * beyond_first);
    };
    std::vector<int> nodes, clusters;
    for (int rank = 0; rank < 3 * (kMaxLocalityMatrixNodes + 1); ++rank) {
        nodes.push_back(rank / 3);
    }
    for (int node = 0; node <= kMaxLocalityMatrixNodes; ++node) {
        clusters.push_back(node % 3 == 0 ? 7 : 2);
    }
    const std::vector<Topology> topologies = {
        Topology(nodes, clusters),
        Topology({0, 0, 1, 2, 2}, {0, 0, 1}),
        Topology::from_torus_dims({5, 4, 19}),
        Topology::from_torus_dims({2, 1, 6, 31}),
        Topology::from_torus_dims({4, 4}),
    };
    for (const Topology &t : topologies) {
        const Costs costs = locality_costs(t);
        EXPECT_EQ(costs.levels(), t.node_count() > kMaxLocalityMatrixNodes) << t.node_count();
        for (int a = 0; a < t.size(); a += 1 + a % 5) {
            for (int b = 0; b < t.size(); ++b) {
                ASSERT_EQ(costs(a, b), expected(t, a, b)) << t.node_count() << " nodes, " << a << " " << b;
            }
        }
    }
}

TEST(Costs, LocalitySocketsCostBetweenOneSocketAndAnotherNode)
{
    // Two nodes of two sockets each, node 1's in cluster 1.
    Topology topology({0, 0, 0, 0, 1, 1, 1, 1}, {0, 1});
    const Costs nodes_only = locality_costs(topology);
    topology.set_sockets({0, 1, 0, 1, 4, 4, 6, 6});
    const Costs costs = locality_costs(topology);
    EXPECT_LT(kSameNodeCost, kOtherSocketCost);
    EXPECT_LT(kOtherSocketCost, kSameClusterCost);
    EXPECT_EQ(costs(0, 2), kSameNodeCost);
    EXPECT_EQ(costs(0, 1), kOtherSocketCost);
    EXPECT_EQ(costs(4, 5), kSameNodeCost);
    EXPECT_EQ(costs(5, 7), kOtherSocketCost);
    EXPECT_EQ(costs(3, 4), kOtherClusterCost);
    EXPECT_EQ(nodes_only(0, 1), kSameNodeCost);  // as before sockets were set
    // One socket per node, or one rank not bound: the costs of nodes alone.
    for (const std::vector<int> &names : {std::vector<int>{0, 0, 0, 0, 4, 4, 4, 4},
                                          std::vector<int>{0, 1, 0, 1, 4, 4, 6, -1}}) {
        topology.set_sockets(names);
        const Costs same = locality_costs(topology);
        for (int a = 0; a < 8; ++a) {
            for (int b = 0; b < 8; ++b) {
                ASSERT_EQ(same(a, b), nodes_only(a, b)) << a << " " << b;
            }
        }
    }
}

TEST(Costs, LocalitySocketsBeyondTheMatrixLimitAreLevelsOfTheSameValues)
{
    // Two sockets of two ranks per node: more sockets than the matrix takes.
    const int nodes = kMaxLocalityMatrixNodes / 2 + 1;
    std::vector<int> node_of_rank, socket_of_rank;
    for (int rank = 0; rank < 4 * nodes; ++rank) {
        node_of_rank.push_back(rank / 4);
        socket_of_rank.push_back(rank / 2);
    }
    Topology topology(node_of_rank);
    topology.set_sockets(socket_of_rank);
    const Costs costs = locality_costs(topology);
    EXPECT_TRUE(costs.levels());
    for (int a = 0; a < topology.size(); a += 1 + a % 7) {
        for (int b = 0; b < topology.size(); b += 1 + b % 3) {
            const double expected = a == b                         ? 0
                                    : a / 2 == b / 2               ? kSameNodeCost
                                    : a / 4 == b / 4               ? kOtherSocketCost
                                                                   : kSameClusterCost;
            ASSERT_EQ(costs(a, b), expected) << a << " " << b;
        }
    }
}

TEST(Costs, TheHypercubeEmbeddingCrossesSocketsInOneDimension)
{
    // One node of two sockets, ranks 0, 1, 2 and 6 on the first: in blind
    // order every dimension has a pair across (calc_cost, the sum of each
    // dimension's dearest pair: 3 x kOtherSocketCost); the embedding keeps
    // two dimensions on a socket and crosses in one. Without sockets every
    // pair costs the same and blind is as good.
    Topology topology({0, 0, 0, 0, 0, 0, 0, 0});
    EXPECT_EQ(Plans().hypercube(topology).cost, 3 * kSameNodeCost);
    topology.set_sockets({0, 0, 0, 3, 3, 3, 0, 3});
    topology.set_costs(nullptr);  // locality's again, now with the sockets
    const Plans plans;            // one Plans per topology: this one with sockets
    const HypercubePlan &plan = plans.hypercube(topology);
    EXPECT_EQ(plan.blind_cost, 3 * kOtherSocketCost);
    EXPECT_EQ(plan.cost, 2 * kSameNodeCost + kOtherSocketCost);
    for (int dim = 0; dim < plan.dims; ++dim) {
        int across = 0;
        for (int rank = 0; rank < 8; ++rank) {
            across += topology.socket_of(plan.partner(rank, dim)) != topology.socket_of(rank) ? 1 : 0;
        }
        EXPECT_TRUE(across == 0 || across == 8) << "dimension " << dim << ": " << across << " across";
    }
}

TEST(Costs, LocalityOnATorusOfNodesCostsHopsAndTheHypercubeFindsNeighbours)
{
    // 4x4, one rank per node: 10, plus a quarter of that per hop beyond the
    // first. A ring of 4 is a square, so the 4-cube fits the torus with
    // every partner a neighbour: calc_cost 4 x 10, where blind's partners at
    // XOR 2 and 8 are two hops away (45): 11 % less, under the 15 % auto
    // asks of the barrier, allreduce and allgather (measured on the emulated
    // torus, small allgathers ran slower on the hypercube than Open MPI's).
    const Topology torus = Topology::from_torus_dims({4, 4});
    EXPECT_EQ(torus.costs()(0, 1), kSameClusterCost);
    EXPECT_EQ(torus.costs()(0, 2 * 4 + 2), kSameClusterCost * (1 + 3 * kTorusHopShare));
    EXPECT_EQ(torus.costs()(0, 3 * 4 + 3), kSameClusterCost * (1 + kTorusHopShare));
    const Plans plans;
    const HypercubePlan &plan = plans.hypercube(torus);
    EXPECT_EQ(plan.cost, 40);
    EXPECT_EQ(plan.blind_cost, 45);
    EXPECT_NE(plan.too_even, "");
    for (int rank = 0; rank < 16; ++rank) {
        for (int dim = 0; dim < plan.dims; ++dim) {
            EXPECT_EQ(torus.torus()->distance(rank, plan.partner(rank, dim)), 1) << rank << " dim " << dim;
        }
    }
    // Several ranks per node: the torus is not the network's; levels as before.
    const Topology shared({0, 0, 1, 1, 2, 2, 3, 3}, {}, {2, 4});
    EXPECT_EQ(shared.costs()(0, 7), kSameClusterCost);
}

TEST(Costs, ProbeLatenciesInMicrosecondsAndAShareOfTheLowestWithinNodes)
{
    const Topology topology({0, 0, 1, 2});
    const std::vector<double> latency = {0, 20e-6, 50e-6, 20e-6, 0, 10e-6, 50e-6, 10e-6, 0};
    const Costs costs = probe_costs(topology, latency);
    EXPECT_DOUBLE_EQ(costs(0, 2), 20);
    EXPECT_DOUBLE_EQ(costs(3, 0), 50);
    EXPECT_DOUBLE_EQ(costs(0, 1), kProbeSameNodeShare * 10);
}

class CostFileSetting : public ::testing::Test {
protected:
    std::string write(const std::string &text)
    {
        char name[] = "/tmp/hier-costs-XXXXXX";
        const int fd = mkstemp(name);
        EXPECT_GE(fd, 0);
        close(fd);
        std::ofstream(name) << text;
        files_.push_back(name);
        return name;
    }
    void TearDown() override
    {
        for (const auto &file : files_) {
            std::remove(file.c_str());
        }
    }
    std::vector<std::string> files_;
};

TEST_F(CostFileSetting, RankMatrixIndexesTheWorldAndNodeMatrixTheNodes)
{
    const std::string ranks = write("0 1 2 3\n1 0 4 5\n2 4 0 6\n3 5 6 0\n");
    const Topology topology({0, 0, 1});
    CostSetting setting;
    setting.world_size = 4;
    setting.world_rank = {3, 1, 0};  // a communicator of world ranks 3, 1, 0
    std::string error;
    const CostSource source = parse_cost_source("file:" + ranks);
    EXPECT_EQ(source.kind, CostKind::File);
    EXPECT_EQ(source.path, ranks);
    auto costs = costs_from_source(topology, source, setting, &error);
    ASSERT_NE(costs, nullptr) << error;
    EXPECT_EQ((*costs)(0, 1), 5);  // world 3 and 1
    EXPECT_EQ((*costs)(2, 0), 3);
    EXPECT_EQ(costs->source(), "file:" + ranks);

    const std::string nodes = write("0.5 7\n7 0.25\n");
    costs = costs_from_source(topology, parse_cost_source("file:" + nodes), setting, &error);
    ASSERT_NE(costs, nullptr) << error;
    EXPECT_EQ((*costs)(0, 1), 0.5);  // one node: the diagonal
    EXPECT_EQ((*costs)(1, 2), 7);

    // With a node map, the matrix is over the job's nodes.
    const std::string job_nodes = write("1 2 3\n2 1 4\n3 4 1\n");
    setting.world_node = {2, 2, 0};
    setting.world_node_count = 3;
    costs = costs_from_source(topology, parse_cost_source("file:" + job_nodes), setting, &error);
    ASSERT_NE(costs, nullptr) << error;
    EXPECT_EQ((*costs)(0, 2), 3);
    EXPECT_EQ((*costs)(0, 1), 1);
}

TEST_F(CostFileSetting, ErrorLinesNameTheParameterTheProblemAndTheForm)
{
    const Topology topology({0, 1, 2});
    CostSetting setting;
    std::string error;
    const auto fails = [&](const std::string &value) {
        error.clear();
        EXPECT_EQ(costs_from_source(topology, parse_cost_source(value), setting, &error), nullptr) << value;
        EXPECT_EQ(error.find('\n'), std::string::npos);
        return error;
    };
    EXPECT_EQ(fails("bogus"), "coll_hier_cost \"bogus\" is not a cost source; expected locality, probe or file:PATH");
    EXPECT_EQ(fails("file:"), "coll_hier_cost \"file:\" names no file; expected locality, probe or file:PATH");
    EXPECT_EQ(fails("probe"), "coll_hier_cost \"probe\" needs the latency probe, which did not run");
    EXPECT_EQ(fails("file:/nonexistent"), "coll_hier_cost \"file:/nonexistent\" cannot be read: No such file or directory");
    const std::string expected =
        "; expected a square, symmetric matrix of non-negative numbers, one row per line, over MPI_COMM_WORLD's "
        "ranks (p x p) or over nodes (N x N)";
    const std::string wrong = write("0 1\n1 0\n");
    EXPECT_EQ(fails("file:" + wrong), "coll_hier_cost \"file:" + wrong + "\" has 2 rows; expected 3 (MPI_COMM_WORLD's ranks) or 3 (this communicator's nodes)" + expected);
    const std::string negative = write("0 1 -2\n1 0 1\n-2 1 0\n");
    EXPECT_EQ(fails("file:" + negative), "coll_hier_cost \"file:" + negative + "\" line 1: \"-2\" is negative" + expected);
    setting.world_size = 2;
    setting.world_rank = {0, 1, 2};  // a rank outside the world the file describes
    EXPECT_EQ(fails("file:" + wrong), "coll_hier_cost \"file:" + wrong + "\" has no row for rank 2 of this communicator" + expected);
    setting = CostSetting{};
    for (const char *locality : {"locality", ""}) {
        const CostSource source = parse_cost_source(locality);
        EXPECT_EQ(source.kind, CostKind::Locality) << locality;
        EXPECT_NE(costs_from_source(topology, source, setting, &error), nullptr) << locality;
    }
}

// The setting is parsed into its kind once; its text is only rendered for
// the lines that quote it.
TEST(CostSource, ParsedIntoItsKind)
{
    EXPECT_EQ(parse_cost_source("probe").kind, CostKind::Probe);
    EXPECT_EQ(parse_cost_source("probe").text(), "probe");
    EXPECT_EQ(parse_cost_source("").text(), "locality");
    const CostSource bogus = parse_cost_source("probes");
    EXPECT_EQ(bogus.kind, CostKind::Locality);
    EXPECT_FALSE(bogus.error.empty());
    const CostSource nameless = parse_cost_source("file:");
    EXPECT_FALSE(nameless.error.empty());
    EXPECT_TRUE(nameless.path.empty());
}

} // namespace
} // namespace hier
