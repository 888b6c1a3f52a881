/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// Topology: ranks -> nodes -> clusters, and the node and cluster map parsers.
#include "topology.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <unordered_map>

#include "cost.h"

namespace hier {

namespace {

// Groups ranks by name: groups are numbered 0, 1, ... in the order their
// lowest rank appears; group[r] is rank r's, index[r] its position in it.
template <typename Name>
void group_ranks(const std::vector<Name> &name_of_rank, std::vector<int> &group, std::vector<int> &index,
                 std::vector<std::vector<int>> &members)
{
    std::unordered_map<Name, int> dense;
    for (size_t rank = 0; rank < name_of_rank.size(); ++rank) {
        auto inserted = dense.emplace(name_of_rank[rank], static_cast<int>(members.size()));
        if (inserted.second) {
            members.emplace_back();
        }
        const int g = inserted.first->second;
        group[rank] = g;
        index[rank] = static_cast<int>(members[g].size());
        members[g].push_back(static_cast<int>(rank));
    }
}

} // namespace

Topology::Topology(const std::vector<int> &node_of_rank, const std::vector<int> &cluster_of_node,
                   const std::vector<int> &torus_dims)
    : node_(node_of_rank.size()), local_(node_of_rank.size()), cluster_(node_of_rank.size()),
      cluster_index_(node_of_rank.size())
{
    if (!torus_dims.empty()) {
        torus_.emplace(torus_dims);
    }
    group_ranks(node_of_rank, node_, local_, members_);
    std::vector<int> cluster_name(node_.size(), 0);
    for (size_t rank = 0; rank < node_.size(); ++rank) {
        if (size_t(node_[rank]) < cluster_of_node.size()) {
            cluster_name[rank] = cluster_of_node[node_[rank]];
        }
    }
    group_ranks(cluster_name, cluster_, cluster_index_, cluster_members_);
}

Topology Topology::from_node_sizes(const std::vector<int> &sizes)
{
    std::vector<int> node_of_rank;
    for (size_t node = 0; node < sizes.size(); ++node) {
        node_of_rank.insert(node_of_rank.end(), sizes[node], static_cast<int>(node));
    }
    return Topology(node_of_rank);
}

Topology Topology::from_torus_dims(const std::vector<int> &dims)
{
    std::vector<int> node_of_rank(Torus(dims).size());
    for (size_t rank = 0; rank < node_of_rank.size(); ++rank) {
        node_of_rank[rank] = static_cast<int>(rank);
    }
    return Topology(node_of_rank, {}, dims);
}

int Topology::largest_node_size() const
{
    int largest = 0;
    for (const auto &ranks : members_) {
        largest = std::max(largest, static_cast<int>(ranks.size()));
    }
    return largest;
}

void Topology::set_sockets(const std::vector<int> &name_of_rank)
{
    socket_.clear();
    socket_members_.clear();
    if (name_of_rank.size() != node_.size() ||
        std::any_of(name_of_rank.begin(), name_of_rank.end(), [](int name) { return name < 0; })) {
        return;
    }
    // A name is a socket within its node: the pair is the key.
    std::vector<long long> key(node_.size());
    for (size_t rank = 0; rank < node_.size(); ++rank) {
        key[rank] = (static_cast<long long>(node_[rank]) << 32) | static_cast<unsigned>(name_of_rank[rank]);
    }
    std::vector<int> index(node_.size());
    socket_.resize(node_.size());
    group_ranks(key, socket_, index, socket_members_);
}

std::string Topology::describe() const
{
    std::ostringstream out;
    for (int node = 0; node < node_count(); ++node) {
        out << (node ? "," : "");
        if (!has_sockets()) {
            out << node_size(node);
            continue;
        }
        std::vector<int> sockets;  // the node's, in the order their lowest rank appears
        for (int rank : members(node)) {
            if (std::find(sockets.begin(), sockets.end(), socket_of(rank)) == sockets.end()) {
                sockets.push_back(socket_of(rank));
            }
        }
        for (size_t i = 0; i < sockets.size(); ++i) {
            out << (i ? "+" : "") << socket_members_[size_t(sockets[i])].size();
        }
    }
    return out.str();
}

void Topology::set_costs(std::shared_ptr<const Costs> costs)
{
    costs_ = std::move(costs);
}

const Costs &Topology::costs() const
{
    if (!costs_) {
        costs_ = std::make_shared<Costs>(locality_costs(*this));
    }
    return *costs_;
}

namespace {

// A size: digits only, at least 1.
bool parse_size(const std::string &field, long *value)
{
    if (field.empty() || field.size() > 9 ||
        !std::all_of(field.begin(), field.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return false;
    }
    *value = std::strtol(field.c_str(), nullptr, 10);
    return *value >= 1;
}

// What a list of sizes describes, for its parser and its error lines.
struct SizeList {
    const char *parameter;
    const char *items;  // what the sizes add up ("ranks", "nodes")
    const char *form;   // the expected form, with an example
};

// Parses "a,b,c": the sizes, or an empty vector and one line in *error when
// a field is not a positive integer. With opens_group, '+' separates sizes
// too ("2+2,3": a group of parts), and (*opens_group)[i] says whether size
// i starts a group (follows a ',' or starts the text).
std::vector<int> parse_sizes(const SizeList &list, const std::string &text, std::string *error,
                             std::vector<bool> *opens_group = nullptr)
{
    const std::string prefix = std::string(list.parameter) + " \"" + text + "\" ";
    const std::string suffix = std::string("; expected ") + list.form;
    const char *const separators = opens_group ? ",+" : ",";
    if (text.empty() || std::strchr(separators, text.back())) {
        *error = prefix + "has an empty field" + suffix;
        return {};
    }
    std::vector<int> sizes;
    bool opens = true;
    for (size_t start = 0; start <= text.size();) {
        const size_t end = std::min(text.find_first_of(separators, start), text.size());
        const std::string field = text.substr(start, end - start);
        long size = 0;
        if (!parse_size(field, &size)) {
            *error = prefix + "has \"" + field + "\", which is not a positive integer" + suffix;
            return {};
        }
        sizes.push_back(static_cast<int>(size));
        if (opens_group) {
            opens_group->push_back(opens);
        }
        opens = end < text.size() && text[end] == ',';
        start = end + 1;
    }
    return sizes;
}

// Sizes a of group 0, b of group 1, ... over `total` items: which group
// each belongs to, or an empty vector and one line in *error when they do
// not add up to total.
std::vector<int> group_sizes(const SizeList &list, const std::string &text, const std::vector<int> &sizes,
                             int total, std::string *error)
{
    long long covered = 0;
    for (int size : sizes) {
        covered += size;
    }
    if (covered != total) {
        *error = std::string(list.parameter) + " \"" + text + "\" covers " + std::to_string(covered) + " " +
                 list.items + " but there are " + std::to_string(total) + "; expected " + list.form;
        return {};
    }
    std::vector<int> group_of_item;
    for (size_t group = 0; group < sizes.size(); ++group) {
        group_of_item.insert(group_of_item.end(), size_t(sizes[group]), static_cast<int>(group));
    }
    return group_of_item;
}

// Parses "a,b,c" into a of group 0, b of group 1, ...: which group each of
// `total` items belongs to. Returns an empty vector and one line in *error
// when it does not parse or does not add up to total.
std::vector<int> parse_size_list(const SizeList &list, const std::string &text, int total, std::string *error)
{
    const std::vector<int> sizes = parse_sizes(list, text, error);
    return sizes.empty() ? std::vector<int>() : group_sizes(list, text, sizes, total, error);
}

const SizeList kNodeMap{"coll_hier_node_map", "ranks",
                        "node sizes for consecutive ranks, e.g. \"4,3,2,1\" (a node's sockets joined by +: "
                        "\"2+2,3,2,1\")"};
const SizeList kClusterMap{"coll_hier_cluster_map", "nodes",
                           "cluster sizes in nodes, nodes in the order of their lowest rank, e.g. \"3,6\"; "
                           "or host patterns, e.g. \"nancy:cvn[1-3];rennes:cvn[4-9]\"; or \"probe\""};

} // namespace

std::vector<int> parse_node_map(const std::string &text, int size, std::string *error,
                                std::vector<int> *socket_of_rank)
{
    // Sockets are the groups of ranks the sizes give; nodes gather them.
    std::vector<bool> opens_node;
    const std::vector<int> sockets = parse_sizes(kNodeMap, text, error, &opens_node);
    std::vector<int> socket = sockets.empty() ? std::vector<int>() : group_sizes(kNodeMap, text, sockets, size, error);
    std::vector<int> node(socket.size());
    for (size_t rank = 0, nodes = 0; rank < socket.size(); ++rank) {
        nodes += opens_node[size_t(socket[rank])] && (rank == 0 || socket[rank] != socket[rank - 1]) ? 1 : 0;
        node[rank] = static_cast<int>(nodes) - 1;
    }
    if (socket_of_rank && text.find('+') != std::string::npos) {
        *socket_of_rank = std::move(socket);
    }
    return node;
}

std::vector<int> clusters_from_latency(const std::vector<double> &latency)
{
    const auto n = size_t(std::lround(std::sqrt(double(latency.size()))));
    std::vector<double> pairs;
    for (size_t a = 0; a < n; ++a) {
        for (size_t b = a + 1; b < n; ++b) {
            pairs.push_back(latency[a * n + b]);
        }
    }
    std::sort(pairs.begin(), pairs.end());
    double cut = -1;  // no cut: one cluster
    double widest = kClusterGapRatio;
    for (size_t i = 1; i < pairs.size(); ++i) {
        const double below = std::max(pairs[i - 1], 1e-9);
        if (pairs[i] / below >= widest) {
            widest = pairs[i] / below;
            cut = std::sqrt(below * pairs[i]);
        }
    }
    std::vector<int> cluster(n);
    std::iota(cluster.begin(), cluster.end(), 0);
    const std::function<int(int)> root = [&](int x) { return cluster[x] == x ? x : cluster[x] = root(cluster[x]); };
    for (size_t a = 0; a < n; ++a) {
        for (size_t b = a + 1; b < n; ++b) {
            if (cut < 0 || latency[a * n + b] < cut) {
                cluster[root(int(b))] = root(int(a));
            }
        }
    }
    for (size_t a = 0; a < n; ++a) {
        cluster[a] = root(int(a));
    }
    return cluster;
}

std::vector<int> parse_cluster_map(const std::string &text, int node_count, std::string *error)
{
    return parse_size_list(kClusterMap, text, node_count, error);
}

std::vector<int> parse_cluster_counts(const std::string &text, std::string *error)
{
    return parse_sizes(kClusterMap, text, error);
}

std::vector<int> fit_cluster_counts(const std::string &text, const std::vector<int> &counts, int node_count,
                                    std::string *error)
{
    return group_sizes(kClusterMap, text, counts, node_count, error);
}

} // namespace hier

extern "C" int hier_node_leaders(int size, const int *node_of_rank, int *leaders)
{
    const hier::Topology topology(std::vector<int>(node_of_rank, node_of_rank + size));
    for (int node = 0; node < topology.node_count(); ++node) {
        leaders[node] = topology.members(node).front();
    }
    return topology.node_count();
}
