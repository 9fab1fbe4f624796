#include "search/NodeLossWhatIf.h"

#include "io/Text.h"
#include "search/PlanCost.h"
#include "search/Replan.h"
#include "search/SearchEngine.h"
#include "search/WeightSimplex.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <tuple>

namespace memx {

const char* NodeLossWhatIf::toString(Which w) { return w == Which::PerType ? "per-type" : "each"; }

bool NodeLossWhatIf::parse(const std::string& text, Which& out)
{
    if (text == "each" || text == "each-node") {
        out = Which::EachNode;
        return true;
    }
    if (text == "per-type") {
        out = Which::PerType;
        return true;
    }
    return false;
}

namespace {

std::string listing(const Cluster& c, int node)
{
    std::map<std::string, int> count;
    for (int d : c.nodes()[static_cast<std::size_t>(node)].devices)
        ++count[c.typeOf(d).name];
    std::string out;
    for (const auto& [type, n] : count)
        out += (out.empty() ? "" : " + ") + std::to_string(n) + " x " + type;
    return out;
}

// What losing `node` looks like from the rest of the cluster: its GPUs, its
// links inside, and for every link that leaves it the link and what is at the
// other end. Nodes with equal signatures are one scenario.
std::string signature(const Cluster& c, int node, const std::vector<std::string>& listings)
{
    std::vector<std::string> inside, outside;
    auto nodeOf = [&](int d) { return c.devices()[static_cast<std::size_t>(d)].node; };
    auto indexIn = [&](const std::vector<int>& ds) {
        std::string s;
        for (int d : ds)
            s += std::to_string(c.devices()[static_cast<std::size_t>(d)].indexInNode) + ",";
        return s;
    };
    for (std::size_t li = 0; li < c.links().size(); ++li) {
        const Link& l = c.links()[li];
        const std::string kind = std::string(toString(l.kind)) + Text::fmt(" %.6g", l.bandwidthGBps)
            + Text::fmt(" %.6g ", l.latencyUs) + (l.medium >= 0 ? "shared " : "");
        if (l.across) {
            // A fabric: nodes whose GPUs in it sit alike (and whose listings
            // match) leave the same rest behind.
            std::vector<int> own;
            for (std::size_t k = 0; k < l.a.size(); ++k)
                if (l.aNode[k] == node)
                    own.push_back(l.a[k]);
            if (!own.empty())
                outside.push_back(kind + "across #" + std::to_string(li) + " " + indexIn(own));
            continue;
        }
        const bool aHere = !l.a.empty() && nodeOf(l.a.front()) == node;
        const bool bHere = !l.b.empty() && nodeOf(l.b.front()) == node;
        if (l.within && aHere)
            inside.push_back(kind + "within " + indexIn(l.a));
        else if (aHere && bHere)
            inside.push_back(kind + "between " + indexIn(l.a) + "|" + indexIn(l.b));
        else if (aHere || bHere) {
            const std::vector<int>& other = aHere ? l.b : l.a;
            outside.push_back(kind + indexIn(aHere ? l.a : l.b) + "->"
                              + listings[static_cast<std::size_t>(nodeOf(other.front()))] + ":" + indexIn(other));
        }
    }
    std::sort(inside.begin(), inside.end());
    std::sort(outside.begin(), outside.end());
    std::string s = listings[static_cast<std::size_t>(node)] + "\n";
    for (const auto& x : inside)
        s += x + "\n";
    s += "--\n";
    for (const auto& x : outside)
        s += x + "\n";
    return s;
}

bool usesNode(const Cluster& c, const Plan& p, int node)
{
    for (const StagePlan& s : p.stages)
        for (int d : s.devices)
            if (d >= 0 && d < c.deviceCount() && c.devices()[static_cast<std::size_t>(d)].node == node)
                return true;
    return false;
}

// What a restart keeps of a plan: its TP degrees, micro-batch, sequence
// length and query groups.
using Layout = std::tuple<std::vector<int>, int, int, int>;

Layout layoutOf(const Plan& p)
{
    std::set<int> tps;
    for (std::size_t i = 0; i < p.stages.size(); ++i)
        tps.insert(p.shapeOf(i).tp);
    return {std::vector<int>(tps.begin(), tps.end()), p.microBatch, p.seqLen, p.queryGroups};
}

}  // namespace

std::vector<std::vector<int>> NodeLossWhatIf::scenarioNodes(const Cluster& cluster, Which which)
{
    const int nodes = static_cast<int>(cluster.nodes().size());
    std::vector<std::string> listings;
    for (int n = 0; n < nodes; ++n)
        listings.push_back(listing(cluster, n));
    std::vector<std::vector<int>> out;
    if (which == Which::PerType) {
        std::set<std::string> seen;
        for (int n = 0; n < nodes; ++n)
            if (seen.insert(listings[static_cast<std::size_t>(n)]).second)
                out.push_back({n});
        return out;
    }
    std::map<std::string, std::size_t> bySignature;
    for (int n = 0; n < nodes; ++n) {
        const auto [it, fresh] = bySignature.emplace(signature(cluster, n, listings), out.size());
        if (fresh)
            out.push_back({n});
        else
            out[it->second].push_back(n);
    }
    return out;
}

namespace {

// The kept plans ranked by their worst time over the node-loss scenarios:
// a plan that used the lost node resumes with its layout (TP, micro-batch,
// sequence, query groups) on the cluster without it.
class RobustRanking {
public:
    RobustRanking(const SearchRequest& request, const SearchResult& result, const std::vector<Cluster>& reduced,
                  NodeLossWhatIf::Result& out)
        : request_(request)
        , result_(result)
        , reduced_(reduced)
        , out_(out)
    {
    }

    // The kept plans, best Phi first, at most max(topK, 20) of them: each
    // layout they use costs one constrained search per scenario.
    std::vector<Plan> candidates(std::size_t topK) const
    {
        std::vector<Plan> candidates;
        std::set<std::uint64_t> seen;
        for (Plan& p : WeightSimplex::keptCandidates(result_))
            if (seen.insert(p.key).second)
                candidates.push_back(std::move(p));
        std::sort(candidates.begin(), candidates.end(),
                  [](const Plan& a, const Plan& b) { return a.phi != b.phi ? a.phi < b.phi : a.key < b.key; });
        if (candidates.size() > std::max<std::size_t>(topK, 20))
            candidates.resize(std::max<std::size_t>(topK, 20));
        return candidates;
    }

    // A plan's times under every scenario and its worst; false when it
    // cannot resume after one of the losses.
    bool rank(const Plan& p, NodeLossWhatIf::RobustPlan& rp)
    {
        const Cluster& cluster = request_.problem.cluster;
        rp.plan = p;
        for (std::size_t k = 0; k < out_.scenarios.size(); ++k) {
            const bool touched = usesNode(cluster, p, out_.scenarios[k].node);
            const double ms = touched ? resume(p, k) : p.iterationMs;
            rp.scenarioMs.push_back(ms);
            rp.resumed.push_back(touched);
            if (!(ms > 0))
                return false;
        }
        rp.worst = static_cast<std::size_t>(std::max_element(rp.scenarioMs.begin(), rp.scenarioMs.end())
                                            - rp.scenarioMs.begin());
        rp.worstMs = rp.scenarioMs[rp.worst];
        rp.worstPhi = Objective::phi(rp.worstMs, p.maxMemMiB, p.varMem, result_.references, result_.weights);
        return true;
    }

private:
    // (layout, scenario) -> time, searched once; < 0: no plan.
    double resume(const Plan& p, std::size_t k)
    {
        const Layout layout = layoutOf(p);
        const auto key = std::make_pair(layout, k);
        if (const auto it = resumeMs_.find(key); it != resumeMs_.end())
            return it->second;
        SearchRequest again = replanRequest(request_, reduced_[k]);
        TrainingSetup& setup = again.problem.setup;
        setup.tensorParallel = std::get<0>(layout);
        setup.microBatchSizes = {std::get<1>(layout)};
        setup.seqLens = {std::get<2>(layout)};
        setup.queryGroups = {std::get<3>(layout)};
        const SearchResult r = SearchEngine::run(std::move(again));
        const double ms = r.best.empty() ? -1.0 : r.best.front().iterationMs;
        resumeMs_.emplace(key, ms);
        return ms;
    }

    const SearchRequest& request_;
    const SearchResult& result_;
    const std::vector<Cluster>& reduced_;
    NodeLossWhatIf::Result& out_;
    std::map<std::pair<Layout, std::size_t>, double> resumeMs_;
};

}  // namespace

NodeLossWhatIf::Result NodeLossWhatIf::run(const SearchRequest& request, const SearchResult& result,
                                           const Options& options, const std::function<bool()>& cancelled)
{
    Result out;
    out.which = options.which;
    out.robust = options.robust;
    const Cluster& cluster = request.problem.cluster;
    if (result.best.empty()) {
        out.error = "the search found no plan to try without a node";
        return out;
    }
    if (cluster.nodes().size() < 2) {
        out.error = "the cluster has one node; losing it leaves nothing to plan on";
        return out;
    }
    const Plan& plan1 = result.best.front();
    out.plan1Ms = plan1.iterationMs;
    out.plan1TokensPerS = PlanCost::tokensPerSecond(plan1);

    std::vector<Cluster> reduced;
    for (const std::vector<int>& nodes : scenarioNodes(cluster, options.which)) {
        if (cancelled && cancelled()) {
            out.cancelled = true;
            return out;
        }
        Scenario s;
        s.node = nodes.front();
        s.name = cluster.nodes()[static_cast<std::size_t>(s.node)].name;
        for (std::size_t k = 1; k < nodes.size(); ++k)
            s.alike.push_back(cluster.nodes()[static_cast<std::size_t>(nodes[k])].name);
        s.gpus = listing(cluster, s.node);
        s.plan1Idle = !usesNode(cluster, plan1, s.node);
        reduced.push_back(cluster.withoutNodes({s.node}));
        const SearchResult r = SearchEngine::run(replanRequest(request, reduced.back()), {}, cancelled);
        if (r.cancelled) {
            out.cancelled = true;
            return out;
        }
        if (r.best.empty()) {
            s.error = r.error.empty() ? std::string("no plan fits") : r.error;
        } else {
            s.plan = r.best.front();
            s.slowdown = s.plan.iterationMs / plan1.iterationMs - 1;
            s.tokensPerS = PlanCost::tokensPerSecond(s.plan);
        }
        out.scenarios.push_back(std::move(s));
    }
    if (!options.robust)
        return out;
    if (cancelled && cancelled()) {
        out.cancelled = true;
        return out;
    }
    RobustRanking ranking(request, result, reduced, out);
    const std::vector<Plan> candidates = ranking.candidates(options.topK);
    out.candidates = candidates.size();
    for (const Plan& p : candidates) {
        RobustPlan rp;
        if (ranking.rank(p, rp))
            out.robustPlans.push_back(std::move(rp));
        else
            ++out.cannotResume;
    }
    std::sort(out.robustPlans.begin(), out.robustPlans.end(), [](const RobustPlan& a, const RobustPlan& b) {
        return a.worstPhi != b.worstPhi ? a.worstPhi < b.worstPhi : a.plan.key < b.plan.key;
    });
    if (out.robustPlans.size() > options.topK)
        out.robustPlans.resize(options.topK);
    return out;
}

}  // namespace memx
