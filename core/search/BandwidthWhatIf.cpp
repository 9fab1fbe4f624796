#include "search/BandwidthWhatIf.h"

#include "search/PlanEvaluator.h"
#include "search/Replan.h"
#include "search/SearchEngine.h"
#include "search/WeightSimplex.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <numeric>
#include <set>

namespace memx {

const char* BandwidthWhatIf::toString(Robust r)
{
    switch (r) {
    case Robust::None: return "none";
    case Robust::Worst: return "worst";
    case Robust::Mean: return "mean";
    }
    return "none";
}

double BandwidthWhatIf::retime(const SearchRequest& request, const Cluster& cluster, const Plan& plan)
{
    Problem problem = request.problem;
    problem.cluster = cluster;
    try {
        const Evaluation ev = PlanEvaluator::evaluate(problem, PlanSpec::of(plan), request.predictor,
                                                      request.objective.variance, request.store.get());
        return ev.plan.iterationMs;
    } catch (const std::exception&) {
        return -1;  // a link the plan needs is gone
    }
}

namespace {

// What a scaled cluster is to a search: every link's bandwidth and latency.
// Segments alike in it are one problem, planned and timed once.
std::vector<double> networkKey(const Cluster& c)
{
    std::vector<double> key;
    key.reserve(c.links().size() * 2);
    for (const Link& l : c.links()) {
        key.push_back(l.bandwidthGBps);
        key.push_back(l.latencyUs);
    }
    return key;
}

}  // namespace

BandwidthWhatIf::Result BandwidthWhatIf::run(const SearchRequest& request, const SearchResult& result,
                                             const std::vector<BandwidthScenario>& scenarios, const Options& options)
{
    Result out;
    out.robust = options.robust;
    if (result.best.empty()) {
        out.error = "the search found no plan to try under other networks";
        return out;
    }
    const auto start = std::chrono::steady_clock::now();
    auto left = [&] {
        if (options.timeLimitS <= 0)
            return std::numeric_limits<double>::infinity();
        return options.timeLimitS - std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    const Plan& nominalBest = result.best.front();
    // The scaled clusters, one per distinct network; each segment names its own.
    std::vector<Cluster> networks;
    std::map<std::vector<double>, std::size_t> networkOf;
    std::vector<std::vector<std::size_t>> segNet;
    for (const auto& sc : scenarios) {
        segNet.emplace_back();
        for (const auto& seg : sc.segments) {
            Cluster c = BandwidthScenario::apply(request.problem.cluster, seg.scales);
            const auto [it, fresh] = networkOf.emplace(networkKey(c), networks.size());
            if (fresh)
                networks.push_back(std::move(c));
            segNet.back().push_back(it->second);
        }
    }
    // A plan's time on a network, once per (network, plan).
    std::map<std::pair<std::size_t, std::uint64_t>, double> timed;
    auto timeOn = [&](std::size_t net, const Plan& plan) {
        const auto key = std::make_pair(net, plan.key);
        if (auto it = timed.find(key); it != timed.end())
            return it->second;
        const double t = retime(request, networks[net], plan);
        timed.emplace(key, t);
        return t;
    };
    // Under a scenario: its segments' times weighted by their share.
    auto scenarioMs = [&](std::size_t k, const Plan& plan) {
        double total = 0;
        for (std::size_t g = 0; g < scenarios[k].segments.size(); ++g) {
            const double t = timeOn(segNet[k][g], plan);
            if (t < 0)
                return -1.0;
            total += scenarios[k].segments[g].share * t;
        }
        return total;
    };
    std::map<std::size_t, SegmentPick> planned;  // per network: its re-planned best
    std::size_t skipped = 0, cutShort = 0;
    for (std::size_t k = 0; k < scenarios.size(); ++k) {
        const BandwidthScenario& sc = scenarios[k];
        Scenario s;
        s.name = sc.name;
        s.timeProfile = sc.timeProfile();
        s.nominalBestMs = scenarioMs(k, nominalBest);
        s.slowdown = s.nominalBestMs > 0 ? s.nominalBestMs / nominalBest.iterationMs - 1 : 0;
        if (options.replan) {
            for (std::size_t g = 0; g < sc.segments.size(); ++g) {
                const std::size_t net = segNet[k][g];
                SegmentPick seg;
                if (auto it = planned.find(net); it != planned.end()) {
                    seg = it->second;
                    seg.predictorCalls = 0;  // planned for an earlier segment alike in every link
                } else if (left() <= 0) {
                    seg.error = "not re-planned: the time limit (--time-limit) ran out";
                    ++skipped;
                } else {
                    seg.nominalBestMs = timeOn(net, nominalBest);
                    SearchRequest again = replanRequest(request, networks[net]);
                    if (options.timeLimitS > 0)
                        again.options.timeLimitS = std::max(0.05, left());
                    const SearchResult r = SearchEngine::run(std::move(again));
                    ++out.replans;
                    seg.predictorCalls = r.stats.cacheMisses - std::min(r.stats.cacheMisses, r.stats.storeHits);
                    if (r.best.empty()) {
                        seg.error = r.error.empty() ? std::string("no plan") : r.error;
                    } else {
                        seg.plan = r.best.front();
                        seg.samePlan = seg.plan.key == nominalBest.key;
                        if (seg.nominalBestMs > 0)
                            seg.keepPhi = Objective::phi(seg.nominalBestMs, nominalBest.maxMemMiB, nominalBest.varMem,
                                                         r.references, r.weights);
                    }
                    if (!r.incomplete.empty())
                        ++cutShort;  // its best so far
                    planned.emplace(net, seg);
                }
                seg.description = BandwidthScenario::describe(sc.segments[g].scales);
                seg.share = sc.segments[g].share;
                s.segments.push_back(std::move(seg));
            }
        }
        out.scenarios.push_back(std::move(s));
    }
    if (cutShort > 0)
        out.incomplete = std::to_string(cutShort) + " re-planning search(es) cut short (their best plan so far)";
    if (skipped > 0)
        out.incomplete += (out.incomplete.empty() ? "" : "; ") + std::to_string(skipped) + " segment(s) not re-planned";

    if (options.robust == Robust::None || scenarios.empty())
        return out;
    // The kept plans, and every scenario's re-planned best, ranked by their
    // worst (mean) time over the scenarios with their own M and V.
    std::vector<Plan> candidates;
    std::set<std::uint64_t> seen;
    for (Plan& p : WeightSimplex::keptCandidates(result))
        if (seen.insert(p.key).second)  // a plan may sit on a front and in a top list
            candidates.push_back(std::move(p));
    for (const Scenario& s : out.scenarios)
        for (const SegmentPick& seg : s.segments)
            if (seg.error.empty() && seen.insert(seg.plan.key).second)
                candidates.push_back(seg.plan);
    std::size_t unranked = 0;
    for (const Plan& p : candidates) {
        if (left() <= 0) {
            ++unranked;
            continue;
        }
        RobustPlan rp;
        rp.plan = p;
        bool runs = true;
        for (std::size_t k = 0; k < scenarios.size() && runs; ++k) {
            const double t = scenarioMs(k, p);
            runs = t > 0;
            rp.scenarioMs.push_back(t);
        }
        if (!runs)
            continue;
        rp.worst = static_cast<std::size_t>(std::max_element(rp.scenarioMs.begin(), rp.scenarioMs.end())
                                            - rp.scenarioMs.begin());
        rp.robustMs = options.robust == Robust::Worst
            ? rp.scenarioMs[rp.worst]
            : std::accumulate(rp.scenarioMs.begin(), rp.scenarioMs.end(), 0.0) / double(rp.scenarioMs.size());
        rp.robustPhi = Objective::phi(rp.robustMs, p.maxMemMiB, p.varMem, result.references, result.weights);
        out.robustPlans.push_back(std::move(rp));
    }
    if (unranked > 0)
        out.incomplete += (out.incomplete.empty() ? "" : "; ") + std::to_string(unranked) + " of "
            + std::to_string(candidates.size()) + " kept plans not ranked robustly";
    out.candidates = out.robustPlans.size();
    std::sort(out.robustPlans.begin(), out.robustPlans.end(), [](const RobustPlan& a, const RobustPlan& b) {
        return a.robustPhi != b.robustPhi ? a.robustPhi < b.robustPhi : a.plan.key < b.plan.key;
    });
    if (out.robustPlans.size() > options.topK)
        out.robustPlans.resize(options.topK);
    return out;
}

}  // namespace memx
