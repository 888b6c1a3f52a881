#!/usr/bin/env bash
# Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Runs the tests of coll/hier, layer by layer (docs/development.md, "Tests"):
#   unit     the core, GoogleTest, no MPI; the parsers' fuzzers (make check)
#   mpi      mpirun on this host with imposed node maps      (make check)
#   sanitize each registry row once through each checker of its collective,
#            and the unit tests, under ASan and UBSan  (make check-sanitize)
#   cluster  the emulated multi-node cluster and its delay line (root and
#            network namespaces; reported as skipped without them)
#   mpich    MPICH's nonblocking and persistent collective tests with hier
#            forced (apt-get source mpich; reported as skipped without it)
#   simgrid  hier's schedules in SimGrid's simulated MPI at 64 ranks
# against the component built in this tree, not an installed one. Builds
# first if needed. Where this host's Open MPI is 4.1, every registry row then
# runs through each checker of its collective, in every form, under Open MPI
# 5.0 (contrib/with-ompi5, set up on first use), with the cluster layer's
# launch and locality checks, and a build of each series is loaded into the
# other (test/mpi/other_series.sh); HIER_SKIP_OMPI5=1 skips that.
#
#   contrib/run-tests.sh           the default: about 25 minutes here (CI)
#   contrib/run-tests.sh --full    the release matrix: the MPI layer at full
#                                  counts, every layout and the hand-made runs
#                                  under both series, the whole cluster layer
#                                  under both, every unit test under the
#                                  sanitizers, and the in-tree build of Open
#                                  MPI 5.0 with hier (about 17 minutes more)
# Prints each layer's time, and ends with one line "tests: N passed, M
# failed, K skipped" over all of it; exits non-zero if anything failed.
#
# environment (set by this script for its run under Open MPI 5.0):
#   HIER_RERUN=1  this run repeats under another series what the host's run
#                 covered: no unit, sanitize, delay line or simgrid layer;
#                 the MPI layer's registry rows once each (--one-layout)
#                 unless --full; the cluster layer's --quick sections
set -uo pipefail
cd "$(dirname "$0")/.."
full=0
case "${1:-}" in
    --full) full=1 ;;
    "") ;;
    *) sed -n '4,/^set -uo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
rerun=${HIER_RERUN:-}

if [ ! -f Makefile ]; then
    ./autogen.sh && ./configure || exit 1
fi
make -j"$(nproc)" || exit 1

passed=0 failed=0 skipped=0 status=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# took LABEL START: prints and keeps how long a layer took since START.
times=()
took() {
    echo "run-tests: $1 took $((SECONDS - $2)) s"
    times+=("$1 $((SECONDS - $2)) s")
}

# count LAYER PASSED FAILED [SKIPPED]: adds a layer's counts to the totals.
count() {
    echo "$1: $2 passed, $3 failed, ${4:-0} skipped"
    passed=$((passed + $2)) failed=$((failed + $3)) skipped=$((skipped + ${4:-0}))
}

# The last "N passed, M failed[, K skipped]" line of the output in $log.
last_counts() {
    grep -E '^([a-z0-9-]+: )?[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$log" | tail -n1 |
        sed -E 's/^([a-z0-9-]+: )?([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$/\2 \3 \5/'
}

# unit and mpi: make check runs both; GoogleTest's summary is in the
# automake harness's log, the MPI driver's is its last line. The MPI layer
# runs the checkers' quick counts (every datatype, communicator, layout and
# form; blocks up to 400 B) unless --full (blocks of 4096 elements too: the
# rendezvous protocol); the cluster layer's runs name their own counts (up
# to 80 KB). Under HIER_RERUN, each row once (--one-layout): the other
# series runs the same code, what differs there is Open MPI.
if [[ -n $rerun ]]; then
    mpi_flags="--rows-only --quick --one-layout"
    ((full)) && mpi_flags=--quick
else
    mpi_flags=--quick
    ((full)) && mpi_flags=
fi
layer_start=$SECONDS
if [[ -n $rerun ]]; then
    # contrib/inspect and test/fuzz use no MPI: they ran on the host already.
    { make -k -C test/mpi check HIER_MPI_TEST_FLAGS="$mpi_flags" || echo "run-tests: make check failed in test/mpi"; } 2>&1 | tee "$log"
    ! grep -q '^run-tests: make check failed' "$log" || status=1
else
    make -k check HIER_MPI_TEST_FLAGS="$mpi_flags" 2>&1 | tee "$log"
    ((PIPESTATUS[0] == 0)) || status=1
fi
unit_log=test/unit/hier_unit_tests.log
unit_passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\{0,1\}\..*/\1/p' "$unit_log" 2>/dev/null | tail -n1)
unit_failed=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) tests\{0,1\}, listed below.*/\1/p' "$unit_log" 2>/dev/null | tail -n1)
read -r mpi_passed mpi_failed _ <<<"$(last_counts)"
if { [[ -z $rerun ]] && [ -z "$unit_passed$unit_failed" ]; } || [ -z "${mpi_passed:-}" ]; then
    echo "run-tests: the unit or mpi layer did not report (see above)" >&2
    status=1
fi
if [[ -n $rerun ]]; then
    count unit 0 0 1
else
    count unit "${unit_passed:-0}" "${unit_failed:-0}"
fi
# make check failed (docs_check, test_inspect, a fuzzer, ...) with no
# failure in the counts above: one more, so the last line says it.
if ((status)) && [ "${unit_failed:-0}" = 0 ] && [ "${mpi_failed:-0}" = 0 ]; then
    mpi_failed=1
fi
count mpi "${mpi_passed:-0}" "${mpi_failed:-0}"
took "unit and mpi (make check)" "$layer_start"

# layer LABEL CMD...: runs CMD, whose last "N passed, M failed[, K
# skipped]" line gives the layer's counts; exit 77 (with "SKIP: why") skips it.
layer() {
    local label=$1 rc p f s start=$SECONDS; shift
    "$@" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    took "$label" "$start"
    if ((rc == 77)); then
        echo "run-tests: $label skipped: $(grep -m1 '^SKIP' "$log")"
        count "$label" 0 0 1
        return
    fi
    read -r p f s <<<"$(last_counts)"
    if [ -z "${p:-}" ]; then
        echo "run-tests: $label did not report (exit $rc)" >&2
        p=0 f=1 s=0
    fi
    # A layer that failed counts a failure even if its counts say none.
    ((rc == 0)) || { status=1; ((f > 0)) || f=1; }
    count "$label" "$p" "$f" "${s:-0}"
}

# sanitize: once, on this host's Open MPI. The unit tests but the largest
# sweeps (every unit test with --full), and each registry row once through
# each checker of its collective at quick counts (every layout with --full).
if [[ -z $rerun ]]; then
    if ((full)); then
        layer "sanitize (ASan, UBSan)" env HIER_SANITIZE_UNIT_FILTER='*' HIER_SANITIZE_MPI=rows make check-sanitize
    else
        layer "sanitize (ASan, UBSan)" make check-sanitize
    fi
fi

# cluster: each script prints its counts last, or "SKIP: why" and exits 77.
# Under HIER_RERUN (unless --full) run_cluster_tests.sh --quick, smoke and
# uneven-smp only: the launch through hier-rsh and the locality under that
# series; the other scenarios run the same schedules. The delay line has no
# MPI in it: once, on the host.
[[ -z $rerun ]] &&
    layer "cluster (test/cluster/test_delayline.sh)" env HIER_DELAYLINE="$PWD/contrib/cluster/hier-delayline" bash test/cluster/test_delayline.sh
cluster_flag=()
((full)) && cluster_flag=(--full)
[[ -n $rerun ]] && ((!full)) && cluster_flag=(--quick)
layer "cluster (test/cluster/run_cluster_tests.sh)" bash test/cluster/run_cluster_tests.sh "${cluster_flag[@]}"

# mpich: MPICH's nonblocking and persistent collective tests with hier
# forced (test/mpi/mpich_nbc.sh; about a minute, every test at every rank
# count with --full). It fetches MPICH's source with apt-get source, and
# reports SKIP without it. Once, on the host (its glue names Open MPI 4.1's
# MPIX_ persistent collectives).
mpich_flag=()
((full)) && mpich_flag=(--full)
[[ -z $rerun ]] && layer "mpich (test/mpi/mpich_nbc.sh)" bash test/mpi/mpich_nbc.sh "${mpich_flag[@]}"

# simgrid: hier's core in SimGrid's SMPI, 64 simulated ranks (no Open MPI in
# it: once, on the host).
[[ -z $rerun ]] && layer "simgrid (contrib/simgrid/smoke.sh)" bash contrib/simgrid/smoke.sh

# Open MPI 5.0: the MPI and cluster layers again in contrib/with-ompi5's
# build tree (HIER_RERUN; that run of this script stops here: its Open MPI
# is 5.0), then each series' build loaded into the other.
source contrib/mpirun-local.sh   # hier_ompi_series
if [ "$(hier_ompi_series)" = 4.1 ] && [ -z "${HIER_SKIP_OMPI5:-}" ]; then
    layer_start=$SECONDS
    if contrib/with-ompi5 --setup; then
        ompi5_tree=$(contrib/with-ompi5 --tree pwd)
        full_flag=()
        ((full)) && full_flag=(--full)
        took "open-mpi 5.0 set-up (contrib/with-ompi5 --setup)" "$layer_start"
        layer "open-mpi 5.0 (mpi, cluster)" contrib/with-ompi5 --tree env HIER_RERUN=1 contrib/run-tests.sh "${full_flag[@]}"
        layer "open-mpi 5.0 loads hier built for 4.1" \
            contrib/with-ompi5 test/mpi/other_series.sh ompi/mca/coll/hier/.libs/mca_coll_hier.so "$ompi5_tree/test/mpi/coll_check"
        layer "open-mpi 4.1 loads hier built for 5.0" \
            test/mpi/other_series.sh "$(contrib/with-ompi5 --root)$ompi5_tree/ompi/mca/coll/hier/.libs/mca_coll_hier.so" test/mpi/coll_check
        # The in-tree build takes about 17 minutes: --full runs it; the
        # default run checks that the glue is the one it last passed with.
        if ((full)); then
            layer "in-tree build (Open MPI 5.0)" contrib/intree-ompi5.sh
        elif [ "$(contrib/intree-ompi5.sh --glue-hash)" = "$(cat contrib/intree-ompi5.checked 2>/dev/null)" ]; then
            echo "PASS: in-tree build glue is the one contrib/intree-ompi5.checked passed with"
            count "in-tree glue" 1 0
        else
            echo "FAIL: the in-tree build glue changed since contrib/intree-ompi5.checked: run contrib/intree-ompi5.sh (17 minutes), which renews it"
            count "in-tree glue" 0 1
            status=1
        fi
    else
        echo "run-tests: contrib/with-ompi5 could not set up Open MPI 5.0 (see above)" >&2
        count "open-mpi 5.0" 0 1
        status=1
    fi
fi

[[ -n $rerun ]] || echo "run-tests: times: $(IFS=';'; echo "${times[*]}" | sed 's/;/; /g'), in all $SECONDS s"
echo "tests: $passed passed, $failed failed, $skipped skipped"
((failed == 0)) || status=1
exit "$status"
