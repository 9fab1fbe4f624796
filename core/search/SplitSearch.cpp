#include "search/SplitSearch.h"

#include "predict/IterationComposer.h"
#include "search/Skeleton.h"
#include "search/SkeletonTables.h"

#include <algorithm>
#include <cmath>

namespace memx {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
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
    step_ = sk_.schedule == Schedule::Interleaved ? sk_.virtualStages : 1;
    n_.assign(P_, 0);
    lv_.assign(P_, 0);
    memScratch_.assign(P_, 0);
    int units = t_.layers / step_;
    binom_.assign(units + 1, std::vector<std::uint64_t>(P_ + 1, 0));
    for (int n = 0; n <= units; ++n) {
        binom_[n][0] = 1;
        for (int k = 1; k <= std::min(n, P_); ++k) {
            std::uint64_t a = binom_[n - 1][k - 1], b = k <= n - 1 ? binom_[n - 1][k] : 0;
            binom_[n][k] = a > UINT64_MAX - b ? UINT64_MAX : a + b;
        }
    }
    levelSpace_ = 1;
    if (enumerateLevels_)
        for (int i = 0; i < P_; ++i)
            levelSpace_ *= kRecomputeLevels;
    prepareBounds();
}

std::uint64_t SplitSearch::compositions(int units, int parts) const
{
    if (parts <= 0 || units < parts)
        return 0;
    return binom_[units - 1][parts - 1];
}

std::uint64_t SplitSearch::spaceSize() const
{
    if (t_.layers % step_ != 0)
        return 0;
    return compositions(t_.layers / step_, P_) * levelSpace_;
}

void SplitSearch::prepareBounds()
{
    // For each stage: tau(n) = fastest feasible time at n layers; the line
    // tau(nmin) + beta * (n - nmin) stays below tau(n) for every feasible n.
    const int nmin = step_;
    std::vector<double> tauMin(P_), beta(P_), postMin(P_), memMin(P_);
    std::vector<int> nMaxUnits(P_);
    for (int i = 0; i < P_; ++i) {
        tauMin[i] = nmin <= t_.maxLayers ? t_.minTimeMs[i][nmin] : kInf;
        postMin[i] = nmin <= t_.maxLayers ? t_.postMs[i][nmin] : kInf;
        memMin[i] = nmin <= t_.maxLayers ? t_.minMemMiB[i][nmin] : kInf;
        nMaxUnits[i] = t_.nMax[i] / step_;
        double b = kInf;
        for (int n = nmin + step_; n <= t_.maxLayers; n += step_)
            if (std::isfinite(t_.minTimeMs[i][n]))
                b = std::min(b, (t_.minTimeMs[i][n] - tauMin[i]) / (n - nmin));
        beta[i] = b;
    }
    sufMaxTauMin_.assign(P_ + 1, 0);
    sufSumTauMin_.assign(P_ + 1, 0);
    sufInvBeta_.assign(P_ + 1, 0);
    sufTauOverBeta_.assign(P_ + 1, 0);
    sufMinBeta_.assign(P_ + 1, kInf);
    sufMaxPostMin_.assign(P_ + 1, 0);
    sufMaxMemMin_.assign(P_ + 1, 0);
    sufNMaxUnits_.assign(P_ + 1, 0);
    sufCapacityValid_.assign(P_ + 1, 1);
    for (int i = P_ - 1; i >= 0; --i) {
        sufMaxTauMin_[i] = std::max(sufMaxTauMin_[i + 1], tauMin[i]);
        sufSumTauMin_[i] = sufSumTauMin_[i + 1] + tauMin[i];
        bool valid = beta[i] > 0;
        sufCapacityValid_[i] = sufCapacityValid_[i + 1] && valid;
        double inv = std::isinf(beta[i]) ? 0.0 : (valid ? 1.0 / beta[i] : 0.0);
        sufInvBeta_[i] = sufInvBeta_[i + 1] + inv;
        sufTauOverBeta_[i] = sufTauOverBeta_[i + 1] + tauMin[i] * inv;
        sufMinBeta_[i] = std::min(sufMinBeta_[i + 1], std::isinf(beta[i]) ? kInf : beta[i]);
        sufMaxPostMin_[i] = std::max(sufMaxPostMin_[i + 1], postMin[i]);
        sufMaxMemMin_[i] = std::max(sufMaxMemMin_[i + 1], memMin[i]);
        sufNMaxUnits_[i] = sufNMaxUnits_[i + 1] + nMaxUnits[i];
    }
}

double SplitSearch::timeLowerBound(int stage, int unitsLeft, double maxT, double sumT, double maxPost) const
{
    const int k = P_ - stage;
    const double extraLayers = static_cast<double>((unitsLeft - k) * step_);  // beyond nmin on each stage
    double maxLB = sufMaxTauMin_[stage];
    if (sufCapacityValid_[stage] && sufInvBeta_[stage] > 0) {
        double tauStar = (extraLayers + sufTauOverBeta_[stage]) / sufInvBeta_[stage];
        maxLB = std::max(maxLB, tauStar);
    }
    double minBeta = sufMinBeta_[stage];
    double sumLB = sufSumTauMin_[stage] + (std::isinf(minBeta) ? 0.0 : std::max(0.0, minBeta) * extraLayers);
    return IterationComposer::iterationMs(std::max(maxT, maxLB), sumT + sumLB, t_.sumHopMs, sk_.microBatches,
                                          sk_.schedule == Schedule::Interleaved ? sk_.virtualStages : 1, t_.fixedMs,
                                          std::max(maxPost, sufMaxPostMin_[stage]));
}

double SplitSearch::memLowerBound(int stage, double maxMem) const
{
    return std::max(maxMem, sufMaxMemMin_[stage]);
}

void SplitSearch::run(LeafSink& sink, const PhiBound& bound, bool pruneMemory)
{
    sink_ = &sink;
    bound_ = bound;
    pruneMemory_ = pruneMemory;
    if (t_.layers % step_ != 0 || P_ < 1)
        return;
    descend(0, t_.layers / step_, 0, 0, 0, 0, 0, 0, 0);
}

void SplitSearch::descend(int stage, int unitsLeft, double maxT, double sumT, double maxPost, int postStage,
                          double maxMem, std::uint64_t index, std::uint64_t levelDigits)
{
    if (aborted_)
        return;
    if ((++visits_ & 4095) == 0 && sink_->stopRequested()) {
        aborted_ = true;
        return;
    }
    const int k = P_ - stage;
    if (pruneMemory_ && sufNMaxUnits_[stage] < unitsLeft) {
        prunedMemory_ += compositions(unitsLeft, k) * (enumerateLevels_ ? levelSpace_ : 1);
        return;
    }
    if (bound_.enabled) {
        double tLB = timeLowerBound(stage, unitsLeft, maxT, sumT, maxPost);
        double mLB = memLowerBound(stage, maxMem);
        bool hopeless = !bound_.weights.empty();
        for (std::size_t k = 0; k < bound_.weights.size() && hopeless; ++k)
            hopeless = Objective::phi(tLB, mLB, 0.0, bound_.ref, bound_.weights[k]) > sink_->phiThreshold(k);
        if (hopeless) {
            prunedBound_ += compositions(unitsLeft, k);
            return;
        }
    }
    const int hi = (k == 1) ? unitsLeft : unitsLeft - (k - 1);
    const int startUnits = (k == 1) ? unitsLeft : 1;
    std::uint64_t offset = 0;
    for (int u = startUnits; u <= hi; ++u) {
        const int n = u * step_;
        const std::uint64_t below = k == 1 ? 1 : compositions(unitsLeft - u, k - 1);
        const std::uint64_t myIndex = index + offset;
        offset += below;
        n_[stage] = n;
        for (int lv = 0; lv < kRecomputeLevels; ++lv) {
            int level = lv;
            if (!enumerateLevels_) {
                if (lv > 0)
                    break;
                level = t_.policyLevel[stage][n];
                if (level < 0) {  // nothing fits: never a candidate, pruned or not
                    prunedMemory_ += below;
                    continue;
                }
            } else if (!t_.feasible(stage, n, lv)) {
                if (t_.allowed[stage][lv])
                    prunedMemory_ += below;
                continue;
            }
            lv_[stage] = level;
            const auto& p = t_.pred[stage][n][level];
            double post = t_.postMs[stage][n];
            double nMaxT = std::max(maxT, p.timeMs);
            double nSumT = sumT + p.timeMs;
            double nMaxPost = maxPost;
            int nPostStage = postStage;
            if (post > maxPost) {
                nMaxPost = post;
                nPostStage = stage;
            }
            double nMaxMem = std::max(maxMem, p.memoryMiB());
            std::uint64_t digits = enumerateLevels_ ? levelDigits * kRecomputeLevels + level : 0;
            if (k == 1) {
                std::uint64_t local = myIndex * levelSpace_ + digits;
                finishLeaf((skeletonIndex_ << 44) | (local & ((1ULL << 44) - 1)));
            } else {
                descend(stage + 1, unitsLeft - u, nMaxT, nSumT, nMaxPost, nPostStage, nMaxMem, myIndex, digits);
            }
        }
    }
}

Leaf SplitSearch::compose(const SkeletonTables& t, const Skeleton& sk, const int* layers, const int* levels,
                         VarianceMode variance, std::vector<double>& scratch)
{
    const int P = t.stages;
    scratch.assign(P, 0);
    double maxT = 0, sumT = 0, maxPost = 0, maxMem = 0;
    int postStage = 0;
    for (int i = 0; i < P; ++i) {
        const auto& p = t.pred[i][layers[i]][levels[i]];
        maxT = std::max(maxT, p.timeMs);
        sumT += p.timeMs;
        double post = t.postMs[i][layers[i]];
        if (post > maxPost) {
            maxPost = post;
            postStage = i;
        }
        double m = p.memoryMiB();
        maxMem = std::max(maxMem, m);
        scratch[i] = variance == VarianceMode::Utilisation ? m / t.capacityMiB[i] : m;
    }
    Leaf leaf;
    leaf.layers = layers;
    leaf.levels = levels;
    leaf.timeMs = IterationComposer::iterationMs(maxT, sumT, t.sumHopMs, sk.microBatches,
                                                 sk.schedule == Schedule::Interleaved ? sk.virtualStages : 1,
                                                 t.fixedMs, maxPost);
    leaf.maxMemMiB = maxMem;
    leaf.variance = Objective::variance(scratch);
    leaf.postStage = postStage;
    return leaf;
}

void SplitSearch::finishLeaf(std::uint64_t key)
{
    ++leaves_;
    Leaf leaf = compose(t_, sk_, n_.data(), lv_.data(), varianceMode_, memScratch_);
    leaf.key = key;
    sink_->onLeaf(leaf);
}

}  // namespace memx
