#!/usr/bin/env bash
# hier-inspect's commands on small machines: every run must report a proven
# delivery (exit 0), and bad usage must give one line and exit 2.
set -u
tool=${tool:-${1:-./hier-inspect}}
failed=0
expect() {  # expect CODE ARGS...: runs the tool, checks its exit code
    local code=$1
    shift
    "$tool" "$@" >/tmp/hier-inspect.$$ 2>&1
    local rc=$?
    if ((rc != code)); then
        echo "FAIL: hier-inspect $* exited $rc, expected $code"
        cat /tmp/hier-inspect.$$
        failed=1
    fi
}
expect 0 schedule alltoall factor 4,3,2,1
expect 0 schedule alltoall lg 1,1,1,1,1,1,1,1,1 --clusters 3,6
expect 2 schedule alltoall nonesuch 4,3
expect 2 schedule alltoall factor 4,x
expect 0 embed --random 12 20 3
printf '0 1 5\n1 0 2\n5 2 0\n' >/tmp/hier-inspect-costs.$$
expect 0 embed /tmp/hier-inspect-costs.$$
printf '0 1\n2 0\n' >/tmp/hier-inspect-costs.$$
expect 2 embed /tmp/hier-inspect-costs.$$
rm -f /tmp/hier-inspect-costs.$$
expect 2 embed --random 0 5 1
expect 0 embed --nodes 4,3,2,1
expect 0 embed --nodes 1,1,1,1,1,1,1,1,1 --clusters 3,6
expect 2 embed --nodes 4,3 --clusters 3
expect 0 embed-gains --sizes 8,16 --topologies 3 --max 20
expect 2 embed-gains --sizes 12
expect 2 embed-gains --topologies
expect 2 nonesuch
rm -f /tmp/hier-inspect.$$
exit $failed
