#!/usr/bin/env bash
# Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Sets up a fresh Debian 12 machine for coll/hier: installs what the build and
# the tests need, then builds the component and installs it into Open MPI's
# component directory (or, with COMPONENT_DIR=..., wherever you say, e.g.
# ~/.openmpi/components for a user without root).
#
#   contrib/setup-debian.sh            # packages, build, install
#   SKIP_INSTALL=1 contrib/setup-debian.sh   # packages and build only
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential autoconf automake libtool pkg-config
          libopenmpi-dev openmpi-bin libgtest-dev
          # the fuzz targets of the cost-file and rules-file parsers (libFuzzer)
          clang libclang-rt-dev
          # the emulated cluster, its delay line and the benchmark's plots
          iproute2 iptables libnetfilter-queue-dev iputils-ping iperf3 python3 gnuplot-nox
          # hier's schedules at thousands of simulated ranks (contrib/simgrid)
          libsimgrid-dev)

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    as_root apt-get update -q
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi

if [ ! -f Makefile ]; then
    ./autogen.sh
    ./configure ${COMPONENT_DIR:+--with-component-dir="$COMPONENT_DIR"}
fi
make -j"$(nproc)"
if [ -z "${SKIP_INSTALL:-}" ]; then
    if [ -n "${COMPONENT_DIR:-}" ] || [ -w "$(sed -n 's/^componentdir = //p' ompi/mca/coll/hier/Makefile)" ]; then
        make install
    else
        as_root make install
    fi
fi
echo "setup: done; try: ompi_info --param coll hier --level 9"
