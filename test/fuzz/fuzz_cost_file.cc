/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// libFuzzer target for the cost-file parser (core/cost_file.cc), built with
// clang's -fsanitize=fuzzer,address,undefined (see Makefile.am). Besides
// the sanitizers' checks it asserts the parser's contract: a matrix comes
// back square, symmetric, finite and non-negative with no error, or no
// matrix comes back with exactly one line of error.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cost_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    std::string error;
    const hier::CostMatrix matrix =
        hier::parse_cost_matrix(std::string_view(reinterpret_cast<const char *>(data), size), &error);
    if (matrix.n == 0) {
        if (error.empty() || error.find('\n') != std::string::npos || !matrix.values.empty()) {
            std::abort();
        }
        return 0;
    }
    if (!error.empty() || matrix.n < 0 || matrix.n > hier::kMaxCostRows ||
        matrix.values.size() != size_t(matrix.n) * size_t(matrix.n)) {
        std::abort();
    }
    for (int row = 0; row < matrix.n; ++row) {
        for (int column = 0; column < matrix.n; ++column) {
            const double value = matrix.at(row, column);
            if (!std::isfinite(value) || value < 0 || value != matrix.at(column, row)) {
                std::abort();
            }
        }
    }
    return 0;
}
