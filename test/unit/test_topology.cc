// Topology and the node map parser.
#include <gtest/gtest.h>

#include "topology.h"

namespace hier {
namespace {

TEST(Topology, NodesNumberedByFirstRankAndLocalIndicesInRankOrder)
{
    const Topology topology({42, 7, 42, 9, 7, 42});
    EXPECT_EQ(topology.size(), 6);
    EXPECT_EQ(topology.node_count(), 3);
    EXPECT_EQ(topology.node_of(0), 0);
    EXPECT_EQ(topology.node_of(1), 1);
    EXPECT_EQ(topology.node_of(3), 2);
    EXPECT_EQ(topology.local_index(5), 2);
    EXPECT_EQ(topology.local_index(4), 1);
    EXPECT_EQ(topology.members(0), (std::vector<int>{0, 2, 5}));
    EXPECT_EQ(topology.largest_node_size(), 3);
    EXPECT_EQ(topology.describe(), "3,2,1");
}

TEST(NodeMap, ParsesSizesForConsecutiveRanks)
{
    std::string error;
    EXPECT_EQ(parse_node_map("2,1,3", 6, &error), (std::vector<int>{0, 0, 1, 2, 2, 2}));
    EXPECT_EQ(error, "");
    EXPECT_EQ(parse_node_map("1", 1, &error), (std::vector<int>{0}));
}

struct BadMap {
    const char *text;
    int size;
    const char *says;
};

TEST(NodeMap, RejectsWithOneLineNamingTheParameterAndTheForm)
{
    const BadMap cases[] = {
        {"4,3", 10, "covers 7 ranks but there are 10"},
        {"x", 10, "\"x\", which is not a positive integer"},
        {"0,5", 5, "\"0\", which is not a positive integer"},
        {"", 3, "empty field"},
        {"2,,1", 3, "\"\", which is not a positive integer"},
        {"2,1,", 3, "empty field"},
        {"-1,4", 3, "\"-1\""},
        {" 3", 3, "\" 3\""},
        {"3,999999999", 3, "covers 1000000002 ranks"},
        {"99999999999", 3, "not a positive integer"},
    };
    for (const BadMap &bad : cases) {
        std::string error;
        EXPECT_TRUE(parse_node_map(bad.text, bad.size, &error).empty()) << bad.text;
        EXPECT_NE(error.find("coll_hier_node_map"), std::string::npos) << error;
        EXPECT_NE(error.find("expected node sizes for consecutive ranks"), std::string::npos) << error;
        EXPECT_NE(error.find(bad.says), std::string::npos) << error;
        EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    }
}

} // namespace
} // namespace hier
