/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Host-pattern cluster maps: parser and matcher.
#include "hostmap.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>

namespace hier {

namespace {

constexpr const char *kExpected =
    "expected CLUSTER:HOSTS[;CLUSTER:HOSTS...], HOSTS comma-separated host names with bracket ranges, "
    "e.g. \"nancy:cvn[1-3];rennes:cvn[4-9]\"";
constexpr size_t kMaxDigits = 9;

// Numbers low..high; written with exactly `width` digits, or (width 0)
// without a leading zero.
struct NumberRange {
    long low, high;
    size_t width;
};

// A literal run of characters, or (ranges not empty) one number.
struct Piece {
    std::string literal;
    std::vector<NumberRange> ranges;
};

struct HostPattern {
    std::string text;
    std::vector<Piece> pieces;
};

struct HostCluster {
    std::string name;
    std::vector<HostPattern> patterns;
};

bool is_host_char(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
}

bool all_digits(const std::string &text)
{
    return !text.empty() && text.size() <= kMaxDigits &&
           std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Splits at `separator`, except inside brackets.
std::vector<std::string> split_outside_brackets(const std::string &text, char separator)
{
    std::vector<std::string> parts(1);
    int depth = 0;
    for (char c : text) {
        depth += c == '[' ? 1 : c == ']' ? -1 : 0;
        if (c == separator && depth <= 0) {
            parts.emplace_back();
        } else {
            parts.back() += c;
        }
    }
    return parts;
}

class Parser {
public:
    explicit Parser(const std::string &text) : text_(text) {}

    // The clusters, or empty and error() set.
    std::vector<HostCluster> parse();
    const std::string &error() const { return error_; }

private:
    bool fail(const std::string &what)
    {
        if (error_.empty()) {
            error_ = "coll_hier_cluster_map \"" + text_ + "\" " + what + "; " + kExpected;
        }
        return false;
    }
    bool parse_cluster(const std::string &text, HostCluster *cluster);
    bool parse_pattern(const std::string &cluster, const std::string &text, HostPattern *pattern);
    bool parse_ranges(const std::string &pattern, const std::string &text, std::vector<NumberRange> *ranges);

    const std::string &text_;
    std::string error_;
};

std::vector<HostCluster> Parser::parse()
{
    std::vector<HostCluster> clusters;
    for (const std::string &part : split_outside_brackets(text_, ';')) {
        HostCluster cluster;
        if (!parse_cluster(part, &cluster)) {
            return {};
        }
        for (const HostCluster &other : clusters) {
            if (other.name == cluster.name) {
                fail("names cluster \"" + cluster.name + "\" twice");
                return {};
            }
        }
        clusters.push_back(std::move(cluster));
    }
    return clusters;
}

bool Parser::parse_cluster(const std::string &text, HostCluster *cluster)
{
    if (text.empty()) {
        return fail("has an empty cluster");
    }
    const size_t colon = text.find(':');
    if (colon == std::string::npos) {
        return fail("has \"" + text + "\", a cluster without ':' before its hosts");
    }
    cluster->name = text.substr(0, colon);
    if (cluster->name.empty()) {
        return fail("has a cluster without a name before ':'");
    }
    if (!std::all_of(cluster->name.begin(), cluster->name.end(), is_host_char)) {
        return fail("has \"" + cluster->name + "\", a cluster name with a character other than letters, digits, "
                    "'.', '-', '_'");
    }
    for (const std::string &pattern : split_outside_brackets(text.substr(colon + 1), ',')) {
        HostPattern parsed;
        if (!parse_pattern(cluster->name, pattern, &parsed)) {
            return false;
        }
        cluster->patterns.push_back(std::move(parsed));
    }
    return true;
}

bool Parser::parse_pattern(const std::string &cluster, const std::string &text, HostPattern *pattern)
{
    pattern->text = text;
    if (text.empty()) {
        return fail("has an empty host pattern in cluster \"" + cluster + "\"");
    }
    for (size_t at = 0; at < text.size();) {
        const char c = text[at];
        if (c == '[') {
            const size_t close = text.find(']', at);
            if (close == std::string::npos) {
                return fail("has \"" + text + "\", whose '[' is not closed");
            }
            Piece number;
            if (!parse_ranges(text, text.substr(at + 1, close - at - 1), &number.ranges)) {
                return false;
            }
            pattern->pieces.push_back(std::move(number));
            at = close + 1;
        } else if (is_host_char(c)) {
            if (pattern->pieces.empty() || !pattern->pieces.back().ranges.empty()) {
                pattern->pieces.emplace_back();
            }
            pattern->pieces.back().literal += c;
            ++at;
        } else {
            return fail("has \"" + text + "\", a host pattern with '" + std::string(1, c) +
                        "' (host names are letters, digits, '.', '-', '_', and ranges in brackets)");
        }
    }
    return true;
}

bool Parser::parse_ranges(const std::string &pattern, const std::string &text, std::vector<NumberRange> *ranges)
{
    if (text.empty()) {
        return fail("has \"" + pattern + "\", with empty brackets");
    }
    for (const std::string &range : split_outside_brackets(text, ',')) {
        const size_t dash = range.find('-');
        const std::string low = range.substr(0, dash);
        const std::string high = dash == std::string::npos ? low : range.substr(dash + 1);
        if (!all_digits(low) || !all_digits(high)) {
            return fail("has \"" + pattern + "\", whose range \"" + range + "\" is not N or N-M (numbers of at most " +
                        std::to_string(kMaxDigits) + " digits)");
        }
        const size_t width = low.size() > 1 && low[0] == '0' ? low.size() : 0;
        const NumberRange parsed{std::stol(low), std::stol(high), width};
        if (parsed.low > parsed.high) {
            return fail("has \"" + pattern + "\", whose range \"" + range + "\" runs backwards");
        }
        if (width > 0 && high.size() != width) {
            return fail("has \"" + pattern + "\", whose range \"" + range + "\" pads its start but not its end "
                        "to the same width");
        }
        ranges->push_back(parsed);
    }
    return true;
}

// Does name[at..] match pieces[piece..]?
bool matches_from(const std::vector<Piece> &pieces, size_t piece, const std::string &name, size_t at)
{
    if (piece == pieces.size()) {
        return at == name.size();
    }
    const Piece &p = pieces[piece];
    if (p.ranges.empty()) {
        return name.compare(at, p.literal.size(), p.literal) == 0 &&
               matches_from(pieces, piece + 1, name, at + p.literal.size());
    }
    long value = 0;
    for (size_t digits = 1; digits <= kMaxDigits && at + digits <= name.size(); ++digits) {
        const char c = name[at + digits - 1];
        if (c < '0' || c > '9') {
            break;
        }
        value = value * 10 + (c - '0');
        const bool canonical = digits == 1 || name[at] != '0';
        const bool in_range = std::any_of(p.ranges.begin(), p.ranges.end(), [&](const NumberRange &r) {
            return value >= r.low && value <= r.high && (r.width > 0 ? digits == r.width : canonical);
        });
        if (in_range && matches_from(pieces, piece + 1, name, at + digits)) {
            return true;
        }
    }
    return false;
}

bool matches(const HostPattern &pattern, const std::string &host)
{
    const size_t dot = host.find('.');
    return matches_from(pattern.pieces, 0, host, 0) ||
           (dot != std::string::npos && matches_from(pattern.pieces, 0, host.substr(0, dot), 0));
}

} // namespace

bool is_host_map(const std::string &text)
{
    return text.find(':') != std::string::npos;
}

std::string check_host_map(const std::string &text)
{
    Parser parser(text);
    parser.parse();
    return parser.error();
}

std::vector<int> clusters_from_host_map(const std::string &text, const Topology &nodes,
                                        const std::vector<std::string> &host_of_rank, bool job_wide,
                                        std::string *error, const HostMapWording *wording)
{
    Parser parser(text);
    const std::vector<HostCluster> clusters = parser.parse();
    if (!parser.error().empty()) {
        *error = parser.error();
        return {};
    }
    const std::string prefix = "coll_hier_cluster_map \"" + (wording ? wording->shown : text) + "\" ";
    const std::string suffix = "; " + (wording ? wording->expected : std::string(kExpected));
    std::vector<std::vector<bool>> used(clusters.size());
    for (size_t c = 0; c < clusters.size(); ++c) {
        used[c].assign(clusters[c].patterns.size(), false);
    }
    std::unordered_map<std::string, int> cluster_of_host;
    std::vector<int> cluster_of_node(size_t(nodes.node_count()), -1);
    for (int rank = 0; rank < nodes.size(); ++rank) {
        const std::string &host = host_of_rank[rank];
        auto known = cluster_of_host.find(host);
        if (known == cluster_of_host.end()) {
            int found = -1;
            for (size_t c = 0; c < clusters.size(); ++c) {
                for (size_t i = 0; i < clusters[c].patterns.size(); ++i) {
                    if (!matches(clusters[c].patterns[i], host)) {
                        continue;
                    }
                    used[c][i] = true;
                    if (found >= 0 && found != int(c)) {
                        *error = prefix + "puts host \"" + host + "\" in clusters \"" + clusters[found].name +
                                 "\" and \"" + clusters[c].name + "\"" + suffix;
                        return {};
                    }
                    found = int(c);
                }
            }
            if (found < 0) {
                *error = prefix + "leaves host \"" + host + "\" (rank " + std::to_string(rank) + ") in no cluster" +
                         suffix;
                return {};
            }
            known = cluster_of_host.emplace(host, found).first;
        }
        int &node_cluster = cluster_of_node[nodes.node_of(rank)];
        if (node_cluster >= 0 && node_cluster != known->second) {
            *error = prefix + "puts the ranks of one node (coll_hier_node_map) in clusters \"" +
                     clusters[node_cluster].name + "\" and \"" + clusters[known->second].name + "\"" + suffix;
            return {};
        }
        node_cluster = known->second;
    }
    for (size_t c = 0; job_wide && c < clusters.size(); ++c) {
        for (size_t i = 0; i < clusters[c].patterns.size(); ++i) {
            if (!used[c][i]) {
                *error = prefix + "names \"" + clusters[c].patterns[i].text + "\" (cluster \"" + clusters[c].name +
                         "\"), which matches no host of the job" + suffix;
                return {};
            }
        }
    }
    return cluster_of_node;
}

} // namespace hier
