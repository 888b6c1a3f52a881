#!/bin/sh
# Regenerates configure and the Makefile.in files (needs autoconf, automake
# and libtool). Then: ./configure && make && make install
set -e
cd "$(dirname "$0")"
autoreconf -fi
