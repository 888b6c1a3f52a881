/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Open MPI 4.1.4's own MPI_Alltoall, as the time model sees it: which
// algorithm tuned's fixed decision picks, and each as a schedule.
#pragma once

#include <cstddef>

#include "algorithms.h"

namespace hier {

enum class TunedAlltoall { Linear, Pairwise, ModifiedBruck, LinearSync, TwoProcs };

// tuned's choice for a communicator of `size` ranks and blocks of
// `block_bytes` bytes (coll_tuned_decision_fixed.c).
TunedAlltoall tuned_alltoall_choice(int size, size_t block_bytes);
// Its name in tuned's enum ("linear", "pairwise", "bruck", "linear_sync", "two_proc").
const char *tuned_alltoall_name(TunedAlltoall algorithm);
// The schedule that reproduces its messages.
Builder tuned_alltoall_builder(TunedAlltoall algorithm);

Schedule build_tuned_linear_alltoall(const Topology &topology, const Plans &plans, int rank, int root);
Schedule build_tuned_pairwise_alltoall(const Topology &topology, const Plans &plans, int rank, int root);
// bruck.cc
Schedule build_bruck_alltoall(const Topology &topology, const Plans &plans, int rank, int root);

} // namespace hier
