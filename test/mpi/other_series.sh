#!/usr/bin/env bash
# Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# other_series.sh: a mca_coll_hier.so built for another Open MPI series (4.1
# or 5.0), put first on this Open MPI's component path, must say so in one
# stderr line and leave the job to Open MPI's own collectives, with hier named
# in the coll list and every result correct.
#
# usage: other_series.sh OTHER_SO COLL_CHECK
# Prints a PASS or FAIL line, then "N passed, M failed"; exits 1 on
# a failure. Where the other build cannot be loaded at all for a reason that
# is not the series (e.g. built on a newer glibc), Open MPI prints its own
# load error instead of hier's line, and the job, with hier not in its coll
# list, must still run correctly.
set -uo pipefail
(($# == 2)) || { sed -n 's/^# usage: //p' "$0" >&2; exit 2; }
other_so=$1 checker=$2
source "$(dirname "$0")/../../contrib/mpirun-local.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/hier-other-series.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$other_so" "$work/mca_coll_hier.so"
passed=0 failed=0
name="other series: $(ompi_info --version 2>/dev/null | head -n1) loads a hier built for another series"

# run LIST_ARGS...: the checker with the other build first on the path.
run() {
    hier_mpirun --mca mca_base_component_path "$work:$(hier_pkglibdir)" "$@" --mca coll_hier_verbose 1 \
        --mca coll_hier_node_map 2,1 -np 3 "$checker" --op scatter >"$work/out" 2>"$work/err"
}
run --mca coll hier,tuned,libnbc,basic,inter,self
rc=$?
unloadable=
if grep -q "unable to open mca_coll_hier: .*GLIBC" "$work/err"; then
    # Open MPI cannot dlopen it at all, and a coll list naming a component
    # it cannot open fails MPI_Init (Open MPI's rule): without the list, the
    # job must run on Open MPI's own collectives.
    unloadable=$(grep -m1 -o "GLIBC_[0-9.]*" "$work/err")
    run --mca coll_hier_priority 90
    rc=$?
fi
line='^coll:hier: this mca_coll_hier\.so was built for Open MPI [0-9]+\.[0-9]+, loaded into Open MPI v[0-9.]+: hier is disabled'
if ((rc != 0)) || ! grep -qE '^coll_check: [0-9]+ passed, 0 failed$' "$work/out"; then
    echo "FAIL: $name (exit code $rc, results: $(grep -E '^coll_check: [0-9]+ passed' "$work/out"))"
    sed 's/^/    /' "$work/err" | head -n 20
    failed=1
elif [ -n "$unloadable" ]; then
    echo "PASS: $name: it cannot load it (needs $unloadable) and, hier not in the coll list, runs its own collectives correctly"
    passed=1
elif [[ $(wc -l <"$work/err") -ne 1 ]] || ! grep -qE "$line" "$work/err"; then
    echo "FAIL: $name (expected stderr to be that one line, got $(wc -l <"$work/err") lines)"
    sed 's/^/    /' "$work/err" | head -n 20
    failed=1
else
    echo "PASS: $name ($(cut -c1-80 "$work/err")...)"
    passed=1
fi
echo "$passed passed, $failed failed"
((failed == 0))
