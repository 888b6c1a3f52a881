// The C ABI of hier_core.h over the C++ core.
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <tuple>

#include "algorithms.h"
#include "cost.h"
#include "embedding.h"
#include "execute.h"
#include "hier_core.h"
#include "registry.h"
#include "topology.h"

struct hier_schedule {
    hier::Schedule schedule;
};

struct hier_comm {
    hier::Topology topology;
    int rank;
    // Schedules depend on the topology, the algorithm and the root only, so
    // each is built once per communicator.
    std::map<std::tuple<int, int, int>, std::unique_ptr<hier_schedule>> cache;
};

namespace {

void write_line(char *out, size_t len, const std::string &text)
{
    if (out && len > 0) {
        std::strncpy(out, text.c_str(), len - 1);
        out[len - 1] = '\0';
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

namespace {

// The cluster of each node of topology (numbered as it numbers them), from
// a cluster per rank, the latency probe, or the map; empty and *error set if
// the map does not fit.
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
    if (map == hier::kProbeClusters) {
        if (!input.node_latency) {
            *error = "coll_hier_cluster_map \"probe\": the latency probe did not run";
            return {};
        }
        const auto n = size_t(topology.node_count());
        return hier::clusters_from_latency(std::vector<double>(input.node_latency, input.node_latency + n * n));
    }
    if (!map.empty()) {
        return hier::parse_cluster_map(map, topology.node_count(), error);
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
        if (!error.empty()) {
            write_line(err, errlen, error);
            return nullptr;
        }
        hier::Topology topology(nodes, cluster_of_node);
        auto costs = hier::costs_from_setting(topology, cost_setting(topology, *input), &error);
        if (!costs) {
            write_line(err, errlen, error);
            return nullptr;
        }
        topology.set_costs(std::move(costs));
        topology.set_hypercube_embedding(embedding);
        return new hier_comm{std::move(topology), input->rank, {}};
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

const hier_schedule_t *hier_comm_select(hier_comm_t *comm, hier_op_t op, int requested, int root,
                                        size_t block_bytes, int *chosen, char *reason, size_t reasonlen)
{
    hier::Choice choice;
    try {
        choice = hier::choose(op, requested, comm->topology, block_bytes);
    } catch (...) {  // building the hypercube's embedding for auto may run out of memory
        *chosen = HIER_ALG_FALLBACK;
        write_line(reason, reasonlen, "out of memory choosing the algorithm");
        return nullptr;
    }
    *chosen = choice.id;
    if (!choice.algorithm) {
        if (choice.unfit) {
            std::snprintf(reason, reasonlen, "%s does not apply: %s", choice.unfit->name, choice.reason);
        } else {
            std::snprintf(reason, reasonlen, "%s", choice.reason);
        }
        return nullptr;
    }
    try {
        auto &cached = comm->cache[{int(op), choice.id, root}];
        if (!cached) {
            cached.reset(new hier_schedule{choice.algorithm->build(comm->topology, comm->rank, root)});
        }
        const char *detail = choice.algorithm->detail ? choice.algorithm->detail(comm->topology) : "";
        std::snprintf(reason, reasonlen, "%s", detail);
        return cached.get();
    } catch (...) {  // no C++ exception may reach the C glue
        comm->cache.erase({int(op), choice.id, root});
        *chosen = HIER_ALG_FALLBACK;
        write_line(reason, reasonlen, "out of memory building the schedule");
        return nullptr;
    }
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
