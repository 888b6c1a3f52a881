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
// settings: nodes, clusters, torus, costs), the plans its algorithms derive
// from it (Plans, algorithms.h), auto's decision per collective and size
// class with its trial, the schedules built, the rules it agreed on, its
// window and link costs, and the agreement the glue lends it. It
// answers one call's question whole (hier_comm_decide) with a small value:
// the schedule or the fallback, the algorithm's id, the window, the trial's
// index and a reason code; its text is rendered only where it is printed
// (explain). It owns auto's trials: record says when to agree, and
// conclude agrees and decides.
#ifndef HIER_COMMUNICATOR_H
#define HIER_COMMUNICATOR_H

#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "algorithms.h"
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

    // One call's answer (hier_comm_decide).
    void decide(hier_op_t op, int requested, int root, size_t block_bytes, const char *unsupported,
                bool nonblocking, int verbose, hier_decision_t *out);
    // The verbose texts of a decision (hier_comm_explain); either may be
    // nullptr.
    void explain(hier_op_t op, const hier_decision_t &decision, std::string *where, std::string *reason) const;
    // What the model compared at the last decision that decided a class at
    // verbose 2, or the last trial's line; empty otherwise.
    const std::string &predictions() const { return predictions_; }

    // A trial's call took seconds here: true when the ranks must now
    // conclude (the trial's last call so far).
    bool trial_record(hier_op_t op, size_t block_bytes, int trial_call, double seconds);
    // Collective: agrees on the trial's times and decides (the
    // HIER_TRIAL_* of hier_core.h); the class's choice in *out once
    // concluded.
    int trial_conclude(hier_op_t op, size_t block_bytes, hier_decision_t *out);

private:
    struct Decision {
        Choice choice;
        std::unique_ptr<Trial> trial;
        int next_call = 0;
    };

    Communicator(Topology topology, const hier_comm_input_t &input, const Settings &settings, LinkCostSpec costs);

    // A decision's collective, requested id and size class (0 but for auto).
    using Key = std::tuple<int, int, int>;
    static Key key(hier_op_t op, int requested, size_t block_bytes);
    Decision *decided(hier_op_t op, size_t block_bytes);
    Choice choose(hier_op_t op, int requested, size_t block_bytes, bool nonblocking, int *trial_call,
                  bool keep_predictions);
    const LinkCostSpec &link_costs_for(hier_op_t op, bool nonblocking);
    bool ruled(hier_op_t op, size_t block_bytes, Choice *choice, int *window) const;
    const hier_schedule *schedule_of(hier_op_t op, const Choice &choice, int root);
    void describe(hier_op_t op, int window, std::string *reason) const;
    std::string where() const;
    void reset(hier_decision_t *out) const;
    void set_choice(hier_op_t op, const Choice &choice, hier_decision_t *out) const;

    Topology topology_;
    // Built at their first use, by the decisions and the builders alike.
    Plans plans_;
    int rank_;
    int window_;
    int trial_calls_;      // coll_hier_auto_trial_calls
    size_t backbone_piece_;  // for the verbose line
    LinkCostSpec costs_;
    // The link-cost probes lent by the glue, run once at the first decision
    // that weighs the costs (a blocking alltoall's auto): a communicator
    // whose calls never do pays no probe.
    struct ProbeLinks {
        int (*fn)(void *ctx, double *node_latency, double message_cost[2]) = nullptr;
        void *ctx = nullptr;
        bool pending = false;         // costs_ still lacks what they measure
        bool latency_known = false;   // the input's latency is in costs_ already
    } probe_links_;
    const RuleSet *rules_;   // coll_hier_dynamic_rules, agreed on; or nullptr
    AgreeMax agree_;
    // Schedules depend on the topology (and its plans), the algorithm and the
    // root only, so each is built once per communicator.
    std::map<std::tuple<int, int, int>, std::unique_ptr<hier_schedule>> cache_;
    // The decision per collective and requested id, and for auto per size
    // class (key()), made at the first call, for the ones used only: later
    // calls look it up and allocate nothing. While a trial runs (the model
    // could not tell), each call takes the trial's next contender.
    std::map<Key, Decision> decisions_;
    std::string predictions_;
};

} // namespace hier

struct hier_comm {
    std::unique_ptr<hier::Communicator> communicator;
};

#endif // HIER_COMMUNICATOR_H
