#!/usr/bin/env bash
# Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# intree-ompi5.sh: builds coll/hier inside an Open MPI 5.0.x source tree (the
# in-tree build, docs/intree.md) and checks the result.
#
#   contrib/intree-ompi5.sh [--fresh] [WORKDIR]      (default /var/tmp/hier-intree)
#   contrib/intree-ompi5.sh --glue-hash               the in-tree build glue's hash
#
# It takes about 17 minutes here, so only `contrib/run-tests.sh --full` runs
# it; the default run checks that the glue it builds (configure.m4, the two
# Makefile.am, coll_hier.map; comment lines left out) is the one it last
# passed with: a passing run writes the glue's hash into
# contrib/intree-ompi5.checked, which is committed with the glue.
#
# Phases, each timed:
#   fetch      Open MPI 5.0.x's source from Debian 13 (trixie): "apt-get source
#              openmpi/trixie" with a deb-src entry for trixie only (no "deb"
#              entry: apt never offers trixie's binaries to this system), into
#              WORKDIR/src. A source already there is reused (--fresh unpacks
#              the downloaded one again). Debian's libdir.patch (components in
#              lib/openmpi40) is reverted, so the tree installs like upstream's.
#   copy       ompi/mca/coll/hier of this checkout (sources only, none of an
#              out-of-tree build's products) into the tree
#   autogen    the tree's ./autogen.pl --force (it is a release tarball's)
#   configure  ./configure --prefix=WORKDIR/install, without Fortran, OpenSHMEM
#              and ROMIO (time), internal PMIx and PRRTE (Debian 12 has no
#              PRRTE), Debian's hwloc and libevent
#   make       make -j2 (HIER_INTREE_JOBS overrides)
#   install    make install into an emptied WORKDIR/install
#   check      the install's ompi_info lists "MCA coll: hier"; mca_coll_hier.so
#              is a DSO in its lib/openmpi and nothing of hier is in libmpi;
#              test/mpi/alltoall_check, built with its mpicc, passes on 4 ranks
#              (node map 2,2) with hier's factor and pairwise alltoalls, and
#              hier's verbose line names the algorithm
# The last line is "intree-ompi5: N passed, M failed"; the exit code is
# nonzero if a phase or a check failed. Logs: WORKDIR/logs/PHASE.log.
# Needs root for apt (sudo is used when not root) and about 3 GB in WORKDIR.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
glue_hash() {
    (cd "$top/ompi/mca/coll/hier" && cat configure.m4 Makefile.am core/Makefile.am coll_hier.map) |
        grep -vE '^[[:space:]]*(#|dnl)' | sha256sum | cut -c1-16
}
fresh=0
while (($#)); do
    case "$1" in
        --glue-hash) glue_hash; exit 0 ;;
        --fresh) fresh=1 ;;
        -h|--help) sed -n '4,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "intree-ompi5: unknown option $1" >&2; exit 2 ;;
        *) break ;;
    esac
    shift
done
work=${1:-/var/tmp/hier-intree}
mkdir -p "$work/src" "$work/logs"
work=$(cd "$work" && pwd)
prefix=$work/install
logs=$work/logs
jobs=${HIER_INTREE_JOBS:-2}
readonly suite=trixie
readonly sources_file=/etc/apt/sources.list.d/coll-hier-trixie-src.sources

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

say() { echo "intree-ompi5: $*"; }

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "PASS: $1"; }
fail() { failed=$((failed + 1)); echo "FAIL: $1"; }
finish() {
    echo
    say "phase times: $(IFS=,; echo "${times[*]}" | sed 's/,/, /g')"
    ((failed == 0)) && glue_hash >"$top/contrib/intree-ompi5.checked"
    say "$passed passed, $failed failed"
    ((failed == 0))
    exit $?
}

# phase NAME CMD...: runs CMD with its output in $logs/NAME.log, prints the
# time it took; on failure shows the log's tail, counts a failure and stops.
times=()
phase() {
    local name=$1 start=$SECONDS rc; shift
    say "$name ..."
    # In a subshell with errexit on (a function called as "f || ..." would
    # run with errexit off).
    set +e
    (set -e; "$@") >"$logs/$name.log" 2>&1
    rc=$?
    set -e
    local took=$((SECONDS - start))
    times+=("$name $(printf '%d:%02d' $((took / 60)) $((took % 60)))")
    if ((rc != 0)); then
        tail -n 40 "$logs/$name.log" | sed 's/^/  | /'
        fail "$name (exit $rc, log $logs/$name.log)"
        finish
    fi
    say "$name took ${took} s"
}

# ------------------------------------------------------------------ fetch

fetch() {
    local need=()
    command -v dpkg-source >/dev/null || need+=(dpkg-dev)
    command -v autoconf >/dev/null || need+=(autoconf)
    command -v automake >/dev/null || need+=(automake)
    command -v libtoolize >/dev/null || need+=(libtool)
    command -v flex >/dev/null || need+=(flex)
    command -v g++ >/dev/null || need+=(g++)
    command -v make >/dev/null || need+=(make)
    command -v patch >/dev/null || need+=(patch)
    dpkg -s libevent-dev >/dev/null 2>&1 || need+=(libevent-dev)
    dpkg -s libhwloc-dev >/dev/null 2>&1 || need+=(libhwloc-dev)
    dpkg -s zlib1g-dev >/dev/null 2>&1 || need+=(zlib1g-dev)
    if ((${#need[@]})); then
        echo "installing ${need[*]}"
        $SUDO apt-get update -q
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${need[@]}"
    fi

    local tree
    tree=$(ls -d "$work"/src/openmpi-5.0.*/ 2>/dev/null | head -n1 || true)
    if [ -n "$tree" ] && [ -f "$tree/.hier-intree-unpacked" ] && ((!fresh)); then
        echo "reusing $tree"
        return 0
    fi
    local dsc
    dsc=$(ls "$work"/src/openmpi_5.0.*.dsc 2>/dev/null | head -n1 || true)
    if [ -z "$dsc" ]; then
        # Source entries only: without a "deb" line for trixie, apt has no
        # trixie binaries to install or upgrade to.
        if [ ! -f "$sources_file" ]; then
            $SUDO tee "$sources_file" >/dev/null <<EOF
# coll/hier contrib/intree-ompi5.sh: Debian 13's source packages only (no
# "deb" entry, so apt never offers trixie's binaries to this system).
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $suite
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
        fi
        # Only this entry's index: the system's other lists stay as they are.
        $SUDO apt-get update -q -o Dir::Etc::sourcelist="$sources_file" \
            -o Dir::Etc::sourceparts=- -o APT::Get::List-Cleanup=0
        (cd "$work/src" && apt-get source -q --download-only "openmpi/$suite")
        dsc=$(ls "$work"/src/openmpi_5.0.*.dsc | head -n1)
    else
        echo "reusing the download $dsc"
    fi
    local version
    version=$(sed -n 's/^Version: *\([0-9.]*\).*/\1/p' "$dsc")
    tree=$work/src/openmpi-$version
    rm -rf "$tree"
    # Unpacking applies Debian's patches.
    (cd "$work/src" && dpkg-source -x "$dsc" "openmpi-$version")
    # Debian puts the components in lib/openmpi40 (so that its 4.x and 5.x
    # packages do not collide); an upstream tree uses lib/openmpi.
    if [ -f "$tree/debian/patches/libdir.patch" ]; then
        (cd "$tree" && patch -R -p1 <debian/patches/libdir.patch)
    fi
    touch "$tree/.hier-intree-unpacked"
}

# ------------------------------------------------------------------- copy

copy_hier() {
    local dest=$tree/ompi/mca/coll/hier
    rm -rf "$dest"
    mkdir -p "$dest"
    # Sources only: an out-of-tree build in this checkout leaves Makefiles,
    # objects and libraries in the same directory.
    if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
        (cd "$top" && git ls-files -co --exclude-standard -- ompi/mca/coll/hier) |
            sed 's|^ompi/mca/coll/hier/||' >"$work/hier-files"
    else
        (cd "$top/ompi/mca/coll/hier" &&
         find . -type f \( -name '*.c' -o -name '*.cc' -o -name '*.h' -o -name '*.map' \
                -o -name Makefile.am -o -name configure.m4 \)) >"$work/hier-files"
    fi
    tar -C "$top/ompi/mca/coll/hier" -cf - -T "$work/hier-files" | tar -C "$dest" -xf -
    find "$dest" -type f | sort
    [ -f "$dest/configure.m4" ] && [ -f "$dest/Makefile.am" ] && [ -f "$dest/core/Makefile.am" ]
}

# ------------------------------------------------------------------ build

do_configure() {
    cd "$tree"
    ./configure --prefix="$prefix" \
        --disable-mpi-fortran --disable-oshmem --disable-io-romio \
        --with-pmix=internal --with-prrte=internal \
        --with-hwloc=external --with-libevent=external \
        --disable-dependency-tracking
}

# ------------------------------------------------------------------ check

check() {
    local libdir=$prefix/lib so out
    export PATH=$prefix/bin:$PATH
    export LD_LIBRARY_PATH=$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

    out=$(ompi_info 2>&1 || true)
    if grep -E '^ *MCA coll: hier ' <<<"$out"; then
        pass "ompi_info lists MCA coll: hier"
    else
        fail "ompi_info does not list MCA coll: hier"
    fi

    so=$(ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')/mca_coll_hier.so
    if [[ $so != "$libdir/openmpi/mca_coll_hier.so" ]]; then
        fail "ompi_info's component directory is not $libdir/openmpi: ${so%/*}"
    elif [ ! -f "$so" ]; then
        fail "no $so"
    elif ! file -L "$so" | grep -q 'ELF.*shared object'; then
        fail "$so is not a shared object: $(file -L "$so")"
    else
        pass "$so is a DSO: $(file -L "$so" | cut -d: -f2 | cut -d, -f1-2)"
    fi
    if nm -D "$libdir/libmpi.so" | grep -q 'mca_coll_hier'; then
        fail "libmpi.so has hier's symbols (a static component)"
    elif ldd "$libdir/libmpi.so" | grep -q 'libstdc++'; then
        fail "libmpi.so needs libstdc++ (hier linked into it?)"
    else
        pass "libmpi.so has nothing of hier (no mca_coll_hier symbol, no libstdc++)"
    fi
    if nm -D --defined-only "$so" | awk '{print $3}' | grep -vx 'mca_coll_hier_component' | grep -q .; then
        fail "$so exports more than mca_coll_hier_component"
    else
        pass "$so exports only mca_coll_hier_component"
    fi

    local bin=$work/alltoall_check
    if ! mpicc -O2 -I"$top/test/mpi" -o "$bin" "$top/test/mpi/alltoall_check.c"; then
        fail "mpicc $top/test/mpi/alltoall_check.c"
        return 0
    fi
    local algorithm log rc
    for algorithm in factor pairwise; do
        log=$logs/smoke-$algorithm
        rc=0
        timeout -k 10 300 mpirun --allow-run-as-root --oversubscribe -np 4 \
            --mca mpi_yield_when_idle 1 \
            --mca coll hier,tuned,libnbc,basic,inter,self --mca coll_hier_verbose 1 \
            --mca coll_hier_node_map 2,2 --mca coll_hier_alltoall_algorithm "$algorithm" \
            "$bin" >"$log.out" 2>"$log.err" || rc=$?
        local summary verbose
        summary=$(grep -E '^alltoall_check: [0-9]+ passed, [0-9]+ failed$' "$log.out" || true)
        verbose=$(cat "$log.out" "$log.err" | grep -F 'coll:hier: alltoall on MPI_COMM_WORLD (' || true)
        echo "$summary"
        echo "$verbose"
        if ((rc != 0)) || [[ -z $summary || $summary != *" 0 failed" ]]; then
            fail "alltoall_check, 4 ranks, $algorithm: exit $rc, ${summary:-no summary line} (log $log.*)"
            tail -n 15 "$log.out" "$log.err" | sed 's/^/  | /'
        elif [[ $verbose != *"(size 4, 2 nodes): $algorithm"* ]]; then
            fail "alltoall_check, 4 ranks, $algorithm: hier's verbose line does not name $algorithm: ${verbose:-none}"
        else
            pass "alltoall_check, 4 ranks, node map 2,2, $algorithm: ${summary#alltoall_check: }; ${verbose##*coll:hier: }"
        fi
    done
}

say "work directory $work; logs in $logs"
phase fetch fetch
tree=$(ls -d "$work"/src/openmpi-5.0.*/ | head -n1)
tree=${tree%/}
say "Open MPI source tree $tree"
phase copy copy_hier
# --force: a release tarball's tree (Debian's source is one) refuses without it.
phase autogen sh -c "cd '$tree' && ./autogen.pl --force"
phase configure do_configure
# What configure printed for hier: its section of the coll framework.
awk '/^--- MCA component coll:hier /{on=1; print; next} on && /^--- /{exit} on' \
    "$logs/configure.log" | sed 's/^/  | /'
phase make make -C "$tree" -j"$jobs"
# The install directory is this script's own: empty it, so that the checks
# see only this build.
phase install sh -c "rm -rf '$prefix' && make -C '$tree' install"
start=$SECONDS
say "check ..."
check 2>&1 | tee "$logs/check.log" || true
# the counters were set in a pipeline's subshell: count its lines
passed=$(grep -c '^PASS: ' "$logs/check.log" || true)
failed=$(grep -c '^FAIL: ' "$logs/check.log" || true)
took=$((SECONDS - start))
times+=("check $(printf '%d:%02d' $((took / 60)) $((took % 60)))")
finish
