#!/usr/bin/env bash
# Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# The SimGrid compare driver: hier auto against the collective selections of
# Open MPI, MPICH, MVAPICH2 and Intel MPI as SimGrid's SMPI ports them, on one
# simulated platform, every byte validated.
#
#   contrib/simgrid/compare.sh PLATFORM [options]
#     PLATFORM        a file of contrib/simgrid/platforms (name or path); its comment's
#                     "hier: KEY=VALUE" lines say the hosts, the cluster map, the link
#                     costs (and cost file) hier is told and what bounds the collective
#     -c COLLECTIVE   alltoall (default), allgather, scatter, gather, allreduce, barrier
#     -m SIZES        bytes per block: MIN:MAX (powers of two) or a list (default 1:256)
#     -a ALGS         also run these named hier rows, comma-separated (e.g. node_lg)
#     -s SELECTORS    SMPI's selections to run (default ompi,mpich,mvapich2,impi)
#     -i ITERS        timed calls per size (default 1: the simulation is deterministic)
#     -x WARMUP       untimed calls per size before them (default 0)
#     -o DIR          where the CSV, the runs' outputs and the PNG go (default simgrid-results/)
#     -R              run nothing: the table again from DIR's outputs of an earlier run
#     -N              no hier auto run (its pick does not simulate in reasonable wall time):
#                     the table from the selectors and the -a rows, hier's columns "-"
#     -S SOLVER       SimGrid's bandwidth sharing solver for hier's runs: maxmin (default) or
#                     fairbottleneck, which gave hier's schedules the same times in every
#                     cell compared, 9 to 11 times faster; the selectors keep maxmin, SimGrid's
#                     default (docs/simgrid.md, "Solvers"). A fallback cell then runs Open
#                     MPI's algorithm under SOLVER.
#     -D              detached sends below 64 KiB (SMPI's default; Open MPI's eager sends
#                     complete as detached ones do), instead of none (below); always for
#                     scatter and gather, whose SMPI ports use blocking sends: without, each
#                     waits for its delivery (the binomial scatter of 16 B on torus-8x8x8
#                     took 4.5 times as long)
#
# Every variant is one smpirun of hier_smpi (contrib/simgrid/hier_smpi.cc) with
#   --cfg=smpi/simulate-computation:no   compute between MPI calls is not charged
#   --cfg=smpi/privatization:no          the ranks share the process (hier_smpi's tables)
#   --cfg=smpi/send-is-detached-thresh:0 no detached sends (SMPI keeps every pending
#                                        detached send in one list: O(n^2) wall time),
#                                        but with -D (65536)
#   --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1
#                                        links as the platform says (no SMPI correction)
#   --cfg=network/solver:maxmin          SimGrid's default (hier's runs: -S's solver)
#   --cfg=maxmin/precision:1e-4          SimGrid's solver aborts at the default 1e-5 and at 1e-6 with
#                                        many flows on a link (1e-9 crashes it)
# A selector's variant runs MPI's own collective (-a mpi) with
# --cfg=smpi/COLLECTIVE:SELECTOR; hier's runs auto with --cfg=smpi/COLLECTIVE:ompi,
# so that where auto keeps Open MPI's, tuned's algorithm (SMPI's port) runs, as in
# the component. A size's time is the slowest rank's, from one simulated start
# instant to its return, the mean of the timed calls (hier_smpi's avg_us).
#
# The table (and DIR/PLATFORM-COLLECTIVE.csv): per size the four selectors, hier auto
# and its pick, each -a row, the limit (the platform's physical lower bound: see
# docs/simgrid.md), hier over ompi and over the best selector, and the validation
# (ok only if every run checked every byte, else "FAILED:" and the variants
# whose bytes were wrong). "predicted" is what auto's model
# (hier-inspect alltoall on the same nodes, clusters and costs) expects: the row
# it picks for the size's class and that row's ratio to Open MPI's at exactly the
# block simulated, or "fallback (best row xR)". Wall time,
# CPU time and peak memory of each run go to stderr.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

usage() { sed -n '4,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 2; }
[ $# -ge 1 ] || usage
platform=$1; shift
[ -f "$platform" ] || platform=$here/platforms/$platform.xml
[ -f "$platform" ] || { echo "compare: no platform $platform" >&2; exit 2; }
collective=alltoall sizes=1:256 algorithms= selectors=ompi,mpich,mvapich2,impi iters=1 warmup=0 outdir=simgrid-results
reuse=0 no_auto=0 detached=0 solver=maxmin
while getopts "c:m:a:s:i:x:o:S:RND" opt; do
    case $opt in
    c) collective=$OPTARG ;; m) sizes=$OPTARG ;; a) algorithms=$OPTARG ;; s) selectors=$OPTARG ;;
    i) iters=$OPTARG ;; x) warmup=$OPTARG ;; o) outdir=$OPTARG ;; R) reuse=1 ;; N) no_auto=1 ;; D) detached=1 ;;
    S) solver=$OPTARG ;;
    *) usage ;;
    esac
done
case $solver in maxmin | fairbottleneck) ;; *)
    echo "compare: -S \"$solver\": expected maxmin or fairbottleneck" >&2; exit 2 ;; esac
# Scatter and gather: SMPI's ports of Open MPI's binomial and basic linear
# use blocking sends, which Open MPI completes at once below the eager limit.
case $collective in scatter | gather) detached=1 ;; esac
program=$("$here/build.sh")
name=$(basename "$platform" .xml)
mkdir -p "$outdir"
csv=$outdir/$name-$collective.csv
png=$outdir/$name-$collective.png

# The platform's "hier: KEY=VALUE" lines.
meta() { sed -n "s/^ *hier: $1=\(.*\)$/\1/p" "$platform" | head -n 1; }
hosts=$(meta hosts) cluster_map=$(meta cluster_map) link_costs=$(meta link_costs) torus_dims=$(meta torus_dims)
cost=$(meta cost)

# The host file: each entry PREFIX[LO-HI]:COUNTS, COUNTS one count or a list
# cycled over the entry's hosts; one "host:ranks" line a host.
hostfile=$outdir/$name.hosts
for entry in $hosts; do
    awk -v e="$entry" 'BEGIN {
        gsub(/[\[\]:-]/, " ", e); split(e, a, " "); n = split(a[4], c, ",")
        for (h = a[2]; h <= a[3]; h++) print a[1] h ":" c[(h - a[2]) % n + 1]}'
done >"$hostfile"
ranks=$(awk -F: '{n += $2} END {print n}' "$hostfile")

common=(--cfg=smpi/simulate-computation:no --cfg=smpi/privatization:no
        --cfg=smpi/send-is-detached-thresh:$((detached ? 65536 : 0))
        --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 --cfg=maxmin/precision:1e-4
        --cfg=smpi/host-speed:1Gf --log=root.thres:critical)
hier_args=(-c "$collective" -m "$sizes" -i "$iters" -x "$warmup")
[ -n "$cluster_map" ] && hier_args+=(-C "$cluster_map")
[ -n "$link_costs" ] && hier_args+=(-L "$link_costs")
[ -n "$torus_dims" ] && hier_args+=(-T "$torus_dims")
# cost=FILE: coll_hier_cost's file, next to the platform
[ -n "$cost" ] && hier_args+=(-K "file:$(cd "$(dirname "$platform")" && pwd)/$cost")

# run VARIANT SELECTOR ALG: one smpirun; its CSV in DIR/NAME-COLL-VARIANT.out
run() {
    local out=$outdir/$name-$collective-$1.out
    local solver_here=maxmin
    [ "$3" = mpi ] || solver_here=$solver
    ((reuse)) && return
    echo "compare: $name ($ranks ranks), $collective, $1" >&2
    /usr/bin/time -f "compare: $1: %e s wall, %U s user + %S s system CPU, %M KB peak" \
        smpirun -np "$ranks" -platform "$platform" -hostfile "$hostfile" -quiet "${common[@]}" \
        "--cfg=network/solver:$solver_here" \
        "--cfg=smpi/$collective:$2" "$program" "${hier_args[@]}" -a "$3" >"$out" 2>"$out.err" ||
        echo "compare: $1 failed (exit $?): $(grep -v '^\[' "$out.err" | tail -n 2 | tr '\n' ' ')" >&2
    grep -E "^compare: |^hier_smpi: .*(ranks|wall)" "$out.err" >&2 || true
}
IFS=, read -ra sels <<<"$selectors"
IFS=, read -ra named <<<"$algorithms"
for s in "${sels[@]}"; do run "$s" "$s" mpi; done
if ((no_auto)); then rm -f "$outdir/$name-$collective-hier.out"; else run hier ompi auto; fi
for a in "${named[@]}"; do run "$a" ompi "$a"; done

# get VARIANT SIZE COLUMN: a field of the variant's line for that size
# (5 avg_us, 4 chosen, 10 validation).
get() { awk -F, -v s="$2" -v c="$3" '$2 == s {print $c}' "$outdir/$name-$collective-$1.out" 2>/dev/null || true; }

# The physical lower bound in microseconds for one block size (docs/simgrid.md):
# alltoall: every host's NIC carries n (p - n) blocks each way; every group
# (leaf, site) its r (p - r) blocks through its uplink (plus its latency);
# allgather: every NIC receives (p - n) blocks; scatter, gather: the root's
# NIC (p - n) blocks, or on a torus its links ceil((p - 1) / links) blocks;
# every collective (barrier and allreduce: alone), with a diameter line: the
# one-way latency of the platform's longest path, which some rank's data or
# signal must cross.
to_bytes() { awk -v r="$1" 'BEGIN {u = r; sub(/[0-9.]+/, "", u); v = r + 0
    f = u ~ /^TB/ ? 1e12 : u ~ /^GB/ ? 1e9 : u ~ /^MB/ ? 1e6 : u ~ /^Gbit/ ? 1e9 / 8 : 1; print v * f}'; }
nic=$(meta nic) groups=$(meta groups) links=$(meta links) diameter=$(meta diameter)
limit_us() {
    awk -F: -v b="$1" -v coll="$collective" -v p="$ranks" -v nic="$( [ -n "$nic" ] && to_bytes "$nic" || echo 0)" \
        -v diameter="$diameter" \
        -v groups="$groups" -v gbw="$( [ -n "$groups" ] && to_bytes "$(cut -d: -f2 <<<"$groups")" || echo 0)" \
        -v links="$links" -v lbw="$( [ -n "$links" ] && to_bytes "${links#*:}" || echo 0)" '
        {n[NR] = $2}
        END {
            t = -1
            if (coll == "alltoall") {
                if (nic > 0) for (h in n) t = max(t, n[h] * (p - n[h]) * b / nic)
                if (groups != "" && gbw > 0) {
                    split(groups, g, ":"); split(g[1], k, "x"); lat = g[3]
                    l = lat ~ /ms$/ ? lat * 1e-3 : lat ~ /us$/ ? lat * 1e-6 : 0
                    t = max(t, k[2] * (p - k[2]) * b / gbw + l)
                }
            } else if (coll == "allgather" && nic > 0) {
                for (h in n) t = max(t, (p - n[h]) * b / nic)
            } else if (coll == "scatter" || coll == "gather") {
                if (links != "") { split(links, q, ":"); t = int((p - 1 + q[1] - 1) / q[1]) * b / lbw }
                else if (nic > 0) t = (p - n[1]) * b / nic
            }
            if (diameter != "") t = max(t, diameter ~ /ms$/ ? diameter * 1e-3 : diameter ~ /us$/ ? diameter * 1e-6 : diameter)
            if (t < 0) print "-"; else printf "%.2f", t * 1e6
        }
        function max(a, c) { return a > c ? a : c }' "$hostfile"
}

# The scale model's (or, up to 128 ranks, the simulator's) view of each size,
# from hier-inspect on the same node sizes, clusters and costs: the row auto
# picks for the size's class and that row's predicted ratio to Open MPI's at
# exactly this block, the one simulated ("fallback (row x1.23)" when it keeps
# Open MPI's: the best row's ratio).
inspect=$here/../inspect/hier-inspect
node_sizes=$(cut -d: -f2 "$hostfile" | paste -sd,)
predicted() {
    [ "$collective" = alltoall ] && [ -x "$inspect" ] || { echo "-"; return; }
    local args=(alltoall "$node_sizes" --bytes "$1")
    [ -n "$cluster_map" ] && args+=(--clusters "$cluster_map")
    [ -n "$link_costs" ] && args+=(--costs "$link_costs")
    [ -n "$torus_dims" ] && args+=(--torus "$torus_dims")
    local pick
    pick=$("$inspect" "${args[@]}" 2>/dev/null | awk '/^auto picks/ {print $3}')
    "$inspect" "${args[@]}" --exact 2>/dev/null | awk -v pick="$pick" '
        $NF ~ /^x[0-9.]+$/ && $1 != "open-mpi" && $1 !~ /^open-mpi\(/ {r[$1] = substr($NF, 2); if (best == "" || r[$1] + 0 < r[best] + 0) best = $1}
        END {if (pick != "" && pick in r) printf "%s x%s", pick, r[pick]
             else if (best != "") printf "fallback (%s x%s)", best, r[best]
             else printf "-"}'
}

header="size"
for s in "${sels[@]}"; do header+=",${s}_us"; done
header+=",hier_us,hier_alg"
for a in "${named[@]}"; do header+=",${a}_us"; done
header+=",limit_us,hier_over_ompi,hier_over_best,best_selector,predicted,validation"
echo "$header" >"$csv"
# checked VARIANT VALIDATION: a run that printed this size and did not check
# every byte makes the row "FAILED: VARIANT ..." (its time column "wrong"; a
# selector's is then not the best); a run that died before it ("-" in its
# column, its error in DIR) does not.
checked() { [ -z "$2" ] || [ "$2" = ok ] || [ "$2" = "ok (no data)" ] || failed+=" $1"; }
for size in $(cat "$outdir/$name-$collective"-*.out 2>/dev/null | awk -F, 'NR > 1 && $2 ~ /^[0-9]+$/ {print $2}' | sort -n | uniq); do
    row=$size failed= best= best_name=
    for s in "${sels[@]}"; do
        t=$(get "$s" "$size" 5)
        checked "$s" "$(get "$s" "$size" 10)"
        [[ " $failed " == *" $s "* ]] && t=wrong
        row+=",${t:--}"
        if [ -n "$t" ] && [ "$t" != wrong ] && { [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN {exit !(a < b)}'; }; then
            best=$t best_name=$s
        fi
    done
    hier=$(get hier "$size" 5)
    checked hier "$(get hier "$size" 10)"
    row+=",${hier:--},$(get hier "$size" 4)"
    for a in "${named[@]}"; do
        row+=",$(get "$a" "$size" 5)"
        checked "$a" "$(get "$a" "$size" 10)"
    done
    valid=${failed:+FAILED:$failed}
    valid=${valid:-ok}
    ompi=$(get ompi "$size" 5)
    ratio() { awk -v a="$1" -v b="$2" 'BEGIN {print (a != "" && b != "" && b > 0) ? sprintf("%.2f", a / b) : "-"}'; }
    row+=",$(limit_us "$size"),$(ratio "$hier" "$ompi"),$(ratio "$hier" "$best"),${best_name:--},$(predicted "$size"),$valid"
    echo "$row" >>"$csv"
done

echo "compare: $name ($ranks ranks), $collective; the slowest rank's simulated time in us" >&2
column -s, -t "$csv"
echo "compare: table in $csv" >&2

if (($(wc -l <"$csv") < 3)); then
    echo "compare: one size: no plot" >&2
elif command -v gnuplot >/dev/null; then
    plot="set datafile separator ','; set terminal pngcairo noenhanced size 900,600; set output '$png';"
    plot+="set logscale xy; set xlabel 'bytes per block'; set ylabel 'simulated time (us)'; set key left top;"
    plot+="set title '$name ($ranks ranks): MPI_$collective in SimGrid SMPI';"
    plot+="plot"
    column=2 sep=
    for s in "${sels[@]}"; do
        plot+="$sep '$csv' every ::1 using 1:$column with linespoints title '$s'"
        sep=, column=$((column + 1))
    done
    plot+=", '$csv' every ::1 using 1:$column with linespoints lw 2 title 'hier (auto)'"
    column=$((column + 2))
    for a in "${named[@]}"; do
        plot+=", '$csv' every ::1 using 1:$column with linespoints title 'hier $a'"
        column=$((column + 1))
    done
    awk -F, -v c="$column" 'NR > 1 && $c == "-" {f = 1} END {exit !f}' "$csv" ||
        plot+=", '$csv' every ::1 using 1:$column with lines dashtype 2 title 'physical limit'"
    gnuplot -e "$plot" && echo "compare: plot in $png" >&2
else
    echo "compare: no gnuplot (apt-get install gnuplot-nox): no plot" >&2
fi
