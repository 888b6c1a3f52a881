/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// coll/hier's settings parsed once per process (settings.h), and their C
// face (hier_settings_* of hier_core.h).
#include "settings.h"

#include <algorithm>
#include <cstdio>
#include <new>

#include "autoselect.h"
#include "embedding.h"
#include "hostmap.h"
#include "keywords.h"
#include "topology.h"
#include "torus.h"

namespace hier {

namespace {

// Dimensions coll_hier_torus_dims may have (a Cartesian communicator may
// have any number): what the glue's verbose line and error have said since
// the glue held them in a fixed array.
constexpr int kMaxTorusDims = 16;

std::string text_of(const char *value)
{
    return value ? value : "";
}

hier_cluster_map_kind_t cluster_map_kind_of(const std::string &map)
{
    if (map.empty()) {
        return HIER_CLUSTER_MAP_NONE;
    }
    if (map == kProbeKeyword) {
        return HIER_CLUSTER_MAP_PROBE;
    }
    if (cluster_source_kind(map) != HIER_CLUSTER_MAP_NONE) {
        return cluster_source_kind(map);
    }
    return is_host_map(map) ? HIER_CLUSTER_MAP_HOSTS : HIER_CLUSTER_MAP_COUNTS;
}

// coll_hier_backbone_piece in bytes: -1 whole messages (0 here), N > 0
// pieces of N bytes, 0 (or a value that makes no sense, reported) pieces a
// little under the TCP BTL's eager limit, so that each goes eagerly (the
// limit counts Open MPI's headers; 1 KiB covers them).
size_t backbone_piece_of(int piece, size_t tcp_eager_limit)
{
    if (piece > 0) {
        return size_t(piece);
    }
    if (piece == -1) {
        return 0;
    }
    return tcp_eager_limit > 4096 ? tcp_eager_limit - 1024 : 32768;
}

} // namespace

int embedding_setting(const char *value, std::string *error)
{
    if (!value || !*value) {
        return kEmbeddingAuto;
    }
    const int id = embedding_id(value);
    if (id < 0) {
        std::string names;
        for (int other = 0; other < embedding_id_count(); ++other) {
            names += (other ? ", " : "") + std::string(embedding_id_name(other));
        }
        *error = "coll_hier_hypercube_embedding \"" + std::string(value) + "\" is not one of " + names;
    }
    return id;
}

unsigned long long rules_fingerprint(const RuleSet &rules)
{
    unsigned long long hash = 0xCBF29CE484222325ull;
    for (unsigned char c : format_rules(rules)) {
        hash = (hash ^ c) * 0x100000001B3ull;
    }
    return hash >> 2;
}

void Settings::problem(const std::string &line, const char *consequence, bool in_use_only)
{
    problems_.push_back({line + "; " + consequence, in_use_only});
}

Settings::Settings(const hier_settings_input_t &input)
{
    // Checked whether or not hier is in use, as they always were.
    std::string error;
    if (!parse_link_costs(text_of(input.link_costs), &link_costs_, &error)) {
        link_costs_ = LinkCostSpec();
        problem(error, "using unknown costs", false);
    }
    if (input.backbone_piece < -1) {
        problem("coll_hier_backbone_piece " + std::to_string(input.backbone_piece) +
                    " is not -1 (whole messages), 0 (under the TCP eager limit) or a byte count",
                "using 0", false);
    }
    backbone_piece_ = backbone_piece_of(input.backbone_piece, input.tcp_eager_limit);
    auto_trial_calls_ = std::max(input.auto_trial_calls, 0);
    if (!input.in_use) {
        return;
    }
    parse_maps(input);

    const std::string rules = text_of(input.dynamic_rules);
    rules_given_ = !rules.empty();
    if (rules_given_) {
        std::unique_ptr<RuleSet> set(new RuleSet());
        error.clear();
        if (load_rules_file(rules, set.get(), &error)) {
            rules_hash_ = rules_fingerprint(*set);
            rules_ = std::move(set);
        } else {
            problem(error, "auto decides");
        }
    }

    const std::string torus = text_of(input.torus_dims);
    if (!torus.empty()) {
        error.clear();
        std::vector<int> dims = parse_torus_dims(torus, input.world_size, &error);
        if (error.empty() && dims.size() > size_t(kMaxTorusDims)) {
            error = "coll_hier_torus_dims \"" + torus + "\" has more than " + std::to_string(kMaxTorusDims) +
                    " dimensions";
        }
        if (error.empty()) {
            torus_dims_ = std::move(dims);
        } else {
            problem(error, "scatter and gather fall back to Open MPI's own");
        }
    }

    cost_ = parse_cost_source(text_of(input.cost));
    if (!cost_.error.empty()) {
        problem(cost_.error, "falling back to Open MPI's own collectives");
    }
    if (cost_.kind == CostKind::File) {
        cost_file_ = cost_.text();
    }
    embedding_ = embedding_setting(input.hypercube_embedding, &embedding_error_);
    if (!embedding_error_.empty()) {
        problem(embedding_error_, "falling back to Open MPI's own collectives");
    }
}

// coll_hier_node_map over MPI_COMM_WORLD, and coll_hier_cluster_map: host
// patterns checked, counts parsed (and, with a node map, fitted to its
// nodes, so that every communicator inherits clusters as it inherits
// nodes). A map that does not parse or fit makes every communicator fall
// back.
void Settings::parse_maps(const hier_settings_input_t &input)
{
    static const char *const kFallingBack = "falling back to Open MPI's own collectives";
    cluster_map_ = text_of(input.cluster_map);
    cluster_map_kind_ = cluster_map_kind_of(cluster_map_);
    std::string counts_error, hosts_error;
    if (cluster_map_kind_ == HIER_CLUSTER_MAP_COUNTS) {
        cluster_counts_ = parse_cluster_counts(cluster_map_, &counts_error);
    } else if (cluster_map_kind_ == HIER_CLUSTER_MAP_HOSTS) {
        hosts_error = check_host_map(cluster_map_);
    } else if (cluster_source_kind(cluster_map_) != HIER_CLUSTER_MAP_NONE) {
        hosts_error = read_cluster_source(cluster_map_, &cluster_source_);
    }

    const std::string node_map = text_of(input.node_map);
    bool node_map_invalid = false;
    std::string node_map_error;
    if (!node_map.empty()) {
        std::string error;
        std::vector<int> sockets;
        std::vector<int> nodes = parse_node_map(node_map, input.world_size, &error, &sockets);
        if (error.empty() && cluster_map_kind_ == HIER_CLUSTER_MAP_COUNTS) {
            // Nodes are numbered 0, 1, ... in rank order: the last rank's is the largest.
            error = counts_error;
            if (error.empty()) {
                cluster_of_map_node_ = fit_cluster_counts(cluster_map_, cluster_counts_, nodes.back() + 1, &error);
            }
            counts_error.clear();  // said here, if at all
        }
        node_map_invalid = !error.empty();
        if (node_map_invalid) {
            problem(error, kFallingBack);
            node_map_error = error;
            cluster_of_map_node_.clear();
        } else {
            node_map_nodes_ = nodes.back() + 1;
            node_of_world_rank_ = std::move(nodes);
            socket_of_world_rank_ = std::move(sockets);
        }
    }
    const std::string &cluster_error = hosts_error.empty() ? counts_error : hosts_error;
    if (!cluster_error.empty()) {
        problem(cluster_error, kFallingBack);
        unusable_ = "invalid coll_hier_cluster_map";
        unusable_line_ = cluster_error;
    } else if (node_map_invalid) {
        unusable_ = "invalid coll_hier_node_map or coll_hier_cluster_map";
        unusable_line_ = node_map_error;
    }
}

int Settings::probes(int alltoall_requested, int ranks, bool several_nodes) const
{
    const bool link_costs_probed = link_costs_.probe && alltoall_requested == HIER_ALG_AUTO &&
                                   !alltoall_unmodelled(ranks, several_nodes ? 2 : 1);
    int probes = 0;
    if (cluster_map_kind_ == HIER_CLUSTER_MAP_PROBE || link_costs_probed || cost_.kind == CostKind::Probe) {
        probes |= HIER_PROBE_LATENCY;
    }
    if (link_costs_probed) {
        probes |= HIER_PROBE_MESSAGES;
    }
    return probes;
}

} // namespace hier

extern "C" {

hier_settings_t *hier_settings_create(const hier_settings_input_t *input)
{
    try {
        return new hier_settings{hier::Settings(*input)};
    } catch (...) {  // no C++ exception may reach the C glue
        return nullptr;
    }
}

void hier_settings_destroy(hier_settings_t *settings)
{
    delete settings;
}

const char *hier_settings_problem(const hier_settings_t *settings, int index, int *in_use_only)
{
    const auto &problems = settings->settings.problems();
    if (index < 0 || size_t(index) >= problems.size()) {
        return nullptr;
    }
    *in_use_only = problems[size_t(index)].in_use_only ? 1 : 0;
    return problems[size_t(index)].line.c_str();
}

const char *hier_settings_unusable(const hier_settings_t *settings)
{
    return settings->settings.unusable();
}

namespace {

// The map's entry of world_rank: 1 and *value, or 0 without one.
int map_entry(const std::vector<int> &map, int world_rank, int *value)
{
    if (world_rank < 0 || size_t(world_rank) >= map.size()) {
        return 0;
    }
    *value = map[size_t(world_rank)];
    return 1;
}

} // namespace

int hier_settings_node_map(const hier_settings_t *settings, int world_rank, int *node)
{
    return map_entry(settings->settings.node_of_world_rank(), world_rank, node);
}

int hier_settings_socket_map(const hier_settings_t *settings, int world_rank, int *socket)
{
    return map_entry(settings->settings.socket_of_world_rank(), world_rank, socket);
}

int hier_settings_wants_host_names(const hier_settings_t *settings)
{
    switch (settings->settings.cluster_map_kind()) {
    case HIER_CLUSTER_MAP_HOSTS:
    case HIER_CLUSTER_MAP_TOPOLOGY: return HIER_GATHER_HOST_NAME;
    case HIER_CLUSTER_MAP_SLURM: return HIER_GATHER_SLURM_ADDRESS;
    default: return 0;
    }
}

int hier_settings_probes(const hier_settings_t *settings, int alltoall_requested, int ranks, int several_nodes)
{
    return settings->settings.probes(alltoall_requested, ranks, several_nodes != 0);
}

const char *hier_settings_cost_file(const hier_settings_t *settings)
{
    const std::string &file = settings->settings.cost_file();
    return file.empty() ? nullptr : file.c_str();
}

int hier_settings_rules(const hier_settings_t *settings, long long *hash)
{
    const hier::Settings &s = settings->settings;
    *hash = s.rules() ? (long long) s.rules_hash() : -1;
    return s.rules_given() ? 1 : 0;
}

size_t hier_settings_backbone_piece(const hier_settings_t *settings)
{
    return settings->settings.backbone_piece();
}

} // extern "C"
