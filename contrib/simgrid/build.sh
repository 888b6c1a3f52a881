#!/usr/bin/env bash
# Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Builds hier_smpi (contrib/simgrid/hier_smpi.cc) with SimGrid's smpicxx
# against the core's static library, which `make` builds in the tree. The
# program lands in contrib/simgrid/.libs/ (ignored by git, as every .libs/);
# it is rebuilt when it is older than its source or the library.
#
#   contrib/simgrid/build.sh        prints the program's path
# Exit 77 with a SKIP: line when smpicxx is missing, 1 when the core is not built.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
core=$top/ompi/mca/coll/hier/core
lib=$core/.libs/libhiercore.a
out=$here/.libs/hier_smpi
command -v smpicxx >/dev/null || { echo "SKIP: smpicxx not found (apt-get install libsimgrid-dev)"; exit 77; }
[ -f "$lib" ] || { echo "build: $lib is missing (run make in $top)" >&2; exit 1; }
mkdir -p "$here/.libs"
if [ ! -x "$out" ] || [ "$here/hier_smpi.cc" -nt "$out" ] || [ "$lib" -nt "$out" ]; then
    # smpicxx compiles and links as one program: the simulated ranks'
    # main, the core (plain C++17, no MPI inside) beside it.
    smpicxx -std=c++17 -O2 -Wall -I"$core" -o "$out" "$here/hier_smpi.cc" "$lib" >&2
fi
echo "$out"
