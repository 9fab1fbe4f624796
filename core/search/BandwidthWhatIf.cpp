#include "search/BandwidthWhatIf.h"

#include "search/PlanEvaluator.h"
#include "search/Replan.h"
#include "search/SearchEngine.h"
#include "search/WeightSimplex.h"

#include <algorithm>
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

// The plan's time under a scenario: its segments' times weighted by their share.
double scenarioMs(const SearchRequest& request, const std::vector<Cluster>& segmentClusters,
                  const BandwidthScenario& scenario, const Plan& plan)
{
    double total = 0;
    for (std::size_t s = 0; s < scenario.segments.size(); ++s) {
        const double t = BandwidthWhatIf::retime(request, segmentClusters[s], plan);
        if (t < 0)
            return -1;
        total += scenario.segments[s].share * t;
    }
    return total;
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
    const Plan& nominalBest = result.best.front();
    // The scaled clusters, per scenario and segment.
    std::vector<std::vector<Cluster>> clusters;
    for (const auto& sc : scenarios) {
        clusters.emplace_back();
        for (const auto& seg : sc.segments)
            clusters.back().push_back(BandwidthScenario::apply(request.problem.cluster, seg.scales));
    }

    for (std::size_t k = 0; k < scenarios.size(); ++k) {
        const BandwidthScenario& sc = scenarios[k];
        Scenario s;
        s.name = sc.name;
        s.timeProfile = sc.timeProfile();
        s.nominalBestMs = scenarioMs(request, clusters[k], sc, nominalBest);
        s.slowdown = s.nominalBestMs > 0 ? s.nominalBestMs / nominalBest.iterationMs - 1 : 0;
        if (options.replan) {
            for (std::size_t g = 0; g < sc.segments.size(); ++g) {
                SegmentBest seg;
                seg.description = BandwidthScenario::describe(sc.segments[g].scales);
                seg.share = sc.segments[g].share;
                seg.nominalBestMs = retime(request, clusters[k][g], nominalBest);
                const SearchResult r = SearchEngine::run(replanRequest(request, clusters[k][g]));
                seg.predictorCalls = r.stats.cacheMisses - std::min(r.stats.cacheMisses, r.stats.storeHits);
                if (r.best.empty()) {
                    seg.error = r.error.empty() ? std::string("no plan") : r.error;
                } else {
                    seg.best = r.best.front();
                    seg.samePlan = seg.best.key == nominalBest.key;
                    if (seg.nominalBestMs > 0)
                        seg.keepPhi = Objective::phi(seg.nominalBestMs, nominalBest.maxMemMiB, nominalBest.varMem,
                                                     r.references, r.weights);
                }
                s.segments.push_back(std::move(seg));
            }
        }
        out.scenarios.push_back(std::move(s));
    }

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
        for (const SegmentBest& seg : s.segments)
            if (seg.error.empty() && seen.insert(seg.best.key).second)
                candidates.push_back(seg.best);
    for (const Plan& p : candidates) {
        RobustPlan rp;
        rp.plan = p;
        bool runs = true;
        for (std::size_t k = 0; k < scenarios.size() && runs; ++k) {
            const double t = scenarioMs(request, clusters[k], scenarios[k], p);
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
    out.candidates = out.robustPlans.size();
    std::sort(out.robustPlans.begin(), out.robustPlans.end(), [](const RobustPlan& a, const RobustPlan& b) {
        return a.robustPhi != b.robustPhi ? a.robustPhi < b.robustPhi : a.plan.key < b.plan.key;
    });
    if (out.robustPlans.size() > options.topK)
        out.robustPlans.resize(options.topK);
    return out;
}

}  // namespace memx
