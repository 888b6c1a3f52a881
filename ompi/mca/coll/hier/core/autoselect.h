/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// auto: which registry row, or the fallback, for a collective on a
// topology, from the time model (model.h).
//
// For alltoall: every row that applies is predicted at the window in force,
// and so is what Open MPI would run (tuned_alltoall.h, at its own strict
// order); a row is picked only if its prediction beats Open MPI's by
// kAutoMargin, on every machine the link costs allow (link_costs.h: one when
// the user gave every class, the corners of the unknown classes otherwise).
// Where probed costs leave the outcome to the probes' noise (kProbeBand),
// the corners decide instead. A communicator on one node falls back. Above kMaxModelledRanks the
// predictions are the scale model's (scale_model.h), not the simulator's.
// The collectives without a model of Open MPI's own algorithms go by the
// rows' rules (registry.h: Algorithm::auto_declines): opt on a torus
// where it is predicted faster than Open MPI's own scatter or gather on
// every machine the link costs allow (torus_opt.cc, closed forms);
// lg_at_once for alltoallv across clusters; the hypercube where costs are
// uneven enough.
//
// Where the model cannot tell (no row 20 % faster on every machine, but
// rows within kTrialUpTo of Open MPI's on some machine), auto measures
// instead: the first calls of the size class run Open MPI's and the
// kTrialRows closest rows in turn (Trial), and the fastest is kept.
//
// Decisions are made per size class (block bytes in [2^k, 2^(k+1))), at the
// class's middle; the caller caches them (communicator.cc). tuned's thresholds are
// powers of two, so its own choice is the same across a class.
#pragma once

#include <cstddef>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "hier_core.h"
#include "link_costs.h"
#include "model.h"
#include "registry.h"
#include "topology.h"

namespace hier {

// How much faster than Open MPI hier's best must be predicted: the model's
// error on the measured cases (docs/tuning.md, "How far off the model is")
// stays inside it.
constexpr double kAutoMargin = 0.2;
// Within this much of the margin (a fastest worst ratio in 0.7 .. 0.9), or
// of the picked row (another row as good), a prediction from probed costs
// says more about the probes' noise than about the machine: the same 16
// ranks on the emulated cluster, probed in three jobs, had node_lg at x0.78,
// x0.87 and x0.75 (docs/tuning.md, "Probed costs and the margin"). There
// auto decides as if nothing had been probed, on the corner machines, which
// no measurement moves, so that every job of the machine decides alike.
constexpr double kProbeBand = 0.1;
// A row predicted at most this much slower than Open MPI on one of the
// machines is measured against it: the model erred by 10 to 25 % on the
// measured cases (docs/tuning.md), and the machine may be any of them.
constexpr double kTrialUpTo = 1.25;
// A measured row's median ratio to Open MPI's calls must be this much
// under 1, so that a tie keeps Open MPI's.
constexpr double kTrialGain = 0.03;
// Rows measured at most: the model's error is larger than the gaps between
// the rows it ranks close, but each row measured costs calls.
constexpr size_t kTrialRows = 3;
// Rounds of calls a trial may take: it measures another round while the
// interval that holds the fastest row's median ratio to Open MPI's with
// probability kTrialConfidence holds 1 (on the emulated torus one call can
// take twice the next; the median absolute deviation of 3 ratios, which
// this replaces, is the smaller gap between their median and a neighbour,
// and could settle a tie after one round).
constexpr int kTrialRounds = 5;
// Rounds a trial takes at least when its first says the opposite of the
// model (a row the model has faster than Open MPI's on every machine
// measured slower, or one it has slower on every machine measured faster):
// two kinds of evidence disagree, so one round of 3 calls, whose 75 %
// interval is their range, is not enough to settle it (on the emulated
// torus one such round at 8 B kept Open MPI's at x1.08 where `hypercube`
// was 0.90 of its time).
constexpr int kTrialRoundsAgainstModel = 2;
// 75 %: a row the interval tells from 1 is rarely on the wrong side, and the
// interval of 3 calls (their range) can already tell a clear gap.
constexpr double kTrialConfidence = 0.75;
// Up to this many ranks auto runs the flow simulation (model.h) on every
// rank's schedule; beyond it, building those schedules and simulating p^2
// messages per row and machine (p^3 for edgecolor's colourings) costs more
// than the calls of a typical job could win back, and auto uses the scale
// model instead (scale_model.h: closed forms over the kinds of node, O(N)
// per row and machine, edgecolor and hypercube not offered).
constexpr int kMaxModelledRanks = 128;
// Beyond this the scale model too declines: its sums are in doubles and its
// node counts in ints, and no job measured comes near.
constexpr int kMaxScaleModelRanks = 1 << 24;
// Why auto does not decide an alltoall on ranks over nodes by either model
// (one node; more than kMaxScaleModelRanks), or nullptr.
const char *alltoall_undecided(int ranks, int nodes);
// Why auto does not run the flow simulation on them, or nullptr: the
// reason above, or more than kMaxModelledRanks (the scale model decides
// then). Settings::probes (settings.cc), and so the link-cost probes
// (coll_hier_link_costs probe: ping-pongs of every pair of node leaders,
// an N x N table), follow this one: above kMaxModelledRanks they are not
// run, and the scale model weighs the given costs or the corners.
const char *alltoall_unmodelled(int ranks, int nodes);

// "a, b and c" (or another last separator).
std::string names(const std::vector<const Algorithm *> &rows, const char *last_separator = " and ");

constexpr int kSizeClasses = 64;
int size_class(size_t block_bytes);
// The block size a class is decided at: 1.5 * 2^k (1 for k = 0).
size_t class_block_bytes(int size_class);

// A row auto measures, with the model's ratio of its time to Open MPI's on
// the machine most and least in its favour (without them: no lean).
struct TrialRow {
    TrialRow(const Algorithm *row, double best = 0,
             double worst = std::numeric_limits<double>::infinity())
        : algorithm(row), best_ratio(best), worst_ratio(worst)
    {
    }
    const Algorithm *algorithm;
    double best_ratio;
    double worst_ratio;
};
std::vector<const Algorithm *> algorithms_of(const std::vector<TrialRow> &rows);

// One contender of a comparison: a registry row, or Open MPI's own choice.
struct Contender {
    const Algorithm *algorithm = nullptr;  // nullptr: Open MPI's
    const char *name = nullptr;            // the row's, or tuned's algorithm's
    std::vector<Prediction> predictions;   // one per machine
    double worst_ratio = 0;                // largest time / Open MPI's over the machines
    bool modelled() const;
};

// Every alltoall contender on every machine, and what auto picks. An empty
// `why_not` means the comparison ran; otherwise it says why it did not
// (one node, too many ranks) and the choice is the fallback.
struct Comparison {
    const char *why_not = nullptr;
    bool scale_model = false;  // predicted by the scale model (p > kMaxModelledRanks), not the simulator
    size_t block_bytes = 0;
    int window = 1;
    double probed_network = -1;   // latencies the probe measured (link_costs.h), or -1
    double probed_hop = -1;
    double probed_crossing = -1;
    double probed_message[kBackboneLink] = {-1, -1};  // per message (link_costs.h), or -1
    std::vector<LinkCosts> machines;
    Contender open_mpi;
    std::vector<Contender> rows;  // the rows that apply, in table order
    Choice choice;
    std::vector<TrialRow> measure;  // rows to measure against Open MPI's, if the model cannot tell
};

// The simulator's comparison shared out over a communicator's ranks: each
// rank predicts only its units of work, then the ranks combine them.
//
// A unit is one contender on one machine (Open MPI's is contender 0, then
// the rows that apply in table order; unit u = contender * machines +
// machine): the finest the model allows, one simulation. Units go to the
// ranks in consecutive runs of equal count (share_units), so that a rank
// given several machines of one contender builds that contender's schedules
// (every rank's, shared by its machines) once; a rank beyond the units gets
// none. One simulation cannot be split: at 128 ranks there are fewer units
// than ranks and the largest share is one unit (docs/tuning.md, "The
// model's work per rank, shared"). A rank whose index is out of range
// computes nothing: its units stay -inf and every rank falls back.
//
// Each rank encodes its predictions into kShareSlots doubles per unit (the
// slots below); a unit it did not compute holds -inf in every slot, so that
// agree's element-wise MAX over the ranks yields, in every slot, the one
// rank's value that computed it. The combined vector decodes to the
// predictions the unshared comparison makes, bit for bit (the model is
// deterministic; no rank's index enters a prediction), and the unchanged
// margin rule then gives the same choice, rows to measure and describe().
enum ShareSlot {
    kShareError = 0,           // error_code (model.h): 0 modelled, 1 too large, 2 + r rank r never finishes
    kShareSeconds = 1,
    kShareRounds = 2,
    kShareTraffic = 3,         // per link class: messages high, low, bytes high, low (32 bits each: exact)
    kShareSlots = kShareTraffic + 4 * kLinkClasses,
};
struct ModelShare {
    int index = 0;  // this rank's, 0 .. count - 1
    int count = 1;  // the ranks sharing; 1: not shared
    // Replaces values[0 .. length) on every rank by their element-wise
    // maximum over the `count` ranks (the glue: one MPI_Allreduce of length
    // MPI_DOUBLEs, MPI_MAX, in place, on the communicator; length is the same
    // on every rank); false if that failed, which must then be so on every
    // rank.
    std::function<bool(double *values, size_t length)> agree;
    bool shared() const { return count > 1 && agree != nullptr; }
};
// Whether choose_auto / compare_alltoall call share.agree for this decision:
// once for each comparison when this is true (choose_auto: twice near the
// margin with probed costs), never when it is false. It depends only on
// op, the topology (its ranks and nodes) and the share, which every rank of
// a communicator has alike (as has the first comparison's outcome, once
// agreed), so EVERY rank calls agree as often for a decision or none does
// (the glue's collective relies on it not to hang):
// an alltoall, shared (count > 1 and agree set), on more than one node, and
// at most kMaxModelledRanks ranks (the scale model's cheap closed forms
// above are not shared).
bool model_shared(hier_op_t op, const Topology &topology, const ModelShare &share);
// Which rank (0 .. count - 1) computes each of `units` units: rank r the
// units [r units / count, (r + 1) units / count).
std::vector<int> share_units(size_t units, int count);

// The comparison, shared as `share` says (model_shared). If agree fails, the
// choice is the fallback, with why_not saying so. The rows' schedules are
// built with `plans` (the communicator's: a plan derived here is kept).
Comparison compare_alltoall(const Topology &topology, const Plans &plans, size_t block_bytes, int window,
                            const LinkCostSpec &costs, const ModelShare &share = ModelShare());
// The same comparison by the scale model at any size (compare_alltoall uses
// it above kMaxModelledRanks; the tests compare the two below).
Comparison compare_alltoall_at_scale(const Topology &topology, size_t block_bytes, int window,
                                     const LinkCostSpec &costs);
// The one line choose_auto writes for a comparison.
std::string describe(const Comparison &comparison);

// Whether the comparison weighed probed costs and the probes' noise could
// change its outcome: its fastest row's worst ratio lies within kProbeBand
// of the margin (1 - kAutoMargin), or it picks a row and another row's
// worst ratio lies within kProbeBand of that row's.
bool probes_could_tip(const Comparison &comparison);

// Writes one line (no newline) to *predictions saying what was compared
// and what was picked, when predictions is not null. Returns the choice;
// its reason, when it falls back, is a constant string. Sets *measure, when
// it is not null, to the rows the model could not tell from Open MPI's
// (none, mostly): the caller may measure them (Trial). Where the probes'
// noise could tip the comparison (probes_could_tip), it runs again without
// the probed values and its choice and rows to measure stand: then
// share.agree is called twice, by every rank alike.
// `share` shares an alltoall's comparison out over the ranks (ModelShare;
// model_shared says when its agree is called); other ops ignore it.
Choice choose_auto(hier_op_t op, const Topology &topology, const Plans &plans, size_t block_bytes, int window,
                   const LinkCostSpec &costs, std::string *predictions,
                   std::vector<TrialRow> *measure = nullptr, const ModelShare &share = ModelShare());

// auto's measurement of rows against Open MPI's own, for a size class the
// model left open: Open MPI's and the n rows take turns, one call each per
// cycle (contender_of), so that drift of the machine hits all alike. Each
// call's time is recorded; at the end of each round of calls the ranks agree
// on the times and ask whether to extend; once not, conclude. Rows are
// judged by their ratio to Open MPI's call of the same cycle (a slow phase
// of the machine slows both): the row whose ratios have the lowest median,
// if that is kTrialGain below 1.
class Trial {
public:
    Trial(std::vector<TrialRow> rows, int calls_each);
    int calls() const { return int(seconds_.size()); }
    // Whose call `index` of the trial is: 0 for Open MPI's, i for the row
    // i - 1. The first cycle (one call each) warms up and is not counted: a
    // communicator's first calls of an algorithm pay for its connections and
    // buffers. Then each cycle starts with the next contender, so that none
    // always follows the round's MPI_Allreduce, whose ranks leave it apart.
    size_t contender_of(int index) const;
    // What call `index` of the trial runs.
    Choice choice(int index) const;
    // Call `index` of the trial took seconds on this rank: true when it is
    // the last call so far (the ranks then agree and conclude).
    bool record(int index, double seconds);
    // Makes each call's time its largest over the ranks (a call takes from
    // its common start to the last rank's exit), through the communicator's
    // agreement (every rank then decides from the same times): false if it
    // failed. agree nullptr: one rank, the times stand.
    bool agree_times(int (*agree)(void *ctx, double *values, int count), void *ctx);
    // With every call so far recorded: true, calls() grown by another round
    // of calls_each per contender, and one line saying why, when the
    // interval of the fastest row's median ratio (kTrialConfidence) holds 1
    // and fewer than kTrialRounds rounds ran, or when what the trial would
    // conclude goes against the model and fewer than kTrialRoundsAgainstModel
    // ran.
    bool extend(std::string *line);
    // The choice from the recorded times, and one line saying why.
    Choice conclude(std::string *line) const;

private:
    std::vector<double> calls_of(size_t contender) const;
    std::vector<double> ratios_of(size_t row) const;
    size_t fastest_row() const;
    std::string measured() const;
    bool row_wins(size_t row) const;
    bool against_model(size_t fastest) const;

    std::vector<TrialRow> rows_;
    int calls_each_;
    int rounds_ = 1;
    std::vector<double> seconds_;
    std::string measuring_;  // the fallback's reason during the trial
};

} // namespace hier
