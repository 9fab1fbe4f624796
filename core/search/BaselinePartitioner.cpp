#include "search/BaselinePartitioner.h"
#include "io/NumericConstants.h"

#include "model/Recompute.h"
#include "search/Skeleton.h"
#include "search/SkeletonTables.h"
#include "search/SplitSearch.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace memx {

namespace {

constexpr int kNone = static_cast<int>(Recompute::None);

// What one more layer costs a stage at level None (the first stage carries
// the embedding and the last the output layer, so one layer alone would
// overstate them): the difference between two layers and one.
double marginal(double one, double two, bool hasTwo)
{
    return hasTwo ? std::max(two - one, 1e-12) : std::max(one, 1e-12);
}

bool fitsEverywhere(const SkeletonTables& t, const std::vector<int>& layers, const std::vector<int>& levels)
{
    for (int i = 0; i < t.stages; ++i)
        if (t.row(static_cast<std::size_t>(i))
                .pred[static_cast<std::size_t>(layers[static_cast<std::size_t>(i)])]
                     [static_cast<std::size_t>(levels[static_cast<std::size_t>(i)])]
                .memoryMiB()
            > t.capacityMiB[static_cast<std::size_t>(i)])
            return false;
    return true;
}

void compose(const SkeletonTables& t, const Skeleton& sk, VarianceMode variance, std::size_t skeletonIndex,
             BaselineCandidate& c)
{
    std::vector<double> scratch;
    const Leaf leaf = SplitSearch::compose(t, sk, c.layers.data(), c.levels.data(), variance, scratch);
    c.timeMs = leaf.timeMs;
    c.maxMemMiB = leaf.maxMemMiB;
    c.variance = leaf.variance;
    c.postStage = leaf.postStage;
    c.fits = fitsEverywhere(t, c.layers, c.levels);
    c.skeleton = skeletonIndex;
    c.key = SplitSearch::keyStart(skeletonIndex);
    for (std::size_t i = 0; i < c.layers.size(); ++i)
        c.key = SplitSearch::keyStep(c.key, c.layers[i], c.levels[i]);
}

double bottleneckMs(const SkeletonTables& t, const BaselineCandidate& c)
{
    double worst = 0;
    for (int i = 0; i < t.stages; ++i)
        worst = std::max(worst,
                         t.row(static_cast<std::size_t>(i))
                             .pred[static_cast<std::size_t>(c.layers[static_cast<std::size_t>(i)])]
                                  [static_cast<std::size_t>(c.levels[static_cast<std::size_t>(i)])]
                             .timeMs);
    return worst;
}

bool levelAllowedEverywhere(const SkeletonTables& t, int level)
{
    for (int i = 0; i < t.stages; ++i)
        if (!t.row(static_cast<std::size_t>(i)).allowed[static_cast<std::size_t>(level)])
            return false;
    return true;
}

}  // namespace

std::vector<int> BaselinePartitioner::proportionalSplit(const std::vector<double>& weights, int units, int maxUnits)
{
    const int P = static_cast<int>(weights.size());
    if (P == 0 || units < P || static_cast<long long>(maxUnits) * P < units)
        return {};
    double total = 0;
    for (double w : weights)
        total += w;
    std::vector<double> ideal(weights.size());
    std::vector<int> n(weights.size());
    int sum = 0;
    for (std::size_t i = 0; i < weights.size(); ++i) {
        ideal[i] = units * weights[i] / total;
        n[i] = std::clamp(static_cast<int>(std::floor(ideal[i])), 1, maxUnits);
        sum += n[i];
    }
    // Short: one more to the largest remainder; over (stages raised to one
    // unit): one less from the smallest remainder that can give.
    while (sum != units) {
        int pick = -1;
        for (int i = 0; i < P; ++i) {
            const double r = ideal[static_cast<std::size_t>(i)] - n[static_cast<std::size_t>(i)];
            if (sum < units ? n[static_cast<std::size_t>(i)] >= maxUnits : n[static_cast<std::size_t>(i)] <= 1)
                continue;
            const double best
                = pick < 0 ? 0 : ideal[static_cast<std::size_t>(pick)] - n[static_cast<std::size_t>(pick)];
            if (pick < 0 || (sum < units ? r > best : r < best))
                pick = i;
        }
        n[static_cast<std::size_t>(pick)] += sum < units ? 1 : -1;
        sum += sum < units ? 1 : -1;
    }
    return n;
}

std::vector<int> BaselinePartitioner::evenSplit(int stages, int units)
{
    if (stages <= 0 || units < stages)
        return {};
    std::vector<int> n(static_cast<std::size_t>(stages), units / stages);
    for (int i = 0; i < units % stages; ++i)
        ++n[static_cast<std::size_t>(i)];
    return n;
}

std::vector<int> BaselinePartitioner::minMaxSplit(int stages, int units, const std::function<double(int, int)>& cost)
{
    if (stages <= 0 || units < stages)
        return {};
    // best[i][r]: the least bottleneck of stages i.. with r units; take[i][r]: stage i's units.
    const std::size_t R = static_cast<std::size_t>(units) + 1;
    std::vector<double> best(static_cast<std::size_t>(stages + 1) * R, kInf);
    std::vector<int> take(static_cast<std::size_t>(stages) * R, 0);
    best[static_cast<std::size_t>(stages) * R + 0] = 0;
    for (int i = stages - 1; i >= 0; --i) {
        const int later = stages - 1 - i;
        // Stage i gets what the i earlier stages (one unit at least each) leave:
        // at most units - i, so a stage never asks for more than units - (P - 1).
        for (int r = later + 1; r <= units - i; ++r) {
            double b = kInf;
            int arg = 0;
            for (int u = 1; u <= r - later; ++u) {
                const double rest = best[static_cast<std::size_t>(i + 1) * R + static_cast<std::size_t>(r - u)];
                if (rest == kInf)
                    continue;
                const double v = std::max(cost(i, u), rest);
                if (v < b) {
                    b = v;
                    arg = u;
                }
            }
            best[static_cast<std::size_t>(i) * R + static_cast<std::size_t>(r)] = b;
            take[static_cast<std::size_t>(i) * R + static_cast<std::size_t>(r)] = arg;
        }
    }
    if (best[static_cast<std::size_t>(units)] == kInf)
        return {};
    std::vector<int> n;
    for (int i = 0, r = units; i < stages; ++i) {
        const int u = take[static_cast<std::size_t>(i) * R + static_cast<std::size_t>(r)];
        n.push_back(u);
        r -= u;
    }
    return n;
}

namespace {

// One skeleton's tables as the baselines read them: splits in units of
// `step` layers, each candidate composed like a search's.
struct BaselineInputs {
    BaselineKind kind;
    const SkeletonTables& t;
    const Skeleton& sk;
    VarianceMode variance;
    std::size_t skeletonIndex;
    int P, step, units, maxUnits;

    const StagePrediction& pred(int stage, int layers, int level) const
    {
        return t.row(static_cast<std::size_t>(stage))
            .pred[static_cast<std::size_t>(layers)][static_cast<std::size_t>(level)];
    }

    void finish(const std::vector<int>& split, int level, BaselineCandidate& out) const
    {
        out = BaselineCandidate{};
        for (int u : split)
            out.layers.push_back(u * step);
        out.levels.assign(static_cast<std::size_t>(P), level);
        compose(t, sk, variance, skeletonIndex, out);
        // Metis ranks by its pipeline estimate, the others by the predicted time.
        out.cost = kind == BaselineKind::MetisStyle ? (sk.microBatchCount + P - 1) * bottleneckMs(t, out) : out.timeMs;
    }

    // An even split within every stage's largest layer count; empty when none.
    std::vector<int> even() const
    {
        std::vector<int> split = BaselinePartitioner::evenSplit(P, units);
        if (split.empty() || *std::max_element(split.begin(), split.end()) > maxUnits)
            return {};
        return split;
    }
};

// Layers in proportion to each stage's speed (compute) or to the units its
// memory holds beside the fixed part (memory).
bool proportional(const BaselineInputs& in, BaselineCandidate& out)
{
    const bool two = in.t.maxLayers >= 2 * in.step;
    std::vector<double> weights;
    for (int i = 0; i < in.P; ++i) {
        const StagePrediction& a = in.pred(i, in.step, kNone);
        const StagePrediction& b = in.pred(i, two ? 2 * in.step : in.step, kNone);
        if (in.kind == BaselineKind::ComputeProportional) {
            weights.push_back(1.0 / marginal(a.timeMs, b.timeMs, two));
        } else {
            // The units this stage's memory holds: what is left beside the
            // fixed part (weights, optimizer state, buffers) over one unit's share.
            const double perUnit = marginal(a.memoryMiB(), b.memoryMiB(), two);
            const double fixed = a.memoryMiB() - perUnit;
            weights.push_back(std::max((in.t.capacityMiB[static_cast<std::size_t>(i)] - fixed) / perUnit, 1e-6));
        }
    }
    const std::vector<int> split = BaselinePartitioner::proportionalSplit(weights, in.units, in.maxUnits);
    if (split.empty())
        return false;
    in.finish(split, kNone, out);
    return true;
}

// One level for every stage: of those the mode allows, the one whose plan
// fits and ranks best; none fits: no recomputation (what the paper deployed
// them with), an even split, marked as not fitting.
bool oneLevel(const BaselineInputs& in, BaselineCandidate& out)
{
    bool have = false;
    BaselineCandidate pick;
    for (int level = 0; level < kRecomputeLevels; ++level) {
        if (!levelAllowedEverywhere(in.t, level))
            continue;
        const std::vector<int> split = in.kind == BaselineKind::MetisStyle
            ? BaselinePartitioner::minMaxSplit(in.P, in.units,
                                               [&](int i, int u) {
                                                   const StagePrediction& p = in.pred(i, u * in.step, level);
                                                   return p.memoryMiB() <= in.t.capacityMiB[static_cast<std::size_t>(i)]
                                                       ? p.timeMs
                                                       : kInf;
                                               })
            : in.even();
        if (split.empty())
            continue;
        in.finish(split, level, out);
        if (!out.fits)
            continue;
        if (!have || out.cost < pick.cost) {
            pick = out;
            have = true;
        }
    }
    if (have) {
        out = pick;
        return true;
    }
    const std::vector<int> split = in.even();
    if (split.empty())
        return false;
    in.finish(split, kNone, out);
    return true;
}

}  // namespace

bool BaselinePartitioner::choose(BaselineKind kind, const SkeletonTables& t, const Skeleton& sk, VarianceMode variance,
                                 std::size_t skeletonIndex, BaselineCandidate& out)
{
    const int step = std::max(1, sk.unitLayers());
    const BaselineInputs in{kind, t, sk, variance, skeletonIndex, t.stages, step, t.layers / step, t.maxLayers / step};
    switch (kind) {
    case BaselineKind::ComputeProportional:
    case BaselineKind::MemoryProportional: return proportional(in, out);
    case BaselineKind::MetisStyle:
    case BaselineKind::FasopStyle: return oneLevel(in, out);
    case BaselineKind::MemX: return false;
    }
    return false;
}

bool BaselinePartitioner::prefers(BaselineKind kind, const BaselineCandidate& a, const BaselineCandidate& b)
{
    if (kind != BaselineKind::ComputeProportional && a.fits != b.fits)
        return a.fits;
    if (a.cost != b.cost)
        return a.cost < b.cost;
    if (a.skeleton != b.skeleton)
        return a.skeleton < b.skeleton;
    return a.key < b.key;
}

}  // namespace memx
