#!/usr/bin/env bash
# Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# A whole FFTW-MPI job (fftw_job.c) under Open MPI alone and under hier's
# auto, alternating, on the emulated cluster: what hier costs an application
# that makes many communicators and calls few of the collectives hier
# replaces.
#
#   contrib/bench/fftw-compare.sh [SCENARIO] [-n N] [-r RUNS] [-R REPEATS]
#     SCENARIO   brought up first (default two-clusters: 9 ranks, 5 ms backbone)
#     -n N       the transform's edge (default 64)
#     -r RUNS    jobs of each kind, alternating (default 3)
#     -R REPEATS forward-backward pairs per job (default 4)
#
# Prints each job's seconds (slowest rank, MPI_Init to the end), then the
# median of each kind and hier's over Open MPI's. Needs libfftw3-mpi-dev.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cluster="$here/../cluster/hier-cluster"
scenario=two-clusters n=64 runs=3 repeats=4
if [[ $# -gt 0 && $1 != -* ]]; then scenario=$1; shift; fi
while getopts n:r:R: opt; do
    case $opt in
        n) n=$OPTARG ;;
        r) runs=$OPTARG ;;
        R) repeats=$OPTARG ;;
        *) sed -n '4,/^set -euo/p' "$0" | sed '$d' >&2; exit 2 ;;
    esac
done
[[ -e /usr/include/fftw3-mpi.h ]] || { echo "fftw-compare: needs libfftw3-mpi-dev (apt-get install libfftw3-mpi-dev)" >&2; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"; "$cluster" down >/dev/null 2>&1 || true' EXIT
mpicc -O2 -o "$work/fftw_job" "$here/fftw_job.c" -lfftw3_mpi -lfftw3 -lm
"$cluster" up "$scenario" >&2
read -r -a args <<<"$("$cluster" mpirun-args)"
slots=$(awk -F'slots=' '{s += $2} END {print s}' /run/hier-cluster/hostfile)

declare -A seconds
for ((run = 1; run <= runs; ++run)); do
    for kind in open-mpi hier; do
        if [[ $kind == hier ]]; then coll=hier,tuned,libnbc,basic,inter,self; else coll=^hier; fi
        line=$(mpirun "${args[@]}" -np "$slots" --mca coll "$coll" "$work/fftw_job" "$n" "$repeats")
        [[ $line == *" valid" ]] || { echo "fftw-compare: $kind: $line" >&2; exit 1; }
        s=${line#*seconds=}; s=${s%% *}
        seconds[$kind]+="$s "
        echo "run $run $kind: $s s"
    done
done
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
ompi=$(median "${seconds[open-mpi]}") hier=$(median "${seconds[hier]}")
echo "median of $runs: open-mpi $ompi s, hier $hier s, hier/open-mpi $(awk -v h="$hier" -v o="$ompi" 'BEGIN {printf "%.3f", h / o}')"
