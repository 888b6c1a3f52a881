#!/usr/bin/env bash
# Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# run_mpi_tests.sh: the MPI test layer of coll/hier (docs/development.md, "Tests").
#
# Runs alltoall_check under mpirun on one host with node maps that impose
# uneven SMP nodes (and clusters of them), alltoallv_check and coll_check
# (scatter, gather, allgather, allreduce, barrier). Every row of the core's
# registry (hier-inspect registry: the rows ompi_info lists for
# coll_hier_<collective>_algorithm) runs through the checker of its
# collective on every layout of that checker's list (ALLTOALL_LAYOUTS,
# ALLTOALLV_LAYOUTS, COLL_LAYOUTS): a new row is tested with no edit here.
# Where the registry says a row does not apply to a layout, the run uses
# the checker's smallest counts and the component's verbose line must say
# so ("fallback (ROW does not apply: WHY)"); every row must apply to at
# least one layout of its checker. Every row runs again in the checkers'
# nonblocking and persistent forms (--form) on the first layout where it
# applies, and nbc_check (many requests in flight on several communicators)
# with Open MPI's own, auto and rows by name (NBC_RUNS). Then hand-made runs
# check auto, the settings (embeddings, cost sources, pieces, rules files)
# and bad values.
# It checks
#   - that every case matches the point-to-point reference (the checkers);
#   - that the verbose line names the algorithm that was asked for;
#   - that every run's checksum equals the fallback run's for the same
#     collective, p and checker arguments;
#   - that bad parameter values give exactly one clear stderr line naming the
#     parameter, and still correct results (through the fallback).
# The last line of output is "N passed, M failed"; the exit code is nonzero if
# anything failed.
#
# usage: run_mpi_tests.sh [--plain] [--rows-only] [--quick] [--one-layout] [--logdir DIR] [--timeout SEC] ALLTOALL_CHECK COLL_CHECK ALLTOALLV_CHECK
#   --plain    run the matrix without coll/hier (coll list without "hier",
#              no verbose or error-line assertions): checks the checkers and
#              this driver against plain Open MPI
#   --logdir   where each run's stdout/stderr go (default: a new temp dir)
#   --timeout  seconds before a run counts as hung (default 120)
#   --rows-only  only the runs generated from the registry (with their
#              fallback references), not the hand-made ones after them
#   --quick    every run with the checkers' quick counts unless it names
#              its own (every datatype and communicator still; blocks up to
#              100 elements; alltoallv_check without its large pattern)
#   --one-layout  each row through each checker once, on the first layout
#              where it applies (and that layout's fallback): a sample of
#              the generated runs, for the sanitizers' run
# environment:
#   HIER_INSPECT        hier-inspect (default: contrib/inspect/hier-inspect
#                       beside this script), which lists the registry
#   HIER_BENCH          hier_bench, for the MPI_T selection check
#   HIER_NBC_CHECK      nbc_check (default: nbc_check beside ALLTOALL_CHECK)
#   HIER_MPIRUN_ENV     NAME=VALUE words each passed to the ranks with mpirun
#                       -x (e.g. LD_PRELOAD of a sanitizer runtime)
#   HIER_COMPONENT_DIR  directory holding an uninstalled mca_coll_hier.so; put
#                       first on mca_base_component_path
#   MPIRUN              mpirun command (default: mpirun)
set -euo pipefail

# ------------------------------------------------------------------ options

plain=0
rows_only=0
quick=0
one_layout=0
logdir=""
timeout_s=120
usage() { sed -n '/^# usage:/,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }

while (($#)); do
    case "$1" in
        --plain) plain=1 ;;
        --rows-only) rows_only=1 ;;
        --quick) quick=1 ;;
        --one-layout) one_layout=1 ;;
        --logdir) logdir=${2:?--logdir needs a directory}; shift ;;
        --timeout) timeout_s=${2:?--timeout needs seconds}; shift ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "run_mpi_tests.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
        *) break ;;
    esac
    shift
done
if (($# != 3)); then usage >&2; exit 2; fi
alltoall_checker=$1
coll_checker=$2
alltoallv_checker=$3
for checker in "$alltoall_checker" "$coll_checker" "$alltoallv_checker"; do
    if [[ ! -x $checker ]]; then
        echo "run_mpi_tests.sh: $checker is not an executable" >&2
        exit 2
    fi
done
[[ -n $logdir ]] || logdir=$(mktemp -d "${TMPDIR:-/tmp}/hier-mpi-tests.XXXXXX")
mkdir -p "$logdir"
MPIRUN=${MPIRUN:-mpirun}

# ---------------------------------------------------------------- the matrix

# Node maps (node sizes of consecutive ranks); p is their sum.
readonly MAPS=("1" "2,1" "1,2,3" "4,3,2,1" "5,1,1" "3,3,3" "5,4,4,2,1")
# The layouts every alltoall row of the registry runs on, with the fallback
# (first: its checksum is the reference) and auto: "NODE MAP|CLUSTERS|
# CHECKER ARGUMENTS" (CLUSTERS: coll_hier_cluster_map, sizes in nodes).
# The MAPS, then clusters: of one-process nodes, of SMP nodes, and three;
# the last three run the checker's --quick counts, to keep the layer's time
# down. p = 1: comm_query declines size-1 communicators, so no row runs
# there (the fallback and auto do, and print nothing).
ALLTOALL_LAYOUTS=()
for map in "${MAPS[@]}"; do ALLTOALL_LAYOUTS+=("$map||"); done
ALLTOALL_LAYOUTS+=("1,1,1,1,1,1,1|3,4|" "2,2,1,1,1|2,3|" "3,1,2|2,1|--quick" "1,1,1,1,1,1,1|2,2,3|--quick"
                   "2,1,1,2,1,1|2,2,2|--quick")
readonly ALLTOALL_LAYOUTS
# The rows run with coll_hier_window set in turn to each of these, so that
# the strict round order (1, the default) and windows of rounds in flight
# both run over real MPI: row i on layout j takes WINDOWS[(i + j) % 3].
readonly WINDOWS=(1 4 64)
# What `auto` must pick on these maps, with the link costs unknown: Open
# MPI's own (tuned's linear for these sizes, or its Bruck at p = 16, which
# no hier row beats on every machine the costs could be).
readonly AUTO_EXPECTED=fallback
# Bad values: "p|node map|algorithm|parameter the error line must name[|NAME=VALUE]",
# the last an extra MCA parameter.
readonly BAD_VALUES=(
    "10|4,3|auto|coll_hier_node_map"                # sums to 7, not 10
    "3|x|auto|coll_hier_node_map"                   # does not parse
    "5|0,5|auto|coll_hier_node_map"                 # a node of size 0
    "10|4,3,2,1|bogus|coll_hier_alltoall_algorithm" # unknown algorithm
    "10|4,3,2,1|auto|coll_hier_link_costs|coll_hier_link_costs=network=30us"  # no bandwidth
)

# cost_file KIND N: writes a random symmetric matrix (costs 1..9, 1 on the
# diagonal) of N rows into the log directory, coll_hier_cost's file format,
# and prints its path; KIND names what its rows are (ranks or nodes).
cost_file() {
    local file=$logdir/costs-$1-$2.txt
    awk -v n="$2" -v seed="$2" 'BEGIN {
        srand(seed)
        for (a = 0; a < n; ++a) for (b = a; b < n; ++b) c[a, b] = c[b, a] = (a == b ? 1 : 1 + int(9 * rand()))
        for (a = 0; a < n; ++a) { row = ""; for (b = 0; b < n; ++b) row = row (b ? " " : "") c[a, b]; print row }
    }' >"$file"
    echo "$file"
}

# The other collectives: one coll_check run per row,
#   "collective|algorithm[:window]|node map|extra args|expected verbose algorithm"
# - extra args: mpirun arguments, then, after a lone --, coll_check's own
#   (e.g. --cart 4x4: also a periodic Cartesian communicator of those dims);
# - expected verbose algorithm: what the verbose line on MPI_COMM_WORLD must
#   name ("fallback" matches "fallback (why)"), or ALGORITHM@COMMUNICATOR for
#   another communicator's line (e.g. "opt@coll_check cart-4x4"); with
#   ALGORITHM#DIMS (e.g. "opt#4x4", "opt#2x4@coll_check cart-2x4") that line
#   must also name the torus DIMS.
# A row's checksum must equal the fallback's for the same collective, p and
# coll_check arguments: the first fallback row of that kind, or, if none
# comes first, a fallback run the driver makes on the row's map (and its
# mpirun arguments, checking the same communicator's line). So adding an
# algorithm is one row, e.g.
#   "scatter|opt|4,4,4,4|--mca coll_hier_torus_dims 4x4 -- --cart 4x4|opt#4x4"
# One run covers every datatype, count, root, in-place variant and
# communicator of coll_check; each costs 1 to 5 s here at p <= 10 (scatter
# and gather, with every root, 20 to 25 s at p = 16): choose maps with that
# in mind. Scatter and gather have `opt` and `sdf` on a torus, which `auto`
# picks there (opt, where its rule predicts it faster than Open MPI's on
# every corner machine: the 2x2x2 scatter at 256 KiB blocks, the 2x4 gather
# at 16 KiB; its rows list that count first, since the verbose line reports
# the first call) and nowhere else.
# Barrier, allreduce and allgather have `hypercube`, which `auto` picks
# where the embedding's calc_cost is at least 15 % below the blind
# embedding's (here, coll_hier_cost locality: 2,1 43 %, 1,2,3 45 %, 2,2,2
# 29 %, 3,3,3 28 %, 4,3,2,1 25 %; 5,4,4,2,1 0 %, `hier-inspect embed --nodes
# MAP`), for allreduce under 16 KiB (the first call, which the verbose line
# reports, is one of Open MPI's own small internal ones: MPI_Comm_split's
# allgather, MPI_Comm_dup's allreduce).
readonly COLL_RUNS=(
    "scatter|fallback|4,3,2,1||fallback"
    "scatter|auto|4,3,2,1||fallback"
    "scatter|fallback|5,1,1||fallback"
    "scatter|auto|5,1,1||fallback"
    "gather|fallback|4,3,2,1||fallback"
    "gather|auto|4,3,2,1||fallback"
    "gather|fallback|1,2,3||fallback"
    "gather|auto|1,2,3||fallback"
    "allgather|fallback|3,3,3||fallback"
    "allgather|auto|3,3,3||hypercube"
    "allgather|fallback|2,1||fallback"
    "allgather|auto|2,1||hypercube"
    "allreduce|fallback|4,3,2,1||fallback"
    "allreduce|auto|4,3,2,1||hypercube"
    "allreduce|fallback|2,2,2|-- --cart 3x2|fallback"
    "allreduce|auto|2,2,2|-- --cart 3x2|hypercube"
    "barrier|fallback|5,4,4,2,1|-- --cart 4x4|fallback"
    "barrier|auto|5,4,4,2,1|-- --cart 4x4|fallback"
    "barrier|fallback|1,2,3||fallback"
    "barrier|auto|1,2,3||hypercube"
    # The hypercube on each embedding once and each cost source once
    # (locality, a matrix of MPI_COMM_WORLD's ranks, a matrix of the map's
    # nodes, the latency probe), folded and not, with windows.
    "barrier|hypercube:8|5,1,1|--mca coll_hier_hypercube_embedding refine|hypercube"
    "barrier|hypercube|4,4,4,4|--mca coll_hier_hypercube_embedding blind|hypercube"
    "allreduce|hypercube|4,3,2,1|--mca coll_hier_hypercube_embedding dim2 --mca coll_hier_cost file:$(cost_file ranks 10)|hypercube"
    "allreduce|hypercube:3|2,2,2|--mca coll_hier_hypercube_embedding eff --mca coll_hier_cost probe -- --cart 3x2|hypercube"
    "allgather|hypercube|3,3,3|--mca coll_hier_hypercube_embedding tsts|hypercube"
    "allgather|hypercube:64|2,1|--mca coll_hier_cost file:$(cost_file nodes 2)|hypercube"
    # auto on tori (the registry's rows run on them from COLL_LAYOUTS).
    "scatter|auto|2,2,2,2|--mca coll_hier_torus_dims 2x2x2 -- --counts 65536,0,1|opt#2x2x2"
    "gather|auto|2,2,2,2|-- --counts 4096,0,1 --cart 2x4|opt#2x4@coll_check cart-2x4"
)
# The layouts every row of the registry for these collectives runs on:
# "collective|node map|extra args|where", extra args as in COLL_RUNS; where:
# what the verbose line must add to the row's name, #DIMS[@COMMUNICATOR]
# as in COLL_RUNS (empty: the row's name alone on MPI_COMM_WORLD). A row
# runs with the fallback's checksum as reference (the driver runs the
# fallback first where no row of COLL_RUNS did). Tori: coll_hier_torus_dims
# (world, dup and reversed have its size; the parity halves have no torus
# and fall back) and periodic Cartesian communicators (coll_check's
# cart-DIMS), which win over the parameter. Counts 0, 1 and 4096 (7 adds
# time, not cases: no count is special here); 16 ranks once, for scatter
# (every root costs 25 s there), the rest on 6 and 8.
readonly COLL_LAYOUTS=(
    "scatter|4,3,2,1||"
    "scatter|5,1,1||"
    "scatter|2,2,2,2|--mca coll_hier_torus_dims 2x2x2 -- --counts 0,1,4096|#2x2x2"
    "scatter|2,2,2|--mca coll_hier_torus_dims 1x3x2 -- --counts 0,1,4096|#1x3x2"
    "scatter|2,2,2,2|--mca coll_hier_torus_dims 2x2x2 -- --counts 0,1,4096 --cart 2x4|#2x4@coll_check cart-2x4"
    "scatter|4,4,4,4|--mca coll_hier_torus_dims 4x4 -- --counts 0,1,4096|#4x4"
    "gather|4,3,2,1||"
    "gather|1,2,3||"
    "gather|2,2,2,2|--mca coll_hier_torus_dims 2x2x2 -- --counts 0,1,4096|#2x2x2"
    "gather|2,2,2|--mca coll_hier_torus_dims 1x3x2 -- --counts 0,1,4096|#1x3x2"
    "gather|2,2,2,2|-- --counts 4096,0,1 --cart 2x4|#2x4@coll_check cart-2x4"
    "allgather|3,3,3||"
    "allgather|2,1||"
    "allreduce|4,3,2,1||"
    "allreduce|2,2,2|-- --cart 3x2|"
    "barrier|5,4,4,2,1|-- --cart 4x4|"
    "barrier|1,2,3||"
)
# The layouts every alltoallv row of the registry runs on, with the
# fallback and auto: "NODE MAP|CLUSTERS|CHECKER ARGUMENTS"; SMP nodes (p =
# 10, and 4 for xor's powers of two), clusters of SMP and one-process nodes.
readonly ALLTOALLV_LAYOUTS=(
    "4,3,2,1||"
    "3,1||"
    "2,2,1,1,1|2,3|"
    "1,1,1,1,1,1,1|2,2,3|--comms world,parity"
    # a cluster of one rank: lg_overlap gives it no TMP, the size pass must
    # still run there as on the others
    "3,2,1|1,1,1|--comms world,dup"
)
# coll_hier_torus_dims that does not parse or fit: "collective|node map|value",
# with opt asked for; one error line, and the fallback's results (a row
# above gives the checksum).
readonly TORUS_BAD_VALUES=("scatter|2,2,2,2|8x" "gather|2,2,2,2|4x4")
# Unknown algorithm names: "collective|node map" (a map of a row above
# without extra args, whose fallback checksum the results must match).
readonly COLL_BAD_VALUES=("scatter|5,1,1" "gather|1,2,3" "allgather|2,1" "allreduce|4,3,2,1"
                          "barrier|1,2,3")
# The alltoall by the hypercube algorithm on the cost-aware embedding:
# "node map|embedding|cost source|window", each embedding and cost source
# once; file:ranks and file:nodes are matrices cost_file writes.
readonly HYPERCUBE_ALLTOALL_RUNS=(
    "4,3,2,1|auto|locality|1"
    "5,1,1|blind|locality|4"
    "1,2,3|dim2|file:ranks|1"
    "3,3,3|tsts|probe|1"
    "2,1|eff|locality|1"
    "5,4,4,2,1|refine|file:nodes|8"
)
# Bad hypercube settings: "parameter|value"; one line naming the
# parameter, and the fallback's results.
printf '0 1\n2 0\n' >"$logdir/costs-asymmetric.txt"
readonly HYPERCUBE_BAD_VALUES=(
    "coll_hier_cost|bogus"
    "coll_hier_cost|file:$logdir/costs-asymmetric.txt"
    "coll_hier_hypercube_embedding|bogus"
)

# ------------------------------------------------------------- mpirun setup

# `inter` must stay in the list: without it, intercommunicator collectives fall
# to coll/basic, whose MPI_Scatter crashes in Open MPI 4.1.4.
coll_list=hier,tuned,libnbc,basic,inter,self
((plain)) && coll_list=tuned,libnbc,basic,inter,self
mpirun_args=(--allow-run-as-root --oversubscribe --mca mpi_yield_when_idle 1
             --timeout "$timeout_s" --bind-to none)
# Every run is on this one host, where Open MPI selects ob1 over shared
# memory anyway: naming it spares each of the layer's hundreds of launches
# the opening of UCX, OFI and TCP (about a quarter of a 10-rank job's time).
ompi_version=$("$MPIRUN" --version 2>/dev/null | awk 'NR == 1 {print $NF}')
ompi_shm_btl=vader
[[ $ompi_version == 4.* ]] || ompi_shm_btl=sm
export OMPI_MCA_pml=ob1 OMPI_MCA_osc=^ucx OMPI_MCA_btl=self,$ompi_shm_btl
# --quick: the checkers' default counts are the quick ones everywhere (the
# hand-made runs' too), unless a run names its own.
((quick)) && mpirun_args+=(-x HIER_CHECK_COUNTS=0,1,7,100)
for word in ${HIER_MPIRUN_ENV:-}; do mpirun_args+=(-x "$word"); done
inspect=${HIER_INSPECT:-$(dirname "$0")/../../contrib/inspect/hier-inspect}
if [[ ! -x $inspect ]]; then
    echo "run_mpi_tests.sh: $inspect is not built (make, or set HIER_INSPECT): it lists the registry's rows" >&2
    exit 2
fi
if [[ -n ${HIER_COMPONENT_DIR:-} ]] && ((!plain)); then
    if [[ ! -e $HIER_COMPONENT_DIR/mca_coll_hier.so ]]; then
        echo "run_mpi_tests.sh: no mca_coll_hier.so in HIER_COMPONENT_DIR=$HIER_COMPONENT_DIR" >&2
        exit 2
    fi
    # shellcheck source=../../contrib/mpirun-local.sh
    source "$(dirname "$0")/../../contrib/mpirun-local.sh"   # hier_pkglibdir
    mpirun_args+=(--mca mca_base_component_path "$HIER_COMPONENT_DIR:$(hier_pkglibdir)")
fi
# The link costs are unknown unless a check says otherwise (on its command
# line, which wins over the environment): what auto picks from a probe of
# this shared host would differ from run to run, and the checks that expect
# a pick are written for unknown costs. The probe (the default) has checks of
# its own, and so have auto's measurements (coll_hier_auto_trial_calls, off
# by default).
export OMPI_MCA_coll_hier_link_costs=

# Open MPI before 4.1.5 has a modified-Bruck alltoall (tuned algorithm 3) that
# corrupts data or crashes when the send and receive datatypes differ
# (open-mpi/ompi#10488, fixed in 4.1.5). tuned picks it for communicators of
# 16 or more ranks and small blocks, i.e. in our p = 16 runs; the fallback
# would then fail alltoall_check's contig->vector cases through no fault of
# hier. On those versions and sizes, pin tuned's alltoall to pairwise.
readonly BRUCK_BUG_MIN_P=16
bruck_bug=0
if [[ -n $ompi_version ]] &&
   [[ $(printf '%s\n4.1.5\n' "$ompi_version" | sort -V | head -n1) != 4.1.5 ]]; then
    bruck_bug=1
fi
# tuned_pin P: sets the array pin to the mpirun arguments needed for P ranks.
tuned_pin() {
    pin=()
    if ((bruck_bug && $1 >= BRUCK_BUG_MIN_P)); then
        pin=(--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_alltoall_algorithm 2)
    fi
}

# ------------------------------------------------------------------- helpers

passed=0
failed=0
run_no=0

# A node map's ranks, nodes, and sockets (a node's written as sizes joined by +).
map_size() { local s=0 x sizes; IFS=,+ read -ra sizes <<<"$1"; for x in "${sizes[@]}"; do s=$((s + x)); done; echo "$s"; }
map_nodes() { local sizes; IFS=, read -ra sizes <<<"$1"; echo "${#sizes[@]}"; }
map_sockets() { local sizes; IFS=,+ read -ra sizes <<<"$1"; echo "${#sizes[@]}"; }

pass() { passed=$((passed + 1)); echo "PASS: $1"; }
# fail NAME REASON [LOG]: on failure show the log's tail (once per run), so
# that CI output alone explains the failure.
shown_log=""
fail() {
    failed=$((failed + 1))
    echo "FAIL: $1: $2"
    if [[ -n ${3:-} && $3 != "$shown_log" ]]; then
        shown_log=$3
        echo "  --- $(cat "$3.cmd")"
        echo "  --- tail of $3.out"; tail -n 15 "$3.out" | sed 's/^/  | /'
        echo "  --- tail of $3.err"; tail -n 25 "$3.err" | sed 's/^/  | /'
    fi
}

# run_check NAME P MPIRUN_ARGS... -- CHECKER [ARGS...]: runs a checker on P
# ranks with extra mpirun arguments; leaves the log base name in $log, the
# exit code in $rc and the checker's name (the prefix of its lines) in $prog.
run_check() {
    local name=$1 p=$2; shift 2
    local extra=()
    while [[ $1 != -- ]]; do extra+=("$1"); shift; done
    shift
    prog=$(basename "$1")
    run_no=$((run_no + 1))
    log=$logdir/$(printf '%02d' "$run_no")-${name//[^A-Za-z0-9=_.-]/_}
    local pin
    tuned_pin "$p"
    local cmd=("$MPIRUN" "${mpirun_args[@]}" "${extra[@]}" "${pin[@]}" -np "$p" "$@")
    echo "${cmd[*]}" >"$log.cmd"
    rc=0
    # mpirun's own --timeout kills every process of the job; the outer timeout
    # is the backstop for a hung mpirun, whose killing may leave processes.
    timeout -k 10 $((timeout_s + 30)) "${cmd[@]}" >"$log.out" 2>"$log.err" || rc=$?
}

# check_result NAME: the run exited 0 and its checker reported no failure.
check_result() {
    local summary
    summary=$(grep -E "^$prog: [0-9]+ passed, [0-9]+ failed\$" "$log.out" || true)
    if ((rc == 124 || rc == 137)) ||
       grep -q 'time limit for job execution has been reached' "$log.err"; then
        fail "$1" "timed out after ${timeout_s} s" "$log"
    elif [[ -z $summary ]]; then
        fail "$1" "no summary line (exit code $rc)" "$log"
    elif [[ $summary != *" 0 failed" ]] || ((rc != 0)); then
        fail "$1" "${summary#"$prog: "} (exit code $rc)" "$log"
    else
        pass "$1 (${summary#"$prog: "})"
    fi
}

# The checksum line of the last run, or nothing.
log_checksum() { sed -n "s/^$prog: checksum \([0-9a-f]*\)\$/\1/p" "$log.out"; }

# check_checksum NAME KEY: equal to the checksum of the fallback run of KEY
# (a checker's checksum depends only on p and its case list: the key is p,
# with the collective and checker arguments for coll_check).
declare -A reference_checksum
check_checksum() {
    local sum
    sum=$(log_checksum)
    if [[ -z $sum ]]; then
        fail "$1" "no checksum line" "$log"
    elif [[ -z ${reference_checksum[$2]:-} ]]; then
        echo "SKIP: $1 (no fallback run for $2 to compare with)"
    elif [[ $sum != "${reference_checksum[$2]}" ]]; then
        fail "$1" "checksum $sum differs from the fallback run's ${reference_checksum[$2]}" "$log"
    else
        pass "$1 ($sum)"
    fi
}

# expected_comm_lines P: communicators the checkers use that have more than
# one rank (hier declines size-1 communicators, so they print nothing):
# world, dup and reversed have p ranks, the parity halves ceil(p/2), floor(p/2).
# Sections that run the checker with --comms LIST set comms_in_use to LIST.
comms_in_use=world,dup,parity,reversed
expected_comm_lines() {
    local p=$1 n=0 kind
    for kind in world dup reversed; do
        [[ ,$comms_in_use, == *,$kind,* ]] && ((p > 1)) && n=$((n + 1))
    done
    if [[ ,$comms_in_use, == *,parity,* ]]; then
        (((p + 1) / 2 > 1)) && n=$((n + 1))
        ((p / 2 > 1)) && n=$((n + 1))
    fi
    echo "$n"
}

# check_verbose NAME MAP COLLECTIVE WANT [CLUSTERS] [EXTRA_COMMS]: the
# verbose lines of one run for one collective: one per communicator of size
# > 1 (EXTRA_COMMS: how many the checker adds to the usual ones), and on
# MPI_COMM_WORLD the algorithm WANT ("fallback" matches "fallback (why)"),
# or, for WANT=ALGORITHM@COMMUNICATOR, on that communicator; with
# ALGORITHM#DIMS[@COMMUNICATOR], that communicator's line must also name the
# torus DIMS. CLUSTERS: how many the cluster map makes of the map's nodes
# (shown on MPI_COMM_WORLD).
check_verbose() {
    local name=$1 map=$2 op=$3 want=${4%%[@#]*} clusters=${5:-1} extra=${6:-0} p nodes lines line shape
    local comm=MPI_COMM_WORLD torus=""
    [[ $4 == *@* ]] && comm=${4#*@}
    [[ $4 == *#* ]] && torus=${4#*#} && torus=${torus%%@*}
    p=$(map_size "$map")
    nodes=$(map_nodes "$map")
    # "(size 10, 4 nodes): " on MPI_COMM_WORLD; elsewhere only "): ";
    # either way ", torus DIMS" before the ")" when DIMS is given
    shape="(size $p, $nodes nodes"
    [[ $map == *+* ]] && shape+=", $(map_sockets "$map") sockets"
    ((clusters > 1)) && shape+=", $clusters clusters"
    [[ $comm == MPI_COMM_WORLD ]] || shape=""
    [[ -n $torus ]] && shape+=", torus $torus"
    # A nonblocking call's fallback while the topology is being gathered is
    # no decision: the communicator's decision follows it.
    lines=$(cat "$log.out" "$log.err" | grep "coll:hier: $op on " |
                grep -v "): fallback (the communicator's topology is being gathered" || true)
    # p = 1: every communicator has one rank and comm_query declines it, so
    # hier has no module anywhere and must print nothing at all.
    if ((p == 1)); then
        if [[ -n $lines ]]; then fail "$name" "verbose line(s) for size-1 communicators" "$log"
        else pass "$name (no line: size-1 communicators are declined)"; fi
        return
    fi
    line=$(grep -F "coll:hier: $op on $comm (" <<<"$lines" || true)
    local names dups count expected
    names=$(sed -E "s/.*coll:hier: $op on (.*) \(size [0-9]+.*/\1/" <<<"$lines")
    dups=$(sort <<<"$names" | uniq -d)
    count=$(grep -c . <<<"$lines" || true)
    expected=$(($(expected_comm_lines "$p") + extra))
    if [[ $(grep -c . <<<"$line" || true) != 1 ]]; then
        fail "$name" "expected one verbose line for $comm, got: ${line:-none}" "$log"
    elif [[ $line != *"$shape): $want" && $line != *"$shape): $want ("*")" ]]; then
        fail "$name" "expected '$shape): $want', got: $line" "$log"
    elif [[ -n $dups ]]; then
        # Each communicator prints once (the checkers name them all apart).
        fail "$name" "more than one verbose line for: $dups" "$log"
    elif ((count != expected)); then
        fail "$name" "$count verbose lines, expected $expected (one per communicator of size > 1)" "$log"
    else
        pass "$name (${line##*: })"
    fi
}

# check_error_line NAME TEXT [ONLY]: one stderr line has TEXT (one process
# reports, in one line), and, unless ONLY is 0, it is all of stderr (a clean
# run's stderr is empty on this machine, so anything else is noise the user
# would see too; ONLY=0 where Open MPI's own error follows ours).
check_error_line() {
    local named total
    named=$(grep -c -F "$2" "$log.err" || true)
    total=$(grep -c . "$log.err" || true)
    if ((named != 1)); then
        fail "$1" "expected one stderr line naming $2, got $named" "$log"
    elif ((total != 1)) && [[ ${3:-1} == 1 ]]; then
        fail "$1" "expected stderr to be that one line, got $total lines" "$log"
    else
        pass "$1 ($(grep -F "$2" "$log.err"))"
    fi
}

# cart_comms P ARGS...: 1 if coll_check ARGS add a Cartesian communicator on
# P ranks (--cart DIMS whose product is P; coll_check skips it otherwise).
cart_comms() {
    local p=$1 dims product=1 d; shift
    while (($#)); do
        if [[ $1 == --cart && -n ${2:-} ]]; then
            IFS=x read -ra dims <<<"$2"
            for d in "${dims[@]}"; do product=$((product * d)); done
            ((product == p)) && { echo 1; return; }
        fi
        shift
    done
    echo 0
}

# run_coll COLLECTIVE ALGORITHM WINDOW MAP WANT KEY: one coll_check run, with
# the arrays mpirun_extra and checker_extra; the first fallback run of KEY
# gives its reference checksum.
run_coll() {
    local op=$1 alg=$2 window=$3 map=$4 want=$5 key=$6 p name
    p=$(map_size "$map")
    name="$op: map=$map p=$p alg=$alg window=$window${checker_extra[*]:+ (${checker_extra[*]})}"
    run_check "$name" "$p" --mca coll "$coll_list" --mca coll_hier_node_map "$map" \
        --mca coll_hier_window "$window" --mca "coll_hier_${op}_algorithm" "$alg" \
        --mca coll_hier_verbose 1 "${mpirun_extra[@]}" -- "$coll_checker" --op "$op" "${checker_extra[@]}"
    check_result "$name: results"
    if [[ $alg == fallback && -z ${reference_checksum[$key]:-} ]]; then
        reference_checksum[$key]=$(log_checksum)
    else
        check_checksum "$name: checksum" "$key"
    fi
    ((plain)) || check_verbose "$name: verbose" "$map" "$op" "$want" 1 \
        "$(cart_comms "$p" "${checker_extra[@]}")"
}

# --------------------------------------------------------------------- runs

echo "run_mpi_tests.sh: Open MPI ${ompi_version:-unknown}, coll list $coll_list," \
     "logs in $logdir"
((bruck_bug)) && echo "run_mpi_tests.sh: pinning tuned alltoall to pairwise for p >= $BRUCK_BUG_MIN_P (open-mpi/ompi#10488)"
start=$SECONDS

# ------------------------------------------------- runs from the registry

# The registry's rows of each collective, from the build: hier-inspect
# registry prints "COLLECTIVE ID NAME" per row; with a machine, "applies" or
# "unfit: WHY" after it, from the row's own unfit (the reason the component
# names in its verbose line when that row is asked for there).
# registry_fit OP MAP [CLUSTERS] [TORUS]: sets the arrays rows (OP's rows in
# table order) and unfit (row -> why it does not apply here, or empty).
declare -A unfit
registry_fit() {
    local args=("$1" "$2") op_name id row verdict
    [[ -n ${3:-} ]] && args+=(--clusters "$3")
    [[ -n ${4:-} ]] && args+=(--torus "$4")
    local listed
    rows=()
    unfit=()
    if ! listed=$("$inspect" registry "${args[@]}"); then
        echo "run_mpi_tests.sh: $inspect registry ${args[*]} failed" >&2
        exit 2
    fi
    while read -r op_name id row verdict; do
        rows+=("$row")
        unfit[$row]=""
        [[ $verdict == unfit:* ]] && unfit[$row]=${verdict#unfit: }
    done <<<"$listed"
    if ((${#rows[@]} == 0)); then
        echo "run_mpi_tests.sh: $inspect registry ${args[*]} listed no rows" >&2
        exit 2
    fi
}

# Counts of what was generated: runs, runs where the row did not apply,
# and per "PROGRAM ROW" the layouts where it applied.
generated=0 not_applicable=0
declare -A applied

# select_rows LABEL: sets todo to the indexes of rows to run on this
# layout (after registry_fit): every row, or with --one-layout those that
# apply here and have not run through the checker (LABEL "CHECKER",
# "coll_check:COLLECTIVE") yet.
select_rows() {
    local i
    todo=()
    for i in "${!rows[@]}"; do
        if ((!one_layout)) || [[ -z ${unfit[${rows[$i]}]} && -z ${applied["$1 ${rows[$i]}"]:-} ]]; then
            todo+=("$i")
        fi
    done
}

# window_for ROW_INDEX LAYOUT_INDEX
window_for() { echo "${WINDOWS[$((($1 + $2) % ${#WINDOWS[@]}))]}"; }

# check_unfit_line NAME OP ROW WHY [COMMUNICATOR]: the verbose line of the
# communicator (MPI_COMM_WORLD) says the row does not apply, and why.
check_unfit_line() {
    local comm=${5:-MPI_COMM_WORLD} line
    line=$(cat "$log.out" "$log.err" | grep -F "coll:hier: $2 on $comm (" || true)
    if [[ $line == *"): fallback ($3 does not apply: $4)" ]]; then
        pass "$1: does not apply ($4)"
    else
        fail "$1: does not apply" "expected '$comm (...): fallback ($3 does not apply: $4)', got: ${line:-none}" "$log"
    fi
}

# run_row CHECKER OP ALGORITHM WINDOW MAP CLUSTERS KEY WANT [ARGS...]: one
# alltoall_check or alltoallv_check run of a row, the fallback or auto on a
# layout: results, the checksum against KEY's fallback (the fallback sets it)
# and the verbose line naming WANT. A row of the registry that does not
# apply there (unfit) runs the checker's smallest counts and its line must
# say why; no checksum (other counts than the reference's).
run_row() {
    local checker=$1 op=$2 alg=$3 window=$4 map=$5 clusters=$6 key=$7 want=$8 p name why=""; shift 8
    local cluster_args=() args=("$@") nclusters=1
    p=$(map_size "$map")
    [[ -n $clusters ]] && cluster_args=(--mca coll_hier_cluster_map "$clusters") && nclusters=$(map_nodes "$clusters")
    [[ $alg != fallback && $alg != auto ]] && why=${unfit[$alg]}
    if [[ -n $why ]]; then
        case $op in
            alltoall) args+=(--counts 0,1) ;;
            alltoallv) args+=(--counts uniform,zeros --types int,vector) ;;
        esac
    fi
    name="$op map=$map${clusters:+ clusters=$clusters} p=$p alg=$alg window=$window${args[*]:+ ${args[*]}}"
    run_check "$name" "$p" --mca coll "$coll_list" --mca coll_hier_node_map "$map" "${cluster_args[@]}" \
        --mca coll_hier_window "$window" --mca "coll_hier_${op}_algorithm" "$alg" --mca coll_hier_verbose 1 \
        -- "$checker" "${args[@]}"
    check_result "$name: results"
    if [[ -n $why ]]; then
        not_applicable=$((not_applicable + 1))
        if ((!plain)); then
            check_verbose "$name: verbose" "$map" "$op" fallback "$nclusters"
            ((p > 1)) && check_unfit_line "$name" "$op" "$alg" "$why"
        fi
        return 0
    fi
    if [[ $alg == fallback && -z ${reference_checksum[$key]:-} ]]; then
        reference_checksum[$key]=$(log_checksum)
    else
        check_checksum "$name: checksum" "$key"
    fi
    ((plain)) || check_verbose "$name: verbose" "$map" "$op" "$want" "$nclusters"
}

# run_layout_rows CHECKER OP PROGRAM CHECKER_ARGS...: every row of todo
# (select_rows) through run_row on the layout in hand (map, clusters, key,
# layout_no), counted as generated and, where it applies, as run by PROGRAM.
run_layout_rows() {
    local checker=$1 op=$2 program=$3 i row
    shift 3
    for i in "${todo[@]}"; do
        row=${rows[$i]}
        generated=$((generated + 1))
        [[ -z ${unfit[$row]} ]] && applied["$program $row"]=$((${applied["$program $row"]:-0} + 1))
        run_row "$checker" "$op" "$row" "$(window_for "$i" "$layout_no")" "$map" "$clusters" "$key" "$row" "$@"
    done
}

# alltoall_check: the fallback, every alltoall row, auto, on every layout.
# What auto must pick there, with the link costs unknown: Open MPI's own
# (AUTO_EXPECTED; across clusters too, on these small maps).
layout_no=0
for layout in "${ALLTOALL_LAYOUTS[@]}"; do
    IFS='|' read -r map clusters args <<<"$layout"
    read -ra checker_args <<<"$args"
    p=$(map_size "$map")
    key=$p
    [[ -n $clusters ]] && key="$p/$clusters/$args"
    registry_fit alltoall "$map" "$clusters"
    select_rows alltoall_check
    ((p == 1)) && todo=()   # see ALLTOALL_LAYOUTS
    if ((one_layout && ${#todo[@]} == 0)); then layout_no=$((layout_no + 1)); continue; fi
    if ((quick)); then
        checker_args+=(--quick)
        key+=" quick"
    fi
    run_row "$alltoall_checker" alltoall fallback 1 "$map" "$clusters" "$key" fallback "${checker_args[@]}"
    # The hand-made runs below give no counts: under --quick HIER_CHECK_COUNTS
    # makes theirs the quick ones, so this fallback is theirs too.
    ((quick)) && reference_checksum[${key% quick}]=${reference_checksum[$key]:-}
    run_layout_rows "$alltoall_checker" alltoall alltoall_check "${checker_args[@]}"
    ((one_layout)) ||
        run_row "$alltoall_checker" alltoall auto 1 "$map" "$clusters" "$key" "$AUTO_EXPECTED" "${checker_args[@]}"
    layout_no=$((layout_no + 1))
done

# alltoallv_check (count patterns with zeros, every datatype class,
# MPI_IN_PLACE): the fallback, every alltoallv row, auto (Open MPI's own on
# SMP nodes, lg_at_once across clusters: its rule).
layout_no=0
for layout in "${ALLTOALLV_LAYOUTS[@]}"; do
    IFS='|' read -r map clusters args <<<"$layout"
    read -ra checker_args <<<"$args"
    ((quick)) && checker_args+=(--counts uniform,zeros,random,one-sender,empty)
    comms_in_use=world,dup,parity,reversed
    [[ $args == *--comms* ]] && comms_in_use=${args#*--comms }
    key="alltoallv/$(map_size "$map")/$args"
    registry_fit alltoallv "$map" "$clusters"
    select_rows alltoallv_check
    if ((one_layout && ${#todo[@]} == 0)); then layout_no=$((layout_no + 1)); continue; fi
    run_row "$alltoallv_checker" alltoallv fallback 1 "$map" "$clusters" "$key" fallback "${checker_args[@]}"
    run_layout_rows "$alltoallv_checker" alltoallv alltoallv_check "${checker_args[@]}"
    ((one_layout)) || run_row "$alltoallv_checker" alltoallv auto 1 "$map" "$clusters" "$key" \
        "$( [[ -n $clusters ]] && echo lg_at_once || echo fallback)" "${checker_args[@]}"
    layout_no=$((layout_no + 1))
done
comms_in_use=world,dup,parity,reversed

# split_extra EXTRA: mpirun arguments into mpirun_extra, those after a lone
# -- into checker_extra (COLL_RUNS and COLL_LAYOUTS).
split_extra() {
    local word words after=0
    mpirun_extra=() checker_extra=()
    read -ra words <<<"$1"
    for word in "${words[@]}"; do
        if ((!after)) && [[ $word == -- ]]; then after=1
        elif ((after)); then checker_extra+=("$word")
        else mpirun_extra+=("$word"); fi
    done
}

# coll_check: every row of each collective's registry on every layout of
# that collective, after the fallback there (its checksum the reference).
layout_no=0
for layout in "${COLL_LAYOUTS[@]}"; do
    IFS='|' read -r op map extra where <<<"$layout"
    split_extra "$extra"
    ((quick)) && [[ $op != barrier ]] && checker_extra+=(--quick)
    p=$(map_size "$map")
    key="$op p=$p${checker_extra[*]:+ ${checker_extra[*]}}"
    torus=""
    [[ $where == \#* ]] && torus=${where#\#} && torus=${torus%%@*}
    comm=""
    [[ $where == *@* ]] && comm=${where#*@}
    registry_fit "$op" "$map" "" "$torus"
    select_rows "coll_check:$op"
    if ((one_layout && ${#todo[@]} == 0)); then layout_no=$((layout_no + 1)); continue; fi
    [[ -z ${reference_checksum[$key]:-} ]] && run_coll "$op" fallback 1 "$map" "fallback$where" "$key"
    for i in "${todo[@]}"; do
        row=${rows[$i]}
        generated=$((generated + 1))
        window=$(window_for "$i" "$layout_no")
        if [[ -z ${unfit[$row]} ]]; then
            applied["coll_check:$op $row"]=$((${applied["coll_check:$op $row"]:-0} + 1))
            run_coll "$op" "$row" "$window" "$map" "$row$where" "$key"
        else
            # Not applicable here: the smallest counts, and the line must say why.
            not_applicable=$((not_applicable + 1))
            saved=("${checker_extra[@]}")
            [[ $op != barrier ]] && checker_extra+=(--counts 1)
            name="$op: map=$map p=$p alg=$row window=$window (${checker_extra[*]})"
            run_check "$name" "$p" --mca coll "$coll_list" --mca coll_hier_node_map "$map" \
                --mca coll_hier_window "$window" --mca "coll_hier_${op}_algorithm" "$row" \
                --mca coll_hier_verbose 1 "${mpirun_extra[@]}" -- "$coll_checker" --op "$op" "${checker_extra[@]}"
            check_result "$name: results"
            if ((!plain)); then
                check_verbose "$name: verbose" "$map" "$op" "fallback${comm:+@$comm}" 1 \
                    "$(cart_comms "$p" "${checker_extra[@]}")"
                check_unfit_line "$name" "$op" "$row" "${unfit[$row]}" "${comm:-MPI_COMM_WORLD}"
            fi
            checker_extra=("${saved[@]}")
        fi
    done
    layout_no=$((layout_no + 1))
done

# ------------------------------------- nonblocking and persistent forms

# Every row of the registry again in the checkers' nonblocking and persistent
# forms (--form: MPI_I<op>, MPI_<Op>_init; hier runs them with the blocking
# form's selection), on the first layout of its checker's list where it
# applies, with the quick counts: the results, the checksum against the
# blocking fallback's with the same arguments (run here where the runs above
# did not), and the verbose line naming the form and the row ("ialltoall on
# ...: ROW", "alltoall_init on ...: ROW").
# form_op FORM OP: the name hier's verbose line gives OP's FORM.
form_op() { [[ $1 == nonblocking ]] && echo "i$2" || echo "${2}_init"; }
declare -A formed   # "PROGRAM ROW" -> ran in the forms
# run_forms CHECKER OP PROGRAM KEY WHERE: every row of rows (registry_fit)
# that applies on the layout in hand (map, clusters, mpirun_extra) and has
# not run in the forms, in both, through CHECKER with the arrays
# checker_args; KEY's blocking fallback first if no run gave it; WHERE: as
# in COLL_LAYOUTS.
run_forms() {
    local checker=$1 op=$2 program=$3 key=$4 where=$5 i row form name p cluster_args=() nclusters=1 todo_forms=()
    for i in "${!rows[@]}"; do
        row=${rows[$i]}
        [[ -z ${unfit[$row]} && -z ${formed["$program $row"]:-} ]] && todo_forms+=("$i")
    done
    ((${#todo_forms[@]})) || return 0
    p=$(map_size "$map")
    [[ -n $clusters ]] && cluster_args=(--mca coll_hier_cluster_map "$clusters") && nclusters=$(map_nodes "$clusters")
    local op_args=()
    [[ $program == coll_check:* ]] && op_args=(--op "$op")
    if [[ -z ${reference_checksum[$key]:-} ]]; then
        name="$op blocking reference: map=$map${clusters:+ clusters=$clusters} p=$p alg=fallback ${checker_args[*]}"
        run_check "$name" "$p" --mca coll "$coll_list" --mca coll_hier_node_map "$map" "${cluster_args[@]}" \
            --mca "coll_hier_${op}_algorithm" fallback "${mpirun_extra[@]}" -- "$checker" "${op_args[@]}" "${checker_args[@]}"
        check_result "$name: results"
        reference_checksum[$key]=$(log_checksum)
    fi
    for i in "${todo_forms[@]}"; do
        row=${rows[$i]}
        formed["$program $row"]=1
        for form in nonblocking persistent; do
            name="$(form_op "$form" "$op") map=$map${clusters:+ clusters=$clusters} p=$p alg=$row ${checker_args[*]}"
            run_check "$name" "$p" --mca coll "$coll_list" --mca coll_hier_node_map "$map" "${cluster_args[@]}" \
                --mca coll_hier_window "$(window_for "$i" 0)" --mca "coll_hier_${op}_algorithm" "$row" \
                --mca coll_hier_verbose 1 "${mpirun_extra[@]}" -- "$checker" "${op_args[@]}" "${checker_args[@]}" --form "$form"
            check_result "$name: results"
            check_checksum "$name: checksum" "$key"
            ((plain)) || check_verbose "$name: verbose" "$map" "$(form_op "$form" "$op")" "$row$where" "$nclusters" \
                "$(cart_comms "$p" "${checker_args[@]}")"
        done
    done
}
forms_start=$SECONDS forms_runs=$run_no
mpirun_extra=()
for layout in "${ALLTOALL_LAYOUTS[@]}"; do
    IFS='|' read -r map clusters args <<<"$layout"
    read -ra checker_args <<<"$args"
    p=$(map_size "$map")
    ((p > 1)) || continue
    [[ " $args " == *" --quick "* ]] || checker_args+=(--quick)
    key=$p
    [[ -n $clusters ]] && key="$p/$clusters/$args"
    key+=" quick"
    registry_fit alltoall "$map" "$clusters"
    run_forms "$alltoall_checker" alltoall alltoall_check "$key" ""
done
for layout in "${ALLTOALLV_LAYOUTS[@]}"; do
    IFS='|' read -r map clusters args <<<"$layout"
    read -ra checker_args <<<"$args"
    checker_args+=(--counts uniform,zeros,random,one-sender,empty)
    comms_in_use=world,dup,parity,reversed
    [[ $args == *--comms* ]] && comms_in_use=${args#*--comms }
    key="alltoallv/$(map_size "$map")/$args"
    ((quick)) || key+=" quick"
    registry_fit alltoallv "$map" "$clusters"
    run_forms "$alltoallv_checker" alltoallv alltoallv_check "$key" ""
done
comms_in_use=world,dup,parity,reversed
clusters=""
for layout in "${COLL_LAYOUTS[@]}"; do
    IFS='|' read -r op map extra where <<<"$layout"
    split_extra "$extra"
    checker_args=("${checker_extra[@]}")
    [[ $op != barrier ]] && checker_args+=(--quick)
    key="$op p=$(map_size "$map")${checker_args[*]:+ ${checker_args[*]}}"
    torus=""
    [[ $where == \#* ]] && torus=${where#\#} && torus=${torus%%@*}
    registry_fit "$op" "$map" "" "$torus"
    run_forms "$coll_checker" "$op" "coll_check:$op" "$key" "$where"
done
for op in alltoall alltoallv scatter gather allgather allreduce barrier; do
    case $op in alltoall) program=alltoall_check ;; alltoallv) program=alltoallv_check ;; *) program=coll_check:$op ;; esac
    while read -r _ _ row; do
        [[ -n $row && -z ${formed["$program $row"]:-} ]] &&
            fail "forms: $op $row" "ran in no form: it applies to none of ${program%%:*}'s layouts"
    done <<<"$("$inspect" registry "$op")"
done
echo "run_mpi_tests.sh: nonblocking and persistent forms: $((run_no - forms_runs)) runs in $((SECONDS - forms_start)) s"

# nbc_check: many nonblocking and persistent requests in flight on three
# communicators, completed in other orders than started, with blocking
# collectives between: on each layout "NODE MAP|CLUSTERS|ALGORITHMS|WANT",
# Open MPI's own (its checksum the reference), auto, and rows by name
# (ALGORITHMS: OP=ROW,... set for every form of OP); WANT: what the verbose
# lines of MPI_COMM_WORLD must name for ialltoall and alltoall_init (auto:
# Open MPI's own on these maps, as for the blocking form).
readonly NBC_RUNS=(
    "4,3,2,1||auto|fallback"
    "4,3,2,1||alltoall=factor,alltoallv=factor|factor"
    "2,2,1,1,1|2,3|alltoall=lg_at_once,alltoallv=lg,allreduce=hypercube|lg_at_once"
    "3,3,3||alltoall=pairwise,allgather=hypercube,allreduce=hypercube,barrier=hypercube|pairwise"
)
nbc_checker=${HIER_NBC_CHECK:-$(dirname "$alltoall_checker")/nbc_check}
nbc_start=$SECONDS nbc_runs=$run_no
if [[ ! -x $nbc_checker ]]; then
    fail "nbc_check" "$nbc_checker is not built (make, or set HIER_NBC_CHECK)"
else
    comms_in_use=world,dup,parity
    for case in "${NBC_RUNS[@]}"; do
        IFS='|' read -r map clusters algs want <<<"$case"
        p=$(map_size "$map")
        cluster_args=() nclusters=1
        [[ -n $clusters ]] && cluster_args=(--mca coll_hier_cluster_map "$clusters") && nclusters=$(map_nodes "$clusters")
        key="nbc_check $p"
        ((quick)) && key+=" quick"
        nbc_args=()
        ((quick)) && nbc_args=(--quick)
        if [[ -z ${reference_checksum[$key]:-} ]]; then
            name="nbc_check: map=$map p=$p, Open MPI's own"
            fallback_args=()
            for op in alltoall alltoallv scatter gather allgather allreduce barrier; do
                fallback_args+=(--mca "coll_hier_${op}_algorithm" fallback)
            done
            run_check "$name" "$p" --mca coll "$coll_list" --mca coll_hier_node_map "$map" "${cluster_args[@]}" \
                "${fallback_args[@]}" -- "$nbc_checker" "${nbc_args[@]}"
            check_result "$name: results"
            reference_checksum[$key]=$(log_checksum)
        fi
        alg_args=()
        IFS=, read -ra pairs <<<"$algs"
        for pair in "${pairs[@]}"; do
            [[ $pair == *=* ]] && alg_args+=(--mca "coll_hier_${pair%%=*}_algorithm" "${pair#*=}")
        done
        name="nbc_check: map=$map${clusters:+ clusters=$clusters} p=$p $algs"
        run_check "$name" "$p" --mca coll "$coll_list" --mca coll_hier_node_map "$map" "${cluster_args[@]}" \
            "${alg_args[@]}" --mca coll_hier_verbose 1 -- "$nbc_checker" "${nbc_args[@]}"
        check_result "$name: results"
        check_checksum "$name: checksum" "$key"
        if ((!plain)); then
            check_verbose "$name: verbose ialltoall" "$map" ialltoall "$want" "$nclusters"
            check_verbose "$name: verbose alltoall_init" "$map" alltoall_init "$want" "$nclusters"
        fi
    done
    # The same layouts on a new communicator that only calls MPI_Ialltoall
    # (hier's row where the layout names one, else auto): four in a row, each
    # waited, and nothing else (--no-barrier); four in flight at once
    # (--in-flight); four, MPI_Barrier, four more. The first call starts
    # gathering the topology; the calls wait for it in their requests and
    # decide in order once it is known (docs/nonblocking.md): rank 0's first
    # ialltoall line is a decision on the gathered nodes, naming the row (or,
    # auto, Open MPI's own), and the gathering's line says the calls waited.
    for case in "${NBC_RUNS[@]}"; do
        IFS='|' read -r map clusters algs want <<<"$case"
        alltoall=$want
        [[ $want == fallback ]] && alltoall=auto
        p=$(map_size "$map")
        cluster_args=()
        [[ -n $clusters ]] && cluster_args=(--mca coll_hier_cluster_map "$clusters")
        for mode in "--no-barrier" "--no-barrier --in-flight" ""; do
            read -ra mode_args <<<"$mode"
            key="nbc_check $p ialltoall-only $mode"
            label="nbc_check --only-ialltoall 4${mode:+ $mode}"
            if [[ -z ${reference_checksum[$key]:-} ]]; then
                name="$label: map=$map p=$p, Open MPI's own"
                run_check "$name" "$p" --mca coll "$coll_list" --mca coll_hier_node_map "$map" "${cluster_args[@]}" \
                    --mca coll_hier_alltoall_algorithm fallback -- "$nbc_checker" --only-ialltoall 4 "${mode_args[@]}"
                check_result "$name: results"
                reference_checksum[$key]=$(log_checksum)
            fi
            name="$label: map=$map${clusters:+ clusters=$clusters} p=$p alltoall=$alltoall"
            run_check "$name" "$p" --mca coll "$coll_list" --mca coll_hier_node_map "$map" "${cluster_args[@]}" \
                --mca coll_hier_alltoall_algorithm "$alltoall" --mca coll_hier_verbose 1 -- "$nbc_checker" \
                --only-ialltoall 4 "${mode_args[@]}"
            check_result "$name: results"
            check_checksum "$name: checksum" "$key"
            ((plain)) && continue
            first=$(grep -h "^coll:hier: ialltoall on nbc_check ialltoall-only " "$log.err" "$log.out" | head -n1 || true)
            gathered=$(grep -h "^coll:hier: topology of nbc_check ialltoall-only gathered by a nonblocking allgather" \
                "$log.err" "$log.out" || true)
            if [[ $first =~ \(size\ $p,\ [1-9][0-9]*\ nodes(,\ [0-9]+\ clusters)?\):\ $want( \(|$) &&
                  $gathered =~ meanwhile\ [1-9][0-9]*\ nonblocking\ or\ persistent\ calls?\ waited ]]; then
                pass "$name: $want from the first call the topology is known at"
            else
                fail "$name: verbose" "expected the gathering's line (the calls waited for it) and a first ialltoall line naming $want on the gathered nodes, got: $gathered / $first" "$log"
            fi
        done
    done
    comms_in_use=world,dup,parity,reversed
fi
echo "run_mpi_tests.sh: nbc_check: $((run_no - nbc_runs)) runs in $((SECONDS - nbc_start)) s"

# Every row must have run where it applies, through each checker of its
# collective: a row no layout fits needs a layout in the lists above.
programs=0
for op in alltoall alltoallv scatter gather allgather allreduce barrier; do
    case $op in alltoall) program=alltoall_check ;; alltoallv) program=alltoallv_check ;; *) program=coll_check ;; esac
    listed=$("$inspect" registry "$op") || listed=""
    [[ -n $listed ]] || fail "registry: $op" "$inspect registry $op listed no rows"
    while read -r _ _ row; do
        [[ -n $row ]] || continue
        programs=$((programs + 1))
        label="$program $row"
        [[ $program == coll_check ]] && label="$program:$op $row"
        if [[ -z ${applied[$label]:-} ]]; then
            fail "registry: $op $row" "applies to none of $program's layouts (add one where it applies)"
        else
            pass "registry: $op $row ran through $program on ${applied[$label]} layouts"
        fi
    done <<<"$listed"
done
echo "run_mpi_tests.sh: from the registry: $programs rows x programs, $generated runs" \
     "($((generated - not_applicable)) where the row applies, $not_applicable where it does not)"

# Sockets the node map imposes (two nodes, four sockets, one of them a
# lone rank): every row of every collective that applies there, once, with
# the quick counts, against the fallback's checksum on the same map; each
# verbose line on MPI_COMM_WORLD shows the sockets. The locality costs see
# them (the hypercube's embedding); no schedule may change its results.
readonly SOCKET_MAP=2+2,1+3
socket_runs=$run_no
for op in alltoall alltoallv scatter gather allgather allreduce barrier; do
    registry_fit "$op" "$SOCKET_MAP"
    map=$SOCKET_MAP clusters=""
    checker_extra=() mpirun_extra=()
    [[ $op != barrier ]] && checker_extra=(--quick)
    case $op in
        alltoall|alltoallv)
            checker=$alltoall_checker quick_args=(--quick)
            [[ $op == alltoallv ]] && checker=$alltoallv_checker quick_args=(--counts uniform,zeros,random,one-sender,empty)
            key="sockets $op"
            run_row "$checker" "$op" fallback 1 "$map" "" "$key" fallback "${quick_args[@]}"
            for row in "${rows[@]}"; do
                [[ -z ${unfit[$row]} ]] && run_row "$checker" "$op" "$row" 1 "$map" "" "$key" "$row" "${quick_args[@]}"
            done ;;
        *)
            key="sockets $op ${checker_extra[*]}"
            run_coll "$op" fallback 1 "$map" fallback "$key"
            for row in "${rows[@]}"; do
                [[ -z ${unfit[$row]} ]] && run_coll "$op" "$row" 1 "$map" "$row" "$key"
            done ;;
    esac
done
echo "run_mpi_tests.sh: sockets imposed by coll_hier_node_map $SOCKET_MAP: $((run_no - socket_runs)) runs"

if ((rows_only)); then
    echo "run_mpi_tests.sh: $run_no runs in $((SECONDS - start)) s (--rows-only)"
    echo "$passed passed, $failed failed"
    ((failed == 0))
    exit
fi

# ----------------------------------------------------------- hand-made runs

# The hypercube alltoall: results, checksum, and a verbose line naming the
# embedding asked for (and the probe's line when costs are probed).
for run in "${HYPERCUBE_ALLTOALL_RUNS[@]}"; do
    IFS='|' read -r map embedding cost window <<<"$run"
    p=$(map_size "$map")
    case $cost in
        file:ranks) cost=file:$(cost_file ranks "$p") ;;
        file:nodes) cost=file:$(cost_file nodes "$(map_nodes "$map")") ;;
    esac
    name="map=$map p=$p alg=hypercube embedding=$embedding cost=${cost%%:*} window=$window"
    run_check "$name" "$p" --mca coll "$coll_list" --mca coll_hier_node_map "$map" --mca coll_hier_window "$window" \
        --mca coll_hier_alltoall_algorithm hypercube --mca coll_hier_hypercube_embedding "$embedding" \
        --mca coll_hier_cost "$cost" --mca coll_hier_verbose 1 -- "$alltoall_checker"
    check_result "$name: results"
    check_checksum "$name: checksum" "$p"
    if ((!plain)); then
        check_verbose "$name: verbose" "$map" alltoall hypercube
        world=$(cat "$log.out" "$log.err" | grep -F 'coll:hier: alltoall on MPI_COMM_WORLD ' || true)
        if [[ $embedding != auto && $world != *"hypercube ($embedding embedding, "* ]]; then
            fail "$name: embedding" "the verbose line does not name the $embedding embedding: $world" "$log"
        elif [[ $cost == probe ]] && ! grep -q 'coll:hier: probed latency among' "$log.err"; then
            fail "$name: probe" "no line reporting the latency probe" "$log"
        else
            pass "$name: embedding and cost source"
        fi
    fi
done
for bad in "${HYPERCUBE_BAD_VALUES[@]}"; do
    IFS='|' read -r param value <<<"$bad"
    name="bad value: $param=$value"
    run_check "$name" 6 --mca coll "$coll_list" --mca coll_hier_node_map 1,2,3 \
        --mca coll_hier_alltoall_algorithm hypercube --mca "$param" "$value" -- "$alltoall_checker"
    check_result "$name: results"
    check_checksum "$name: checksum" 6
    ((plain)) || check_error_line "$name: error line" "$param"
done

for bad in "${BAD_VALUES[@]}"; do
    IFS='|' read -r p map alg param extra <<<"$bad"
    name="bad value: p=$p map=$map alg=$alg${extra:+ $extra}"
    extra_args=()
    [[ -n $extra ]] && extra_args=(--mca "${extra%%=*}" "${extra#*=}")
    # No verbose: its line could name the parameter too (in a fallback reason).
    run_check "$name" "$p" --mca coll "$coll_list" --mca coll_hier_node_map "$map" --mca coll_hier_alltoall_algorithm "$alg" \
        "${extra_args[@]}" -- "$alltoall_checker"
    check_result "$name: results"
    check_checksum "$name: checksum" "$p"
    ((plain)) || check_error_line "$name: error line" "$param"
done

# Verbose 2: rank 0 prints what auto's time model compared, one line per
# communicator and size class (decisions are cached per class), naming
# Open MPI's own choice and what it picked; the network's latency and cost
# per message come from the probes, its bandwidth is unknown (two machines).
# The pick depends on what the probes measured on this shared host: any row.
if ((!plain)); then
    name="auto verbose 2: map=4,3,2,1 with link costs node=1us:40Gbit/s,probe"
    run_check "$name" 10 --mca coll "$coll_list" --mca coll_hier_node_map 4,3,2,1 --mca coll_hier_verbose 2 \
        --mca coll_hier_link_costs "node=1us:40Gbit/s,probe" -- "$alltoall_checker"
    check_result "$name: results"
    check_checksum "$name: checksum" 10
    world=$(grep -F 'coll:hier: alltoall on MPI_COMM_WORLD (size 10, 4 nodes): model at ' "$log.err" || true)
    classes=$(sed -E 's/.*: model at ([0-9]+) B\/block.*/\1/' <<<"$world" | sort | uniq -d)
    if [[ -z $world ]]; then
        fail "$name: predictions" "no predictions line for MPI_COMM_WORLD" "$log"
    elif grep -v -q -E '2 cost sets, probed latency [^,:]+, probed per message between nodes [^,:]+: open-mpi\(linear(_sync)?\) [^,]+, factor .*; picks [a-z0-9_]+(, or [a-z0-9_, ]+ if measured faster)?$' \
            <<<"$world"; then
        fail "$name: predictions" "a line does not compare Open MPI's linear with every row on the probed costs: $(head -n1 <<<"$world")" "$log"
    elif [[ -n $classes ]]; then
        fail "$name: predictions" "decided twice for blocks of $classes bytes" "$log"
    else
        pass "$name: predictions ($(grep -c . <<<"$world") size classes; $(head -n1 <<<"$world" | cut -c1-120)...)"
    fi
fi

# On a torus of nodes the latency probe's pairs are 1 to 3 hops apart: the
# model takes a neighbour's latency and one more per hop (here on one host
# the slope may be 0, but it is there).
if ((!plain)); then
    name="auto verbose 2: a 2x4 torus of one-rank nodes"
    run_check "$name" 8 --mca coll "$coll_list" --mca coll_hier_node_map 1,1,1,1,1,1,1,1 \
        --mca coll_hier_torus_dims 2x4 --mca coll_hier_link_costs probe --mca coll_hier_verbose 2 \
        -- "$alltoall_checker"
    check_result "$name: results"
    world=$(grep -F 'coll:hier: alltoall on MPI_COMM_WORLD (size 8, 8 nodes, torus 2x4): model at ' "$log.err" || true)
    if [[ -z $world ]]; then
        fail "$name: predictions" "no predictions line for MPI_COMM_WORLD" "$log"
    elif grep -v -q -E ', probed latency [^,:]+ plus [0-9.]+(ns|us|ms) per hop beyond the first, ' <<<"$world"; then
        fail "$name: predictions" "a line without the probed latency per hop: $(head -n1 <<<"$world")" "$log"
    else
        pass "$name: predictions ($(head -n1 <<<"$world" | grep -o 'probed latency [^,]*'))"
    fi
fi

# The probes of coll_hier_link_costs=probe (the default) run where auto's
# time model decides the alltoall, and only there: not for an algorithm
# given by name, not on one node, not in a job that calls no alltoall (the
# communicator asks for them at its first alltoall under auto). "p|node
# map|extra MCA|probes expected[|collective of coll_check instead of
# alltoall_check]" (where expected, on 4,3,2,1: 9 ranks have partners on
# their node, 10 on others).
readonly PROBE_CASES=(
    "10|4,3,2,1||yes"
    "10|4,3,2,1|coll_hier_alltoall_algorithm=factor|no"
    "3|3||no"
    "10|4,3,2,1||no|allreduce"
)
for case in "${PROBE_CASES[@]}"; do
    ((plain)) && break
    IFS='|' read -r p map extra expected op <<<"$case"
    extra_args=() checker=("$alltoall_checker" --quick)
    [[ -n $extra ]] && extra_args=(--mca "${extra%%=*}" "${extra#*=}")
    [[ -n $op ]] && checker=("$coll_checker" --op "$op" --quick)
    name="link costs probe: map=$map${extra:+ $extra}${op:+ $op only}"
    run_check "$name" "$p" --mca coll "$coll_list" --mca coll_hier_node_map "$map" --mca coll_hier_verbose 1 \
        --mca coll_hier_link_costs probe "${extra_args[@]}" -- "${checker[@]}"
    check_result "$name: results"
    latency=$(grep -c -F "coll:hier: probed latency among $(map_nodes "$map") nodes of MPI_COMM_WORLD in " \
              "$log.err" || true)
    messages=$(grep -E "coll:hier: probed the cost per message on MPI_COMM_WORLD in [0-9.]+ ms: within a node [0-9.]+ us \(9 ranks measured\), between nodes [0-9.]+ us \(10 ranks measured\); partners in other clusters left out by 0 ranks$" "$log.err" || true)
    if [[ $expected == yes && ( $latency != 1 || -z $messages ) ]]; then
        fail "$name: probes" "expected one latency and one message probe on MPI_COMM_WORLD" "$log"
    elif [[ $expected == no ]] && grep -q "coll:hier: probed" "$log.err"; then
        fail "$name: probes" "a probe ran where auto's model does not decide: $(grep -m1 'coll:hier: probed' "$log.err")" "$log"
    elif [[ $expected == yes ]]; then
        pass "$name: probes ran (${messages#coll:hier: })"
    else
        pass "$name: no probe"
    fi
done

# Probes once per job: twenty communicators over the same nodes (ten dups,
# ten splits, after MPI_COMM_WORLD) take what the first measured: one
# latency probe and one message probe in all, and the others say so at
# verbose 2.
if ((!plain)); then
    name="link costs probe: once per job, 21 communicators, map=4,3,2,1"
    run_check "$name" 10 --mca coll "$coll_list" --mca coll_hier_node_map 4,3,2,1 --mca coll_hier_verbose 2 \
        --mca coll_hier_link_costs probe -- "$alltoall_checker" --comms world,churn --counts 1 --types int
    check_result "$name: results"
    latency=$(grep -c "coll:hier: probed latency among" "$log.err" || true)
    messages=$(grep -c "coll:hier: probed the cost per message" "$log.err" || true)
    reused=$(grep -c -E "^coll:hier: (latency among 4 nodes of|cost per message on) alltoall_check churn-[0-9]+ known from earlier communicators: no probe$" "$log.err" || true)
    if ((latency != 1 || messages != 1 || reused != 40)); then
        fail "$name: probes" "$latency latency and $messages message probes (expected 1 each), $reused lines of reuse (expected 40)" "$log"
    else
        pass "$name: probes (1 latency, 1 message probe; 20 communicators reused both)"
    fi
fi

# The same decisions every run: two runs of one job with the same link costs
# (given: probed costs follow the host's load, and on this shared host a
# probe's cost per message moved from 34 to 49 us between two runs, enough to
# move hypercube from x0.72 to x0.85 of Open MPI's time, across auto's
# margin; docs/tuning.md) print the same decision lines at verbose 2.
if ((!plain)); then
    name="auto: the same decisions in two runs, map=4,3,2,1"
    decisions=()
    for run in 1 2; do
        run_check "$name, run $run" 10 --mca coll "$coll_list" --mca coll_hier_node_map 4,3,2,1 \
            --mca coll_hier_verbose 2 --mca coll_hier_link_costs node=0.5us:40Gbit/s:5us,network=15us:100Mbit/s:40us \
            -- "$alltoall_checker" --comms world,reversed --types int
        check_result "$name, run $run: results"
        decisions+=("$(grep -E '^coll:hier: alltoall on .*\): ' "$log.err" || true)")
    done
    if [[ -z ${decisions[0]} ]]; then
        fail "$name" "no decision line" "$log"
    elif [[ ${decisions[0]} != "${decisions[1]}" ]]; then
        fail "$name" "the runs differ: $(diff <(echo "${decisions[0]}") <(echo "${decisions[1]}") | grep '^[<>]' | head -n 2 | tr '\n' ' ')" "$log"
    else
        pass "$name ($(wc -l <<<"${decisions[0]}") decision lines alike)"
    fi
fi

# coll_hier_dynamic_rules (docs/rules-file.md): a rules file overrides
# auto, one row per range of message size (the bytes a rank sends in all:
# here 10 ranks, blocks of 0, 4, 28 and 16384 bytes of MPI_INT, so 0, 40,
# 280 and 163840), the last with a window of its own; algorithms by name
# and by number (ompi_info's). A file that does not parse: one line naming
# the parameter and the line, and auto decides, with correct results.
if ((!plain)); then
    rules=$logdir/rules-alltoall.txt
    cat >"$rules" <<'RULES'
rule-file-version-2
# hier's algorithms for MPI_Alltoall (collective 3), every communicator size
1
3
1
1            # communicators of 1 rank and more
3            # three message sizes
0 pairwise 0 0
100 4 0 0    # 4: factor
100000 edgecolor 0 0 4
RULES
    name="rules file: a row per message size, map=4,3,2,1"
    run_check "$name" 10 --mca coll "$coll_list" --mca coll_hier_node_map 4,3,2,1 --mca coll_hier_verbose 2 \
        --mca coll_hier_dynamic_rules "$rules" -- "$alltoall_checker" --comms world --types int --counts 0,1,7,4096
    check_result "$name: results"
    for expected in "pairwise (by coll_hier_dynamic_rules)" "factor (by coll_hier_dynamic_rules)" \
                    "edgecolor (by coll_hier_dynamic_rules; window 4)"; do
        if grep -q -F "coll:hier: alltoall on MPI_COMM_WORLD (size 10, 4 nodes): $expected" "$log.err"; then
            pass "$name: $expected"
        else
            fail "$name: $expected" "no such verbose line" "$log"
        fi
    done
    bad_rules=$logdir/rules-bad.txt
    sed 's/^100 4 0 0 .*/100 foo 0 0/' "$rules" >"$bad_rules"
    name="rules file: an unknown algorithm, map=4,3,2,1"
    run_check "$name" 10 --mca coll "$coll_list" --mca coll_hier_node_map 4,3,2,1 \
        --mca coll_hier_dynamic_rules "$bad_rules" -- "$alltoall_checker" --comms world,dup --types int
    check_result "$name: results"
    check_error_line "$name: error line" "coll_hier_dynamic_rules $bad_rules: line 9"
    name="rules file: missing"
    run_check "$name" 10 --mca coll "$coll_list" --mca coll_hier_node_map 4,3,2,1 \
        --mca coll_hier_dynamic_rules "$logdir/no-such-rules" -- "$alltoall_checker" --comms world --types int
    check_result "$name: results"
    check_error_line "$name: error line" "coll_hier_dynamic_rules $logdir/no-such-rules: cannot be read"
fi

# Frozen decisions: hier-inspect rules writes what auto picks on a described
# machine as a rules file; run with it, every call decides by a rule, and
# picks what auto picks with the same link costs.
if ((!plain)); then
    frozen=$logdir/rules-frozen.txt
    costs=node=0.5us:40Gbit/s:5us,network=15us:100Mbit/s:40us  # auto: hypercube, then the fallback
    name="rules file: hier-inspect rules freezes auto, map=4,3,2,1"
    if ! "$inspect" rules 4,3,2,1 --costs "$costs" >"$frozen" 2>"$frozen.err"; then
        fail "$name" "hier-inspect rules failed: $(head -n1 "$frozen.err")" "$frozen"
    else
        picks=()
        for source in rules auto; do
            args=(--mca coll_hier_link_costs "$costs")
            [[ $source == rules ]] && args+=(--mca coll_hier_dynamic_rules "$frozen")
            run_check "$name, by $source" 10 --mca coll "$coll_list" --mca coll_hier_node_map 4,3,2,1 \
                --mca coll_hier_verbose 2 "${args[@]}" -- "$alltoall_checker" --comms world --types int
            check_result "$name, by $source: results"
            decisions=$(grep -E '^coll:hier: alltoall on MPI_COMM_WORLD \(size 10, 4 nodes\): [a-z0-9_]+' "$log.err" |
                        grep -v '): model at ' || true)
            picks+=("$(sed -E 's/.*\): ([a-z0-9_]+).*/\1/' <<<"$decisions" | tr '\n' ' ')")
            [[ $source == rules ]] && unruled=$(grep -c -v -F '(by coll_hier_dynamic_rules' <<<"$decisions" || true)
        done
        if ((unruled > 0)); then
            fail "$name: every call by a rule" "$unruled decision lines without 'by coll_hier_dynamic_rules'" "$log"
        elif [[ -z ${picks[0]// } || ${picks[0]} != "${picks[1]}" ]]; then
            fail "$name: picks" "by rules: ${picks[0]:-none}; by auto: ${picks[1]:-none}" "$log"
        else
            pass "$name: picks (${picks[0]% })"
        fi
    fi
fi

# Clusters (coll_hier_cluster_map, cluster sizes in nodes): lg, lg_at_once
# and lg_overlap by name, with a window (lg_overlap keeps two rounds in flight
# at window 1 too), and auto's pick. With a node map the
# cluster map counts its nodes, so split communicators inherit their
# members' clusters too. "NODE MAP|CLUSTERS|VARIANTS|CHECKER ARGUMENTS": SMP
# clusters and three clusters run the checker's --quick counts, to keep the
# layer's time down. auto keeps Open MPI's linear on these small maps, and
# picks an lg on 8 + 8 one-process nodes, where tuned's Bruck (p >= 16, these
# small blocks) crosses the backbone in every one of its rounds and lg once:
# on every machine the unknown link costs could be. (That case is compared
# with the fallback's run on 5,4,4,2,1: the checksum depends on p only.)
readonly CLUSTER_CASES=(
    "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1|8,8|auto|"
)
# What auto must pick on 16 ranks across a backbone of unknown costs.
readonly AUTO_ACROSS_CLUSTERS=lg_at_once
for case in "${CLUSTER_CASES[@]}"; do
    IFS='|' read -r map clusters variants args <<<"$case"
    read -ra checker_args <<<"$args"
    p=$(map_size "$map")
    key="$p/$clusters/$args"
    [[ $variants == *fallback* ]] || reference_checksum[$key]=${reference_checksum[$p]:-}
    for variant in $variants; do
        alg=${variant%%:*}
        window=1
        [[ $variant == *:* ]] && window=${variant#*:}
        name="map=$map clusters=$clusters p=$p alg=$alg window=$window${args:+ $args}"
        run_check "$name" "$p" --mca coll "$coll_list" --mca coll_hier_node_map "$map" \
            --mca coll_hier_cluster_map "$clusters" --mca coll_hier_window "$window" \
            --mca coll_hier_alltoall_algorithm "$alg" --mca coll_hier_verbose 1 -- "$alltoall_checker" \
            "${checker_args[@]}"
        check_result "$name: results"
        if [[ $alg == fallback ]]; then
            reference_checksum[$key]=$(log_checksum)
        else
            check_checksum "$name: checksum" "$key"
        fi
        [[ $alg == auto ]] && alg=$( ((p >= 16)) && echo "$AUTO_ACROSS_CLUSTERS" || echo fallback)
        ((plain)) || check_verbose "$name: verbose" "$map" alltoall "$alg" "$(map_nodes "$clusters")"
    done
done
# auto's measurements (coll_hier_auto_trial_calls, 0 elsewhere here): on
# 3 + 4 one-process nodes with unknown costs the model cannot tell the LG
# rows from Open MPI's linear for these blocks, so the first calls of each
# size class run them in turn, in up to 5 rounds, and the fastest is kept.
# Repeated counts (64 each) give every class the calls the longest trial
# needs (one call each to warm up, then 5 rounds of 3, for Open MPI's and 3
# rows); each call is
# checked, and the results must equal the fallback's (the ranks agree on
# every call's algorithm, or the exchange would hang or differ).
TRIAL_COUNTS=$(printf '1,%.0s' {1..64}; printf '100,%.0s' {1..63}; echo 100)
readonly TRIAL_MAP=1,1,1,1,1,1,1 TRIAL_CLUSTERS=3,4 TRIAL_COUNTS
for alg in fallback auto; do
    name="auto measures: map=$TRIAL_MAP clusters=$TRIAL_CLUSTERS alg=$alg, counts repeated"
    run_check "$name" "$(map_size "$TRIAL_MAP")" --mca coll "$coll_list" --mca coll_hier_node_map "$TRIAL_MAP" \
        --mca coll_hier_cluster_map "$TRIAL_CLUSTERS" --mca coll_hier_alltoall_algorithm "$alg" \
        --mca coll_hier_auto_trial_calls 3 --mca coll_hier_verbose 2 -- "$alltoall_checker" \
        --counts "$TRIAL_COUNTS" --comms world,reversed
    check_result "$name: results"
    if [[ $alg == fallback ]]; then
        reference_checksum[trial]=$(log_checksum)
        continue
    fi
    check_checksum "$name: checksum" trial
    ((plain)) && continue
    measured=$(grep -c -E '\): measured over (3|6|9|12|15) calls each \(medians from a common start\): open-mpi [^,]+, [a-z0-9_]+ [^;]+; each over open-mpi.s of its cycle: [a-z0-9_]+ x[0-9.]+[^;]*; picks [a-z0-9_]+$' "$log.err" || true)
    started=$(grep -c -E '\): fallback \(measuring it against [a-z0-9_, ]+: one call each to warm up, then 3 each \(up to 15 while their ratios cannot tell them apart\)\)' "$log.err" || true)
    together=$(grep -c -E ': the trial.s calls started together, on clocks synchronized in [0-9.]+ ms; [0-9]+ of its first [0-9]+ starts came late$' "$log.err" || true)
    if ((measured == 0 || measured != started)); then
        fail "$name: measurements" "$started trials began and $measured ended (every class has calls enough)" "$log"
    elif ((together != measured)); then
        fail "$name: common starts" "$measured trials ended, $together said their calls started together" "$log"
    else
        pass "$name: measurements ($measured trials; $(grep -m1 -o 'measured over.*' "$log.err"))"
    fi
done
# Backbone pieces (coll_hier_backbone_piece): messages between clusters longer
# than a piece go as pieces of MPI_BYTE, from the region itself or, for the
# checker's non-contiguous types, through a packed copy. Small pieces, one
# dividing no block evenly, make every such message go in pieces here;
# alltoallv (variable blocks) goes whole, and must stay right alongside.
# Every alltoall row of the registry that applies to the map.
readonly PIECE_MAP=2,2,1,1,1 PIECE_CLUSTERS=2,3
registry_fit alltoall "$PIECE_MAP" "$PIECE_CLUSTERS"
piece_rows=()
for i in "${!rows[@]}"; do [[ -n ${unfit[${rows[$i]}]} ]] || piece_rows+=("${rows[$i]}:$(window_for "$i" 1)"); done
for piece_args in 100 "7 --quick"; do
    read -r piece args <<<"$piece_args"
    for variant in "${piece_rows[@]}"; do
        alg=${variant%%:*} window=${variant#*:}
        p=$(map_size "$PIECE_MAP")
        name="backbone pieces of $piece B: map=$PIECE_MAP clusters=$PIECE_CLUSTERS alg=$alg window=$window${args:+ $args}"
        run_check "$name" "$p" --mca coll "$coll_list" --mca coll_hier_node_map "$PIECE_MAP" \
            --mca coll_hier_cluster_map "$PIECE_CLUSTERS" --mca coll_hier_backbone_piece "$piece" \
            --mca coll_hier_window "$window" --mca coll_hier_alltoall_algorithm "$alg" -- "$alltoall_checker" $args
        check_result "$name: results"
        if [[ -z $args ]]; then check_checksum "$name: checksum" "$p/$PIECE_CLUSTERS/"; fi
    done
done
name="backbone pieces of 7 B: alltoallv, lg"
run_check "$name" "$(map_size "$PIECE_MAP")" --mca coll "$coll_list" --mca coll_hier_node_map "$PIECE_MAP" \
    --mca coll_hier_cluster_map "$PIECE_CLUSTERS" --mca coll_hier_backbone_piece 7 \
    --mca coll_hier_alltoallv_algorithm lg -- "$alltoallv_checker" --comms world,parity
check_result "$name: results"
name="bad value: backbone piece -5"
run_check "$name" 7 --mca coll "$coll_list" --mca coll_hier_node_map "$PIECE_MAP" \
    --mca coll_hier_cluster_map "$PIECE_CLUSTERS" --mca coll_hier_backbone_piece -5 \
    --mca coll_hier_alltoall_algorithm lg -- "$alltoall_checker"
check_result "$name: results"
check_checksum "$name: checksum" "7/$PIECE_CLUSTERS/"
((plain)) || check_error_line "$name: error line" coll_hier_backbone_piece

name="bad value: cluster map 3,5 over 7 nodes"
run_check "$name" 7 --mca coll "$coll_list" --mca coll_hier_node_map 1,1,1,1,1,1,1 \
    --mca coll_hier_cluster_map 3,5 -- "$alltoall_checker"
check_result "$name: results"
check_checksum "$name: checksum" "7/3,4/"
((plain)) || check_error_line "$name: error line" coll_hier_cluster_map

# Clusters by host patterns (coll_hier_cluster_map CLUSTER:HOSTS;...). On
# one host every rank has the same host name, so what can run here is a map
# naming this host, one cluster (auto: the fallback across the node map's
# nodes), and the maps that must be refused, each in one line naming the
# parameter, with the fallback's results. Several clusters of real hosts are
# the cluster layer's (docs/install.md, contrib/cluster/README.md).
host=$(hostname -s)
host_args=(--counts 0,7 --types "int,vector,contig->vector" --comms world,parity)
comms_in_use=world,parity
readonly HOST_MAP_NODES=2,1,3
p=$(map_size "$HOST_MAP_NODES")
name="host map: fallback reference, p=$p"
run_check "$name" "$p" --mca coll "$coll_list" --mca coll_hier_node_map "$HOST_MAP_NODES" \
    --mca coll_hier_alltoall_algorithm fallback -- "$alltoall_checker" "${host_args[@]}"
check_result "$name: results"
reference_checksum[$p/hosts]=$(log_checksum)
name="host map: here:$host is one cluster"
run_check "$name" "$p" --mca coll "$coll_list" --mca coll_hier_node_map "$HOST_MAP_NODES" \
    --mca coll_hier_cluster_map "here:$host" --mca coll_hier_verbose 1 -- "$alltoall_checker" "${host_args[@]}"
check_result "$name: results"
check_checksum "$name: checksum" "$p/hosts"
((plain)) || check_verbose "$name: verbose" "$HOST_MAP_NODES" alltoall "$AUTO_EXPECTED"
# "MAP|what the error line says about it"
readonly BAD_HOST_MAPS=(
    "here:$host[3-1]|runs backwards"
    "here:$host;there:nosuchhost[1-3]|which matches no host of the job"
    "there:nosuchhost|leaves host \"$host\" (rank 0) in no cluster"
    "a:$host;b:$host|puts host \"$host\" in clusters \"a\" and \"b\""
)
# bad_cluster_map NAME MAP SAYS [MPIRUN ARGUMENTS...]: a coll_hier_cluster_map
# that must be refused in one line saying SAYS, with the fallback's results.
bad_cluster_map() {
    local name=$1 cluster_map=$2 says=$3; shift 3
    run_check "$name" "$p" --mca coll "$coll_list" --mca coll_hier_node_map "$HOST_MAP_NODES" "$@" \
        --mca coll_hier_cluster_map "$cluster_map" -- "$alltoall_checker" "${host_args[@]}"
    check_result "$name: results"
    check_checksum "$name: checksum" "$p/hosts"
    if ((!plain)); then
        check_error_line "$name: error line" "coll_hier_cluster_map \"$cluster_map\" "
        if grep -qF "$says" "$log.err"; then pass "$name: says $says"
        else fail "$name: says" "the error line does not say: $says" "$log"; fi
    fi
}
for bad in "${BAD_HOST_MAPS[@]}"; do
    IFS='|' read -r cluster_map says <<<"$bad"
    bad_cluster_map "bad value: host map $cluster_map" "$cluster_map" "$says"
done

# Clusters from what the machine says (coll_hier_cluster_map slurm[:LEVEL],
# topology:PATH, coordinates:PATH; docs/hierarchy.md). Here every rank is on
# this host, so each describes one cluster, as "here:$host" does; a job
# without SLURM_TOPOLOGY_ADDR says so in one line and runs as without a map;
# a malformed file or variable is one line naming the parameter, and the
# fallback's results.
unset SLURM_TOPOLOGY_ADDR SLURM_TOPOLOGY_ADDR_PATTERN
slurm_env=(-x "SLURM_TOPOLOGY_ADDR=spine0.leaf0.$host" -x SLURM_TOPOLOGY_ADDR_PATTERN=switch.switch.node)
topology_conf=$logdir/topology.conf
printf '# this host under one leaf\nSwitchName=leaf0 Nodes=%s\nSwitchName=spine0 Switches=leaf0\n' "$host" \
    >"$topology_conf"
coordinates_file=$logdir/coordinates
for ((r = 0; r < p; r++)); do echo "$r: 0, 0, $r"; done >"$coordinates_file"
printf 'SwitchName=leaf0 Nodes=%s[3-1]\n' "$host" >"$logdir/bad-topology.conf"
printf '0: 0, 0\n' >"$logdir/bad-coordinates"
# "MAP|mpirun's extra arguments (space-separated)"
readonly SOURCE_MAPS=(
    "slurm|${slurm_env[*]}"
    "slurm:1|${slurm_env[*]}"
    "topology:$topology_conf|"
    "coordinates:$coordinates_file|"
)
for source in "${SOURCE_MAPS[@]}"; do
    IFS='|' read -r cluster_map env_args <<<"$source"
    read -ra env_args <<<"$env_args"
    name="cluster source: ${cluster_map%%:/*} is one cluster"
    run_check "$name" "$p" --mca coll "$coll_list" --mca coll_hier_node_map "$HOST_MAP_NODES" "${env_args[@]}" \
        --mca coll_hier_cluster_map "$cluster_map" --mca coll_hier_verbose 1 -- "$alltoall_checker" "${host_args[@]}"
    check_result "$name: results"
    check_checksum "$name: checksum" "$p/hosts"
    ((plain)) || check_verbose "$name: verbose" "$HOST_MAP_NODES" alltoall "$AUTO_EXPECTED"
done
name="cluster source: slurm without SLURM_TOPOLOGY_ADDR"
run_check "$name" "$p" --mca coll "$coll_list" --mca coll_hier_node_map "$HOST_MAP_NODES" \
    --mca coll_hier_cluster_map slurm --mca coll_hier_verbose 1 -- "$alltoall_checker" "${host_args[@]}"
check_result "$name: results"
check_checksum "$name: checksum" "$p/hosts"
if ((!plain)); then
    check_error_line "$name: one line" 'coll_hier_cluster_map "slurm" finds no SLURM_TOPOLOGY_ADDR' 0
    check_verbose "$name: verbose" "$HOST_MAP_NODES" alltoall "$AUTO_EXPECTED"
fi
# "MAP|mpirun's extra arguments|what the error line says"
readonly BAD_SOURCES=(
    "slurm|-x SLURM_TOPOLOGY_ADDR=$host|names no switch above the node"
    "slurm|-x SLURM_TOPOLOGY_ADDR=a..$host|is not names separated by '.'"
    "slurm:3|${slurm_env[*]}|has 2 switch level(s), fewer than 3"
    "slurm:x||is not slurm, slurm:leaf or slurm:LEVEL"
    "topology:$logdir/bad-topology.conf||line 1 has Nodes="
    "topology:$logdir/no-such-file||cannot be read"
    "coordinates:$logdir/bad-coordinates||line 1 is not \"RANK: GROUP"
)
for bad in "${BAD_SOURCES[@]}"; do
    IFS='|' read -r cluster_map env_args says <<<"$bad"
    read -ra env_args <<<"$env_args"
    bad_cluster_map "bad value: cluster source ${cluster_map##*/}" "$cluster_map" "$says" "${env_args[@]}"
done
comms_in_use=world,dup,parity,reversed

# The other collectives, row by row of COLL_RUNS.
for row in "${COLL_RUNS[@]}"; do
    IFS='|' read -r op variant map extra want <<<"$row"
    alg=${variant%%:*}
    window=1
    [[ $variant == *:* ]] && window=${variant#*:}
    split_extra "$extra"
    key="$op p=$(map_size "$map")${checker_extra[*]:+ ${checker_extra[*]}}"
    if [[ $alg != fallback && -z ${reference_checksum[$key]:-} ]]; then
        # The same communicator and torus as the row's, asking for the fallback.
        run_coll "$op" fallback 1 "$map" "fallback${want#"${want%%[#@]*}"}" "$key"
    fi
    run_coll "$op" "$alg" "$window" "$map" "$want" "$key"
done

for bad in "${COLL_BAD_VALUES[@]}"; do
    IFS='|' read -r op map <<<"$bad"
    p=$(map_size "$map")
    name="bad value: $op p=$p map=$map alg=bogus"
    run_check "$name" "$p" --mca coll "$coll_list" --mca coll_hier_node_map "$map" \
        --mca "coll_hier_${op}_algorithm" bogus -- "$coll_checker" --op "$op"
    check_result "$name: results"
    check_checksum "$name: checksum" "$op p=$p"
    ((plain)) || check_error_line "$name: error line" "coll_hier_${op}_algorithm"
done

for bad in "${TORUS_BAD_VALUES[@]}"; do
    IFS='|' read -r op map dims <<<"$bad"
    p=$(map_size "$map")
    name="bad value: $op p=$p coll_hier_torus_dims=$dims"
    run_check "$name" "$p" --mca coll "$coll_list" --mca coll_hier_node_map "$map" \
        --mca coll_hier_torus_dims "$dims" --mca "coll_hier_${op}_algorithm" opt \
        -- "$coll_checker" --op "$op" --counts 0,1,4096
    check_result "$name: results"
    check_checksum "$name: checksum" "$op p=$p --counts 0,1,4096"
    ((plain)) || check_error_line "$name: error line" coll_hier_torus_dims
done

# Selection. Not asked for (not in the coll list, no priority set), hier is
# loaded but changes nothing: no verbose line, Open MPI's results.
if ((!plain)); then
    name="selection: hier installed, not asked for"
    run_check "$name" 3 --mca coll_hier_verbose 1 --mca coll_hier_node_map 2,1 -- "$alltoall_checker"
    check_result "$name: results"
    check_checksum "$name: checksum" 3
    if grep -q 'coll:hier' "$log.out" "$log.err"; then fail "$name: silent" "hier printed a line" "$log"
    else pass "$name: silent"; fi

    # Per-communicator settings through MPI_T: hier_bench -v writes
    # coll_hier_alltoall_algorithm (and coll_hier_window) before each
    # MPI_Comm_dup. hier must decline the first communicator (every
    # algorithm fallback), keep each other's own algorithm, and every
    # variant's bytes must check.
    name="selection: per-communicator algorithms through MPI_T"
    bench=${HIER_BENCH:-$(dirname "$0")/../../contrib/bench/hier_bench}
    if [[ ! -x $bench ]]; then
        fail "$name" "$bench is not built (make, or set HIER_BENCH)"
    else
        run_check "$name" 6 --mca coll "$coll_list" --mca coll_hier_node_map 2,1,3 --mca coll_hier_verbose 1 \
            -- "$bench" -c alltoall -m 1:1024 -i 2 -x 1 -s barrier -f csv -v open-mpi,factor,pairwise:4
        rows=$(grep -cE '^(open-mpi|factor|pairwise:4),alltoall,barrier,[0-9]+,.*,Pass,' "$log.out" || true)
        lines=$(sed -n 's/^coll:hier: alltoall on MPI COMM\(UNICATOR\)\{0,1\} [0-9]* DUP FROM 0 ([^)]*): //p' "$log.err" | tr '\n' '|')
        if ((rc != 0 || rows != 33)); then fail "$name" "exit code $rc, $rows of 33 rows validated" "$log"
        elif [[ $lines != "factor|pairwise (window 4)|" ]]; then
            fail "$name" "verbose lines say '${lines}', expected 'factor|pairwise (window 4)|'" "$log"
        else pass "$name"; fi
    fi

    # Alone in the coll list, Open MPI cannot start (every collective needs
    # a provider): one line says which list to use, before Open MPI's error.
    name="selection: --mca coll hier alone"
    run_check "$name" 2 --mca coll hier -- "$alltoall_checker"
    if ((rc == 0)); then fail "$name" "the job started, though no collective has a provider" "$log"
    else check_error_line "$name: error line" "use --mca coll hier,tuned,libnbc,basic,inter,self" 0; fi
fi

echo "run_mpi_tests.sh: $run_no runs in $((SECONDS - start)) s"
echo "$passed passed, $failed failed"
((failed == 0))
