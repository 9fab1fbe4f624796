// Over 600 lines: SearchRun, the passes of one search (count, explore, rank, sample, baselines) over one shared state;
// splitting it per pass is issue #34 item 4.
#include "search/SearchEngine.h"
#include "io/Statistics.h"

#include "space/JobPrecision.h"

#include "hardware/Topology.h"
#include "io/HostCores.h"
#include "io/Text.h"
#include "predict/AnalyticPredictor.h"
#include "predict/PredictionCache.h"
#include "predict/PredictionStore.h"
#include "search/BaselinePartitioner.h"
#include "search/BothSinks.h"
#include "search/MemoryBudget.h"
#include "search/ExploreSink.h"
#include "search/GreedySink.h"
#include "search/NearMiss.h"
#include "search/KneeRanking.h"
#include "search/PlanBuilder.h"
#include "search/RankSink.h"
#include "search/RecomputePolicy.h"
#include "search/SampleSink.h"
#include "search/ScheduleRule.h"
#include "search/SearchSample.h"
#include "search/SearchWorker.h"
#include "search/Skeleton.h"
#include "search/SkeletonTables.h"
#include "search/SplitSearch.h"
#include "search/TaskSearch.h"
#include "search/TopPlans.h"
#include "search/WorkerPool.h"

#include <algorithm>
#include <new>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>
#include <mutex>
#include <numeric>
#include <set>
#include <thread>

namespace memx {

namespace {

using Clock = std::chrono::steady_clock;
using engine::BothSinks;
using engine::ExploreShared;
using engine::ExploreSink;
using engine::GreedySink;
using engine::plotLess;
using engine::RankShared;
using engine::RankSink;
using engine::SampleSink;
using engine::shapeHash;
using engine::SkeletonSummary;
using engine::Worker;

// Measured: 0.04-0.19 on searches of 32 and 128 GPUs (tests/data/progress/).
constexpr double kRankShareOfExplore = 0.1;

std::uint64_t saturate(CandidateCount c)
{
    return c > static_cast<CandidateCount>(UINT64_MAX) ? UINT64_MAX : static_cast<std::uint64_t>(c);
}

// One search: the phases of SearchEngine::run, in order.
class SearchRun {
public:
    SearchRun(SearchRequest req, const SearchEngine::ProgressFn& progress, const SearchEngine::CancelFn& cancelled)
        : req_(std::move(req))
        , progress_(progress)
        , cancelled_(cancelled)
        , topo_(req_.problem.cluster)
    {
    }

    SearchResult run()
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

private:
    bool validate()
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

    // TaskCompare::PerToken: every skeleton's time counts per token, scaled
    // to the largest task's tokens per iteration (the global batch is the
    // same for every task, so the tokens go with the sequence length).
    void scaleTimesPerToken()
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

    bool enumerate()
    {
        list_ = SkeletonEnumerator::enumerate(req_.problem);
        result_.stats.skeletons = list_.skeletons.size();
        for (const auto& [rule, n] : list_.excluded)
            result_.stats.prunedByRule["skeletons: " + rule] = n;
        result_.notes = list_.notes;
        result_.spaceCut = list_.spaceCut;
        scaleTimesPerToken();
        if (req_.problem.setup.maxPipelineStages > req_.problem.model.numLayers)
            result_.notes.push_back("--max-pp " + std::to_string(req_.problem.setup.maxPipelineStages)
                                    + " is above the " + std::to_string(req_.problem.model.numLayers) + " layers of "
                                    + req_.problem.model.name + ": a pipeline has at most one stage per layer");
        if (list_.skeletons.empty()) {
            std::string rules;
            for (const auto& [rule, n] : list_.excluded)
                rules += "\n  " + rule + ": " + std::to_string(n);
            std::set<int> types;
            for (const auto& g : req_.problem.cluster.groups())
                types.insert(g.type);
            if (static_cast<int>(types.size()) > req_.problem.setup.maxPipelineStages)
                rules += "\n  every pipeline stage holds one GPU type and the cluster has "
                    + std::to_string(types.size()) + " types, so --max-pp must be at least "
                    + std::to_string(types.size());
            result_.error = "no configuration passes the structural rules for this cluster and setup:" + rules;
            return false;
        }
        summary_.assign(list_.skeletons.size(), {});
        return true;
    }

    bool startWorkers()
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

    // Tables of skeleton `idx` into the worker; false when it cannot run.
    bool prepare(Worker& w, std::size_t idx, bool firstPass)
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

    void exchangeRateNotes(Worker& w, const Skeleton& sk)
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

    std::vector<std::size_t> indexOrder() const
    {
        std::vector<std::size_t> order(list_.skeletons.size());
        std::iota(order.begin(), order.end(), 0);
        // Largest first, so no thread is left with a big one at the end.
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return weight_[a] > weight_[b]; });
        return order;
    }

    void decorate(SearchProgress& p, bool front)
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

    // ---- Count: feasible candidates of every skeleton ----
    void count()
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

    // Each baseline's candidate on this skeleton, kept when the baseline prefers it.
    void offerToBaselines(Worker& w, const Skeleton& sk, std::size_t idx)
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

    // ---- Explore and sample: fastest plans, both fronts, the (T, M, V) sample ----
    // Up to sampleBudget feasible candidates every one is visited once and
    // feeds all of them; above it the fronts come from the branch and bound
    // and the sample is taken by rank.
    void exploreAndSample()
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

    bool anyFeasible()
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

    void mergeExplore()
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

    // eV (Objective::epsilon): the uncertainty rule reads u and the fullest
    // GPU's utilisation off the plans the explore pass kept (the fastest list
    // and both fronts), whose predictions are the search's own.
    void chooseEpsilon(References& ref)
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

    void chooseReferencesAndProfile()
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
            if (k == WeightProfile::Auto
                || std::find(rankedKinds_.begin(), rankedKinds_.end(), k) != rankedKinds_.end())
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

    // ---- Phase 3: rank by Phi, most promising skeletons first ----
    void rank()
    {
        std::vector<std::size_t> order;
        std::vector<double> rootPhi(summary_.size(), 0);
        for (std::size_t i = 0; i < summary_.size(); ++i) {
            if (summary_[i].feasible == 0)
                continue;
            rootPhi[i] = summary_[i].root.empty() ? std::numeric_limits<double>::max()
                                                  : std::numeric_limits<double>::infinity();
            for (const LeafBound& b : summary_[i].root)
                rootPhi[i] = std::min(rootPhi[i],
                                      Objective::phi(b.timeMs, b.maxMemMiB, b.variance, rank_.ref, rank_.weights[0]));
            order.push_back(i);
        }
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return rootPhi[a] < rootPhi[b]; });
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

    // What the constraints set aside, and the reason when they leave nothing.
    void countConstraints()
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

    void collectCacheStats()
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

    // ---- Balanced: the knee of the time-variance front ----
    // Among the front's plans that meet the constraints; the table lists them
    // by their distance from the line between the ends, knee first.
    void pickTheKnee()
    {
        KneeRanking knee = KneeRanking::of(result_, req_.options.topK);
        if (knee.plans.empty())
            return;  // keep the Phi ranking under the default weights
        result_.profileReason = std::move(knee.reason);
        result_.best = std::move(knee.plans);
        if (!result_.profilePicks.empty() && result_.profilePicks.front().kind == WeightProfile::Balanced)
            result_.profilePicks.front().plan = result_.best.front();
    }

    // ---- Ranks of the reported plans, from the sample ----
    void assignRanks()
    {
        TopPlans best(req_.options.topK);
        for (auto& w : workers_)
            best.merge(w->best[0]);
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
        tv_.forEachPlan(finishAll);
        tm_.forEachPlan(finishAll);
        result_.paretoTimeVariance = tv_;
        result_.paretoTimeMemory = tm_;
        std::set<std::uint64_t> shapes;
        for (auto* e : keptPlot()) {
            finishAll(e->second);
            shapes.insert(shapeHash(e->second));
            result_.plotSample.push_back(std::move(e->second));
        }
        result_.stats.plotShapes = shapes.size();
        result_.plotSampleComplete = static_cast<CandidateCount>(result_.plotSample.size()) == feasible_;
    }

    // ---- The baselines' picks, ranked like the reported plans ----
    void reportBaselines()
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

    // ---- The time limit: what a search cut short can still say ----
    std::string limitText() const
    {
        return stoppedOnRequest_ ? "a request to stop early"
                                 : "the time limit (" + Text::fmt("%g", req_.options.timeLimitS) + " s)";
    }
    std::string cutText() const { return stoppedOnRequest_ ? " came" : " ran out"; }

    // Cut while counting: the greedy candidates of the skeletons counted
    // (one each, the split whose slowest stage is fastest) are the plans the
    // search has; they are ranked by Phi with medians of their own.
    SearchResult stoppedWhileCounting()
    {
        const std::size_t counted = pool_->lastPassCompleted();
        fastest_ = TopPlans(req_.options.topK);
        tv_ = ParetoFront(req_.options.frontCapacity);
        tm_ = ParetoFront(req_.options.frontCapacity);
        for (auto& w : workers_) {
            fastest_.merge(w->greedyFastest);
            tv_.merge(w->greedyTv);
            tm_.merge(w->greedyTm);
            sample_.append(w->greedySample);
        }
        if (fastest_.size() == 0)
            return stoppedBeforeAnyPlan("counting", counted);
        anyFeasible();  // the counted skeletons' feasible candidates (a lower bound)
        chooseReferencesAndProfile();
        std::vector<const Plan*> extra;
        TopPlans leanest(req_.options.topK);
        for (auto& w : workers_)
            leanest.merge(w->greedyLeanest);
        const std::vector<Plan> lean = leanest.sorted();
        for (const Plan& p : lean)
            extra.push_back(&p);
        rankKnownPlans(extra);
        collectCacheStats();
        result_.stats.sampleFraction = feasible_ > 0
            ? std::min(0.999999, static_cast<double>(static_cast<long double>(sample_.size()) / feasible_))
            : 0;
        result_.incomplete = limitText() + cutText() + " in the counting pass with " + std::to_string(counted) + " of "
            + std::to_string(passItems_)
            + " skeletons counted; each counted skeleton's greedy plan (the layer split "
              "whose slowest stage is fastest) was ranked by Phi ("
            + std::to_string(knownPlans_)
            + " kept), with medians from those plans: the best plans found so far, not the search's";
        result_.referencesOf = "the greedy plans of " + std::to_string(sample_.size()) + " counted skeletons";
        result_.notes.insert(result_.notes.begin(), "incomplete: " + result_.incomplete);
        if (std::none_of(workers_.begin(), workers_.end(), [](const auto& w) { return w->best[0].size() > 0; })) {
            result_.error = result_.incomplete + "; no plan found so far meets the constraints";
            return finish();
        }
        result_.error.clear();
        assignRanks();
        if (result_.profileUsed == WeightProfile::Balanced)
            pickTheKnee();
        return finish();
    }

    SearchResult stoppedBeforeAnyPlan(const std::string& pass, std::size_t done)
    {
        result_.incomplete = limitText() + cutText() + " in the " + pass + " pass with " + std::to_string(done) + " of "
            + std::to_string(passItems_) + " skeletons finished";
        result_.error = result_.incomplete + ", before any plan was evaluated; allow more time";
        return finish();
    }

    // The search was cut short: the plans explore found (the fastest, both
    // fronts and the plot's sample) join the ranking by Phi under every profile, with the
    // constraints applied as the rank pass applies them, so a cut rank pass
    // still offers them and a cut explore pass has a ranking at all.
    // The plot's sample, stratified: the first candidate (plotLess order) of
    // every (TP, PP, DP) shape with feasible plans, up to half the plot, then
    // every worker's candidates in plotLess order up to plotPoints. Without
    // the first part a shape with a small share of the space (PP = 1 beside
    // 10^8 pipelined plans) never reached the plot. A plan a worker kept but
    // the merge drops is not one the user is shown, so a cut search does not
    // rank it either.
    std::vector<std::pair<std::uint32_t, Plan>*> keptPlot()
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

    void rankKnownPlans(const std::vector<const Plan*>& extra = {})
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

    void describeIncomplete(bool exploreCut)
    {
        if (exploreCut) {
            result_.incomplete = limitText() + cutText() + " in the explore pass with " + std::to_string(exploreDone_)
                + " of " + std::to_string(exploreItems_) + " skeletons finished; the " + std::to_string(knownPlans_)
                + " plans found so far (the fastest, the Pareto fronts and the plot's sample) were ranked by Phi, and the medians come "
                  "from a partial sample";
            result_.stats.sampleFraction = feasible_ > 0
                ? std::min(0.999999, static_cast<double>(static_cast<long double>(sample_.size()) / feasible_))
                : 0;
        } else {
            result_.incomplete = limitText() + cutText() + " in the Phi ranking pass with "
                + std::to_string(pool_->lastPassCompleted()) + " of " + std::to_string(passItems_)
                + " skeletons finished (the most promising first), and the " + std::to_string(knownPlans_)
                + " plans explore found joined the ranking; the fastest plans, the fronts and the medians are complete";
        }
        result_.notes.insert(result_.notes.begin(), "incomplete: " + result_.incomplete);
        if (result_.error.empty()
            && std::none_of(workers_.begin(), workers_.end(), [](const auto& w) { return w->best[0].size() > 0; }))
            result_.error = result_.incomplete + "; no plan found so far meets the constraints";
    }

    SearchResult cancel()
    {
        result_.cancelled = true;
        return finish();
    }

    SearchResult finish()
    {
        result_.stats.wallS = pool_ ? pool_->elapsedS() : 0;
        result_.stats.candidatesPerS
            = result_.stats.wallS > 0 ? double(result_.stats.feasible) / result_.stats.wallS : 0;
        return std::move(result_);
    }

    SearchRequest req_;
    const SearchEngine::ProgressFn& progress_;
    const SearchEngine::CancelFn& cancelled_;
    const Topology topo_;
    std::shared_ptr<const Predictor> predictor_;
    SearchResult result_;
    SkeletonList list_;
    std::vector<SkeletonSummary> summary_;
    std::vector<double> weight_;
    std::vector<ProgressEstimate::Item> items_;
    std::vector<std::unique_ptr<Worker>> workers_;
    std::unique_ptr<WorkerPool> pool_;
    std::unique_ptr<ExploreShared> exploreShared_;
    std::atomic<std::uint64_t> feasibleSoFar_{0};
    std::atomic<bool> userCancelled_{false};
    std::atomic<bool> timedOut_{false};  // the time limit or stopEarly
    std::atomic<bool> stoppedOnRequest_{false};  // stopEarly
    std::size_t passItems_ = 0;  // skeletons handed to the current pass
    std::size_t exploreItems_ = 0, exploreDone_ = 0;
    std::size_t knownPlans_ = 0;  // plans ranked after a cut explore pass
    CandidateCount feasible_ = 0;
    bool exact_ = true;  // every feasible candidate visited (medians and ranks exact)
    bool keepGreedy_ = false;  // the count pass keeps greedy candidates as plans (a time limit is set)
    TopPlans fastest_;
    std::vector<Plan> fastestPlans_;
    ParetoFront tv_, tm_;
    SearchSample sample_;
    RankShared rank_;
    std::vector<WeightProfile> rankedKinds_;
};

}  // namespace

SearchResult SearchEngine::run(SearchRequest request, const ProgressFn& progress, const CancelFn& cancelled)
{
    auto one = [](SearchRequest r, const ProgressFn& p, const CancelFn& c) {
        const std::string what = "model " + r.problem.model.name + " (" + std::to_string(r.problem.model.numLayers)
            + " layers) on " + std::to_string(r.problem.cluster.deviceCount()) + " GPUs";
        try {
            return SearchRun(std::move(r), p, c).run();
        } catch (const std::bad_alloc&) {
            // On any thread of the search (WorkerPool passes it on): said, not an abort.
            SearchResult out;
            out.error = "not enough memory for this search: " + what
                + "; a smaller model or cluster, a lower --max-pp, or a --max-memory budget may fit";
            out.invalidRequest = true;
            return out;
        }
    };
    if (request.objective.compareTasks == TaskCompare::PerTask && TaskSearch::tasks(request).size() > 1)
        return TaskSearch::run(request, one, progress, cancelled);
    const TaskCompare compare = request.objective.compareTasks;
    SearchResult r = one(std::move(request), progress, cancelled);
    r.compareTasks = compare;
    return r;
}

}  // namespace memx
