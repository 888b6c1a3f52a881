/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// MPICH's coordinates file: rank to group.
#include "coordinates_file.h"

#include <algorithm>
#include <cctype>

namespace hier {

namespace {

constexpr const char *kLine = "\"RANK: GROUP, SWITCH, PORT\"";

void skip_blanks(const std::string &text, size_t *at)
{
    while (*at < text.size() && (text[*at] == ' ' || text[*at] == '\t')) {
        ++*at;
    }
}

// Reads optional blanks, then a number below `limit` at text[*at]; false if none.
bool read_number(const std::string &text, size_t *at, long limit, long *value)
{
    skip_blanks(text, at);
    const size_t start = *at;
    *value = 0;
    while (*at < text.size() && std::isdigit(static_cast<unsigned char>(text[*at]))) {
        *value = *value * 10 + (text[*at] - '0');
        if (*value >= limit) {
            return false;
        }
        ++*at;
    }
    return *at > start;
}

// Skips blanks and reads `separator`; false if something else comes.
bool read_separator(const std::string &text, size_t *at, char separator)
{
    skip_blanks(text, at);
    return *at < text.size() && text[(*at)++] == separator;
}

// One line's rank and group; false when it is not "RANK: GROUP, SWITCH, PORT".
bool parse_line(const std::string &line, int *rank, int *group)
{
    constexpr long kMaxId = 1L << 30;
    size_t at = 0;
    long number[4];
    const char separator[3] = {':', ',', ','};
    for (int i = 0; i < 4; ++i) {
        if (!read_number(line, &at, i == 0 ? kMaxCoordinateRanks : kMaxId, &number[i]) ||
            (i < 3 && !read_separator(line, &at, separator[i]))) {
            return false;
        }
    }
    if (line.find_first_not_of(" \t\r", at) != std::string::npos) {
        return false;
    }
    *rank = int(number[0]);
    *group = int(number[1]);
    return true;
}

} // namespace

std::map<int, int> parse_coordinates(std::string_view text, std::string *error)
{
    std::map<int, int> group_of_rank;
    int line_number = 0;
    size_t start = 0;
    while (start < text.size()) {
        const size_t end = std::min(text.find('\n', start), text.size());
        std::string line(text.substr(start, end - start));
        start = end + 1;
        ++line_number;
        line = line.substr(0, line.find('#'));
        if (line.find_first_not_of(" \t\r") == std::string::npos) {
            continue;
        }
        int rank = 0, group = 0;
        if (!parse_line(line, &rank, &group)) {
            *error = "line " + std::to_string(line_number) + " is not " + kLine +
                     " (numbers not negative, ranks below " + std::to_string(kMaxCoordinateRanks) + ")";
            return {};
        }
        if (!group_of_rank.emplace(rank, group).second) {
            *error = "line " + std::to_string(line_number) + " names rank " + std::to_string(rank) +
                     " again (one " + kLine + " line per rank)";
            return {};
        }
    }
    if (group_of_rank.empty()) {
        *error = std::string("names no rank (no ") + kLine + " line)";
    }
    return group_of_rank;
}

} // namespace hier
