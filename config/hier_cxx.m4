dnl -*- autoconf -*-
dnl Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
dnl SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
dnl The core of coll/hier is C++17.

dnl HIER_CXX17: checks that $CXX compiles C++17 with -std=c++17 and
dnl substitutes HIER_CXXFLAGS (the flag) for the core and its unit tests.
AC_DEFUN([HIER_CXX17], [
    AC_LANG_PUSH([C++])
    AC_CACHE_CHECK([whether $CXX accepts -std=c++17], [hier_cv_cxx17], [
        hier_save_CXXFLAGS=$CXXFLAGS
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
]])], [hier_cv_cxx17=yes], [hier_cv_cxx17=no])
        CXXFLAGS=$hier_save_CXXFLAGS
    ])
    AC_LANG_POP([C++])
    AS_IF([test "$hier_cv_cxx17" != yes],
          [AC_MSG_ERROR([a C++17 compiler is required for coll/hier's core: $CXX does not accept -std=c++17 (on Debian install g++)])])
    AC_SUBST([HIER_CXXFLAGS], [-std=c++17])
])
