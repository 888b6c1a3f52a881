/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// libFuzzer target for MPICH's coordinates file parser
// (core/coordinates_file.cc). Besides the sanitizers' checks it asserts the
// parser's contract: ranks in range and no error, or no rank and exactly one
// line of error.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "coordinates_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    std::string error;
    const auto groups =
        hier::parse_coordinates(std::string_view(reinterpret_cast<const char *>(data), size), &error);
    if (groups.empty() == error.empty() || error.find('\n') != std::string::npos) {
        std::abort();
    }
    for (const auto &[rank, group] : groups) {
        if (rank < 0 || rank >= hier::kMaxCoordinateRanks || group < 0) {
            std::abort();
        }
    }
    return 0;
}
