/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// hier::Communicator (communicator.h): its assembly from the glue's facts
// and the parsed settings, and the per-call answer.
#include "communicator.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include "cluster_source.h"
#include "cost.h"
#include "hostmap.h"
#include "torus.h"

namespace hier {

namespace {

// Every setting's default: a communicator made without settings (tests).
const Settings &default_settings()
{
    static const Settings defaults;
    return defaults;
}


// Every rank's host name (or Slurm address) from the glue's fixed-width
// fields; empty and *error set if they were not gathered or one did not fit.
std::vector<std::string> host_names(const hier_comm_input_t &input, const std::string &map, std::string *error)
{
    if (!input.host_names) {
        *error = "coll_hier_cluster_map \"" + map + "\": the host names were not gathered";
        return {};
    }
    std::vector<std::string> names;
    for (int rank = 0; rank < input.size; ++rank) {
        const char *field = input.host_names + size_t(rank) * HIER_HOST_NAME_WIDTH;
        const size_t length = strnlen(field, HIER_HOST_NAME_WIDTH);
        if (length == HIER_HOST_NAME_WIDTH) {
            *error = "coll_hier_cluster_map: the host name of rank " + std::to_string(rank) + " is longer than " +
                     std::to_string(HIER_HOST_NAME_WIDTH - 1) + " characters; expected shorter host names, or "
                     "cluster sizes in nodes, e.g. \"3,6\"";
            return {};
        }
        names.emplace_back(field, length);
    }
    return names;
}

// Whether every rank read the same cluster source file (a file may differ
// between nodes, or be missing on some): else *error, so that every rank
// falls back alike. Collective when the source is a file and the glue lends
// an agreement.
void agree_on_cluster_file(const hier_comm_input_t &input, const Settings &settings, std::string *error)
{
    const ClusterSource &source = settings.cluster_source();
    const bool file = source.kind == HIER_CLUSTER_MAP_TOPOLOGY || source.kind == HIER_CLUSTER_MAP_COORDINATES;
    if (!file || !input.agree_max) {
        return;
    }
    double extremes[2] = {source.fingerprint, -source.fingerprint};
    if (input.agree_max(input.agree_ctx, extremes, 2) != 0) {
        *error = "coll_hier_cluster_map \"" + settings.cluster_map() + "\": agreeing on the file failed";
    } else if (extremes[0] != source.fingerprint || -extremes[1] != source.fingerprint) {
        *error = "coll_hier_cluster_map \"" + settings.cluster_map() +
                 "\" was not read alike on every rank; expected the same file on every node";
    }
}

// Hops between every two nodes (a * n + b) on a torus of nodes; empty
// without one.
std::vector<int> node_hops(const Topology &topology)
{
    const Torus *torus = topology.torus_of_nodes();
    if (!torus) {
        return {};
    }
    const int n = topology.node_count();
    std::vector<int> hops(size_t(n) * size_t(n));
    for (int a = 0; a < n; ++a) {
        for (int b = 0; b < n; ++b) {
            hops[size_t(a) * size_t(n) + size_t(b)] = torus->distance(a, b);
        }
    }
    return hops;
}

// The torus: the communicator's own (a periodic Cartesian one's), else
// coll_hier_torus_dims where it covers the communicator; empty for neither.
// The communicator's own must cover it: else *error.
std::vector<int> torus_of(const hier_comm_input_t &input, const Settings &settings, std::string *error)
{
    if (input.torus_ndims <= 0) {
        long long covered = 1;
        for (int size : settings.torus_dims()) {
            covered *= size;
        }
        return !settings.torus_dims().empty() && covered == input.size ? settings.torus_dims() : std::vector<int>();
    }
    std::vector<int> dims(input.torus_dims, input.torus_dims + input.torus_ndims);
    long long covered = 1;
    for (int size : dims) {
        covered = size < 1 ? 0 : std::min(covered * size, 1LL << 40);
    }
    if (covered != input.size) {
        *error = "torus of " + Torus(dims).describe() + " does not cover the " + std::to_string(input.size) +
                 " ranks of the communicator";
        return {};
    }
    return dims;
}

// The cluster of each node of topology (numbered as it numbers them), from
// a cluster per rank (given, or the node map's), the latency probe, host
// patterns, counts or a cluster source (cluster_source.h); empty and *error
// set if the map does not fit, empty and *notice set if a source found
// nothing (the communicator runs without clusters).
std::vector<int> clusters_of_nodes(const Topology &topology, const hier_comm_input_t &input,
                                   const Settings &settings, std::string *error, std::string *notice)
{
    agree_on_cluster_file(input, settings, error);
    if (!error->empty()) {
        return {};
    }
    const std::vector<int> &of_map_node = settings.cluster_of_map_node();
    if (input.cluster_of_rank || !of_map_node.empty()) {
        // With a node map, node_of_rank names the map's nodes.
        std::vector<int> clusters(size_t(topology.node_count()));
        for (int rank = 0; rank < topology.size(); ++rank) {
            clusters[size_t(topology.node_of(rank))] =
                input.cluster_of_rank ? input.cluster_of_rank[rank] : of_map_node[size_t(input.node_of_rank[rank])];
        }
        return clusters;
    }
    const std::string &map = settings.cluster_map();
    switch (settings.cluster_map_kind()) {
    case HIER_CLUSTER_MAP_NONE: return {};
    case HIER_CLUSTER_MAP_COUNTS: return fit_cluster_counts(map, settings.cluster_counts(), topology.node_count(), error);
    case HIER_CLUSTER_MAP_HOSTS: {
        const std::vector<std::string> names = host_names(input, map, error);
        return error->empty() ? clusters_from_host_map(map, topology, names, input.job_wide != 0, error)
                              : std::vector<int>();
    }
    case HIER_CLUSTER_MAP_PROBE: {
        if (!input.node_latency) {
            *error = "coll_hier_cluster_map \"probe\": the latency probe did not run";
            return {};
        }
        const auto n = size_t(topology.node_count());
        return clusters_from_latency(std::vector<double>(input.node_latency, input.node_latency + n * n));
    }
    case HIER_CLUSTER_MAP_SLURM:
    case HIER_CLUSTER_MAP_TOPOLOGY:
    case HIER_CLUSTER_MAP_COORDINATES: {
        std::vector<std::string> gathered;
        if (settings.cluster_map_kind() != HIER_CLUSTER_MAP_COORDINATES) {
            gathered = host_names(input, map, error);
        }
        const std::vector<int> world_rank =
            input.world_rank ? std::vector<int>(input.world_rank, input.world_rank + input.size) : std::vector<int>();
        return error->empty() ? clusters_from_source(map, settings.cluster_source(), topology, gathered, world_rank,
                                                     error, notice)
                              : std::vector<int>();
    }
    }
    return {};
}

// What coll_hier_cost needs beyond the parsed source: the facts of the
// communicator (a file indexes MPI_COMM_WORLD's ranks, or the node map's
// nodes).
CostSetting cost_facts(const Topology &topology, const hier_comm_input_t &input, const Settings &settings)
{
    CostSetting facts;
    const size_t p = size_t(input.size);
    if (input.node_latency) {
        const auto n = size_t(topology.node_count());
        facts.node_latency.assign(input.node_latency, input.node_latency + n * n);
    }
    if (input.world_rank) {
        facts.world_rank.assign(input.world_rank, input.world_rank + p);
    }
    facts.world_size = input.world_size;
    if (settings.node_map_nodes() > 0) {  // node_of_rank names the map's nodes: the job's numbering
        facts.world_node.assign(input.node_of_rank, input.node_of_rank + p);
        facts.world_node_count = settings.node_map_nodes();
    }
    return facts;
}

// The verbose line's reason for a failure: the parameter its line names
// first (every line starts with it).
const char *invalid_setting(const std::string &line)
{
    static const char *const reasons[] = {
        "invalid coll_hier_cluster_map", "invalid coll_hier_cost", "invalid coll_hier_hypercube_embedding",
    };
    for (const char *reason : reasons) {
        const std::string name = reason + std::strlen("invalid ");
        if (line.compare(0, name.size(), name) == 0 && line.size() > name.size() && line[name.size()] == ' ') {
            return reason;
        }
    }
    return "invalid setting";
}

constexpr const char *kByRule = "by coll_hier_dynamic_rules";

} // namespace

std::unique_ptr<Communicator> Communicator::create(const hier_comm_input_t &input, Failure *failure)
{
    const Settings &settings = input.settings ? input.settings->settings : default_settings();
    if (settings.unusable()) {  // the glue does not get this far: it asks hier_settings_unusable first
        failure->line = settings.unusable_line();
        failure->reason = settings.unusable();
        failure->reported = true;
        return nullptr;
    }
    const std::vector<int> nodes(input.node_of_rank, input.node_of_rank + input.size);
    std::string &error = failure->line;
    const std::vector<int> cluster_of_node =
        clusters_of_nodes(Topology(nodes), input, settings, &error, &failure->notice);
    if (error.empty() && settings.embedding() < 0) {
        error = settings.embedding_error();
        failure->reported = true;
    }
    const std::vector<int> torus_dims = error.empty() ? torus_of(input, settings, &error) : std::vector<int>();
    if (!error.empty()) {
        failure->reason = invalid_setting(error);
        return nullptr;
    }
    LinkCostSpec costs = settings.link_costs();
    costs.switch_clusters = switch_source(settings.cluster_map_kind());
    Topology topology(nodes, cluster_of_node, torus_dims);
    if (input.socket_of_rank) {
        topology.set_sockets(std::vector<int>(input.socket_of_rank, input.socket_of_rank + input.size));
    }
    if (costs.probe && input.node_latency) {
        const auto n = size_t(topology.node_count());
        apply_probe(&costs, std::vector<double>(input.node_latency, input.node_latency + n * n), cluster_of_node,
                    node_hops(topology));
    }
    auto pair_costs = costs_from_source(topology, settings.cost(), cost_facts(topology, input, settings), &error);
    if (!pair_costs) {
        failure->reason = invalid_setting(error);
        failure->reported = !settings.cost().error.empty();
        return nullptr;
    }
    topology.set_costs(std::move(pair_costs));
    return std::unique_ptr<Communicator>(new Communicator(std::move(topology), input, settings, costs));
}

Communicator::Communicator(Topology topology, const hier_comm_input_t &input, const Settings &settings,
                           LinkCostSpec costs)
    : topology_(std::move(topology)), plans_(settings.embedding()), rank_(input.rank), window_(input.window),
      trial_calls_(settings.auto_trial_calls()), backbone_piece_(settings.backbone_piece()),
      costs_(std::move(costs)), rules_(input.rules_agreed ? settings.rules() : nullptr)
{
    agree_.fn = input.agree_max;
    agree_.ctx = input.agree_ctx;
    probe_links_.fn = input.probe_links;
    probe_links_.ctx = input.probe_ctx;
    probe_links_.latency_known = input.node_latency != nullptr;
    probe_links_.pending =
        costs_.probe && (settings.probes(HIER_ALG_AUTO, topology_.size(), topology_.node_count() > 1) &
                         HIER_PROBE_MESSAGES) != 0;
}

// The answer before anything is decided: no schedule, the communicator's
// window, no trial.
void Communicator::reset(hier_decision_t *out) const
{
    *out = hier_decision_t();
    out->chosen = HIER_ALG_FALLBACK;
    out->window = window_;
    out->trial_call = -1;
    out->reason = HIER_REASON_FALLBACK;
}

// A choice as the decision's id and reason code (the schedule apart).
void Communicator::set_choice(hier_op_t op, const Choice &choice, hier_decision_t *out) const
{
    out->chosen = choice.id;
    out->phrase = choice.algorithm ? nullptr : choice.reason;
    out->reason = choice.algorithm ? HIER_REASON_RUNS : choice.unfit ? HIER_REASON_UNFIT : HIER_REASON_FALLBACK;
    out->unfit = choice.unfit ? pick(op, choice.unfit).id : 0;
}

// The costs auto weighs op with: for a blocking alltoall, the probed
// classes measured first (once, on every rank alike: a failed probe leaves
// them unknown, and auto weighs their corners).
const LinkCostSpec &Communicator::link_costs_for(hier_op_t op, bool nonblocking)
{
    if (op != HIER_OP_ALLTOALL || nonblocking || !probe_links_.pending || !probe_links_.fn) {
        return costs_;
    }
    probe_links_.pending = false;
    const auto n = size_t(topology_.node_count());
    std::vector<double> latency(probe_links_.latency_known ? 0 : n * n);
    double message_cost[2] = {-1, -1};
    if (probe_links_.fn(probe_links_.ctx, latency.empty() ? nullptr : latency.data(), message_cost) == 0) {
        if (!latency.empty()) {
            std::vector<int> cluster_of_node(n);
            for (size_t node = 0; node < n; ++node) {
                cluster_of_node[node] = topology_.cluster_of(topology_.members(int(node)).front());
            }
            apply_probe(&costs_, latency, cluster_of_node, node_hops(topology_));
        }
        apply_message_probe(&costs_, message_cost);
    }
    return costs_;
}

Communicator::Key Communicator::key(hier_op_t op, int requested, size_t block_bytes)
{
    return {int(op), requested, requested == HIER_ALG_AUTO ? size_class(block_bytes) : 0};
}

Communicator::Decision *Communicator::decided(hier_op_t op, size_t block_bytes)
{
    const auto found = decisions_.find(key(op, HIER_ALG_AUTO, block_bytes));
    return found == decisions_.end() ? nullptr : &found->second;
}

// The choice for this call, kept per collective and requested id (and for
// auto per size class): the call that makes it keeps what the model
// compared (keep_predictions). While a trial runs, *trial_call is the index
// of this call in it. A nonblocking call may not communicate: it decides a
// class by the model alone, on every rank (the same inputs give the same
// choice), and during a trial it takes the model's choice without joining
// the trial.
Choice Communicator::choose(hier_op_t op, int requested, size_t block_bytes, bool nonblocking, int *trial_call,
                            bool keep_predictions)
{
    const auto [found, first] = decisions_.try_emplace(key(op, requested, block_bytes));
    Decision &decision = found->second;
    if (first && requested != HIER_ALG_AUTO) {
        decision.choice = choose_requested(op, requested, topology_);
    } else if (first) {
        std::vector<TrialRow> measure;
        // The model's work is shared out over the ranks (autoselect.h,
        // ModelShare) when the glue lent an agreement: each rank simulates
        // its part, one allreduce combines them.
        ModelShare share;
        if (agree_.fn && !nonblocking) {
            share.index = rank_;
            share.count = topology_.size();
            share.agree = [this](double *values, size_t length) {
                return length <= size_t(std::numeric_limits<int>::max()) &&
                       agree_.fn(agree_.ctx, values, int(length)) == 0;
            };
        }
        // Kept whatever happens: a class is decided (and its model's work
        // agreed on) once, never again by one rank alone after a failure.
        try {
            decision.choice = choose_auto(op, topology_, plans_, class_block_bytes(size_class(block_bytes)), window_,
                                          link_costs_for(op, nonblocking), keep_predictions ? &predictions_ : nullptr,
                                          nonblocking ? nullptr : &measure, share);
            if (!measure.empty() && trial_calls_ > 0) {
                decision.trial.reset(new Trial(std::move(measure), trial_calls_));
            }
        } catch (...) {
            decision.choice = fallback("out of memory deciding");
        }
    }
    if (!nonblocking && decision.trial && decision.next_call < decision.trial->calls()) {
        *trial_call = decision.next_call++;
        return decision.trial->choice(*trial_call);
    }
    return decision.choice;
}

// The rule of coll_hier_dynamic_rules that decides this call of auto, if
// one covers it and names an algorithm (or the fallback): *choice, and
// *window when the rule gives one. Looked up at every call (no allocation):
// rules split sizes where auto's size classes do not.
bool Communicator::ruled(hier_op_t op, size_t block_bytes, Choice *choice, int *window) const
{
    if (!rules_) {
        return false;
    }
    const int size = topology_.size();
    const RuleMatch rule = rules_->find(op, size, rules_message_bytes(op, block_bytes, size));
    if (rule.algorithm == HIER_ALG_AUTO) {
        return false;
    }
    *choice = rule.algorithm == HIER_ALG_FALLBACK ? fallback(kByRule) : choose_requested(op, rule.algorithm, topology_);
    if (rule.window > 0) {
        *window = rule.window;
    }
    return true;
}

const hier_schedule *Communicator::schedule_of(hier_op_t op, const Choice &choice, int root)
{
    auto &cached = cache_[{int(op), choice.id, root}];
    if (!cached) {
        try {
            cached.reset(new hier_schedule{choice.algorithm->build(topology_, plans_, rank_, root)});
        } catch (...) {
            cache_.erase({int(op), choice.id, root});
            throw;
        }
    }
    return cached.get();
}

// What the verbose line says of a schedule's settings, after its reason: the
// window, when it is not 1 (MPI_T may differ between communicators); and the
// backbone pieces, where there are clusters to cut messages between.
void Communicator::describe(hier_op_t op, int window, std::string *reason) const
{
    if (window > 1) {
        *reason += (reason->empty() ? "" : "; ") + std::string("window ") + std::to_string(window);
    }
    if (backbone_piece_ != 0 && op != HIER_OP_ALLTOALLV && topology_.cluster_count() > 1) {
        *reason += (reason->empty() ? "" : "; ") + std::string("backbone pieces of ") +
                   std::to_string(backbone_piece_) + " B";
    }
}

// "size 10, 4 nodes", "size 8, 2 nodes, 4 sockets", "size 9, 9 nodes, 2 clusters", "size 16, 1 nodes, torus 4x4"
std::string Communicator::where() const
{
    const int clusters = topology_.cluster_count();
    std::string text = "size " + std::to_string(topology_.size()) + ", " + std::to_string(topology_.node_count()) +
                       " nodes";
    if (topology_.has_sockets()) {
        text += ", " + std::to_string(topology_.socket_count()) + " sockets";
    }
    if (clusters > 1) {
        text += ", " + std::to_string(clusters) + " clusters";
    }
    if (topology_.torus()) {
        text += ", torus " + topology_.torus()->describe();
    }
    return text;
}

void Communicator::explain(hier_op_t op, const hier_decision_t &decision, std::string *where_text,
                           std::string *reason) const
{
    if (where_text) {
        *where_text = where();
    }
    if (!reason) {
        return;
    }
    const char *phrase = decision.phrase ? decision.phrase : "";
    switch (decision.reason) {
    case HIER_REASON_FALLBACK: *reason = phrase; return;
    case HIER_REASON_UNFIT:
        *reason = std::string(algorithm_id_name(op, decision.unfit)) + " does not apply: " + phrase;
        return;
    case HIER_REASON_RUNS:
    case HIER_REASON_RULE: {
        const Algorithm *algorithm = algorithm_by_id(op, decision.chosen);
        const char *detail = algorithm && algorithm->detail ? algorithm->detail(topology_, plans_) : "";
        const bool by_rule = decision.reason == HIER_REASON_RULE;
        *reason = std::string(by_rule ? kByRule : "") + (by_rule && *detail ? "; " : "") + detail;
        describe(op, decision.window, reason);
        return;
    }
    }
}

void Communicator::decide(hier_op_t op, int requested, int root, size_t block_bytes, const char *unsupported,
                          bool nonblocking, int verbose, hier_decision_t *out)
{
    reset(out);
    predictions_.clear();
    if (unsupported) {
        out->phrase = unsupported;
        return;
    }
    Choice choice;
    bool by_rule = false;
    try {
        by_rule = requested == HIER_ALG_AUTO && ruled(op, block_bytes, &choice, &out->window);
        if (!by_rule) {
            choice = choose(op, requested, block_bytes, nonblocking, &out->trial_call, verbose >= 2);
        }
    } catch (...) {
        choice = fallback("out of memory deciding");
    }
    set_choice(op, choice, out);
    if (!choice.algorithm) {
        return;
    }
    try {
        out->schedule = schedule_of(op, choice, root);
    } catch (...) {
        set_choice(op, fallback("out of memory building the schedule"), out);
        return;
    }
    out->reason = by_rule ? HIER_REASON_RULE : HIER_REASON_RUNS;
}

bool Communicator::trial_record(hier_op_t op, size_t block_bytes, int trial_call, double seconds)
{
    Decision *decision = decided(op, block_bytes);
    return decision && decision->trial && decision->trial->record(trial_call, seconds);
}

int Communicator::trial_conclude(hier_op_t op, size_t block_bytes, hier_decision_t *out)
{
    Decision *found = decided(op, block_bytes);
    int outcome = HIER_TRIAL_CONCLUDED;
    reset(out);
    predictions_.clear();
    if (!found || !found->trial) {  // no trial runs: the class's choice stands
        set_choice(op, found ? found->choice : fallback("no trial runs for this size class"), out);
        return outcome;
    }
    Decision &decision = *found;
    try {
        if (!decision.trial->agree_times(agree_.fn, agree_.ctx)) {
            decision.choice = fallback("the ranks could not agree on the trial's times");
            outcome = HIER_TRIAL_UNAGREED;
        } else if (decision.trial->extend(&predictions_)) {
            return HIER_TRIAL_EXTENDED;
        } else {
            decision.choice = decision.trial->conclude(&predictions_);
        }
    } catch (...) {
        decision.choice = fallback("out of memory concluding the measurement");
    }
    decision.trial.reset();
    set_choice(op, decision.choice, out);
    return outcome;
}

} // namespace hier
