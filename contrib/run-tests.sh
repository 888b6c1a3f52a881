#!/usr/bin/env bash
# Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Runs every test of coll/hier, layer by layer (docs/architecture.md):
#   unit     the core, GoogleTest, no MPI                   (make check)
#   mpi      mpirun on this host with imposed node maps      (make check)
#   sanitize unit and mpi again under ASan and UBSan: every
#            unit test; each row of the registry once through
#            each checker of its collective    (make check-sanitize)
#   cluster  the emulated multi-node cluster and its delay line (root and
#            network namespaces; reported as skipped without them)
# against the component built in this tree, not an installed one. Builds
# first if needed. Where this host's Open MPI is 4.1, the MPI and cluster
# layers then run again under Open MPI 5.0 (contrib/with-ompi5, set up on
# first use; the unit layer, no MPI in it, runs once), and a
# build of each series is loaded into the other (test/mpi/other_series.sh);
# HIER_SKIP_OMPI5=1 skips that. Ends with one line "tests: N passed, M
# failed, K skipped" over all of it; exits non-zero if anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."

if [ ! -f Makefile ]; then
    ./autogen.sh && ./configure || exit 1
fi
make -j"$(nproc)" || exit 1

passed=0 failed=0 skipped=0 status=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

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
# automake harness's log, the MPI driver's is its last line.
# Set for the Open MPI 5.0 tree's run below, where they would repeat what
# ran here on the same code: HIER_SKIP_UNIT, the unit layer (the C++ core
# alone, no Open MPI header; `make check-sanitize` runs it again here, under
# ASan and UBSan), and hier-inspect's and the fuzzers' checks (no MPI
# either); HIER_MPI_QUICK, the full counts of the MPI layer's runs generated
# from the registry (they take the quick counts there).
mpi_flags=${HIER_MPI_QUICK:+HIER_MPI_TEST_FLAGS=--quick}
if [ -n "${HIER_SKIP_UNIT:-}" ]; then
    # contrib/inspect and test/fuzz use no MPI: they ran here already.
    { make -k -C test/mpi check $mpi_flags || echo "run-tests: make check failed in test/mpi"; } 2>&1 | tee "$log"
    ! grep -q '^run-tests: make check failed' "$log" || status=1
else
    make -k check $mpi_flags 2>&1 | tee "$log"
    ((PIPESTATUS[0] == 0)) || status=1
fi
unit_log=test/unit/hier_unit_tests.log
unit_passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\{0,1\}\..*/\1/p' "$unit_log" 2>/dev/null | tail -n1)
unit_failed=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) tests\{0,1\}, listed below.*/\1/p' "$unit_log" 2>/dev/null | tail -n1)
read -r mpi_passed mpi_failed _ <<<"$(last_counts)"
if { [ -z "${HIER_SKIP_UNIT:-}" ] && [ -z "$unit_passed$unit_failed" ]; } || [ -z "${mpi_passed:-}" ]; then
    echo "run-tests: the unit or mpi layer did not report (see above)" >&2
    status=1
fi
if [ -n "${HIER_SKIP_UNIT:-}" ]; then
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

# layer LABEL CMD...: runs CMD, whose last "N passed, M failed[, K
# skipped]" line gives the layer's counts; exit 77 (with "SKIP: why") skips it.
layer() {
    local label=$1 rc p f s; shift
    "$@" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
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

# sanitize: once, on this host's Open MPI (not again in the Open MPI 5.0
# tree's run below, which sets HIER_SKIP_SANITIZE).
if [ -z "${HIER_SKIP_SANITIZE:-}" ]; then
    layer "sanitize (ASan, UBSan)" make check-sanitize
fi

# cluster: each script prints its counts last, or "SKIP: why" and exits 77.
# HIER_CLUSTER_QUICK (set for the Open MPI 5.0 tree's run): run_cluster_tests.sh
# --quick, smoke and uneven-smp only: the launch through hier-rsh and the
# locality under that series; the other scenarios test the same schedules.
for test in test/cluster/test_delayline.sh test/cluster/run_cluster_tests.sh; do
    quick_flag=()
    [[ -n ${HIER_CLUSTER_QUICK:-} && $test == */run_cluster_tests.sh ]] && quick_flag=(--quick)
    layer "cluster ($test)" env HIER_DELAYLINE="$PWD/contrib/cluster/hier-delayline" bash "$test" "${quick_flag[@]}"
done

# Open MPI 5.0: every layer again in contrib/with-ompi5's build tree (whose
# own run of this script stops here: its Open MPI is 5.0), then each series'
# build loaded into the other.
source contrib/mpirun-local.sh   # hier_ompi_series
if [ "$(hier_ompi_series)" = 4.1 ] && [ -z "${HIER_SKIP_OMPI5:-}" ]; then
    if contrib/with-ompi5 --setup; then
        ompi5_tree=$(contrib/with-ompi5 --tree pwd)
        layer "open-mpi 5.0 (mpi, cluster)" contrib/with-ompi5 --tree env HIER_SKIP_SANITIZE=1 HIER_SKIP_UNIT=1 HIER_MPI_QUICK=1 HIER_CLUSTER_QUICK=1 contrib/run-tests.sh
        layer "open-mpi 5.0 loads hier built for 4.1" \
            contrib/with-ompi5 test/mpi/other_series.sh ompi/mca/coll/hier/.libs/mca_coll_hier.so "$ompi5_tree/test/mpi/coll_check"
        layer "open-mpi 4.1 loads hier built for 5.0" \
            test/mpi/other_series.sh "$(contrib/with-ompi5 --root)$ompi5_tree/ompi/mca/coll/hier/.libs/mca_coll_hier.so" test/mpi/coll_check
        # The in-tree build takes about 17 minutes: only when its glue changed.
        if [ "$(contrib/intree-ompi5.sh --glue-hash)" != "$(cat contrib/intree-ompi5.checked 2>/dev/null)" ]; then
            layer "in-tree build (Open MPI 5.0)" contrib/intree-ompi5.sh
        else
            echo "run-tests: in-tree build skipped: its glue is the one contrib/intree-ompi5.checked passed with"
        fi
    else
        echo "run-tests: contrib/with-ompi5 could not set up Open MPI 5.0 (see above)" >&2
        count "open-mpi 5.0" 0 1
        status=1
    fi
fi

echo "tests: $passed passed, $failed failed, $skipped skipped"
((failed == 0)) || status=1
exit "$status"
