dnl -*- autoconf -*-
dnl Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
dnl SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
dnl Finding the installed Open MPI that coll/hier builds against and loads into.
dnl
dnl Substitutes HIER_OMPI_CPPFLAGS (Open MPI's public and internal headers, plus
dnl our stand-ins for the ones it lacks), HIER_OMPI_LDFLAGS, HIER_OMPI_LIBS
dnl and componentdir.

dnl HIER_OMPI_PARSABLE_PATH(NAME): what "ompi_info --path NAME" says.
m4_define([HIER_OMPI_PARSABLE_PATH],
    [`"$OMPI_INFO" --path $1 --parsable 2>/dev/null | sed -n 's/^path:$1://p'`])

dnl HIER_OMPI_FIND: locates mpicc and ompi_info (--with-ompi=PREFIX, else PATH)
dnl and derives the include and library directories from them.
AC_DEFUN([HIER_OMPI_FIND], [
    AC_ARG_WITH([ompi],
        [AS_HELP_STRING([--with-ompi=PREFIX],
            [the Open MPI installation to build against (default: the one whose mpicc is on PATH)])])
    AS_CASE([$with_ompi],
        [no], [AC_MSG_ERROR([coll/hier is an Open MPI component and cannot be built --without-ompi])],
        [yes|""], [hier_ompi_path=$PATH; hier_ompi_where="mpicc on PATH"],
        [hier_ompi_path=$with_ompi/bin; hier_ompi_where=$with_ompi])

    AC_PATH_PROG([MPICC], [mpicc], [], [$hier_ompi_path])
    AC_PATH_PROG([OMPI_INFO], [ompi_info], [], [$hier_ompi_path])

    hier_ompi_incdirs=
    hier_ompi_libdirs=
    AS_IF([test -n "$MPICC"], [
        hier_ompi_incdirs=`"$MPICC" --showme:incdirs 2>/dev/null`
        hier_ompi_libdirs=`"$MPICC" --showme:libdirs 2>/dev/null`
    ])
    dnl Internal headers (ompi/mca/...) live in Open MPI's pkgincludedir.
    AS_IF([test -n "$OMPI_INFO"],
          [hier_ompi_incdirs="$hier_ompi_incdirs HIER_OMPI_PARSABLE_PATH([pkgincludedir])"])
    AS_IF([test -z "$hier_ompi_incdirs" && test -n "$with_ompi" && test "$with_ompi" != yes], [
        hier_ompi_incdirs="$with_ompi/include $with_ompi/include/openmpi"
        hier_ompi_libdirs="$with_ompi/lib"
    ])

    HIER_OMPI_CPPFLAGS=
    hier_dirs=$hier_ompi_incdirs
    hier_ompi_incdirs=
    for hier_dir in $hier_dirs; do
        AS_CASE([" $hier_ompi_incdirs "], [*" $hier_dir "*], [], [
            hier_ompi_incdirs="${hier_ompi_incdirs:+$hier_ompi_incdirs }$hier_dir"
            HIER_OMPI_CPPFLAGS="${HIER_OMPI_CPPFLAGS:+$HIER_OMPI_CPPFLAGS }-I$hier_dir"])
    done
    HIER_OMPI_LDFLAGS=
    for hier_dir in $hier_ompi_libdirs; do
        HIER_OMPI_LDFLAGS="$HIER_OMPI_LDFLAGS -L$hier_dir -R$hier_dir"
    done
    AC_SUBST([HIER_OMPI_LDFLAGS])
])

dnl HIER_OMPI_CHECK_HEADERS: stops with one clear message when Open MPI's
dnl development headers (the internal ones a component needs) are missing.
AC_DEFUN([HIER_OMPI_CHECK_HEADERS], [
    AC_REQUIRE([HIER_OMPI_STANDINS])
    hier_save_CPPFLAGS=$CPPFLAGS
    CPPFLAGS="$CPPFLAGS $hier_ompi_check_cppflags"
    AC_MSG_CHECKING([for Open MPI's component headers (ompi/mca/coll/coll.h)])
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[
#include "ompi_config.h"
#include "ompi/mca/coll/coll.h"
]], [[mca_coll_base_module_t *module = 0; (void) module;]])],
        [AC_MSG_RESULT([yes])],
        [AC_MSG_RESULT([no])
         AC_MSG_ERROR([Open MPI development headers not found (ompi/mca/coll/coll.h): on Debian install libopenmpi-dev, or pass --with-ompi=PREFIX])])

    AC_COMPUTE_INT([hier_ompi_major], [OMPI_MAJOR_VERSION], [[#include <mpi.h>]])
    AC_COMPUTE_INT([hier_ompi_minor], [OMPI_MINOR_VERSION], [[#include <mpi.h>]])
    AC_COMPUTE_INT([hier_ompi_release], [OMPI_RELEASE_VERSION], [[#include <mpi.h>]])
    hier_ompi_version="$hier_ompi_major.$hier_ompi_minor.$hier_ompi_release"
    hier_ompi_series="$hier_ompi_major.$hier_ompi_minor"
    AC_MSG_CHECKING([which Open MPI series this is])
    AS_CASE([$hier_ompi_series],
        [4.1|5.0], [AC_MSG_RESULT([$hier_ompi_series ($hier_ompi_version)])],
        [AC_MSG_RESULT([$hier_ompi_series ($hier_ompi_version), not one coll/hier is tested with])
         AC_MSG_WARN([coll/hier is tested with Open MPI 4.1 and 5.0; found $hier_ompi_version])])
    CPPFLAGS=$hier_save_CPPFLAGS
])

dnl HIER_OMPI_CHECK_LIBS: the component links libmpi (as Open MPI's own
dnl components do, so it also loads where libmpi was opened RTLD_LOCAL) and
dnl nothing else of Open MPI's: libopen-pal's soname changes between series
dnl (.so.40 in 4.1, .so.80 in 5.0) and comes in through libmpi, so that a module
dnl loaded into the other series gets as far as its own one-line refusal.
AC_DEFUN([HIER_OMPI_CHECK_LIBS], [
    AC_REQUIRE([HIER_OMPI_STANDINS])
    HIER_OMPI_LIBS="-lmpi"
    hier_save_CPPFLAGS=$CPPFLAGS
    hier_save_LDFLAGS=$LDFLAGS
    hier_save_LIBS=$LIBS
    CPPFLAGS="$CPPFLAGS $hier_ompi_check_cppflags"
    LDFLAGS="$LDFLAGS `echo $HIER_OMPI_LDFLAGS | sed 's/-R[[^ ]]*//g'`"
    LIBS="$HIER_OMPI_LIBS -lopen-pal $LIBS"
    AC_MSG_CHECKING([for libmpi and libopen-pal])
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[
#include "ompi_config.h"
#include "opal/util/output.h"
#include <mpi.h>
]], [[MPI_Init(0, 0); return opal_output_open(0);]])],
        [AC_MSG_RESULT([yes])],
        [AC_MSG_RESULT([no])
         AC_MSG_ERROR([Open MPI libraries not found (libmpi, libopen-pal): on Debian install libopenmpi-dev, or pass --with-ompi=PREFIX])])
    CPPFLAGS=$hier_save_CPPFLAGS
    LDFLAGS=$hier_save_LDFLAGS
    LIBS=$hier_save_LIBS
    AC_SUBST([HIER_OMPI_LIBS])
])

dnl HIER_OMPI_STANDIN(HEADER, PROGRAM): when PROGRAM, which includes HEADER
dnl where this Open MPI needs it, does not compile (the installed Open MPI names
dnl the header but does not ship it), add HEADER to hier_ompi_standins, the
dnl headers config/compat stands in for.
m4_define([HIER_OMPI_STANDIN], [
    AC_MSG_CHECKING([whether Open MPI ships $1])
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[$2]], [[]])],
        [AC_MSG_RESULT([yes, or needs none])],
        [AC_MSG_RESULT([no: using coll/hier's stand-in (config/compat)])
         hier_ompi_standins="${hier_ompi_standins:+$hier_ompi_standins }$1"])
])

dnl HIER_OMPI_STANDINS: what Open MPI's installed internal headers need that
dnl the install lacks. Open MPI 5: <pmix.h>, which Debian keeps under
dnl pkg-config's pmix, and the pthreads headers opal_config.h names for its
dnl threads framework. Both series: ompi/mpi/fortran/base/fint_2_int.h, which
dnl ompi/op/op.h includes and Debian does not ship.
AC_DEFUN([HIER_OMPI_STANDINS], [
    AC_REQUIRE([HIER_OMPI_FIND])
    AC_REQUIRE([PKG_PROG_PKG_CONFIG])
    hier_ompi_standins=
    hier_save_CPPFLAGS=$CPPFLAGS
    CPPFLAGS="$CPPFLAGS $HIER_OMPI_CPPFLAGS"
    AC_MSG_CHECKING([whether Open MPI's headers need pkg-config's pmix flags])
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[
#include "opal_config.h"
#if OPAL_MAJOR_VERSION >= 5
#include <pmix.h>
#endif
]], [[]])],
        [AC_MSG_RESULT([no])],
        [hier_pmix_cflags=`$PKG_CONFIG --cflags pmix 2>/dev/null`
         AC_MSG_RESULT([yes: $hier_pmix_cflags])
         CPPFLAGS="$CPPFLAGS $hier_pmix_cflags"
         HIER_OMPI_CPPFLAGS="$HIER_OMPI_CPPFLAGS $hier_pmix_cflags"])
    HIER_OMPI_STANDIN([opal/mca/threads/pthreads/threads_pthreads_mutex.h], [#include "opal_config.h"
#if defined(MCA_threads_mutex_base_include_HEADER)
#include MCA_threads_mutex_base_include_HEADER
#endif])
    AS_CASE([$hier_ompi_standins], [*threads_pthreads_mutex*], [
        hier_ompi_standins="$hier_ompi_standins opal/mca/threads/pthreads/threads_pthreads_threads.h opal/mca/threads/pthreads/threads_pthreads_tsd.h"])
    HIER_OMPI_STANDIN([ompi/mpi/fortran/base/fint_2_int.h], [#include "ompi_config.h"
#include "ompi/mpi/fortran/base/fint_2_int.h"])
    dnl hier_ompi_check_cppflags: the same for configure's own checks.
    hier_ompi_check_cppflags=$HIER_OMPI_CPPFLAGS
    AS_IF([test -n "$hier_ompi_standins"],
          [HIER_OMPI_CPPFLAGS="$HIER_OMPI_CPPFLAGS -I\$(top_srcdir)/config/compat"
           hier_ompi_check_cppflags="$hier_ompi_check_cppflags -I$srcdir/config/compat"])
    CPPFLAGS=$hier_save_CPPFLAGS
    AC_SUBST([HIER_OMPI_CPPFLAGS])
])

dnl HIER_OMPI_CHECK_OP: ompi/op/op.h (the reductions' operators) compiles.
AC_DEFUN([HIER_OMPI_CHECK_OP], [
    AC_REQUIRE([HIER_OMPI_CHECK_HEADERS])
    hier_save_CPPFLAGS=$CPPFLAGS
    CPPFLAGS="$CPPFLAGS $hier_ompi_check_cppflags"
    AC_MSG_CHECKING([whether ompi/op/op.h compiles])
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[
#include "ompi_config.h"
#include "ompi/op/op.h"
]], [[ompi_op_t *op = 0; (void) op;]])],
        [AC_MSG_RESULT([yes])],
        [AC_MSG_RESULT([no])
         AC_MSG_ERROR([ompi/op/op.h from Open MPI $hier_ompi_version does not compile; see config.log])])
    CPPFLAGS=$hier_save_CPPFLAGS
])

dnl HIER_OMPI_COMPONENT_DIR: where "make install" puts mca_coll_hier.so. By
dnl default Open MPI's own component directory, so Open MPI finds it without
dnl extra flags; --with-component-dir=$HOME/.openmpi/components (also searched
dnl by Open MPI 4.1) needs no root. "make install componentdir=DIR" overrides.
AC_DEFUN([HIER_OMPI_COMPONENT_DIR], [
    AC_REQUIRE([HIER_OMPI_FIND])
    AC_ARG_WITH([component-dir],
        [AS_HELP_STRING([--with-component-dir=DIR],
            [install mca_coll_hier.so in DIR (default: Open MPI's component directory, ompi_info --path pkglibdir; without root use $HOME/.openmpi/components, which Open MPI also searches)])])
    AC_MSG_CHECKING([where to install mca_coll_hier.so])
    AS_CASE([$with_component_dir],
        [yes|no|""], [componentdir=
                      AS_IF([test -n "$OMPI_INFO"], [componentdir=HIER_OMPI_PARSABLE_PATH([pkglibdir])])],
        [componentdir=$with_component_dir])
    AS_IF([test -z "$componentdir"], [
        AC_MSG_RESULT([unknown])
        AC_MSG_ERROR([cannot tell where Open MPI loads components from (no ompi_info): pass --with-component-dir=DIR])])
    AC_MSG_RESULT([$componentdir])
    AC_SUBST([componentdir])
])

dnl HIER_EXPORT_ONLY_COMPONENT: substitutes HIER_EXPORT_LDFLAGS, the flag that
dnl makes the module export only mca_coll_hier_component (a linker version
dnl script; libtool's -export-symbols-regex does not hide dynamic symbols
dnl with GNU ld). Empty when the linker has no version scripts.
AC_DEFUN([HIER_EXPORT_ONLY_COMPONENT], [
    AC_MSG_CHECKING([whether the linker accepts version scripts])
    hier_save_LDFLAGS=$LDFLAGS
    printf '{ global: main; local: *; };\n' > conftest.map
    LDFLAGS="$LDFLAGS -Wl,--version-script=conftest.map"
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[]], [[]])],
        [AC_MSG_RESULT([yes])
         HIER_EXPORT_LDFLAGS='-Wl,--version-script=$(srcdir)/coll_hier.map'],
        [AC_MSG_RESULT([no])
         HIER_EXPORT_LDFLAGS=])
    rm -f conftest.map
    LDFLAGS=$hier_save_LDFLAGS
    AC_SUBST([HIER_EXPORT_LDFLAGS])
])
