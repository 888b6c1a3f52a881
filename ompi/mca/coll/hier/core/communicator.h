/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// hier::Communicator: everything coll/hier keeps per communicator: its
// topology (assembled here from the facts the glue gathered and the parsed
// settings: nodes, clusters, torus, costs), auto's decision per collective
// and size class with its trial, the schedules built, the rules it agreed
// on, its window and link costs, and the agreement the glue lends it. It
// answers one call's question whole (hier_comm_decide): the schedule or the
// fallback, the algorithm's id, the window, the trial's index, whether the
// fallback is settled, and the verbose texts only when they are asked for.
#ifndef HIER_COMMUNICATOR_H
#define HIER_COMMUNICATOR_H

#include <array>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "autoselect.h"
#include "hier_core.h"
#include "link_costs.h"
#include "registry.h"
#include "rules_file.h"
#include "schedule.h"
#include "settings.h"
#include "topology.h"

struct hier_schedule {
    hier::Schedule schedule;
};

namespace hier {

// The glue's agreement over the communicator's ranks: values[i] becomes
// their maximum over the ranks (one MPI_Allreduce through the previous
// module). Returns 0, or the glue's error code. Collective: every rank calls
// it alike, or none does. fn nullptr: none lent (one process, or tests).
struct AgreeMax {
    int (*fn)(void *ctx, double *values, int count) = nullptr;
    void *ctx = nullptr;
};

// Copies text into out, cut to len - 1 bytes, and its end (only those: it
// runs at every call, and strncpy would write all len); nothing for a null
// out or a len of 0.
void write_text(char *out, size_t len, const std::string &text);

class Communicator {
public:
    // Why a communicator could not be made: the line (naming the parameter
    // and the expected form), the verbose line's reason ("invalid
    // coll_hier_cost"), and whether the line is the settings' own (said once
    // per process when they were parsed). Empty line: out of memory.
    struct Failure {
        std::string line;
        const char *reason = "invalid setting";
        bool reported = false;
        // A line to say even when the communicator is made (a cluster
        // source that found nothing: it runs without clusters).
        std::string notice;
    };

    // The communicator input describes, or nullptr and *failure when a
    // setting does not fit it.
    static std::unique_ptr<Communicator> create(const hier_comm_input_t &input, Failure *failure);

    const Topology &topology() const { return topology_; }
    const AgreeMax &agree() const { return agree_; }

    // The message probe's result (hier_comm_apply_message_cost).
    void apply_message_cost(const double message_cost[2]);

    // One call's answer (hier_comm_decide).
    void decide(hier_op_t op, int requested, int root, size_t block_bytes, const char *unsupported,
                bool nonblocking, int verbose, hier_decision_t *out);

    // The running trial of block_bytes' class: its seconds, *calls of them.
    double *trial_seconds(hier_op_t op, size_t block_bytes, int *calls);
    // After the trial's last call so far: false (another round; its line in
    // out->predictions) or true with the class's choice in *out.
    bool trial_conclude(hier_op_t op, size_t block_bytes, hier_decision_t *out);

private:
    struct Decision {
        bool made = false;
        Choice choice;
        std::unique_ptr<Trial> trial;
        int next_call = 0;
    };

    Communicator(Topology topology, const hier_comm_input_t &input, const Settings &settings, LinkCostSpec costs);

    Decision &decision_for(hier_op_t op, size_t block_bytes);
    Choice decide_auto(hier_op_t op, size_t block_bytes, bool nonblocking, int *trial_call,
                       std::string *predictions);
    bool ruled(hier_op_t op, size_t block_bytes, Choice *choice, int *window) const;
    bool fallback_settled(hier_op_t op, int requested, size_t block_bytes);
    const hier_schedule *schedule_of(hier_op_t op, const Choice &choice, int root);
    void describe(hier_op_t op, int window, std::string *reason) const;
    void where(hier_decision_t *out) const;
    void say_where(int verbose, hier_decision_t *out) const;
    void reset(hier_decision_t *out) const;

    Topology topology_;
    int rank_;
    int window_;
    int trial_calls_;      // coll_hier_auto_trial_calls
    size_t backbone_piece_;  // for the verbose line
    LinkCostSpec costs_;
    const RuleSet *rules_;   // coll_hier_dynamic_rules, agreed on; or nullptr
    AgreeMax agree_;
    // Schedules depend on the topology, the algorithm and the root only, so
    // each is built once per communicator.
    std::map<std::tuple<int, int, int>, std::unique_ptr<hier_schedule>> cache_;
    // auto's decision per collective and size class, made at the first call
    // of the class: later calls look it up and allocate nothing. While a
    // trial runs (the model could not tell), each call takes the trial's
    // next contender; the glue concludes after the last.
    std::array<std::array<Decision, kSizeClasses>, HIER_OP_COUNT> decisions_{};
};

} // namespace hier

struct hier_comm {
    std::unique_ptr<hier::Communicator> communicator;
};

#endif // HIER_COMMUNICATOR_H
