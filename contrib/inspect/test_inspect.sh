#!/usr/bin/env bash
# Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
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
expect 0 schedule alltoall lg_at_once 2,2,1,3,1,1,2 --clusters 2,3,2
expect 0 schedule alltoallv lg 1,1,1,1,1,1,1,1,1 --clusters 2,3,4
expect 2 schedule alltoall nonesuch 4,3
expect 2 schedule alltoall factor 4,x
expect 0 torus 7x5
expect 0 torus 2x2x2
expect 0 schedule gather opt 1,1,1,1,1,1 --torus 2x3 --root 4
expect 1 schedule scatter opt 1,1,1            # no torus: does not apply
expect 2 schedule scatter opt 1,1,1 --torus 2x2
expect 2 torus 8x
expect 2 torus 1
expect 0 rules 4,3,2,1 --costs node=0.5us:40Gbit/s:5us,network=15us:100Mbit/s:40us
grep -q '^rule-file-version-2$' /tmp/hier-inspect.$$ || { echo "FAIL: hier-inspect rules wrote no rules file"; failed=1; }
expect 0 rules 1,1,1,1,1,1,1,1,1 --clusters 3,6 --bytes 4096 --window 2
expect 2 rules 4,3 --bytes 0
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
expect 0 registry
grep -q '^alltoall [0-9]* factor$' /tmp/hier-inspect.$$ || { echo "FAIL: hier-inspect registry does not list alltoall factor"; failed=1; }
expect 0 registry scatter
grep -q -v '^scatter ' /tmp/hier-inspect.$$ && { echo "FAIL: hier-inspect registry scatter lists other collectives"; failed=1; }
expect 2 registry nonesuch
expect 0 alltoall 4,3,2,1 --costs node=1us:40Gbit/s,network=50us:200Mbit/s --bytes 65536
expect 0 alltoall 8
expect 2 alltoall 4,3 --costs network=30us
expect 2 alltoall 4,3 --bytes 0
expect 2 alltoall 4,3 --window
expect 2 alltoall 4,3 --torus 4x4
# what auto picks: Open MPI's linear on uneven nodes; lg over tuned's Bruck across two clusters
expect_line() {  # expect_line TEXT ARGS...: exit 0 and a line containing TEXT
    local text=$1
    shift
    expect 0 "$@"
    if ! grep -q -F -- "$text" /tmp/hier-inspect.$$; then
        echo "FAIL: hier-inspect $* printed no line with: $text"
        cat /tmp/hier-inspect.$$
        failed=1
    fi
}
expect_line "auto picks fallback: no hier algorithm predicted" alltoall 4,3,2,1 --bytes 262144
expect_line "auto picks fallback: all ranks on one node" alltoall 8
expect_line "auto picks lg" alltoall 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1 --clusters 8,8 --bytes 4
expect_line "open-mpi(bruck)" alltoall 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1 --clusters 8,8 --bytes 4
# a torus of nodes: messages take its links
expect_line "(16 ranks, 16 nodes, 1 cluster, torus 4x4)" alltoall 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1 --torus 4x4 --bytes 65536
# --share K: K ranks' shares of the model's work, combined, give the unshared comparison
expect_line "combined gives the unshared comparison" alltoall 2,2,2,2,2,2,2,2,2 --clusters 3,6 --share 5
expect_line "not shared: the scale model decides" alltoall 16,16,16,16,16,16,16,16,16 --share 4
expect 2 alltoall 4,3 --share 0
expect 2 alltoall 4,3 --share
# hierarchy: a source's clusters as the component finds them; the emulated
# cluster's leaf-spine scenario (3 leaves of 3 nodes) in its three forms
conf=/tmp/hier-inspect-topology.$$
printf 'SwitchName=leaf0 Nodes=hier-n[0-2]\nSwitchName=leaf1 Nodes=hier-n[3-5]\nSwitchName=leaf2 Nodes=hier-n[6-8]\nSwitchName=spine0 Switches=leaf[0-2]\n' >"$conf"
hosts=hier-n0,hier-n1,hier-n2,hier-n3,hier-n4,hier-n5,hier-n6,hier-n7,hier-n8
addresses=$(for n in 0 1 2 3 4 5 6 7 8; do printf 'spine0.leaf%d.hier-n%d,' $((n / 3)) "$n"; done)
for map in "topology:$conf --hosts $hosts" "slurm --addresses ${addresses%,} --pattern switch.switch.node" \
    "leaf0:hier-n[0-2];leaf1:hier-n[3-5];leaf2:hier-n[6-8] --hosts $hosts" "3,3,3"; do
    read -ra words <<<"$map"
    expect_line "(size 18, 9 nodes, 3 clusters)" hierarchy 2,2,2,2,2,2,2,2,2 "${words[@]}"
    grep -q '^cluster 1: .*hier-n3,.*hier-n4,.*hier-n5; ranks 6-11$\|^cluster 1: node 3,node 4,node 5; ranks 6-11$' /tmp/hier-inspect.$$ ||
        { echo "FAIL: hier-inspect hierarchy ${words[0]}: cluster 1 is not hier-n3..5"; failed=1; }
done
expect_line "(size 18, 9 nodes)" hierarchy 2,2,2,2,2,2,2,2,2 slurm:1 --addresses "${addresses%,}"
expect_line "finds no SLURM_TOPOLOGY_ADDR on rank 0" hierarchy 2,2 slurm
# a host the file does not name: the component's line, and exit 1
expect 1 hierarchy 2,2,2 "topology:$conf" --hosts hier-n0,hier-n1,x
grep -qF 'leaves host "x" (rank 4) in no cluster' /tmp/hier-inspect.$$ ||
    { echo "FAIL: hier-inspect hierarchy with an unknown host: no line saying so"; failed=1; }
expect 1 hierarchy 2,2 topology:/nonexistent --hosts hier-n0,hier-n1
expect 2 hierarchy 2,2 "topology:$conf"
expect 2 hierarchy 2,2 slurm --addresses a.b
expect 2 hierarchy 2,2 probe
rm -f /tmp/hier-inspect.$$ "$conf"
exit $failed
