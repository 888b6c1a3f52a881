dnl -*- autoconf -*-
dnl Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
dnl SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
dnl
dnl coll/hier inside an Open MPI source tree (docs/intree.md): Open MPI's
dnl autogen.pl finds this file and puts it into the tree's configure.
dnl The out-of-tree build (this repository's configure.ac and config/*.m4)
dnl does not read it. Both builds use the same Makefile.am files, so this file
dnl substitutes the same variables that configure.ac does out of tree:
dnl
dnl   HIER_CXXFLAGS         the C++17 flag for the core (core/Makefile.am)
dnl   HIER_OMPI_CPPFLAGS    empty: the tree's CPPFLAGS already name its headers
dnl   HIER_OMPI_LDFLAGS     empty
dnl   HIER_OMPI_LIBS        the tree's libmpi.la, as Open MPI's own DSO
dnl                         components link it
dnl   HIER_EXPORT_LDFLAGS   the version script coll_hier.map, when the linker
dnl                         takes one
dnl   HIER_{MAJOR,MINOR,RELEASE}_VERSION  coll/hier's own version
dnl   componentdir          $(ompilibdir), where the tree installs its components

dnl The version ompi_info reports for coll/hier (major, minor, release). Keep
dnl in step with AC_INIT in the top-level configure.ac.
m4_define([coll_hier_m4_major_version], [0])
m4_define([coll_hier_m4_minor_version], [1])
m4_define([coll_hier_m4_release_version], [0])

dnl MCA_ompi_coll_hier_COMPILE_MODE(project, framework, component, variable):
dnl always a DSO (mca_coll_hier.so), whatever --enable-mca-static or the
dnl series' default (5.0 builds components into libmpi unless told otherwise)
dnl asks. The core is C++: linked into libmpi it would need the C++ runtime
dnl in every program linked with libmpi, and ompi_info's link already fails.
dnl
dnl How the answer is read differs between Open MPI versions: 4.1 (and a
dnl literal reading in general) takes the value assigned to $4, while 5.0.x
dnl (5.0.7's opal_mca.m4: AS_VAR_COPY of $component_compile_mode_tmp) takes
dnl the value of the shell variable NAMED by that value. Answering "dso" and
dnl giving the shell variable dso the value "dso" makes both readings "dso".
AC_DEFUN([MCA_ompi_coll_hier_COMPILE_MODE], [
    AC_MSG_CHECKING([for MCA component $2:$3 compile mode])
    dso=dso
    $4=dso
    AC_MSG_RESULT([dso (always: its core is C++17)])
])

dnl MCA_ompi_coll_hier_CONFIG([action-if-can-build], [action-if-cannot-build])
AC_DEFUN([MCA_ompi_coll_hier_CONFIG], [
    AC_CONFIG_FILES([ompi/mca/coll/hier/Makefile ompi/mca/coll/hier/core/Makefile])

    OPAL_VAR_SCOPE_PUSH([coll_hier_happy coll_hier_save_CXXFLAGS coll_hier_save_LDFLAGS coll_hier_export_ldflags])
    coll_hier_happy=yes

    dnl The core needs a C++17 compiler. Open MPI's configure looks for a
    dnl C++ compiler (for mpicxx) and sets CXX=no when it finds none.
    AC_MSG_CHECKING([whether $CXX accepts -std=c++17 (coll/hier's core)])
    AS_IF([test -z "$CXX" || test "$CXX" = no],
          [AC_MSG_RESULT([no C++ compiler])
           coll_hier_happy=no],
          [AC_LANG_PUSH([C++])
           coll_hier_save_CXXFLAGS=$CXXFLAGS
           CXXFLAGS="$CXXFLAGS -std=c++17"
           AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[
#include <optional>
#include <string_view>
#include <tuple>
template <typename T> constexpr int kind() { if constexpr (sizeof(T) > 1) return 2; else return 1; }
]], [[
    std::optional<std::string_view> word{"hier"};
    auto [a, b] = std::make_tuple(kind<char>(), kind<long>());
    return word->size() == 4 && a == 1 && b == 2 ? 0 : 1;
]])],
               [AC_MSG_RESULT([yes])],
               [AC_MSG_RESULT([no])
                coll_hier_happy=no])
           CXXFLAGS=$coll_hier_save_CXXFLAGS
           AC_LANG_POP([C++])])
    AS_IF([test "$coll_hier_happy" = no],
          [AC_MSG_WARN([coll/hier needs a C++17 compiler (on Debian: g++); coll/hier will not be built])])

    dnl Export only mca_coll_hier_component, as out of tree.
    AC_MSG_CHECKING([whether the linker accepts version scripts (coll/hier)])
    coll_hier_save_LDFLAGS=$LDFLAGS
    printf '{ global: main; local: *; };\n' > conftest.map
    LDFLAGS="$LDFLAGS -Wl,--version-script=conftest.map"
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[]], [[]])],
        [AC_MSG_RESULT([yes])
         coll_hier_export_ldflags='-Wl,--version-script=$(srcdir)/coll_hier.map'],
        [AC_MSG_RESULT([no])
         coll_hier_export_ldflags=])
    rm -f conftest.map
    LDFLAGS=$coll_hier_save_LDFLAGS

    AC_SUBST([HIER_CXXFLAGS], [-std=c++17])
    AC_SUBST([HIER_OMPI_CPPFLAGS], [])
    AC_SUBST([HIER_OMPI_LDFLAGS], [])
    AC_SUBST([HIER_OMPI_LIBS], ['$(top_builddir)/ompi/lib$(OMPI_LIBMPI_NAME).la'])
    AC_SUBST([HIER_EXPORT_LDFLAGS], [$coll_hier_export_ldflags])
    AC_SUBST([HIER_MAJOR_VERSION], [coll_hier_m4_major_version])
    AC_SUBST([HIER_MINOR_VERSION], [coll_hier_m4_minor_version])
    AC_SUBST([HIER_RELEASE_VERSION], [coll_hier_m4_release_version])
    AC_SUBST([componentdir], ['$(ompilibdir)'])

    AS_IF([test "$coll_hier_happy" = yes], [$1], [$2])
    OPAL_VAR_SCOPE_POP
])
