# Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Sourced by the scripts that start MPI jobs on this host: hier_mpirun runs
# mpirun with what every run here needs.
# - as root, --allow-run-as-root;
# - more ranks than cores: --oversubscribe, and mpi_yield_when_idle 1, or busy
#   polling makes every timing meaningless;
# - HIER_COMPONENT_DIR=DIR: load hier from DIR (an uninstalled build) before
#   the installed components.

# The series of the Open MPI on PATH: 4.1, 5.0, ...
hier_ompi_series() {
    ompi_info --version 2>/dev/null | sed -n '1s/^Open MPI v\([0-9]*\.[0-9]*\).*/\1/p'
}

# How a benchmark asks for hier so that its fallback is Open MPI's own
# selection: under 4.1 the coll list hier recommends (tuned decides beneath
# it); under 5.0 a priority above everything else and no list, so that han,
# which 5.0 selects for barrier, allreduce, allgather, scatter and gather on
# several nodes, stays beneath hier (the recommended list would leave it out).
hier_selection_args() {
    case "$(hier_ompi_series)" in
        4.*) echo "--mca coll hier,tuned,libnbc,basic,inter,self" ;;
        *) echo "--mca coll_hier_priority 90" ;;
    esac
}

hier_pkglibdir() {
    ompi_info --path pkglibdir --parsable | sed -n 's/^path:pkglibdir://p'
}

hier_mpirun() {
    local flags=(--oversubscribe --mca mpi_yield_when_idle 1)
    [ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)
    if [ -n "${HIER_COMPONENT_DIR:-}" ]; then
        flags+=(--mca mca_base_component_path "$HIER_COMPONENT_DIR:$(hier_pkglibdir)")
    fi
    mpirun "${flags[@]}" "$@"
}
