#include "search/NodeChoice.h"

#include "io/Text.h"
#include "search/Replan.h"
#include "search/SearchEngine.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <set>

namespace memx {

bool NodeChoice::parseRank(const std::string& text, Rank& out)
{
    if (text == "throughput" || text == "time") {
        out = Rank::Throughput;
        return true;
    }
    if (text == "cost") {
        out = Rank::Cost;
        return true;
    }
    return false;
}

namespace {

// Sets of kept types as bit masks: every non-empty one up to 6 types,
// else the whole cluster and each type left out.
std::vector<unsigned> typeSets(int types)
{
    std::vector<unsigned> masks;
    const unsigned all = (1u << std::min(types, 31)) - 1;
    if (types <= 6) {
        for (unsigned m = all; m >= 1; --m)
            masks.push_back(m);
    } else {
        masks.push_back(all);
        for (int t = 0; t < types; ++t)
            masks.push_back(all & ~(1u << t));
    }
    return masks;
}

// The nodes that hold a type outside `mask`.
std::vector<int> leftByTypes(const Cluster& cluster, unsigned mask)
{
    std::vector<int> leave;
    for (std::size_t n = 0; n < cluster.nodes().size(); ++n) {
        bool keep = true;
        for (int d : cluster.nodes()[n].devices)
            keep = keep && (mask >> cluster.devices()[static_cast<std::size_t>(d)].type & 1u);
        if (!keep)
            leave.push_back(static_cast<int>(n));
    }
    return leave;
}

// The row that leaves out the nodes `leave` (sorted): their names, the GPUs
// and types of the others; no plan yet.
NodeChoice::Row rowLeaving(const Cluster& cluster, const std::vector<int>& leave)
{
    NodeChoice::Row row;
    std::set<std::string> kept;
    for (std::size_t n = 0; n < cluster.nodes().size(); ++n) {
        const auto& node = cluster.nodes()[n];
        if (std::binary_search(leave.begin(), leave.end(), static_cast<int>(n))) {
            row.left.push_back(node.name);
            continue;
        }
        row.gpus += static_cast<int>(node.devices.size());
        for (int d : node.devices)
            kept.insert(cluster.typeOf(d).name);
    }
    row.types.assign(kept.begin(), kept.end());
    row.whole = leave.empty();
    return row;
}

// Per GPU type, the nodes that hold it, in cluster file order.
std::vector<std::vector<int>> nodesByType(const Cluster& cluster)
{
    std::vector<std::vector<int>> out(cluster.types().size());
    for (std::size_t n = 0; n < cluster.nodes().size(); ++n) {
        std::set<int> types;
        for (int d : cluster.nodes()[n].devices)
            types.insert(cluster.devices()[static_cast<std::size_t>(d)].type);
        for (int t : types)
            out[static_cast<std::size_t>(t)].push_back(static_cast<int>(n));
    }
    return out;
}

// The row's plan: the search's own on the whole cluster, else a search of
// the nodes it keeps, with at most `left` seconds (infinite: no limit).
void planRow(const SearchRequest& request, const SearchResult& result, const std::vector<int>& leave, double left,
             NodeChoice::Row& row)
{
    const Cluster& cluster = request.problem.cluster;
    if (row.whole) {
        row.plan = result.best.front();
        row.cost = PlanCost::of(cluster, row.plan);
        return;
    }
    if (left <= 0) {
        row.error = NodeChoice::timeRanOut;
        return;
    }
    Cluster part = cluster.withoutNodes(leave);
    SearchRequest again = replanRequest(request, part);
    if (request.options.meshSkeletons == 0)
        again.options.meshSkeletons = NodeChoice::meshSkeletons;
    if (std::isfinite(left))
        again.options.timeLimitS = std::max(0.05, left);
    const SearchResult r = SearchEngine::run(std::move(again));
    if (r.best.empty()) {
        row.error = r.error.empty() ? std::string("no plan fits") : r.error;
    } else {
        row.plan = r.best.front();
        row.cost = PlanCost::of(part, row.plan);
    }
}

}  // namespace

std::vector<int> NodeChoice::keptCounts(int n)
{
    std::vector<int> k;
    if (n <= 7) {
        for (int i = n - 1; i >= 1; --i)
            k.push_back(i);
        return k;
    }
    int pow2 = 1;
    while (pow2 * 2 < n)
        pow2 *= 2;
    k = {n - 1, n - 2, pow2, 3 * n / 4, n / 2, n / 4, 1};
    std::sort(k.begin(), k.end(), std::greater<>());
    k.erase(std::unique(k.begin(), k.end()), k.end());
    return k;
}

std::string NodeChoice::keptText(const Row& row, const char* separator)
{
    std::vector<std::string> parts;
    for (const auto& type : row.types) {
        auto p = std::find_if(row.part.begin(), row.part.end(), [&](const PartNodes& x) { return x.type == type; });
        parts.push_back(
            p == row.part.end() ? type : type + " " + std::to_string(p->kept) + "/" + std::to_string(p->of) + " nodes");
    }
    return Text::join(parts, separator);
}

NodeChoice::Result NodeChoice::run(const SearchRequest& request, const SearchResult& result, const Options& options)
{
    Result out;
    const Cluster& cluster = request.problem.cluster;
    out.pricesKnown = std::all_of(cluster.types().begin(), cluster.types().end(),
                                  [](const GpuType& t) { return t.pricePerHour >= 0; });
    if (result.best.empty()) {
        out.error = "the search found no plan on the whole cluster";
        return out;
    }
    auto key = [&](const Row& r) {
        if (!r.error.empty())
            return std::numeric_limits<double>::infinity();
        if (options.rank == Rank::Cost)
            return r.cost.perMillionTokens >= 0 ? r.cost.perMillionTokens : std::numeric_limits<double>::max();
        return -r.cost.tokensPerS;
    };
    // Plans the row, applies the limits and keeps it unless they drop it;
    // returns its rank key (infinite when it has no plan or was dropped).
    const auto start = std::chrono::steady_clock::now();
    const double budget = request.options.timeLimitS;
    auto left = [&] {
        return budget <= 0 ? std::numeric_limits<double>::infinity()
                           : budget - std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    auto add = [&](Row row, const std::vector<int>& leave) {
        planRow(request, result, leave, left(), row);
        if (row.error == timeRanOut)
            ++out.notSearched;
        if (row.error.empty()) {
            const bool tooDear
                = options.maxCostPerHour >= 0 && (row.cost.perHour < 0 || row.cost.perHour > options.maxCostPerHour);
            const bool tooSlow = options.minTokensPerS >= 0 && row.cost.tokensPerS < options.minTokensPerS;
            row.meetsLimits = !tooDear && !tooSlow;
            if (!row.meetsLimits && !row.whole) {
                ++out.dropped;
                return std::numeric_limits<double>::infinity();
            }
        }
        const double k = row.meetsLimits ? key(row) : std::numeric_limits<double>::infinity();
        out.rows.push_back(std::move(row));
        return k;
    };

    double wholeKey = std::numeric_limits<double>::infinity();
    for (unsigned mask : typeSets(static_cast<int>(cluster.types().size()))) {
        const std::vector<int> leave = leftByTypes(cluster, mask);
        Row row = rowLeaving(cluster, leave);
        if (row.gpus == 0)
            continue;  // every node holds a type left out
        const bool whole = row.whole;
        const double k = add(std::move(row), leave);
        if (whole)
            wholeKey = k;
    }

    // Some nodes of one type left out; per type the best count that beats
    // the whole cluster, whose nodes left out the last row joins.
    const auto byType = nodesByType(cluster);
    std::vector<int> together;
    std::vector<PartNodes> togetherPart;
    for (std::size_t t = 0; t < byType.size(); ++t) {
        const auto& nodes = byType[t];
        const int n = static_cast<int>(nodes.size());
        double bestKey = wholeKey;
        int bestKept = n;
        for (int kept : keptCounts(n)) {
            std::vector<int> leave(nodes.begin() + kept, nodes.end());
            std::sort(leave.begin(), leave.end());
            Row row = rowLeaving(cluster, leave);
            row.part = {{cluster.types()[t].name, kept, n}};
            const double k = add(std::move(row), leave);
            if (k < bestKey) {
                bestKey = k;
                bestKept = kept;
            }
        }
        if (bestKept < n) {
            together.insert(together.end(), nodes.begin() + bestKept, nodes.end());
            togetherPart.push_back({cluster.types()[t].name, bestKept, n});
        }
    }
    if (togetherPart.size() >= 2) {
        std::sort(together.begin(), together.end());
        together.erase(std::unique(together.begin(), together.end()), together.end());
        Row row = rowLeaving(cluster, together);
        row.part = togetherPart;
        add(std::move(row), together);
    }
    std::stable_sort(out.rows.begin(), out.rows.end(), [&](const Row& a, const Row& b) { return key(a) < key(b); });
    return out;
}

}  // namespace memx
