/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Torus geometry, the coll_hier_torus_dims parser, and the torus through the
// C ABI and selection.
#include <gtest/gtest.h>

#include <cstring>
#include <utility>
#include <vector>

#include "capi_helpers.h"
#include "hier_core.h"
#include "torus.h"

namespace hier {
namespace {

TEST(Torus, RanksAreRowMajorLastDimensionFastest)
{
    const Torus torus({7, 5});
    EXPECT_EQ(torus.size(), 35);
    EXPECT_EQ(torus.coordinate(1, 0), 0);
    EXPECT_EQ(torus.coordinate(1, 1), 1);
    EXPECT_EQ(torus.coordinate(5, 0), 1);
    EXPECT_EQ(torus.coordinate(5, 1), 0);
    EXPECT_EQ(torus.coordinate(34, 0), 6);
    EXPECT_EQ(torus.coordinate(34, 1), 4);
    const Torus cube({4, 8, 8});
    EXPECT_EQ(cube.coordinate(64 * 3 + 8 * 5 + 7, 0), 3);
    EXPECT_EQ(cube.coordinate(64 * 3 + 8 * 5 + 7, 1), 5);
    EXPECT_EQ(cube.coordinate(64 * 3 + 8 * 5 + 7, 2), 7);
    EXPECT_EQ(torus.describe(), "7x5");
    EXPECT_EQ(cube.describe(), "4x8x8");
}

std::vector<std::pair<int, int>> link_list(const Torus &torus)
{
    std::vector<std::pair<int, int>> out;
    for (const TorusLink &link : torus.links()) {
        out.emplace_back(link.dim, link.dir);
    }
    return out;
}

TEST(Torus, TwoLinksPerRingOnePerPairNoneForSizeOne)
{
    using Links = std::vector<std::pair<int, int>>;
    EXPECT_EQ(link_list(Torus({7, 5})), (Links{{0, 1}, {0, -1}, {1, 1}, {1, -1}}));
    EXPECT_EQ(link_list(Torus({2, 3})), (Links{{0, 1}, {1, 1}, {1, -1}}));
    EXPECT_EQ(link_list(Torus({1, 4})), (Links{{1, 1}, {1, -1}}));
    EXPECT_EQ(link_list(Torus({2, 2, 2})), (Links{{0, 1}, {1, 1}, {2, 1}}));
    EXPECT_EQ(link_list(Torus({1, 1})), Links{});
}

TEST(Torus, NeighboursWrapAround)
{
    const Torus torus({7, 5});
    EXPECT_EQ(torus.step(0, {0, 1}), 5);
    EXPECT_EQ(torus.step(0, {0, -1}), 30);
    EXPECT_EQ(torus.step(0, {1, 1}), 1);
    EXPECT_EQ(torus.step(0, {1, -1}), 4);
    EXPECT_EQ(torus.step(34, {1, 1}), 30);
    EXPECT_EQ(torus.step(34, {0, 1}), 4);
    const Torus pair({2, 3});
    EXPECT_EQ(pair.step(0, {0, 1}), 3);
    EXPECT_EQ(pair.step(3, {0, 1}), 0);
}

TEST(Torus, DistancesTakeTheShorterWayRound)
{
    const Torus torus({7, 5});
    EXPECT_EQ(torus.distance(0, 3 * 5 + 2), 5);
    EXPECT_EQ(torus.distance(0, 4 * 5 + 3), 5);  // (4, 3) is (-3, -2)
    EXPECT_EQ(torus.distance(6, 6), 0);
    const Torus even({4, 4});
    const int opposite = 2 * 4;  // (2, 0)
    EXPECT_EQ(even.hops(0, opposite, 0), 2);
    EXPECT_TRUE(even.shortens(0, opposite, {0, 1}));
    EXPECT_TRUE(even.shortens(0, opposite, {0, -1}));
    EXPECT_FALSE(even.shortens(0, opposite, {1, 1}));
    EXPECT_TRUE(even.shortens(0, 1, {1, 1}));
    EXPECT_FALSE(even.shortens(0, 1, {1, -1}));
    EXPECT_EQ(Torus({2, 2}).distance(0, 3), 2);
}

TEST(Torus, RoutesGoDimensionByDimensionTheShorterWayTiesThePlusWay)
{
    const Torus torus({4, 4});  // links: 0 = dimension 0 +, 1 = 0 -, 2 = 1 +, 3 = 1 -
    using Hops = std::vector<std::pair<int, int>>;
    EXPECT_EQ(torus.route(0, 2 * 4 + 2), (Hops{{0, 0}, {4, 0}, {8, 2}, {9, 2}}));  // opposite: + both
    EXPECT_EQ(torus.route(0, 3 * 4 + 3), (Hops{{0, 1}, {12, 3}}));                // (-1, -1)
    EXPECT_EQ(torus.route(5, 5), Hops{});
    EXPECT_EQ(Torus({2, 3}).route(3, 0), (Hops{{3, 0}}));  // size 2: the one link
    // Every route: as long as the distance, each hop a step along its link,
    // dimensions in order, ending where it should.
    for (const Torus &shape : {Torus({7, 5}), Torus({4, 4}), Torus({2, 3, 4}), Torus({6})}) {
        for (int from = 0; from < shape.size(); ++from) {
            for (int to = 0; to < shape.size(); ++to) {
                const Hops hops = shape.route(from, to);
                ASSERT_EQ(int(hops.size()), shape.distance(from, to)) << from << " -> " << to;
                int at = from;
                int dim = 0;
                for (const auto &[leaves, link] : hops) {
                    ASSERT_EQ(leaves, at);
                    ASSERT_GE(shape.links()[link].dim, dim);
                    dim = shape.links()[link].dim;
                    at = shape.step(at, shape.links()[link]);
                }
                EXPECT_EQ(at, to);
            }
        }
    }
}

TEST(Torus, RelativeAndAbsoluteAreInverse)
{
    const Torus torus({3, 4, 2});
    for (int root = 0; root < torus.size(); ++root) {
        EXPECT_EQ(torus.relative(root, root), 0);
        for (int rank = 0; rank < torus.size(); ++rank) {
            const int rel = torus.relative(rank, root);
            EXPECT_EQ(torus.absolute(rel, root), rank);
            EXPECT_EQ(torus.distance(0, rel), torus.distance(root, rank));
        }
    }
}

TEST(TorusDims, ParsesSizesJoinedByX)
{
    std::string error;
    EXPECT_EQ(parse_torus_dims("8x8", 64, &error), (std::vector<int>{8, 8}));
    EXPECT_EQ(parse_torus_dims("4x8x8", 256, &error), (std::vector<int>{4, 8, 8}));
    EXPECT_EQ(parse_torus_dims("1x16", 16, &error), (std::vector<int>{1, 16}));
    EXPECT_EQ(parse_torus_dims("12", 12, &error), (std::vector<int>{12}));
    EXPECT_EQ(parse_torus_dims("7x5", -1, &error), (std::vector<int>{7, 5}));  // any product
    EXPECT_EQ(error, "");
    EXPECT_TRUE(parse_torus_dims("99999x99999x99999", -1, &error).empty());
    EXPECT_NE(error.find("covers more than 2147483647 ranks;"), std::string::npos) << error;
}

TEST(TorusDims, RejectsWithOneLineNamingTheParameterAndTheForm)
{
    const struct {
        const char *text;
        int ranks;
        const char *says;
    } cases[] = {
        {"8x", 8, "has an empty dimension"},
        {"x8", 8, "has an empty dimension"},
        {"0x4", 0, "has \"0\", which is not a positive integer"},
        {"abc", 1, "has \"abc\", which is not a positive integer"},
        {"4X4", 16, "has \"4X4\""},
        {"", 1, "is empty"},
        {"4x4", 8, "covers 16 ranks but there are 8"},
        {"99999x99999x99999", 8, "covers"},
    };
    for (const auto &c : cases) {
        std::string error;
        EXPECT_TRUE(parse_torus_dims(c.text, c.ranks, &error).empty()) << c.text;
        EXPECT_NE(error.find(std::string("coll_hier_torus_dims \"") + c.text + "\" " + c.says), std::string::npos)
            << error;
        EXPECT_NE(error.find("expected dimension sizes joined by x"), std::string::npos) << error;
        EXPECT_EQ(error.find('\n'), std::string::npos);
    }
}

// coll_hier_torus_dims, parsed once against MPI_COMM_WORLD's size.
const hier_settings_t *torus_settings(const char *dims, int world_size)
{
    return hier_test::settings([&](hier_settings_input_t &in) {
        in.torus_dims = dims;
        in.world_size = world_size;
    });
}

TEST(TorusDims, SettingsParseThemOnceWithABoundedLength)
{
    const std::string fall_back = "; scatter and gather fall back to Open MPI's own\n";
    EXPECT_EQ(hier_test::problems(torus_settings("4x8x8", 256)), "");
    std::string lines = hier_test::problems(torus_settings("2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2", 131072));
    EXPECT_EQ(lines, "coll_hier_torus_dims \"2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2x2\" has more than 16 dimensions" +
                         fall_back);
    lines = hier_test::problems(torus_settings("8x", 8));
    EXPECT_EQ(lines.find("coll_hier_torus_dims \"8x\" has an empty dimension"), 0u) << lines;
    EXPECT_NE(lines.find(fall_back), std::string::npos) << lines;
}

hier_comm_t *create_on_torus(int size, const int *dims, int ndims, char *error, size_t errlen)
{
    std::vector<int> node_of_rank(size);
    for (int rank = 0; rank < size; ++rank) {
        node_of_rank[rank] = rank;
    }
    hier_comm_input_t input{};
    input.size = size;
    input.rank = 1;
    input.node_of_rank = node_of_rank.data();
    input.torus_ndims = ndims;
    input.torus_dims = dims;
    return hier_comm_create(&input, error, errlen, nullptr);
}

const hier_schedule_t *select(hier_comm_t *comm, hier_op_t op, int requested, int root, int *chosen,
                              char *reason, std::string *predictions, size_t block_bytes = 65536)
{
    const hier_test::Decided decided = hier_test::decide(comm, op, requested, root, block_bytes);
    *chosen = decided.chosen;
    std::snprintf(reason, 256, "%s", decided.reason.c_str());
    *predictions = decided.predictions;
    return decided.schedule;
}

TEST(TorusSelection, AutoPicksOptOnATorusAndFallbackWithoutOne)
{
    const int dims[] = {4, 4};
    char error[256];
    char reason[256] = "";
    std::string predictions;
    int chosen = -1;
    hier_comm_t *comm = create_on_torus(16, dims, 2, error, sizeof error);
    ASSERT_NE(comm, nullptr) << error;
    for (hier_op_t op : {HIER_OP_SCATTER, HIER_OP_GATHER}) {
        EXPECT_NE(select(comm, op, HIER_ALG_AUTO, 3, &chosen, reason, &predictions), nullptr);
        EXPECT_STREQ(hier_algorithm_name(op, chosen), "opt");
        EXPECT_EQ(predictions, std::string("no time model of Open MPI's ") + hier_op_name(op) +
                                   "; by the rows' rules: opt");
        EXPECT_NE(select(comm, op, 3, 3, &chosen, reason, &predictions), nullptr);
        EXPECT_STREQ(hier_algorithm_name(op, chosen), "sdf");
        // Small blocks: Open MPI's own, by opt's rule (costs unknown: the
        // fast fabric's corner); asked for, opt runs.
        EXPECT_EQ(select(comm, op, HIER_ALG_AUTO, 3, &chosen, reason, &predictions, 2048), nullptr);
        EXPECT_EQ(chosen, HIER_ALG_FALLBACK);
        EXPECT_EQ(reason, std::string("Open MPI's ") + hier_op_name(op) +
                              " predicted as fast as opt on a machine the link costs allow");
        EXPECT_NE(select(comm, op, 2, 3, &chosen, reason, &predictions, 2048), nullptr);
        EXPECT_STREQ(hier_algorithm_name(op, chosen), "opt");
    }
    hier_comm_destroy(comm);

    comm = create_on_torus(16, nullptr, 0, error, sizeof error);
    ASSERT_NE(comm, nullptr) << error;
    EXPECT_EQ(select(comm, HIER_OP_SCATTER, HIER_ALG_AUTO, 0, &chosen, reason, &predictions), nullptr);
    EXPECT_EQ(chosen, HIER_ALG_FALLBACK);
    EXPECT_STREQ(reason, "no torus (coll_hier_torus_dims, or a periodic Cartesian communicator)");
    EXPECT_EQ(select(comm, HIER_OP_GATHER, 2, 0, &chosen, reason, &predictions), nullptr);
    EXPECT_STREQ(reason, "opt does not apply: no torus (coll_hier_torus_dims, or a periodic Cartesian communicator)");
    hier_comm_destroy(comm);

    EXPECT_EQ(create_on_torus(12, dims, 2, error, sizeof error), nullptr);
    EXPECT_STREQ(error, "torus of 4x4 does not cover the 12 ranks of the communicator");
}

TEST(TorusSelection, ScatterAndGatherRowsAreOptThenSdf)
{
    for (hier_op_t op : {HIER_OP_SCATTER, HIER_OP_GATHER}) {
        ASSERT_EQ(hier_algorithm_count(op), 4);
        EXPECT_STREQ(hier_algorithm_name(op, 2), "opt");
        EXPECT_STREQ(hier_algorithm_name(op, 3), "sdf");
    }
}

} // namespace
} // namespace hier
