#include "search/NodeChoice.h"

#include "io/NumericConstants.h"
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
// False when `cancelled` stopped the search.
bool planRow(const SearchRequest& request, const SearchResult& result, const std::vector<int>& leave, double left,
             const NodeChoice::Cancel& cancelled, NodeChoice::Row& row)
{
    const Cluster& cluster = request.problem.cluster;
    if (row.whole) {
        row.plan = result.best.front();
        row.cost = PlanCost::of(cluster, row.plan);
        return true;
    }
    if (left <= 0) {
        row.error = NodeChoice::timeRanOut;
        return true;
    }
    Cluster part = cluster.withoutNodes(leave);
    SearchRequest again = replanRequest(request, part);
    if (request.options.meshSkeletons == 0)
        again.options.meshSkeletons = NodeChoice::meshSkeletons;
    if (std::isfinite(left))
        again.options.timeLimitS = std::max(0.05, left);
    const SearchResult r = SearchEngine::run(std::move(again), {}, cancelled);
    if (r.cancelled)
        return false;
    if (r.best.empty()) {
        row.error = r.error.empty() ? std::string("no plan fits") : r.error;
    } else {
        row.plan = r.best.front();
        row.cost = PlanCost::of(part, row.plan);
    }
    return true;
}

// One choice of nodes: those it leaves out (sorted), the types of which it
// keeps only some nodes, and for a count of one type, that type.
struct Choice {
    std::vector<int> leave;
    std::vector<NodeChoice::PartNodes> part;
    int countOf = -1;
};

// The sets of types, then the counts of each type, in that order.
std::vector<Choice> choicesOf(const Cluster& cluster)
{
    std::vector<Choice> out;
    for (unsigned mask : typeSets(static_cast<int>(cluster.types().size()))) {
        Choice c{leftByTypes(cluster, mask), {}, -1};
        if (c.leave.size() < cluster.nodes().size())  // else every node holds a type left out
            out.push_back(std::move(c));
    }
    const auto byType = nodesByType(cluster);
    for (std::size_t t = 0; t < byType.size(); ++t) {
        const auto& nodes = byType[t];
        const int n = static_cast<int>(nodes.size());
        for (int kept : NodeChoice::keptCounts(n)) {
            Choice c{{nodes.begin() + kept, nodes.end()}, {{cluster.types()[t].name, kept, n}}, static_cast<int>(t)};
            std::sort(c.leave.begin(), c.leave.end());
            out.push_back(std::move(c));
        }
    }
    return out;
}

// Lower ranks first: no plan last; by cost, unknown costs after known ones.
double rankKey(const NodeChoice::Row& r, NodeChoice::Rank rank)
{
    if (!r.error.empty())
        return kInf;
    if (rank == NodeChoice::Rank::Cost)
        return r.cost.perMillionTokens >= 0 ? r.cost.perMillionTokens : std::numeric_limits<double>::max();
    return -r.cost.tokensPerS;
}

// Marks whether a planned row meets the limits; false when it is to be
// dropped (the whole cluster's row never is).
bool keptByLimits(NodeChoice::Row& row, const NodeChoice::Options& o)
{
    if (!row.error.empty())
        return true;
    const bool tooDear = o.maxCostPerHour >= 0 && (row.cost.perHour < 0 || row.cost.perHour > o.maxCostPerHour);
    const bool tooSlow = o.minTokensPerS >= 0 && row.cost.tokensPerS < o.minTokensPerS;
    row.meetsLimits = !tooDear && !tooSlow;
    return row.meetsLimits || row.whole;
}

// The best counts of the types that gained, together (its leave empty when
// fewer than two did).
Choice together(const std::vector<std::pair<double, const Choice*>>& bestCount)
{
    Choice out;
    for (const auto& [k, c] : bestCount)
        if (c) {
            out.leave.insert(out.leave.end(), c->leave.begin(), c->leave.end());
            out.part.push_back(c->part.front());
        }
    if (out.part.size() < 2)
        return {};
    std::sort(out.leave.begin(), out.leave.end());
    out.leave.erase(std::unique(out.leave.begin(), out.leave.end()), out.leave.end());
    return out;
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

NodeChoice::Result NodeChoice::run(const SearchRequest& request, const SearchResult& result, const Options& options,
                                   const Progress& progress, const Cancel& cancelled)
{
    Result out;
    const Cluster& cluster = request.problem.cluster;
    out.pricesKnown = std::all_of(cluster.types().begin(), cluster.types().end(),
                                  [](const GpuType& t) { return t.pricePerHour >= 0; });
    if (result.best.empty()) {
        out.error = "the search found no plan on the whole cluster";
        return out;
    }
    const auto start = std::chrono::steady_clock::now();
    const double budget = request.options.timeLimitS;
    auto left = [&] {
        return budget <= 0 ? kInf
                           : budget - std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    std::vector<Choice> choices = choicesOf(cluster);
    std::size_t done = 0;
    // Plans the choice and keeps its row unless the limits drop it; its rank
    // key (infinite without a plan or when dropped). False when cancelled.
    auto add = [&](const Choice& c, double& key) {
        key = kInf;
        if (cancelled && cancelled())
            return false;
        Row row = rowLeaving(cluster, c.leave);
        row.part = c.part;
        if (!planRow(request, result, c.leave, left(), cancelled, row))
            return false;
        if (progress)
            progress(++done, choices.size());
        out.notSearched += row.error == timeRanOut;
        if (!keptByLimits(row, options)) {
            ++out.dropped;
            return true;
        }
        key = row.meetsLimits ? rankKey(row, options.rank) : kInf;
        out.rows.push_back(std::move(row));
        return true;
    };

    // Per type, the best count that beats the whole cluster; those of every
    // type that gained are searched together last.
    double wholeKey = kInf;
    std::vector<std::pair<double, const Choice*>> bestCount(cluster.types().size(), {0.0, nullptr});
    for (const Choice& c : choices) {
        double k = 0;
        if (!add(c, k)) {
            out.cancelled = true;
            break;
        }
        if (c.leave.empty())
            wholeKey = k;
        if (c.countOf < 0 || k >= wholeKey)
            continue;
        auto& best = bestCount[static_cast<std::size_t>(c.countOf)];
        if (!best.second || k < best.first)
            best = {k, &c};
    }
    if (Choice both = together(bestCount); !out.cancelled && !both.part.empty()) {
        choices.push_back(std::move(both));
        double k = 0;
        out.cancelled = !add(choices.back(), k);
    }
    std::stable_sort(out.rows.begin(), out.rows.end(),
                     [&](const Row& a, const Row& b) { return rankKey(a, options.rank) < rankKey(b, options.rank); });
    return out;
}

}  // namespace memx
