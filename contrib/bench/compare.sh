#!/usr/bin/env bash
# Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# The compare driver: hier against Open MPI's own selection on one scenario of
# the emulated cluster, side by side in one run.
#
#   contrib/bench/compare.sh SCENARIO [options]
#     SCENARIO        a file of contrib/cluster/scenarios (name or path)
#     -c COLLECTIVE   hier_bench's collective (default alltoall), or a nonblocking one
#                     (ialltoall, ... iallgather: see "Nonblocking" below)
#     -m MIN:MAX      bytes per block (default 1024:1048576), or a list: 1024,65536
#     -a ALGS         also run these named hier algorithms, comma-separated; ALG:W runs
#                     ALG with coll_hier_window W (rounds in flight); ALG+NAME=VALUE
#                     (repeatable) adds --mca coll_hier_NAME VALUE, e.g.
#                     hypercube+hypercube_embedding=eff
#     -H NAME=VALUE   --mca coll_hier_NAME VALUE for every hier variant (repeatable),
#                     e.g. -H cost=file:$PWD/contrib/cluster/scenarios/hetero.costs
#     -M NAME=VALUE   --mca NAME VALUE for every variant, Open MPI's own included
#                     (repeatable), e.g. -M btl_tcp_eager_limit=4194304
#     -C MAP          coll_hier_cluster_map for hier (default: the scenario's clusters, as
#                     counts; e.g. host patterns "a:hier-n[0-2];b:hier-n[3-8]", or probe)
#     -s START        clock (default) or barrier: how iterations start (hier_bench)
#     -r REPS         repetitions of every variant, interleaved (default 3)
#     -S STAT         a repetition's time for a size: avg (default; osu's) or median of
#                     hier_bench's iterations
#     -i ITERS        hier_bench's timed iterations per size, up to 64 KiB (default 20;
#                     larger sizes take a quarter of that, at least 5)
#     -x WARMUP       hier_bench's untimed calls per size before them (default 3); with
#                     -x 0 -J and one size, the times are a job's first calls
#     -t TESTS        nonblocking: MPI_Test calls during the computation (default 0)
#     -o DIR          where the CSV and the PNG go (default bench-results/)
#     -k              keep the cluster up afterwards
#     -J              one mpirun per variant and repetition, instead of every
#                     variant in one (-J is implied by a +NAME=VALUE variant)
#
# Variants: "open-mpi" (Open MPI's own selection: tuned and the rest decide),
# "hier" (coll_hier_<collective>_algorithm auto) and every -a algorithm. By
# default they share one mpirun per repetition: hier_bench -v gives each a
# communicator of its own (hier declines open-mpi's) and alternates them
# iteration by iteration, so that every variant meets the machine in the same
# state. With -J, each is a job of its own ("open-mpi" then leaves hier out
# of the coll list), in turn. Either way they run REPS times over; a size's
# time is the median over the repetitions of hier_bench's average (or
# median, -S). In one job the table also gives the paired speed-up: per
# iteration, Open MPI's time over hier's in that same iteration, the median
# of that over the iterations (of the repetitions' medians), and the lowest
# lower end of its 95 % interval; a slow phase of the machine slows both
# sides of a pair, so it is steadier than the ratio of two averages. Last
# comes hier's paired ratio over the best named variant's (each over Open
# MPI's of the same iterations; the median over the repetitions): how far
# auto is from the best row, without the noise of two separate medians. The
# physical limit comes from the scenario (its `limit` key); the table gives
# hier's time against it.
#
# Nonblocking (-c ialltoall ...): hier_bench measures as osu_ialltoall does
# (see its measure_nonblocking): per variant, the pure communication time,
# the overall time with a computation of about that length between start and
# wait (-t MPI_Test calls during it), the computation's time, the exposed
# time (overall - compute on the slowest rank) and the overlap %, each the
# median over the repetitions of hier_bench's average or median (-S) over
# its iterations; the limit is the blocking twin's. The variants select by
# the blocking twin's parameter (ialltoall: coll_hier_alltoall_algorithm).
# No plot, no paired ratio.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cluster=$top/contrib/cluster/hier-cluster
bench=$top/contrib/bench/hier_bench
source "$top/contrib/mpirun-local.sh"

usage() { sed -n '4,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 2; }
[ $# -ge 1 ] || usage
scenario=$1; shift
[ -f "$scenario" ] || scenario=$top/contrib/cluster/scenarios/$scenario.conf
[ -f "$scenario" ] || { echo "compare: no scenario $scenario" >&2; exit 2; }
collective=alltoall sizes=1024:1048576 algorithms= start=clock reps=3 iters=20 outdir=bench-results keep=0 jobs=one
statistic=avg warmup=3 tests=0
cluster_map= hier_params=() mpi_params=()
while getopts "c:C:m:a:H:M:s:r:i:x:o:S:t:kJ" opt; do
    case $opt in
    c) collective=$OPTARG ;; C) cluster_map=$OPTARG ;; m) sizes=$OPTARG ;; a) algorithms=$OPTARG ;;
    H) hier_params+=("$OPTARG") ;;
    M) mpi_params+=(--mca "${OPTARG%%=*}" "${OPTARG#*=}") ;;
    S) statistic=$OPTARG ;; t) tests=$OPTARG ;;
    s) start=$OPTARG ;; r) reps=$OPTARG ;; i) iters=$OPTARG ;; x) warmup=$OPTARG ;; o) outdir=$OPTARG ;; k) keep=1 ;; J) jobs=each ;;
    *) usage ;;
    esac
done
[ -x "$bench" ] || { echo "compare: $bench is not built (run make)" >&2; exit 1; }
# A nonblocking collective is selected by, and bounded as, its blocking twin.
case $collective in
i*) nonblocking=1 twin=${collective#i} ;;
*) nonblocking=0 twin=$collective ;;
esac
case $statistic in
avg) stat_column=6 ;; median) stat_column=12 ;;
*) echo "compare: -S $statistic: expected avg or median" >&2; exit 2 ;;
esac
name=$(basename "$scenario" .conf)
mkdir -p "$outdir"
raw=$outdir/$name-$collective.raw.csv
csv=$outdir/$name-$collective.csv
png=$outdir/$name-$collective.png

"$cluster" up "$scenario"
((keep)) || trap '"$cluster" down' EXIT
read -ra cluster_args <<<"$("$cluster" mpirun-args)"
slots=$("$cluster" hostfile | awk '{sub("slots=", "", $2); n += $2} END {print n}')

# How hier is asked for, its fallback Open MPI's own selection (han too, under 5.0).
selection=$(hier_selection_args)

# A component built in this tree wins over an installed one.
component_path=()
if [ -e "$top/ompi/mca/coll/hier/.libs/mca_coll_hier.so" ]; then
    component_path=(--mca mca_base_component_path "$top/ompi/mca/coll/hier/.libs:$(hier_pkglibdir)")
fi

# A scenario's clusters (nodes per cluster, in node order) are what
# coll_hier_cluster_map takes: hier is told them, as a user would.
scenario_clusters=$(sed -n 's/^clusters=//p' "$scenario")
[ -n "$cluster_map" ] && scenario_clusters=$cluster_map
# So are a torus scenario's dimensions, coll_hier_torus_dims (unless -H gives it).
scenario_torus=$(sed -n 's/^torus_dims=//p' "$scenario")
[[ " ${hier_params[*]} " == *" torus_dims="* ]] && scenario_torus=
# mca_args NAME=VALUE...: --mca coll_hier_NAME VALUE for each.
mca_args() {
    local param
    for param in "$@"; do echo "--mca coll_hier_${param%%=*} ${param#*=}"; done
}
variant_args() {  # variant ALG[:W][+NAME=VALUE...] -> mpirun arguments
    [ "$1" = open-mpi ] && return
    local hier=$selection
    # verbose 1 names auto's first pick; -H verbose=2 (Open MPI refuses a parameter twice) every size class's
    [[ " ${hier_params[*]} " == *" verbose="* ]] || hier+=" --mca coll_hier_verbose 1"
    [ -n "$scenario_clusters" ] && hier+=" --mca coll_hier_cluster_map $scenario_clusters"
    [ -n "$scenario_torus" ] && hier+=" --mca coll_hier_torus_dims $scenario_torus"
    local base=${1%%+*} params=()
    [ "$base" != "$1" ] && IFS=+ read -ra params <<<"${1#*+}"
    hier+=" $(mca_args "${hier_params[@]}" "${params[@]}" | tr '\n' ' ')"
    case $base in
    hier) echo "$hier" ;;
    *:*) echo "$hier --mca coll_hier_${twin}_algorithm ${base%%:*} --mca coll_hier_window ${base#*:}" ;;
    *) echo "$hier --mca coll_hier_${twin}_algorithm $base" ;;
    esac
}

variants=(open-mpi hier)
IFS=, read -ra named <<<"$algorithms"
variants+=("${named[@]}")
[[ "$algorithms" == *+* ]] && jobs=each
bench_args=(-c "$collective" -m "$sizes" -s "$start" -i "$iters" -I $((iters / 4 > 5 ? iters / 4 : 5)) -x "$warmup" -f csv)
if ((nonblocking)); then
    bench_args+=(-t "$tests")
    echo "variant,rep,collective,start,size,tests,iterations,validation,late,pure_avg_us,overall_avg_us,compute_avg_us,test_avg_us,exposed_avg_us,overlap_avg,pure_median_us,overall_median_us,compute_median_us,test_median_us,exposed_median_us,overlap_median" >"$raw"
else
    echo "variant,rep,collective,start,size,avg_us,min_us,max_us,iterations,validation,late,median_us,over_first,over_first_low,over_first_high" >"$raw"
fi
for ((rep = 1; rep <= reps; ++rep)); do
    if [ "$jobs" = one ]; then
        read -ra extra <<<"$(variant_args hier)"
        echo "compare: $name $collective, ${variants[*]} in one job, repetition $rep of $reps" >&2
        mpirun "${cluster_args[@]}" "${component_path[@]}" "${mpi_params[@]}" "${extra[@]}" -np "$slots" \
            "$bench" "${bench_args[@]}" -v "$(IFS=,; echo "${variants[*]}")" 2>"$outdir/variants.err" |
            awk -F, -v OFS=, -v r="$rep" 'NR > 1 {$1 = $1 "," r; print}' >>"$raw"
        grep "^coll:hier: $collective on" "$outdir/variants.err" | head -n ${#variants[@]} >&2 || true
        continue
    fi
    for variant in "${variants[@]}"; do
        read -ra extra <<<"$(variant_args "$variant")"
        echo "compare: $name $collective, $variant, repetition $rep of $reps" >&2
        mpirun "${cluster_args[@]}" "${component_path[@]}" "${mpi_params[@]}" "${extra[@]}" -np "$slots" \
            "$bench" "${bench_args[@]}" 2>"$outdir/${variant//[^A-Za-z0-9_.:=+-]/_}.err" |
            awk -v v="$variant" -v r="$rep" 'NR > 1 {print v "," r "," $0}' >>"$raw"
        grep "^coll:hier: $collective on MPI_COMM_WORLD" "$outdir/${variant//[^A-Za-z0-9_.:=+-]/_}.err" | head -n 1 >&2 || true
    done
done

# The scenario's physical limit for one block size, in microseconds, or "-"
# where the scenario states none for this collective. The formulas, with
# their reasons, are in the scenario files; node slots and clusters come from
# `hier-cluster show`, rates from the scenario.
# The shapers' token buckets let their first bytes through at line rate, so
# a NIC's bound is (bytes - bucket) / rate; the scenario files' formulas
# leave the bucket out, which only matters for small messages.
scenario_nodes=$("$cluster" show "$scenario" | awk 'NR > 1 {sub("slots=", "", $2); sub("cluster=", "", $3); print $2, $3}')
bucket_bytes=$("$cluster" show "$scenario" | sed -n '1s/.*bucket=\([0-9]*\)kb.*/\1/p')
bucket_bytes=$((${bucket_bytes:-0} * 1024))
bits_per_second() { local r=${1%bit}; numfmt --from=si <<<"${r^^}"; }
# through_link_us BITS RATE: microseconds for BITS through one shaped link of
# RATE (e.g. 100mbit), the bucket's first bytes passing at once.
through_link_us() {
    awk -v n="$1" -v bucket="$((bucket_bytes * 8))" -v r="$(bits_per_second "$2")" \
        'BEGIN {t = (n - bucket) / r; printf "%.1f", (t > 0 ? t : 0) * 1e6}'
}
limit_us() {
    (
        # shellcheck disable=SC1090
        source "$scenario"
        bits=$(($1 * 8))
        costmax=1  # the costliest pair of a hetero scenario (its cost_I rows)
        for row in "${!cost_@}"; do
            for x in ${!row}; do ((x > costmax)) && costmax=$x; done
        done
        case ${limit:-}/$twin in
        busiest-nic/alltoall | backbone/alltoall | hetero/alltoall)
            awk -v b="$bits" -v bucket="$((bucket_bytes * 8))" -v kind="$limit" -v nic="$(bits_per_second "${node_bw:-1gbit}")" \
                -v backbone="$(bits_per_second "${backbone_bw:-1gbit}")" -v delay="${backbone_delay_ms:-0}" \
                -v unit="$(bits_per_second "${pair_unit_bw:-1gbit}")" -v costmax="$costmax" '
                {n[NR] = $1; c[$2] += $1; p += $1}
                END {
                    for (k in n) t = max(t, (n[k] * (p - n[k]) * b - bucket) / nic)   # every NIC, both ways
                    if (kind == "backbone") for (q in c) t = max(t, max(0, c[q] * (p - c[q]) * b - bucket) / backbone + delay / 1000)
                    if (kind == "hetero") t = max(t, (costmax * b - bucket) / unit)   # the slowest pair alone
                    printf "%.1f", t * 1e6
                }
                function max(a, b) { return a > b ? a : b }' <<<"$scenario_nodes" ;;
        torus-scatter/*)
            IFS=x read -ra dims <<<"$torus_dims"
            p=1 links=0 largest=0   # links: the root's, two per dimension, one for a size of 2
            for d in "${dims[@]}"; do
                p=$((p * d)) links=$((links + (d > 2 ? 2 : d - 1)))
                ((d > largest)) && largest=$d
            done
            case $twin in
            scatter | gather)   # ceil((p - 1) / links) blocks cross one of the root's links
                through_link_us $(((p - 1 + links - 1) / links * bits)) "$link_bw" ;;
            alltoall)
                # The bisection: halving the torus across its largest dimension
                # L (even) cuts 2 p / L links each way, which must carry (p/2)^2
                # blocks each way: p L m / 8 per link (the scenario file's).
                if ((largest % 2)); then echo "-"; else through_link_us $((p * largest * bits / 8)) "$link_bw"; fi ;;
            *) echo "-" ;;
            esac ;;
        *) echo "-" ;;
        esac
    )
}

# awk: the median of x[1..m] (x is left as it was).
awk_median='function median(x, m,    i, j, t, a) {for (i = 1; i <= m; i++) a[i] = x[i]
        for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) {t = a[i]; a[i] = a[j]; a[j] = t}
        return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2}'

# Nonblocking: per variant and size, the median over the repetitions of
# each time and of the overlap; then the table, and no plot.
if ((nonblocking)); then
    first=10 && [ "$statistic" = median ] && first=16   # pure_avg_us or pure_median_us in $raw
    nb_table=$(awk -F, -v f="$first" "$awk_median"'
        NR > 1 {key = $1 "," $5; m = ++n[key]; ok[key] = ok[key] $8
                for (j = 0; j < 6; j++) v[key, j, m] = $(f + j)}
        END {for (key in n) {printf "%s,%s", key, (ok[key] ~ /Fail/ ? "Fail" : "Pass")
             for (j = 0; j < 6; j++) {delete a; for (i = 1; i <= n[key]; i++) a[i] = v[key, j, i]
                                      printf ",%.1f", median(a, n[key])}
             printf "\n"}}' "$raw")
    # nb VARIANT SIZE COLUMN: 3 validation, then 4 pure, 5 overall, 6 compute, 7 test, 8 exposed, 9 overlap
    nb() { awk -F, -v v="$1" -v s="$2" -v c="$3" '$1 == v && $2 == s {print $c}' <<<"$nb_table"; }
    header="size,open-mpi_pure_us,hier_pure_us,open-mpi_overall_us,hier_overall_us,open-mpi_compute_us,hier_compute_us"
    header+=",open-mpi_exposed_us,hier_exposed_us,open-mpi_overlap_pct,hier_overlap_pct"
    for variant in "${named[@]}"; do header+=",${variant}_pure_us,${variant}_overlap_pct"; done
    header+=",limit_us,hier_pure_over_limit,validation"
    echo "$header" >"$csv"
    for size in $(cut -d, -f2 <<<"$nb_table" | sort -n | uniq); do
        row=$size
        for column in 4 5 6 8 9; do row+=",$(nb open-mpi "$size" $column),$(nb hier "$size" $column)"; done
        for variant in "${named[@]}"; do row+=",$(nb "$variant" "$size" 4),$(nb "$variant" "$size" 9)"; done
        limit=$(limit_us "$size") hier=$(nb hier "$size" 4)
        row+=",$limit,$(awk -v h="$hier" -v l="$limit" 'BEGIN {print (l != "-" && l > 0) ? sprintf("%.2f", h / l) : "-"}')"
        valid=$(awk -F, -v s="$size" '$2 == s && $3 == "Fail" {f = 1} END {print f ? "Fail" : "Pass"}' <<<"$nb_table")
        echo "$row,$valid" >>"$csv"
    done
    echo "compare: $name, $collective, start $start, $tests MPI_Test calls, $statistic of iterations (the slowest rank's), median of $reps; times in us, overlap in %" >&2
    column -s, -t "$csv"
    echo "compare: table in $csv" >&2
    exit 0
fi

# Per variant and size: the median over repetitions of the statistic and of
# the paired ratio to Open MPI's (hier_bench's over_first: in one job,
# open-mpi is the first variant), the largest upper end of its 95 % interval,
# and whether every byte checked.
median_table=$(awk -F, -v column="$stat_column" "$awk_median"'
    NR > 1 {key = $1 "," $5; n[key]++; v[key, n[key]] = $column
        r[key, n[key]] = $13; if ($15 > high[key]) high[key] = $15; ok[key] = ok[key] $10}
    END {for (key in n) {m = n[key]; delete a; delete b
         for (i = 1; i <= m; i++) {a[i] = v[key, i]; b[i] = r[key, i]}
         printf "%s,%.1f,%s,%.4f,%.4f\n", key, median(a, m), (ok[key] ~ /Fail/ ? "Fail" : "Pass"), median(b, m), high[key]}}' "$raw")

# Per size: the median over repetitions of hier's paired ratio over the
# best named variant's (both over Open MPI's in the same iterations), "-"
# without named variants or in separate jobs.
paired_over_best=$(awk -F, -v one="$jobs" "$awk_median"'
    NR > 1 && one == "one" && $1 != "open-mpi" {key = $5 "," $2
        if ($1 == "hier") {hier[key] = $13; sizes[$5] = 1} else if (!(key in best) || $13 < best[key]) best[key] = $13}
    END {for (s in sizes) {m = 0; delete a
         for (key in hier) {split(key, k, ","); if (k[1] == s && key in best) a[++m] = hier[key] / best[key]}
         if (m) printf "%s,%.2f\n", s, median(a, m)}}' "$raw")

header="size,open-mpi_us,hier_us,speedup,paired_speedup,paired_speedup_low,limit_us,hier_over_limit,open-mpi_over_limit"
for variant in "${named[@]}"; do header+=",${variant}_us"; done
header+=",validation,paired_hier_over_best"
echo "$header" >"$csv"
for size in $(cut -d, -f2 <<<"$median_table" | sort -n | uniq); do
    # get VARIANT [COLUMN]: the variant's time (or COLUMN of median_table) at this size
    get() { awk -F, -v v="$1" -v s="$size" -v c="${2:-3}" '$1 == v && $2 == s {print $c}' <<<"$median_table"; }
    valid=$(awk -F, -v s="$size" '$2 == s && $4 == "Fail" {f = 1} END {print f ? "Fail" : "Pass"}' <<<"$median_table")
    ompi=$(get open-mpi) hier=$(get hier) limit=$(limit_us "$size")
    paired="$(get hier 5),$(get hier 6)"
    row=$(awk -v s="$size" -v o="$ompi" -v h="$hier" -v l="$limit" -v p="$paired" -v one="$jobs" 'BEGIN {
        bounded = l != "-" && l > 0
        split(p, ratio, ",")   # hier over Open MPI, per iteration: its median, the interval upper end
        printf "%d,%.1f,%.1f,%.2f,%s,%s,%s,%s,%s", s, o, h, o / h,
               one == "one" ? sprintf("%.2f", 1 / ratio[1]) : "-", one == "one" ? sprintf("%.2f", 1 / ratio[2]) : "-",
               l, bounded ? sprintf("%.2f", h / l) : "-", bounded ? sprintf("%.2f", o / l) : "-"}')
    for variant in "${named[@]}"; do row+=",$(get "$variant")"; done
    over_best=$(awk -F, -v s="$size" '$1 == s {print $2}' <<<"$paired_over_best")
    echo "$row,$valid,${over_best:--}" >>"$csv"
done

echo "compare: $name, $collective, start $start, $statistic of iterations, median of $reps; times in us" >&2
column -s, -t "$csv"
echo "compare: table in $csv" >&2

if (($(wc -l <"$csv") < 3)); then
    echo "compare: one size (a barrier, or -m N:N): no plot, the table is all" >&2
elif command -v gnuplot >/dev/null; then
    plot="set datafile separator ','; set terminal pngcairo noenhanced size 900,600; set output '$png';"
    plot+="set logscale xy; set xlabel 'bytes per block'; set ylabel 'time (us)'; set key left top;"
    plot+="set title '$name: MPI_$collective ($start start, median of $reps)';"
    plot+="plot '$csv' every ::1 using 1:2 with linespoints title 'Open MPI',"
    plot+=" '' every ::1 using 1:3 with linespoints title 'hier (auto)'"
    column=10
    for variant in "${named[@]}"; do
        plot+=", '' every ::1 using 1:$column with linespoints title 'hier $variant'"
        column=$((column + 1))
    done
    awk -F, 'NR > 1 && $7 == "-" {f = 1} END {exit !f}' "$csv" ||
        plot+=", '' every ::1 using 1:7 with lines dashtype 2 title 'physical limit'"
    gnuplot -e "$plot" && echo "compare: plot in $png" >&2
else
    echo "compare: no gnuplot (apt-get install gnuplot-nox): no plot" >&2
fi
