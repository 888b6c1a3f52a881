// The commands of hier-inspect, one file each (inspect_<name>.cc). A command
// gets its arguments (after its name) and returns the process's exit code:
// 0, 1 when what it inspected fails a check, 2 on bad usage (after one line
// on stderr saying what was expected).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cost_file.h"

namespace hier::inspect {

using Arguments = std::vector<std::string>;

int schedule(const Arguments &args);
int alltoall(const Arguments &args);
int torus(const Arguments &args);
int embed(const Arguments &args);
int embed_gains(const Arguments &args);

// Pair costs drawn from 1..max, symmetric, the same for a seed everywhere.
CostMatrix random_cost_matrix(int n, int max, uint64_t seed);

// Shared by the commands: parses "4,3,2,1" (positive integers), or writes
// one line to stderr naming `what` and returns an empty vector.
std::vector<int> parse_sizes(const std::string &text, const char *what);

} // namespace hier::inspect
