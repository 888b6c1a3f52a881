#!/usr/bin/env bash
# other_series.sh: a mca_coll_hier.so built for another Open MPI series (4.1
# or 5.0), put first on this Open MPI's component path, must say so in one
# stderr line and leave the job to Open MPI's own collectives, with hier named
# in the coll list and every result correct.
#
# usage: other_series.sh OTHER_SO COLL_CHECK
# Prints PASS/FAIL/SKIP lines, then "N passed, M failed, K skipped"; exits 1 on
# a failure. Skips where the other build cannot be loaded at all for a reason
# that is not the series (e.g. built on a newer glibc): Open MPI then prints
# its own load error.
set -uo pipefail
(($# == 2)) || { sed -n 's/^# usage: //p' "$0" >&2; exit 2; }
other_so=$1 checker=$2
source "$(dirname "$0")/../../contrib/mpirun-local.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/hier-other-series.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$other_so" "$work/mca_coll_hier.so"
passed=0 failed=0 skipped=0
name="other series: $(ompi_info --version 2>/dev/null | head -n1) loads a hier built for another series"

hier_mpirun --mca mca_base_component_path "$work:$(hier_pkglibdir)" \
    --mca coll hier,tuned,libnbc,basic,inter,self --mca coll_hier_verbose 1 \
    --mca coll_hier_node_map 2,1 -np 3 "$checker" --op scatter >"$work/out" 2>"$work/err"
rc=$?
line='^coll:hier: this mca_coll_hier\.so was built for Open MPI [0-9]+\.[0-9]+, loaded into Open MPI v[0-9.]+: hier is disabled'
if grep -q "unable to open mca_coll_hier: .*GLIBC" "$work/err"; then
    echo "SKIP: $name (that build needs a newer C library than this host's: $(grep -m1 -o "GLIBC_[0-9.]*' not found" "$work/err"))"
    skipped=1
elif ((rc != 0)) || ! grep -qE '^coll_check: [0-9]+ passed, 0 failed$' "$work/out"; then
    echo "FAIL: $name (exit code $rc, results: $(grep -E '^coll_check: [0-9]+ passed' "$work/out"))"
    sed 's/^/    /' "$work/err" | head -n 20
    failed=1
elif [[ $(wc -l <"$work/err") -ne 1 ]] || ! grep -qE "$line" "$work/err"; then
    echo "FAIL: $name (expected stderr to be that one line, got $(wc -l <"$work/err") lines)"
    sed 's/^/    /' "$work/err" | head -n 20
    failed=1
else
    echo "PASS: $name ($(cut -c1-80 "$work/err")...)"
    passed=1
fi
echo "$passed passed, $failed failed, $skipped skipped"
((failed == 0))
