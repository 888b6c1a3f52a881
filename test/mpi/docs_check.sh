#!/usr/bin/env bash
# Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# docs_check.sh: the user documentation against the component built in this
# tree. Checks
#   - that README.md has at most 150 lines (the rest belongs in docs/);
#   - that every parameter `ompi_info --param coll hier --level 9` lists has a
#     row "| `NAME` | DEFAULT | FORM |" in docs/parameters.md, whose DEFAULT
#     is the value ompi_info shows ("empty" for the empty string), and whose
#     FORM names every value an enum parameter accepts;
#   - that every parameter row of docs/parameters.md is one ompi_info lists;
#   - that every relative link of README.md and docs/*.md names a file that
#     exists;
#   - that docs/architecture.md's map names every source file of the
#     component (FILE, or STEM.* for a .cc and its .h), and that
#     docs/architecture.svg was drawn from docs/architecture.dot as it is
#     (make docs notes the .dot's checksum in the SVG).
# The last line of output is "docs-check: N passed, M failed"; the exit code is
# nonzero if anything failed.
#
# usage: docs_check.sh [TOP_SRCDIR]   (default: two levels above this script)
# environment:
#   HIER_COMPONENT_DIR  directory holding an uninstalled mca_coll_hier.so; put
#                       first on the component path (else the installed one)
#   OMPI_INFO           ompi_info command (default: ompi_info)
set -uo pipefail

top=${1:-${top_srcdir:-$(dirname "$0")/../..}}
readme=$top/README.md
params_doc=$top/docs/parameters.md
readonly README_MAX_LINES=150
if [[ ! -e $readme && ! -d $top/docs ]]; then
    echo "SKIP: no README.md or docs/ under $top (a distribution without them)"
    exit 77
fi
OMPI_INFO=${OMPI_INFO:-ompi_info}
passed=0 failed=0
pass() { passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

# ------------------------------------------------------------------ README

lines=$(wc -l <"$readme")
if ((lines <= README_MAX_LINES)); then pass; else
    fail "README.md has $lines lines, more than $README_MAX_LINES: move the detail into docs/ and link it"
fi

# ------------------------------------------------- parameters against ompi_info

# ompi_info's --mca option does not reach the component search: the path goes
# in the environment (as in contrib/mpirun-local.sh, but for ompi_info).
if [[ -n ${HIER_COMPONENT_DIR:-} ]]; then
    pkglibdir=$("$OMPI_INFO" --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p')
    export OMPI_MCA_mca_base_component_path="$HIER_COMPONENT_DIR:$pkglibdir"
fi
info=$("$OMPI_INFO" --param coll hier --level 9 --parsable 2>&1)
# "mca:coll:hier:param:NAME:value:VALUE" -> "NAME VALUE"
shown=$(sed -n 's/^mca:coll:hier:param:\(coll_hier_[a-z0-9_]*\):value:\(.*\)$/\1 \2/p' <<<"$info")
if [[ -z $shown ]]; then
    fail "ompi_info lists no coll_hier parameter (did the component load? HIER_COMPONENT_DIR=${HIER_COMPONENT_DIR:-unset}):"
    sed 's/^/    /' <<<"$info" | head -n 20
fi

# The table rows of docs/parameters.md: "NAME|DEFAULT|FORM", backticks gone.
rows=$(sed -n 's/^| `\(coll_hier_[a-z0-9_]*\)` | \([^|]*\) | \(.*\) |$/\1|\2|\3/p' "$params_doc" |
    sed 's/`//g; s/ *| */|/g')

while read -r name value; do
    [[ -n $name ]] || continue
    row=$(grep -m1 "^$name|" <<<"$rows")
    if [[ -z $row ]]; then
        fail "$name: ompi_info lists it, docs/parameters.md has no row | \`$name\` | DEFAULT | FORM |"
        continue
    fi
    IFS='|' read -r _ documented form <<<"$row"
    [[ $documented == empty ]] && documented=""
    if [[ $documented == "$value" ]]; then pass; else
        fail "$name: docs/parameters.md gives the default \"$documented\", ompi_info shows \"$value\""
    fi
    # an enum: every value it accepts must be named in the form
    missing=""
    while read -r word; do
        [[ -n $word ]] || continue
        grep -qE "(^|[ ,:;(])$word([ ,;)]|$)" <<<"$form" || missing+=" $word"
    done < <(sed -n "s/^mca:coll:hier:param:$name:enumerator:value:[0-9]*:\(.*\)$/\1/p" <<<"$info")
    if [[ -z $missing ]]; then pass; else
        fail "$name: docs/parameters.md's form does not name the values:$missing"
    fi
done <<<"$shown"

# every documented parameter exists
while IFS='|' read -r name _; do
    [[ -n $name ]] || continue
    if grep -q "^$name " <<<"$shown"; then pass; else
        fail "$name: docs/parameters.md has a row for it, ompi_info lists no such parameter"
    fi
done <<<"$rows"

# ------------------------------------------------------------------ links

for doc in "$readme" "$top"/docs/*.md; do
    dir=$(dirname "$doc")
    # [text](target): targets without a scheme, anchors cut off
    while read -r target; do
        file=${target%%#*}
        [[ -z $file ]] && continue
        if [[ -e $dir/$file ]]; then pass; else
            fail "${doc#"$top"/}: the link ($target) names no file"
        fi
    done < <(grep -oE '\]\([^)]+\)' "$doc" | sed 's/^](\(.*\))$/\1/' | grep -vE '^[a-z]+:')
done

# ------------------------------------------------------- the architecture map

architecture=$top/docs/architecture.md
for source in "$top"/ompi/mca/coll/hier/*.[ch] "$top"/ompi/mca/coll/hier/core/*.cc \
    "$top"/ompi/mca/coll/hier/core/*.h; do
    [[ -e $source ]] || continue
    base=$(basename "$source") stem=${base%.*}
    if grep -qE "(^|[^A-Za-z0-9_])(${base//./\\.}|${stem}\.\*)([^A-Za-z0-9_]|$)" "$architecture"; then pass; else
        fail "docs/architecture.md's map (Where things are) does not name ${source#"$top"/}: add it with its job"
    fi
done
if [[ -e $top/docs/architecture.dot ]]; then
    sum=$(sha256sum <"$top/docs/architecture.dot" | cut -c1-64)
    if grep -q "<!-- drawn from architecture.dot $sum -->" "$top/docs/architecture.svg" 2>/dev/null; then pass; else
        fail "docs/architecture.svg was not drawn from today's docs/architecture.dot: run make docs"
    fi
fi

echo "docs-check: $passed passed, $failed failed"
((failed == 0))
