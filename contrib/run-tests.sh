#!/usr/bin/env bash
# Runs every test of coll/hier, layer by layer (DESIGN.md's three layers):
#   unit     the core, GoogleTest, no MPI                   (make check)
#   mpi      mpirun on this host with imposed node maps      (make check)
#   cluster  the emulated multi-node cluster and its delay line (root and
#            network namespaces; reported as skipped without them)
# against the component built in this tree, not an installed one. Builds
# first if needed. Ends with one line "tests: N passed, M failed, K skipped"
# over all layers; exits non-zero if anything failed.
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
    grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$log" | tail -n1 |
        sed -E 's/^([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$/\1 \2 \4/'
}

# unit and mpi: make check runs both; GoogleTest's summary is in the
# automake harness's log, the MPI driver's is its last line.
make -k check 2>&1 | tee "$log"
((PIPESTATUS[0] == 0)) || status=1
unit_log=test/unit/hier_unit_tests.log
unit_passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\{0,1\}\..*/\1/p' "$unit_log" 2>/dev/null | tail -n1)
unit_failed=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) tests\{0,1\}, listed below.*/\1/p' "$unit_log" 2>/dev/null | tail -n1)
read -r mpi_passed mpi_failed _ <<<"$(last_counts)"
if [ -z "$unit_passed$unit_failed" ] || [ -z "${mpi_passed:-}" ]; then
    echo "run-tests: the unit or mpi layer did not report (see above)" >&2
    status=1
fi
count unit "${unit_passed:-0}" "${unit_failed:-0}"
count mpi "${mpi_passed:-0}" "${mpi_failed:-0}"

# cluster: each script prints its counts last, or "SKIP: why" and exits 77.
for test in test/cluster/test_delayline.sh test/cluster/run_cluster_tests.sh; do
    HIER_DELAYLINE=$PWD/contrib/cluster/hier-delayline bash "$test" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    if ((rc == 77)); then
        echo "run-tests: $test skipped: $(grep -m1 '^SKIP' "$log")"
        count "cluster ($test)" 0 0 1
        continue
    fi
    read -r p f s <<<"$(last_counts)"
    if [ -z "${p:-}" ]; then
        echo "run-tests: $test did not report (exit $rc)" >&2
        p=0 f=1 s=0
    fi
    ((rc == 0)) || status=1
    count "cluster ($test)" "$p" "$f" "${s:-0}"
done

echo "tests: $passed passed, $failed failed, $skipped skipped"
((failed == 0)) || status=1
exit "$status"
