/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// coll_hier_link_costs: parser, defaults and the corner machines.
#include "link_costs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <map>
#include <sstream>

#include "keywords.h"

namespace hier {

namespace {

const char *const kClassNames[kLinkClasses] = {"node", "network", "backbone", "socket"};

// Open MPI 4.1's eager limits: btl_vader_eager_limit 4 KiB for shared
// memory (between sockets too), btl_tcp_eager_limit 64 KiB for TCP.
constexpr size_t kEagerLimit[kLinkClasses] = {4096, 65536, 65536, 4096};
// A class given without overhead: shared memory's and TCP's, as measured by
// the usual ping-pong figures of their small-message paths.
constexpr double kDefaultOverhead[kLinkClasses] = {0.2e-6, 2e-6, 2e-6, 0.2e-6};

LinkClass link(double latency, double bits_per_second, double overhead, int link_class)
{
    return LinkClass{latency, bits_per_second / 8, overhead, kEagerLimit[link_class]};
}

// The corner values of each class, for costs nobody gave: a node's shared
// memory; a fast fabric and Ethernet; a campus link and a wide-area one.
// The socket class has none: it follows the node's (socket_from_node).
const std::vector<LinkClass> &corners(int link_class)
{
    static const std::vector<LinkClass> values[kBackboneLink + 1] = {
        {link(0.5e-6, 40e9, 0.2e-6, kNodeLink)},
        {link(2e-6, 100e9, 0.5e-6, kNetworkLink), link(50e-6, 1e9, 3e-6, kNetworkLink)},
        {link(200e-6, 10e9, 3e-6, kBackboneLink), link(5e-3, 100e6, 3e-6, kBackboneLink)},
    };
    return values[link_class];
}

const char *const kForm =
    "expected CLASS=LATENCY:BANDWIDTH[:OVERHEAD] for CLASS node, socket, network or backbone, hop=LATENCY, "
    "oversubscription=RATIO (leaf uplinks, e.g. 4 or 4:1; not with backbone), or probe, comma-separated, "
    "e.g. \"node=1us:40Gbit/s,network=30us:200Mbit/s,backbone=5ms:100Mbit/s\"";

constexpr const char *kHop = "hop";
constexpr const char *kOversubscription = "oversubscription";
constexpr const char *kBackboneAndOversubscription = "gives both backbone and oversubscription";

struct Unit {
    const char *suffix;
    double factor;
};

const Unit kTimeUnits[] = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}};
// A ratio, written alone or as N:1.
const Unit kRatioUnits[] = {{"", 1}, {":1", 1}};
const Unit kRateUnits[] = {{"bit/s", 1.0 / 8},   {"kbit/s", 1e3 / 8}, {"Mbit/s", 1e6 / 8}, {"Gbit/s", 1e9 / 8},
                           {"B/s", 1},           {"kB/s", 1e3},       {"MB/s", 1e6},       {"GB/s", 1e9}};

// A non-negative decimal number followed by one of the units, exactly.
template <size_t N>
bool parse_quantity(const std::string &field, const Unit (&units)[N], double *value)
{
    size_t digits = 0;
    bool point = false;
    while (digits < field.size() && ((field[digits] >= '0' && field[digits] <= '9') || (!point && field[digits] == '.'))) {
        point = point || field[digits] == '.';
        ++digits;
    }
    if (digits == 0 || field.substr(0, digits) == ".") {
        return false;
    }
    const std::string suffix = field.substr(digits);
    for (const Unit &unit : units) {
        if (suffix == unit.suffix) {
            *value = std::strtod(field.substr(0, digits).c_str(), nullptr) * unit.factor;
            return std::isfinite(*value);
        }
    }
    return false;
}

std::vector<std::string> split(const std::string &text, char separator)
{
    std::vector<std::string> parts;
    std::istringstream in(text);
    std::string part;
    while (std::getline(in, part, separator)) {
        parts.push_back(part);
    }
    if (!text.empty() && text.back() == separator) {
        parts.emplace_back();
    }
    return parts;
}

// The LATENCY of hop=LATENCY; "" or what is wrong with it.
std::string parse_hop(const std::string &value, LinkCostSpec *spec)
{
    if (spec->hop_given) {
        return "gives hop twice";
    }
    if (!parse_quantity(value, kTimeUnits, &spec->costs.hop_latency)) {
        return "has hop latency \"" + value + "\", not a number with ns, us, ms or s";
    }
    spec->hop_given = true;
    return "";
}

// The RATIO of oversubscription=RATIO: the backbone given as leaf uplinks;
// "" or what is wrong with it.
std::string parse_oversubscription(const std::string &value, LinkCostSpec *spec)
{
    if (spec->given[kBackboneLink]) {
        return spec->costs.oversubscription > 0 ? "gives oversubscription twice"
                                                : kBackboneAndOversubscription;
    }
    if (!parse_quantity(value, kRatioUnits, &spec->costs.oversubscription) || spec->costs.oversubscription <= 0) {
        spec->costs.oversubscription = 0;
        return "has oversubscription \"" + value + "\", not a positive ratio such as 4 or 4:1";
    }
    spec->given[kBackboneLink] = true;
    return "";
}

// One CLASS=LATENCY:BANDWIDTH[:OVERHEAD], hop=LATENCY, oversubscription=RATIO
// or probe; "" or what is wrong with it.
std::string parse_entry(const std::string &entry, LinkCostSpec *spec)
{
    if (entry == kProbeKeyword) {
        if (spec->probe) {
            return "gives probe twice";
        }
        spec->probe = true;
        return "";
    }
    const size_t equals = entry.find('=');
    if (equals == std::string::npos) {
        return "has \"" + entry + "\" without '='";
    }
    const std::string name = entry.substr(0, equals);
    if (name == kHop) {
        return parse_hop(entry.substr(equals + 1), spec);
    }
    if (name == kOversubscription) {
        return parse_oversubscription(entry.substr(equals + 1), spec);
    }
    int link_class = -1;
    for (int c = 0; c < kLinkClasses; ++c) {
        link_class = name == kClassNames[c] ? c : link_class;
    }
    if (link_class < 0) {
        return "names class \"" + name + "\"";
    }
    if (spec->given[link_class]) {
        return link_class == kBackboneLink && spec->costs.oversubscription > 0
                   ? kBackboneAndOversubscription
                   : "gives class " + name + " twice";
    }
    const std::vector<std::string> fields = split(entry.substr(equals + 1), ':');
    LinkClass &value = spec->costs.link[link_class];
    value.eager_limit = kEagerLimit[link_class];
    value.overhead = kDefaultOverhead[link_class];
    if (fields.size() < 2 || fields.size() > 3) {
        return "has \"" + entry + "\", not LATENCY:BANDWIDTH[:OVERHEAD]";
    }
    if (!parse_quantity(fields[0], kTimeUnits, &value.latency)) {
        return "has latency \"" + fields[0] + "\", not a number with ns, us, ms or s";
    }
    if (!parse_quantity(fields[1], kRateUnits, &value.bandwidth) || value.bandwidth <= 0) {
        return "has bandwidth \"" + fields[1] + "\", not a positive number with bit/s, kbit/s, Mbit/s, Gbit/s, B/s, "
               "kB/s, MB/s or GB/s";
    }
    if (fields.size() == 3 && !parse_quantity(fields[2], kTimeUnits, &value.overhead)) {
        return "has overhead \"" + fields[2] + "\", not a number with ns, us, ms or s";
    }
    spec->given[link_class] = true;
    return "";
}

std::string format_time(double seconds)
{
    char text[32];
    if (seconds >= 1e-3) {
        std::snprintf(text, sizeof text, "%gms", seconds * 1e3);
    } else if (seconds >= 1e-6 || seconds == 0) {
        std::snprintf(text, sizeof text, "%gus", seconds * 1e6);
    } else {
        std::snprintf(text, sizeof text, "%gns", seconds * 1e9);
    }
    return text;
}

} // namespace

bool parse_link_costs(const std::string &text, LinkCostSpec *spec, std::string *error)
{
    *spec = LinkCostSpec();
    if (text.empty()) {
        return true;
    }
    for (const std::string &entry : split(text, ',')) {
        const std::string wrong = entry.empty() ? std::string("has an empty entry") : parse_entry(entry, spec);
        if (!wrong.empty()) {
            *error = "coll_hier_link_costs \"" + text + "\" " + wrong + "; " + kForm;
            *spec = LinkCostSpec();
            return false;
        }
    }
    return true;
}

namespace {

double median(std::vector<double> values)
{
    if (values.empty()) {
        return -1;
    }
    std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
    return values[values.size() / 2];
}

// The slope of latency over hops, at least 0 (0 when every pair is as far):
// least squares over each hop count's median latency, weighted by its
// pairs, so that a pair the probe caught in a stall does not tilt it.
double hop_slope(const std::vector<double> &latency, const std::vector<int> &hops)
{
    std::map<int, std::vector<double>> by_hops;
    for (size_t i = 0; i < latency.size(); ++i) {
        by_hops[hops[i]].push_back(latency[i]);
    }
    double mean_latency = 0, mean_hops = 0;
    for (const auto &[h, latencies] : by_hops) {
        const double weight = double(latencies.size()) / double(latency.size());
        mean_latency += weight * median(latencies);
        mean_hops += weight * double(h);
    }
    double covariance = 0, variance = 0;
    for (const auto &[h, latencies] : by_hops) {
        const double weight = double(latencies.size());
        const double beyond_mean = double(h) - mean_hops;
        covariance += weight * beyond_mean * (median(latencies) - mean_latency);
        variance += weight * beyond_mean * beyond_mean;
    }
    return variance > 0 ? std::max(0.0, covariance / variance) : 0;
}

} // namespace

void apply_probe(LinkCostSpec *spec, const std::vector<double> &latency, const std::vector<int> &cluster_of_node,
                 const std::vector<int> &hops)
{
    const auto n = size_t(std::lround(std::sqrt(double(latency.size()))));
    std::vector<double> within, across;
    std::vector<int> within_hops;
    for (size_t a = 0; a < n; ++a) {
        for (size_t b = a + 1; b < n; ++b) {
            const bool same = cluster_of_node.empty() || cluster_of_node[a] == cluster_of_node[b];
            (same ? within : across).push_back(latency[a * n + b]);
            if (same && !hops.empty()) {
                within_hops.push_back(hops[a * n + b]);
            }
        }
    }
    if (!hops.empty() && !within.empty()) {
        spec->measured_hop = hop_slope(within, within_hops);
        for (size_t i = 0; i < within.size(); ++i) {
            within[i] -= spec->measured_hop * double(within_hops[i] - 1);
        }
    }
    spec->measured_network = median(within);
    spec->measured_crossing = median(across);
}

void apply_message_probe(LinkCostSpec *spec, const double message_cost[kBackboneLink])
{
    for (int c = 0; c < kBackboneLink; ++c) {
        spec->measured_message[c] = message_cost[c];
    }
}

LinkClass socket_from_node(const LinkClass &node)
{
    return LinkClass{node.latency * kSocketLatencyFactor, node.bandwidth, node.overhead, node.eager_limit};
}

double uplink_bandwidth(const LinkCosts &costs, int cluster_nodes)
{
    const double backbone = costs.link[kBackboneLink].bandwidth;
    return costs.oversubscription > 0 ? backbone * double(cluster_nodes) : backbone;
}

std::vector<LinkCosts> cost_corners(const LinkCostSpec &spec, bool has_backbone)
{
    std::vector<LinkCosts> machines(1, spec.costs);
    // Every machine so far once for each of `values` values of a class.
    auto combine = [&machines](size_t values, const std::function<void(LinkCosts &, size_t)> &set_value) {
        std::vector<LinkCosts> extended;
        for (const LinkCosts &machine : machines) {
            for (size_t v = 0; v < values; ++v) {
                extended.push_back(machine);
                set_value(extended.back(), v);
            }
        }
        machines.swap(extended);
    };
    for (int c = 0; c < kLinkClasses; ++c) {
        if (spec.given[c] || c == kSocketLink) {
            continue;
        }
        // Without clusters the backbone's value is never read: one is enough.
        const bool one = c == kBackboneLink && !has_backbone;
        if (c == kBackboneLink && spec.switch_clusters) {
            combine(one ? 1 : std::size(kLeafCorners),
                    [](LinkCosts &machine, size_t v) { machine.oversubscription = kLeafCorners[v]; });
            continue;
        }
        const std::vector<LinkClass> &values = corners(c);
        combine(one ? 1 : values.size(), [&](LinkCosts &machine, size_t v) { machine.link[c] = values[v]; });
    }
    for (LinkCosts &machine : machines) {
        if (!spec.given[kNetworkLink] && spec.measured_network >= 0) {
            machine.link[kNetworkLink].latency = spec.measured_network;
        }
        if (!spec.hop_given && spec.measured_hop >= 0) {
            machine.hop_latency = spec.measured_hop;
        }
        for (const int c : {kNodeLink, kNetworkLink, kBackboneLink}) {
            const double measured = spec.measured_message[std::min(c, int(kNetworkLink))];
            if (!spec.given[c] && measured >= 0) {
                machine.link[c].overhead = measured;
            }
        }
        // After the node's measured overhead, which the message probe
        // measured over both sockets' pairs alike.
        if (!spec.given[kSocketLink]) {
            machine.link[kSocketLink] = socket_from_node(machine.link[kNodeLink]);
        }
        // A leaf's uplink: a message between leaves takes the network's
        // latency (the two switch hops more, a few hundred ns, are within
        // its error; the probe's crossing, below, measures them) and
        // overhead, at the network's bandwidth per node over the ratio.
        if (machine.oversubscription > 0) {
            const LinkClass &network = machine.link[kNetworkLink];
            machine.link[kBackboneLink] = LinkClass{0, network.bandwidth / machine.oversubscription,
                                                    network.overhead, kEagerLimit[kBackboneLink]};
        }
        if (!spec.given[kBackboneLink] && spec.measured_crossing >= 0) {
            machine.link[kBackboneLink].latency =
                std::max(0.0, spec.measured_crossing - machine.link[kNetworkLink].latency);
        }
    }
    return machines;
}

std::string describe(const LinkClass &link)
{
    char rate[32];
    const double bits = link.bandwidth * 8;
    if (std::isinf(bits)) {
        std::snprintf(rate, sizeof rate, "inf");
    } else if (bits >= 1e9) {
        std::snprintf(rate, sizeof rate, "%gGbit/s", bits / 1e9);
    } else if (bits >= 1e6) {
        std::snprintf(rate, sizeof rate, "%gMbit/s", bits / 1e6);
    } else {
        std::snprintf(rate, sizeof rate, "%gkbit/s", bits / 1e3);
    }
    return format_time(link.latency) + ":" + rate + ":" + format_time(link.overhead);
}

const char *link_class_name(int link_class)
{
    return link_class >= 0 && link_class < kLinkClasses ? kClassNames[link_class] : "?";
}

std::vector<int> message_probe_partners(const Topology &topology, int rank, int link_class, int reach,
                                        int *left_out)
{
    const int size = topology.size();
    std::vector<int> partners, seen;
    *left_out = 0;
    for (int distance = 1; distance <= reach && distance < size; ++distance) {
        for (const int peer : {(rank + distance) % size, (rank - distance + size) % size}) {
            const bool other_node = topology.node_of(peer) != topology.node_of(rank);
            if (std::find(seen.begin(), seen.end(), peer) != seen.end() || other_node != (link_class == 1)) {
                continue;
            }
            seen.push_back(peer);
            if (topology.cluster_of(peer) != topology.cluster_of(rank)) {
                ++*left_out;
            } else {
                partners.push_back(peer);
            }
        }
    }
    return partners;
}

} // namespace hier
