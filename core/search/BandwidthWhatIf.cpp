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

namespace {

using Robust = BandwidthWhatIf::Robust;

// One what-if: the scaled networks, each plan timed once per network, each
// network re-planned once, then the kept plans ranked by their robust time.
class WhatIfRun {
public:
    WhatIfRun(const SearchRequest& request, const SearchResult& result, const std::vector<BandwidthScenario>& scenarios,
              const BandwidthWhatIf::Options& options)
        : request_(request)
        , result_(result)
        , scenarios_(scenarios)
        , options_(options)
        , start_(std::chrono::steady_clock::now())
        , nominalBest_(result.best.front())
    {
        // The scaled clusters, one per distinct network; each segment names its own.
        std::map<std::vector<double>, std::size_t> networkOf;
        for (const auto& sc : scenarios) {
            segNet_.emplace_back();
            for (const auto& seg : sc.segments) {
                Cluster c = BandwidthScenario::apply(request.problem.cluster, seg.scales);
                const auto [it, fresh] = networkOf.emplace(networkKey(c), networks_.size());
                if (fresh)
                    networks_.push_back(std::move(c));
                segNet_.back().push_back(it->second);
            }
        }
    }

    void scenarios(BandwidthWhatIf::Result& out)
    {
        for (std::size_t k = 0; k < scenarios_.size(); ++k) {
            const BandwidthScenario& sc = scenarios_[k];
            BandwidthWhatIf::Scenario s;
            s.name = sc.name;
            s.timeProfile = sc.timeProfile();
            s.nominalBestMs = scenarioMs(k, nominalBest_);
            s.slowdown = s.nominalBestMs > 0 ? s.nominalBestMs / nominalBest_.iterationMs - 1 : 0;
            if (options_.replan)
                for (std::size_t g = 0; g < sc.segments.size(); ++g) {
                    BandwidthWhatIf::SegmentPick seg = replanned(segNet_[k][g], out);
                    seg.description = BandwidthScenario::describe(sc.segments[g].scales);
                    seg.share = sc.segments[g].share;
                    s.segments.push_back(std::move(seg));
                }
            out.scenarios.push_back(std::move(s));
        }
        if (cutShort_ > 0)
            out.incomplete = std::to_string(cutShort_) + " re-planning search(es) cut short (their best plan so far)";
        if (skipped_ > 0)
            out.incomplete
                += (out.incomplete.empty() ? "" : "; ") + std::to_string(skipped_) + " segment(s) not re-planned";
    }

    // The kept plans, and every scenario's re-planned best, ranked by their
    // worst (mean) time over the scenarios with their own M and V.
    void rankRobustly(BandwidthWhatIf::Result& out)
    {
        std::vector<Plan> candidates;
        std::set<std::uint64_t> seen;
        for (Plan& p : WeightSimplex::keptCandidates(result_))
            if (seen.insert(p.key).second)  // a plan may sit on a front and in a top list
                candidates.push_back(std::move(p));
        for (const BandwidthWhatIf::Scenario& s : out.scenarios)
            for (const BandwidthWhatIf::SegmentPick& seg : s.segments)
                if (seg.error.empty() && seen.insert(seg.plan.key).second)
                    candidates.push_back(seg.plan);
        std::size_t unranked = 0;
        for (const Plan& p : candidates) {
            if (left() <= 0) {
                ++unranked;
                continue;
            }
            BandwidthWhatIf::RobustPlan rp;
            if (robust(p, rp))
                out.robustPlans.push_back(std::move(rp));
        }
        if (unranked > 0)
            out.incomplete += (out.incomplete.empty() ? "" : "; ") + std::to_string(unranked) + " of "
                + std::to_string(candidates.size()) + " kept plans not ranked robustly";
        out.candidates = out.robustPlans.size();
        std::sort(out.robustPlans.begin(), out.robustPlans.end(),
                  [](const BandwidthWhatIf::RobustPlan& a, const BandwidthWhatIf::RobustPlan& b) {
                      return a.robustPhi != b.robustPhi ? a.robustPhi < b.robustPhi : a.plan.key < b.plan.key;
                  });
        if (out.robustPlans.size() > options_.topK)
            out.robustPlans.resize(options_.topK);
    }

private:
    double left() const
    {
        if (options_.timeLimitS <= 0)
            return std::numeric_limits<double>::infinity();
        return options_.timeLimitS - std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }

    // A plan's time on a network, once per (network, plan).
    double timeOn(std::size_t net, const Plan& plan)
    {
        const auto key = std::make_pair(net, plan.key);
        if (auto it = timed_.find(key); it != timed_.end())
            return it->second;
        const double t = BandwidthWhatIf::retime(request_, networks_[net], plan);
        timed_.emplace(key, t);
        return t;
    }

    // Under a scenario: its segments' times weighted by their share.
    double scenarioMs(std::size_t k, const Plan& plan)
    {
        double total = 0;
        for (std::size_t g = 0; g < scenarios_[k].segments.size(); ++g) {
            const double t = timeOn(segNet_[k][g], plan);
            if (t < 0)
                return -1.0;
            total += scenarios_[k].segments[g].share * t;
        }
        return total;
    }

    // The network's best plan, searched once per network.
    BandwidthWhatIf::SegmentPick replanned(std::size_t net, BandwidthWhatIf::Result& out)
    {
        BandwidthWhatIf::SegmentPick seg;
        if (auto it = planned_.find(net); it != planned_.end()) {
            seg = it->second;
            seg.predictorCalls = 0;  // planned for an earlier segment alike in every link
            return seg;
        }
        if (left() <= 0) {
            seg.error = "not re-planned: the time limit (--time-limit) ran out";
            ++skipped_;
            return seg;
        }
        seg.nominalBestMs = timeOn(net, nominalBest_);
        SearchRequest again = replanRequest(request_, networks_[net]);
        if (options_.timeLimitS > 0)
            again.options.timeLimitS = std::max(0.05, left());
        const SearchResult r = SearchEngine::run(std::move(again));
        ++out.replans;
        seg.predictorCalls = r.stats.cacheMisses - std::min(r.stats.cacheMisses, r.stats.storeHits);
        if (r.best.empty()) {
            seg.error = r.error.empty() ? std::string("no plan") : r.error;
        } else {
            seg.plan = r.best.front();
            seg.samePlan = seg.plan.key == nominalBest_.key;
            if (seg.nominalBestMs > 0)
                seg.keepPhi = Objective::phi(seg.nominalBestMs, nominalBest_.maxMemMiB, nominalBest_.varMem,
                                             r.references, r.weights);
        }
        if (!r.incomplete.empty())
            ++cutShort_;  // its best so far
        planned_.emplace(net, seg);
        return seg;
    }

    // A plan's times under every scenario and its robust time and Phi;
    // false when it cannot run under one of them.
    bool robust(const Plan& p, BandwidthWhatIf::RobustPlan& rp)
    {
        rp.plan = p;
        for (std::size_t k = 0; k < scenarios_.size(); ++k) {
            const double t = scenarioMs(k, p);
            rp.scenarioMs.push_back(t);
            if (!(t > 0))
                return false;
        }
        rp.worst = static_cast<std::size_t>(std::max_element(rp.scenarioMs.begin(), rp.scenarioMs.end())
                                            - rp.scenarioMs.begin());
        rp.robustMs = options_.robust == Robust::Worst
            ? rp.scenarioMs[rp.worst]
            : std::accumulate(rp.scenarioMs.begin(), rp.scenarioMs.end(), 0.0) / double(rp.scenarioMs.size());
        rp.robustPhi = Objective::phi(rp.robustMs, p.maxMemMiB, p.varMem, result_.references, result_.weights);
        return true;
    }

    const SearchRequest& request_;
    const SearchResult& result_;
    const std::vector<BandwidthScenario>& scenarios_;
    const BandwidthWhatIf::Options& options_;
    const std::chrono::steady_clock::time_point start_;
    const Plan& nominalBest_;
    std::vector<Cluster> networks_;
    std::vector<std::vector<std::size_t>> segNet_;
    std::map<std::pair<std::size_t, std::uint64_t>, double> timed_;
    std::map<std::size_t, BandwidthWhatIf::SegmentPick> planned_;  // per network: its re-planned best
    std::size_t skipped_ = 0, cutShort_ = 0;
};

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
    WhatIfRun run(request, result, scenarios, options);
    run.scenarios(out);
    if (options.robust == Robust::None || scenarios.empty())
        return out;
    run.rankRobustly(out);
    return out;
}

}  // namespace memx
