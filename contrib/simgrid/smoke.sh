#!/usr/bin/env bash
# Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# The SimGrid smoke test: hier_smpi at 64 simulated ranks, every byte of
# every call validated, each decision printed. Cases: alltoall (auto,
# node_lg, the fallback), allgather (auto, hypercube) and allreduce
# (hypercube) on 4 hosts x 16 of a small fat-tree, and alltoall (auto, lg)
# on two sites of 2 hosts x 16 behind a 5 ms link. Each case is one smpirun; it passes when it exits 0 and every size
# reads "ok". The last line is "N passed, M failed"; the exit status is 1 if
# any failed, 77 (with a SKIP: line) when smpicxx is missing.
#
#   contrib/simgrid/smoke.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
program=$("$here/build.sh")
rc=$?
if [ $rc -eq 77 ]; then
    echo "$program"   # the SKIP: line
    exit 77
elif [ $rc -ne 0 ]; then
    echo "smoke: could not build hier_smpi"
    echo "0 passed, 1 failed"
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
common=(--cfg=smpi/simulate-computation:no --cfg=smpi/privatization:no --cfg=smpi/send-is-detached-thresh:0
        --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 --cfg=maxmin/precision:1e-4
        --cfg=smpi/host-speed:1Gf --log=root.thres:critical)
printf 'n0:16\nn1:16\nn2:16\nn3:16\n' >"$tmp/fattree.hosts"
printf 'a0:16\na1:16\nb0:16\nb1:16\n' >"$tmp/sites.hosts"
# The link costs each platform's "hier: link_costs=" line tells hier.
link_costs() { sed -n 's/^ *hier: link_costs=\(.*\)$/\1/p' "$here/platforms/$1.xml"; }
fattree_costs=$(link_costs fattree-4x16)
sites_costs=$(link_costs two-sites-small)

# check NAME PLATFORM HOSTS COLLECTIVE ARGS...
check() {
    local name=$1 platform=$here/platforms/$2.xml hosts=$tmp/$3 collective=$4
    shift 4
    local out=$tmp/$name.out
    if smpirun -np 64 -platform "$platform" -hostfile "$hosts" -quiet "${common[@]}" \
        "--cfg=smpi/$collective:ompi" "$program" -c "$collective" "$@" >"$out" 2>"$tmp/$name.err" &&
        [ "$(awk -F, 'NR > 1' "$out" | wc -l)" -gt 0 ] &&
        awk -F, 'NR > 1 && $10 != "ok" {bad = 1} END {exit bad}' "$out"; then
        passed=$((passed + 1))
        echo "PASS: $name: $(awk -F, 'NR > 1 {printf "%s%s B %s %s us", sep, $2, $4, $5; sep = "; "}' "$out")"
    else
        failed=$((failed + 1))
        echo "FAIL: $name"
        sed 's/^/    /' "$out"
        grep -v '^\[' "$tmp/$name.err" | tail -n 5 | sed 's/^/    /'
    fi
}

check fattree-alltoall-auto fattree-4x16 fattree.hosts alltoall -m 1,16,256,4096 -L "$fattree_costs"
check fattree-alltoall-node_lg fattree-4x16 fattree.hosts alltoall -m 16,4096 -a node_lg -L "$fattree_costs"
check fattree-alltoall-fallback fattree-4x16 fattree.hosts alltoall -m 16 -a fallback -L "$fattree_costs"
check fattree-allgather-auto fattree-4x16 fattree.hosts allgather -m 16,4096 -L "$fattree_costs"
check fattree-allgather-hypercube fattree-4x16 fattree.hosts allgather -m 16,4096 -a hypercube -L "$fattree_costs"
check fattree-allreduce-hypercube fattree-4x16 fattree.hosts allreduce -m 8,4096 -a hypercube -L "$fattree_costs"
check sites-alltoall-auto two-sites-small sites.hosts alltoall -m 16,1024 -C 2,2 -L "$sites_costs"
check sites-alltoall-lg two-sites-small sites.hosts alltoall -m 16 -a lg -C 2,2 -L "$sites_costs"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
