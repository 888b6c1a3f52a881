#!/usr/bin/env bash
# The demo: hier's factor alltoall against Open MPI's own choice, side by
# side, on uneven SMP nodes of 4, 3, 2 and 1 processes imposed on this host
# with coll_hier_node_map. Each side is one run of hier_bench; the table
# joins them. On one host all "nodes" share one memory and two cores, so this
# shows that the component is selected, runs and is correct; the single-port
# advantage of factor shows where a NIC is the bottleneck (the emulated
# cluster of contrib/cluster, when it exists).
#
#   contrib/demo.sh [min:max bytes per block]      default 1024:262144
# HIER_COMPONENT_DIR=DIR runs an uninstalled build (ompi/mca/coll/hier/.libs).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
source "$top/contrib/mpirun-local.sh"

sizes=${1:-1024:262144}
bench=$top/contrib/bench/hier_bench
[ -x "$bench" ] || { echo "demo: $bench is not built; run contrib/setup-debian.sh first" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

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
