#include "search/SearchEngine.h"

#include "hardware/Topology.h"
#include "predict/AnalyticPredictor.h"
#include "predict/PredictionStore.h"
#include "predict/IterationComposer.h"
#include "predict/PredictionCache.h"
#include "search/NearMiss.h"
#include "search/PlanBuilder.h"
#include "search/RecomputePolicy.h"
#include "search/Skeleton.h"
#include "search/SkeletonTables.h"
#include "search/SplitSearch.h"
#include "search/TopPlans.h"
#include "space/Compositions.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cmath>
#include <mutex>
#include <numeric>
#include <optional>
#include <thread>

namespace memx {

namespace {

using Clock = std::chrono::steady_clock;

std::uint32_t hash32(std::uint64_t key)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    key *= 0xc4ceb9fe1a85ec53ULL;
    key ^= key >> 33;
    return static_cast<std::uint32_t>(key >> 32);
}

struct SampleEntry {
    double t, m, v;
    std::uint32_t h;
};

// Everything one worker accumulates; merged in a fixed order at the end.
struct Worker {
    explicit Worker(const Predictor& p, const SearchOptions& o, const PredictionStore* store)
        : cache(p, store)
        , fastest(o.topK)
        , tv(o.frontCapacity)
        , tm(o.frontCapacity)
    {
    }
    PredictionCache cache;
    TopPlans fastest;
    std::vector<TopPlans> best;  // per ranked profile; [0] is the requested one
    ParetoFront tv, tm;
    std::vector<SampleEntry> sample;
    std::uint64_t sampleThreshold = 1ULL << 32;  // keep entries whose hash is below
    std::vector<std::pair<std::uint32_t, Plan>> plot;  // max-heap on hash
    std::uint64_t explored = 0, feasible = 0, prunedMemory = 0, prunedBound = 0, phase2 = 0;
    std::uint64_t scheduleRule = 0, unconnected = 0;
    NearMiss nearMiss;
    std::vector<std::string> notes;
    // Snapshot of the (T, V) front for live progress, refreshed per skeleton.
    std::mutex publishedMutex;
    std::vector<std::pair<double, double>> published;
};

bool plotLess(const std::pair<std::uint32_t, Plan>& a, const std::pair<std::uint32_t, Plan>& b)
{
    return a.first != b.first ? a.first < b.first : a.second.key < b.second.key;
}

struct Shared {
    Shared(const SearchRequest& r, const SkeletonList& l)
        : req(r), list(l)
    {
    }
    const SearchRequest& req;
    const SkeletonList& list;
    std::atomic<std::size_t> next{0};
    std::atomic<bool> stop{false};
    std::atomic<std::uint64_t> workDone{0};
    std::atomic<std::uint64_t> explored{0}, pruned{0}, feasible{0};
    std::unique_ptr<std::atomic<double>[]> phiThreshold;  // per ranked profile
    std::vector<std::uint64_t> weight;  // work estimate per skeleton
};

class Phase1Sink final : public LeafSink {
public:
    Phase1Sink(Worker& w, Shared& s, const Skeleton& sk, const SkeletonTables& t)
        : w_(w), s_(s), sk_(sk), t_(t)
    {
    }
    void onLeaf(const Leaf& leaf) override
    {
        ++w_.feasible;
        const SearchOptions& o = s_.req.options;
        std::uint32_t h = hash32(leaf.key);
        if (h < w_.sampleThreshold) {
            w_.sample.push_back({leaf.timeMs, leaf.maxMemMiB, leaf.variance, h});
            if (w_.sample.size() > o.sampleBudget) {
                w_.sampleThreshold /= 2;
                std::erase_if(w_.sample, [&](const SampleEntry& e) { return e.h >= w_.sampleThreshold; });
            }
        }
        auto plan = [&] { return PlanBuilder::build(s_.req.cluster, sk_, t_, leaf, s_.req.setup.globalBatch); };
        if (w_.fastest.accepts(leaf.timeMs, leaf.key))
            w_.fastest.insert(leaf.timeMs, plan());
        if (w_.tv.accepts(leaf.timeMs, leaf.variance, leaf.key))
            w_.tv.insert(leaf.timeMs, leaf.variance, plan());
        if (w_.tm.accepts(leaf.timeMs, leaf.maxMemMiB, leaf.key))
            w_.tm.insert(leaf.timeMs, leaf.maxMemMiB, plan());
        if (o.plotPoints > 0) {
            bool take = w_.plot.size() < o.plotPoints || h < w_.plot.front().first
                || (h == w_.plot.front().first && leaf.key < w_.plot.front().second.key);
            if (take) {
                w_.plot.emplace_back(h, plan());
                std::push_heap(w_.plot.begin(), w_.plot.end(), plotLess);
                if (w_.plot.size() > o.plotPoints) {
                    std::pop_heap(w_.plot.begin(), w_.plot.end(), plotLess);
                    w_.plot.pop_back();
                }
            }
        }
    }
    bool stopRequested() const override { return s_.stop.load(std::memory_order_relaxed); }

private:
    Worker& w_;
    Shared& s_;
    const Skeleton& sk_;
    const SkeletonTables& t_;
};

class Phase2Sink final : public LeafSink {
public:
    Phase2Sink(Worker& w, Shared& s, const Skeleton& sk, const SkeletonTables& t, const References& ref,
               const std::vector<Weights>& wts)
        : w_(w), s_(s), sk_(sk), t_(t), ref_(ref), weights_(wts)
    {
    }
    void onLeaf(const Leaf& leaf) override
    {
        ++w_.phase2;
        std::optional<Plan> plan;
        for (std::size_t k = 0; k < weights_.size(); ++k) {
            double phi = Objective::phi(leaf.timeMs, leaf.maxMemMiB, leaf.variance, ref_, weights_[k]);
            TopPlans& top = w_.best[k];
            if (!top.accepts(phi, leaf.key))
                continue;
            if (!plan)
                plan = PlanBuilder::build(s_.req.cluster, sk_, t_, leaf, s_.req.setup.globalBatch);
            Plan p = *plan;
            p.phi = phi;
            top.insert(phi, std::move(p));
            double th = top.threshold();
            double cur = s_.phiThreshold[k].load(std::memory_order_relaxed);
            while (th < cur && !s_.phiThreshold[k].compare_exchange_weak(cur, th, std::memory_order_relaxed)) {
            }
        }
    }
    double phiThreshold(std::size_t k) const override
    {
        return std::min(w_.best[k].threshold(), s_.phiThreshold[k].load(std::memory_order_relaxed));
    }
    bool stopRequested() const override { return s_.stop.load(std::memory_order_relaxed); }

private:
    Worker& w_;
    Shared& s_;
    const Skeleton& sk_;
    const SkeletonTables& t_;
    References ref_;
    std::vector<Weights> weights_;
};

// The paper's adaptive schedule rule, evaluated on the skeleton's even split
// without recomputation: interleave only with memory headroom and
// sufficiently similar devices.
bool interleaveAllowed(const SearchRequest& req, const Skeleton& sk, const SkeletonTables& t)
{
    const int P = t.stages;
    int even = std::max(1, std::min(t.maxLayers, t.layers / P));
    double minCap = std::numeric_limits<double>::infinity(), maxDemand = 0;
    std::vector<double> compute;
    for (int i = 0; i < P; ++i) {
        const auto& p = t.pred[i][even][0];
        double act1f1b = p.memory.activationsMiB * IterationComposer::inflight1F1B(i, P, sk.microBatches)
            / std::max(1e-9, t.inflight[i]);
        double demand = p.memory.totalMiB() - p.memory.activationsMiB + act1f1b;
        minCap = std::min(minCap, t.capacityMiB[i]);
        maxDemand = std::max(maxDemand, demand);
        const GpuType& g = req.cluster.types()[req.cluster.groups()[sk.stageGroup[i]].type];
        compute.push_back(g.peakTflopsBf16 * g.defaultEfficiency * g.calibration.efficiencyMultiplier);
    }
    double mean = 0;
    for (double c : compute)
        mean += c;
    mean /= compute.size();
    double cv = mean > 0 ? std::sqrt(Objective::variance(compute)) / mean : 0;
    double pressure = maxDemand > 0 ? minCap / maxDemand : 0;
    return pressure >= req.setup.interleavePressureMin && cv <= req.setup.interleaveHeterogeneityMax;
}


}  // namespace

SearchResult SearchEngine::run(SearchRequest req, const ProgressFn& progress, const CancelFn& cancelled)
{
    const auto start = Clock::now();
    SearchResult result;
    std::shared_ptr<const Predictor> predictor = req.predictor;
    if (!predictor)
        predictor = std::make_shared<AnalyticPredictor>();
    result.predictorName = predictor->name();
    result.profileRequested = req.objective.profile;
    result.varianceMode = req.objective.variance;

    try {
        req.setup.validate();
        if (req.objective.profile == ProfileKind::Custom)
            Objective::normalised(req.objective.custom);
    } catch (const std::exception& e) {
        result.error = std::string("invalid request: ") + e.what();
        return result;
    }
    SkeletonList list = SkeletonEnumerator::enumerate(req);
    result.stats.skeletons = list.skeletons.size();
    for (const auto& [rule, n] : list.excluded)
        result.stats.prunedByRule["skeletons: " + rule] = n;
    result.notes = list.notes;

    int threads = req.options.threads > 0 ? req.options.threads
                                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    threads = std::max(1, std::min<int>(threads, static_cast<int>(std::max<std::size_t>(1, list.skeletons.size()))));
    result.stats.threads = threads;

    Shared shared(req, list);
    std::uint64_t totalWork = 0;
    for (const auto& sk : list.skeletons) {
        int units = sk.schedule == Schedule::Interleaved ? req.model.numLayers / sk.virtualStages : req.model.numLayers;
        std::uint64_t c = std::min<std::uint64_t>(1'000'000'000ULL, Compositions::count(units, sk.stages()));
        shared.weight.push_back(c + 64);
        totalWork += c + 64;
    }

    // Largest skeletons first, so no thread is left with a big one at the end
    // (results do not depend on the order: see docs/ARCHITECTURE.md).
    std::vector<std::size_t> order(list.skeletons.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return shared.weight[a] > shared.weight[b]; });

    if (req.store)
        result.stats.storeInvalidated =
            req.store->use(PredictionContext::of(req.cluster, req.model, req.setup.globalBatch, *predictor));
    std::vector<std::unique_ptr<Worker>> workers;
    for (int i = 0; i < threads; ++i)
        workers.push_back(std::make_unique<Worker>(*predictor, req.options, req.store.get()));
    const bool enumerateLevels = req.setup.recompute == RecomputeMode::Enumerate;
    const Topology topo(req.cluster);

    std::mutex doneMutex;
    std::condition_variable doneCv;
    // Monitor loop on the calling thread: progress and cancellation.
    auto monitor = [&](int phase, std::atomic<int>& running) {
        auto last = Clock::now() - std::chrono::seconds(1);
        while (running.load() > 0) {
            {
                std::unique_lock<std::mutex> lock(doneMutex);
                doneCv.wait_for(lock, std::chrono::milliseconds(20), [&] { return running.load() == 0; });
            }
            if (running.load() == 0)
                break;
            if (cancelled && cancelled())
                shared.stop = true;
            auto now = Clock::now();
            if (progress && now - last >= std::chrono::milliseconds(100)) {
                last = now;
                SearchProgress p;
                p.phase = phase;
                double frac = totalWork ? double(shared.workDone.load()) / double(totalWork) : 1.0;
                p.permille = static_cast<int>(phase == 1 ? 600 * frac : 600 + 400 * frac);
                p.explored = shared.explored.load();
                p.pruned = shared.pruned.load();
                p.feasible = shared.feasible.load();
                p.elapsedS = std::chrono::duration<double>(now - start).count();
                p.remainingS = p.permille > 20 ? p.elapsedS * (1000 - p.permille) / p.permille : -1;
                if (phase == 1) {
                    std::vector<std::pair<double, double>> all;
                    for (auto& w : workers) {
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
                progress(p);
            }
        }
    };

    auto phase = [&](int which, const References& ref, const std::vector<Weights>& w) {
        shared.next = 0;
        shared.workDone = 0;
        std::atomic<int> running{threads};
        auto body = [&](int id) {
            Worker& wk = *workers[id];
            SkeletonTables tables;
            for (;;) {
                std::size_t pos = shared.next.fetch_add(1);
                if (pos >= list.skeletons.size() || shared.stop.load())
                    break;
                const std::size_t idx = order[pos];
                const Skeleton& sk = list.skeletons[idx];
                std::string why;
                if (!SkeletonTables::build(req, sk, topo, wk.cache, tables, why)) {
                    if (which == 1) {
                        ++wk.unconnected;
                        wk.notes.push_back(why);
                    }
                    shared.workDone += shared.weight[idx];
                    continue;
                }
                if (sk.autoSchedule) {
                    bool inter = interleaveAllowed(req, sk, tables);
                    if (inter != (sk.schedule == Schedule::Interleaved)) {
                        wk.scheduleRule += which == 1;
                        shared.workDone += shared.weight[idx];
                        continue;
                    }
                }
                if (which == 1 && idx == 0) {
                    // Exchange rates of the first configuration, one line per GPU type.
                    std::vector<std::string> seen;
                    for (int i = 0; i < tables.stages; ++i) {
                        const auto& type = req.cluster.types()[req.cluster.groups()[sk.stageGroup[i]].type].name;
                        if (std::find(seen.begin(), seen.end(), type) != seen.end())
                            continue;
                        seen.push_back(type);
                        auto rates = RecomputePolicy::rates(tables.pred[i][1], req.setup.selectiveCollapseFraction);
                        wk.notes.push_back(RecomputePolicy::describe(type, rates) + " (1 layer, mbs "
                                           + std::to_string(sk.mbs) + ", seq " + std::to_string(sk.seq) + ")");
                    }
                }
                SplitSearch search(tables, sk, enumerateLevels, req.objective.variance, idx);
                if (which == 1) {
                    Phase1Sink sink(wk, shared, sk, tables);
                    search.run(sink, PhiBound{}, req.options.prune);
                    wk.explored += search.leaves();
                    wk.prunedMemory += search.prunedMemory();
                    if (search.leaves() == 0) {
                        NearMiss nm = NearMiss::of(req.cluster, sk, tables);
                        if (nm.ratio > 0 && (wk.nearMiss.ratio == 0 || nm.ratio < wk.nearMiss.ratio))
                            wk.nearMiss = nm;
                    }
                    if (progress) {
                        std::lock_guard<std::mutex> lock(wk.publishedMutex);
                        wk.published.clear();
                        for (const auto& pt : wk.tv.points())
                            wk.published.emplace_back(pt.x, pt.y);
                    }
                    shared.explored += search.leaves();
                    shared.feasible += search.leaves();
                    shared.pruned += search.prunedMemory();
                } else {
                    PhiBound bound{req.options.prune, ref, w};
                    Phase2Sink sink(wk, shared, sk, tables, ref, w);
                    search.run(sink, bound, req.options.prune);
                    wk.prunedBound += search.prunedBound();
                    shared.pruned += search.prunedBound();
                }
                shared.workDone += shared.weight[idx];
            }
            {
                std::lock_guard<std::mutex> lock(doneMutex);
                running.fetch_sub(1);
            }
            doneCv.notify_all();
        };
        std::vector<std::thread> pool;
        for (int i = 0; i < threads; ++i)
            pool.emplace_back(body, i);
        monitor(which, running);  // on the calling thread: progress callbacks never come from a worker
        for (auto& t : pool)
            t.join();
    };

    // ---- Phase 1: every feasible candidate once: fronts, fastest, sample ----
    phase(1, References{}, {});
    for (auto& w : workers) {
        result.stats.explored += w->explored;
        result.stats.feasible += w->feasible;
        result.stats.prunedByRule["rule 2: memory (layer splits cut)"] += w->prunedMemory;
        if (w->scheduleRule)
            result.stats.prunedByRule["skeletons: adaptive schedule rule"] += w->scheduleRule;
        if (w->unconnected)
            result.stats.prunedByRule["skeletons: no link between devices"] += w->unconnected;
        result.stats.cacheHits += w->cache.hits();
        result.stats.cacheMisses += w->cache.misses();
    }
    auto finishStats = [&] {
        result.stats.wallS = std::chrono::duration<double>(Clock::now() - start).count();
        std::uint64_t evaluated = result.stats.explored + result.stats.phase2Evaluated;
        result.stats.candidatesPerS = result.stats.wallS > 0 ? evaluated / result.stats.wallS : 0;
    };
    if (shared.stop) {
        result.cancelled = true;
        finishStats();
        return result;
    }
    if (result.stats.feasible == 0) {
        NearMiss best;
        for (auto& w : workers)
            if (w->nearMiss.ratio > 0 && (best.ratio == 0 || w->nearMiss.ratio < best.ratio))
                best = w->nearMiss;
        if (list.skeletons.empty()) {
            std::string rules;
            for (const auto& [rule, n] : list.excluded)
                rules += "\n  " + rule + ": " + std::to_string(n);
            result.error = "no configuration passes the structural rules for this cluster and setup:" + rules;
        } else if (best.ratio > 0) {
            result.error = "no plan fits in memory; " + best.message;
        } else {
            result.error = "no feasible plan";
        }
        finishStats();
        return result;
    }

    // Merge phase-1 results in worker order (each structure is order-independent).
    TopPlans fastest(req.options.topK);
    ParetoFront tv(req.options.frontCapacity), tm(req.options.frontCapacity);
    std::vector<std::pair<std::uint32_t, Plan>> plot;
    std::uint64_t tau = 1ULL << 32;
    for (auto& w : workers) {
        fastest.merge(w->fastest);
        tv.merge(w->tv);
        tm.merge(w->tm);
        tau = std::min(tau, w->sampleThreshold);
        for (auto& e : w->plot)
            plot.push_back(std::move(e));
        for (const auto& note : w->notes)
            if (std::find(result.notes.begin(), result.notes.end(), note) == result.notes.end())
                result.notes.push_back(note);
    }
    // Sample thinning to one deterministic threshold (see docs/ARCHITECTURE.md).
    std::vector<SampleEntry> sample;
    for (;;) {
        std::size_t count = 0;
        for (auto& w : workers)
            for (const auto& e : w->sample)
                count += e.h < tau;
        if (count <= req.options.sampleBudget || tau <= 1)
            break;
        tau /= 2;
    }
    for (auto& w : workers)
        for (const auto& e : w->sample)
            if (e.h < tau)
                sample.push_back(e);
    result.stats.sampleFraction = double(tau) / double(1ULL << 32);

    std::vector<double> ts, ms, vs;
    for (const auto& e : sample) {
        ts.push_back(e.t);
        ms.push_back(e.m);
        vs.push_back(e.v);
    }
    References ref;
    ref.time = Objective::median(ts);
    ref.memory = Objective::median(ms);
    ref.variance = Objective::median(vs);
    ref.epsilon = std::max(req.objective.epsilonFraction * ref.variance, 1e-12);
    result.references = ref;

    // ---- Weight profile ----
    std::vector<Plan> fastestPlans = fastest.sorted();
    ProfileKind used = req.objective.profile;
    Weights weights = weightsOf(used);
    if (used == ProfileKind::Custom) {
        weights = Objective::normalised(req.objective.custom);
        result.profileReason = "custom weights";
    } else if (used == ProfileKind::Auto) {
        double margin = fastestPlans.front().minHeadroom();
        double cv = req.cluster.heterogeneityIndex();
        char buf[200];
        if (margin < req.objective.safetyMarginThreshold) {
            used = ProfileKind::SafetyFirst;
            std::snprintf(buf, sizeof buf,
                          "the fastest plan leaves only %.1f%% memory headroom on its fullest GPU (< %.0f%%)",
                          100 * margin, 100 * req.objective.safetyMarginThreshold);
        } else if (cv <= req.objective.weakHeterogeneityThreshold) {
            used = ProfileKind::ThroughputFirst;
            std::snprintf(buf, sizeof buf,
                          "the cluster is homogeneous or weakly heterogeneous (compute CV %.2f <= %.2f) with %.1f%% "
                          "headroom",
                          cv, req.objective.weakHeterogeneityThreshold, 100 * margin);
        } else {
            used = ProfileKind::Default;
            std::snprintf(buf, sizeof buf, "heterogeneous cluster (compute CV %.2f) with %.1f%% headroom", cv,
                          100 * margin);
        }
        weights = weightsOf(used);
        result.profileReason = buf;
    } else {
        result.profileReason = "requested";
    }
    result.profileUsed = used;
    result.weights = weights;

    // ---- Phase 2: rank by Phi with the lower bound ----
    // The requested profile first, then each profile to compare (top 1 each).
    std::vector<Weights> ranked{weights};
    std::vector<ProfileKind> rankedKinds{used};
    for (ProfileKind k : req.compareProfiles) {
        if (k == ProfileKind::Auto || std::find(rankedKinds.begin(), rankedKinds.end(), k) != rankedKinds.end())
            continue;
        if (k == ProfileKind::Custom && req.objective.profile != ProfileKind::Custom)
            continue;  // no custom weights to compare with
        ranked.push_back(k == ProfileKind::Custom ? Objective::normalised(req.objective.custom) : weightsOf(k));
        rankedKinds.push_back(k);
    }
    shared.phiThreshold = std::make_unique<std::atomic<double>[]>(ranked.size());
    for (std::size_t k = 0; k < ranked.size(); ++k)
        shared.phiThreshold[k] = std::numeric_limits<double>::infinity();
    for (auto& w : workers) {
        w->best.clear();
        for (std::size_t k = 0; k < ranked.size(); ++k)
            w->best.emplace_back(k == 0 ? req.options.topK : 1);
    }
    phase(2, ref, ranked);
    for (auto& w : workers) {
        result.stats.phase2Evaluated += w->phase2;
        result.stats.phase2Pruned += w->prunedBound;
    }
    result.stats.prunedByRule["rule 3: Phi lower bound (phase 2)"] = result.stats.phase2Pruned;
    result.stats.cacheHits = result.stats.cacheMisses = result.stats.storeHits = 0;
    for (auto& w : workers) {
        result.stats.cacheHits += w->cache.hits();
        result.stats.cacheMisses += w->cache.misses();
        result.stats.storeHits += w->cache.storeHits();
    }
    if (req.store) {
        for (auto& w : workers) w->cache.mergeInto(*req.store);
        result.stats.storeSize = req.store->size();
    }
    if (shared.stop) {
        result.cancelled = true;
        finishStats();
        return result;
    }
    TopPlans best(req.options.topK);
    for (auto& w : workers)
        best.merge(w->best[0]);
    for (std::size_t k = 0; k < ranked.size(); ++k) {
        TopPlans top(1);
        for (auto& w : workers)
            top.merge(w->best[k]);
        if (top.size() == 0)
            continue;
        SearchResult::ProfileBest pb;
        pb.kind = rankedKinds[k];
        pb.weights = ranked[k];
        pb.best = top.sorted().front();
        result.profileBests.push_back(std::move(pb));
    }

    // ---- Ranks from the sample (exact when sampleFraction == 1) ----
    std::vector<double> phis;
    phis.reserve(sample.size());
    for (const auto& e : sample)
        phis.push_back(Objective::phi(e.t, e.m, e.v, ref, weights));
    std::sort(ts.begin(), ts.end());
    std::sort(phis.begin(), phis.end());
    const double scale = 1.0 / result.stats.sampleFraction;
    auto rankOf = [&](const std::vector<double>& sorted, double x) {
        auto below = std::lower_bound(sorted.begin(), sorted.end(), x) - sorted.begin();
        return static_cast<std::uint64_t>(std::llround(below * scale)) + 1;
    };
    auto finish = [&](Plan& p) {
        p.phi = Objective::phi(p.iterationMs, p.maxMemMiB, p.varMem, ref, weights);
        p.rankTime = rankOf(ts, p.iterationMs);
        p.rankPhi = rankOf(phis, p.phi);
        p.ranksApproximate = result.stats.sampleFraction < 1.0;
    };
    // The top lists are exact whatever the sample: their own rank is their position.
    result.best = best.sorted();
    for (std::size_t i = 0; i < result.best.size(); ++i) {
        finish(result.best[i]);
        result.best[i].rankPhi = i + 1;
    }
    for (auto& pb : result.profileBests) {
        pb.best.rankTime = rankOf(ts, pb.best.iterationMs);
        pb.best.rankPhi = 1;  // under its own profile
        pb.best.ranksApproximate = result.stats.sampleFraction < 1.0;
    }
    result.fastest = fastestPlans;
    for (std::size_t i = 0; i < result.fastest.size(); ++i) {
        finish(result.fastest[i]);
        result.fastest[i].rankTime = i + 1;
    }
    tv.forEachPlan(finish);
    tm.forEachPlan(finish);
    result.paretoTimeVariance = tv;
    result.paretoTimeMemory = tm;
    std::sort(plot.begin(), plot.end(), plotLess);
    if (plot.size() > req.options.plotPoints)
        plot.resize(req.options.plotPoints);
    for (auto& [h, p] : plot) {
        finish(p);
        result.plotSample.push_back(std::move(p));
    }
    result.plotSampleComplete = result.plotSample.size() == result.stats.feasible;
    finishStats();
    return result;
}

}  // namespace memx
