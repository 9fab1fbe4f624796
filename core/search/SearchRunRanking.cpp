// SearchRun's ranking: the references and profile, the Phi ranking, the ranks of the reported plans, the knee and the baselines.
#include "search/SearchRun.h"

#include "io/Statistics.h"
#include "io/Text.h"
#include "predict/PredictionCache.h"
#include "predict/PredictionStore.h"
#include "search/BaselinePartitioner.h"
#include "search/KneeRanking.h"
#include "search/RankSink.h"
#include "search/SplitSearch.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <set>

namespace memx::engine {

void SearchRun::chooseEpsilon(References& ref)
{
    std::vector<double> uncertainty, fullestUtil;
    const auto take = [&](const Plan& p) {
        uncertainty.push_back(p.uncertainty);
        fullestUtil.push_back(1.0 - p.minHeadroom());
    };
    for (const auto& p : fastestPlans_)
        take(p);
    for (const auto* front : {&tv_, &tm_})
        for (const auto& pt : front->points())
            take(pt.plan);
    ref.epsilonRule = req_.objective.epsilonRule;
    if (ref.epsilonRule == EpsilonRule::Uncertainty) {
        ref.epsilonUncertainty = Statistics::median(uncertainty);
        ref.epsilonFullest
            = req_.objective.variance == VarianceMode::Utilisation ? Statistics::median(fullestUtil) : ref.memory;
    }
    ref.epsilon = Objective::epsilon(req_.objective, ref.variance, ref.epsilonUncertainty, ref.epsilonFullest);
}

void SearchRun::chooseReferencesAndProfile()
{
    References ref;
    ref.time = sample_.medianT();
    ref.memory = sample_.medianM();
    ref.variance = sample_.medianV();
    fastestPlans_ = fastest_.sorted();
    chooseEpsilon(ref);
    result_.references = ref;

    WeightProfile used = req_.objective.profile;
    Weights weights = weightsOf(used);
    if (used == WeightProfile::Custom) {
        weights = Objective::normalised(req_.objective.custom);
        result_.profileReason = "custom weights";
    } else if (used == WeightProfile::Auto) {
        const double margin = fastestPlans_.front().minHeadroom();
        const double cv = req_.problem.cluster.heterogeneityIndex();
        char buf[200];
        if (margin < req_.objective.safetyMarginThreshold) {
            used = WeightProfile::SafetyFirst;
            std::snprintf(buf, sizeof buf,
                          "the fastest plan leaves only %.1f%% memory headroom on its fullest GPU (< %.0f%%)",
                          100 * margin, 100 * req_.objective.safetyMarginThreshold);
        } else if (cv <= req_.objective.weakHeterogeneityThreshold) {
            used = WeightProfile::ThroughputFirst;
            std::snprintf(buf, sizeof buf,
                          "the cluster is homogeneous or weakly heterogeneous (compute CV %.2f <= %.2f) with "
                          "%.1f%% headroom",
                          cv, req_.objective.weakHeterogeneityThreshold, 100 * margin);
        } else {
            used = WeightProfile::Default;
            std::snprintf(buf, sizeof buf, "heterogeneous cluster (compute CV %.2f) with %.1f%% headroom", cv,
                          100 * margin);
        }
        weights = weightsOf(used);
        result_.profileReason = buf;
    } else {
        result_.profileReason = "requested";
    }
    result_.profileUsed = used;
    result_.weights = weights;

    // The requested profile first, then each profile to compare (top 1 each).
    rank_.ref = ref;
    // Constraints first, Phi second: a pick must meet them under every profile.
    const double fastestMs = fastestPlans_.front().rankMs();
    if (req_.objective.maxSlowdown >= 0)
        rank_.timeLimitMs = fastestMs * (1 + req_.objective.maxSlowdown) * (1 + 1e-12);
    rank_.minHeadroom = req_.objective.minHeadroom;
    rank_.headroomAtUpper = req_.objective.headroomAtUpper;
    result_.constraints.minHeadroom = req_.objective.minHeadroom;
    result_.constraints.headroomAtUpper = req_.objective.headroomAtUpper;
    result_.constraints.maxSlowdown = req_.objective.maxSlowdown;
    result_.constraints.timeLimitMs = req_.objective.maxSlowdown >= 0 ? rank_.timeLimitMs : 0;
    rank_.weights = {weights};
    rankedKinds_ = {used};
    for (WeightProfile k : req_.compareProfiles) {
        if (k == WeightProfile::Auto || std::find(rankedKinds_.begin(), rankedKinds_.end(), k) != rankedKinds_.end())
            continue;
        if (k == WeightProfile::Custom && req_.objective.profile != WeightProfile::Custom)
            continue;  // no custom weights to compare with
        rank_.weights.push_back(k == WeightProfile::Custom ? Objective::normalised(req_.objective.custom)
                                                           : weightsOf(k));
        rankedKinds_.push_back(k);
    }
    rank_.threshold = std::make_unique<std::atomic<double>[]>(rank_.weights.size());
    for (std::size_t k = 0; k < rank_.weights.size(); ++k)
        rank_.threshold[k] = std::numeric_limits<double>::infinity();
    for (auto& w : workers_) {
        w->best.clear();
        for (std::size_t k = 0; k < rank_.weights.size(); ++k)
            w->best.emplace_back(k == 0 ? req_.options.topK : std::max<std::size_t>(1, req_.options.compareTopK));
    }
}

void SearchRun::rank()
{
    std::vector<std::size_t> order;
    std::vector<double> rootPhi(summary_.size(), 0);
    for (std::size_t i = 0; i < summary_.size(); ++i) {
        if (summary_[i].feasible == 0)
            continue;
        rootPhi[i]
            = summary_[i].root.empty() ? std::numeric_limits<double>::max() : std::numeric_limits<double>::infinity();
        for (const LeafBound& b : summary_[i].root)
            rootPhi[i]
                = std::min(rootPhi[i], Objective::phi(b.timeMs, b.maxMemMiB, b.variance, rank_.ref, rank_.weights[0]));
        order.push_back(i);
    }
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rootPhi[a] < rootPhi[b]; });
    const bool enumerateLevels = req_.problem.setup.recompute == RecomputeMode::Enumerate;
    const ProgressEstimate::Pass pass{.shareOfPrevious = kRankShareOfExplore};
    passItems_ = order.size();
    pool_->run(
        2, order, items_, pass,
        [&](int id, std::size_t idx) {
            Worker& w = *workers_[static_cast<std::size_t>(id)];
            if (req_.options.prune && !summary_[idx].root.empty()
                && std::all_of(summary_[idx].root.begin(), summary_[idx].root.end(),
                               [&](const LeafBound& b) { return RankSink::hopelessFor(b, w, rank_); })) {
                ++w.skeletonsCut;
                w.prunedRank += summary_[idx].feasible;
                return;
            }
            if (!prepare(w, idx, false))
                return;
            SplitSearch search(w.tables, list_.skeletons[idx], enumerateLevels, req_.objective.variance, idx);
            RankSink sink(w, req_, list_.skeletons[idx], rank_, pool_->stopFlag());
            search.run(sink, req_.options.prune);
            w.nodes += search.nodes();
            w.prunedRank += search.prunedBound();
        },
        [&](SearchProgress& p) { decorate(p, false); });
    CandidateCount pruned = 0;
    std::uint64_t cut = 0;
    for (auto& w : workers_) {
        result_.stats.phase2Evaluated += w->leaves2;
        pruned += w->prunedRank;
        cut += w->skeletonsCut;
    }
    result_.stats.phase2Pruned = saturate(pruned);
    result_.stats.prunedByRule["rule 3: Phi lower bound (rank)"] = saturate(pruned);
    result_.stats.prunedByRule["rule 3: skeletons cut whole by their Phi bound"] = cut;
    countConstraints();
}

void SearchRun::countConstraints()
{
    std::uint64_t slow = 0, little = 0;
    double bestRefused = -1e300;
    bool any = false;
    for (auto& w : workers_) {
        slow += w->tooSlow;
        little += w->tooLittleHeadroom;
        bestRefused = std::max(bestRefused, w->bestRefusedHeadroom);
        any = any || w->best[0].size() > 0;
    }
    const ObjectiveSpec& o = req_.objective;
    const std::string slowRule = "constraint: slower than --max-slowdown " + Text::fmt("%g", 100 * o.maxSlowdown)
        + "% (" + Text::fmt("%.1f", rank_.timeLimitMs) + " ms), rank pass";
    const std::string roomRule = "constraint: less than --min-headroom " + Text::fmt("%g", 100 * o.minHeadroom)
        + "% free" + (o.headroomAtUpper ? " at the prediction's upper bound" : "") + ", rank pass";
    if (o.maxSlowdown >= 0)
        result_.stats.prunedByRule[slowRule] = slow;
    if (o.minHeadroom > 0)
        result_.stats.prunedByRule[roomRule] = little;
    if (any || pool_->stopped())
        return;
    result_.fastest = fastestPlans_;  // still worth showing: what the constraints ruled out
    std::string why = "nothing meets the constraints:";
    if (o.minHeadroom > 0)
        why += "\n  every GPU keeps " + Text::fmt("%g", 100 * o.minHeadroom) + "% of its memory free"
            + (o.headroomAtUpper ? " at the prediction's upper bound" : "")
            + (little > 0 ? ": the most any plan set aside keeps is " + Text::fmt("%.1f", 100 * bestRefused) + "%"
                          : "");
    if (o.maxSlowdown >= 0)
        why += "\n  at most " + Text::fmt("%g", 100 * o.maxSlowdown) + "% slower than the fastest feasible plan ("
            + Text::fmt("%.1f", fastestPlans_.front().iterationMs) + " ms)";
    result_.error = why;
}

void SearchRun::collectCacheStats()
{
    for (auto& w : workers_) {
        result_.stats.cacheHits += w->cache.hits();
        result_.stats.cacheMisses += w->cache.misses();
        result_.stats.cacheResets += w->cache.resets();
        result_.stats.rowHits += w->rows.hits();
        result_.stats.rowMisses += w->rows.misses();
        result_.stats.rowResets += w->rows.resets();
        result_.stats.storeHits += w->cache.storeHits();
        result_.stats.searchNodes += w->nodes;
    }
    if (req_.store) {
        for (auto& w : workers_)
            w->cache.mergeInto(*req_.store);
        result_.stats.storeSize = req_.store->size();
    }
}

void SearchRun::pickTheKnee()
{
    KneeRanking knee = KneeRanking::of(result_, req_.options.topK);
    if (knee.plans.empty())
        return;  // keep the Phi ranking under the default weights
    result_.profileReason = std::move(knee.reason);
    result_.best = std::move(knee.plans);
    if (!result_.profilePicks.empty() && result_.profilePicks.front().kind == WeightProfile::Balanced)
        result_.profilePicks.front().plan = result_.best.front();
}

void SearchRun::collectProfilePicks()
{
    for (std::size_t k = 0; k < rank_.weights.size(); ++k) {
        TopPlans top(k == 0 ? 1 : std::max<std::size_t>(1, req_.options.compareTopK));
        for (auto& w : workers_)
            top.merge(w->best[k]);
        if (top.size() == 0)
            continue;
        SearchResult::ProfilePick pb;
        pb.kind = rankedKinds_[k];
        pb.weights = rank_.weights[k];
        pb.ranking = top.sorted();
        pb.plan = pb.ranking.front();
        if (k == 0)
            pb.ranking.clear();  // the requested profile's ranking is `best`
        result_.profilePicks.push_back(std::move(pb));
    }
}

void SearchRun::assignRanks()
{
    TopPlans best(req_.options.topK);
    for (auto& w : workers_)
        best.merge(w->best[0]);
    collectProfilePicks();
    const References ref = result_.references;
    const Weights weights = result_.weights;
    const bool approximate = result_.stats.sampleFraction < 1.0;
    const auto byTime = sample_.ranker([](const SearchSample::Entry& e) { return e.t; });
    const auto byPhi
        = sample_.ranker([&](const SearchSample::Entry& e) { return Objective::phi(e.t, e.m, e.v, ref, weights); });
    auto finish = [&](Plan& p) {
        p.phi = Objective::phi(p.rankMs(), p.maxMemMiB, p.varMem, ref, weights);
        p.rankTime = byTime.rankOf(p.rankMs());
        p.rankPhi = byPhi.rankOf(p.phi);
        p.ranksApproximate = approximate;
    };
    // The top lists are exact whatever the sample: their own rank is their
    // position. A best plan that is also among the fastest has its exact
    // time rank too (the sample's estimate once said 16 for a plan the
    // fastest list had second), so both its ranks are exact.
    std::map<std::uint64_t, std::size_t> fastestAt;
    for (std::size_t i = 0; i < fastestPlans_.size(); ++i)
        fastestAt.emplace(fastestPlans_[i].key, i + 1);
    // A plan outside a full, complete fastest list is slower than all of
    // it: its estimated time rank is at least K + 1 (the sample, thin
    // among the fastest plans, can estimate 1).
    const bool fastestKnown = result_.incomplete.empty() && fastestPlans_.size() >= req_.options.topK;
    auto exactTime = [&](Plan& p) {
        if (!result_.incomplete.empty())
            return;
        if (auto it = fastestAt.find(p.key); it != fastestAt.end()) {
            p.rankTime = it->second;
            p.ranksApproximate = false;
        } else if (fastestKnown) {
            p.rankTime = std::max<std::uint64_t>(p.rankTime, fastestPlans_.size() + 1);
        }
    };
    result_.best = best.sorted();
    for (std::size_t i = 0; i < result_.best.size(); ++i) {
        Plan& p = result_.best[i];
        finish(p);
        p.rankPhi = i + 1;
        exactTime(p);
    }
    for (auto& pb : result_.profilePicks) {
        pb.plan.rankTime = byTime.rankOf(pb.plan.rankMs());
        pb.plan.rankPhi = 1;  // under its own profile
        pb.plan.ranksApproximate = approximate;
        exactTime(pb.plan);
        for (std::size_t i = 0; i < pb.ranking.size(); ++i) {
            pb.ranking[i].rankTime = byTime.rankOf(pb.ranking[i].rankMs());
            pb.ranking[i].rankPhi = i + 1;  // position under its own profile
            pb.ranking[i].ranksApproximate = approximate;
            exactTime(pb.ranking[i]);
        }
    }
    result_.fastest = fastestPlans_;
    for (std::size_t i = 0; i < result_.fastest.size(); ++i) {
        finish(result_.fastest[i]);
        result_.fastest[i].rankTime = i + 1;
    }
    auto finishAll = [&](Plan& p) {
        finish(p);
        if (fastestKnown && !fastestAt.count(p.key))
            p.rankTime = std::max<std::uint64_t>(p.rankTime, fastestPlans_.size() + 1);
    };
    keepFrontsAndPlot(finishAll);
}

void SearchRun::keepFrontsAndPlot(const std::function<void(Plan&)>& finish)
{
    tv_.forEachPlan(finish);
    tm_.forEachPlan(finish);
    result_.paretoTimeVariance = tv_;
    result_.paretoTimeMemory = tm_;
    std::set<std::uint64_t> shapes;
    const auto kept = keptPlot();
    result_.plotSample.reserve(result_.plotSample.size() + kept.size());
    for (auto* e : kept) {
        finish(e->second);
        shapes.insert(shapeHash(e->second));
        result_.plotSample.push_back(std::move(e->second));
    }
    result_.stats.plotShapes = shapes.size();
    result_.plotSampleComplete = static_cast<CandidateCount>(result_.plotSample.size()) == feasible_;
}

void SearchRun::reportBaselines()
{
    if (!req_.options.baselines || result_.best.empty())
        return;
    const References ref = result_.references;
    const Weights weights = result_.weights;
    const auto byTime = sample_.ranker([](const SearchSample::Entry& e) { return e.t; });
    const auto byPhi
        = sample_.ranker([&](const SearchSample::Entry& e) { return Objective::phi(e.t, e.m, e.v, ref, weights); });
    const Plan& memx = result_.best.front();
    for (std::size_t k = 0; k + 1 < kAllBaselines.size(); ++k) {
        const Worker::BaselineBest* best = nullptr;
        for (auto& w : workers_) {
            const Worker::BaselineBest& b = w->baselines[k];
            if (b.have && (!best || BaselinePartitioner::prefers(kAllBaselines[k], b.candidate, best->candidate)))
                best = &b;
        }
        if (!best)
            continue;
        SearchResult::BaselinePick pick;
        pick.kind = kAllBaselines[k];
        pick.plan = best->plan;
        pick.fits = best->candidate.fits;
        Plan& p = pick.plan;
        p.phi = Objective::phi(p.rankMs(), p.maxMemMiB, p.varMem, ref, weights);
        // A plan that does not fit has no place among the feasible ones (0: unranked).
        p.rankTime = pick.fits ? byTime.rankOf(p.rankMs()) : 0;
        p.rankPhi = pick.fits ? byPhi.rankOf(p.phi) : 0;
        p.ranksApproximate = result_.stats.sampleFraction < 1.0;
        pick.samePlanAsMemX = p.key == memx.key;
        result_.baselines.push_back(std::move(pick));
    }
    SearchResult::BaselinePick own;
    own.kind = BaselineKind::MemX;
    own.plan = memx;
    own.samePlanAsMemX = true;
    result_.baselines.push_back(std::move(own));
}

std::vector<std::pair<std::uint32_t, Plan>*> SearchRun::keptPlot()
{
    using Entry = std::pair<std::uint32_t, Plan>;
    auto less = [](const Entry* a, const Entry* b) { return plotLess(*a, *b); };
    const std::size_t cap = req_.options.plotPoints;
    std::map<std::uint64_t, Entry*> firsts;
    for (auto& w : workers_)
        for (auto& [shape, e] : w->shapeFirst) {
            Entry*& slot = firsts[shape];
            if (!slot || plotLess(e, *slot))
                slot = &e;
        }
    std::vector<Entry*> out;
    out.reserve(firsts.size());
    for (auto& [shape, e] : firsts)
        out.push_back(e);
    std::sort(out.begin(), out.end(), less);
    if (out.size() > cap / 2)
        out.resize(cap / 2);
    std::set<std::uint64_t> keys;
    for (const Entry* e : out)
        keys.insert(e->second.key);
    std::vector<Entry*> rest;
    for (auto& w : workers_)
        for (auto& e : w->plot)
            rest.push_back(&e);
    std::sort(rest.begin(), rest.end(), less);
    for (Entry* e : rest) {
        if (out.size() >= cap)
            break;
        if (keys.insert(e->second.key).second)
            out.push_back(e);
    }
    std::sort(out.begin(), out.end(), less);
    return out;
}

void SearchRun::rankKnownPlans(const std::vector<const Plan*>& extra)
{
    std::set<std::uint64_t> seen;
    std::vector<const Plan*> known;
    auto add = [&](const Plan& p) {
        if (seen.insert(p.key).second)
            known.push_back(&p);
    };
    for (const Plan* p : extra)
        add(*p);
    for (const Plan& p : fastestPlans_)
        add(p);
    for (const auto& pt : tv_.points())
        add(pt.plan);
    for (const auto& pt : tm_.points())
        add(pt.plan);
    for (const auto* e : keptPlot())
        add(e->second);
    knownPlans_ = known.size();
    Worker& w = *workers_.front();
    for (std::size_t k = 0; k < rank_.weights.size(); ++k) {
        std::set<std::uint64_t> ranked;  // by the cut rank pass
        for (const auto& other : workers_)
            for (const auto& e : other->best[k].entries())
                ranked.insert(e.second.key);
        for (const Plan* p : known) {
            if (ranked.count(p->key) || !result_.constraints.admits(*p))
                continue;
            const double phi = Objective::phi(p->rankMs(), p->maxMemMiB, p->varMem, rank_.ref, rank_.weights[k]);
            if (!w.best[k].accepts(phi, p->key))
                continue;
            Plan copy = *p;
            copy.phi = phi;
            w.best[k].insert(phi, std::move(copy));
        }
    }
}

}  // namespace memx::engine
