// The C ABI of hier_core.h over the C++ core.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <tuple>

#include "autoselect.h"
#include "algorithms.h"
#include "cost.h"
#include "embedding.h"
#include "execute.h"
#include "hostmap.h"
#include "hier_core.h"
#include "link_costs.h"
#include "registry.h"
#include "rules_file.h"
#include "topology.h"

struct hier_schedule {
    hier::Schedule schedule;
};

struct hier_rules {
    hier::RuleSet set;
    unsigned long long hash;
};

struct hier_comm {
    hier::Topology topology;
    int rank;
    int window;
    int trial_calls;  // coll_hier_auto_trial_calls
    hier::LinkCostSpec costs;
    const hier_rules *rules;  // coll_hier_dynamic_rules, or nullptr
    // Schedules depend on the topology, the algorithm and the root only, so
    // each is built once per communicator.
    std::map<std::tuple<int, int, int>, std::unique_ptr<hier_schedule>> cache;
    // auto's decision per collective and size class, made at the first call
    // of the class: later calls look it up and allocate nothing. While a
    // trial runs (the model could not tell), each call takes the trial's
    // next contender; the glue concludes after the last.
    struct Decision {
        bool made = false;
        hier::Choice choice;
        std::unique_ptr<hier::Trial> trial;
        int next_call = 0;
    };
    std::array<std::array<Decision, hier::kSizeClasses>, HIER_OP_COUNT> decisions{};
};

namespace {

// Copies text, cut to len - 1 bytes, and its end (only those: it runs at
// every call, and strncpy would write all len).
void write_line(char *out, size_t len, const std::string &text)
{
    if (out && len > 0) {
        const size_t used = std::min(text.size(), len - 1);
        std::memcpy(out, text.data(), used);
        out[used] = '\0';
    }
}

// Runs one of the core's map parsers for the C ABI: fills out[0..total), or
// writes its one-line error and returns -1.
int parse_into(std::vector<int> (*parse)(const std::string &, int, std::string *), const char *parameter,
               const char *text, int total, int *out, char *err, size_t errlen)
{
    try {
        std::string error;
        const std::vector<int> groups = parse(text ? text : "", total, &error);
        if (!error.empty()) {
            write_line(err, errlen, error);
            return -1;
        }
        std::copy(groups.begin(), groups.end(), out);
        return 0;
    } catch (...) {  // no C++ exception may reach the C glue
        write_line(err, errlen, std::string(parameter) + ": out of memory");
        return -1;
    }
}

} // namespace

extern "C" {

int hier_algorithm_count(hier_op_t op)
{
    return hier::algorithm_id_count(op);
}

const char *hier_algorithm_name(hier_op_t op, int id)
{
    return hier::algorithm_id_name(op, id);
}

const char *hier_algorithm_description(hier_op_t op, int id)
{
    return hier::algorithm_id_description(op, id);
}

const char *hier_op_name(hier_op_t op)
{
    return hier::op_name(op);
}

int hier_one_factor_rounds(int n)
{
    return hier::one_factor_rounds(n);
}

int hier_one_factor_partner(int i, int round, int n)
{
    return hier::one_factor_partner(i, round, n);
}

int hier_embedding_count(void)
{
    return hier::embedding_id_count();
}

const char *hier_embedding_name(int id)
{
    return hier::embedding_id_name(id);
}

const char *hier_embedding_description(int id)
{
    return hier::embedding_id_description(id);
}

int hier_parse_node_map(const char *text, int size, int *node_of_rank, char *err, size_t errlen)
{
    return parse_into(hier::parse_node_map, "coll_hier_node_map", text, size, node_of_rank, err, errlen);
}

int hier_parse_cluster_map(const char *text, int node_count, int *cluster_of_node, char *err, size_t errlen)
{
    return parse_into(hier::parse_cluster_map, "coll_hier_cluster_map", text, node_count, cluster_of_node, err,
                      errlen);
}

int hier_parse_torus_dims(const char *text, int ranks, int *dims, int max_dims, char *err, size_t errlen)
{
    try {
        std::string error;
        const std::vector<int> sizes = hier::parse_torus_dims(text ? text : "", ranks, &error);
        if (sizes.size() > size_t(max_dims)) {
            error = "coll_hier_torus_dims \"" + std::string(text) + "\" has more than " +
                    std::to_string(max_dims) + " dimensions";
        }
        if (!error.empty()) {
            write_line(err, errlen, error);
            return -1;
        }
        std::copy(sizes.begin(), sizes.end(), dims);
        return static_cast<int>(sizes.size());
    } catch (...) {  // no C++ exception may reach the C glue
        write_line(err, errlen, "coll_hier_torus_dims: out of memory");
        return -1;
    }
}

int hier_check_link_costs(const char *text, char *err, size_t errlen)
{
    try {
        hier::LinkCostSpec spec;
        std::string error;
        if (hier::parse_link_costs(text ? text : "", &spec, &error)) {
            write_line(err, errlen, "");
            return 0;
        }
        write_line(err, errlen, error);
    } catch (...) {  // no C++ exception may reach the C glue
        write_line(err, errlen, "coll_hier_link_costs: out of memory");
    }
    return -1;
}

int hier_alltoall_modelled(int ranks, int nodes)
{
    return hier::alltoall_unmodelled(ranks, nodes) ? 0 : 1;
}

int hier_link_costs_want_probe(const char *text)
{
    try {
        hier::LinkCostSpec spec;
        std::string error;
        return hier::parse_link_costs(text ? text : "", &spec, &error) && spec.probe ? 1 : 0;
    } catch (...) {  // no C++ exception may reach the C glue
        return 0;
    }
}

hier_cluster_map_kind_t hier_cluster_map_kind(const char *text)
{
    const std::string map = text ? text : "";
    if (map.empty()) {
        return HIER_CLUSTER_MAP_NONE;
    }
    if (map == hier::kProbeClusters) {
        return HIER_CLUSTER_MAP_PROBE;
    }
    return hier::is_host_map(map) ? HIER_CLUSTER_MAP_HOSTS : HIER_CLUSTER_MAP_COUNTS;
}

int hier_check_cluster_map(const char *text, char *err, size_t errlen)
{
    try {
        const std::string error =
            hier_cluster_map_kind(text) == HIER_CLUSTER_MAP_HOSTS ? hier::check_host_map(text) : std::string();
        write_line(err, errlen, error);
        return error.empty() ? 0 : -1;
    } catch (...) {  // no C++ exception may reach the C glue
        write_line(err, errlen, "coll_hier_cluster_map: out of memory");
        return -1;
    }
}

namespace {

// Every rank's host name from the glue's fixed-width fields; empty and
// *error set if one did not fit.
std::vector<std::string> host_names(const hier_comm_input_t &input, std::string *error)
{
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

// Hops between every two nodes (a * n + b) on a torus of nodes; empty
// without one.
std::vector<int> node_hops(const hier::Topology &topology)
{
    const hier::Torus *torus = topology.torus_of_nodes();
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

// The torus's sizes from the input, or empty and *error set when they do not
// describe the communicator.
std::vector<int> torus_of(const hier_comm_input_t &input, std::string *error)
{
    if (input.torus_ndims <= 0) {
        return {};
    }
    std::vector<int> dims(input.torus_dims, input.torus_dims + input.torus_ndims);
    long long covered = 1;
    for (int size : dims) {
        covered = size < 1 ? 0 : std::min(covered * size, 1LL << 40);
    }
    if (covered != input.size) {
        *error = "torus of " + hier::Torus(dims).describe() + " does not cover the " + std::to_string(input.size) +
                 " ranks of the communicator";
        return {};
    }
    return dims;
}

// The cluster of each node of topology (numbered as it numbers them), from
// a cluster per rank, the latency probe, host patterns or counts; empty and
// *error set if the map does not fit.
std::vector<int> clusters_of_nodes(const hier::Topology &topology, const hier_comm_input_t &input,
                                   std::string *error)
{
    if (input.cluster_of_rank) {
        std::vector<int> clusters(topology.node_count());
        for (int rank = 0; rank < topology.size(); ++rank) {
            clusters[topology.node_of(rank)] = input.cluster_of_rank[rank];
        }
        return clusters;
    }
    const std::string map = input.cluster_map ? input.cluster_map : "";
    switch (hier_cluster_map_kind(input.cluster_map)) {
    case HIER_CLUSTER_MAP_NONE: return {};
    case HIER_CLUSTER_MAP_COUNTS: return hier::parse_cluster_map(map, topology.node_count(), error);
    case HIER_CLUSTER_MAP_HOSTS: {
        if (!input.host_names) {
            *error = "coll_hier_cluster_map \"" + map + "\": the host names were not gathered";
            return {};
        }
        const std::vector<std::string> names = host_names(input, error);
        return error->empty()
                   ? hier::clusters_from_host_map(map, topology, names, input.job_wide != 0, error)
                   : std::vector<int>();
    }
    case HIER_CLUSTER_MAP_PROBE: {
        if (!input.node_latency) {
            *error = "coll_hier_cluster_map \"probe\": the latency probe did not run";
            return {};
        }
        const auto n = size_t(topology.node_count());
        return hier::clusters_from_latency(std::vector<double>(input.node_latency, input.node_latency + n * n));
    }
    }
    return {};
}

hier::CostSetting cost_setting(const hier::Topology &topology, const hier_comm_input_t &input)
{
    hier::CostSetting setting;
    const size_t p = size_t(input.size);
    setting.value = input.cost ? input.cost : "";
    if (input.node_latency) {
        const auto n = size_t(topology.node_count());
        setting.node_latency.assign(input.node_latency, input.node_latency + n * n);
    }
    if (input.world_rank) {
        setting.world_rank.assign(input.world_rank, input.world_rank + p);
    }
    setting.world_size = input.world_size;
    if (input.world_node && input.world_node_count > 0) {
        setting.world_node.assign(input.world_node, input.world_node + p);
        setting.world_node_count = input.world_node_count;
    }
    return setting;
}

// The embedding's id, or -1 and one line in *error.
int embedding_setting(const char *value, std::string *error)
{
    if (!value || !*value) {
        return hier::kEmbeddingAuto;
    }
    const int id = hier::embedding_id(value);
    if (id < 0) {
        std::string names;
        for (int other = 0; other < hier::embedding_id_count(); ++other) {
            names += (other ? ", " : "") + std::string(hier::embedding_id_name(other));
        }
        *error = "coll_hier_hypercube_embedding \"" + std::string(value) + "\" is not one of " + names;
    }
    return id;
}

} // namespace

int hier_check_settings(const char *cost, const char *embedding, char *err, size_t errlen)
{
    try {
        std::string error = hier::cost_setting_error(cost ? cost : "");
        if (error.empty()) {
            embedding_setting(embedding, &error);
        }
        write_line(err, errlen, error);
        return error.empty() ? 0 : -1;
    } catch (...) {  // no C++ exception may reach the C glue
        write_line(err, errlen, "coll_hier_cost: out of memory");
        return -1;
    }
}

hier_comm_t *hier_comm_create(const hier_comm_input_t *input, char *err, size_t errlen)
{
    write_line(err, errlen, "");
    try {
        const std::vector<int> nodes(input->node_of_rank, input->node_of_rank + input->size);
        std::string error;
        const std::vector<int> cluster_of_node = clusters_of_nodes(hier::Topology(nodes), *input, &error);
        const int embedding = error.empty() ? embedding_setting(input->hypercube_embedding, &error) : -1;
        const std::vector<int> torus_dims = error.empty() ? torus_of(*input, &error) : std::vector<int>();
        if (!error.empty()) {
            write_line(err, errlen, error);
            return nullptr;
        }
        hier::LinkCostSpec costs;
        std::string ignored;  // the glue reports a bad value once; here it is unknown costs
        if (!hier::parse_link_costs(input->link_costs ? input->link_costs : "", &costs, &ignored)) {
            costs = hier::LinkCostSpec();
        }
        hier::Topology topology(nodes, cluster_of_node, torus_dims);
        if (costs.probe && input->node_latency) {
            const auto n = size_t(topology.node_count());
            hier::apply_probe(&costs, std::vector<double>(input->node_latency, input->node_latency + n * n),
                              cluster_of_node, node_hops(topology));
        }
        auto pair_costs = hier::costs_from_setting(topology, cost_setting(topology, *input), &error);
        if (!pair_costs) {
            write_line(err, errlen, error);
            return nullptr;
        }
        topology.set_costs(std::move(pair_costs));
        topology.set_hypercube_embedding(embedding);
        return new hier_comm{std::move(topology), input->rank, input->window,
                             std::max(input->auto_trial_calls, 0), costs, input->rules, {}, {}};
    } catch (...) {  // no C++ exception may reach the C glue
        return nullptr;
    }
}

void hier_comm_destroy(hier_comm_t *comm)
{
    delete comm;
}

int hier_comm_node_count(const hier_comm_t *comm)
{
    return comm->topology.node_count();
}

int hier_comm_cluster_count(const hier_comm_t *comm)
{
    return comm->topology.cluster_count();
}

int hier_comm_node_of(const hier_comm_t *comm, int rank)
{
    return comm->topology.node_of(rank);
}

int hier_comm_cluster_of(const hier_comm_t *comm, int rank)
{
    return comm->topology.cluster_of(rank);
}

void hier_comm_apply_message_cost(hier_comm_t *comm, const double message_cost[2])
{
    if (comm->costs.probe) {
        hier::apply_message_probe(&comm->costs, message_cost);
    }
}

void hier_comm_torus(const hier_comm_t *comm, char *out, size_t len)
{
    try {
        write_line(out, len, comm->topology.torus() ? comm->topology.torus()->describe() : "");
    } catch (...) {  // no C++ exception may reach the C glue
        write_line(out, len, "");
    }
}

namespace {

hier_comm::Decision &decision_for(hier_comm_t *comm, hier_op_t op, size_t block_bytes)
{
    return comm->decisions[op][hier::size_class(block_bytes)];
}

// auto's choice for this call: cached per size class; the call that makes
// it writes what the model compared. While a trial runs, *trial_call is
// the index of this call in it (else -1).
hier::Choice decide(hier_comm_t *comm, hier_op_t op, size_t block_bytes, int *trial_call, char *predictions,
                    size_t len)
{
    hier_comm::Decision &decision = decision_for(comm, op, block_bytes);
    if (!decision.made) {
        std::string line;
        std::vector<hier::TrialRow> measure;
        decision.choice = hier::choose_auto(op, comm->topology, hier::class_block_bytes(hier::size_class(block_bytes)),
                                            comm->window, comm->costs, len > 0 ? &line : nullptr, &measure);
        decision.made = true;
        if (!measure.empty() && comm->trial_calls > 0) {
            decision.trial.reset(new hier::Trial(std::move(measure), comm->trial_calls));
        }
        write_line(predictions, len, line);
    }
    if (decision.trial && decision.next_call < decision.trial->calls()) {
        *trial_call = decision.next_call++;
        return decision.trial->choice(*trial_call);
    }
    return decision.choice;
}

constexpr const char *kByRule = "by coll_hier_dynamic_rules";

// The rule of coll_hier_dynamic_rules that decides this call of auto, if
// one covers it and names an algorithm (or the fallback): *choice, and
// *window when the rule gives one. Looked up at every call (no allocation):
// rules split sizes where auto's size classes do not.
bool ruled(const hier_comm_t *comm, hier_op_t op, size_t block_bytes, hier::Choice *choice, int *window)
{
    if (!comm->rules) {
        return false;
    }
    const int size = comm->topology.size();
    const hier::RuleMatch rule = comm->rules->set.find(op, size, hier::rules_message_bytes(op, block_bytes, size));
    if (rule.algorithm == HIER_ALG_AUTO) {
        return false;
    }
    *choice = rule.algorithm == HIER_ALG_FALLBACK ? hier::fallback(kByRule)
                                                  : hier::choose_requested(op, rule.algorithm, comm->topology);
    if (rule.window > 0) {
        *window = rule.window;
    }
    return true;
}

} // namespace

const hier_schedule_t *hier_comm_select(hier_comm_t *comm, hier_op_t op, int requested, int root,
                                        size_t block_bytes, int *chosen, int *window, int *trial_call,
                                        char *reason, size_t reasonlen, char *predictions, size_t predictionslen)
{
    write_line(predictions, predictionslen, "");
    *trial_call = -1;
    *window = comm->window;
    hier::Choice choice;
    bool by_rule = false;
    try {
        by_rule = requested == HIER_ALG_AUTO && ruled(comm, op, block_bytes, &choice, window);
        if (!by_rule) {
            choice = requested == HIER_ALG_AUTO
                         ? decide(comm, op, block_bytes, trial_call, predictions, predictionslen)
                         : hier::choose_requested(op, requested, comm->topology);
        }
    } catch (...) {  // no C++ exception may reach the C glue
        choice = hier::fallback("out of memory deciding");
    }
    *chosen = choice.id;
    if (!choice.algorithm) {
        if (reasonlen > 0 && choice.unfit) {
            std::snprintf(reason, reasonlen, "%s does not apply: %s", choice.unfit->name, choice.reason);
        } else if (reasonlen > 0) {
            std::snprintf(reason, reasonlen, "%s", choice.reason);
        }
        return nullptr;
    }
    try {
        auto &cached = comm->cache[{int(op), choice.id, root}];
        if (!cached) {
            cached.reset(new hier_schedule{choice.algorithm->build(comm->topology, comm->rank, root)});
        }
        if (reasonlen == 0) {
            return cached.get();
        }
        const char *detail = choice.algorithm->detail ? choice.algorithm->detail(comm->topology) : "";
        std::snprintf(reason, reasonlen, "%s%s%s", by_rule ? kByRule : "", by_rule && *detail ? "; " : "",
                      detail);
        return cached.get();
    } catch (...) {  // no C++ exception may reach the C glue
        comm->cache.erase({int(op), choice.id, root});
        *chosen = HIER_ALG_FALLBACK;
        write_line(reason, reasonlen, "out of memory building the schedule");
        return nullptr;
    }
}

int hier_size_class(size_t block_bytes)
{
    return hier::size_class(block_bytes);
}

int hier_comm_fallback_settled(hier_comm_t *comm, hier_op_t op, int requested, size_t block_bytes)
{
    if (requested != HIER_ALG_AUTO) {
        return !hier::choose_requested(op, requested, comm->topology).algorithm;
    }
    // Where the rules cover op, a later call of the class may fall under another rule.
    if (comm->rules && !comm->rules->set.ops[op].empty()) {
        return 0;
    }
    const hier_comm::Decision &decision = decision_for(comm, op, block_bytes);
    return decision.made && !decision.trial && !decision.choice.algorithm;
}

double *hier_comm_trial_seconds(hier_comm_t *comm, hier_op_t op, size_t block_bytes, int *calls)
{
    hier::Trial &trial = *decision_for(comm, op, block_bytes).trial;
    *calls = trial.calls();
    return trial.seconds().data();
}

int hier_comm_trial_conclude(hier_comm_t *comm, hier_op_t op, size_t block_bytes, int *chosen, char *reason,
                             size_t reasonlen, char *line, size_t linelen)
{
    hier_comm::Decision &decision = decision_for(comm, op, block_bytes);
    std::string text;
    try {
        if (decision.trial->extend(&text)) {
            write_line(line, linelen, text);
            return 0;
        }
        decision.choice = decision.trial->conclude(&text);
    } catch (...) {  // no C++ exception may reach the C glue
        decision.choice = hier::fallback("out of memory concluding the measurement");
    }
    decision.trial.reset();
    *chosen = decision.choice.id;
    write_line(reason, reasonlen, decision.choice.reason ? decision.choice.reason : "");
    write_line(line, linelen, text);
    return 1;
}

hier_rules_t *hier_rules_load(const char *path, char *err, size_t errlen)
{
    try {
        std::string error;
        std::unique_ptr<hier_rules> rules(new hier_rules{});
        if (!hier::load_rules_file(path, &rules->set, &error)) {
            write_line(err, errlen, error);
            return nullptr;
        }
        // FNV-1a over the rules as format_rules writes them: files that say
        // the same (comments and spacing aside) agree.
        unsigned long long hash = 0xCBF29CE484222325ull;
        for (unsigned char c : hier::format_rules(rules->set)) {
            hash = (hash ^ c) * 0x100000001B3ull;
        }
        rules->hash = hash >> 2;
        return rules.release();
    } catch (...) {  // no C++ exception may reach the C glue
        write_line(err, errlen, "coll_hier_dynamic_rules: out of memory");
        return nullptr;
    }
}

void hier_rules_free(hier_rules_t *rules)
{
    delete rules;
}

unsigned long long hier_rules_hash(const hier_rules_t *rules)
{
    return rules->hash;
}

size_t hier_schedule_tmp_blocks(const hier_schedule_t *schedule)
{
    return schedule->schedule.tmp_blocks();
}

int hier_execute(const hier_schedule_t *schedule, const hier_transport_t *transport, int window)
{
    return hier::execute(schedule->schedule, *transport, window);
}

} // extern "C"
