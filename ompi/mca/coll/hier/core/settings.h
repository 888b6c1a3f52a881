/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// coll/hier's settings, parsed once per process: every MCA value the core
// uses, from the text Open MPI holds to the structures the communicators
// read (hier_settings_t in hier_core.h). What depends on a communicator (a
// cluster map of counts must fit its nodes, torus dimensions its size, a cost
// file its ranks or nodes) is checked by hier::Communicator against these
// parsed values, never by parsing the text again.
#ifndef HIER_SETTINGS_H
#define HIER_SETTINGS_H

#include <memory>
#include <string>
#include <vector>

#include "cluster_source.h"
#include "cost.h"
#include "hier_core.h"
#include "link_costs.h"
#include "rules_file.h"

namespace hier {

class Settings {
public:
    // One line naming a bad parameter, its expected form and what is taken
    // instead. in_use_only: said only when hier is in use (the others, from
    // the first checks, whether or not).
    struct Problem {
        std::string line;
        bool in_use_only;
    };

    // Every setting's default (no problem).
    Settings() = default;
    // Parses input; a bad value is one Problem, and that parameter's
    // consequence (its default, or every communicator falling back) is taken.
    explicit Settings(const hier_settings_input_t &input);

    const std::vector<Problem> &problems() const { return problems_; }
    // Why every communicator falls back (a node or cluster map that does not
    // parse or fit the job), or nullptr.
    const char *unusable() const { return unusable_.empty() ? nullptr : unusable_.c_str(); }
    // Its line (naming the parameter and the expected form).
    const std::string &unusable_line() const { return unusable_line_; }

    // coll_hier_node_map: the node of every rank of MPI_COMM_WORLD (empty:
    // none given), the map's node count and, with a cluster map of counts,
    // each of its nodes' cluster.
    const std::vector<int> &node_of_world_rank() const { return node_of_world_rank_; }
    // Its sockets ("2+2,4"): the socket of every rank (empty: none written).
    const std::vector<int> &socket_of_world_rank() const { return socket_of_world_rank_; }
    int node_map_nodes() const { return node_map_nodes_; }
    const std::vector<int> &cluster_of_map_node() const { return cluster_of_map_node_; }

    // coll_hier_cluster_map: its form, its text (host patterns), its counts,
    // the source it names (slurm, topology:, coordinates:) with its file read.
    hier_cluster_map_kind_t cluster_map_kind() const { return cluster_map_kind_; }
    const std::string &cluster_map() const { return cluster_map_; }
    const std::vector<int> &cluster_counts() const { return cluster_counts_; }
    const ClusterSource &cluster_source() const { return cluster_source_; }

    // coll_hier_torus_dims (fits MPI_COMM_WORLD; empty: none, or invalid).
    const std::vector<int> &torus_dims() const { return torus_dims_; }
    // coll_hier_link_costs (empty when invalid: every class unknown).
    const LinkCostSpec &link_costs() const { return link_costs_; }
    // coll_hier_cost, read once; its error fails every communicator.
    const CostSource &cost() const { return cost_; }
    // coll_hier_cost as given when it names a file ("file:PATH"), else "".
    const std::string &cost_file() const { return cost_file_; }
    // coll_hier_hypercube_embedding's id, or -1 with embedding_error().
    int embedding() const { return embedding_; }
    const std::string &embedding_error() const { return embedding_error_; }
    // coll_hier_dynamic_rules: given (a path), and the rules read (nullptr:
    // none, or not readable) with their fingerprint.
    bool rules_given() const { return rules_given_; }
    const RuleSet *rules() const { return rules_.get(); }
    unsigned long long rules_hash() const { return rules_hash_; }

    int auto_trial_calls() const { return auto_trial_calls_; }
    // coll_hier_backbone_piece in bytes (0: whole messages).
    size_t backbone_piece() const { return backbone_piece_; }

    // Which probes a communicator of `ranks` ranks needs (HIER_PROBE_*):
    // the latency probe for clusters "probe", coll_hier_cost "probe" or
    // probed link costs; the message probe for probed link costs. Link
    // costs are probed where auto's time model will use them: auto decides
    // the alltoall (alltoall_requested) with the model (more than one node,
    // at most 128 ranks).
    int probes(int alltoall_requested, int ranks, bool several_nodes) const;

private:
    void parse_maps(const hier_settings_input_t &input);
    void problem(const std::string &line, const char *consequence, bool in_use_only = true);

    std::vector<Problem> problems_;
    std::string unusable_;
    std::string unusable_line_;
    std::vector<int> node_of_world_rank_;
    std::vector<int> socket_of_world_rank_;
    int node_map_nodes_ = 0;
    std::vector<int> cluster_of_map_node_;
    hier_cluster_map_kind_t cluster_map_kind_ = HIER_CLUSTER_MAP_NONE;
    std::string cluster_map_;
    std::vector<int> cluster_counts_;
    ClusterSource cluster_source_;
    std::vector<int> torus_dims_;
    LinkCostSpec link_costs_;
    CostSource cost_;
    std::string cost_file_;
    int embedding_ = 0;
    std::string embedding_error_;
    bool rules_given_ = false;
    std::unique_ptr<RuleSet> rules_;
    unsigned long long rules_hash_ = 0;
    int auto_trial_calls_ = 0;
    size_t backbone_piece_ = 0;
};

// The embedding's id for coll_hier_hypercube_embedding (nullptr or "":
// auto), or -1 and one line in *error.
int embedding_setting(const char *value, std::string *error);
// A fingerprint of rules (0 to 2^62 - 1): FNV-1a over them as format_rules
// writes them, so files that say the same (comments and spacing aside) agree.
unsigned long long rules_fingerprint(const RuleSet &rules);

} // namespace hier

struct hier_settings {
    hier::Settings settings;
};

#endif // HIER_SETTINGS_H
