/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The rules file of coll_hier_dynamic_rules: which hier algorithm, and which
// window, a collective runs for a range of communicator sizes and message
// sizes, overriding auto (docs/rules-file.md).
//
// Format: Open MPI tuned's dynamic rules file (coll_tuned_dynamic_file.c,
// Open MPI 4.1 and 5.0), so that a site's knowledge of it carries over:
//
//   [rule-file-version-2]        optional first token; version 1 without it
//   NCOL                         collectives that follow
//     COLID                      Open MPI's collective id (COLLTYPE): allgather 0,
//                                allreduce 2, alltoall 3, alltoallv 4, barrier 6,
//                                gather 9, scatter 15
//     NCOMSIZES                  communicator sizes that follow, ascending
//       COMSIZE                  from this many ranks up
//       NMSGSIZES                message sizes that follow, ascending
//         MSGSIZE ALG FANINOUT SEGSIZE [MAXREQ]
//
// Tokens are separated by white space; '#' starts a comment that runs to the
// end of the line. MAXREQ exists in version 2 only and, as in tuned, must be
// on SEGSIZE's line. Where hier departs from tuned:
//   - ALG is a hier algorithm id (as ompi_info lists coll_hier_<op>_algorithm:
//     0 auto, 1 fallback, 2... the registry's rows) or a hier algorithm name
//     (`lg`); a name makes the file hier's only. FANINOUT and SEGSIZE are
//     read and ignored. MAXREQ is hier's window (coll_hier_window); 0 or
//     absent keeps the coll_hier_window setting.
//   - Whatever no rule covers is auto: a communicator smaller than every
//     COMSIZE (tuned applies the first COMSIZE), a message smaller than every
//     MSGSIZE (tuned requires the first MSGSIZE to be 0), a collective not in
//     the file.
//   - It is strict where tuned skips what it cannot read: numbers are
//     decimal without sign or leading zero (tuned reads 010 as octal), sizes
//     strictly ascend, a collective appears once, a collective id hier does
//     not implement, a count that does not match its entries and anything
//     after the last collective are errors, each reported in one line.
//
// This file depends on nothing else of the core but hier_core.h (the algorithm
// names come in a RulesVocabulary), so that the fuzz target (test/fuzz) builds
// it alone with the sanitizers; rules_file_registry.cc gives the registry's
// vocabulary and the overloads that use it.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "hier_core.h"

namespace hier {

// The MCA parameter the file is given by, which starts each error line of
// load_rules_file.
constexpr const char *kRulesParameter = "coll_hier_dynamic_rules";
// Bytes a rules file may have: a site's file has tens of rules.
constexpr size_t kMaxRulesFileBytes = size_t(64) << 10;
// Communicator sizes of one collective, or message sizes of one communicator
// size, at most.
constexpr int kMaxRulesCount = 4096;

// The algorithms a file may name, per collective: the registry's
// (registry_vocabulary() in rules_file_registry.cc) or a test's.
struct RulesVocabulary {
    int (*id_count)(hier_op_t op);                 // ids of op, auto (0) and fallback (1) included
    const char *(*id_name)(hier_op_t op, int id);  // the name of an id below id_count
};

// One MSGSIZE line: what runs from message_bytes up (to the next rule's).
struct MessageRule {
    size_t message_bytes = 0;
    int algorithm = HIER_ALG_AUTO;  // an id of the vocabulary; HIER_ALG_AUTO: no override
    int window = 0;                 // MAXREQ; 0: the coll_hier_window setting
    int line = 0;                   // where it is in the file
};

// One COMSIZE: its message rules, from comm_size ranks up (to the next's).
// A COMSIZE without message rules still wins its communicator sizes: auto.
struct CommRules {
    int comm_size = 0;
    int line = 0;
    std::vector<MessageRule> messages;  // message_bytes strictly ascending
};

// What find() says for one call.
struct RuleMatch {
    bool matched = false;           // false: no rule covers the call (auto)
    int algorithm = HIER_ALG_AUTO;  // the rule's id; HIER_ALG_AUTO when none or the rule says auto
    int window = 0;                 // the rule's MAXREQ; 0: the coll_hier_window setting
    int line = 0;                   // the rule's line in the file, 0 when none
};

struct RuleSet {
    int version = 1;  // the file's: 1, or 2 with MAXREQ
    // Per collective, comm_size strictly ascending; empty: not in the file.
    std::array<std::vector<CommRules>, HIER_OP_COUNT> ops;

    // The rule for a call of op on comm_size ranks with message_bytes
    // (rules_message_bytes): the largest COMSIZE <= comm_size, then in it the
    // largest MSGSIZE <= message_bytes. Two binary searches; allocates
    // nothing, so that it can run at every call.
    RuleMatch find(hier_op_t op, int comm_size, size_t message_bytes) const;
    bool empty() const;
};

// The message size a rule's MSGSIZE is compared with, as tuned's dynamic
// decision computes it (coll_tuned_decision_dynamic.c), from hier's block:
// the call's count times its datatype's size as hier_core.h defines a block
// (alltoall's block for one peer, scatter's and gather's piece of one rank,
// allgather's contribution of one rank, allreduce's vector), which is the same
// on every rank, and the communicator's size:
//   alltoall, allgather, gather, scatter: block_bytes * comm_size
//   allreduce:                            block_bytes
//   alltoallv, barrier:                   0 (tuned's too: one rule per COMSIZE)
// Saturates at SIZE_MAX. (tuned takes scatter's and gather's size from the
// send count and type, which scatter's non-roots and gather's MPI_IN_PLACE
// root do not have; hier's block is the same on every rank, so every rank
// finds the same rule.)
size_t rules_message_bytes(hier_op_t op, size_t block_bytes, int comm_size);

// Open MPI's collective id (COLID) of op: 3 for alltoall.
int rules_collective_id(hier_op_t op);

// Parses the text of a rules file. Returns true and the rules in *rules, or
// false, an empty *rules and one line in *error, without a newline:
//   line 7: expected an algorithm of alltoall (0-12 or a name: auto, fallback, lg, ...), got "foo"
// ("got the end of the file" when it ends early). Never throws on bad input;
// may throw std::bad_alloc.
bool parse_rules(std::string_view text, const RulesVocabulary &vocabulary, RuleSet *rules, std::string *error);

// Writes rules as a version-2 file that parse_rules reads back to the same
// rules (same_rules): ALG as the id, with a comment line per rule naming the
// algorithm; MAXREQ only where the window is not 0. The ids must be the
// vocabulary's.
std::string format_rules(const RuleSet &rules, const RulesVocabulary &vocabulary);

// The same rules (what find() answers), whatever the versions and lines.
bool same_rules(const RuleSet &a, const RuleSet &b);

// Reads and parses the file at path (at most kMaxRulesFileBytes). Returns
// false and one line in *error naming the parameter and the file:
//   coll_hier_dynamic_rules /path/f: line 7: expected ..., got "foo"
//   coll_hier_dynamic_rules /path/f: cannot be read: No such file or directory
bool load_rules_file(const std::string &path, const RulesVocabulary &vocabulary, RuleSet *rules,
                     std::string *error);

// The registry's algorithms (registry.h: algorithm_id_count, algorithm_id_name),
// and the overloads that use them (rules_file_registry.cc, in libhiercore).
RulesVocabulary registry_vocabulary();
bool parse_rules(std::string_view text, RuleSet *rules, std::string *error);
std::string format_rules(const RuleSet &rules);
bool load_rules_file(const std::string &path, RuleSet *rules, std::string *error);

} // namespace hier
