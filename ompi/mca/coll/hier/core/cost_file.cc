/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The cost-matrix file parser (format in cost_file.h). Fuzzed by
// test/fuzz/fuzz_cost_file.cc; inputs that once broke it are regression
// cases in test/unit/test_cost.cc.
#include "cost_file.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>

#include "shown_text.h"

namespace hier {

namespace {

// Fields longer than this are not numbers anyone writes.
constexpr size_t kMaxFieldChars = 64;

bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

// digits [. digits] [e [+-] digits], at least one digit before the exponent.
bool is_decimal(std::string_view field)
{
    size_t i = 0, digits = 0;
    for (; i < field.size() && is_digit(field[i]); ++i) {
        ++digits;
    }
    if (i < field.size() && field[i] == '.') {
        for (++i; i < field.size() && is_digit(field[i]); ++i) {
            ++digits;
        }
    }
    if (digits == 0) {
        return false;
    }
    if (i < field.size() && (field[i] == 'e' || field[i] == 'E')) {
        ++i;
        if (i < field.size() && (field[i] == '+' || field[i] == '-')) {
            ++i;
        }
        const size_t first = i;
        for (; i < field.size() && is_digit(field[i]); ++i) {
        }
        if (i == first) {
            return false;
        }
    }
    return i == field.size();
}

// One entry, or false and *why.
bool parse_entry(std::string_view field, double *value, std::string *why)
{
    if (field.size() > kMaxFieldChars) {
        *why = "an entry of " + std::to_string(field.size()) + " characters (\"" + shown_text(field) + "\") is too long";
        return false;
    }
    if (!is_decimal(field)) {
        const bool negative = field[0] == '-' && is_decimal(field.substr(1));
        *why = "\"" + shown_text(field) + (negative ? "\" is negative" : "\" is not a non-negative number");
        return false;
    }
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), *value);
    if (ec != std::errc() || end != field.data() + field.size() || !std::isfinite(*value)) {
        *why = "\"" + shown_text(field) + "\" is out of range";
        return false;
    }
    return true;
}

// The entries of one line (its comment cut off), appended to row.
bool split_row(std::string_view line, std::vector<double> *row, std::string *why)
{
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && is_blank(line[i])) {
            ++i;
        }
        const size_t start = i;
        while (i < line.size() && !is_blank(line[i])) {
            ++i;
        }
        if (i > start) {
            double value = 0;
            if (!parse_entry(line.substr(start, i - start), &value, why)) {
                return false;
            }
            row->push_back(value);
        }
    }
    return true;
}

// The shortest text that reads back as value.
std::string shown_number(double value)
{
    char text[32];
    const auto result = std::to_chars(text, text + sizeof text, value);
    return std::string(text, result.ptr);
}

// "1 entry", "3 entries".
std::string count_of(size_t count, const char *one, const char *many)
{
    return std::to_string(count) + " " + (count == 1 ? one : many);
}

std::string first_asymmetry(const CostMatrix &matrix)
{
    for (int row = 0; row < matrix.n; ++row) {
        for (int column = row + 1; column < matrix.n; ++column) {
            if (matrix.at(row, column) != matrix.at(column, row)) {
                return "cost(" + std::to_string(row) + ", " + std::to_string(column) + ") = " +
                       shown_number(matrix.at(row, column)) + " but cost(" + std::to_string(column) + ", " +
                       std::to_string(row) + ") = " + shown_number(matrix.at(column, row)) +
                       ": not symmetric (rows and columns count from 0)";
            }
        }
    }
    return {};
}

} // namespace

CostMatrix parse_cost_matrix(std::string_view text, std::string *error)
{
    CostMatrix matrix;
    std::vector<double> row;
    int rows = 0;
    size_t line_number = 0;
    auto fail = [&](const std::string &why) {
        *error = "line " + std::to_string(line_number) + ": " + why;
        return CostMatrix{};
    };
    for (size_t at = 0; at < text.size();) {
        const size_t newline = std::min(text.find('\n', at), text.size());
        std::string_view line = text.substr(at, newline - at);
        at = newline + 1;
        ++line_number;
        line = line.substr(0, std::min(line.find('#'), line.size()));
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        row.clear();
        std::string why;
        if (!split_row(line, &row, &why)) {
            return fail(why);
        }
        if (row.empty()) {
            continue;
        }
        if (rows == 0) {
            if (row.size() > size_t(kMaxCostRows)) {
                return fail("the first row has " + std::to_string(row.size()) + " entries, more than " +
                            std::to_string(kMaxCostRows));
            }
            matrix.n = int(row.size());
        } else if (row.size() != size_t(matrix.n)) {
            return fail("row " + std::to_string(rows) + " has " + count_of(row.size(), "entry", "entries") +
                        " but the first row has " + std::to_string(matrix.n));
        }
        if (rows == matrix.n) {
            return fail("more rows than the " + count_of(size_t(matrix.n), "column", "columns") + ": not square");
        }
        matrix.values.insert(matrix.values.end(), row.begin(), row.end());
        ++rows;
    }
    if (rows == 0) {
        *error = "has no rows";
        return {};
    }
    if (rows != matrix.n) {
        *error = "has " + count_of(size_t(rows), "row", "rows") + " of " + std::to_string(matrix.n) +
                 " entries: not square";
        return {};
    }
    if (std::string why = first_asymmetry(matrix); !why.empty()) {
        *error = why;
        return {};
    }
    return matrix;
}

bool read_cost_file(const std::string &path, std::string *text, std::string *error)
{
    FILE *file = std::fopen(path.c_str(), "rb");
    if (!file) {
        *error = std::string("cannot be read: ") + std::strerror(errno);
        return false;
    }
    text->clear();
    char buffer[1 << 16];
    size_t got = 0;
    while ((got = std::fread(buffer, 1, sizeof buffer, file)) > 0 && text->size() <= kMaxCostFileBytes) {
        text->append(buffer, got);
    }
    const int failed = std::ferror(file) ? errno : 0;
    std::fclose(file);
    if (failed) {
        *error = std::string("cannot be read: ") + std::strerror(failed);
        return false;
    }
    if (text->size() > kMaxCostFileBytes) {
        *error = "is larger than " + std::to_string(kMaxCostFileBytes >> 20) + " MiB";
        return false;
    }
    return true;
}

} // namespace hier
