#include "search/NodeChoice.h"

#include "search/Replan.h"
#include "search/SearchEngine.h"

#include <algorithm>
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

// The row of the nodes that hold only types of `mask`: which nodes it
// leaves out (`leave`), its GPUs and types; no plan yet.
NodeChoice::Row rowOf(const Cluster& cluster, unsigned mask, std::vector<int>& leave)
{
    NodeChoice::Row row;
    for (std::size_t n = 0; n < cluster.nodes().size(); ++n) {
        bool keep = true;
        for (int d : cluster.nodes()[n].devices)
            keep = keep && (mask >> cluster.devices()[static_cast<std::size_t>(d)].type & 1u);
        if (keep) {
            row.gpus += static_cast<int>(cluster.nodes()[n].devices.size());
        } else {
            leave.push_back(static_cast<int>(n));
            row.left.push_back(cluster.nodes()[n].name);
        }
    }
    std::set<std::string> kept;
    for (std::size_t n = 0; n < cluster.nodes().size(); ++n)
        if (std::find(leave.begin(), leave.end(), static_cast<int>(n)) == leave.end())
            for (int d : cluster.nodes()[n].devices)
                kept.insert(cluster.typeOf(d).name);
    row.types.assign(kept.begin(), kept.end());
    row.whole = leave.empty();
    return row;
}

// The row's plan: the search's own on the whole cluster, else a search of
// the nodes it keeps.
void planRow(const SearchRequest& request, const SearchResult& result, const std::vector<int>& leave,
             NodeChoice::Row& row)
{
    const Cluster& cluster = request.problem.cluster;
    if (row.whole) {
        row.plan = result.best.front();
        row.cost = PlanCost::of(cluster, row.plan);
        return;
    }
    Cluster part = cluster.withoutNodes(leave);
    const SearchResult r = SearchEngine::run(replanRequest(request, part));
    if (r.best.empty()) {
        row.error = r.error.empty() ? std::string("no plan fits") : r.error;
    } else {
        row.plan = r.best.front();
        row.cost = PlanCost::of(part, row.plan);
    }
}

}  // namespace

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
    for (unsigned mask : typeSets(static_cast<int>(cluster.types().size()))) {
        std::vector<int> leave;
        Row row = rowOf(cluster, mask, leave);
        if (row.gpus == 0)
            continue;  // every node holds a type left out
        planRow(request, result, leave, row);
        if (row.error.empty()) {
            const bool tooDear
                = options.maxCostPerHour >= 0 && (row.cost.perHour < 0 || row.cost.perHour > options.maxCostPerHour);
            const bool tooSlow = options.minTokensPerS >= 0 && row.cost.tokensPerS < options.minTokensPerS;
            row.meetsLimits = !tooDear && !tooSlow;
            if (!row.meetsLimits && !row.whole) {
                ++out.dropped;
                continue;
            }
        }
        out.rows.push_back(std::move(row));
    }
    auto key = [&](const Row& r) {
        if (!r.error.empty())
            return std::numeric_limits<double>::infinity();
        if (options.rank == Rank::Cost)
            return r.cost.perMillionTokens >= 0 ? r.cost.perMillionTokens : std::numeric_limits<double>::max();
        return -r.cost.tokensPerS;
    };
    std::stable_sort(out.rows.begin(), out.rows.end(), [&](const Row& a, const Row& b) { return key(a) < key(b); });
    return out;
}

}  // namespace memx
