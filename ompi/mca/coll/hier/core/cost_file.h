/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The cost-matrix file of coll_hier_cost=file:PATH, and its parser.
//
// Format (docs/hypercube.md): one row per line, entries separated by spaces
// or tabs, each a non-negative decimal number (digits, an optional fraction,
// an optional exponent: 3, 0.25, 1e-6; no sign, no inf or nan); '#' starts a
// comment that runs to the end of the line; blank lines are skipped; CR
// before LF is accepted. The matrix must be square and symmetric (the
// hypercube's exchanges go both ways). Its size says what it indexes: p x p
// for MPI_COMM_WORLD's ranks, N x N for nodes (the diagonal is then the cost
// between two processes of one node).
//
// This file depends on nothing else of the core, so that the fuzz target
// (test/fuzz) can build it alone with the sanitizers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hier {

struct CostMatrix {
    int n = 0;
    std::vector<double> values;  // row-major, n * n
    double at(int row, int column) const { return values[size_t(row) * size_t(n) + size_t(column)]; }
};

// Rows a file may have: a larger matrix would not fit the memory the
// component may spend on it (kMaxCostRows^2 doubles = 128 MiB).
constexpr int kMaxCostRows = 4096;
// Bytes read from a file at most (a kMaxCostRows matrix of short numbers
// fits with room to spare).
constexpr size_t kMaxCostFileBytes = size_t(256) << 20;

// Parses the text of a cost file. Returns the matrix, or n = 0 and one line
// in *error (what is wrong and where: "line 3: ..."), without a newline.
// Never throws on bad input; may throw std::bad_alloc.
CostMatrix parse_cost_matrix(std::string_view text, std::string *error);

// Reads a whole file (at most kMaxCostFileBytes). Returns false and one line
// in *error when it cannot ("cannot be read: No such file or directory").
bool read_cost_file(const std::string &path, std::string *text, std::string *error);

} // namespace hier
