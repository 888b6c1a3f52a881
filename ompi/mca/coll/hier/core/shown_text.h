/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// How the parsers of user files (cost_file.cc, rules_file.cc) quote what
// they read in a one-line error: header-only, so that each fuzz target
// still builds its parser alone.
#pragma once

#include <string>
#include <string_view>

namespace hier {

// text as it may appear in a one-line message: at most 24 characters,
// anything unprintable as '?'.
inline std::string shown_text(std::string_view text)
{
    std::string out;
    for (char c : text.substr(0, 24)) {
        out += (c >= 0x20 && c < 0x7f) ? c : '?';
    }
    return text.size() > 24 ? out + "..." : out;
}

} // namespace hier
