/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// libFuzzer target for the rules-file parser (core/rules_file.cc), built
// with clang's -fsanitize=fuzzer,address,undefined (see Makefile.am) and a
// vocabulary of its own in place of the registry, so that it builds that
// file alone. Besides the sanitizers' checks it asserts the parser's
// contract: rules come back with no error, sizes strictly ascending, ids of
// the vocabulary, windows not negative, and format_rules' text reads back
// to the same rules; or empty rules come back with exactly one line of error.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "rules_file.h"

namespace {

// Like the registry's: auto, fallback, then rows; alltoall and alltoallv have more.
const char *const kAlltoall[] = {"auto", "fallback", "lg", "lg_at_once", "factor", "pairwise", "ring"};
const char *const kOthers[] = {"auto", "fallback", "hypercube"};

int id_count(hier_op_t op)
{
    return op == HIER_OP_ALLTOALL || op == HIER_OP_ALLTOALLV ? 7 : 3;
}

const char *id_name(hier_op_t op, int id)
{
    if (id < 0 || id >= id_count(op)) {
        return nullptr;
    }
    return op == HIER_OP_ALLTOALL || op == HIER_OP_ALLTOALLV ? kAlltoall[id] : kOthers[id];
}

const hier::RulesVocabulary kVocabulary{id_count, id_name};

void check(const hier::RuleSet &rules)
{
    for (int op = 0; op < HIER_OP_COUNT; ++op) {
        const auto &comms = rules.ops[size_t(op)];
        for (size_t i = 0; i < comms.size(); ++i) {
            if (comms[i].comm_size < 0 || (i > 0 && comms[i].comm_size <= comms[i - 1].comm_size) ||
                comms[i].messages.size() > size_t(hier::kMaxRulesCount)) {
                std::abort();
            }
            const auto &messages = comms[i].messages;
            for (size_t j = 0; j < messages.size(); ++j) {
                if ((j > 0 && messages[j].message_bytes <= messages[j - 1].message_bytes) ||
                    messages[j].algorithm < 0 || messages[j].algorithm >= id_count(hier_op_t(op)) ||
                    messages[j].window < 0 || messages[j].line <= 0) {
                    std::abort();
                }
                // Each rule is what find() answers at its own corner.
                const hier::RuleMatch match =
                    rules.find(hier_op_t(op), comms[i].comm_size, messages[j].message_bytes);
                if (!match.matched || match.line != messages[j].line) {
                    std::abort();
                }
            }
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    hier::RuleSet rules;
    std::string error;
    if (!hier::parse_rules(text, kVocabulary, &rules, &error)) {
        if (error.empty() || error.find('\n') != std::string::npos || !rules.empty()) {
            std::abort();
        }
        return 0;
    }
    if (!error.empty()) {
        std::abort();
    }
    check(rules);
    hier::RuleSet again;
    if (!hier::parse_rules(hier::format_rules(rules, kVocabulary), kVocabulary, &again, &error) ||
        !hier::same_rules(rules, again)) {
        std::abort();
    }
    return 0;
}
