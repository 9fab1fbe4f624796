// SearchRun's first passes: the request checked, the skeletons enumerated, counted, explored and sampled.
#include "search/SearchRun.h"

#include "io/HostCores.h"
#include "io/Text.h"
#include "predict/AnalyticPredictor.h"
#include "predict/PredictionCache.h"
#include "predict/PredictionStore.h"
#include "space/JobPrecision.h"
#include "search/BaselinePartitioner.h"
#include "search/BothSinks.h"
#include "search/GreedySink.h"
#include "search/MemoryBudget.h"
#include "search/NearMiss.h"
#include "search/PlanBuilder.h"
#include "search/RecomputePolicy.h"
#include "search/SampleSink.h"
#include "search/ScheduleRule.h"
#include "search/SkeletonTables.h"
#include "search/SplitSearch.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <set>
#include <tuple>

namespace memx::engine {

namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

SearchResult SearchRun::run()
{
    predictor_ = req_.predictor ? req_.predictor : std::make_shared<AnalyticPredictor>();
    result_.predictorName = predictor_->name();
    result_.profileRequested = req_.objective.profile;
    result_.varianceMode = req_.objective.variance;
    if (!validate() || !enumerate())
        return finish();
    if (!startWorkers())
        return finish();
    count();
    if (userCancelled_)
        return cancel();
    if (timedOut_)
        return stoppedWhileCounting();  // with the greedy plans of the skeletons counted, if any
    if (!anyFeasible())
        return finish();
    exploreAndSample();
    if (userCancelled_)
        return cancel();
    const bool exploreCut = timedOut_;
    mergeExplore();
    if (exploreCut && fastest_.size() == 0)
        return stoppedBeforeAnyPlan("explore", pool_->lastPassCompleted());
    chooseReferencesAndProfile();
    if (!exploreCut)
        rank();
    if (timedOut_)
        rankKnownPlans();
    collectCacheStats();
    if (userCancelled_)
        return cancel();
    if (timedOut_)
        describeIncomplete(exploreCut);
    if (!result_.error.empty())
        return finish();  // the constraints left nothing to rank
    assignRanks();
    if (result_.profileUsed == WeightProfile::Balanced)
        pickTheKnee();
    reportBaselines();
    return finish();
}

bool SearchRun::validate()
{
    try {
        req_.problem.setup.validate();
        jobPrecision(req_.problem);  // every type trains in it, or the message names those that cannot
        if (req_.objective.profile == WeightProfile::Custom)
            Objective::normalised(req_.objective.custom);
        if (!(req_.objective.minHeadroom >= 0 && req_.objective.minHeadroom < 1))
            throw std::invalid_argument("the minimum headroom must be a fraction in [0, 1)");
        if (!(req_.objective.maxSlowdown >= 0 || req_.objective.maxSlowdown == -1))
            throw std::invalid_argument("the maximum slowdown must not be negative");
    } catch (const std::exception& e) {
        result_.error = std::string("invalid request: ") + e.what();
        result_.invalidRequest = true;
        return false;
    }
    return true;
}

void SearchRun::scaleTimesPerToken()
{
    if (req_.objective.compareTasks != TaskCompare::PerToken)
        return;
    int longest = 0;
    std::set<int> seqs;
    for (const auto& sk : list_.skeletons) {
        longest = std::max(longest, sk.seq);
        seqs.insert(sk.seq);
    }
    if (seqs.size() < 2 || longest <= 0)
        return;
    for (auto& sk : list_.skeletons)
        sk.timeScale = sk.seq > 0 ? static_cast<double>(longest) / sk.seq : 1.0;
    result_.perTokenSeqLen = longest;
    result_.notes.push_back("ranked per token (--compare-tasks per-token): a plan's time counts as T x "
                            + std::to_string(longest) + " / its sequence length, the time it takes for the "
                            + "tokens of one iteration at sequence length " + std::to_string(longest)
                            + "; iteration times shown are the plans' own");
}

bool SearchRun::enumerate()
{
    SkeletonEnumerator::Limits limits;
    if (req_.options.meshSkeletons > 0)
        limits.perTypeMeshes = req_.options.meshSkeletons;
    // Per-type mesh choices bounded before their skeletons exist, so that a
    // cap keeps the most promising (admissible with the analytic model only).
    std::unique_ptr<MeshTimeBound> bound;
    if (req_.problem.setup.meshes == MeshMode::PerType && dynamic_cast<const AnalyticPredictor*>(predictor_.get())) {
        bound = std::make_unique<MeshTimeBound>(req_.problem, *predictor_, topo_);
        limits.perTypeTimeBound = [&bound](const std::vector<MeshTimeBound::Mesh>& meshes, int G, int seq, int qg) {
            return bound->iterationMs(meshes, G, seq, qg);
        };
    }
    list_ = SkeletonEnumerator::enumerate(req_.problem, limits);
    result_.stats.skeletons = list_.skeletons.size();
    for (const auto& [rule, n] : list_.excluded)
        result_.stats.prunedByRule["skeletons: " + rule] = n;
    result_.notes = list_.notes;
    result_.spaceCut = list_.spaceCut;
    scaleTimesPerToken();
    if (req_.problem.setup.maxPipelineStages > req_.problem.model.numLayers)
        result_.notes.push_back("--max-pp " + std::to_string(req_.problem.setup.maxPipelineStages) + " is above the "
                                + std::to_string(req_.problem.model.numLayers) + " layers of " + req_.problem.model.name
                                + ": a pipeline has at most one stage per layer");
    if (list_.skeletons.empty()) {
        std::string rules;
        for (const auto& [rule, n] : list_.excluded)
            rules += "\n  " + rule + ": " + std::to_string(n);
        std::set<int> types;
        for (const auto& g : req_.problem.cluster.groups())
            types.insert(g.type);
        if (static_cast<int>(types.size()) > req_.problem.setup.maxPipelineStages)
            rules += "\n  every pipeline stage holds one GPU type and the cluster has " + std::to_string(types.size())
                + " types, so --max-pp must be at least " + std::to_string(types.size());
        result_.error = "no configuration passes the structural rules for this cluster and setup:" + rules;
        return false;
    }
    summary_.assign(list_.skeletons.size(), {});
    return true;
}

bool SearchRun::startWorkers()
{
    int threads = req_.options.threads > 0 ? req_.options.threads : usableCores();
    threads = std::max(1, std::min<int>(threads, static_cast<int>(list_.skeletons.size())));
    result_.stats.threads = threads;
    MemoryBudget::Sizes kept;
    try {
        kept = MemoryBudget::sizes(req_.options, req_.problem, threads, 1 + req_.compareProfiles.size());
    } catch (const std::invalid_argument& e) {
        result_.error = std::string("invalid request: ") + e.what();
        result_.invalidRequest = true;
        return false;
    }
    if (req_.options.maxMemoryMiB > 0) {
        result_.notes.push_back(MemoryBudget::describe(req_.options, kept));
        req_.options.sampleBudget = kept.sampleBudget;
        req_.options.estimateSamples = kept.estimateSamples;
        req_.options.frontCapacity = kept.frontCapacity;
        req_.options.plotPoints = kept.plotPoints;
    }
    if (req_.store)
        result_.stats.storeInvalidated
            = req_.store->use(PredictionContext::of(req_.problem.cluster, req_.problem.model,
                                                    req_.problem.setup.globalBatch, *predictor_));
    for (int i = 0; i < threads; ++i) {
        workers_.push_back(std::make_unique<Worker>(*predictor_, req_.options, req_.store.get()));
        workers_.back()->cache.setCapacity(kept.cacheEntries);
        workers_.back()->rows.setCapacity(kept.rowCacheBytes);
    }
    const auto deadline = Clock::now()
        + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(req_.options.timeLimitS));
    const bool limited = req_.options.timeLimitS > 0;
    keepGreedy_ = limited || static_cast<bool>(req_.options.stopEarly);
    // A cancel from the front end ends the search with nothing; the time
    // limit ends the pass it falls in and the search goes on with what it has.
    auto stop = [this, deadline, limited] {
        if (cancelled_ && cancelled_())
            userCancelled_ = true;
        else if (limited && Clock::now() >= deadline)
            timedOut_ = true;
        else if (req_.options.stopEarly && req_.options.stopEarly()) {
            stoppedOnRequest_ = true;
            timedOut_ = true;
        }
        return userCancelled_ || timedOut_;
    };
    pool_ = std::make_unique<WorkerPool>(threads, progress_, stop, req_.options.background);
    // Work per skeleton: building its tables and programmes. Skeletons of
    // one class (stages, layer units, micro-batch) cost alike in a pass.
    std::map<std::tuple<int, int, int>, int> classes;
    for (const auto& sk : list_.skeletons) {
        const int units = req_.problem.model.numLayers / std::max(1, sk.unitLayers());
        weight_.push_back(sk.stages() * double(units) * units + 64.0);
        const auto key = std::make_tuple(sk.stages(), units, sk.mbs);
        const int cls = classes.emplace(key, static_cast<int>(classes.size())).first->second;
        items_.push_back({weight_.back(), cls});
    }
    return true;
}

bool SearchRun::prepare(Worker& w, std::size_t idx, bool firstPass)
{
    const Skeleton& sk = list_.skeletons[idx];
    std::string why;
    if (!SkeletonTables::build(req_.problem, sk, topo_, w.cache, w.tables, why, nullptr, &w.rows)) {
        if (firstPass) {
            ++w.unconnected;
            w.unrunnable.insert(why);
        }
        return false;
    }
    if (sk.autoSchedule
        && ScheduleRule::interleaveAllowed(req_.problem, sk, w.tables) != (sk.schedule == Schedule::Interleaved)) {
        w.scheduleRule += firstPass;
        return false;
    }
    return true;
}

void SearchRun::exchangeRateNotes(Worker& w, const Skeleton& sk)
{
    std::vector<std::string> seen;
    for (int i = 0; i < w.tables.stages; ++i) {
        const auto& type = req_.problem.cluster.types()[static_cast<std::size_t>(sk.slot(i).type)].name;
        if (std::find(seen.begin(), seen.end(), type) != seen.end())
            continue;
        seen.push_back(type);
        auto rates = RecomputePolicy::rates(w.tables.row(static_cast<std::size_t>(i)).pred[1],
                                            req_.problem.setup.selectiveCollapseFraction);
        w.notes.push_back(RecomputePolicy::describe(type, rates) + " (1 layer, mbs "
                          + std::to_string(sk.shapeOf(i).microBatch) + ", seq " + std::to_string(sk.seq) + ")");
    }
}

std::vector<std::size_t> SearchRun::indexOrder() const
{
    std::vector<std::size_t> order(list_.skeletons.size());
    std::iota(order.begin(), order.end(), 0);
    // Largest first, so no thread is left with a big one at the end.
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return weight_[a] > weight_[b]; });
    return order;
}

void SearchRun::decorate(SearchProgress& p, bool front)
{
    std::uint64_t leaves = 0;
    CandidateCount pruned = 0;
    for (auto& w : workers_) {
        leaves += w->leaves1 + w->leaves2;
        pruned += w->prunedExplore + w->prunedRank;
    }
    p.explored = leaves;
    p.pruned = saturate(pruned);
    p.feasible = feasibleSoFar_.load();
    if (!front)
        return;
    std::vector<std::pair<double, double>> all;
    for (auto& w : workers_) {
        std::lock_guard<std::mutex> lock(w->publishedMutex);
        all.insert(all.end(), w->published.begin(), w->published.end());
    }
    std::sort(all.begin(), all.end());
    double bestY = std::numeric_limits<double>::infinity();
    for (const auto& pt : all)
        if (pt.second < bestY) {
            p.liveFront.push_back(pt);
            bestY = pt.second;
        }
}

void SearchRun::count()
{
    const bool enumerateLevels = req_.problem.setup.recompute == RecomputeMode::Enumerate;
    // The explore pass it precedes costs 4-8x as much, and nothing here says how much.
    const ProgressEstimate::Pass pass{.estimable = false, .toPermille = 100};
    passItems_ = list_.skeletons.size();
    pool_->run(
        1, indexOrder(), items_, pass,
        [&](int id, std::size_t idx) {
            Worker& w = *workers_[static_cast<std::size_t>(id)];
            const Skeleton& sk = list_.skeletons[idx];
            if (!prepare(w, idx, true))
                return;
            if (idx == 0)
                exchangeRateNotes(w, sk);
            if (req_.options.baselines)
                offerToBaselines(w, sk, idx);
            SplitSearch search(w.tables, sk, enumerateLevels, req_.objective.variance, idx);
            SkeletonSummary& s = summary_[idx];
            s.feasible = search.feasibleCount();
            s.space = search.spaceSize();
            feasibleSoFar_ += saturate(s.feasible);
            if (s.feasible > 0 && keepGreedy_) {
                // Within the headroom asked for, when the split allows it.
                GreedySink greedy(w, req_, sk);
                if (!search.greedy(greedy, 1.0 - req_.objective.minHeadroom))
                    search.greedy(greedy);
            }
            // The closest miss matters only when nothing fits: once any
            // skeleton has a feasible plan it is never read, so it is not
            // worked out (it took 7 % of a per-type search). Where nothing
            // fits, every skeleton computes it, as before.
            if (s.feasible == 0 && feasibleSoFar_.load(std::memory_order_relaxed) == 0) {
                NearMiss nm = NearMiss::of(req_.problem.cluster, sk, w.tables);
                if (nm.ratio > 0
                    && (w.nearMiss.ratio == 0 || nm.ratio < w.nearMiss.ratio
                        || (nm.ratio == w.nearMiss.ratio && idx < w.nearMissSkeleton))) {
                    w.nearMiss = nm;
                    w.nearMissSkeleton = idx;
                }
            }
        },
        [&](SearchProgress& p) { decorate(p, false); });
}

void SearchRun::offerToBaselines(Worker& w, const Skeleton& sk, std::size_t idx)
{
    for (std::size_t k = 0; k + 1 < kAllBaselines.size(); ++k) {
        const BaselineKind kind = kAllBaselines[k];
        BaselineCandidate c;
        if (!BaselinePartitioner::choose(kind, w.tables, sk, req_.objective.variance, idx, c))
            continue;
        Worker::BaselineBest& best = w.baselines[k];
        if (best.have && !BaselinePartitioner::prefers(kind, c, best.candidate))
            continue;
        Leaf leaf;
        leaf.layers = c.layers.data();
        leaf.levels = c.levels.data();
        leaf.timeMs = c.timeMs;
        leaf.maxMemMiB = c.maxMemMiB;
        leaf.variance = c.variance;
        leaf.postStage = c.postStage;
        leaf.key = c.key;
        best.plan = PlanBuilder::build(req_.problem.cluster, sk, w.tables, leaf, req_.problem.setup.globalBatch);
        best.candidate = std::move(c);
        best.have = true;
    }
}

void SearchRun::exploreAndSample()
{
    exact_ = feasible_ <= static_cast<CandidateCount>(req_.options.sampleBudget);
    // Largest first. (Most promising first, by the greedy candidate's
    // time, made the 128-GPU search 5x slower: the time-variance front
    // stays loose until the balanced plans come.)
    std::vector<std::size_t> order;
    for (std::size_t i : indexOrder()) {
        SkeletonSummary& s = summary_[i];
        if (s.feasible == 0)
            continue;
        if (exact_) {
            s.samples = saturate(s.feasible);
            s.sampleWeight = 1;
        } else {
            const long double share = static_cast<long double>(s.feasible) / static_cast<long double>(feasible_);
            s.samples = static_cast<std::uint64_t>(std::llround(share * req_.options.estimateSamples));
            s.samples = std::max<std::uint64_t>(s.samples, 1);
            s.sampleWeight = static_cast<double>(static_cast<long double>(s.feasible) / s.samples);
        }
        order.push_back(i);
    }
    const bool enumerateLevels = req_.problem.setup.recompute == RecomputeMode::Enumerate;
    exploreShared_ = std::make_unique<ExploreShared>();
    exploreShared_->k = req_.options.topK;
    // Ranking costs about a tenth of exploring (tests/data/progress/).
    const ProgressEstimate::Pass pass{.followingShare = kRankShareOfExplore};
    passItems_ = exploreItems_ = order.size();
    pool_->run(
        1, order, items_, pass,
        [&](int id, std::size_t idx) {
            Worker& w = *workers_[static_cast<std::size_t>(id)];
            const Skeleton& sk = list_.skeletons[idx];
            if (!prepare(w, idx, false))
                return;
            SplitSearch search(w.tables, sk, enumerateLevels, req_.objective.variance, idx);
            SkeletonSummary& s = summary_[idx];
            ExploreSink explore(w, *exploreShared_, req_, sk, pool_->stopFlag());
            SampleSink sample(w, req_, sk, s.sampleWeight, pool_->stopFlag());
            if (exact_) {
                BothSinks both(explore, sample);
                search.run(both, false);
            } else {
                // After the run: a skeleton whose every subtree died at the
                // unconstrained ideal point never builds its class bounds,
                // and that point is its root bound.
                // One aim at a time on the same bounds: together, a subtree
                // alive for one front keeps the depth-first search from the
                // plans that would close another aim (docs/SCALING.md, the
                // 64-GPU case); each plan found serves every list anyway.
                // The pruned count is the fastest list's search's.
                CandidateCount cut = 0;
                const LeafBound quick = search.quickRootBound();
                const unsigned live = req_.options.prune ? explore.alive(quick, 7) : 7u;
                for (unsigned aim : {1u, 4u, 2u}) {
                    if (!(live & aim)) {
                        if (aim == 1)
                            cut = search.feasibleCount();
                        continue;
                    }
                    explore.setAims(aim);
                    search.run(explore, req_.options.prune);
                    if (aim == 1)
                        cut = search.prunedBound();
                    if (search.aborted())
                        break;
                }
                s.root = live ? search.rootBounds() : std::vector<LeafBound>{quick};
                w.prunedExplore += cut;
                search.sample(sample, s.samples);
            }
            w.leaves1 += search.leaves();
            w.nodes += search.nodes();
            if (progress_) {
                std::lock_guard<std::mutex> lock(w.publishedMutex);
                w.published.clear();
                for (const auto& pt : w.tv.points())
                    w.published.emplace_back(pt.x, pt.y);
            }
        },
        [&](SearchProgress& p) { decorate(p, true); });
    exploreDone_ = pool_->lastPassCompleted();
    for (auto& w : workers_)
        sample_.append(w->sample);
    result_.stats.sampleFraction
        = exact_ ? 1.0 : static_cast<double>(static_cast<long double>(sample_.size()) / feasible_);
}

bool SearchRun::anyFeasible()
{
    CandidateCount feasible = 0, space = 0;
    for (const auto& s : summary_) {
        feasible += s.feasible;
        space += s.space;
    }
    feasible_ = feasible;
    result_.stats.feasible = saturate(feasible);
    std::set<std::uint64_t> shapes;
    for (std::size_t i = 0; i < summary_.size(); ++i)
        if (summary_[i].feasible > 0)
            shapes.insert(shapeHash(list_.skeletons[i]));
    result_.stats.feasibleShapes = shapes.size();
    result_.stats.prunedByRule["rule 2: memory (candidates that fit nowhere)"] = saturate(space - feasible);
    // Reasons in a fixed (sorted) order, whichever worker met them.
    std::set<std::string> unrunnable;
    for (auto& w : workers_) {
        if (w->scheduleRule)
            result_.stats.prunedByRule["skeletons: adaptive schedule rule"] += w->scheduleRule;
        if (w->unconnected)
            result_.stats.prunedByRule["skeletons: no link between devices"] += w->unconnected;
        unrunnable.insert(w->unrunnable.begin(), w->unrunnable.end());
        for (const auto& note : w->notes)
            if (std::find(result_.notes.begin(), result_.notes.end(), note) == result_.notes.end())
                result_.notes.push_back(note);
    }
    for (const auto& why : unrunnable)
        result_.notes.push_back(why);
    if (feasible > 0)
        return true;
    NearMiss best;
    std::size_t bestIdx = 0;
    for (auto& w : workers_)
        if (w->nearMiss.ratio > 0
            && (best.ratio == 0 || w->nearMiss.ratio < best.ratio
                || (w->nearMiss.ratio == best.ratio && w->nearMissSkeleton < bestIdx))) {
            best = w->nearMiss;
            bestIdx = w->nearMissSkeleton;
        }
    if (best.ratio > 0) {
        result_.error = "no plan fits in memory; " + best.message;
    } else if (!unrunnable.empty()) {
        // Every reason up to three, then how many more: a cluster without
        // links inside its nodes fails the same way on every node.
        std::string why;
        std::size_t shown = 0;
        for (const auto& u : unrunnable) {
            if (shown++ == 3)
                break;
            why += (why.empty() ? "" : "; ") + u;
        }
        if (unrunnable.size() > 3)
            why += "; and " + std::to_string(unrunnable.size() - 3) + " more like these";
        result_.error = "no plan can run: " + why;
    } else {
        result_.error = "no skeleton passes the adaptive schedule rule";
    }
    return false;
}

void SearchRun::mergeExplore()
{
    fastest_ = TopPlans(req_.options.topK);
    tv_ = ParetoFront(req_.options.frontCapacity);
    tm_ = ParetoFront(req_.options.frontCapacity);
    for (auto& w : workers_) {
        fastest_.merge(w->fastest);
        tv_.merge(w->tv);
        tm_.merge(w->tm);
        result_.stats.explored += w->leaves1;
    }
    CandidateCount pruned = 0;
    for (auto& w : workers_)
        pruned += w->prunedExplore;
    result_.stats.prunedByRule["rule 3: time/memory/variance bounds (explore, fastest plans)"] = saturate(pruned);
}

}  // namespace memx::engine
