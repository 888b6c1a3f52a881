/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// hier-inspect rules: the rules auto would apply on a described machine,
// written as a coll_hier_dynamic_rules file (docs/rules-file.md), so that a
// site can freeze auto's decisions and edit them. For each collective and
// size class of blocks up to --bytes (1 MiB by default), auto's choice from
// its model (core/autoselect.h, as with coll_hier_auto_trial_calls 0);
// classes in a row with one choice become one rule, from the communicator's
// size up.
#include <cstdio>
#include <string>

#include "autoselect.h"
#include "commands.h"
#include "rules_file.h"

namespace hier::inspect {

namespace {

const char *const kUsage =
    "hier-inspect: rules takes NODE_SIZES [--clusters SIZES] [--torus DIMS] [--costs LINK_COSTS] [--bytes B] "
    "[--window W], e.g. rules 4,3,2,1 --clusters 2,2 --costs backbone=5ms:100Mbit/s --bytes 65536";

// op's rules on topology: one per run of size classes with one choice.
CommRules rules_for(hier_op_t op, const Topology &topology, const Plans &plans, const MachineOptions &o)
{
    CommRules rules;
    rules.comm_size = topology.size();
    // alltoallv and barrier have no message size (rules_message_bytes): one rule.
    const bool sized = rules_message_bytes(op, 1, topology.size()) > 0;
    const int last_class = sized ? size_class(o.bytes) : 0;
    for (int klass = 0; klass <= last_class; ++klass) {
        const Choice choice = choose_auto(op, topology, plans, class_block_bytes(klass), o.window, o.costs, nullptr);
        if (!rules.messages.empty() && rules.messages.back().algorithm == choice.id) {
            continue;
        }
        MessageRule rule;
        rule.message_bytes = klass == 0 ? 0 : rules_message_bytes(op, size_t(1) << klass, topology.size());
        rule.algorithm = choice.id;
        rule.window = o.window > 1 ? o.window : 0;
        rules.messages.push_back(rule);
    }
    return rules;
}

} // namespace

int rules(const Arguments &args)
{
    MachineOptions o;
    o.bytes = size_t(1) << 20;
    if (int rc = parse_machine_options(args, kUsage, &o)) {
        return rc;
    }
    const Topology topology = machine_topology(o);
    const Plans plans;  // as a communicator keeps them beside its topology
    RuleSet set;
    set.version = 2;
    for (int op = 0; op < HIER_OP_COUNT; ++op) {  // format_rules writes them in Open MPI's order of ids
        set.ops[op].push_back(rules_for(hier_op_t(op), topology, plans, o));
    }
    const std::string torus = topology.torus() ? ", torus " + topology.torus()->describe() : "";
    std::printf("# hier-inspect rules %s: auto's choices on nodes %s (%d ranks, %d nodes, %d cluster%s%s), "
                "blocks up to %zu B, window %d, link costs %s\n",
                args[0].c_str(), topology.describe().c_str(), topology.size(), topology.node_count(),
                topology.cluster_count(), topology.cluster_count() == 1 ? "" : "s", torus.c_str(), o.bytes, o.window,
                o.costs.any_given() ? "as given (--costs)" : "unknown");
    std::fputs(format_rules(set).c_str(), stdout);
    return 0;
}

} // namespace hier::inspect
