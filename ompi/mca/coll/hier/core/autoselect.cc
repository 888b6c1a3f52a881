/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// auto from the time model (see autoselect.h).
//
// Memory: up to kMaxModelledRanks, deciding builds every rank's schedule of
// one contender at a time, O(p^2) blocks of schedule in all, for the
// duration of the decision only; above it the scale model needs O(N) for N
// nodes;
// nothing of it is kept (the decision is an id). It runs at the first call
// of each size class, on every rank alike (the model is deterministic and
// its inputs, the topology and the MCA values, are the same everywhere), or
// shared out over the ranks (ModelShare), each predicting its units.
#include "autoselect.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>

#include "scale_model.h"
#include "tuned_alltoall.h"

namespace hier {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Predictions this close are the same to the model.
constexpr double kTie = 0.01;
// Ratios this close are the same when choosing rows to measure.
constexpr double kTrialBucket = 0.02;

std::vector<Schedule> every_rank(Builder build, const Topology &topology, const Plans &plans)
{
    std::vector<Schedule> schedules;
    schedules.reserve(size_t(topology.size()));
    for (int rank = 0; rank < topology.size(); ++rank) {
        schedules.push_back(build(topology, plans, rank, -1));
    }
    return schedules;
}

// The rows to measure when no row wins on every machine: those whose best
// ratio to Open MPI's on any one machine is under kTrialUpTo, at most
// kTrialRows of them, the lowest first. Many rows tie with Open MPI's on the
// machine where one link bounds everything (a slow backbone): ratios within
// kTrialBucket count as equal, and the lower worst ratio goes first.
std::vector<TrialRow> rows_to_measure(const Comparison &comparison)
{
    std::vector<TrialRow> rows;
    for (const Contender &contender : comparison.rows) {
        if (!contender.modelled()) {
            continue;
        }
        double best = kInfinity;
        for (size_t m = 0; m < comparison.machines.size(); ++m) {
            best = std::min(best, contender.predictions[m].seconds / comparison.open_mpi.predictions[m].seconds);
        }
        if (best < kTrialUpTo) {
            rows.emplace_back(contender.algorithm, best, contender.worst_ratio);
        }
    }
    auto bucket = [](const TrialRow &row) { return std::floor(row.best_ratio / kTrialBucket); };
    std::stable_sort(rows.begin(), rows.end(), [&](const TrialRow &a, const TrialRow &b) {
        return bucket(a) != bucket(b) ? bucket(a) < bucket(b) : a.worst_ratio < b.worst_ratio;
    });
    if (rows.size() > kTrialRows) {
        rows.erase(rows.begin() + std::ptrdiff_t(kTrialRows), rows.end());
    }
    return rows;
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// The distribution-free interval [x(k+1), x(n-k)] of the sorted values that
// holds their population's median with probability at least kTrialConfidence
// (k the largest with 1 - 2 P(Binomial(n, 1/2) <= k) at least that), as
// {low, high}; {-inf, +inf} where no k reaches it (fewer than 3 values at
// 75 %): nothing can be told yet.
std::pair<double, double> median_interval(std::vector<double> values)
{
    const int n = int(values.size());
    double below = 0;  // P(Binomial(n, 1/2) <= k)
    int inset = -1;
    for (int k = 0; 2 * k < n; ++k) {
        below += std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) - n * std::log(2.0));
        if (1 - 2 * below < kTrialConfidence - 1e-9) {  // 3 values: exactly 75 %
            break;
        }
        inset = k;
    }
    if (inset < 0) {
        return {-std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
    }
    std::sort(values.begin(), values.end());
    return {values[size_t(inset)], values[size_t(n - 1 - inset)]};
}

std::string format_ratio(double ratio)
{
    char text[32];
    std::snprintf(text, sizeof text, "x%.2f", ratio);
    return text;
}

} // namespace

std::string names(const std::vector<const Algorithm *> &rows, const char *last_separator)
{
    std::string list;
    for (size_t i = 0; i < rows.size(); ++i) {
        list += std::string(i == 0 ? "" : i + 1 < rows.size() ? ", " : last_separator) + rows[i]->name;
    }
    return list;
}

int size_class(size_t block_bytes)
{
    int k = 0;
    while (k + 1 < kSizeClasses && (block_bytes >> (k + 1)) != 0) {
        ++k;
    }
    return k;
}

size_t class_block_bytes(int size_class)
{
    return size_class == 0 ? 1 : size_t(3) << (size_class - 1);
}

bool Contender::modelled() const
{
    return !predictions.empty() &&
           std::all_of(predictions.begin(), predictions.end(), [](const Prediction &p) { return p.error.empty(); });
}

const char *alltoall_undecided(int ranks, int nodes)
{
    if (nodes == 1) {
        return "all ranks on one node";
    }
    return ranks > kMaxScaleModelRanks ? "more ranks than the scale model takes (2^24)" : nullptr;
}

const char *alltoall_unmodelled(int ranks, int nodes)
{
    if (const char *why = alltoall_undecided(ranks, nodes)) {
        return why;
    }
    return ranks > kMaxModelledRanks ? "more ranks than the simulator takes (128): the scale model decides" : nullptr;
}

namespace {

// What both models share: why not, the machines, the probed values.
bool prepare(Comparison &comparison, const Topology &topology, size_t block_bytes, int window,
             const LinkCostSpec &costs)
{
    comparison.block_bytes = block_bytes;
    comparison.window = window < 1 ? 1 : window;
    comparison.why_not = alltoall_undecided(topology.size(), topology.node_count());
    if (comparison.why_not) {
        comparison.choice = fallback(comparison.why_not);
        return false;
    }
    comparison.machines = cost_corners(costs, topology.cluster_count() > 1);
    comparison.probed_network = costs.given[kNetworkLink] ? -1 : costs.measured_network;
    comparison.probed_hop = costs.hop_given ? -1 : costs.measured_hop;
    comparison.probed_crossing = costs.given[kBackboneLink] ? -1 : costs.measured_crossing;
    for (int c = 0; c < kBackboneLink; ++c) {
        comparison.probed_message[c] = costs.given[c] ? -1 : costs.measured_message[c];
    }
    return true;
}

double fastest_worst_ratio(const Comparison &comparison)
{
    double fastest = kInfinity;
    for (const Contender &contender : comparison.rows) {
        fastest = contender.modelled() ? std::min(fastest, contender.worst_ratio) : fastest;
    }
    return fastest;
}

void set_worst_ratio(Comparison &comparison, Contender &contender)
{
    if (contender.modelled()) {
        for (size_t m = 0; m < comparison.machines.size(); ++m) {
            contender.worst_ratio = std::max(contender.worst_ratio, contender.predictions[m].seconds /
                                                                        comparison.open_mpi.predictions[m].seconds);
        }
    }
}

// The margin rule over the contenders: the fastest worst ratio; among rows
// within kTie of it, the first in table order, so that rounding never
// decides between schedules the model finds equal.
void decide(Comparison &comparison)
{
    const Contender *best = nullptr;
    const double fastest = fastest_worst_ratio(comparison);
    for (const Contender &contender : comparison.rows) {
        if (!best && contender.modelled() && contender.worst_ratio <= fastest * (1 + kTie)) {
            best = &contender;
        }
    }
    if (best && best->worst_ratio <= 1 - kAutoMargin) {
        comparison.choice = pick(HIER_OP_ALLTOALL, best->algorithm);
    } else {
        comparison.choice = fallback("no hier algorithm predicted 20 % faster than Open MPI's");
        comparison.measure = rows_to_measure(comparison);
    }
}

// Every alltoall row that applies, in table order, predicted on each
// machine by predict (which may leave a row unpredicted: not modelled), then
// the margin rule over them. Open MPI's predictions come first.
void weigh_rows(Comparison &comparison, const Topology &topology,
                const std::function<void(const Algorithm *, Contender &)> &predict)
{
    for (const Algorithm *algorithm : algorithms_for(HIER_OP_ALLTOALL)) {
        if (algorithm->unfit(topology)) {
            continue;
        }
        Contender contender;
        contender.algorithm = algorithm;
        contender.name = algorithm->name;
        predict(algorithm, contender);
        set_worst_ratio(comparison, contender);
        comparison.rows.push_back(std::move(contender));
    }
    decide(comparison);
}

} // namespace

Comparison compare_alltoall_at_scale(const Topology &topology, size_t block_bytes, int window,
                                     const LinkCostSpec &costs)
{
    Comparison comparison;
    comparison.scale_model = true;
    if (!prepare(comparison, topology, block_bytes, window, costs)) {
        return comparison;
    }
    const ScaleShape shape = scale_shape(topology);
    const TunedAlltoall tuned = tuned_alltoall_choice(topology.size(), block_bytes);
    comparison.open_mpi.name = tuned_alltoall_name(tuned);
    for (const LinkCosts &machine : comparison.machines) {
        Prediction prediction;
        prediction.seconds = scale_predict_tuned(shape, tuned, block_bytes, machine);
        comparison.open_mpi.predictions.push_back(prediction);
    }
    comparison.open_mpi.worst_ratio = 1;
    weigh_rows(comparison, topology, [&](const Algorithm *algorithm, Contender &contender) {
        if (!scale_models(algorithm)) {
            return;  // left unpredicted: "not modelled"
        }
        for (const LinkCosts &machine : comparison.machines) {
            Prediction prediction;
            prediction.seconds = scale_predict_row(shape, algorithm, block_bytes, comparison.window, machine);
            contender.predictions.push_back(prediction);
        }
    });
    return comparison;
}

bool model_shared(hier_op_t op, const Topology &topology, const ModelShare &share)
{
    return op == HIER_OP_ALLTOALL && share.shared() && !alltoall_unmodelled(topology.size(), topology.node_count());
}

std::vector<int> share_units(size_t units, int count)
{
    const size_t ranks = size_t(std::max(count, 1));
    std::vector<int> owner(units, 0);
    for (size_t rank = 0; rank < ranks; ++rank) {
        for (size_t unit = rank * units / ranks; unit < (rank + 1) * units / ranks; ++unit) {
            owner[unit] = int(rank);
        }
    }
    return owner;
}

namespace {

// One prediction as kShareSlots doubles (ShareSlot), and back. A size_t
// goes as two 32-bit halves, each exact in a double.
void encode(const Prediction &prediction, double *slots)
{
    auto halves = [](size_t value, double *at) {
        at[0] = double(uint64_t(value) >> 32);
        at[1] = double(uint64_t(value) & 0xffffffffu);
    };
    slots[kShareError] = error_code(prediction.error);
    // MPI_MAX of a NaN and a number depends on the order of the operands,
    // which may differ between ranks: a time that is not a number goes as +inf.
    slots[kShareSeconds] = std::isnan(prediction.seconds) ? kInfinity : prediction.seconds;
    slots[kShareRounds] = double(prediction.rounds);  // a schedule's rounds: far under 2^53
    for (int c = 0; c < kLinkClasses; ++c) {
        halves(prediction.traffic[c].messages, &slots[kShareTraffic + 4 * c]);
        halves(prediction.traffic[c].bytes, &slots[kShareTraffic + 4 * c + 2]);
    }
}

bool decode(const double *slots, Prediction *prediction)
{
    auto whole = [](const double *at) { return size_t((uint64_t(at[0]) << 32) | uint64_t(at[1])); };
    for (int s = 0; s < kShareSlots; ++s) {
        if (std::isinf(slots[s]) && slots[s] < 0) {
            return false;  // no rank computed it
        }
    }
    prediction->error = error_text(slots[kShareError]);
    prediction->seconds = slots[kShareSeconds];
    prediction->rounds = size_t(slots[kShareRounds]);
    for (int c = 0; c < kLinkClasses; ++c) {
        prediction->traffic[c].messages = whole(&slots[kShareTraffic + 4 * c]);
        prediction->traffic[c].bytes = whole(&slots[kShareTraffic + 4 * c + 2]);
    }
    return true;
}

} // namespace

Comparison compare_alltoall(const Topology &topology, const Plans &plans, size_t block_bytes, int window,
                            const LinkCostSpec &costs, const ModelShare &share)
{
    if (topology.size() > kMaxModelledRanks) {
        return compare_alltoall_at_scale(topology, block_bytes, window, costs);
    }
    Comparison comparison;
    if (!prepare(comparison, topology, block_bytes, window, costs)) {
        return comparison;
    }
    const bool shared = model_shared(HIER_OP_ALLTOALL, topology, share);

    // The contenders: Open MPI's (its algorithms keep their own order: window
    // 1), then the rows that apply, in table order (as weigh_rows takes them).
    const TunedAlltoall tuned = tuned_alltoall_choice(topology.size(), block_bytes);
    comparison.open_mpi.name = tuned_alltoall_name(tuned);
    std::vector<Builder> builders{tuned_alltoall_builder(tuned)};
    for (const Algorithm *algorithm : algorithms_for(HIER_OP_ALLTOALL)) {
        if (!algorithm->unfit(topology)) {
            builders.push_back(algorithm->build);
        }
    }
    const size_t machines = comparison.machines.size();
    const std::vector<int> owner =
        shared ? share_units(builders.size() * machines, share.count)
               : std::vector<int>(builders.size() * machines, 0);
    const int me = shared ? share.index : 0;
    std::vector<Prediction> predictions(owner.size());
    // Shared, every rank must reach agree whatever befalls its own units:
    // the buffer is made first, and a rank whose simulations run out of
    // memory sends none of them (all -inf), so that every rank falls back
    // together rather than the others waiting for it in the allreduce.
    std::vector<double> values(shared ? owner.size() * kShareSlots : 0, -kInfinity);
    try {
        for (size_t c = 0; c < builders.size(); ++c) {
            const auto first = owner.begin() + std::ptrdiff_t(c * machines);
            if (std::find(first, first + std::ptrdiff_t(machines), me) == first + std::ptrdiff_t(machines)) {
                continue;
            }
            const std::vector<Schedule> schedules = every_rank(builders[c], topology, plans);
            for (size_t m = 0; m < machines; ++m) {
                if (owner[c * machines + m] == me) {
                    predictions[c * machines + m] = predict_time(topology, schedules, block_bytes,
                                                                 c == 0 ? 1 : comparison.window,
                                                                 comparison.machines[m]);
                }
            }
            if (!shared && c == 0 &&
                !std::all_of(predictions.begin(), predictions.begin() + std::ptrdiff_t(machines),
                             [](const Prediction &p) { return p.error.empty(); })) {
                break;  // the rows are not weighed (below): no need to predict them
            }
        }
        for (size_t unit = 0; shared && unit < owner.size(); ++unit) {
            if (owner[unit] == me) {
                encode(predictions[unit], &values[unit * kShareSlots]);
            }
        }
    } catch (...) {
        if (!shared) {
            throw;
        }
        std::fill(values.begin(), values.end(), -kInfinity);
    }
    if (shared) {
        bool agreed = share.agree(values.data(), values.size());
        for (size_t unit = 0; agreed && unit < owner.size(); ++unit) {
            agreed = decode(&values[unit * kShareSlots], &predictions[unit]);
        }
        if (!agreed) {
            comparison.why_not = "the ranks could not combine their shares of the model's work";
            comparison.choice = fallback(comparison.why_not);
            return comparison;
        }
    }

    comparison.open_mpi.predictions.assign(predictions.begin(), predictions.begin() + std::ptrdiff_t(machines));
    if (!comparison.open_mpi.modelled()) {
        comparison.why_not = "Open MPI's own algorithm is too large to model";
        comparison.choice = fallback(comparison.why_not);
        return comparison;
    }
    comparison.open_mpi.worst_ratio = 1;
    size_t next = 1;
    weigh_rows(comparison, topology, [&](const Algorithm *, Contender &contender) {
        const auto first = predictions.begin() + std::ptrdiff_t(next++ * machines);
        contender.predictions.assign(first, first + std::ptrdiff_t(machines));
    });
    return comparison;
}

std::string describe(const Comparison &comparison)
{
    if (comparison.why_not) {
        return std::string(comparison.scale_model ? "scale model not run: " : "model not run: ") +
               comparison.why_not;
    }
    const size_t machines = comparison.machines.size();
    std::string line = std::string(comparison.scale_model ? "scale model at " : "model at ") +
                       std::to_string(comparison.block_bytes) + " B/block, window " +
                       std::to_string(comparison.window) + ", " +
                       (machines == 1 ? std::string("given costs") : std::to_string(machines) + " cost sets");
    if (comparison.probed_network >= 0) {
        line += ", probed latency " + format_seconds(comparison.probed_network);
    }
    if (comparison.probed_hop >= 0) {
        line += " plus " + format_seconds(comparison.probed_hop) + " per hop beyond the first";
    }
    if (comparison.probed_crossing >= 0) {
        line += ", between clusters " + format_seconds(comparison.probed_crossing);
    }
    const char *const message_classes[kBackboneLink] = {"within a node", "between nodes"};
    for (int c = 0; c < kBackboneLink; ++c) {
        if (comparison.probed_message[c] >= 0) {
            line += std::string(", probed per message ") + message_classes[c] + " " +
                    format_seconds(comparison.probed_message[c]);
        }
    }
    line += std::string(": open-mpi(") + comparison.open_mpi.name + ")";
    auto times = [&](const Contender &contender) {
        double low = contender.predictions[0].seconds, high = low;
        for (const Prediction &p : contender.predictions) {
            low = std::min(low, p.seconds);
            high = std::max(high, p.seconds);
        }
        return machines == 1 ? format_seconds(low) : format_seconds(low) + ".." + format_seconds(high);
    };
    line += " " + times(comparison.open_mpi);
    for (const Contender &contender : comparison.rows) {
        line += std::string(", ") + contender.name + " ";
        if (!contender.modelled()) {
            line += "not modelled";
            continue;
        }
        line += times(contender) + " " + format_ratio(contender.worst_ratio);
    }
    line += "; picks ";
    line += comparison.choice.algorithm ? comparison.choice.algorithm->name : "fallback";
    if (!comparison.measure.empty()) {
        line += ", or " + names(algorithms_of(comparison.measure), " or ") + " if measured faster";
    }
    return line;
}

bool probes_could_tip(const Comparison &comparison)
{
    bool probed = comparison.probed_network >= 0 || comparison.probed_hop >= 0 || comparison.probed_crossing >= 0;
    for (const double message : comparison.probed_message) {
        probed = probed || message >= 0;
    }
    if (!probed || comparison.why_not) {
        return false;
    }
    // The small slack keeps a ratio printed as x0.70 or x0.90 inside.
    const double fastest = fastest_worst_ratio(comparison), band = kProbeBand + 1e-9;
    if (std::abs(fastest - (1 - kAutoMargin)) <= band) {
        return true;  // picked or not, by the probes' noise
    }
    if (fastest > 1 - kAutoMargin) {
        return false;  // the fallback, clearly
    }
    // A pick: another row within the band of it could be picked instead.
    int close = 0;
    for (const Contender &contender : comparison.rows) {
        close += contender.modelled() && contender.worst_ratio <= fastest + band;
    }
    return close > 1;
}

std::vector<const Algorithm *> algorithms_of(const std::vector<TrialRow> &rows)
{
    std::vector<const Algorithm *> algorithms;
    for (const TrialRow &row : rows) {
        algorithms.push_back(row.algorithm);
    }
    return algorithms;
}

Trial::Trial(std::vector<TrialRow> rows, int calls_each)
    : rows_(std::move(rows)), calls_each_(std::max(calls_each, 1)),
      seconds_((rows_.size() + 1) * size_t(calls_each_ + 1), 0.0)
{
    measuring_ = "measuring it against " + names(algorithms_of(rows_)) + ": one call each to warm up, then " +
                 std::to_string(calls_each_) + " each (up to " + std::to_string(kTrialRounds * calls_each_) +
                 " while their ratios cannot tell them apart)";
}

size_t Trial::contender_of(int index) const
{
    const size_t contenders = rows_.size() + 1, call = size_t(index);
    return (call + call / contenders) % contenders;
}

Choice Trial::choice(int index) const
{
    const size_t contender = contender_of(index);
    return contender == 0 ? fallback(measuring_.c_str()) : pick(HIER_OP_ALLTOALL, rows_[contender - 1].algorithm);
}

bool Trial::record(int index, double seconds)
{
    if (index < 0 || index >= calls()) {
        return false;
    }
    seconds_[size_t(index)] = seconds;
    return index + 1 == calls();
}

bool Trial::agree_times(int (*agree)(void *ctx, double *values, int count), void *ctx)
{
    return !agree || agree(ctx, seconds_.data(), calls()) == 0;
}

// The times of one contender's calls (0: Open MPI's), the warm-up's left out.
std::vector<double> Trial::calls_of(size_t contender) const
{
    std::vector<double> calls;
    for (size_t call = rows_.size() + 1; call < seconds_.size(); ++call) {
        if (contender_of(int(call)) == contender) {
            calls.push_back(seconds_[call]);
        }
    }
    return calls;
}

// Row `row`'s call over Open MPI's, per counted cycle: each cycle holds one
// call of each, so the k-th calls of two contenders are of one cycle.
std::vector<double> Trial::ratios_of(size_t row) const
{
    const std::vector<double> open_mpi = calls_of(0), calls = calls_of(row + 1);
    std::vector<double> ratios;
    for (size_t cycle = 0; cycle < calls.size(); ++cycle) {
        ratios.push_back(open_mpi[cycle] > 0 ? calls[cycle] / open_mpi[cycle] : 1);
    }
    return ratios;
}

// The row whose median ratio to Open MPI's is lowest.
size_t Trial::fastest_row() const
{
    size_t fastest = 0;
    for (size_t row = 1; row < rows_.size(); ++row) {
        fastest = median(ratios_of(row)) < median(ratios_of(fastest)) ? row : fastest;
    }
    return fastest;
}

std::string Trial::measured() const
{
    const std::vector<double> open_mpi = calls_of(0);
    std::string line = "measured over " + std::to_string(open_mpi.size()) +
                       (open_mpi.size() == 1 ? " call" : " calls") +
                       " each (medians from a common start): open-mpi " + format_seconds(median(open_mpi));
    std::string ratios = "; each over open-mpi's of its cycle:";
    for (size_t row = 0; row < rows_.size(); ++row) {
        const char *name = rows_[row].algorithm->name;
        line += std::string(", ") + name + " " + format_seconds(median(calls_of(row + 1)));
        ratios += std::string(row == 0 ? " " : ", ") + name + " " + format_ratio(median(ratios_of(row)));
    }
    return line + ratios;
}

// Whether the trial would keep row `row` over Open MPI's.
bool Trial::row_wins(size_t row) const
{
    return median(ratios_of(row)) <= 1 - kTrialGain;
}

// Whether concluding now would go against the model: keeping Open MPI's
// where it had a row faster on every machine, or keeping the fastest row
// where it had that row slower on every machine (a tie, within kTie, is no
// lean).
bool Trial::against_model(size_t fastest) const
{
    if (row_wins(fastest)) {
        return rows_[fastest].best_ratio > 1 + kTie;
    }
    return std::any_of(rows_.begin(), rows_.end(), [](const TrialRow &row) { return row.worst_ratio < 1 - kTie; });
}

bool Trial::extend(std::string *line)
{
    if (rounds_ >= kTrialRounds) {
        return false;
    }
    const size_t fastest = fastest_row();
    const std::vector<double> ratios = ratios_of(fastest);
    const auto [low, high] = median_interval(ratios);
    const bool told = low > 1 || high < 1;
    const bool settled = told && !(rounds_ < kTrialRoundsAgainstModel && against_model(fastest));
    if (settled) {
        return false;
    }
    if (line) {
        const std::string why =
            told ? " goes against the model's prediction"
                 : " is not told from x1 yet (" +
                       (std::isfinite(low) ? format_ratio(low) + " to " + format_ratio(high)
                                           : std::string("too few calls")) +
                       ")";
        *line = measured() + "; " + rows_[fastest].algorithm->name + "'s " + format_ratio(median(ratios)) + why +
                ": " + std::to_string(calls_each_) + " more calls each";
    }
    ++rounds_;
    seconds_.resize(seconds_.size() + (rows_.size() + 1) * size_t(calls_each_), 0.0);
    return true;
}

Choice Trial::conclude(std::string *line) const
{
    const size_t fastest = fastest_row();
    const bool wins = row_wins(fastest);
    if (line) {
        *line = measured() + "; picks " + (wins ? rows_[fastest].algorithm->name : "fallback");
    }
    return wins ? pick(HIER_OP_ALLTOALL, rows_[fastest].algorithm)
                : fallback("the hier algorithms the model could not tell from it measured no faster");
}

namespace {

// The rows' own rules (registry.h), for the collectives without a model:
// the first row whose rule says yes, or the fallback with the first reason
// (a row's that does not apply, or whose rule declined).
Choice choose_by_rule(hier_op_t op, const Topology &topology, const Plans &plans, size_t block_bytes,
                      const LinkCostSpec &costs)
{
    const std::vector<LinkCosts> machines = cost_corners(costs, topology.cluster_count() > 1);
    const char *first_reason = nullptr;
    for (const Algorithm *algorithm : algorithms_for(op)) {
        if (!algorithm->auto_declines) {
            continue;
        }
        const char *declined = algorithm->unfit(topology);
        if (!declined) {
            declined = algorithm->auto_declines(topology, plans, block_bytes, machines);
        }
        if (!declined) {
            return pick(op, algorithm);
        }
        first_reason = first_reason ? first_reason : declined;
    }
    return fallback(first_reason ? first_reason : "no hier algorithm suits this communicator");
}

} // namespace

Choice choose_auto(hier_op_t op, const Topology &topology, const Plans &plans, size_t block_bytes, int window,
                   const LinkCostSpec &costs, std::string *predictions, std::vector<TrialRow> *measure,
                   const ModelShare &share)
{
    if (measure) {
        measure->clear();
    }
    if (op != HIER_OP_ALLTOALL) {
        const Choice choice = choose_by_rule(op, topology, plans, block_bytes, costs);
        if (predictions) {
            *predictions = std::string("no time model of Open MPI's ") + op_name(op) + "; by the rows' rules: " +
                           (choice.algorithm ? choice.algorithm->name : "fallback");
        }
        return choice;
    }
    const Comparison probed = compare_alltoall(topology, plans, block_bytes, window, costs, share);
    if (predictions) {
        *predictions = describe(probed);
    }
    if (!probes_could_tip(probed)) {
        if (measure) {
            *measure = probed.measure;
        }
        return probed.choice;
    }
    const Comparison unprobed =
        compare_alltoall(topology, plans, block_bytes, window, costs.without_measurements(), share);
    if (predictions) {
        *predictions += "; " + format_ratio(fastest_worst_ratio(probed)) +
                        " is within the probes' noise of the margin or of another row: as without them, " +
                        describe(unprobed);
    }
    if (measure) {
        *measure = unprobed.measure;
    }
    return unprobed.choice;
}

} // namespace hier
