// Topology: ranks -> nodes, and the node map parser.
#include "topology.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <unordered_map>

namespace hier {

Topology::Topology(const std::vector<int> &node_of_rank)
    : node_(node_of_rank.size()), local_(node_of_rank.size())
{
    std::unordered_map<int, int> dense_id;
    for (size_t rank = 0; rank < node_of_rank.size(); ++rank) {
        auto inserted = dense_id.emplace(node_of_rank[rank], static_cast<int>(members_.size()));
        if (inserted.second) {
            members_.emplace_back();
        }
        const int node = inserted.first->second;
        node_[rank] = node;
        local_[rank] = static_cast<int>(members_[node].size());
        members_[node].push_back(static_cast<int>(rank));
    }
}

Topology Topology::from_node_sizes(const std::vector<int> &sizes)
{
    std::vector<int> node_of_rank;
    for (size_t node = 0; node < sizes.size(); ++node) {
        node_of_rank.insert(node_of_rank.end(), sizes[node], static_cast<int>(node));
    }
    return Topology(node_of_rank);
}

int Topology::largest_node_size() const
{
    int largest = 0;
    for (const auto &ranks : members_) {
        largest = std::max(largest, static_cast<int>(ranks.size()));
    }
    return largest;
}

std::string Topology::describe() const
{
    std::ostringstream out;
    for (int node = 0; node < node_count(); ++node) {
        out << (node ? "," : "") << node_size(node);
    }
    return out.str();
}

namespace {

const char kNodeMapForm[] = "expected node sizes for consecutive ranks, e.g. \"4,3,2,1\"";

std::string node_map_error(const std::string &text, const std::string &what)
{
    return "coll_hier_node_map \"" + text + "\" " + what + "; " + kNodeMapForm;
}

// A node size: digits only, at least 1.
bool parse_node_size(const std::string &field, long *value)
{
    if (field.empty() || field.size() > 9 ||
        !std::all_of(field.begin(), field.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return false;
    }
    *value = std::strtol(field.c_str(), nullptr, 10);
    return *value >= 1;
}

} // namespace

std::vector<int> parse_node_map(const std::string &text, int size, std::string *error)
{
    if (text.empty() || text.back() == ',') {
        *error = node_map_error(text, "has an empty field");
        return {};
    }
    std::vector<long> node_sizes;
    long long covered = 0;
    std::istringstream fields(text);
    std::string field;
    while (std::getline(fields, field, ',')) {
        long node_size = 0;
        if (!parse_node_size(field, &node_size)) {
            *error = node_map_error(text, "has \"" + field + "\", which is not a positive integer");
            return {};
        }
        node_sizes.push_back(node_size);
        covered += node_size;
    }
    if (covered != size) {
        *error = node_map_error(text, "covers " + std::to_string(covered) +
                                          " ranks but there are " + std::to_string(size));
        return {};
    }
    std::vector<int> node_of_rank;
    for (size_t node = 0; node < node_sizes.size(); ++node) {
        node_of_rank.insert(node_of_rank.end(), node_sizes[node], static_cast<int>(node));
    }
    return node_of_rank;
}

} // namespace hier
