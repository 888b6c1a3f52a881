#!/usr/bin/env bash
# Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# The demo: hier against Open MPI's own choice, side by side, where hier pays
# off. As root with network namespaces (`hier-cluster check`), on the
# emulated 4x4 torus of contrib/cluster (16 hosts, 100 Mbit/s links between
# neighbours only): MPI_Scatter and MPI_Gather of 16 KiB to 1 MiB blocks,
# where auto picks opt, through the compare driver (table with the physical
# limit; CSV and plot in demo-results/). Without them, on this host alone:
# MPI_Alltoall on uneven nodes of 4,3,2,1 processes imposed with
# coll_hier_node_map, which shows hier selected, running and correct, not
# faster: on one host every "node" shares one memory and two cores.
#
#   contrib/demo.sh [min:max bytes per block]
#     default 16384:1048576 on the torus, 1024:262144 on one host
# HIER_COMPONENT_DIR=DIR runs an uninstalled build (ompi/mca/coll/hier/.libs).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/contrib/mpirun-local.sh"

bench=$top/contrib/bench/hier_bench
[ -x "$bench" ] || { echo "demo: $bench is not built; run contrib/setup-debian.sh first" >&2; exit 1; }

torus_demo() {
    local collective
    for collective in scatter gather; do
        echo "demo: MPI_${collective^} on the emulated 4x4 torus (16 hosts), Open MPI's own against hier (auto)"
        "$top/contrib/bench/compare.sh" torus -c "$collective" -m "${1:-16384:1048576}" -r 1 \
            -H torus_dims=4x4 -o "$top/demo-results"
    done
}

one_host_demo() {
    local sizes=${1:-1024:262144} work
    work=$(mktemp -d)
    # shellcheck disable=SC2064  # expand now: work is local
    trap "rm -rf '$work'" EXIT
    run_side() {  # algorithm, output file
        hier_mpirun -np 10 --mca coll hier,tuned,libnbc,basic,inter,self \
            --mca coll_hier_node_map 4,3,2,1 --mca coll_hier_alltoall_algorithm "$1" \
            --mca coll_hier_verbose 1 "$bench" -c alltoall -m "$sizes" -i 20 -I 5 -s barrier -f csv \
            >"$2" 2>"$2.err"
        grep "^coll:hier" "$2.err" || true
    }
    echo "demo: MPI_Alltoall, 10 ranks on nodes of 4,3,2,1 (imposed on $(hostname)), times in us"
    run_side fallback "$work/default.csv"
    run_side factor "$work/factor.csv"
    join -t, <(awk -F, 'NR>1 {print $3","$4","$8}' "$work/default.csv" | sort -t, -k1,1) \
             <(awk -F, 'NR>1 {print $3","$4","$8}' "$work/factor.csv" | sort -t, -k1,1) |
        sort -t, -k1,1n |
        awk -F, 'BEGIN {printf "%10s %14s %14s %9s %s\n", "bytes", "open-mpi(us)", "factor(us)", "speed-up", "validation"}
                 {printf "%10d %14.1f %14.1f %8.2fx %s/%s\n", $1, $2, $4, $2 / $4, $3, $5}'
}

if why=$("$top/contrib/cluster/hier-cluster" check 2>&1); then
    torus_demo "$@"
else
    echo "demo: no emulated cluster here (${why#hier-cluster: }): the one-host demo"
    one_host_demo "$@"
fi
