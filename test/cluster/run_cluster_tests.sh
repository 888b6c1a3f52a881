#!/usr/bin/env bash
# Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# run_cluster_tests.sh: tests of coll/hier on the emulated multi-node cluster
# (contrib/cluster/README.md): Open MPI started through hier-rsh into network
# namespaces, with real locality and shaped TCP links.
#
#   smoke          3 ranks on nodes of 2 and 1: distinct host names per node,
#                  shared memory inside a node, an MPI_Alltoall
#   uneven-smp     alltoall_check with coll/hier on nodes of 4,3,2,1 ranks,
#                  found through Open MPI's locality alone (no node map), with
#                  by-slot and by-node placement; a ping-pong's bandwidth
#   two-clusters   backbone delay and bandwidth, a 9-node alltoall
#   three-clusters every cluster pair sees the backbone delay
#   torus          kernel routing through intermediate nodes (interface
#                  counters), link bandwidth, a 16-node alltoall
#   hetero         per-destination rates and delays follow the pair costs;
#                  the hypercube collectives on the scenario's costs
#   (and, on the backbone scenarios, lg and alltoallv with host-pattern
#   cluster maps; on the torus, opt scatter and gather; every alltoall row of
#   the registry by name on uneven-smp (two-clusters: the lg rows and node_lg;
#   torus and hetero: mesh and hypercube; every row on all with --full);
#   MPI_Ialltoall, auto and a row by name, on uneven-smp and two-clusters)
#   leaf-spine     3 leaf switches of 3 nodes under a slower spine, as Slurm
#                  describes it: every node's own SLURM_TOPOLOGY_ADDR reaches
#                  its ranks; coll_hier_cluster_map slurm, topology:PATH (the
#                  topology.conf hier-cluster wrote) and the same leaves as
#                  host patterns give hier-inspect and auto the same clusters
#                  and decisions, where auto picks hier and where it does not
#   one-node, two-clusters-smp, two-clusters-4-8, two-clusters-6-6
#                  auto at its defaults: results and its verbose line
#   down           nothing is left behind
# Bandwidths are printed ("info:"); only their upper bound (the shaping works)
# is asserted, a loaded machine can always be slower.
#
# The last line is "N passed, M failed" (", K skipped" when some were); the
# exit code is nonzero if anything failed. Without root or namespace support
# it prints one "SKIP: reason" line and exits 77.
#
# usage: run_cluster_tests.sh [--quick] [--full] [--only LIST] [--logdir DIR] [--timeout SEC]
#   --quick    smoke and uneven-smp only
#   --full     every alltoall row by name on the torus and hetero too (without
#              it: the rows their shape or costs decide, mesh and hypercube;
#              uneven-smp and two-clusters run every row either way)
#   --only     only these of smoke, uneven-smp, two-clusters, three-clusters,
#              torus, hetero, leaf-spine, auto-elsewhere (comma-separated),
#              then down
#   --logdir   where each run's output goes (default: a new temp dir)
#   --timeout  seconds before an mpirun counts as hung (default 120)
# environment:
#   HIER_COMPONENT_DIR  directory of the mca_coll_hier.so to test
#                       (default: the tree's ompi/mca/coll/hier/.libs)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cluster=$repo/contrib/cluster/hier-cluster
# shellcheck source=../../contrib/mpirun-local.sh
source "$repo/contrib/mpirun-local.sh"   # hier_pkglibdir, hier_ompi_series

quick=0 full=0 only="" logdir="" timeout_s=120
usage() { sed -n '/^# usage:/,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }
while (($#)); do
    case "$1" in
        --quick) quick=1 ;;
        --full) full=1 ;;
        --only) only=${2:?--only needs a list of sections}; shift ;;
        --logdir) logdir=${2:?--logdir needs a directory}; shift ;;
        --timeout) timeout_s=${2:?--timeout needs seconds}; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "run_cluster_tests.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done
for name in $(tr ',' ' ' <<<"$only"); do
    case $name in
        smoke|uneven-smp|two-clusters|three-clusters|torus|hetero|leaf-spine|auto-elsewhere) ;;
        *) echo "run_cluster_tests.sh: --only: unknown section $name" >&2; usage >&2; exit 2 ;;
    esac
done

# ------------------------------------------------------------ preconditions

skip_all() { echo "SKIP: $*"; exit 77; }
set +e
check_out=$("$cluster" check 2>&1)
check_rc=$?
set -e
((check_rc == 77)) && skip_all "${check_out#hier-cluster: }"
((check_rc == 0)) || { echo "$check_out" >&2; echo "0 passed, 1 failed"; exit 1; }
for tool in mpicc mpirun ompi_info; do
    command -v "$tool" >/dev/null || skip_all "no $tool (Debian: apt-get install libopenmpi-dev openmpi-bin)"
done

[[ -n $logdir ]] || logdir=$(mktemp -d "${TMPDIR:-/tmp}/hier-cluster-tests.XXXXXX")
mkdir -p "$logdir/bin"
component_dir=${HIER_COMPONENT_DIR:-$repo/ompi/mca/coll/hier/.libs}

# Always leave the host clean, whatever happens (a failing check, Ctrl-C).
trap '"$cluster" down >/dev/null 2>&1 || true' EXIT
trap 'exit 130' INT TERM

# ----------------------------------------------------------------- counters

passed=0 failed=0 skipped=0
pass() { passed=$((passed + 1)); echo "PASS: $1"; }
fail() { failed=$((failed + 1)); echo "FAIL: $1${2:+ ($2)}"; }
skip() { skipped=$((skipped + 1)); echo "SKIP: $1${2:+ ($2)}"; }
info() { echo "info: $*"; }
# check NAME REASON COMMAND...: pass if COMMAND succeeds, else fail with REASON.
check() {
    local name=$1 reason=$2; shift 2
    if "$@"; then pass "$name"; else fail "$name" "$reason"; fi
}

# ------------------------------------------------------------------- builds

build() {   # build NAME SOURCE: an MPI program into $logdir/bin
    mpicc -O2 -o "$logdir/bin/$1" "$2" >"$logdir/build-$1.log" 2>&1 ||
        { cat "$logdir/build-$1.log" >&2; fail "build $1" "mpicc failed"; return 1; }
}
build cluster_hello "$here/cluster_hello.c"
build cluster_pingpong "$here/cluster_pingpong.c"
# checker_for NAME: the MPI layer's checker NAME, built here if it is missing
# or older than its sources.
checker_for() {
    local built=$repo/test/mpi/$1
    if [[ ! -x $built || $repo/test/mpi/$1.c -nt $built || $repo/test/mpi/check_common.h -nt $built ]]; then
        build "$1" "$repo/test/mpi/$1.c" && built=$logdir/bin/$1
    fi
    echo "$built"
}
checker=$(checker_for alltoall_check)
alltoallv_checker=$(checker_for alltoallv_check)
coll_checker=$(checker_for coll_check)
hello=$logdir/bin/cluster_hello pingpong=$logdir/bin/cluster_pingpong

# ------------------------------------------------------------------ helpers

up() {   # up SCENARIO: bring it up; on failure say why and return 1
    if "$cluster" up "$1" >"$logdir/up-$1.log" 2>&1; then
        info "$(tail -n1 "$logdir/up-$1.log")"
        read -r -a MPIRUN_ARGS <<<"$("$cluster" mpirun-args)"
        return 0
    fi
    return 1
}

# run LOG ARGS...: mpirun on the cluster; output in $logdir/LOG.log.
run() {
    local log=$logdir/$1.log; shift
    timeout -k 10 $((timeout_s + 30)) mpirun "${MPIRUN_ARGS[@]}" --timeout "$timeout_s" "$@" >"$log" 2>&1
}
why_up() { grep -v "up failed" "$logdir/up-$1.log" | head -n1; }   # the first error line
show_tail() { sed 's/^/    | /' "$logdir/$1.log" | tail -n "${2:-15}"; }

# pingpong LOG HOSTS [-n ITERS] BYTES...: the mean round trip (us) of the
# first size into RTT1_US and its fastest into RTT1_MIN_US (a delay line's
# floor, free of the scheduling hiccups of 2 cores), the one-way Mbit/s of the
# last size into MBIT.
pingpong() {
    local log=$1 hosts=$2; shift 2
    MBIT="" RTT1_US="" RTT1_MIN_US=""
    run "$log" -np 2 --host "$hosts" "$pingpong" "$@" || return 1
    RTT1_US=$(awk '/^cluster_pingpong:/ {print $5; exit}' "$logdir/$log.log")
    RTT1_MIN_US=$(awk '/^cluster_pingpong:/ {print $9; exit}' "$logdir/$log.log")
    MBIT=$(awk '/^cluster_pingpong:/ {v = $7} END {print v}' "$logdir/$log.log")
    [[ -n $MBIT ]]
}
has_lines() {   # has_lines FILE LINE...: every LINE is a whole line of FILE
    local file=$1 line; shift
    for line in "$@"; do grep -qxF "$line" "$file" || return 1; done
}
le() { awk -v a="$1" -v b="$2" 'BEGIN {exit !(a <= b)}'; }   # a <= b, as reals
between() { le "$1" "$2" && le "$2" "$3"; }                    # lo <= x <= hi
contains() { [[ $1 == *"$2"* ]]; }

# -------------------------------------------------------------------- smoke

test_smoke() {
    if ! up smoke; then fail "smoke: up" "$(why_up smoke)"; return; fi
    pass "smoke: up"
    if ! run smoke-hello -np 3 "$hello"; then
        fail "smoke: hello" "mpirun failed"; show_tail smoke-hello; return
    fi
    local log=$logdir/smoke-hello.log
    # By slot: ranks 0 and 1 on hier-n0 (2 slots), rank 2 on hier-n1.
    check "smoke: ranks 0,1 on hier-n0 share memory, rank 2 alone on hier-n1" "see $log" \
        has_lines "$log" "cluster_hello: rank 0 of 3 on hier-n0 (shares memory with 2)" \
        "cluster_hello: rank 1 of 3 on hier-n0 (shares memory with 2)" \
        "cluster_hello: rank 2 of 3 on hier-n1 (shares memory with 1)"
    check "smoke: MPI_Alltoall across nodes" "see $log" grep -qx "cluster_hello: alltoall ok" "$log"
    # tcp-alltoall: one row per size, 4 KiB and 8 KiB, every time a positive number.
    log=$logdir/smoke-tcp-alltoall.log
    "$repo/contrib/cluster/tcp-alltoall" -m 4096:8192 -i 2 -x 1 >"$log" 2>&1
    check "smoke: tcp-alltoall times 4 and 8 KiB" "see $log" \
        test "$(awk '$1 ~ /^(4096|8192)$/ && $2 > 0 && $3 > 0 && $5 == 2' "$log" | wc -l)" -eq 2
}

# --------------------------------------------------------------- uneven-smp

test_uneven_smp() {
    if ! up uneven-smp; then fail "uneven-smp: up" "$(why_up uneven-smp)"; return; fi
    pass "uneven-smp: up"
    if [[ ! -e $component_dir/mca_coll_hier.so ]]; then
        fail "uneven-smp: alltoall_check with coll/hier" "no $component_dir/mca_coll_hier.so (build the tree: make)"
    else
        local pkglibdir placement log
        pkglibdir=$(hier_pkglibdir)
        # shellcheck disable=SC2054  # commas in the coll list
        local hier_args=(--mca mca_base_component_path "$component_dir:$pkglibdir"
                         --mca coll hier,tuned,libnbc,basic,inter,self --mca coll_hier_verbose 1)
        # No coll_hier_node_map: hier must find the 4 nodes through Open MPI's
        # locality, by slot (ranks 0-3 | 4-6 | 7-8 | 9) and by node (interleaved).
        for placement in slot node; do
            log=uneven-smp-alltoall-by-$placement
            local rc=0 map_by=$placement
            # Open MPI 5.0's by-node mapper (PRRTE's) spreads ranks evenly and
            # refuses 10 over slots 4,3,2,1 unless it may oversubscribe.
            [[ $placement == node && $(hier_ompi_series) != 4.* ]] && map_by=node:OVERSUBSCRIBE
            run "$log" -np 10 --map-by "$map_by" "${hier_args[@]}" "$checker" --counts 0,1,7,4096 || rc=$?
            local summary
            summary=$(grep -E '^alltoall_check: [0-9]+ passed, [0-9]+ failed$' "$logdir/$log.log" || true)
            if ((rc == 0)) && [[ $summary =~ ^alltoall_check:\ [1-9][0-9]*\ passed,\ 0\ failed$ ]]; then
                pass "uneven-smp: alltoall_check by $placement ($summary)"
            else
                fail "uneven-smp: alltoall_check by $placement" "exit $rc, ${summary:-no summary}"; show_tail "$log"
            fi
            # The decision is auto's (from its time model and the probes'
            # costs); what matters here is the shape hier found.
            check "uneven-smp: hier finds 4 nodes through locality (by $placement)" "see $logdir/$log.log" \
                grep -qF "coll:hier: alltoall on MPI_COMM_WORLD (size 10, 4 nodes): " "$logdir/$log.log"
        done
    fi
    # Bandwidth: one rank on each of two nodes, through two 200 Mbit/s NICs.
    if pingpong uneven-smp-pingpong hier-n0,hier-n1 1 1048576; then
        info "uneven-smp ping-pong hier-n0 <-> hier-n1: 1 MiB at $MBIT Mbit/s (NICs 200 Mbit/s), 1-byte round trip $RTT1_US us"
        check "uneven-smp: NIC shaped (1 MiB ping-pong <= 260 Mbit/s)" "$MBIT Mbit/s" le "$MBIT" 260
    else
        fail "uneven-smp: ping-pong" "mpirun failed"; show_tail uneven-smp-pingpong
    fi
    alltoall_by_name uneven-smp 10 "4,3,2,1"
    alltoall_auto uneven-smp 10
    ialltoall uneven-smp 10 auto "size 10, 4 nodes"
    ialltoall uneven-smp 10 factor "size 10, 4 nodes"
}

# --------------------------------------------------------------- backbones

# up_backbone SCENARIO: brings up a scenario with a backbone; a missing delay
# line (no libnetfilter_queue or iptables) is a skip, anything else a failure.
up_backbone() {
    if ! up "$1"; then
        local why; why=$(why_up "$1")
        if [[ $why == *delayline* || $why == *iptables* ]]; then skip "$1" "$why"
        else fail "$1: up" "$why"; fi
        return 1
    fi
    pass "$1: up"
}

# probe_clusters SCENARIO NP CLUSTERS: alltoall_check with hier and
# coll_hier_cluster_map=probe; the probe must find CLUSTERS clusters among NP
# one-process nodes (the verbose line), and the results must pass.
probe_clusters() {
    local scenario=$1 np=$2 clusters=$3 log=$1-probe rc=0 summary
    if [[ ! -e $component_dir/mca_coll_hier.so ]]; then
        fail "$scenario: probe" "no $component_dir/mca_coll_hier.so (build the tree: make)"; return
    fi
    # shellcheck disable=SC2054  # commas in the coll list
    run "$log" -np "$np" --mca mca_base_component_path "$component_dir:$(hier_pkglibdir)" \
        --mca coll hier,tuned,libnbc,basic,inter,self --mca coll_hier_verbose 1 \
        --mca coll_hier_cluster_map probe "$checker" --counts 1,4096 || rc=$?
    summary=$(grep -E '^alltoall_check: [0-9]+ passed, [0-9]+ failed$' "$logdir/$log.log" || true)
    if ((rc == 0)) && [[ $summary =~ ^alltoall_check:\ [1-9][0-9]*\ passed,\ 0\ failed$ ]]; then
        pass "$scenario: alltoall_check with clusters from the probe ($summary)"
    else
        fail "$scenario: alltoall_check with clusters from the probe" "exit $rc, ${summary:-no summary}"
        show_tail "$log"
    fi
    check "$scenario: the probe finds $clusters clusters of $np nodes" "see $logdir/$log.log" \
        grep -qE "coll:hier: alltoall on MPI_COMM_WORLD \(size $np, $np nodes, $clusters clusters\)" "$logdir/$log.log"
    # The message probe (link costs probe, the default) leaves out the partners
    # in other clusters: every rank has some within its reach of 8 ranks.
    check "$scenario: the message probe leaves other clusters out on all $np ranks" "see $logdir/$log.log" \
        grep -qE "coll:hier: probed the cost per message .*; partners in other clusters left out by $np ranks$" \
        "$logdir/$log.log"
    info "$scenario: $(grep -m1 'probed latency' "$logdir/$log.log" || echo 'no probe line')"
}

# hier_check SCENARIO WHAT NP WANT CHECKER [CHECKER ARGS...] -- [MPIRUN ARGS...]:
# the checker with coll/hier (verbose 1) and the given MCA settings; its
# results must pass and its verbose line on MPI_COMM_WORLD must end in WANT
# (e.g. "2 clusters): lg_at_once"), or in WANT and details in parentheses;
# the same run on Open MPI's own collectives must give the same checksum.
declare -A open_mpi_checksum=()   # hier_check's reference runs, by scenario and command line
hier_check() {
    local scenario=$1 what=$2 np=$3 want=$4 prog=$5 log rc=0 summary name
    shift 5
    local args=()
    while (($#)) && [[ $1 != -- ]]; do args+=("$1"); shift; done
    (($#)) && shift
    name=$(basename "$prog")
    log="$scenario-${what//[^A-Za-z0-9_.-]/_}"
    if [[ ! -e $component_dir/mca_coll_hier.so ]]; then
        fail "$scenario: $what" "no $component_dir/mca_coll_hier.so (build the tree: make)"; return
    fi
    # shellcheck disable=SC2054  # commas in the coll list
    run "$log" -np "$np" --mca mca_base_component_path "$component_dir:$(hier_pkglibdir)" \
        --mca coll hier,tuned,libnbc,basic,inter,self --mca coll_hier_verbose 1 "$@" "$prog" "${args[@]}" || rc=$?
    summary=$(grep -E "^$name: [0-9]+ passed, [0-9]+ failed\$" "$logdir/$log.log" || true)
    if ((rc == 0)) && [[ $summary =~ ^$name:\ [1-9][0-9]*\ passed,\ 0\ failed$ ]]; then
        pass "$scenario: $what ($summary)"
    else
        fail "$scenario: $what" "exit $rc, ${summary:-no summary}"; show_tail "$log"
    fi
    # The algorithm may be followed by its details in parentheses. An empty
    # want: the caller checks the line itself.
    [[ -n $want ]] && check "$scenario: $what: verbose line names '$want'" "see $logdir/$log.log" \
        grep -qE "on MPI_COMM_WORLD \(.*$(sed 's/[][().*+?^$|\\]/\\&/g' <<<"$want")( \(.*\))?\$" "$logdir/$log.log"
    # The same cases on Open MPI's own collectives must give the same results.
    # hier's settings do not reach Open MPI's run, so one run serves every
    # check of the same cases on the scenario (e.g. each alltoall row by name).
    local open_mpi_args=()
    while (($#)); do
        if [[ $1 == --mca && ${2:-} == coll_hier_* ]]; then shift 3; else open_mpi_args+=("$1"); shift; fi
    done
    local key="$scenario|$np|$prog|${args[*]}|${open_mpi_args[*]}" mine theirs
    if [[ -z ${open_mpi_checksum[$key]+run} ]]; then
        # shellcheck disable=SC2054  # commas in the coll list
        run "$log-open-mpi" -np "$np" --mca mca_base_component_path "$component_dir:$(hier_pkglibdir)" \
            --mca coll tuned,libnbc,basic,inter,self "${open_mpi_args[@]}" "$prog" "${args[@]}" || true
        open_mpi_checksum[$key]=$(grep "^$name: checksum " "$logdir/$log-open-mpi.log" || true)
    fi
    mine=$(grep "^$name: checksum " "$logdir/$log.log" || true)
    theirs=${open_mpi_checksum[$key]}
    check "$scenario: $what: results equal Open MPI's own" "${mine:-no checksum} vs ${theirs:-no checksum}" \
        test -n "$mine" -a "$mine" = "$theirs"
}

# The registry's alltoall rows for a machine (hier-inspect registry, the
# core's own table): "NAME applies" or "NAME unfit: WHY", one per line.
registry_rows() {
    "$repo/contrib/inspect/hier-inspect" registry alltoall "$@" | awk '{ print $3, $4 }'
}

# alltoall_by_name SCENARIO NP "NODE_SIZES [--clusters C] [--torus D]"
#                  [--only "ROWS"] [MPIRUN ARGS...]:
# every alltoall row of the registry (or only ROWS of them) by name on the
# scenario that is up, whose machine the third argument describes as
# hier-inspect takes it, byte for byte against point-to-point and by checksum
# against Open MPI's own on the same cases. A row that applies must run (its
# name in the verbose line), one that does not must fall back. The cases
# keep send and receive types alike: Open MPI 4.1.4's modified Bruck, which
# tuned runs from 16 ranks for small blocks, corrupts mixed ones
# (open-mpi/ompi#10488), and it is the reference here.
alltoall_by_name() {
    local scenario=$1 np=$2 machine=$3 algorithm fit want rows only=""
    shift 3
    if [[ ${1:-} == --only ]]; then only=" $2 "; shift 2; fi
    # shellcheck disable=SC2086  # the machine's words are hier-inspect's arguments
    rows=$(registry_rows $machine)
    if [[ -z $rows ]]; then
        fail "$scenario: the registry's alltoall rows" "hier-inspect registry alltoall $machine printed none"
        return
    fi
    # The rows on descriptor 3: mpirun reads standard input.
    while read -r algorithm fit <&3; do
        [[ -z $only || $only == *" $algorithm "* ]] || continue
        want="): $algorithm"
        [[ $fit == applies ]] || want=fallback
        hier_check "$scenario" "alltoall_check, $algorithm by name" "$np" "$want" \
            "$checker" --counts 1,100 --types int,vector --comms world,dup -- \
            --mca coll_hier_alltoall_algorithm "$algorithm" "$@"
    done 3<<<"$rows"
}

# ialltoall SCENARIO NP ALGORITHM SHAPE [MPIRUN ARGS...]: alltoall_check in
# its nonblocking form (MPI_Ialltoall, completed by MPI_Wait and MPI_Test in
# turn) with ALGORITHM (auto: at every default), byte for byte and by
# checksum against Open MPI's own (libnbc's) on the same cases; rank 0's
# verbose line "ialltoall on MPI_COMM_WORLD (SHAPE): ..." names ALGORITHM
# (auto: a row of the registry or the fallback).
ialltoall() {
    local scenario=$1 np=$2 algorithm=$3 shape=$4 what want line
    shift 4
    what="alltoall_check --form nonblocking, $algorithm"
    hier_check "$scenario" "$what" "$np" "" "$checker" --form nonblocking --counts 1,100 --types int,vector \
        --comms world,dup -- --mca coll_hier_alltoall_algorithm "$algorithm" "$@"
    want=$algorithm
    [[ $algorithm == auto ]] && want="($(registry_rows | awk '{ print $1 }' | paste -sd'|')|fallback)"
    line=$(grep -m1 'coll:hier: ialltoall on MPI_COMM_WORLD ' "$logdir/$scenario-${what//[^A-Za-z0-9_.-]/_}.log" || true)
    check "$scenario: $what: verbose line 'ialltoall on MPI_COMM_WORLD ($shape): $algorithm'" "${line:-no line}" \
        grep -qE "^coll:hier: ialltoall on MPI_COMM_WORLD \($shape\): $want( \(.*\))?\$" <<<"$line"
}

# alltoall_auto SCENARIO NP [MPIRUN ARGS...]: auto at every setting's
# default (trials off, costs probed): correct results, equal to Open MPI's
# own, and a verbose line naming a row or the fallback.
alltoall_auto() {
    local scenario=$1 np=$2 rows
    shift 2
    hier_check "$scenario" "alltoall_check, auto" "$np" "" \
        "$checker" --counts 1,100 --types int,vector --comms world,dup -- "$@"
    rows=$(registry_rows | awk '{ print $1 }' | paste -sd'|')
    check "$scenario: alltoall_check, auto: its verbose line names a row or the fallback" \
        "$(grep -m1 'alltoall on MPI_COMM_WORLD' "$logdir/$scenario-alltoall_check__auto.log" || echo 'no line')" \
        grep -qE "alltoall on MPI_COMM_WORLD \(.*\): ($rows|fallback)( \(.*\))?\$" "$logdir/$scenario-alltoall_check__auto.log"
}

test_two_clusters() {
    up_backbone two-clusters || return
    # hier-n0 is in the cluster of 3, hier-n3 in the cluster of 6.
    local cross_rtt="" cross_mbit=""
    if pingpong two-clusters-cross hier-n0,hier-n3 1 1048576 && cross_rtt=$RTT1_US && cross_mbit=$MBIT &&
        pingpong two-clusters-inside hier-n3,hier-n4 1 1048576; then
        info "two-clusters across the backbone: 1-byte round trip $cross_rtt us, 1 MiB at $cross_mbit Mbit/s (backbone 100 Mbit/s, 5 ms)"
        info "two-clusters inside a cluster:     1-byte round trip $RTT1_US us, 1 MiB at $MBIT Mbit/s (NICs 1 Gbit/s)"
        check "two-clusters: backbone round trip 10..20 ms" "$cross_rtt us" \
            between 10000 "$cross_rtt" 20000
        check "two-clusters: backbone shaped (<= 130 Mbit/s)" "$cross_mbit Mbit/s" le "$cross_mbit" 130
        check "two-clusters: no delay inside a cluster (< 2 ms)" "$RTT1_US us" le "$RTT1_US" 2000
    else
        fail "two-clusters: ping-pong" "mpirun failed"
    fi
    if run two-clusters-hello -np 9 "$hello" && grep -qx "cluster_hello: alltoall ok" "$logdir/two-clusters-hello.log" &&
        (($(grep -o 'on hier-n[0-9]*' "$logdir/two-clusters-hello.log" | sort -u | wc -l) == 9)); then
        pass "two-clusters: 9 hosts, MPI_Alltoall"
    else
        fail "two-clusters: 9 hosts, MPI_Alltoall" "see $logdir/two-clusters-hello.log"
    fi
    probe_clusters two-clusters 9 2
    # Host patterns give every communicator, splits too, its clusters.
    local hosts='nancy:hier-n[0-2];rennes:hier-n[3-8]'
    hier_check two-clusters "alltoall_check, lg_at_once, host patterns" 9 "2 clusters): lg_at_once" \
        "$checker" --counts 1,4096 -- --mca coll_hier_cluster_map "$hosts" --mca coll_hier_alltoall_algorithm lg_at_once
    hier_check two-clusters "alltoall_check, lg, host patterns" 9 "2 clusters): lg" \
        "$checker" --counts 1,4096 -- --mca coll_hier_cluster_map "$hosts" --mca coll_hier_alltoall_algorithm lg
    hier_check two-clusters "alltoall_check, lg_overlap, host patterns" 9 "2 clusters): lg_overlap" \
        "$checker" --counts 1,20000 -- --mca coll_hier_cluster_map "$hosts" --mca coll_hier_alltoall_algorithm lg_overlap
    hier_check two-clusters "alltoallv_check, lg_overlap, host patterns" 9 "2 clusters): lg_overlap" \
        "$alltoallv_checker" -- --mca coll_hier_cluster_map "$hosts" --mca coll_hier_alltoallv_algorithm lg_overlap
    hier_check two-clusters "alltoallv_check, lg, host patterns" 9 "2 clusters): lg" \
        "$alltoallv_checker" -- --mca coll_hier_cluster_map "$hosts" --mca coll_hier_alltoallv_algorithm lg
    # Every row runs by name on uneven-smp; here the rows whose shape the
    # backbone decides, every row with --full.
    local only=(--only "lg lg_at_once lg_overlap node_lg")
    if ((full)); then only=(); fi
    alltoall_by_name two-clusters 9 "1,1,1,1,1,1,1,1,1 --clusters 3,6" "${only[@]}" --mca coll_hier_cluster_map "$hosts"
    alltoall_auto two-clusters 9 --mca coll_hier_cluster_map "$hosts"
    ialltoall two-clusters 9 auto "size 9, 9 nodes, 2 clusters" --mca coll_hier_cluster_map "$hosts"
    ialltoall two-clusters 9 lg_at_once "size 9, 9 nodes, 2 clusters" --mca coll_hier_cluster_map "$hosts"
}

test_three_clusters() {
    up_backbone three-clusters || return
    # Clusters: hier-n0,1 | hier-n2..4 | hier-n5..8.
    local pair
    for pair in hier-n0,hier-n2 hier-n2,hier-n5 hier-n0,hier-n8; do
        if pingpong "three-clusters-${pair/,/-}" "$pair" 1; then
            check "three-clusters: $pair round trip 10..20 ms" "$RTT1_US us" \
                between 10000 "$RTT1_US" 20000
        else
            fail "three-clusters: $pair ping-pong" "mpirun failed"
        fi
    done
    probe_clusters three-clusters 9 3
    local hosts='a:hier-n[0-1];b:hier-n[2-4];c:hier-n[5-8]'
    hier_check three-clusters "alltoall_check, lg, host patterns" 9 "3 clusters): lg" \
        "$checker" --counts 1,4096 -- --mca coll_hier_cluster_map "$hosts" --mca coll_hier_alltoall_algorithm lg
    hier_check three-clusters "alltoall_check, lg_overlap, host patterns" 9 "3 clusters): lg_overlap" \
        "$checker" --counts 1,4096 -- --mca coll_hier_cluster_map "$hosts" --mca coll_hier_alltoall_algorithm lg_overlap
    hier_check three-clusters "alltoallv_check, auto, host patterns" 9 "3 clusters): lg_at_once" \
        "$alltoallv_checker" -- --mca coll_hier_cluster_map "$hosts"
    alltoall_auto three-clusters 9 --mca coll_hier_cluster_map "$hosts"
}

# -------------------------------------------------------------------- torus

counter() { "$cluster" exec "hier-n$1" cat "/sys/class/net/$2/statistics/tx_bytes"; }

# Every pair of the 4x4 torus: the reply's TTL tells the hops taken, which
# must be the torus distance (shortest paths): each intermediate node
# decrements it.
torus_paths() {
    if ! command -v ping >/dev/null; then
        skip "torus: all pairs on shortest paths" "no ping (apt-get install iputils-ping)"
        return
    fi
    local a b ttl dx dy dist bad=""
    for ((a = 0; a < 16; a++)); do
        for ((b = 0; b < 16; b++)); do
            ((a == b)) && continue
            ttl=$(ip netns exec "hier-n$a" ping -c1 -W2 "10.77.0.$((b + 1))" 2>/dev/null | sed -n 's/.*ttl=\([0-9]*\).*/\1/p')
            dx=$(((a % 4 - b % 4 + 4) % 4)) dy=$(((a / 4 - b / 4 + 4) % 4))
            dist=$((dx > 2 ? 4 - dx : dx)); dist=$((dist + (dy > 2 ? 4 - dy : dy)))
            if [[ -z $ttl ]] || ((64 - ttl != dist - 1)); then bad+="$a->$b(ttl ${ttl:-none}) "; fi
        done
    done
    check "torus: all 240 pairs reachable on shortest paths" "$bad" test -z "$bad"
}

test_torus() {
    if ! up torus; then fail "torus: up" "$(why_up torus)"; return; fi
    pass "torus: up"
    # hier-n0 = (0,0) to hier-n10 = (2,2) (row-major: node k at (k div 4, k mod 4)):
    # dimension 0 first, so n0 -t0p-> n4 -t0p-> n8 -t1p-> n9 -t1p-> n10; hier-n1's
    # t1p (the way dimension 1 first would take) is off the path.
    local route; route=$("$cluster" exec hier-n0 ip route get 10.77.0.11)
    check "torus: hier-n0 routes to hier-n10 over t0p with its host address" "$route" \
        contains "$route" "dev t0p src 10.77.0.1 "
    torus_paths
    local n1 n2 off
    n1=$(counter 4 t0p) n2=$(counter 8 t1p) off=$(counter 1 t1p)
    if pingpong torus-far hier-n0,hier-n10 -n 5 1 1048576; then
        local d1 d2 doff
        d1=$(($(counter 4 t0p) - n1)) d2=$(($(counter 8 t1p) - n2)) doff=$(($(counter 1 t1p) - off))
        info "torus hier-n0 <-> hier-n10 (4 hops): 1 MiB at $MBIT Mbit/s, 1-byte round trip $RTT1_US us; forwarded: hier-n4 t0p $d1 B, hier-n8 t1p $d2 B, off-path hier-n1 t1p $doff B"
        # 5 timed + 2 warm-up round trips of 1 MiB leave n0 towards n10.
        check "torus: traffic to a non-neighbour crosses the intermediate nodes" "$d1 B, $d2 B" \
            test "$d1" -gt $((7 * 1048576)) -a "$d2" -gt $((7 * 1048576))
        check "torus: and no other link" "$doff B" test "$doff" -lt 65536
    else
        fail "torus: ping-pong to a non-neighbour" "mpirun failed"; show_tail torus-far
    fi
    if pingpong torus-near hier-n0,hier-n1 -n 5 1 1048576; then
        info "torus neighbours hier-n0 <-> hier-n1: 1 MiB at $MBIT Mbit/s (links 100 Mbit/s), 1-byte round trip $RTT1_US us"
        check "torus: link shaped (<= 130 Mbit/s)" "$MBIT Mbit/s" le "$MBIT" 130
    else
        fail "torus: neighbour ping-pong" "mpirun failed"
    fi
    if run torus-hello -np 16 "$hello" && grep -qx "cluster_hello: alltoall ok" "$logdir/torus-hello.log" &&
        (($(grep -o 'on hier-n[0-9]*' "$logdir/torus-hello.log" | sort -u | wc -l) == 16)); then
        pass "torus: 16 hosts, MPI_Alltoall (Open MPI's own, routed)"
    else
        fail "torus: 16 hosts, MPI_Alltoall" "see $logdir/torus-hello.log"
    fi
    # opt on the emulated torus, told by coll_hier_torus_dims and by a
    # periodic Cartesian communicator (coll_check --cart): every root.
    hier_check torus "scatter, opt" 16 "torus 4x4): opt" \
        "$coll_checker" --op scatter --counts 0,1,4096 --types int,vector --comms world --cart 4x4 \
        -- --mca coll_hier_torus_dims 4x4 --mca coll_hier_scatter_algorithm opt
    hier_check torus "gather, auto" 16 "torus 4x4): opt" \
        "$coll_checker" --op gather --counts 4096,0,1 --types "int,contig->vector" --comms world --cart 4x4 \
        -- --mca coll_hier_torus_dims 4x4
    if ((full)); then
        alltoall_by_name torus 16 "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1"
    fi
    alltoall_auto torus 16
    # Told the torus: mesh's rings are its rings, the hypercube's embedding
    # seeks neighbours, and auto's model routes over its links. With the
    # links' costs given and no measuring, the model picks hypercube at 400 B
    # (x0.74 of Bruck, whose partners two and three hops away share links;
    # the embedded hypercube's are neighbours; verbose 1 names the first
    # size class's pick).
    alltoall_by_name torus 16 "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1 --torus 4x4" --only "mesh hypercube" \
        --mca coll_hier_torus_dims 4x4
    hier_check torus "alltoall_check, auto told the torus" 16 "torus 4x4): hypercube" \
        "$checker" --counts 100,1 --types int --comms world,dup -- --mca coll_hier_torus_dims 4x4 \
        --mca coll_hier_link_costs node=0.5us:40Gbit/s,network=15us:100Mbit/s:40us --mca coll_hier_auto_trial_calls 0
}

# ------------------------------------------------------------------- hetero

test_hetero() {
    local conf=$repo/contrib/cluster/scenarios/hetero.conf
    check "hetero: costs in hetero.conf are gen-costs 8 2024" "they differ" \
        diff -q <(grep '^cost_' "$conf") <("$cluster" gen-costs 8 2024)
    if ! up hetero; then fail "hetero: up" "$(why_up hetero)"; return; fi
    pass "hetero: up"
    # cost(0,4) = 1: 200 Mbit/s; cost(1,5) = 5: 40 Mbit/s (scenarios/hetero.conf).
    local fast slow
    if pingpong hetero-cost1 hier-n0,hier-n4 -n 4 1048576 && fast=$MBIT &&
        pingpong hetero-cost5 hier-n1,hier-n5 -n 3 524288 && slow=$MBIT; then
        info "hetero: cost 1 pair at $fast Mbit/s (200), cost 5 pair at $slow Mbit/s (40)"
        check "hetero: cost-1 pair shaped (<= 260 Mbit/s)" "$fast" le "$fast" 260
        check "hetero: cost-5 pair shaped (<= 52 Mbit/s)" "$slow" le "$slow" 52
        check "hetero: cost 1 is >= 3x faster than cost 5" "$fast vs $slow" le "$(awk -v s="$slow" 'BEGIN{print 3 * s}')" "$fast"
    else
        fail "hetero: ping-pong" "mpirun failed"
    fi
    # Pair delays: cost * 0.5 ms one way, so a round trip of 1 ms for cost 1
    # and 5 ms for cost 5, plus the stack's own.
    local near
    if pingpong hetero-delay1 hier-n0,hier-n4 -n 20 1 && near=$RTT1_MIN_US && pingpong hetero-delay5 hier-n1,hier-n5 -n 20 1; then
        info "hetero: fastest of 20 1-byte round trips $near us at cost 1, $RTT1_MIN_US us at cost 5 (means $(awk '/^cluster_pingpong:/ {print $5; exit}' "$logdir/hetero-delay1.log") and $RTT1_US us)"
        check "hetero: cost-1 pair round trip 1..2 ms" "$near us" between 1000 "$near" 2000
        check "hetero: cost-5 pair round trip 5..10 ms" "$RTT1_MIN_US us" between 5000 "$RTT1_MIN_US" 10000
    else
        fail "hetero: pair delays" "mpirun failed"
    fi
    # The hypercube on the scenario's own costs (a file of its matrix) and on
    # measured ones (the probe): auto's pick, and every embedding by name.
    local costs=$repo/contrib/cluster/scenarios/hetero.costs
    hier_check hetero "barrier, auto, cost file" 8 "8 nodes): hypercube" \
        "$coll_checker" --op barrier --iterations 16 -- --mca coll_hier_cost "file:$costs"
    hier_check hetero "allreduce, auto, probed costs" 8 "8 nodes): hypercube" \
        "$coll_checker" --op allreduce --counts 1,7,100 --comms world,dup -- --mca coll_hier_cost probe
    hier_check hetero "allgather, hypercube eff, cost file" 8 "8 nodes): hypercube" \
        "$coll_checker" --op allgather --counts 1,100 --comms world -- --mca coll_hier_cost "file:$costs" \
        --mca coll_hier_allgather_algorithm hypercube --mca coll_hier_hypercube_embedding eff
    hier_check hetero "alltoall, hypercube dim2, cost file" 8 "8 nodes): hypercube" \
        "$checker" --counts 1,100 --comms world,dup -- --mca coll_hier_cost "file:$costs" \
        --mca coll_hier_alltoall_algorithm hypercube --mca coll_hier_hypercube_embedding dim2
    hier_check hetero "barrier, hypercube blind, probed costs" 8 "8 nodes): hypercube" \
        "$coll_checker" --op barrier --iterations 16 -- --mca coll_hier_cost probe \
        --mca coll_hier_barrier_algorithm hypercube --mca coll_hier_hypercube_embedding blind
    hier_check hetero "allreduce, hypercube tsts, cost file" 8 "8 nodes): hypercube" \
        "$coll_checker" --op allreduce --counts 1,100 --comms world -- --mca coll_hier_cost "file:$costs" \
        --mca coll_hier_allreduce_algorithm hypercube --mca coll_hier_hypercube_embedding tsts
    if ((full)); then
        alltoall_by_name hetero 8 "1,1,1,1,1,1,1,1"
    else
        alltoall_by_name hetero 8 "1,1,1,1,1,1,1,1" --only "hypercube"
    fi
    alltoall_auto hetero 8
}

# --------------------------------------------------------------- leaf-spine

# The switch tree as Slurm's topology/tree plugin describes it
# (slurm_topology=tree): each node's ranks get their own SLURM_TOPOLOGY_ADDR
# through hier-rsh, and hier-cluster writes the matching topology.conf. The
# three ways of naming the leaves must give the same hierarchy (hier-inspect's
# clusters, the verbose line's) and the same decisions. The link costs are
# given, the scenario's rates, so that the decisions do not hang on a probe of
# a loaded machine: with them the model picks node_lg at 64 B blocks and Open
# MPI's own at 4 KiB (hier-inspect alltoall 2,2,2,2,2,2,2,2,2 --clusters
# 3,3,3 --costs ...).
test_leaf_spine() {
    up_backbone leaf-spine || return
    local log=$logdir/leaf-spine-env.log k want=""
    for ((k = 0; k < 18; k++)); do
        want+="hier-n$((k / 2)) spine0.leaf$((k / 6)).hier-n$((k / 2)) switch.switch.node"$'\n'
    done
    # shellcheck disable=SC2016  # expanded by each rank's shell
    if run leaf-spine-env -np 18 sh -c 'echo "$(hostname) $SLURM_TOPOLOGY_ADDR $SLURM_TOPOLOGY_ADDR_PATTERN"'; then
        check "leaf-spine: every rank sees its own node's SLURM_TOPOLOGY_ADDR and _PATTERN" "see $log" \
            diff -q <(grep '^hier-n' "$log" | sort) <(printf '%s' "$want" | sort)
    else
        fail "leaf-spine: the ranks' environment" "mpirun failed"; show_tail leaf-spine-env
    fi
    local conf hosts
    conf=$("$cluster" topology-conf)
    hosts=$("$cluster" hostfile | awk '{print $1}' | paste -sd,)
    check "leaf-spine: topology.conf names the three leaves and the spine" "see $conf" has_lines "$conf" \
        "SwitchName=leaf0 Nodes=hier-n[0-2]" "SwitchName=leaf1 Nodes=hier-n[3-5]" \
        "SwitchName=leaf2 Nodes=hier-n[6-8]" "SwitchName=spine0 Switches=leaf[0-2]"
    log=$logdir/leaf-spine-inspect.log
    "$repo/contrib/inspect/hier-inspect" hierarchy 2,2,2,2,2,2,2,2,2 "topology:$conf" --hosts "$hosts" >"$log" 2>&1 || true
    check "leaf-spine: hier-inspect finds a cluster per leaf in topology.conf" "see $log" has_lines "$log" \
        "cluster 0: hier-n0,hier-n1,hier-n2; ranks 0-5" "cluster 1: hier-n3,hier-n4,hier-n5; ranks 6-11" \
        "cluster 2: hier-n6,hier-n7,hier-n8; ranks 12-17"
    local where source count pick
    where=$(sed -n 's/^coll_hier_cluster_map .* on nodes [0-9,]*: (\(.*\))$/\1/p' "$log")
    local costs=node=1us:40Gbit/s,network=50us:400Mbit/s,backbone=1us:100Mbit/s
    for count in 16:node_lg 1024:fallback; do
        pick=${count#*:} count=${count%:*}
        for source in "slurm|slurm" "topology.conf|topology:$conf" \
            "host patterns|leaf0:hier-n[0-2];leaf1:hier-n[3-5];leaf2:hier-n[6-8]"; do
            hier_check leaf-spine "alltoall_check $((count * 4)) B, ${source%%|*}" 18 "$where): $pick" \
                "$checker" --counts "$count" --types int --comms world,dup -- \
                --mca coll_hier_cluster_map "${source#*|}" --mca coll_hier_link_costs "$costs"
        done
        # Every decision line (MPI_COMM_WORLD's and its dup's) alike.
        local lines=() f
        for f in "$logdir"/leaf-spine-alltoall_check_$((count * 4))_B__*.log; do
            [[ $f == *-open-mpi.log ]] || lines+=("$(grep '^coll:hier: alltoall on ' "$f" | sort)")
        done
        check "leaf-spine: $((count * 4)) B: slurm, topology.conf and host patterns decide alike" \
            "${#lines[@]} runs, see $logdir/leaf-spine-alltoall_check_$((count * 4))_B__*.log" \
            test "${#lines[@]}" -eq 3 -a -n "${lines[0]}" -a "${lines[0]}" = "${lines[1]}" -a "${lines[0]}" = "${lines[2]}"
    done
}

# ------------------------------------------------- auto on the other scenarios

# auto at every default (trials off, costs probed) on the scenarios the
# sections above do not bring up, their clusters given as counts, as
# contrib/bench/compare.sh gives them: correct results, equal to Open MPI's
# own, and a verbose line naming a row or the fallback.
test_auto_elsewhere() {
    local scenario conf nodes slots clusters
    for scenario in one-node two-clusters-smp two-clusters-4-8 two-clusters-6-6; do
        conf=$repo/contrib/cluster/scenarios/$scenario.conf
        nodes=$(sed -n 's/^nodes=//p' "$conf") slots=$(sed -n 's/^slots=//p' "$conf")
        clusters=$(sed -n 's/^clusters=//p' "$conf")
        up_backbone "$scenario" || continue
        if [[ -n $clusters ]]; then
            alltoall_auto "$scenario" $((nodes * slots)) --mca coll_hier_cluster_map "$clusters"
        else
            alltoall_auto "$scenario" $((nodes * slots))
        fi
    done
}

# --------------------------------------------------------------------- down

test_down() {
    "$cluster" down >"$logdir/down.log" 2>&1 || { fail "down" "$(cat "$logdir/down.log")"; return; }
    local left=""
    left+=$(ip netns list | awk '{print $1}' | grep -E '^hier-(n[0-9]+|sw|bb)$' | tr '\n' ' ' || true)
    ip link show hier-mgmt >/dev/null 2>&1 && left+="link hier-mgmt "
    grep -qF "# hier-cluster" /etc/hosts && left+="/etc/hosts lines "
    [[ -e /run/hier-cluster ]] && left+="/run/hier-cluster "
    check "down leaves nothing behind" "left: $left" test -z "$left"
}

# --------------------------------------------------------------------- main

echo "cluster tests: logs in $logdir"
# section NAME: whether to run it (--only, else --quick's or all).
section() {
    if [[ -n $only ]]; then [[ ,$only, == *,$1,* ]]
    else ((!quick)) || [[ $1 == smoke || $1 == uneven-smp ]]; fi
}
section smoke && test_smoke
section uneven-smp && test_uneven_smp
section two-clusters && test_two_clusters
section three-clusters && test_three_clusters
section torus && test_torus
section hetero && test_hetero
section leaf-spine && test_leaf_spine
section auto-elsewhere && test_auto_elsewhere
test_down
if ((skipped)); then echo "$passed passed, $failed failed, $skipped skipped"
else echo "$passed passed, $failed failed"; fi
((failed == 0))
