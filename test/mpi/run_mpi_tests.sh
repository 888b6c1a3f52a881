#!/usr/bin/env bash
# run_mpi_tests.sh: the MPI test layer of coll/hier (DESIGN.md, "Testing layers").
#
# Runs alltoall_check under mpirun on one host with node maps that impose
# uneven SMP nodes, for every alltoall algorithm, and alltoallv_check for the
# alltoallv algorithms, and checks
#   - that every case matches the point-to-point reference (the checkers);
#   - that the verbose line names the algorithm that was asked for;
#   - that every run's checksum equals the fallback run's for the same p;
#   - that bad parameter values give exactly one clear stderr line naming the
#     parameter, and still correct results (through the fallback).
# The last line of output is "N passed, M failed"; the exit code is nonzero if
# anything failed.
#
# usage: run_mpi_tests.sh [--plain] [--logdir DIR] [--timeout SEC] ALLTOALL_CHECK [ALLTOALLV_CHECK]
#   --plain    run the matrix without coll/hier (coll list without "hier",
#              no verbose or error-line assertions): checks the checker and
#              this driver against plain Open MPI
#   --logdir   where each run's stdout/stderr go (default: a new temp dir)
#   --timeout  seconds before a run counts as hung (default 120)
# environment:
#   HIER_COMPONENT_DIR  directory holding an uninstalled mca_coll_hier.so; put
#                       first on mca_base_component_path
#   MPIRUN              mpirun command (default: mpirun)
set -euo pipefail

# ------------------------------------------------------------------ options

plain=0
logdir=""
timeout_s=120
usage() { sed -n '/^# usage:/,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; }

while (($#)); do
    case "$1" in
        --plain) plain=1 ;;
        --logdir) logdir=${2:?--logdir needs a directory}; shift ;;
        --timeout) timeout_s=${2:?--timeout needs seconds}; shift ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "run_mpi_tests.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
        *) break ;;
    esac
    shift
done
if (($# < 1 || $# > 2)); then usage >&2; exit 2; fi
alltoall_checker=$1
alltoallv_checker=${2:-}
for program in "$alltoall_checker" $alltoallv_checker; do
    if [[ ! -x $program ]]; then
        echo "run_mpi_tests.sh: $program is not an executable" >&2
        exit 2
    fi
done
# The checker run_check runs, its arguments, and the collective whose
# verbose lines check_verbose reads; sections set them.
checker=$alltoall_checker
checker_args=()
collective=alltoall
[[ -n $logdir ]] || logdir=$(mktemp -d "${TMPDIR:-/tmp}/hier-mpi-tests.XXXXXX")
mkdir -p "$logdir"
MPIRUN=${MPIRUN:-mpirun}

# ---------------------------------------------------------------- the matrix

# Node maps (node sizes of consecutive ranks); p is their sum.
readonly MAPS=("1" "2,1" "1,2,3" "4,3,2,1" "5,1,1" "3,3,3" "5,4,4,2,1")
# ALGORITHM[:WINDOW]: coll_hier_window too, so that the strict round order
# (1, the default) and windows of rounds in flight both run over real MPI.
readonly ALGORITHMS=(factor factor:64 edgecolor:8 pairwise:4 auto)
# What `auto` must pick on a map of two or more nodes.
readonly AUTO_EXPECTED=factor
# Bad values: "p|node map|algorithm|parameter the error line must name".
readonly BAD_VALUES=(
    "10|4,3|auto|coll_hier_node_map"                # sums to 7, not 10
    "3|x|auto|coll_hier_node_map"                   # does not parse
    "5|0,5|auto|coll_hier_node_map"                 # a node of size 0
    "10|4,3,2,1|bogus|coll_hier_alltoall_algorithm" # unknown algorithm
)

# ------------------------------------------------------------- mpirun setup

# `inter` must stay in the list: without it, intercommunicator collectives fall
# to coll/basic, whose MPI_Scatter crashes in Open MPI 4.1.4.
coll_list=hier,tuned,libnbc,basic,inter,self
((plain)) && coll_list=tuned,libnbc,basic,inter,self
mpirun_args=(--allow-run-as-root --oversubscribe --mca mpi_yield_when_idle 1
             --timeout "$timeout_s")
if [[ -n ${HIER_COMPONENT_DIR:-} ]] && ((!plain)); then
    if [[ ! -e $HIER_COMPONENT_DIR/mca_coll_hier.so ]]; then
        echo "run_mpi_tests.sh: no mca_coll_hier.so in HIER_COMPONENT_DIR=$HIER_COMPONENT_DIR" >&2
        exit 2
    fi
    # shellcheck source=../../contrib/mpirun-local.sh
    source "$(dirname "$0")/../../contrib/mpirun-local.sh"   # hier_pkglibdir
    mpirun_args+=(--mca mca_base_component_path "$HIER_COMPONENT_DIR:$(hier_pkglibdir)")
fi

# Open MPI before 4.1.5 has a modified-Bruck alltoall (tuned algorithm 3) that
# corrupts data or crashes when the send and receive datatypes differ
# (open-mpi/ompi#10488, fixed in 4.1.5). tuned picks it for communicators of
# 16 or more ranks and small blocks, i.e. in our p = 16 runs; the fallback
# would then fail alltoall_check's contig->vector cases through no fault of
# hier. On those versions and sizes, pin tuned's alltoall to pairwise.
readonly BRUCK_BUG_MIN_P=16
ompi_version=$("$MPIRUN" --version 2>/dev/null | awk 'NR == 1 {print $NF}')
bruck_bug=0
if [[ -n $ompi_version ]] &&
   [[ $(printf '%s\n4.1.5\n' "$ompi_version" | sort -V | head -n1) != 4.1.5 ]]; then
    bruck_bug=1
fi
# tuned_pin P: sets the array pin to the mpirun arguments needed for P ranks.
tuned_pin() {
    pin=()
    if ((bruck_bug && $1 >= BRUCK_BUG_MIN_P)); then
        pin=(--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_alltoall_algorithm 2)
    fi
}

# ------------------------------------------------------------------- helpers

passed=0
failed=0
run_no=0

map_size() { local s=0 x sizes; IFS=, read -ra sizes <<<"$1"; for x in "${sizes[@]}"; do s=$((s + x)); done; echo "$s"; }
map_nodes() { local sizes; IFS=, read -ra sizes <<<"$1"; echo "${#sizes[@]}"; }

pass() { passed=$((passed + 1)); echo "PASS: $1"; }
# fail NAME REASON [LOG]: on failure show the log's tail (once per run), so
# that CI output alone explains the failure.
shown_log=""
fail() {
    failed=$((failed + 1))
    echo "FAIL: $1: $2"
    if [[ -n ${3:-} && $3 != "$shown_log" ]]; then
        shown_log=$3
        echo "  --- $(cat "$3.cmd")"
        echo "  --- tail of $3.out"; tail -n 15 "$3.out" | sed 's/^/  | /'
        echo "  --- tail of $3.err"; tail -n 25 "$3.err" | sed 's/^/  | /'
    fi
}

# run_check NAME P MCA_ARGS...: runs $checker (with $checker_args) on P ranks with extra
# mpirun arguments; leaves the log base name in $log and the exit code in $rc.
run_check() {
    local name=$1 p=$2; shift 2
    run_no=$((run_no + 1))
    log=$logdir/$(printf '%02d' "$run_no")-${name//[^A-Za-z0-9=_.-]/_}
    local pin
    tuned_pin "$p"
    local cmd=("$MPIRUN" "${mpirun_args[@]}" "$@" "${pin[@]}" -np "$p" "$checker" "${checker_args[@]}")
    echo "${cmd[*]}" >"$log.cmd"
    rc=0
    # mpirun's own --timeout kills every process of the job; the outer timeout
    # is the backstop for a hung mpirun, whose killing may leave processes.
    timeout -k 10 $((timeout_s + 30)) "${cmd[@]}" >"$log.out" 2>"$log.err" || rc=$?
}

# check_result NAME: the run exited 0 and the checker reported no failure.
check_result() {
    local summary prog
    prog=$(basename "$checker")
    summary=$(grep -E "^$prog: [0-9]+ passed, [0-9]+ failed\$" "$log.out" || true)
    if ((rc == 124 || rc == 137)) ||
       grep -q 'time limit for job execution has been reached' "$log.err"; then
        fail "$1" "timed out after ${timeout_s} s" "$log"
    elif [[ -z $summary ]]; then
        fail "$1" "no summary line (exit code $rc)" "$log"
    elif [[ $summary != *" 0 failed" ]] || ((rc != 0)); then
        fail "$1" "${summary#"$prog: "} (exit code $rc)" "$log"
    else
        pass "$1 (${summary#"$prog: "})"
    fi
}

# checksum_of_run: the checksum line of the last run.
checksum_of_run() {
    sed -n "s/^$(basename "$checker"): checksum \([0-9a-f]*\)\$/\1/p" "$log.out"
}

# check_checksum NAME KEY: equal to the fallback run's checksum for the same
# KEY (a checker's checksum depends only on p and its case list).
declare -A reference_checksum
check_checksum() {
    local sum
    sum=$(checksum_of_run)
    if [[ -z $sum ]]; then
        fail "$1" "no checksum line" "$log"
    elif [[ -z ${reference_checksum[$2]:-} ]]; then
        echo "SKIP: $1 (no fallback run for p=$2 to compare with)"
    elif [[ $sum != "${reference_checksum[$2]}" ]]; then
        fail "$1" "checksum $sum differs from the fallback run's ${reference_checksum[$2]}" "$log"
    else
        pass "$1 ($sum)"
    fi
}

# expected_comm_lines P: communicators the checker uses that have more than
# one rank (hier declines size-1 communicators, so they print nothing):
# world, dup and reversed have p ranks, the parity halves ceil(p/2), floor(p/2);
# a --comms LIST among the checker's arguments runs only those.
expected_comm_lines() {
    local p=$1 n=0 comms=world,dup,parity,reversed i kind
    for ((i = 0; i + 1 < ${#checker_args[@]}; ++i)); do
        [[ ${checker_args[i]} == --comms ]] && comms=${checker_args[i + 1]}
    done
    for kind in world dup reversed; do
        [[ ,$comms, == *,$kind,* ]] && ((p > 1)) && n=$((n + 1))
    done
    if [[ ,$comms, == *,parity,* ]]; then
        (((p + 1) / 2 > 1)) && n=$((n + 1))
        ((p / 2 > 1)) && n=$((n + 1))
    fi
    echo "$n"
}

# check_verbose NAME MAP ALGORITHM [CLUSTERS]: the verbose lines of one run
# (CLUSTERS: how many the cluster map makes of the map's nodes).
check_verbose() {
    local name=$1 map=$2 alg=$3 clusters=${4:-1} p nodes lines world want shape
    p=$(map_size "$map")
    nodes=$(map_nodes "$map")
    shape="size $p, $nodes nodes"
    ((clusters > 1)) && shape+=", $clusters clusters"
    lines=$(cat "$log.out" "$log.err" | grep "coll:hier: $collective on " || true)
    # p = 1: every communicator has one rank and comm_query declines it, so
    # hier has no module anywhere and must print nothing at all.
    if ((p == 1)); then
        if [[ -n $lines ]]; then fail "$name" "verbose line(s) for size-1 communicators" "$log"
        else pass "$name (no line: size-1 communicators are declined)"; fi
        return
    fi
    case $alg in auto) want=$AUTO_EXPECTED ;; *) want=$alg ;; esac
    world=$(grep -F "coll:hier: $collective on MPI_COMM_WORLD " <<<"$lines" || true)
    local names dups count
    names=$(sed -E "s/.*coll:hier: $collective on (.*) \\(size [0-9]+.*/\\1/" <<<"$lines")
    dups=$(sort <<<"$names" | uniq -d)
    count=$(grep -c . <<<"$lines" || true)
    if [[ $(grep -c . <<<"$world" || true) != 1 ]]; then
        fail "$name" "expected one verbose line for MPI_COMM_WORLD, got: ${world:-none}" "$log"
    elif [[ $world != *"($shape): $want" && $world != *"($shape): $want ("*")" ]]; then
        fail "$name" "expected '($shape): $want', got: $world" "$log"
    elif [[ -n $dups ]]; then
        # Each communicator prints once (alltoall_check names them all apart).
        fail "$name" "more than one verbose line for: $dups" "$log"
    elif ((count != $(expected_comm_lines "$p"))); then
        fail "$name" "$count verbose lines, expected $(expected_comm_lines "$p") (one per communicator of size > 1)" "$log"
    else
        pass "$name (${world##*: })"
    fi
}

# check_error_line NAME TEXT [ONLY]: one stderr line has TEXT (one process
# reports, in one line), and, unless ONLY is 0, it is all of stderr (a clean
# run's stderr is empty on this machine, so anything else is noise the user
# would see too; ONLY=0 where Open MPI's own error follows ours).
check_error_line() {
    local named total
    named=$(grep -c -F "$2" "$log.err" || true)
    total=$(grep -c . "$log.err" || true)
    if ((named != 1)); then
        fail "$1" "expected one stderr line naming $2, got $named" "$log"
    elif ((total != 1)) && [[ ${3:-1} == 1 ]]; then
        fail "$1" "expected stderr to be that one line, got $total lines" "$log"
    else
        pass "$1 ($(grep -F "$2" "$log.err"))"
    fi
}

# --------------------------------------------------------------------- runs

echo "run_mpi_tests.sh: Open MPI ${ompi_version:-unknown}, coll list $coll_list," \
     "logs in $logdir"
((bruck_bug)) && echo "run_mpi_tests.sh: pinning tuned alltoall to pairwise for p >= $BRUCK_BUG_MIN_P (open-mpi/ompi#10488)"
start=$SECONDS

for map in "${MAPS[@]}"; do
    p=$(map_size "$map")
    # Fallback first: its checksum is the reference for the others.
    for variant in fallback "${ALGORITHMS[@]}"; do
        alg=${variant%%:*}
        window=1
        [[ $variant == *:* ]] && window=${variant#*:}
        name="map=$map p=$p alg=$alg window=$window"
        run_check "$name" "$p" --mca coll "$coll_list" --mca coll_hier_node_map "$map" --mca coll_hier_window "$window" \
            --mca coll_hier_alltoall_algorithm "$alg" --mca coll_hier_verbose 1
        check_result "$name: results"
        if [[ $alg == fallback && -z ${reference_checksum[$p]:-} ]]; then
            reference_checksum[$p]=$(checksum_of_run)
        else
            check_checksum "$name: checksum" "$p"
        fi
        ((plain)) || check_verbose "$name: verbose" "$map" "$alg"
    done
done

for bad in "${BAD_VALUES[@]}"; do
    IFS='|' read -r p map alg param <<<"$bad"
    name="bad value: p=$p map=$map alg=$alg"
    # No verbose: its line could name the parameter too (in a fallback reason).
    run_check "$name" "$p" --mca coll "$coll_list" --mca coll_hier_node_map "$map" --mca coll_hier_alltoall_algorithm "$alg"
    check_result "$name: results"
    check_checksum "$name: checksum" "$p"
    ((plain)) || check_error_line "$name: error line" "$param"
done

# Clusters (coll_hier_cluster_map, cluster sizes in nodes): lg and
# lg_at_once by name, with a window, and auto's pick. With a node map the
# cluster map counts its nodes, so split communicators inherit their
# members' clusters too. "NODE MAP|CLUSTERS|VARIANTS|CHECKER ARGUMENTS": SMP
# clusters and three clusters run the checker's --quick counts, to keep the
# layer's time down.
readonly CLUSTER_CASES=(
    "1,1,1,1,1,1,1|3,4|fallback lg lg:8 lg_at_once auto|"
    "2,2,1,1,1|2,3|fallback lg lg:8 lg_at_once auto|"
    "3,1,2|2,1|fallback lg lg_at_once:4 auto|--quick"
    "1,1,1,1,1,1,1|2,2,3|fallback lg lg_at_once:4 auto|--quick"
    "2,1,1,2,1,1|2,2,2|fallback lg:3 lg_at_once auto|--quick"
)
# What `auto` must pick across clusters whose backbone latency it does not know.
readonly AUTO_ACROSS_CLUSTERS=lg_at_once
for case in "${CLUSTER_CASES[@]}"; do
    IFS='|' read -r map clusters variants args <<<"$case"
    read -ra checker_args <<<"$args"
    p=$(map_size "$map")
    key="$p/$clusters/$args"
    for variant in $variants; do
        alg=${variant%%:*}
        window=1
        [[ $variant == *:* ]] && window=${variant#*:}
        name="map=$map clusters=$clusters p=$p alg=$alg window=$window${args:+ $args}"
        run_check "$name" "$p" --mca coll "$coll_list" --mca coll_hier_node_map "$map" \
            --mca coll_hier_cluster_map "$clusters" --mca coll_hier_window "$window" \
            --mca coll_hier_alltoall_algorithm "$alg" --mca coll_hier_verbose 1
        check_result "$name: results"
        if [[ $alg == fallback ]]; then
            reference_checksum[$key]=$(checksum_of_run)
        else
            check_checksum "$name: checksum" "$key"
        fi
        [[ $alg == auto ]] && alg=$AUTO_ACROSS_CLUSTERS
        ((plain)) || check_verbose "$name: verbose" "$map" "$alg" "$(map_nodes "$clusters")"
    done
done
checker_args=()
name="bad value: cluster map 3,5 over 7 nodes"
run_check "$name" 7 --mca coll "$coll_list" --mca coll_hier_node_map 1,1,1,1,1,1,1 \
    --mca coll_hier_cluster_map 3,5
check_result "$name: results"
check_checksum "$name: checksum" "7/3,4/"
((plain)) || check_error_line "$name: error line" coll_hier_cluster_map

# Clusters by host patterns (coll_hier_cluster_map CLUSTER:HOSTS;...). On
# one host every rank has the same host name, so what can run here is a map
# naming this host, one cluster (auto: factor across the node map's nodes),
# and the maps that must be refused, each in one line naming the parameter,
# with the fallback's results. Several clusters of real hosts are the
# cluster layer's (README, "The emulated cluster").
host=$(hostname -s)
checker_args=(--counts 0,7 --types "int,vector,contig->vector" --comms world,parity)
readonly HOST_MAP_NODES=2,1,3
p=$(map_size "$HOST_MAP_NODES")
name="host map: fallback reference, p=$p"
run_check "$name" "$p" --mca coll "$coll_list" --mca coll_hier_node_map "$HOST_MAP_NODES" \
    --mca coll_hier_alltoall_algorithm fallback
check_result "$name: results"
reference_checksum[$p/hosts]=$(checksum_of_run)
name="host map: here:$host is one cluster"
run_check "$name" "$p" --mca coll "$coll_list" --mca coll_hier_node_map "$HOST_MAP_NODES" \
    --mca coll_hier_cluster_map "here:$host" --mca coll_hier_verbose 1
check_result "$name: results"
check_checksum "$name: checksum" "$p/hosts"
((plain)) || check_verbose "$name: verbose" "$HOST_MAP_NODES" "$AUTO_EXPECTED"
# "MAP|what the error line says about it"
readonly BAD_HOST_MAPS=(
    "here:$host[3-1]|runs backwards"
    "here:$host;there:nosuchhost[1-3]|which matches no host of the job"
    "there:nosuchhost|leaves host \"$host\" (rank 0) in no cluster"
    "a:$host;b:$host|puts host \"$host\" in clusters \"a\" and \"b\""
)
for bad in "${BAD_HOST_MAPS[@]}"; do
    IFS='|' read -r cluster_map says <<<"$bad"
    name="bad value: host map $cluster_map"
    run_check "$name" "$p" --mca coll "$coll_list" --mca coll_hier_node_map "$HOST_MAP_NODES" \
        --mca coll_hier_cluster_map "$cluster_map"
    check_result "$name: results"
    check_checksum "$name: checksum" "$p/hosts"
    if ((!plain)); then
        check_error_line "$name: error line" "coll_hier_cluster_map \"$cluster_map\" "
        if grep -qF "$says" "$log.err"; then pass "$name: says $says"
        else fail "$name: says" "the error line does not say: $says" "$log"; fi
    fi
done
checker_args=()

# Alltoallv (alltoallv_check: count patterns with zeros, every datatype
# class, MPI_IN_PLACE): every alltoallv algorithm against the fallback's
# checksum, on SMP nodes and on clusters. "NODE MAP|CLUSTERS|VARIANTS|
# CHECKER ARGUMENTS".
readonly ALLTOALLV_CASES=(
    "4,3,2,1||fallback factor pairwise:4 edgecolor auto|"
    "2,2,1,1,1|2,3|fallback lg lg_at_once:8 auto|"
    "1,1,1,1,1,1,1|2,2,3|fallback lg:4 lg_at_once|--comms world,parity"
)
if [[ -n $alltoallv_checker ]]; then
    checker=$alltoallv_checker
    collective=alltoallv
    for case in "${ALLTOALLV_CASES[@]}"; do
        IFS='|' read -r map clusters variants args <<<"$case"
        read -ra checker_args <<<"$args"
        p=$(map_size "$map")
        key="alltoallv/$p/$args"
        cluster_args=()
        [[ -n $clusters ]] && cluster_args=(--mca coll_hier_cluster_map "$clusters")
        for variant in $variants; do
            alg=${variant%%:*}
            window=1
            [[ $variant == *:* ]] && window=${variant#*:}
            name="alltoallv map=$map${clusters:+ clusters=$clusters} p=$p alg=$alg window=$window"
            run_check "$name" "$p" --mca coll "$coll_list" --mca coll_hier_node_map "$map" "${cluster_args[@]}" \
                --mca coll_hier_window "$window" --mca coll_hier_alltoallv_algorithm "$alg" --mca coll_hier_verbose 1
            check_result "$name: results"
            if [[ $alg == fallback ]]; then
                reference_checksum[$key]=$(checksum_of_run)
            else
                check_checksum "$name: checksum" "$key"
            fi
            if [[ $alg == auto ]]; then
                alg=$AUTO_EXPECTED
                [[ -n $clusters ]] && alg=$AUTO_ACROSS_CLUSTERS
            fi
            ((plain)) || check_verbose "$name: verbose" "$map" "$alg" "$( [[ -n $clusters ]] && map_nodes "$clusters" || echo 1)"
        done
    done
    checker=$alltoall_checker
    checker_args=()
    collective=alltoall
fi

# Selection. Not asked for (not in the coll list, no priority set), hier is
# loaded but changes nothing: no verbose line, Open MPI's results.
if ((!plain)); then
    name="selection: hier installed, not asked for"
    run_check "$name" 3 --mca coll_hier_verbose 1 --mca coll_hier_node_map 2,1
    check_result "$name: results"
    check_checksum "$name: checksum" 3
    if grep -q 'coll:hier' "$log.out" "$log.err"; then fail "$name: silent" "hier printed a line" "$log"
    else pass "$name: silent"; fi

    # Alone in the coll list, Open MPI cannot start (every collective needs
    # a provider): one line says which list to use, before Open MPI's error.
    name="selection: --mca coll hier alone"
    run_check "$name" 2 --mca coll hier
    if ((rc == 0)); then fail "$name" "the job started, though no collective has a provider" "$log"
    else check_error_line "$name: error line" "use --mca coll hier,tuned,libnbc,basic,inter,self" 0; fi
fi

echo "run_mpi_tests.sh: $run_no runs in $((SECONDS - start)) s"
echo "$passed passed, $failed failed"
((failed == 0))
