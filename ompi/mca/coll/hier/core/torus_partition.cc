/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// The equal partition of a torus (see torus_partition.h for the problem, the
// algorithm and why OPT then takes max |R| steps).
#include "torus_partition.h"

#include <algorithm>
#include <deque>

namespace hier {

int TorusPartition::largest() const
{
    return sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
}

int torus_scatter_bound(const Torus &torus)
{
    const int links = static_cast<int>(torus.links().size());
    return links == 0 ? 0 : (torus.size() - 1 + links - 1) / links;
}

namespace {

constexpr int kRoot = 0;

// The shortest-path structure around the root: distances, and each node's
// predecessors (neighbours one hop closer) and successors (one hop further).
struct Layers {
    std::vector<int> distance;
    std::vector<int> order;  // nodes by increasing distance, the root first
    std::vector<std::vector<int>> predecessors;
    std::vector<std::vector<int>> successors;
    std::vector<int> seed_region;  // the link whose neighbour the node is, or -1

    explicit Layers(const Torus &torus)
        : distance(torus.size()), predecessors(torus.size()), successors(torus.size()),
          seed_region(torus.size(), -1)
    {
        const int p = torus.size();
        for (int v = 0; v < p; ++v) {
            distance[v] = torus.distance(kRoot, v);
        }
        order.resize(p);
        for (int v = 0; v < p; ++v) {
            order[v] = v;
        }
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return distance[a] < distance[b]; });
        const auto &links = torus.links();
        for (int v = 0; v < p; ++v) {
            for (const TorusLink &link : links) {
                const int u = torus.step(v, link);
                if (distance[u] == distance[v] - 1) {
                    predecessors[v].push_back(u);
                    successors[u].push_back(v);
                }
            }
        }
        for (size_t l = 0; l < links.size(); ++l) {
            seed_region[torus.step(kRoot, links[l])] = static_cast<int>(l);
        }
    }
};

// Step 1: outward, every node into the smallest region of its predecessors.
void grow_greedily(const Layers &layers, TorusPartition &partition)
{
    for (int v : layers.order) {
        if (v == kRoot) {
            continue;
        }
        int chosen = layers.seed_region[v];
        if (chosen < 0) {
            for (int u : layers.predecessors[v]) {
                const int r = partition.region[u];
                if (chosen < 0 || partition.sizes[r] < partition.sizes[chosen] ||
                    (partition.sizes[r] == partition.sizes[chosen] && r < chosen)) {
                    chosen = r;
                }
            }
        }
        partition.region[v] = chosen;
        ++partition.sizes[chosen];
    }
}

// Step 2: moves single nodes along augmenting paths between regions.
class Balancer {
public:
    Balancer(const Layers &layers, TorusPartition &partition)
        : layers_(layers), part_(partition), same_region_predecessors_(partition.region.size(), 0)
    {
        for (size_t v = 0; v < part_.region.size(); ++v) {
            same_region_predecessors_[v] = count_in(int(v), part_.region[v]);
        }
    }

    // Moves nodes until no region exceeds capacity, or no path is left.
    void run(int capacity)
    {
        while (!part_.sizes.empty()) {
            const int over = int(std::max_element(part_.sizes.begin(), part_.sizes.end()) - part_.sizes.begin());
            if (part_.sizes[over] <= capacity || !augment(over, capacity)) {
                return;
            }
        }
    }

private:
    // Predecessors of v in region r.
    int count_in(int v, int r) const
    {
        int n = 0;
        for (int u : layers_.predecessors[v]) {
            n += part_.region[u] == r;
        }
        return n;
    }

    // v may leave its region: it is no seed, and no node of its region has v
    // as its only predecessor there.
    bool may_leave(int v) const
    {
        if (layers_.seed_region[v] >= 0) {
            return false;
        }
        for (int w : layers_.successors[v]) {
            if (part_.region[w] == part_.region[v] && same_region_predecessors_[w] < 2) {
                return false;
            }
        }
        return true;
    }

    // Whether `mover`, entering region r, would still have a predecessor in
    // r once v has left it.
    bool keeps_a_predecessor(int mover, int v, int r) const
    {
        const auto &preds = layers_.predecessors[mover];
        return std::find(preds.begin(), preds.end(), v) == preds.end() || count_in(mover, r) >= 2;
    }

    void move(int v, int to)
    {
        const int from = part_.region[v];
        for (int w : layers_.successors[v]) {
            same_region_predecessors_[w] += (part_.region[w] == to) - (part_.region[w] == from);
        }
        part_.region[v] = to;
        same_region_predecessors_[v] = count_in(v, to);
        --part_.sizes[from];
        ++part_.sizes[to];
    }

    // One augmenting path from region `over` to a region below capacity.
    bool augment(int over, int capacity)
    {
        const int regions = static_cast<int>(part_.sizes.size());
        std::vector<std::vector<int>> members(regions);
        for (size_t v = 0; v < part_.region.size(); ++v) {
            if (part_.region[v] >= 0) {
                members[part_.region[v]].push_back(int(v));
            }
        }
        // came_from[Y] = {X, the node that moves from X to Y}
        std::vector<std::pair<int, int>> came_from(regions, {-1, -1});
        std::vector<bool> reached(regions, false);
        reached[over] = true;
        std::deque<int> queue{over};
        while (!queue.empty()) {
            const int x = queue.front();
            queue.pop_front();
            const int entering = came_from[x].second;
            for (int v : members[x]) {
                if (!may_leave(v) || (entering >= 0 && !keeps_a_predecessor(entering, v, x))) {
                    continue;
                }
                for (int u : layers_.predecessors[v]) {
                    const int y = part_.region[u];
                    if (reached[y]) {
                        continue;
                    }
                    reached[y] = true;
                    came_from[y] = {x, v};
                    if (part_.sizes[y] < capacity) {
                        for (int at = y; at != over; at = came_from[at].first) {
                            move(came_from[at].second, at);
                        }
                        return true;
                    }
                    queue.push_back(y);
                }
            }
        }
        return false;
    }

    const Layers &layers_;
    TorusPartition &part_;
    std::vector<int> same_region_predecessors_;
};

// Each node's parent: its first predecessor of the same region.
void choose_parents(const Layers &layers, TorusPartition &partition)
{
    partition.parent.assign(partition.region.size(), -1);
    for (size_t v = 0; v < partition.region.size(); ++v) {
        if (layers.seed_region[v] >= 0) {
            partition.parent[v] = kRoot;
            continue;
        }
        for (int u : layers.predecessors[v]) {
            if (partition.region[u] == partition.region[v]) {
                partition.parent[v] = u;
                break;
            }
        }
    }
}

} // namespace

TorusPartition partition_torus(const Torus &torus, bool balance)
{
    const Layers layers(torus);
    TorusPartition partition;
    partition.region.assign(torus.size(), -1);
    partition.sizes.assign(torus.links().size(), 0);
    grow_greedily(layers, partition);
    if (balance) {
        Balancer(layers, partition).run(torus_scatter_bound(torus));
    }
    choose_parents(layers, partition);
    return partition;
}

TorusPartition partition_from_regions(const Torus &torus, std::vector<int> region)
{
    const Layers layers(torus);
    TorusPartition partition;
    partition.region = std::move(region);
    partition.sizes.assign(torus.links().size(), 0);
    for (int r : partition.region) {
        if (r >= 0 && r < int(partition.sizes.size())) {
            ++partition.sizes[r];
        }
    }
    choose_parents(layers, partition);
    return partition;
}

std::string partition_error(const Torus &torus, const TorusPartition &partition)
{
    const int p = torus.size();
    const int links = static_cast<int>(torus.links().size());
    if (int(partition.region.size()) != p || int(partition.parent.size()) != p ||
        int(partition.sizes.size()) != links) {
        return "the partition does not describe this torus";
    }
    std::vector<int> counted(links, 0);
    for (int v = 0; v < p; ++v) {
        const int r = partition.region[v];
        const int parent = partition.parent[v];
        const std::string node = "node " + std::to_string(v);
        if (v == kRoot) {
            if (r != -1 || parent != -1) {
                return "the root is in a region";
            }
            continue;
        }
        if (r < 0 || r >= links) {
            return node + " is in no region of a root link";
        }
        ++counted[r];
        if (parent < 0 || parent >= p || torus.distance(parent, v) != 1 ||
            torus.distance(kRoot, parent) != torus.distance(kRoot, v) - 1) {
            return node + " has no parent one hop closer to the root";
        }
        if (parent == kRoot ? torus.step(kRoot, torus.links()[r]) != v : partition.region[parent] != r) {
            return node + "'s parent is outside its region";
        }
    }
    return counted == partition.sizes ? "" : "region sizes do not match the regions";
}

} // namespace hier
