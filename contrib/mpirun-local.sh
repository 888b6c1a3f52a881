# Sourced by the scripts that start MPI jobs on this host: hier_mpirun runs
# mpirun with what every run here needs.
# - as root, --allow-run-as-root;
# - more ranks than cores: --oversubscribe, and mpi_yield_when_idle 1, or busy
#   polling makes every timing meaningless;
# - HIER_COMPONENT_DIR=DIR: load hier from DIR (an uninstalled build) before
#   the installed components.

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
