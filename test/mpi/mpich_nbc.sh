#!/usr/bin/env bash
# Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# mpich_nbc.sh: MPICH's nonblocking and persistent collective tests with hier
# forced (docs/development.md, "Tests"; issue 30).
#
# Fetches MPICH's source as Debian 12 ships it (apt-get source, from a private
# apt configuration under the work directory: the system's sources are not
# touched), builds the chosen tests of test/mpi/coll with their harness
# (util/mtest*.c) against the Open MPI of mpicc, with a few lines of glue
# written here (the harness's configure-generated header, Open MPI 4.1's
# MPIX_ names for the persistent collectives), and runs each one under mpirun
# with the component built in this tree. Nothing of MPICH enters the repository.
#
# Each run imposes several nodes on this host (coll_hier_node_map) and a torus
# (coll_hier_torus_dims, so that scatter's and gather's opt and sdf apply):
#   forced  every coll_hier_<op>_algorithm at a hier row (ROWS below);
#   auto    every one at auto.
# A test is built twice: as MPICH wrote it, and "primed": linked with glue that
# calls a blocking MPI_Barrier on every new intracommunicator right after its
# creation (MPI_Init, MPI_Comm_dup, _split, _create, ...). Most of these tests
# start nothing blocking: as written, their nonblocking and persistent calls
# wait in their requests for the communicator's gathering and run hier's rows
# once it is over (docs/nonblocking.md); primed, the barrier gathers first.
# In every forced run, each collective the test is listed with must be
# reported at verbose 1 as run by a hier row, not the fallback.
# A run passes when it prints MPICH's " No Errors" and exits 0 within the
# timeout. A failing run is repeated without hier: the line says whether it
# passes there (a hier bug) or not.
#
# usage: mpich_nbc.sh [--full] [--hier-dir DIR] [--workdir DIR] [--timeout SEC] [--keep]
#   --full      every test at every rank count of its list, in every
#               variant and setting, the intercommunicator tests, and each
#               run once more without hier (default: a sample, under 90 s)
#   --hier-dir  directory holding mca_coll_hier.so (default:
#               $HIER_COMPONENT_DIR, else ompi/mca/coll/hier/.libs of this tree)
#   --workdir   where the source is kept between runs and the tests are
#               built (default: $HIER_MPICH_WORKDIR, else ${TMPDIR:-/var/tmp}/hier-mpich-nbc)
#   --timeout   seconds before a run counts as hung (default 60; 240 with
#               --full, whose nonblocking3 at 10 ranks takes a minute on 2
#               busy cores)
#   --keep      keep the build and logs of this run (kept anyway on failure)
# environment:
#   HIER_MPICH_TARBALL  mpich_4.0.2.orig.tar.xz already at hand: no apt-get
#   MPIRUN, MPICC       default mpirun, mpicc
# Prints "SKIP: <reason>" and exits 77 when the source cannot be had (no
# apt-get, no deb.debian.org, another MPICH version). The last line is
# "mpich-nbc: N passed, M failed, K skipped"; the exit code is nonzero if a
# run failed.
set -euo pipefail

# The MPICH Debian 12 (bookworm) ships, and its upstream tarball's SHA-256
# (that of the .dsc's Checksums-Sha256).
readonly MPICH_DEB_VERSION=4.0.2-3
readonly MPICH_UPSTREAM=mpich-4.0.2
readonly MPICH_TARBALL=mpich_4.0.2.orig.tar.xz
readonly MPICH_SHA256=b27039f964afeb6b8a3e009c56b441cbe368c26d6d6476ad3bb7190996875860

# --------------------------------------------------------------- the tests

# NAME|SOURCE|CFLAGS|RANKS (default)|RANKS (--full)|COLLECTIVES hier must run
# (forced, primed). SOURCE is in test/mpi/coll; -DUSE_MTEST_NBC turns
# mpicolltest.h's MTest_<Op> into MPI_I<op> and MPI_Wait, as MPICH's own
# nb* tests are built. The rank counts are MPICH's testlist's where the test
# needs them (iallred: 2; coll2: a divisor of 10), else 4, 6, 8 (and 5, 10).
TESTS=(
    "nonblocking|nonblocking.c||4,6,8|4,5,6,8,10|ialltoall,ialltoallv,iscatter,igather,ibarrier,iallreduce,iallgather"
    "nonblocking2|nonblocking2.c||4,6,8|4,5,6,8,10|ialltoall,ialltoallv,iscatter,igather,ibarrier,iallreduce,iallgather"
    "nonblocking3|nonblocking3.c||4|4,5,6,8,10|ialltoall,ialltoallv,iscatter,igather,ibarrier,iallreduce,iallgather"
    "ibarrier|ibarrier.c||4,8|2,4,6,8|ibarrier"
    "iallred|iallred.c||2|2|iallreduce"
    "nballtoall1|alltoall1.c|-DUSE_MTEST_NBC|4,6,8|4,6,8,10|ialltoall"
    "nbcoll2|coll2.c|-DUSE_MTEST_NBC|5|2,5,10|igather"
    "p_alltoall|p_alltoall.c||4,8|4,6,8,10|alltoall_init"
    "p_alltoallv|p_alltoallv.c||4,8|4,6,8,10|alltoallv_init"
    "p_allgather|p_allgather.c||4,8|4,6,8,10|allgather_init"
    "p_allred|p_allred.c||4,8|4,6,8,10|allreduce_init"
    "p_barrier|p_barrier.c||4,8|2,4,6,8|barrier_init"
    "p_gather|p_gather.c||4,8|4,6,8,10|gather_init"
    "p_scatter|p_scatter.c||4,8|4,6,8,10|scatter_init"
    "p_order|p_order.c||4|2,4,8|barrier_init"
)
# --full only: MPICH's nonblocking intercommunicator tests of hier's
# collectives. hier declines intercommunicators; these check that it stays
# out of their way.
FULL_TESTS=(
    "nbicalltoall|icalltoall.c|-DUSE_MTEST_NBC||5,8|"
    "nbicalltoallv|icalltoallv.c|-DUSE_MTEST_NBC||5,8|"
    "nbicbarrier|icbarrier.c|-DUSE_MTEST_NBC||5,8|"
    "nbicallgather|icallgather.c|-DUSE_MTEST_NBC||5,8|"
    "nbicallreduce|icallreduce.c|-DUSE_MTEST_NBC||5,8|"
    "nbicgather|icgather.c|-DUSE_MTEST_NBC||5,8|"
    "nbicscatter|icscatter.c|-DUSE_MTEST_NBC||5,8|"
)
# Tests known to fail, with hier or without: "NAME|REASON". A run of one is
# reported and counted as skipped, and said so if it passes.
KNOWN_FAILING=()

# What each rank count imposes: node map|torus|alltoall row|alltoallv row|
# scatter row|gather row. Barrier, allreduce and allgather: hypercube.
declare -A LAYOUT=(
    [2]="1,1|2|factor|factor|opt|sdf"
    [4]="2,1,1|2x2|factor|factor|opt|opt"
    [5]="2,2,1|5|edgecolor|edgecolor|sdf|sdf"
    [6]="3,2,1|2x3|edgecolor|edgecolor|sdf|opt"
    [8]="3,3,2|2x2x2|node_lg|node_lg|opt|sdf"
    [10]="4,3,2,1|2x5|pairwise|factor|sdf|opt"
)
readonly OPS=(alltoall alltoallv scatter gather barrier allreduce allgather)

# ------------------------------------------------------------------ options

full=0
keep=0
timeout_s=""
here=$(cd "$(dirname "$0")" && pwd)
hier_dir=${HIER_COMPONENT_DIR:-$here/../../ompi/mca/coll/hier/.libs}
workdir=${HIER_MPICH_WORKDIR:-${TMPDIR:-/var/tmp}/hier-mpich-nbc}
usage() { sed -n '/^# usage:/,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }
while (($#)); do
    case "$1" in
        --full) full=1 ;;
        --keep) keep=1 ;;
        --hier-dir) hier_dir=${2:?--hier-dir needs a directory}; shift ;;
        --workdir) workdir=${2:?--workdir needs a directory}; shift ;;
        --timeout) timeout_s=${2:?--timeout needs seconds}; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "mpich_nbc.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done
if [[ -z $timeout_s ]]; then timeout_s=60; ((!full)) || timeout_s=240; fi
MPIRUN=${MPIRUN:-mpirun}
MPICC=${MPICC:-mpicc}
if [[ ! -e $hier_dir/mca_coll_hier.so ]]; then
    echo "mpich_nbc.sh: no mca_coll_hier.so in $hier_dir (make, or --hier-dir DIR)" >&2
    exit 2
fi
hier_dir=$(cd "$hier_dir" && pwd)
start=$SECONDS
skip() { echo "SKIP: $*"; echo "mpich-nbc: 0 passed, 0 failed, 1 skipped"; exit 77; }

# ------------------------------------------------------- MPICH's source

# fetch: leaves MPICH's upstream tarball in $workdir, checked against its
# SHA-256, or skips. apt-get runs on a private configuration (a deb-src line
# for bookworm, its own lists and cache) and only downloads.
fetch() {
    local tarball=$workdir/$MPICH_TARBALL
    if [[ -n ${HIER_MPICH_TARBALL:-} ]]; then
        cp "$HIER_MPICH_TARBALL" "$tarball.part" && mv "$tarball.part" "$tarball"
    elif [[ ! -e $tarball ]]; then
        command -v apt-get >/dev/null || skip "no apt-get here to fetch MPICH $MPICH_DEB_VERSION's source (HIER_MPICH_TARBALL names a copy)"
        local apt=$workdir/apt
        mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/sources.list.d" "$workdir/dl"
        echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main" \
            >"$apt/sources.list"
        local opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=$apt/sources.list.d"
                    -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o APT::Sandbox::User=root -qq)
        [[ $(id -u) -eq 0 ]] || opts+=(-o Debug::NoLocking=1)
        timeout 120 apt-get "${opts[@]}" update >"$workdir/apt.log" 2>&1 ||
            skip "apt-get update of bookworm's deb-src failed (no deb.debian.org?): $(tail -n1 "$workdir/apt.log")"
        (cd "$workdir/dl" && timeout 300 apt-get "${opts[@]}" source --download-only "mpich=$MPICH_DEB_VERSION") \
            >>"$workdir/apt.log" 2>&1 ||
            skip "apt-get source mpich=$MPICH_DEB_VERSION failed: $(grep -m1 '^E:' "$workdir/apt.log" || tail -n1 "$workdir/apt.log")"
        mv "$workdir/dl/$MPICH_TARBALL" "$tarball"
        rm -rf "$workdir/dl"
    fi
    if [[ $(sha256sum <"$tarball" | cut -d' ' -f1) != "$MPICH_SHA256" ]]; then
        rm -f "$tarball"
        skip "$MPICH_TARBALL is not the one of MPICH $MPICH_DEB_VERSION (SHA-256 differs)"
    fi
    if [[ ! -e $workdir/src/.complete ]]; then
        rm -rf "$workdir/src" && mkdir -p "$workdir/src"
        tar -xJf "$tarball" -C "$workdir/src" --strip-components=3 --wildcards \
            "$MPICH_UPSTREAM/test/mpi/coll/*" "$MPICH_UPSTREAM/test/mpi/util/*" "$MPICH_UPSTREAM/test/mpi/include/*"
        touch "$workdir/src/.complete"
    fi
}

mkdir -p "$workdir"
exec 9>"$workdir/.lock"
flock 9    # one fetch at a time; each run builds in a directory of its own
fetch
flock -u 9
run_dir=$(mktemp -d "$workdir/run.XXXXXX")
src=$workdir/src

# ------------------------------------------------------------------- the glue

mkdir -p "$run_dir/glue" "$run_dir/logs"
cd "$run_dir"
# What MPICH's configure would put into include/mpitestconf.h for this host.
cat >glue/mpitestconf.h <<'EOF'
#ifndef MPITESTCONF_H_INCLUDED
#define MPITESTCONF_H_INCLUDED
#define HAVE_STDARG_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_STRINGS_H 1
#define HAVE_UNISTD_H 1
#define HAVE_STDINT_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_USLEEP 1
#define HAVE_STRDUP 1
#define HAVE_LONG_LONG 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_MPI_WIN_CREATE 1
#define SIZEOF_INT 4
#define SIZEOF_LONG 8
#define SIZEOF_LONG_LONG 8
#define SIZEOF_SHORT 2
#define SIZEOF_VOID_P 8
#define POINTERINT_t long
#define USE_STRICT_MPI 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_NONE
#endif
EOF
# MPI-4's persistent collectives are MPIX_<Op>_init in Open MPI 4.1.
cat >glue/pcoll.h <<'EOF'
#include <mpi.h>
#if defined(OPEN_MPI) && OMPI_MAJOR_VERSION < 5
#include <mpi-ext.h>
#define MPI_Allgather_init MPIX_Allgather_init
#define MPI_Allreduce_init MPIX_Allreduce_init
#define MPI_Alltoall_init MPIX_Alltoall_init
#define MPI_Alltoallv_init MPIX_Alltoallv_init
#define MPI_Barrier_init MPIX_Barrier_init
#define MPI_Bcast_init MPIX_Bcast_init
#define MPI_Gather_init MPIX_Gather_init
#define MPI_Scatter_init MPIX_Scatter_init
#endif
EOF
# "primed": a blocking barrier on each new intracommunicator (see the top).
cat >glue/prime.c <<'EOF'
#include <mpi.h>
static void prime(MPI_Comm c)
{
    int inter = 0;
    if (c == MPI_COMM_NULL) return;
    PMPI_Comm_test_inter(c, &inter);
    if (!inter) PMPI_Barrier(c);
}
#define PRIMED(CALL, NEW) { int rc = CALL; if (rc == MPI_SUCCESS) prime(NEW); return rc; }
int MPI_Init(int *argc, char ***argv) PRIMED(PMPI_Init(argc, argv), MPI_COMM_WORLD)
int MPI_Init_thread(int *argc, char ***argv, int req, int *prov)
    PRIMED(PMPI_Init_thread(argc, argv, req, prov), MPI_COMM_WORLD)
int MPI_Comm_dup(MPI_Comm c, MPI_Comm *n) PRIMED(PMPI_Comm_dup(c, n), *n)
int MPI_Comm_dup_with_info(MPI_Comm c, MPI_Info i, MPI_Comm *n) PRIMED(PMPI_Comm_dup_with_info(c, i, n), *n)
int MPI_Comm_split(MPI_Comm c, int color, int key, MPI_Comm *n) PRIMED(PMPI_Comm_split(c, color, key, n), *n)
int MPI_Comm_split_type(MPI_Comm c, int t, int key, MPI_Info i, MPI_Comm *n)
    PRIMED(PMPI_Comm_split_type(c, t, key, i, n), *n)
int MPI_Comm_create(MPI_Comm c, MPI_Group g, MPI_Comm *n) PRIMED(PMPI_Comm_create(c, g, n), *n)
int MPI_Comm_create_group(MPI_Comm c, MPI_Group g, int tag, MPI_Comm *n)
    PRIMED(PMPI_Comm_create_group(c, g, tag, n), *n)
int MPI_Intercomm_merge(MPI_Comm c, int high, MPI_Comm *n) PRIMED(PMPI_Intercomm_merge(c, high, n), *n)
int MPI_Cart_create(MPI_Comm c, int nd, const int dims[], const int periods[], int reorder, MPI_Comm *n)
    PRIMED(PMPI_Cart_create(c, nd, dims, periods, reorder, n), *n)
EOF

# --------------------------------------------------------------------- build

# MPICH's nonblocking2.c and nonblocking3.c keep MPI_Alltoallw's datatypes in
# int arrays (MPICH's MPI_Datatype is an int; Open MPI's a pointer, which
# MPI_Ialltoallw then reads truncated and crashes on): the copies built here
# declare them MPI_Datatype.
mkdir -p patched
for f in nonblocking2.c nonblocking3.c; do
    sed 's/int \*\(send\|recv\)types/MPI_Datatype *\1types/' "$src/coll/$f" >"patched/$f"
    if cmp -s "$src/coll/$f" "patched/$f"; then
        echo "mpich_nbc.sh: the datatype patch no longer applies to $f" >&2
        exit 2
    fi
done

cflags=(-O1 -w -Iglue -I"$src/include" -include glue/pcoll.h)
build_log=$run_dir/logs/build.log
for f in mtest mtest_common mtest_single; do
    "$MPICC" "${cflags[@]}" -c "$src/util/$f.c" -o "$f.o" >>"$build_log" 2>&1 ||
        { echo "mpich_nbc.sh: $f.c does not build (see $build_log)" >&2; tail -n 20 "$build_log" >&2; exit 1; }
done
"$MPICC" -O1 -Wall -c glue/prime.c -o prime.o >>"$build_log" 2>&1

tests=("${TESTS[@]}")
((full)) && tests+=("${FULL_TESTS[@]}")
for t in "${tests[@]}"; do
    IFS='|' read -r name source flags _ <<<"$t"
    path=$src/coll/$source
    [[ -e patched/$source ]] && path=patched/$source
    # shellcheck disable=SC2086 # flags: words
    if ! "$MPICC" "${cflags[@]}" $flags "$path" mtest.o mtest_common.o mtest_single.o -o "$name" -lm >>"$build_log" 2>&1 ||
       ! "$MPICC" "${cflags[@]}" $flags "$path" prime.o mtest.o mtest_common.o mtest_single.o -o "$name.primed" -lm >>"$build_log" 2>&1; then
        echo "mpich_nbc.sh: $name does not build (see $build_log)" >&2
        tail -n 20 "$build_log" >&2
        exit 1
    fi
done
echo "mpich-nbc: MPICH $MPICH_DEB_VERSION's tests built in $run_dir ($((SECONDS - start)) s)"

# ---------------------------------------------------------------------- runs

source "$here/../../contrib/mpirun-local.sh"   # hier_pkglibdir
ompi_version=$("$MPIRUN" --version 2>/dev/null | awk 'NR == 1 {print $NF}')
shm_btl=vader
[[ $ompi_version == 4.* ]] || shm_btl=sm
export OMPI_MCA_pml=ob1 OMPI_MCA_osc=^ucx OMPI_MCA_btl=self,$shm_btl
# No probe of this shared host's links: auto decides on what the maps say.
export OMPI_MCA_coll_hier_link_costs=
base_args=(--allow-run-as-root --oversubscribe --mca mpi_yield_when_idle 1 --bind-to none
           --timeout "$timeout_s")
hier_args=(--mca mca_base_component_path "$hier_dir:$(hier_pkglibdir)"
           --mca coll hier,tuned,libnbc,basic,inter,self --mca coll_hier_verbose 1)
plain_args=(--mca coll tuned,libnbc,basic,inter,self)

passed=0 failed=0 skipped=0 run_no=0

known_reason() {
    local k
    for k in "${KNOWN_FAILING[@]}"; do [[ ${k%%|*} == "$1" ]] && { echo "${k#*|}"; return; }; done
    return 0
}

# launch LOG NP ARGS... -- PROGRAM: one mpirun; sets rc and ok (1: " No
# Errors" and exit 0).
launch() {
    local log=$1 np=$2; shift 2
    local extra=()
    while [[ $1 != -- ]]; do extra+=("$1"); shift; done
    shift
    local cmd=("$MPIRUN" "${base_args[@]}" "${extra[@]}" -np "$np" "$@")
    echo "${cmd[*]}" >"$log.cmd"
    rc=0
    timeout -k 10 $((timeout_s + 20)) "${cmd[@]}" >"$log.out" 2>"$log.err" || rc=$?
    ok=0
    ((rc == 0)) && grep -q '^ No Errors$' "$log.out" && ok=1
    return 0
}

# ops_ran LOG: collectives a hier row ran, comma-separated; ops_fell LOG:
# those that fell back (verbose 1 lines "coll:hier: OP on COMM (...): ROW").
ops_ran() { sed -n 's/^coll:hier: \([a-z_]*\) on .*): \([a-z_0-9]*\).*/\1 \2/p' "$1.err" | awk '$2 != "fallback" {print $1}' | sort -u | paste -sd, -; }
ops_fell() { sed -n 's/^coll:hier: \([a-z_]*\) on .*): fallback.*/\1/p' "$1.err" | sort -u | paste -sd, -; }

# run_test NAME NP SETTING VARIANT EXPECT: SETTING forced or auto; VARIANT
# "" or ".primed"; EXPECT the collectives hier must run (forced).
run_test() {
    local name=$1 np=$2 setting=$3 variant=$4 expect=$5
    local map torus a2a a2av scatter gather
    IFS='|' read -r map torus a2a a2av scatter gather <<<"${LAYOUT[$np]}"
    local label="$name$variant np=$np $setting (map $map, torus $torus)"
    local args=(--mca coll_hier_node_map "$map" --mca coll_hier_torus_dims "$torus")
    local op
    if [[ $setting == forced ]]; then
        label="$name$variant np=$np forced (map $map, torus $torus, $a2a/$a2av/$scatter/$gather/hypercube)"
        args+=(--mca coll_hier_alltoall_algorithm "$a2a" --mca coll_hier_alltoallv_algorithm "$a2av"
               --mca coll_hier_scatter_algorithm "$scatter" --mca coll_hier_gather_algorithm "$gather")
        for op in barrier allreduce allgather; do args+=(--mca "coll_hier_${op}_algorithm" hypercube); done
    else
        for op in "${OPS[@]}"; do args+=(--mca "coll_hier_${op}_algorithm" auto); done
    fi
    run_no=$((run_no + 1))
    local log
    log=logs/$(printf '%03d' "$run_no")-$name$variant-$np-$setting
    launch "$log" "$np" "${hier_args[@]}" "${args[@]}" -- "./$name$variant"
    local ran fell missing="" reason
    ran=$(ops_ran "$log") fell=$(ops_fell "$log")
    if [[ $setting == forced && -n $expect ]]; then
        for op in ${expect//,/ }; do [[ ,$ran, == *",$op,"* ]] || missing+="${missing:+,}$op"; done
    fi
    local what="hier ran: ${ran:-nothing}; fallback: ${fell:-nothing}"
    reason=$(known_reason "$name")
    if ((ok)) && [[ -z $missing ]]; then
        [[ -n $reason ]] && echo "NOTE: $label passes, but is listed as known-failing ($reason)"
        passed=$((passed + 1))
        echo "PASS: $label ($what)"
        if ((full)); then
            launch "$log-plain" "$np" "${plain_args[@]}" -- "./$name$variant"
            if ((ok)); then passed=$((passed + 1)); echo "PASS: $label without hier"
            else failed=$((failed + 1)); echo "FAIL: $label without hier (exit $rc; $log-plain.err)"; fi
        fi
        return
    fi
    local why
    if ((!ok)); then
        why="exit $rc"
        ((rc == 124 || rc == 137)) || grep -q 'time limit for job execution' "$log.err" && why="timed out after $timeout_s s"
        grep -q '^ No Errors$' "$log.out" || why+=", no \" No Errors\""
        launch "$log-plain" "$np" "${plain_args[@]}" -- "./$name$variant"
        if ((ok)); then why+="; passes without hier: a hier bug"; else why+="; fails without hier too (exit $rc)"; fi
    else
        why="hier's verbose lines name no row for $missing"
    fi
    if [[ -n $reason ]]; then
        skipped=$((skipped + 1))
        echo "SKIP: $label: known-failing ($reason): $why"
    else
        failed=$((failed + 1))
        echo "FAIL: $label: $why ($what)"
        echo "  --- $(cat "$log.cmd")"
        echo "  --- tail of $log.out"; tail -n 8 "$log.out" | sed 's/^/  | /'
        echo "  --- tail of $log.err"; grep -v '^coll:hier: ' "$log.err" | tail -n 12 | sed 's/^/  | /'
    fi
}

for t in "${tests[@]}"; do
    IFS='|' read -r name _ _ quick_nps full_nps expect <<<"$t"
    nps=$quick_nps
    ((full)) && nps=$full_nps
    [[ -n $nps ]] || continue
    IFS=, read -ra nps <<<"$nps"
    for np in "${nps[@]}"; do run_test "$name" "$np" forced "" "$expect"; done
    # primed, and auto: every rank count with --full, else the first
    if ((full)); then
        for np in "${nps[@]}"; do
            run_test "$name" "$np" forced .primed "$expect"
            run_test "$name" "$np" auto .primed ""
            run_test "$name" "$np" auto "" ""
        done
    else
        run_test "$name" "${nps[0]}" forced .primed "$expect"
        run_test "$name" "${nps[0]}" auto "" ""
    fi
done

echo "mpich-nbc: $run_no runs in $((SECONDS - start)) s; logs in $run_dir/logs"
if ((failed == 0 && !keep)); then
    rm -rf "$run_dir"
    echo "mpich-nbc: (removed; --keep keeps them)"
fi
echo "mpich-nbc: $passed passed, $failed failed, $skipped skipped"
((failed == 0))
