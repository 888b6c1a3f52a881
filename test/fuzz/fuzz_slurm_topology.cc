/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// libFuzzer target for Slurm's switch-tree parsers (core/slurm_topology.cc):
// the input as a topology.conf, and its first two lines as a task's
// SLURM_TOPOLOGY_ADDR and _PATTERN cut at a level. Besides the sanitizers'
// checks it asserts their contracts: a host map that hostmap.cc accepts and
// no error, or nothing and exactly one line of error.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "hostmap.h"
#include "slurm_topology.h"

namespace {

void check_one_line(const std::string &result, const std::string &error)
{
    if (result.empty() == error.empty() || error.find('\n') != std::string::npos) {
        std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string text(reinterpret_cast<const char *>(data), size);
    std::string error;
    const std::string map = hier::leaf_host_map_of_topology_conf(text, &error);
    check_one_line(map, error);
    if (!map.empty() && !hier::check_host_map(map).empty()) {
        std::abort();
    }

    const size_t first = text.find('\n');
    const std::string address = text.substr(0, first);
    const size_t second = first == std::string::npos ? first : text.find('\n', first + 1);
    const std::string pattern = first == std::string::npos ? ""
                                : text.substr(first + 1, second == std::string::npos ? second : second - first - 1);
    error.clear();
    const std::string cluster = hier::slurm_cluster_of(address, pattern, size % 4, &error);
    check_one_line(cluster, error);
    if (!cluster.empty() && address.compare(0, cluster.size(), cluster) != 0) {
        std::abort();  // a cluster is a prefix of the address: its switches
    }
    return 0;
}
