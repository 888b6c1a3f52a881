#!/usr/bin/env bash
# Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# check_sanitize.sh: the unit and MPI test layers again, with the component,
# the core, the unit tests and the MPI checkers built with
# -fsanitize=address,undefined (`make check-sanitize` runs it).
#
# usage: check_sanitize.sh SRCDIR WORKDIR
#   SRCDIR   a copy of the sources that is not configured (make distdir's):
#            autotools refuse a VPATH build from a configured tree
#   WORKDIR  where the sanitized tree is configured and built (WORKDIR/build)
#            and the MPI layer's logs go (WORKDIR/mpi-logs)
# environment:
#   HIER_SANITIZE_REUSE  set: keep WORKDIR/build if it was configured (make
#                      brings it up to date) and run the layers again
#   HIER_SANITIZE_UNIT_FILTER  GoogleTest filter of the unit tests run
#                      (default: all but the three largest random sweeps,
#                      which repeat on up to 256 ranks the paths the others
#                      take, at ten times their cost under ASan, and the four
#                      largest sweeps of the time models, arithmetic over
#                      many machine sizes (100 of the layer's 175 s); "*":
#                      all)
#   HIER_SANITIZE_MPI  sample (default): every row of the registry through
#                      each checker of its collective once, on the first
#                      layout where it applies, with the quick counts and
#                      every datatype and communicator (run_mpi_tests.sh
#                      --rows-only --quick --one-layout); rows: every row on
#                      every layout, quick counts; full: the whole MPI
#                      layer; none: skip it
#
# Every report fails the run: UBSan is built with -fno-sanitize-recover=all
# and runs with halt_on_error=1, ASan aborts at its first error; and any
# report line in a log ("ERROR: AddressSanitizer", "runtime error:") counts
# as a failure even if the process's exit code hid it.
#
# Leaks: the unit layer checks them (LeakSanitizer, on by default with
# ASan). The MPI layer does not (detect_leaks=0): Open MPI 4.1 leaves its
# own allocations (the MCA variable system, the modex, hwloc's topology) at
# MPI_Finalize, and every allocation the component makes is reached
# through libmpi's frames, so a suppression of Open MPI's libraries would
# hide the component's leaks as well. The component's objects live per
# communicator and are freed with it (a leak there shows in the unit
# layer's CApi tests, which create and free the core's state).
#
# The MPI processes are not linked with the ASan runtime when they are
# Open MPI's own programs, and the runtime must come first in a process
# that loads an instrumented mca_coll_hier.so: it is preloaded into every
# rank (mpirun -x LD_PRELOAD), not into mpirun itself.
set -uo pipefail
if (($# != 2)); then sed -n '/^# usage:/,/^# environment:/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2; exit 2; fi
src=$(cd "$1" && pwd) || exit 2
mkdir -p "$2" && work=$(cd "$2" && pwd) || exit 2
mpi_mode=${HIER_SANITIZE_MPI:-sample}
flags="-g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
start=$SECONDS
status=0

say() { echo "check-sanitize: $*"; }

rm -rf "$work/mpi-logs"
[[ -n ${HIER_SANITIZE_REUSE:-} && -f $work/build/config.status ]] || rm -rf "$work/build"
mkdir -p "$work/build"
cd "$work/build" || exit 2
say "configure and build in $work/build ($flags)"
if [[ ! -f config.status ]] &&
   ! "$src/configure" CFLAGS="$flags" CXXFLAGS="$flags" LDFLAGS="-fsanitize=address,undefined" \
        >configure.log 2>&1; then
    tail -n 20 configure.log; say "configure failed"; exit 1
fi
if ! make -j"$(nproc)" >build.log 2>&1; then
    tail -n 30 build.log; say "build failed"; exit 1
fi
say "built in $((SECONDS - start)) s"

export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:check_initialization_order=1:strict_init_order=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

# reports FILE...: the sanitizer report lines in the files (none: empty).
reports() { grep -h -E 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: (Address|Undefined)' "$@" 2>/dev/null; }

# The counts of every check, for the last line ("sanitize: N passed, M
# failed", as contrib/run-tests.sh reads each layer's); a report adds a failure.
passed=0 failed=0

# unit (GoogleTest) and hier-inspect's checks, leaks included.
unit_start=$SECONDS
unit_filter=${HIER_SANITIZE_UNIT_FILTER:-*-Factor.RandomTopologiesUpTo256Ranks:EdgeColor.RandomTopologiesUpTo256Ranks:Lg.EveryPairOfClusterSizesUpTo40:SharedModel.LargeCommunicatorsToo:SharedModel.EveryShareGivesTheUnsharedComparisonBitForBit:ScaleModel.WhereItPicksHier:ScaleModel.DecisionsAreTheSameOnEveryCall:Hypercube.EveryCollectiveEveryEmbeddingByteExactUpTo64:Textbook.EveryPUpTo64ByteExactWithTheTextsRoundCounts:Embeddings.FigureSixInSmallRefineBeatsEff:LeafUplinks.BothModelsAgree}
say "unit tests: --gtest_filter=$unit_filter"
GTEST_FILTER=$unit_filter make -j2 -C test/unit check >unit.log 2>&1
rc=$?
grep -h -E '^\[  (PASSED|FAILED)  \]' test/unit/hier_unit_tests.log 2>/dev/null | sed 's/^/check-sanitize: unit: /'
make -C contrib/inspect check >inspect.log 2>&1 || rc=1
grep -h -E '^(PASS|FAIL): ' inspect.log | sed 's/^/check-sanitize: /'
p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\{0,1\}\..*/\1/p' test/unit/hier_unit_tests.log 2>/dev/null | tail -n1)
f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) tests\{0,1\}, listed below.*/\1/p' test/unit/hier_unit_tests.log 2>/dev/null | tail -n1)
passed=$((passed + ${p:-0} + $(grep -c '^PASS: ' inspect.log))) failed=$((failed + ${f:-0} + $(grep -c '^FAIL: ' inspect.log)))
if ((rc != 0)) || [[ -z $p$f ]] || [[ -n $(reports test/unit/hier_unit_tests.log contrib/inspect/*.log) ]]; then
    reports test/unit/hier_unit_tests.log contrib/inspect/*.log | head -n 20
    tail -n 20 unit.log
    failed=$((failed + 1))
    say "unit layer FAILED"; status=1
else
    say "unit layer clean in $((SECONDS - unit_start)) s"
fi

# MPI: the ranks under ASan and UBSan, leaks not checked (see above).
if [[ $mpi_mode != none ]]; then
    mpi_start=$SECONDS
    asan_rt=$(${CC:-gcc} -print-file-name=libasan.so)
    if [[ ! -e $asan_rt ]]; then say "no ASan runtime ($asan_rt)"; exit 1; fi
    make -C test/mpi alltoall_check coll_check alltoallv_check nbc_check >mpi-build.log 2>&1 || { tail mpi-build.log; exit 1; }
    case $mpi_mode in
        sample) args=(--rows-only --quick --one-layout) ;;
        rows) args=(--rows-only --quick) ;;
        *) args=() ;;
    esac
    HIER_COMPONENT_DIR=$PWD/ompi/mca/coll/hier/.libs HIER_INSPECT=$PWD/contrib/inspect/hier-inspect \
    HIER_BENCH=$PWD/contrib/bench/hier_bench \
    HIER_MPIRUN_ENV="LD_PRELOAD=$asan_rt ASAN_OPTIONS=abort_on_error=1:detect_leaks=0 UBSAN_OPTIONS=$UBSAN_OPTIONS" \
        bash "$src/test/mpi/run_mpi_tests.sh" "${args[@]}" --logdir "$work/mpi-logs" \
        test/mpi/alltoall_check test/mpi/coll_check test/mpi/alltoallv_check >mpi.log 2>&1
    rc=$?
    grep -E '^run_mpi_tests.sh: |^[0-9]+ passed, [0-9]+ failed$' mpi.log | sed 's/^/check-sanitize: mpi: /'
    found=$(reports "$work"/mpi-logs/*.err "$work"/mpi-logs/*.out)
    read -r p f <<<"$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' mpi.log | tail -n1)"
    passed=$((passed + ${p:-0})) failed=$((failed + ${f:-1}))
    if ((rc != 0)) || [[ -n $found ]]; then
        [[ -n $found ]] && failed=$((failed + 1))
        grep '^FAIL' mpi.log | head -n 20
        echo "$found" | head -n 20
        say "MPI layer FAILED"; status=1
    else
        say "MPI layer clean in $((SECONDS - mpi_start)) s"
    fi
fi

say "$( ((status == 0)) && echo clean || echo FAILED ) in $((SECONDS - start)) s"
echo "sanitize: $passed passed, $failed failed"
exit "$status"
