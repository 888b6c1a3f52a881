/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Slurm's switch tree as clusters: topology.conf's leaf switches, and a
// task's SLURM_TOPOLOGY_ADDR cut at a level.
#include "slurm_topology.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>
#include <vector>

#include "hostmap.h"

namespace hier {

namespace {

constexpr const char *kHostlistExample = "a Slurm hostlist, e.g. node[01-16,20]";
constexpr size_t kMaxLevel = 64;

std::string lower(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return text;
}

bool is_name(const std::string &text)
{
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
    });
}

// A hostlist is a host map's list of patterns (the same brackets, the same
// padding rule), so hostmap.cc's parser checks it.
bool is_hostlist(const std::string &text)
{
    return !text.empty() && check_host_map("x:" + text).empty();
}

std::vector<std::string> split(const std::string &text, char separator)
{
    std::vector<std::string> parts(1);
    for (char c : text) {
        if (c == separator) {
            parts.emplace_back();
        } else {
            parts.back() += c;
        }
    }
    return parts;
}

// One "SwitchName=... Nodes=..." line; false and *error when it is not one.
struct SwitchLine {
    std::string name, nodes;
    bool has_switches = false;
};

bool parse_switch_line(const std::string &line, SwitchLine *parsed, std::string *error)
{
    std::istringstream words(line);
    std::string word;
    bool first = true;
    while (words >> word) {
        const size_t equals = word.find('=');
        const std::string key = lower(word.substr(0, equals));
        const std::string value = equals == std::string::npos ? "" : word.substr(equals + 1);
        if (equals == std::string::npos || value.empty()) {
            *error = "has \"" + word + "\", not KEY=VALUE";
            return false;
        }
        if (first != (key == "switchname")) {
            *error = first ? "does not start with SwitchName=" : "names SwitchName= twice";
            return false;
        }
        first = false;
        if (key == "switchname") {
            if (!is_name(value)) {
                *error = "has switch name \"" + value + "\" (letters, digits, '.', '-', '_' expected)";
                return false;
            }
            parsed->name = value;
        } else if (key == "nodes" || key == "switches") {
            if (!is_hostlist(value)) {
                *error = "has " + word.substr(0, equals) + "=\"" + value + "\", not " + kHostlistExample;
                return false;
            }
            if (key == "nodes") {
                if (!parsed->nodes.empty()) {
                    *error = "names Nodes= twice";
                    return false;
                }
                parsed->nodes = value;
            } else {
                parsed->has_switches = true;
            }
        } else if (key != "linkspeed") {
            *error = "has key \"" + word.substr(0, equals) + "\" (SwitchName, Nodes, Switches, LinkSpeed expected)";
            return false;
        }
    }
    if (parsed->nodes.empty() && !parsed->has_switches) {
        *error = "has switch \"" + parsed->name + "\" without Nodes= or Switches=";
        return false;
    }
    return true;
}

} // namespace

std::string leaf_host_map_of_topology_conf(std::string_view text, std::string *error)
{
    std::string map;
    std::set<std::string> names;
    int line_number = 0;
    for (std::string line : split(std::string(text), '\n')) {
        ++line_number;
        line = line.substr(0, line.find('#'));
        if (!line.empty() && line.back() == '\r') {
            line.pop_back();
        }
        if (line.find_first_not_of(" \t\r") == std::string::npos) {
            continue;
        }
        SwitchLine parsed;
        std::string what;
        if (!parse_switch_line(line, &parsed, &what)) {
            *error = "line " + std::to_string(line_number) + " " + what;
            return {};
        }
        if (!names.insert(parsed.name).second) {
            *error = "line " + std::to_string(line_number) + " names switch \"" + parsed.name + "\" again";
            return {};
        }
        if (!parsed.nodes.empty()) {
            map += (map.empty() ? "" : ";") + parsed.name + ":" + parsed.nodes;
        }
    }
    if (map.empty()) {
        *error = "has no leaf switch (a line \"SwitchName=NAME Nodes=HOSTLIST\")";
    }
    return map;
}

bool is_slurm_map(const std::string &map)
{
    return map == "slurm" || map.compare(0, 6, "slurm:") == 0;
}

int slurm_level_of(const std::string &map, std::string *error)
{
    const std::string level = map.size() > 6 ? map.substr(6) : "";
    if (map == "slurm" || level == "leaf") {
        return 0;
    }
    if (!level.empty() && level.size() <= 2 &&
        std::all_of(level.begin(), level.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        const int value = std::stoi(level);
        if (value >= 1 && size_t(value) <= kMaxLevel) {
            return value;
        }
    }
    *error = "coll_hier_cluster_map \"" + map + "\" is not slurm, slurm:leaf or slurm:LEVEL (LEVEL 1 to " +
             std::to_string(kMaxLevel) + ", counted from the top switch)";
    return -1;
}

std::string slurm_cluster_of(const std::string &address, const std::string &pattern, int level,
                             std::string *error)
{
    const std::vector<std::string> names = split(address, '.');
    if (!std::all_of(names.begin(), names.end(), is_name)) {
        *error = "SLURM_TOPOLOGY_ADDR \"" + address + "\" is not names separated by '.'";
        return {};
    }
    if (!pattern.empty()) {
        const std::vector<std::string> kinds = split(pattern, '.');
        bool fits = kinds.size() == names.size() && kinds.back() == "node";
        for (size_t i = 0; fits && i + 1 < kinds.size(); ++i) {
            fits = kinds[i] == "switch";
        }
        if (!fits) {
            *error = "SLURM_TOPOLOGY_ADDR_PATTERN \"" + pattern + "\" does not describe SLURM_TOPOLOGY_ADDR \"" +
                     address + "\" as switch.[switch....]node";
            return {};
        }
    }
    const size_t switches = names.size() - 1;
    if (switches == 0) {
        *error = "SLURM_TOPOLOGY_ADDR \"" + address + "\" names no switch above the node";
        return {};
    }
    if (size_t(level) > switches) {
        *error = "SLURM_TOPOLOGY_ADDR \"" + address + "\" has " + std::to_string(switches) +
                 " switch level(s), fewer than " + std::to_string(level);
        return {};
    }
    const size_t keep = level == 0 ? switches : size_t(level);
    std::string cluster = names[0];
    for (size_t i = 1; i < keep; ++i) {
        cluster += "." + names[i];
    }
    return cluster;
}

} // namespace hier
