#!/usr/bin/env bash
# Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# fig6.sh: Figueira and Janapa Reddi's Fig. 6 with hier's embeddings. For
# pair costs drawn from 1..5 and from 1..20 (the paper's two panels), the
# average gain of each embedding's calc_cost over the blind embedding's on
# TOPOLOGIES random topologies per size 8, 16, ..., 1024; data and a plot
# (gnuplot) in OUTDIR. Single-threaded; 1000 topologies take tens of
# minutes, most of them at 1024.
#
# usage: contrib/inspect/fig6.sh [TOPOLOGIES [OUTDIR]]     (defaults: 1000, docs)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
topologies=${1:-1000}
outdir=${2:-$here/../../docs}
tool=${HIER_INSPECT:-$here/hier-inspect}
[[ -x $tool ]] || { echo "fig6.sh: no $tool; run make first" >&2; exit 2; }
mkdir -p "$outdir"
for max in 5 20; do
    "$tool" embed-gains --topologies "$topologies" --max "$max" --seed 2004 | tee "$outdir/hypercube-fig6-max$max.dat"
done
if ! command -v gnuplot >/dev/null; then
    echo "fig6.sh: no gnuplot; data in $outdir/hypercube-fig6-max{5,20}.dat" >&2
    exit 0
fi
gnuplot <<GNUPLOT
set terminal pngcairo size 1100,420 font "sans,10"
set output "$outdir/hypercube-fig6.png"
set multiplot layout 1,2
set logscale x 2
set xrange [6:1300]
set yrange [-5:70]
set xlabel "nodes"
set ylabel "average gain over blind (%)"
set key top center horizontal
set grid
do for [max in "5 20"] {
    set title sprintf("pair costs 1..%s, %s random topologies per size", max, "$topologies")
    plot sprintf("$outdir/hypercube-fig6-max%s.dat", max) using 1:2 with linespoints title "Dim2\\\\_Cube", \
         "" using 1:3 with linespoints title "TSTS\\\\_Cube", \
         "" using 1:4 with linespoints title "Eff\\\\_Cube", \
         "" using 1:5 with linespoints lw 2 title "refine (ours)"
}
unset multiplot
GNUPLOT
echo "fig6.sh: $outdir/hypercube-fig6.png"
