dnl -*- autoconf -*-
dnl Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
dnl SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
dnl GoogleTest for the core's unit tests (test/unit, "make check").

dnl HIER_GTEST: substitutes GTEST_CPPFLAGS and GTEST_LIBS; warns (the
dnl component still builds) when GoogleTest is missing.
AC_DEFUN([HIER_GTEST], [
    AC_REQUIRE([HIER_CXX17])
    AC_ARG_VAR([GTEST_CPPFLAGS], [preprocessor flags for GoogleTest])
    AC_ARG_VAR([GTEST_LIBS], [linker flags for GoogleTest with its main()])
    AS_IF([test -z "$GTEST_LIBS"], [GTEST_LIBS="-lgtest_main -lgtest -pthread"])
    AC_LANG_PUSH([C++])
    hier_save_CPPFLAGS=$CPPFLAGS
    hier_save_CXXFLAGS=$CXXFLAGS
    hier_save_LIBS=$LIBS
    CPPFLAGS="$CPPFLAGS $GTEST_CPPFLAGS"
    CXXFLAGS="$CXXFLAGS $HIER_CXXFLAGS"
    LIBS="$GTEST_LIBS $LIBS"
    AC_CACHE_CHECK([for GoogleTest], [hier_cv_gtest], [
        AC_LINK_IFELSE([AC_LANG_SOURCE([[
#include <gtest/gtest.h>
TEST(Configure, Links) { EXPECT_EQ(1, 1); }
]])], [hier_cv_gtest=yes], [hier_cv_gtest=no])])
    CPPFLAGS=$hier_save_CPPFLAGS
    CXXFLAGS=$hier_save_CXXFLAGS
    LIBS=$hier_save_LIBS
    AC_LANG_POP([C++])
    AS_IF([test "$hier_cv_gtest" != yes],
          [AC_MSG_WARN([GoogleTest not found: "make check" cannot build the unit tests (on Debian install libgtest-dev)])])
])
