/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The rules file of coll_hier_dynamic_rules (core/rules_file.h): files that
// parse and what find() answers for them, the one error line of each kind of
// malformed file, format_rules' round trip, and the inputs fuzzing found.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <unistd.h>

#include "registry.h"
#include "rules_file.h"

namespace hier {
namespace {

int id_of(hier_op_t op, const char *name)
{
    for (int id = 0; id < algorithm_id_count(op); ++id) {
        if (std::strcmp(algorithm_id_name(op, id), name) == 0) {
            return id;
        }
    }
    ADD_FAILURE() << "no algorithm " << name << " of " << op_name(op);
    return -1;
}

RuleSet parse(const std::string &text)
{
    RuleSet rules;
    std::string error;
    EXPECT_TRUE(parse_rules(text, &rules, &error)) << error << "\n" << text;
    EXPECT_EQ(error, "");
    return rules;
}

std::string parse_error(const std::string &text)
{
    RuleSet rules;
    std::string error;
    EXPECT_FALSE(parse_rules(text, &rules, &error)) << text;
    EXPECT_TRUE(rules.empty()) << text;
    EXPECT_EQ(error.find('\n'), std::string::npos) << "one line: " << error;
    return error;
}

// (algorithm, window, line) of find(), or (-1, -1, 0) for no rule.
struct Found {
    int algorithm, window, line;
    bool operator==(const Found &o) const { return algorithm == o.algorithm && window == o.window && line == o.line; }
};
std::ostream &operator<<(std::ostream &out, const Found &f)
{
    return out << "(" << f.algorithm << ", " << f.window << ", line " << f.line << ")";
}
Found found(const RuleSet &rules, hier_op_t op, int comm_size, size_t message_bytes)
{
    const RuleMatch match = rules.find(op, comm_size, message_bytes);
    if (!match.matched) {
        EXPECT_EQ(match.algorithm, HIER_ALG_AUTO);
        EXPECT_EQ(match.window, 0);
        EXPECT_EQ(match.line, 0);
        return {-1, -1, 0};
    }
    return {match.algorithm, match.window, match.line};
}
constexpr Found kNone{-1, -1, 0};

// docs/rules-file.md's example.
const char *const kDocExample = R"(rule-file-version-2
# alltoall: lg with a window of 4 on 16 ranks or more, for messages of 64 KiB or more
1                 # collectives
3                 # alltoall
1                 # communicator sizes
16                # from 16 ranks
1                 # message sizes
65536 lg 0 0 4    # from 64 KiB (the block times 16 or more ranks): lg, window 4
)";

TEST(RulesFile, DocExampleForcesLgFrom16RanksAnd64KiB)
{
    const RuleSet rules = parse(kDocExample);
    EXPECT_EQ(rules.version, 2);
    const int lg = id_of(HIER_OP_ALLTOALL, "lg");
    EXPECT_EQ(found(rules, HIER_OP_ALLTOALL, 16, 65536), (Found{lg, 4, 8}));
    EXPECT_EQ(found(rules, HIER_OP_ALLTOALL, 1000, SIZE_MAX), (Found{lg, 4, 8}));
    EXPECT_EQ(found(rules, HIER_OP_ALLTOALL, 16, 65535), kNone);   // a smaller message: auto
    EXPECT_EQ(found(rules, HIER_OP_ALLTOALL, 15, 1 << 20), kNone);  // a smaller communicator: auto
    EXPECT_EQ(found(rules, HIER_OP_ALLTOALLV, 64, 0), kNone);       // a collective not in the file
    EXPECT_EQ(found(rules, HIER_OP_BARRIER, 64, 0), kNone);
    // 16 ranks with blocks of 4 KiB are 64 KiB to tuned's measure.
    EXPECT_EQ(rules_message_bytes(HIER_OP_ALLTOALL, 4096, 16), size_t(65536));
}

TEST(RulesFile, Version1NumbersCommentsAndLookupsAtEdges)
{
    const int factor = id_of(HIER_OP_ALLTOALL, "factor");
    const int pairwise = id_of(HIER_OP_ALLTOALL, "pairwise");
    const RuleSet rules = parse("# a site's tuned file, version 1\n"
                                "\n"
                                "2 # collectives\n"
                                "3\n"
                                "2\n"
                                "8\n"
                                "3\n"
                                "0 1 0 0\n" +
                                std::to_string(1024) + " " + std::to_string(factor) + " 2 8192\n" +
                                "1048576 0 0 0  # auto again from 1 MiB\n"
                                "64\n"
                                "1\n"
                                "\t100   " + std::to_string(pairwise) + "\t0 0\n"
                                "2\n"
                                "1\n"
                                "0\n"
                                "1\n"
                                "0 1 0 0\n");
    EXPECT_EQ(rules.version, 1);
    // Below the first COMSIZE: auto.
    EXPECT_EQ(found(rules, HIER_OP_ALLTOALL, 7, 5000), kNone);
    // COMSIZE 8 covers 8..63; its MSGSIZEs 0, 1024 and 1 MiB.
    EXPECT_EQ(found(rules, HIER_OP_ALLTOALL, 8, 0), (Found{HIER_ALG_FALLBACK, 0, 8}));
    EXPECT_EQ(found(rules, HIER_OP_ALLTOALL, 63, 1023), (Found{HIER_ALG_FALLBACK, 0, 8}));
    EXPECT_EQ(found(rules, HIER_OP_ALLTOALL, 8, 1024), (Found{factor, 0, 9}));
    EXPECT_EQ(found(rules, HIER_OP_ALLTOALL, 63, 1048575), (Found{factor, 0, 9}));
    EXPECT_EQ(found(rules, HIER_OP_ALLTOALL, 8, 1048576), (Found{HIER_ALG_AUTO, 0, 10}));
    EXPECT_TRUE(rules.find(HIER_OP_ALLTOALL, 8, 1048576).matched);  // a rule that says auto
    // COMSIZE 64 and up: below its only MSGSIZE, 100, auto, not COMSIZE 8's rules.
    EXPECT_EQ(found(rules, HIER_OP_ALLTOALL, 64, 99), kNone);
    EXPECT_EQ(found(rules, HIER_OP_ALLTOALL, 64, 100), (Found{pairwise, 0, 13}));
    EXPECT_EQ(found(rules, HIER_OP_ALLTOALL, INT32_MAX, SIZE_MAX), (Found{pairwise, 0, 13}));
    // allreduce (id 2): one rule for every communicator.
    EXPECT_EQ(found(rules, HIER_OP_ALLREDUCE, 1, 0), (Found{HIER_ALG_FALLBACK, 0, 18}));
    EXPECT_EQ(found(rules, HIER_OP_ALLREDUCE, 0, 0), (Found{HIER_ALG_FALLBACK, 0, 18}));  // COMSIZE 0
    EXPECT_EQ(found(rules, HIER_OP_ALLREDUCE, -1, 0), kNone);
    EXPECT_EQ(found(rules, HIER_OP_GATHER, 16, 16), kNone);
    EXPECT_EQ(found(rules, HIER_OP_COUNT, 16, 16), kNone);
}

TEST(RulesFile, EveryCollectiveNamesMaxreqAndEmptyGroups)
{
    const RuleSet rules = parse("rule-file-version-2\r\n"
                                "7\r\n"
                                "0\n1\n2\n1\n0 hypercube 0 0\n"                  // allgather
                                "2\n1\n0\n2\n0 hypercube 0 0\n16384 fallback 0 0\n"  // allreduce
                                "3\n2\n4\n1\n0 lg_overlap 0 0 0\n32\n0\n"        // alltoall: 32+ ranks uncovered
                                "4\n1\n0\n1\n4096 pairwise 2 8192 64\n"          // alltoallv
                                "6\n1\n0\n0\n"                                   // barrier: no rules
                                "9\n1\n1\n1\n0 2 0 0 0\n"                         // gather
                                "15\n1\n1\n1\n0 auto 0 0 3\n");                  // scatter
    EXPECT_EQ(found(rules, HIER_OP_ALLGATHER, 2, 7), (Found{id_of(HIER_OP_ALLGATHER, "hypercube"), 0, 7}));
    EXPECT_EQ(found(rules, HIER_OP_ALLREDUCE, 3, 16383), (Found{id_of(HIER_OP_ALLREDUCE, "hypercube"), 0, 12}));
    EXPECT_EQ(found(rules, HIER_OP_ALLREDUCE, 3, 16384), (Found{HIER_ALG_FALLBACK, 0, 13}));
    EXPECT_EQ(found(rules, HIER_OP_ALLTOALL, 31, 0), (Found{id_of(HIER_OP_ALLTOALL, "lg_overlap"), 0, 18}));
    EXPECT_EQ(found(rules, HIER_OP_ALLTOALL, 32, 1 << 20), kNone);
    EXPECT_EQ(found(rules, HIER_OP_ALLTOALL, 3, 0), kNone);
    EXPECT_EQ(found(rules, HIER_OP_ALLTOALLV, 2, 0), kNone);  // alltoallv's size is 0: below 4096
    EXPECT_EQ(found(rules, HIER_OP_ALLTOALLV, 2, 4096), (Found{id_of(HIER_OP_ALLTOALLV, "pairwise"), 64, 25}));
    EXPECT_EQ(found(rules, HIER_OP_BARRIER, 2, 0), kNone);
    EXPECT_EQ(found(rules, HIER_OP_GATHER, 5, 0), (Found{2, 0, 34}));
    EXPECT_EQ(found(rules, HIER_OP_SCATTER, 5, 0), (Found{HIER_ALG_AUTO, 3, 39}));
    EXPECT_FALSE(rules.empty());
    EXPECT_TRUE(parse("0").empty());
    EXPECT_TRUE(parse("rule-file-version-1\n0\n# nothing\n").empty());
    EXPECT_TRUE(parse("1\n6\n0\n").empty());
}

TEST(RulesFile, MessageBytesAreTunedsFromHiersBlock)
{
    EXPECT_EQ(rules_message_bytes(HIER_OP_ALLTOALL, 100, 8), size_t(800));
    EXPECT_EQ(rules_message_bytes(HIER_OP_ALLGATHER, 100, 8), size_t(800));
    EXPECT_EQ(rules_message_bytes(HIER_OP_GATHER, 100, 8), size_t(800));
    EXPECT_EQ(rules_message_bytes(HIER_OP_SCATTER, 100, 8), size_t(800));
    EXPECT_EQ(rules_message_bytes(HIER_OP_ALLREDUCE, 100, 8), size_t(100));
    EXPECT_EQ(rules_message_bytes(HIER_OP_ALLTOALLV, 100, 8), size_t(0));
    EXPECT_EQ(rules_message_bytes(HIER_OP_BARRIER, 100, 8), size_t(0));
    EXPECT_EQ(rules_message_bytes(HIER_OP_ALLTOALL, SIZE_MAX / 2, 3), SIZE_MAX);  // saturates
    EXPECT_EQ(rules_message_bytes(HIER_OP_ALLTOALL, 100, 0), size_t(0));
    EXPECT_EQ(rules_collective_id(HIER_OP_ALLTOALL), 3);
    EXPECT_EQ(rules_collective_id(HIER_OP_SCATTER), 15);
    EXPECT_EQ(rules_collective_id(HIER_OP_COUNT), -1);
}

TEST(RulesFile, EveryMalformedFileGetsOneLineSayingWhereAndWhatWasExpected)
{
    const std::string alltoall_algorithms =
        "an algorithm of alltoall (0-13 or a name: auto, fallback, lg, lg_at_once, factor, edgecolor, pairwise, "
        "ring, ring2, mesh, xor, hypercube, lg_overlap, node_lg)";
    ASSERT_EQ(algorithm_id_count(HIER_OP_ALLTOALL), 14) << "a row was added: update the expected names";
    const std::string head = "1\n3\n1\n16\n1\n";  // alltoall, 16+ ranks, one rule on line 6
    // An algorithm that is not one of the collective's: a name, an id, a number.
    EXPECT_EQ(parse_error(head + "0 foo 0 0\n"), "line 6: expected " + alltoall_algorithms + ", got \"foo\"");
    EXPECT_EQ(parse_error(head + "0 14 0 0\n"), "line 6: expected " + alltoall_algorithms + ", got \"14\"");
    EXPECT_EQ(parse_error(head + "0 -1 0 0\n"), "line 6: expected " + alltoall_algorithms + ", got \"-1\"");
    EXPECT_EQ(parse_error(head + "0 LG 0 0\n"), "line 6: expected " + alltoall_algorithms + ", got \"LG\"");
    EXPECT_EQ(parse_error("1\n6\n1\n2\n1\n0 lg 0 0\n"),
              "line 6: expected an algorithm of barrier (0-2 or a name: auto, fallback, hypercube), got \"lg\"");
    // A collective id hier does not implement, or given twice.
    EXPECT_EQ(parse_error("1\n7\n0\n"),
              "line 2: expected a collective id hier implements (allgather 0, allreduce 2, alltoall 3, alltoallv 4, "
              "barrier 6, gather 9, scatter 15), got \"7\" (Open MPI's bcast, which hier does not implement)");
    EXPECT_EQ(parse_error("1\n22\n0\n"),
              "line 2: expected a collective id hier implements (allgather 0, allreduce 2, alltoall 3, alltoallv 4, "
              "barrier 6, gather 9, scatter 15), got \"22\"");
    EXPECT_EQ(parse_error("2\n3\n0\n# again\n3\n0\n"),
              "line 5: expected a collective not given before, got \"3\" (alltoall's rules begin on line 2)");
    // Negative numbers, anywhere.
    EXPECT_EQ(parse_error("-1\n"),
              "line 1: expected a count of collectives (0 to 7, the collectives hier implements), got \"-1\"");
    EXPECT_EQ(parse_error("1\n3\n1\n-16\n"),
              "line 4: expected a communicator size for alltoall (0 to 2147483647), got \"-16\"");
    EXPECT_EQ(parse_error(head + "-5 lg 0 0\n"),
              "line 6: expected a message size in bytes for alltoall from 16 ranks (0 to 9223372036854775807), got "
              "\"-5\"");
    EXPECT_EQ(parse_error(head + "0 lg -1 0\n"),
              "line 6: expected a fan-in/out (FANINOUT, which hier ignores: 0 to 9223372036854775807), got \"-1\"");
    EXPECT_EQ(parse_error(head + "0 lg 0 -1\n"),
              "line 6: expected a segment size (SEGSIZE, which hier ignores: 0 to 9223372036854775807), got \"-1\"");
    EXPECT_EQ(parse_error("rule-file-version-2\n" + head + "0 lg 0 0 -4\n"),
              "line 7: expected a window (MAXREQ: 0 to 2147483647, 0 keeps coll_hier_window), got \"-4\"");
    // Counts that do not match the entries: too large, too small.
    EXPECT_EQ(parse_error("1\n3\n1\n16\n2\n0 lg 0 0\n"),
              "line 6: expected a message size in bytes for alltoall from 16 ranks above 0 (they ascend), at most "
              "9223372036854775807, got the end of the file");
    EXPECT_EQ(parse_error("1\n3\n2\n16\n1\n0 lg 0 0\n"),
              "line 6: expected a communicator size for alltoall above 16 (they ascend), at most 2147483647, got the "
              "end of the file");
    EXPECT_EQ(parse_error("1\n3\n1\n16\n2\n0 lg 0 0\n32\n1\n0 lg 0 0\n"),
              "line 7: expected " + alltoall_algorithms +
                  ", got the end of the line (a rule is one line: MSGSIZE ALG FANINOUT SEGSIZE [MAXREQ])");
    EXPECT_EQ(parse_error(head + "0 lg 0 0\n1024 lg 0 0\n"),
              "line 7: expected the end of the file after the 1 collective counted on line 1, got \"1024\" (does a "
              "count above match its entries?)");
    EXPECT_EQ(parse_error("1\n3\n1\n16\n0\n0 lg 0 0\n"),
              "line 6: expected the end of the file after the 1 collective counted on line 1, got \"0\" (does a "
              "count above match its entries?)");
    EXPECT_EQ(parse_error("2\n3\n1\n16\n1\n0 lg 0 0\n"),
              "line 6: expected a collective id hier implements (allgather 0, allreduce 2, alltoall 3, alltoallv 4, "
              "barrier 6, gather 9, scatter 15), got the end of the file");
    EXPECT_EQ(parse_error("1\n3\n2 16\n"),
              "line 3: expected the end of the line after the count of communicator sizes, got \"16\" (one item per "
              "line: does a count above match its entries?)");
    // Sizes that do not ascend.
    EXPECT_EQ(parse_error("1\n3\n2\n16\n0\n16\n0\n"),
              "line 6: expected a communicator size for alltoall above 16 (they ascend), at most 2147483647, got "
              "\"16\"");
    EXPECT_EQ(parse_error("1\n3\n1\n16\n2\n4096 lg 0 0\n0 auto 0 0\n"),
              "line 7: expected a message size in bytes for alltoall from 16 ranks above 4096 (they ascend), at most "
              "9223372036854775807, got \"0\"");
    // Trailing junk, and what is not a decimal number.
    EXPECT_EQ(parse_error(head + "0 lg 0 0 x\n"),
              "line 6: expected the end of the line after the rule, got \"x\" (a rule is one line: MSGSIZE ALG "
              "FANINOUT SEGSIZE [MAXREQ])");
    EXPECT_EQ(parse_error(head + "0 lg 0 0 4\n"),
              "line 6: expected the end of the line after the rule, got \"4\" (MAXREQ needs rule-file-version-2 on "
              "the first line)");
    EXPECT_EQ(parse_error("rule-file-version-2\n" + head + "0 lg 0 0 4 4\n"),
              "line 7: expected the end of the line after the rule, got \"4\" (a rule is one line: MSGSIZE ALG "
              "FANINOUT SEGSIZE [MAXREQ])");
    EXPECT_EQ(parse_error(head + "0 lg 0 0\nend\n"),
              "line 7: expected the end of the file after the 1 collective counted on line 1, got \"end\" (does a "
              "count above match its entries?)");
    EXPECT_EQ(parse_error(head + "0x10 lg 0 0\n"),
              "line 6: expected a message size in bytes for alltoall from 16 ranks (0 to 9223372036854775807), got "
              "\"0x10\"");
    EXPECT_EQ(parse_error(head + "010 lg 0 0\n"),
              "line 6: expected a message size in bytes for alltoall from 16 ranks (0 to 9223372036854775807), got "
              "\"010\" (no leading 0: tuned reads it as octal)");
    EXPECT_EQ(parse_error(head + "0 02 0 0\n"),
              "line 6: expected " + alltoall_algorithms + ", got \"02\" (no leading 0: tuned reads it as octal)");
    EXPECT_EQ(parse_error("1\n3\n1\n+16\n"),
              "line 4: expected a communicator size for alltoall (0 to 2147483647), got \"+16\"");
    // Numbers that overflow.
    EXPECT_EQ(parse_error("1\n3\n1\n2147483648\n"),
              "line 4: expected a communicator size for alltoall (0 to 2147483647), got \"2147483648\"");
    EXPECT_EQ(parse_error(head + "9223372036854775808 lg 0 0\n"),
              "line 6: expected a message size in bytes for alltoall from 16 ranks (0 to 9223372036854775807), got "
              "\"9223372036854775808\"");
    EXPECT_EQ(parse_error(head + "0 lg 0 99999999999999999999999\n"),
              "line 6: expected a segment size (SEGSIZE, which hier ignores: 0 to 9223372036854775807), got "
              "\"99999999999999999999999\"");
    EXPECT_EQ(parse_error(head + "0 lg 1" + std::string(40, '0') + " 0\n"),
              "line 6: expected a fan-in/out (FANINOUT, which hier ignores: 0 to 9223372036854775807), got "
              "\"100000000000000000000000...\"");
    EXPECT_EQ(parse_error("rule-file-version-2\n" + head + "0 lg 0 0 2147483648\n"),
              "line 7: expected a window (MAXREQ: 0 to 2147483647, 0 keeps coll_hier_window), got \"2147483648\"");
    EXPECT_EQ(parse_error("1\n3\n4097\n"),
              "line 3: expected a count of communicator sizes for alltoall (0 to 4096), got \"4097\"");
    EXPECT_EQ(parse_error("1\n3\n1\n16\n4097\n"),
              "line 5: expected a count of message sizes for alltoall from 16 ranks (0 to 4096), got \"4097\"");
    EXPECT_EQ(parse_error("8\n"),
              "line 1: expected a count of collectives (0 to 7, the collectives hier implements), got \"8\"");
    // The version, the empty file, what cannot be shown.
    EXPECT_EQ(parse_error("rule-file-version-3\n0\n"),
              "line 1: expected rule-file-version-1 or rule-file-version-2 (or no version: 1), got "
              "\"rule-file-version-3\"");
    EXPECT_EQ(parse_error("rule-file-version-2 1\n"),
              "line 1: expected the end of the line after the version, got \"1\" (one item per line: does a count "
              "above match its entries?)");
    EXPECT_EQ(parse_error("0\nrule-file-version-2\n"),
              "line 2: expected the end of the file after the 0 collectives counted on line 1, got "
              "\"rule-file-version-2\" (does a count above match its entries?)");
    EXPECT_EQ(parse_error(""),
              "line 1: expected a count of collectives (0 to 7, the collectives hier implements), got the end of the "
              "file");
    EXPECT_EQ(parse_error("# only\n# comments\n"),
              "line 2: expected a count of collectives (0 to 7, the collectives hier implements), got the end of the "
              "file");
    EXPECT_EQ(parse_error("1\n3\n1\n16\n1\n0\n\n\n"),
              "line 6: expected " + alltoall_algorithms +
                  ", got the end of the file (a rule is one line: MSGSIZE ALG FANINOUT SEGSIZE [MAXREQ])");
    EXPECT_EQ(parse_error(std::string("1\n3\n1\n1\x01\x7f\n", 10)),
              "line 4: expected a communicator size for alltoall (0 to 2147483647), got \"1??\"");
}

TEST(RulesFile, TooLargeIsRefusedBeforeParsing)
{
    std::string text = "0\n";
    text += std::string(kMaxRulesFileBytes - text.size(), '#');
    parse(text);
    EXPECT_EQ(parse_error(text + "\n"), "is larger than 64 KiB");
}

TEST(RulesFile, TheVocabularyIsAnArgument)
{
    const RulesVocabulary two{[](hier_op_t) { return 3; },
                              [](hier_op_t, int id) -> const char * {
                                  static const char *const names[] = {"auto", "fallback", "mine"};
                                  return id >= 0 && id < 3 ? names[id] : nullptr;
                              }};
    RuleSet rules;
    std::string error;
    ASSERT_TRUE(parse_rules("1\n3\n1\n2\n1\n0 mine 0 0\n", two, &rules, &error)) << error;
    EXPECT_EQ(found(rules, HIER_OP_ALLTOALL, 2, 0), (Found{2, 0, 6}));
    EXPECT_FALSE(parse_rules("1\n3\n1\n2\n1\n0 lg 0 0\n", two, &rules, &error));
    EXPECT_EQ(error, "line 6: expected an algorithm of alltoall (0-2 or a name: auto, fallback, mine), got \"lg\"");
    EXPECT_NE(format_rules(parse("1\n3\n1\n2\n1\n0 2 0 0\n"), two).find("# alltoall, 2+ ranks, 0+ bytes: mine, window of coll_hier_window\n"),
              std::string::npos);
}

TEST(RulesFile, FormatWritesVersion2ThatReadsBackToTheSameRules)
{
    const char *const source = "7\n"
                               "0\n1\n2\n1\n0 hypercube 0 0\n"
                               "2\n1\n0\n2\n0 hypercube 0 0\n16384 fallback 0 0\n"
                               "3\n3\n4\n1\n0 lg_overlap 0 0\n32\n0\n1000\n2\n0 auto 1 1\n9223372036854775807 12 0 0\n"
                               "4\n1\n0\n1\n4096 pairwise 2 8192\n"
                               "6\n1\n0\n0\n"
                               "9\n1\n1\n1\n0 2 0 0\n"
                               "15\n1\n2147483647\n1\n0 auto 0 0\n";
    const RuleSet rules = parse(source);
    const std::string text = format_rules(rules);
    EXPECT_EQ(text.rfind("rule-file-version-2\n", 0), 0u) << text;
    EXPECT_NE(text.find("# alltoall, 4+ ranks, 0+ bytes: lg_overlap, window of coll_hier_window\n0 12 0 0\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("# allreduce, 0+ ranks, 16384+ bytes: fallback, window of coll_hier_window\n16384 1 0 0\n"),
              std::string::npos)
        << text;
    const RuleSet again = parse(text);
    EXPECT_TRUE(same_rules(rules, again)) << text;
    EXPECT_EQ(again.version, 2);
    EXPECT_EQ(format_rules(again), text);

    // Windows are written as MAXREQ, and read back.
    const RuleSet windows = parse(kDocExample);
    const std::string windows_text = format_rules(windows);
    EXPECT_NE(windows_text.find("# alltoall, 16+ ranks, 65536+ bytes: lg, window 4\n65536 2 0 0 4\n"),
              std::string::npos)
        << windows_text;
    EXPECT_TRUE(same_rules(windows, parse(windows_text)));
    EXPECT_FALSE(same_rules(windows, rules));
    EXPECT_EQ(format_rules(RuleSet()).find("0  # collectives\n") != std::string::npos, true);
    EXPECT_TRUE(parse(format_rules(RuleSet())).empty());
}

// Inputs from the fuzz target's corpus (test/fuzz: 24.7 million runs in
// 15 minutes, no crash, no broken contract): how tokens, comments, line ends
// and the end of the file meet.
TEST(RulesFile, FuzzRegressions)
{
    const int lg = id_of(HIER_OP_ALLTOALL, "lg");
    // A comment glued to a token, no final newline: MAXREQ 4 is read.
    EXPECT_EQ(found(parse("rule-file-version-2\n#ll\n1 #\n3\n1\n16\n1\n0 lg 0 0 4#c"), HIER_OP_ALLTOALL, 16, 0),
              (Found{lg, 4, 8}));
    // Bytes a comment may hold: NUL, anything above 0x7f.
    const char comment_bytes[] = "1 # c\xe0\x93\x9a\n3 #\0\0\x92ze\n1\n16\n1\n0 2 0 0\n";
    EXPECT_EQ(found(parse(std::string(comment_bytes, sizeof comment_bytes - 1)), HIER_OP_ALLTOALL, 16, 0),
              (Found{lg, 0, 6}));
    // No final newline after a count of 0; a group without rules.
    EXPECT_EQ(found(parse("1\n3\n1\n168\n0"), HIER_OP_ALLTOALL, 200, 0), kNone);
    // Vertical tabs and form feeds are blanks; CR alone does not end a line.
    EXPECT_EQ(found(parse("1\v\n3\f\n1\n16\n1\n0\vlg\f0 0\r\n"), HIER_OP_ALLTOALL, 16, 0), (Found{lg, 0, 6}));
    EXPECT_EQ(parse_error("1\r3\r0\r"),
              "line 1: expected the end of the line after the count of collectives, got \"3\" (one item per line: does "
              "a count above match its entries?)");
    // The end of the file on a rule's line, and a NUL inside a token.
    EXPECT_EQ(parse_error("1\n3\n1\n16\n1\n0 lg 0"),
              "line 6: expected a segment size (SEGSIZE, which hier ignores: 0 to 9223372036854775807), got the end "
              "of the file (a rule is one line: MSGSIZE ALG FANINOUT SEGSIZE [MAXREQ])");
    EXPECT_EQ(parse_error(std::string("1\n3\n1\n1\0\n", 9)),
              "line 4: expected a communicator size for alltoall (0 to 2147483647), got \"1?\"");
    // "1@1" is one token, not a number; "rule-file-version-2" only first.
    EXPECT_EQ(parse_error("1\n3\n1\n315\n1@1\n"),
              "line 5: expected a count of message sizes for alltoall from 315 ranks (0 to 4096), got \"1@1\"");
    EXPECT_EQ(parse_error("# comment\n\nrule-file-version\n"),
              "line 3: expected rule-file-version-1 or rule-file-version-2 (or no version: 1), got "
              "\"rule-file-version\"");
}

TEST(RulesFile, LoadNamesTheParameterAndTheFile)
{
    char path[] = "/tmp/hier_rules_XXXXXX";
    const int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    close(fd);
    std::ofstream(path) << "1\n3\n1\n16\n1\n\n0 foo 0 0\n";
    RuleSet rules;
    std::string error;
    EXPECT_FALSE(load_rules_file(path, &rules, &error));
    EXPECT_EQ(error.rfind(std::string("coll_hier_dynamic_rules ") + path + ": line 7: expected an algorithm of "
                                                                           "alltoall (0-13 or a name: auto, fallback, lg, ",
                          0),
              0u)
        << error;
    EXPECT_EQ(error.substr(error.size() - 12), "), got \"foo\"");
    std::ofstream(path) << kDocExample;
    EXPECT_TRUE(load_rules_file(path, &rules, &error)) << error;
    EXPECT_EQ(found(rules, HIER_OP_ALLTOALL, 16, 65536), (Found{id_of(HIER_OP_ALLTOALL, "lg"), 4, 8}));
    std::ofstream(path) << "0\n" << std::string(kMaxRulesFileBytes, '#');
    EXPECT_FALSE(load_rules_file(path, &rules, &error));
    EXPECT_EQ(error, std::string("coll_hier_dynamic_rules ") + path + ": is larger than 64 KiB");
    std::remove(path);
    EXPECT_FALSE(load_rules_file("/nonexistent/rules", &rules, &error));
    EXPECT_EQ(error, "coll_hier_dynamic_rules /nonexistent/rules: cannot be read: No such file or directory");
    EXPECT_FALSE(load_rules_file("/", &rules, &error));
    EXPECT_EQ(error, "coll_hier_dynamic_rules /: cannot be read: Is a directory");
}

} // namespace
} // namespace hier
