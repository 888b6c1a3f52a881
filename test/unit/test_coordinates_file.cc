/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// MPICH's coordinates file (core/coordinates_file.cc): rank to group.
#include <gtest/gtest.h>

#include "coordinates_file.h"

namespace hier {
namespace {

TEST(CoordinatesFile, GroupOfEveryRank)
{
    std::string error;
    const auto groups = parse_coordinates("# rank: group, switch, port\n"
                                          "0: 0, 0, 0\n"
                                          "1:0,0,1\n"
                                          "\n"
                                          "  3 :\t1 , 4 , 0   # after a gap\r\n"
                                          "2: 1, 4, 1",
                                          &error);
    EXPECT_EQ(error, "");
    EXPECT_EQ(groups, (std::map<int, int>{{0, 0}, {1, 0}, {2, 1}, {3, 1}}));
}

TEST(CoordinatesFile, RejectsEveryMalformedLineInOneLine)
{
    const std::pair<const char *, const char *> cases[] = {
        {"", "names no rank"},
        {"# nothing\n\n", "names no rank"},
        {"0: 0, 0\n", "line 1 is not \"RANK: GROUP"},
        {"0: 0, 0, 0, 0\n", "line 1 is not"},
        {"0 0, 0, 0\n", "line 1 is not"},
        {"0: 0; 0, 0\n", "line 1 is not"},
        {"0: -1, 0, 0\n", "line 1 is not"},
        {"-0: 1, 0, 0\n", "line 1 is not"},
        {"x: 1, 0, 0\n", "line 1 is not"},
        {"0: 1, 0, 0x\n", "line 1 is not"},
        {"0: 1.5, 0, 0\n", "line 1 is not"},
        {"16777216: 0, 0, 0\n", "line 1 is not"},
        {"0: 99999999999999999999, 0, 0\n", "line 1 is not"},
        {"0: 0, 0, 0\n1: 0, 0, 0\n0: 1, 0, 0\n", "line 3 names rank 0 again"},
        {"0: 0, 0, 0\nplain text\n", "line 2 is not"},
    };
    for (const auto &[text, says] : cases) {
        std::string error;
        EXPECT_TRUE(parse_coordinates(text, &error).empty()) << text;
        EXPECT_NE(error.find(says), std::string::npos) << text << ": " << error;
        EXPECT_NE(error.find("RANK: GROUP, SWITCH, PORT"), std::string::npos) << error;
        EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    }
}

} // namespace
} // namespace hier
