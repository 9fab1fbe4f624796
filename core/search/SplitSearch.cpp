#include "search/SplitSearch.h"
#include "io/Statistics.h"
#include "io/NumericConstants.h"

#include "predict/IterationComposer.h"
#include "search/BaselinePartitioner.h"
#include "search/Skeleton.h"
#include "search/SplitBounds.h"
#include "search/SkeletonTables.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace memx {

namespace {
// Spacing of the V bound's grid of plan means (SplitBounds): 256 MiB, or
// 0.4% of capacity for utilisation variance.
constexpr double kMeanResolutionMiB = 256;
constexpr double kMeanResolutionUtil = 0.004;

std::uint64_t mix64(std::uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

}  // namespace

std::uint64_t SplitSearch::keyStart(std::uint64_t skeletonIndex)
{
    return mix64(skeletonIndex + 0x9e3779b97f4a7c15ULL);
}

std::uint64_t SplitSearch::keyStep(std::uint64_t h, int layers, int level)
{
    return mix64(
        h ^ (static_cast<std::uint64_t>(layers) * 4 + static_cast<std::uint64_t>(level) + 1) * 0x9e3779b97f4a7c15ULL);
}

SplitSearch::SplitSearch(const SkeletonTables& tables, const Skeleton& skeleton, bool enumerateLevels,
                         VarianceMode variance, std::uint64_t skeletonIndex)
    : t_(tables)
    , sk_(skeleton)
    , enumerateLevels_(enumerateLevels)
    , varianceMode_(variance)
    , skeletonIndex_(skeletonIndex)
{
    P_ = t_.stages;
    step_ = sk_.unitLayers();
    n_.assign(static_cast<std::size_t>(std::max(0, P_)), 0);
    lv_.assign(static_cast<std::size_t>(std::max(0, P_)), 0);
    if (P_ < 1 || t_.layers % step_ != 0)
        return;
    units_ = t_.layers / step_;
    opts_.assign(static_cast<std::size_t>(P_ + 1) * static_cast<std::size_t>(units_ + 1), {});
    double lo = kInf, hi = -kInf;
    for (int i = 0; i < P_; ++i) {
        const auto si = static_cast<std::size_t>(i);
        for (int u = 1; u <= units_; ++u) {
            const int n = u * step_;
            if (n > t_.maxLayers)
                break;
            const auto sn = static_cast<std::size_t>(n);
            auto& list = opts_[at(i, u)];
            auto add = [&](int lv) {
                const auto& p = t_.row(si).pred[sn][static_cast<std::size_t>(lv)];
                const double m = p.memoryMiB();
                const double x = varianceMode_ == VarianceMode::Utilisation ? m / t_.capacityMiB[si] : m;
                lo = std::min(lo, x);
                hi = std::max(hi, x);
                list.push_back({lv, p.timeMs, m, x, t_.row(si).postMs[sn]});
            };
            if (!enumerateLevels_) {
                const int lv = t_.row(si).policyLevel[sn];
                if (lv >= 0)
                    add(lv);
            } else {
                for (int lv = 0; lv < kRecomputeLevels; ++lv)
                    if (t_.feasible(i, n, lv))
                        add(lv);
            }
        }
    }
    // Centre the variance values: sums of squares stay small, so the bound's
    // arithmetic loses nothing to cancellation.
    const double center = lo <= hi ? 0.5 * (lo + hi) : 0;
    for (auto& list : opts_)
        for (auto& o : list)
            o.x -= center;
    buildCounts();
}

void SplitSearch::buildCounts()
{
    // count(i, r) = sum over u of options(i, u) x count(i+1, r-u). A stage's
    // option count changes only where a recomputation level stops fitting,
    // so it is constant over a few runs of u, and each run's sum is a
    // difference of prefix sums of the next stage's counts: O(P U) instead
    // of O(P U^2). Unsigned arithmetic is modular, so the difference is
    // exact whenever the direct sum would be.
    count_.assign(static_cast<std::size_t>(P_ + 1) * static_cast<std::size_t>(units_ + 1), 0);
    count_[at(P_, 0)] = 1;
    struct Run {
        int from, to;
        CandidateCount n;
    };
    std::vector<Run> runs;
    std::vector<CandidateCount> prefix(static_cast<std::size_t>(units_) + 2, 0);  // prefix[k] = sum_{j<k} count(i+1, j)
    for (int i = P_ - 1; i >= 0; --i) {
        const int later = P_ - 1 - i;  // stages after i, one unit each at least
        runs.clear();
        for (int u = 1; u <= units_; ++u) {
            const auto n = static_cast<CandidateCount>(options(i, u).size());
            if (n == 0)
                continue;
            if (!runs.empty() && runs.back().to == u - 1 && runs.back().n == n)
                runs.back().to = u;
            else
                runs.push_back({u, u, n});
        }
        for (int j = 0; j <= units_; ++j)
            prefix[static_cast<std::size_t>(j) + 1] = prefix[static_cast<std::size_t>(j)] + countAt(i + 1, j);
        for (int r = 1; r <= units_; ++r) {
            CandidateCount c = 0;
            for (const Run& run : runs) {
                const int hi = std::min(run.to, r - later);
                if (hi < run.from)
                    break;
                // sum over u in [from, hi] of count(i+1, r-u) = prefix[r-from+1] - prefix[r-hi]
                c += run.n
                    * (prefix[static_cast<std::size_t>(r - run.from) + 1] - prefix[static_cast<std::size_t>(r - hi)]);
            }
            count_[at(i, r)] = c;
        }
    }
}

CandidateCount SplitSearch::spaceSize() const
{
    if (units_ < P_ || P_ < 1)
        return 0;
    // C(U-1, P-1) splits, times 3^P level choices when levels are enumerated.
    CandidateCount c = 1;
    for (int k = 1; k <= P_ - 1; ++k)
        c = c * static_cast<CandidateCount>(units_ - P_ + k) / static_cast<CandidateCount>(k);
    if (enumerateLevels_)
        for (int i = 0; i < P_; ++i)
            c *= kRecomputeLevels;
    return c;
}

SplitSearch::~SplitSearch() = default;

const SplitBounds& SplitSearch::bounds() const
{
    if (!bounds_)
        bounds_ = std::make_unique<SplitBounds>(P_, units_, opts_, count_, t_.sumHopMs, sk_.microBatchCount, step_,
                                                t_.fixedMs,
                                                varianceMode_ == VarianceMode::Utilisation ? kMeanResolutionUtil
                                                                                           : kMeanResolutionMiB,
                                                t_.pipelineScale, sk_.timeScale);
    return *bounds_;
}

std::vector<LeafBound> SplitSearch::rootBounds() const
{
    if (feasibleCount() == 0)
        return {};
    return bounds().rootClasses();
}

LeafBound SplitSearch::quickRootBound() const
{
    LeafBound b;
    if (feasibleCount() == 0)
        return b;
    // The least cap under which the stages can hold every unit, each taking
    // at most the most units it has an option for under the cap (and one
    // at least): no split meets a lower cap, so none has a lower bottleneck.
    const auto leastCap = [&](auto value) {
        std::vector<double> caps;
        caps.reserve(static_cast<std::size_t>(P_) * static_cast<std::size_t>(units_));
        for (int i = 0; i < P_; ++i)
            for (int u = 1; u <= units_; ++u)
                for (const SplitBoundsOption& o : options(i, u))
                    caps.push_back(value(o));
        std::sort(caps.begin(), caps.end());
        caps.erase(std::unique(caps.begin(), caps.end()), caps.end());
        const auto holds = [&](double cap) {
            int total = 0;
            for (int i = 0; i < P_; ++i) {
                int most = 0;
                for (int u = units_; u >= 1 && most == 0; --u)
                    for (const SplitBoundsOption& o : options(i, u))
                        if (value(o) <= cap) {
                            most = u;
                            break;
                        }
                if (most == 0)
                    return false;
                total += most;
            }
            return total >= units_;
        };
        std::size_t lo = 0, hi = caps.size();  // the first cap that holds is in [lo, hi)
        while (lo < hi) {
            const std::size_t mid = (lo + hi) / 2;
            if (holds(caps[mid]))
                hi = mid;
            else
                lo = mid + 1;
        }
        return lo < caps.size() ? caps[lo] : kInf;
    };
    const double bottleneck = leastCap([](const SplitBoundsOption& o) { return o.timeMs; });
    const double peak = leastCap([](const SplitBoundsOption& o) { return o.memMiB; });
    double sumT = 0, post = 0;
    for (int i = 0; i < P_; ++i) {
        double leastT = kInf, leastPost = kInf;
        for (int u = 1; u <= units_; ++u)
            for (const SplitBoundsOption& o : options(i, u)) {
                leastT = std::min(leastT, o.timeMs);
                leastPost = std::min(leastPost, o.postMs);
            }
        sumT += leastT;
        post = std::max(post, leastPost);
    }
    sumT = std::max(sumT, bottleneck);
    b.timeMs = IterationComposer::iterationMs(bottleneck, sumT, t_.sumHopMs, sk_.microBatchCount, step_, t_.fixedMs,
                                              post, t_.pipelineScale)
        * sk_.timeScale * (1 - kBoundSlack);
    b.maxMemMiB = peak * (1 - kBoundSlack);
    return b;
}

void SplitSearch::run(LeafSink& sink, bool prune)
{
    sink_ = &sink;
    prune_ = prune;
    aborted_ = false;
    if (feasibleCount() == 0)
        return;
    const unsigned aims = prune_ ? bounds().rootAlive(sink) : sink.aims();
    if (aims == 0) {
        prunedBound_ += feasibleCount();  // no candidate of the skeleton can serve the sink
        return;
    }
    children_.assign(static_cast<std::size_t>(P_), {});
    descend(0, units_, 0, 0, 0, 0, 0, 0, keyStart(skeletonIndex_), aims);
}

void SplitSearch::descend(int stage, int unitsLeft, double maxT, double sumT, double maxPost, double maxMem, double s1,
                          double s2, std::uint64_t key, unsigned aims)
{
    if ((++nodes_ & 255) == 0 && sink_->stopRequested())
        aborted_ = true;
    if (aborted_)
        return;
    if (stage == P_) {
        emitLeaf(key);
        return;
    }
    const int later = P_ - 1 - stage;
    // One buffer per depth, reused across nodes (no allocation per node).
    std::vector<Child>& children = children_[static_cast<std::size_t>(stage)];
    children.clear();
    const int uMin = later == 0 ? unitsLeft : 1;
    const int uMax = unitsLeft - later;
    for (int u = uMin; u <= uMax; ++u) {
        const CandidateCount c = countAt(stage + 1, unitsLeft - u);
        if (c == 0)
            continue;
        const auto& list = options(stage, u);
        for (std::size_t o = 0; o < list.size(); ++o) {
            const SplitBoundsOption& op = list[o];
            double priority = 0;
            unsigned childAims = aims;
            if (prune_) {
                childAims = bounds_->alive(stage + 1, unitsLeft - u, std::max(maxT, op.timeMs), sumT + op.timeMs,
                                           std::max(maxPost, op.postMs), std::max(maxMem, op.memMiB), s1 + op.x,
                                           s2 + op.x * op.x, *sink_, priority, aims);
                if (childAims == 0) {
                    prunedBound_ += c;
                    continue;
                }
            }
            children.push_back({u, static_cast<int>(o), priority, childAims});
        }
    }
    if (prune_)
        std::stable_sort(children.begin(), children.end(),
                         [](const Child& a, const Child& b) { return a.priority < b.priority; });
    for (const Child& ch : children) {
        const SplitBoundsOption& op = options(stage, ch.u)[static_cast<std::size_t>(ch.opt)];
        n_[static_cast<std::size_t>(stage)] = ch.u * step_;
        lv_[static_cast<std::size_t>(stage)] = op.level;
        descend(stage + 1, unitsLeft - ch.u, std::max(maxT, op.timeMs), sumT + op.timeMs, std::max(maxPost, op.postMs),
                std::max(maxMem, op.memMiB), s1 + op.x, s2 + op.x * op.x, keyStep(key, ch.u * step_, op.level),
                ch.aims);
        if (aborted_)
            return;
    }
}

bool SplitSearch::greedy(LeafSink& sink, double memoryShare)
{
    if (feasibleCount() == 0)
        return false;
    // The option of each (stage, units) with the least time, infinite when none.
    auto fastest = [&](int i, int u) -> const SplitBoundsOption* {
        const SplitBoundsOption* best = nullptr;
        const double limit = memoryShare * t_.capacityMiB[static_cast<std::size_t>(i)];
        for (const SplitBoundsOption& o : options(i, u))
            if (o.memMiB <= limit && (!best || o.timeMs < best->timeMs))
                best = &o;
        return best;
    };
    const std::vector<int> split = BaselinePartitioner::minMaxSplit(P_, units_, [&](int i, int u) {
        const SplitBoundsOption* o = fastest(i, u);
        return o ? o->timeMs : kInf;
    });
    if (split.empty())
        return false;
    std::uint64_t key = keyStart(skeletonIndex_);
    for (int i = 0; i < P_; ++i) {
        const int u = split[static_cast<std::size_t>(i)];
        const SplitBoundsOption* o = fastest(i, u);
        n_[static_cast<std::size_t>(i)] = u * step_;
        lv_[static_cast<std::size_t>(i)] = o->level;
        key = keyStep(key, u * step_, o->level);
    }
    sink_ = &sink;
    emitLeaf(key);
    --leaves_;  // not a leaf of the search
    return true;
}

void SplitSearch::sample(LeafSink& sink, std::uint64_t samples)
{
    sink_ = &sink;
    aborted_ = false;
    const CandidateCount total = feasibleCount();
    if (total == 0 || samples == 0)
        return;
    if (static_cast<CandidateCount>(samples) >= total) {
        run(sink, false);
        return;
    }
    for (std::uint64_t j = 0; j < samples; ++j) {
        if ((j & 1023) == 1023 && sink.stopRequested()) {
            aborted_ = true;
            return;
        }
        // rank = floor((j + 0.5) * total / samples), in 128-bit arithmetic.
        CandidateCount rank
            = (static_cast<CandidateCount>(2 * j + 1) * total) / (2 * static_cast<CandidateCount>(samples));
        std::uint64_t key = keyStart(skeletonIndex_);
        int r = units_;
        for (int i = 0; i < P_; ++i) {
            const int later = P_ - 1 - i;
            bool chosen = false;
            for (int u = later == 0 ? r : 1; u <= r - later && !chosen; ++u) {
                const CandidateCount c = countAt(i + 1, r - u);
                if (c == 0)
                    continue;
                for (const SplitBoundsOption& o : options(i, u)) {
                    if (rank < c) {
                        n_[static_cast<std::size_t>(i)] = u * step_;
                        lv_[static_cast<std::size_t>(i)] = o.level;
                        key = keyStep(key, u * step_, o.level);
                        r -= u;
                        chosen = true;
                        break;
                    }
                    rank -= c;
                }
            }
        }
        emitLeaf(key);
    }
}

Leaf SplitSearch::compose(const SkeletonTables& t, const Skeleton& sk, const int* layers, const int* levels,
                          VarianceMode variance, std::vector<double>& scratch)
{
    const int P = t.stages;
    scratch.assign(static_cast<std::size_t>(P), 0);
    double maxT = 0, sumT = 0, maxPost = 0, maxMem = 0;
    int postStage = 0;
    for (int i = 0; i < P; ++i) {
        const auto& p = t.row(static_cast<std::size_t>(i))
                            .pred[static_cast<std::size_t>(layers[i])][static_cast<std::size_t>(levels[i])];
        maxT = std::max(maxT, p.timeMs);
        sumT += p.timeMs;
        double post = t.row(static_cast<std::size_t>(i)).postMs[static_cast<std::size_t>(layers[i])];
        if (post > maxPost) {
            maxPost = post;
            postStage = i;
        }
        double m = p.memoryMiB();
        maxMem = std::max(maxMem, m);
        scratch[static_cast<std::size_t>(i)]
            = variance == VarianceMode::Utilisation ? m / t.capacityMiB[static_cast<std::size_t>(i)] : m;
    }
    Leaf leaf;
    leaf.layers = layers;
    leaf.levels = levels;
    leaf.timeMs = IterationComposer::iterationMs(maxT, sumT, t.sumHopMs, sk.microBatchCount, sk.unitLayers(), t.fixedMs,
                                                 maxPost, t.pipelineScale)
        * sk.timeScale;
    leaf.maxMemMiB = maxMem;
    leaf.variance = Statistics::variance(scratch);
    leaf.postStage = postStage;
    return leaf;
}

void SplitSearch::emitLeaf(std::uint64_t key)
{
    ++leaves_;
    Leaf leaf = compose(t_, sk_, n_.data(), lv_.data(), varianceMode_, memScratch_);
    leaf.key = key;
    sink_->onLeaf(leaf);
}

}  // namespace memx
