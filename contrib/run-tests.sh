#!/usr/bin/env bash
# Runs every test of coll/hier: `make check`, that is the unit tests of the
# core (GoogleTest, no MPI) and the MPI tests (mpirun on this host, against the
# component built in this tree, not an installed one). Builds first if needed.
# Ends with one line "tests: N passed, M failed" over both layers; exits
# non-zero if anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."

if [ ! -f Makefile ]; then
    ./autogen.sh && ./configure || exit 1
fi
make -j"$(nproc)" || exit 1

log=$(mktemp)
trap 'rm -f "$log"' EXIT
make -k check 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

# GoogleTest's own summary, in the automake harness's log of the unit tests.
unit_log=test/unit/hier_unit_tests.log
unit_passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\{0,1\}\..*/\1/p' "$unit_log" 2>/dev/null | tail -n1)
unit_failed=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) tests\{0,1\}, listed below.*/\1/p' "$unit_log" 2>/dev/null | tail -n1)
# The MPI driver's last line: "N passed, M failed".
mpi_counts=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n1)
mpi_passed=${mpi_counts%% passed*}
mpi_failed=$(echo "$mpi_counts" | sed -n 's/.*, \([0-9]*\) failed/\1/p')

if [ -z "$unit_passed$unit_failed" ] || [ -z "$mpi_counts" ]; then
    echo "run-tests: a test layer did not report (see above)" >&2
    status=1
fi
echo "unit: ${unit_passed:-0} passed, ${unit_failed:-0} failed"
echo "mpi: ${mpi_passed:-0} passed, ${mpi_failed:-0} failed"
echo "tests: $(( ${unit_passed:-0} + ${mpi_passed:-0} )) passed, $(( ${unit_failed:-0} + ${mpi_failed:-0} )) failed"
exit "$status"
