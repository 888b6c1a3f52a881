/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// MPICH's coordinates file (MPIR_CVAR_COORDINATES_FILE), whose dragonfly
// groups become clusters (coll_hier_cluster_map "coordinates:PATH").
//
// One line per rank of MPI_COMM_WORLD: "RANK: GROUP, SWITCH, PORT", numbers
// not negative; blank lines and '#' comments are skipped. Only the group is
// used: the switch and the port are checked and kept for nothing.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace hier {

// Ranks (of MPI_COMM_WORLD) a coordinates file may name: 0 to this - 1.
constexpr int kMaxCoordinateRanks = 1 << 24;

// The group of every rank the text names. Empty and one line in *error
// (what is wrong and on which line, without the parameter's name) when a
// line is not "RANK: GROUP, SWITCH, PORT", a rank is named twice, or the
// text names no rank.
std::map<int, int> parse_coordinates(std::string_view text, std::string *error);

} // namespace hier
