#!/bin/sh
# Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Regenerates configure and the Makefile.in files (needs autoconf, automake
# and libtool). Then: ./configure && make && make install
set -e
cd "$(dirname "$0")"
autoreconf -fi
