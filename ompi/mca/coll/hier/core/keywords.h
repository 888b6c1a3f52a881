/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The keywords coll/hier's settings share, one constant each, so that the
// parsers and the texts that name them cannot drift apart.
#pragma once

namespace hier {

// The latency probe: coll_hier_cluster_map (clusters from its latencies),
// coll_hier_link_costs (the classes' costs measured) and coll_hier_cost
// (costs between node leaders).
constexpr const char *kProbeKeyword = "probe";
// coll_hier_cost: costs from locality levels (the default), or a matrix
// file after the prefix.
constexpr const char *kLocalityKeyword = "locality";
constexpr const char *kFileKeyword = "file:";
// hier decides: every algorithm parameter's (registry.h) and
// coll_hier_hypercube_embedding's first value. Open MPI's own collective:
// the algorithm parameters' second.
constexpr const char *kAutoKeyword = "auto";
constexpr const char *kFallbackKeyword = "fallback";

} // namespace hier
