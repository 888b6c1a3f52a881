/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The rules-file parser and writer (format in rules_file.h and
// docs/rules-file.md). Fuzzed by test/fuzz/fuzz_rules_file.cc; inputs that
// once broke it are regression cases in test/unit/test_rules_file.cc.
#include "rules_file.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>

#include "shown_text.h"

namespace hier {

namespace {

// tuned reads every number as a long.
constexpr uint64_t kMaxLong = INT64_MAX;
constexpr uint64_t kMaxMessageBytes = std::min<uint64_t>(INT64_MAX, SIZE_MAX);
// The collectives hier implements: a file names each once at most.
constexpr int kMaxCollectives = HIER_OP_COUNT;

// Open MPI's collective ids (COLLTYPE, coll_base_functions.h), to name the
// ones hier does not implement in an error.
const char *const kOmpiCollectives[] = {
    "allgather", "allgatherv", "allreduce", "alltoall", "alltoallv", "alltoallw",
    "barrier", "bcast", "exscan", "gather", "gatherv", "reduce",
    "reduce_scatter", "reduce_scatter_block", "scan", "scatter", "scatterv", "neighbor_allgather",
    "neighbor_allgatherv", "neighbor_alltoall", "neighbor_alltoallv", "neighbor_alltoallw"};

struct Collective {
    int id;  // COLID
    hier_op_t op;
    const char *name;
};

// The collectives hier implements, by ascending id: the order format_rules writes.
constexpr Collective kCollectives[] = {
    {0, HIER_OP_ALLGATHER, "allgather"}, {2, HIER_OP_ALLREDUCE, "allreduce"}, {3, HIER_OP_ALLTOALL, "alltoall"},
    {4, HIER_OP_ALLTOALLV, "alltoallv"}, {6, HIER_OP_BARRIER, "barrier"},     {9, HIER_OP_GATHER, "gather"},
    {15, HIER_OP_SCATTER, "scatter"}};
static_assert(std::size(kCollectives) == HIER_OP_COUNT, "a collective id for every op");

constexpr const char *kCollectiveIds =
    "allgather 0, allreduce 2, alltoall 3, alltoallv 4, barrier 6, gather 9, scatter 15";

constexpr const char *kRuleShape = " (a rule is one line: MSGSIZE ALG FANINOUT SEGSIZE [MAXREQ])";

constexpr const char *kOneItemPerLine = " (one item per line: does a count above match its entries?)";

const Collective *collective_of(hier_op_t op)
{
    for (const Collective &collective : kCollectives) {
        if (collective.op == op) {
            return &collective;
        }
    }
    return nullptr;
}

bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

std::string number_text(uint64_t value)
{
    return std::to_string(value);
}

enum class Decimal { ok, not_decimal, leading_zero, too_large };

// Digits only, no leading zero, at most max.
Decimal parse_decimal(std::string_view token, uint64_t max, uint64_t *value)
{
    if (token.empty() || !std::all_of(token.begin(), token.end(), is_digit)) {
        return Decimal::not_decimal;
    }
    if (token.size() > 1 && token[0] == '0') {
        return Decimal::leading_zero;
    }
    uint64_t result = 0;
    for (char c : token) {
        const uint64_t digit = uint64_t(c - '0');
        if (digit > max || result > (max - digit) / 10) {
            return Decimal::too_large;
        }
        result = result * 10 + digit;
    }
    *value = result;
    return Decimal::ok;
}

struct Token {
    std::string_view text;  // empty at the end of the file
    int line = 0;           // at the end of the file: the last line
};

// The file as tokens: white space separates them, '#' starts a comment that
// runs to the end of the line.
class Tokens {
  public:
    explicit Tokens(std::string_view text) : text_(text) { advance(); }

    const Token &peek() const { return next_; }

    Token take()
    {
        const Token token = next_;
        advance();
        return token;
    }

  private:
    void advance()
    {
        while (at_ < text_.size()) {
            const char c = text_[at_];
            if (c == '\n') {
                ++line_;
                ++at_;
            } else if (c == '#') {
                at_ = std::min(text_.find('\n', at_), text_.size());
            } else if (is_space(c)) {
                ++at_;
            } else {
                break;
            }
        }
        const size_t start = at_;
        while (at_ < text_.size() && !is_space(text_[at_]) && text_[at_] != '#') {
            ++at_;
        }
        next_.text = text_.substr(start, at_ - start);
        next_.line = line_;
        if (next_.text.empty() && line_ > 1 && !text_.empty() && text_.back() == '\n') {
            next_.line = line_ - 1;  // a final newline ends the last line, it does not start one
        }
    }

    std::string_view text_;
    size_t at_ = 0;
    int line_ = 1;
    Token next_;
};

class Parser {
  public:
    Parser(std::string_view text, const RulesVocabulary &vocabulary, std::string *error)
        : tokens_(text), vocabulary_(vocabulary), error_(error)
    {
    }

    bool parse(RuleSet *rules);

  private:
    bool fail(int line, const std::string &expected, const std::string &got, const std::string &note = "")
    {
        *error_ = "line " + std::to_string(line) + ": expected " + expected + ", got " + got + note;
        return false;
    }

    bool fail_at(const Token &token, const std::string &expected, const std::string &note = "")
    {
        return fail(token.line, expected, token.text.empty() ? "the end of the file" : "\"" + shown_text(token.text) + "\"",
                    note);
    }

    // token as a number from 0 to max; expected() says what it should be.
    template <class Expected>
    bool number(const Token &token, const Expected &expected, uint64_t max, uint64_t *value)
    {
        switch (parse_decimal(token.text, max, value)) {
        case Decimal::ok:
            return true;
        case Decimal::leading_zero:
            return fail_at(token, expected(), " (no leading 0: tuned reads it as octal)");
        default:
            return fail_at(token, expected());
        }
    }

    // An item alone on its line: the next token, a number from 0 to max.
    template <class Expected>
    bool item(const Expected &expected, const char *what, uint64_t max, uint64_t *value, Token *token)
    {
        *token = tokens_.take();
        return number(*token, expected, max, value) && end_of_line(*token, what);
    }

    // The next field of the rule on `line`, which must be on it.
    bool field_on(int line, const std::string &expected, Token *token)
    {
        *token = tokens_.peek();
        if (token->text.empty() || token->line != line) {
            return fail(line, expected, token->text.empty() ? "the end of the file" : "the end of the line",
                        kRuleShape);
        }
        tokens_.take();
        return true;
    }

    // Nothing after `last` on its line.
    bool end_of_line(const Token &last, const char *what, const char *note = kOneItemPerLine)
    {
        const Token &next = tokens_.peek();
        if (!next.text.empty() && next.line == last.line) {
            return fail_at(next, std::string("the end of the line after ") + what, note);
        }
        return true;
    }

    bool version(RuleSet *rules);
    bool collective(RuleSet *rules, std::array<int, HIER_OP_COUNT> *first_line);
    bool comm_rules(const Collective &collective, const CommRules *previous, CommRules *comm);
    bool message_rule(const Collective &collective, const CommRules &comm, MessageRule *rule);
    bool algorithm(const Collective &collective, int line, int *id);
    std::string algorithms_of(const Collective &collective) const;

    Tokens tokens_;
    const RulesVocabulary &vocabulary_;
    std::string *error_;
    int version_ = 1;
};

bool Parser::version(RuleSet *rules)
{
    const Token token = tokens_.peek();
    if (token.text.substr(0, 17) != "rule-file-version") {
        rules->version = version_ = 1;
        return true;
    }
    tokens_.take();
    if (token.text == "rule-file-version-1" || token.text == "rule-file-version-2") {
        rules->version = version_ = token.text.back() - '0';
        return end_of_line(token, "the version");
    }
    return fail_at(token, "rule-file-version-1 or rule-file-version-2 (or no version: 1)");
}

bool Parser::parse(RuleSet *rules)
{
    if (!version(rules)) {
        return false;
    }
    uint64_t count = 0;
    Token count_token;
    if (!item([] { return "a count of collectives (0 to " + std::to_string(kMaxCollectives) +
                          ", the collectives hier implements)"; },
              "the count of collectives", kMaxCollectives, &count, &count_token)) {
        return false;
    }
    std::array<int, HIER_OP_COUNT> first_line{};  // of each collective's id, 0: not given yet
    for (uint64_t i = 0; i < count; ++i) {
        if (!collective(rules, &first_line)) {
            return false;
        }
    }
    const Token &after = tokens_.peek();
    if (!after.text.empty()) {
        return fail_at(after, "the end of the file after the " + std::to_string(count) + " collective" +
                                  (count == 1 ? "" : "s") + " counted on line " + std::to_string(count_token.line),
                       " (does a count above match its entries?)");
    }
    return true;
}

bool Parser::collective(RuleSet *rules, std::array<int, HIER_OP_COUNT> *first_line)
{
    const Token token = tokens_.take();
    uint64_t id = 0;
    const std::string expected = std::string("a collective id hier implements (") + kCollectiveIds + ")";
    if (!number(token, [&] { return expected; }, kMaxLong, &id)) {
        return false;
    }
    const Collective *collective = nullptr;
    for (const Collective &candidate : kCollectives) {
        if (uint64_t(candidate.id) == id) {
            collective = &candidate;
        }
    }
    if (!collective) {
        return fail_at(token, expected,
                       id < std::size(kOmpiCollectives)
                           ? std::string(" (Open MPI's ") + kOmpiCollectives[id] + ", which hier does not implement)"
                           : std::string());
    }
    int &first = (*first_line)[collective->op];
    if (first != 0) {
        return fail_at(token, "a collective not given before",
                       std::string(" (") + collective->name + "'s rules begin on line " + std::to_string(first) + ")");
    }
    first = token.line;
    if (!end_of_line(token, "the collective id")) {
        return false;
    }

    uint64_t count = 0;
    Token count_token;
    if (!item([&] { return std::string("a count of communicator sizes for ") + collective->name + " (0 to " +
                           std::to_string(kMaxRulesCount) + ")"; },
              "the count of communicator sizes", kMaxRulesCount, &count, &count_token)) {
        return false;
    }
    std::vector<CommRules> &comms = rules->ops[collective->op];
    for (uint64_t i = 0; i < count; ++i) {
        CommRules comm;
        if (!comm_rules(*collective, comms.empty() ? nullptr : &comms.back(), &comm)) {
            return false;
        }
        comms.push_back(std::move(comm));
    }
    return true;
}

bool Parser::comm_rules(const Collective &collective, const CommRules *previous, CommRules *comm)
{
    const auto expected = [&] {
        return std::string("a communicator size for ") + collective.name +
               (previous ? " above " + std::to_string(previous->comm_size) + " (they ascend), at most " +
                               std::to_string(INT_MAX)
                         : " (0 to " + std::to_string(INT_MAX) + ")");
    };
    uint64_t size = 0;
    Token size_token;
    if (!item(expected, "the communicator size", INT_MAX, &size, &size_token)) {
        return false;
    }
    if (previous && size <= uint64_t(previous->comm_size)) {
        return fail_at(size_token, expected());
    }
    comm->comm_size = int(size);
    comm->line = size_token.line;

    uint64_t count = 0;
    Token count_token;
    if (!item([&] { return std::string("a count of message sizes for ") + collective.name + " from " +
                           std::to_string(comm->comm_size) + " ranks (0 to " + std::to_string(kMaxRulesCount) + ")"; },
              "the count of message sizes", kMaxRulesCount, &count, &count_token)) {
        return false;
    }
    for (uint64_t i = 0; i < count; ++i) {
        MessageRule rule;
        if (!message_rule(collective, *comm, &rule)) {
            return false;
        }
        comm->messages.push_back(rule);
    }
    return true;
}


bool Parser::message_rule(const Collective &collective, const CommRules &comm, MessageRule *rule)
{
    const MessageRule *previous = comm.messages.empty() ? nullptr : &comm.messages.back();
    const auto expected = [&] {
        return std::string("a message size in bytes for ") + collective.name + " from " +
               std::to_string(comm.comm_size) + " ranks" +
               (previous ? " above " + number_text(previous->message_bytes) + " (they ascend), at most " +
                               number_text(kMaxMessageBytes)
                         : " (0 to " + number_text(kMaxMessageBytes) + ")");
    };
    const Token size_token = tokens_.take();
    uint64_t bytes = 0;
    if (!number(size_token, expected, kMaxMessageBytes, &bytes)) {
        return false;
    }
    if (previous && bytes <= previous->message_bytes) {
        return fail_at(size_token, expected());
    }
    rule->message_bytes = size_t(bytes);
    rule->line = size_token.line;
    if (!algorithm(collective, rule->line, &rule->algorithm)) {
        return false;
    }
    // FANINOUT and SEGSIZE: tuned's, read and ignored.
    const char *const ignored[] = {"a fan-in/out (FANINOUT, which hier ignores: 0 to ",
                                   "a segment size (SEGSIZE, which hier ignores: 0 to "};
    Token token;
    for (const char *what : ignored) {
        const std::string expected_field = what + number_text(kMaxLong) + ")";
        uint64_t value = 0;
        if (!field_on(rule->line, expected_field, &token) ||
            !number(token, [&] { return expected_field; }, kMaxLong, &value)) {
            return false;
        }
    }
    // MAXREQ: in version 2, a number on SEGSIZE's line (tuned: a digit next on the line).
    const Token next = tokens_.peek();
    if (version_ == 2 && !next.text.empty() && next.line == rule->line &&
        (is_digit(next.text[0]) || next.text[0] == '-')) {
        token = tokens_.take();
        uint64_t window = 0;
        if (!number(token,
                    [] { return "a window (MAXREQ: 0 to " + std::to_string(INT_MAX) + ", 0 keeps coll_hier_window)"; },
                    INT_MAX, &window)) {
            return false;
        }
        rule->window = int(window);
    }
    const bool maxreq_in_version_1 = version_ == 1 && !next.text.empty() && is_digit(next.text[0]);
    return end_of_line(token, "the rule",
                       maxreq_in_version_1 ? " (MAXREQ needs rule-file-version-2 on the first line)" : kRuleShape);
}

bool Parser::algorithm(const Collective &collective, int line, int *id)
{
    Token token;
    if (!field_on(line, algorithms_of(collective), &token)) {
        return false;
    }
    const int count = vocabulary_.id_count(collective.op);
    if (count > 0 && is_digit(token.text[0])) {
        uint64_t value = 0;
        switch (parse_decimal(token.text, uint64_t(count - 1), &value)) {
        case Decimal::ok:
            *id = int(value);
            return true;
        case Decimal::leading_zero:
            return fail_at(token, algorithms_of(collective), " (no leading 0: tuned reads it as octal)");
        default:
            break;
        }
    } else {
        for (int i = 0; i < count; ++i) {
            const char *name = vocabulary_.id_name(collective.op, i);
            if (name && token.text == name) {
                *id = i;
                return true;
            }
        }
    }
    return fail_at(token, algorithms_of(collective));
}

// "an algorithm of alltoall (0-12 or a name: auto, fallback, lg, ...)"
std::string Parser::algorithms_of(const Collective &collective) const
{
    const int count = vocabulary_.id_count(collective.op);
    std::string names;
    for (int i = 0; i < count; ++i) {
        if (const char *name = vocabulary_.id_name(collective.op, i)) {
            names += (names.empty() ? "" : ", ") + std::string(name);
        }
    }
    return std::string("an algorithm of ") + collective.name + " (0-" + std::to_string(std::max(count - 1, 0)) +
           " or a name: " + names + ")";
}

// "alltoall, 16+ ranks, 65536+ bytes: lg, window 4"
std::string rule_comment(const Collective &collective, const CommRules &comm, const MessageRule &rule,
                         const RulesVocabulary &vocabulary)
{
    const char *name = vocabulary.id_name(collective.op, rule.algorithm);
    return std::string(collective.name) + ", " + std::to_string(comm.comm_size) + "+ ranks, " +
           number_text(rule.message_bytes) + "+ bytes: " +
           (name ? std::string(name) : "id " + std::to_string(rule.algorithm)) +
           (rule.window > 0 ? ", window " + std::to_string(rule.window) : ", window of coll_hier_window");
}

} // namespace

RuleMatch RuleSet::find(hier_op_t op, int comm_size, size_t message_bytes) const
{
    RuleMatch none;
    if (op < 0 || op >= HIER_OP_COUNT) {
        return none;
    }
    const std::vector<CommRules> &comms = ops[op];
    auto comm = std::upper_bound(comms.begin(), comms.end(), comm_size,
                                 [](int size, const CommRules &rules) { return size < rules.comm_size; });
    if (comm == comms.begin()) {
        return none;
    }
    --comm;
    auto rule = std::upper_bound(comm->messages.begin(), comm->messages.end(), message_bytes,
                                 [](size_t bytes, const MessageRule &rules) { return bytes < rules.message_bytes; });
    if (rule == comm->messages.begin()) {
        return none;
    }
    --rule;
    RuleMatch match;
    match.matched = true;
    match.algorithm = rule->algorithm;
    match.window = rule->window;
    match.line = rule->line;
    return match;
}

bool RuleSet::empty() const
{
    return std::all_of(ops.begin(), ops.end(), [](const std::vector<CommRules> &comms) { return comms.empty(); });
}

size_t rules_message_bytes(hier_op_t op, size_t block_bytes, int comm_size)
{
    switch (op) {
    case HIER_OP_ALLTOALL:
    case HIER_OP_ALLGATHER:
    case HIER_OP_GATHER:
    case HIER_OP_SCATTER: {
        const size_t ranks = comm_size > 0 ? size_t(comm_size) : 0;
        return ranks != 0 && block_bytes > SIZE_MAX / ranks ? SIZE_MAX : block_bytes * ranks;
    }
    case HIER_OP_ALLREDUCE:
        return block_bytes;
    default:  // alltoallv, barrier
        return 0;
    }
}

int rules_collective_id(hier_op_t op)
{
    const Collective *collective = collective_of(op);
    return collective ? collective->id : -1;
}

bool parse_rules(std::string_view text, const RulesVocabulary &vocabulary, RuleSet *rules, std::string *error)
{
    *rules = RuleSet();
    if (text.size() > kMaxRulesFileBytes) {
        *error = "is larger than " + std::to_string(kMaxRulesFileBytes >> 10) + " KiB";
        return false;
    }
    if (!Parser(text, vocabulary, error).parse(rules)) {
        *rules = RuleSet();
        return false;
    }
    error->clear();
    return true;
}

std::string format_rules(const RuleSet &rules, const RulesVocabulary &vocabulary)
{
    std::string out = "rule-file-version-2\n"
                      "# coll_hier_dynamic_rules (docs/rules-file.md): Open MPI tuned's rules file syntax,\n"
                      "# ALG hier's algorithm id, MAXREQ hier's window (absent: coll_hier_window)\n";
    const auto collectives = std::count_if(rules.ops.begin(), rules.ops.end(),
                                           [](const std::vector<CommRules> &comms) { return !comms.empty(); });
    out += std::to_string(collectives) + "  # collectives\n";
    for (const Collective &collective : kCollectives) {
        const std::vector<CommRules> &comms = rules.ops[collective.op];
        if (comms.empty()) {
            continue;
        }
        out += std::to_string(collective.id) + "  # " + collective.name + "\n";
        out += std::to_string(comms.size()) + "  # communicator sizes\n";
        for (const CommRules &comm : comms) {
            out += std::to_string(comm.comm_size) + "  # from " + std::to_string(comm.comm_size) + " ranks\n";
            out += std::to_string(comm.messages.size()) + "  # message sizes\n";
            for (const MessageRule &rule : comm.messages) {
                out += "# " + rule_comment(collective, comm, rule, vocabulary) + "\n";
                out += number_text(rule.message_bytes) + " " + std::to_string(rule.algorithm) + " 0 0";
                out += (rule.window > 0 ? " " + std::to_string(rule.window) : std::string()) + "\n";
            }
        }
    }
    return out;
}

bool same_rules(const RuleSet &a, const RuleSet &b)
{
    for (size_t op = 0; op < a.ops.size(); ++op) {
        const std::vector<CommRules> &x = a.ops[op], &y = b.ops[op];
        if (x.size() != y.size()) {
            return false;
        }
        for (size_t i = 0; i < x.size(); ++i) {
            if (x[i].comm_size != y[i].comm_size || x[i].messages.size() != y[i].messages.size()) {
                return false;
            }
            for (size_t j = 0; j < x[i].messages.size(); ++j) {
                const MessageRule &r = x[i].messages[j], &s = y[i].messages[j];
                if (r.message_bytes != s.message_bytes || r.algorithm != s.algorithm || r.window != s.window) {
                    return false;
                }
            }
        }
    }
    return true;
}

bool load_rules_file(const std::string &path, const RulesVocabulary &vocabulary, RuleSet *rules,
                     std::string *error)
{
    *rules = RuleSet();
    const std::string prefix = std::string(kRulesParameter) + " " + path + ": ";
    FILE *file = std::fopen(path.c_str(), "rb");
    if (!file) {
        *error = prefix + "cannot be read: " + std::strerror(errno);
        return false;
    }
    std::string text;
    char buffer[1 << 14];
    size_t got = 0;
    while (text.size() <= kMaxRulesFileBytes && (got = std::fread(buffer, 1, sizeof buffer, file)) > 0) {
        text.append(buffer, got);
    }
    const int failed = std::ferror(file) ? errno : 0;
    std::fclose(file);
    if (failed) {
        *error = prefix + "cannot be read: " + std::strerror(failed);
        return false;
    }
    if (!parse_rules(text, vocabulary, rules, error)) {
        *error = prefix + *error;
        return false;
    }
    return true;
}

} // namespace hier
