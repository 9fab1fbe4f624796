#include "search/SplitBounds.h"
#include "io/NumericConstants.h"

#include "predict/IterationComposer.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace memx {

namespace {
// Caps as multiples of the least possible bottleneck (memory peak): dense
// near it, where good plans differ by a layer or two, then coarse.
constexpr std::array<double, 16> kTimeSteps{1.003, 1.01, 1.02, 1.035, 1.05, 1.075, 1.1, 1.15,
                                            1.2,   1.3,  1.4,  1.55,  1.75, 2.0,   2.5, 4.0};
constexpr std::array<double, 10> kMemorySteps{1.01, 1.03, 1.06, 1.1, 1.15, 1.22, 1.3, 1.45, 1.7, 2.2};
}  // namespace

SplitBounds::SplitBounds(int stages, int units, const std::vector<std::vector<Option>>& opts,
                         const std::vector<CandidateCount>& count, double sumHopMs, int microBatchCount,
                         int virtualStages, double fixedMs, double meanResolution, double pipelineScale,
                         double timeScale)
    : P_(stages)
    , units_(units)
    , opts_(opts)
    , count_(count)
    , sumHopMs_(sumHopMs)
    , fixedMs_(fixedMs)
    , microBatchCount_(microBatchCount)
    , virtualStages_(virtualStages)
    , pipelineScale_(pipelineScale)
    , timeScale_(timeScale)
    , cells_(count.size())
{
    // The unconstrained programme first: its least bottleneck, least peak and
    // mean range set the caps and the V grid.
    all_.cap = all_.memCap = kInf;
    all_.built = true;
    build(all_);
    const std::size_t root = at(0, units_);
    const double bStar = all_.minMaxT[root], mStar = all_.minMaxMem[root];
    meanLo_ = all_.minS1[root] / P_;
    meanHi_ = all_.maxS1[root] / P_;
    meanResolution_ = meanResolution;
    classGrid_ = grid(kClassGrid);
    all_.ownVariance = true;
    all_.grid = grid(kCoarseGrid);
    build(all_);  // again, now with a coarse grid (refine() makes it fine)
    bStar_ = bStar;
    mStar_ = mStar;
}

std::vector<double> SplitBounds::grid(int most) const
{
    const int n = std::clamp(static_cast<int>(std::ceil((meanHi_ - meanLo_) / meanResolution_)), 2, most);
    std::vector<double> g(static_cast<std::size_t>(n) + 1);
    for (int k = 0; k <= n; ++k)
        g[static_cast<std::size_t>(k)] = meanLo_ + (meanHi_ - meanLo_) * k / n;
    return g;
}

// The chord bound holds on any grid, so a coarse one is admissible; the
// fine one costs eight times as much and is built for the first node that
// survives the coarse one.
bool SplitBounds::refine() const
{
    if (fineBuilt_)
        return false;
    fineBuilt_ = true;
    std::vector<double> fine = grid(kMaxGrid);
    if (fine.size() <= all_.grid.size())
        return false;
    all_.grid = std::move(fine);
    build(all_);
    return true;
}

// The classes' caps; each class's programme is built when a node first
// asks it (prepare()): most skeletons and subtrees die at the unconstrained
// ideal point or at the first classes, and the programmes cost about as
// much each as the unconstrained one.
void SplitBounds::ensureClasses() const
{
    if (classesBuilt_)
        return;
    classesBuilt_ = true;
    double lower = 0;
    for (double step : kTimeSteps) {
        Programme p;
        p.cap = bStar_ * step;
        p.memCap = kInf;
        p.lowerCap = lower;
        p.ownVariance = true;
        p.grid = classGrid_;
        lower = p.cap;
        byTime_.push_back(std::move(p));
    }
    Programme lastT;
    lastT.cap = lastT.memCap = kInf;
    lastT.copyOfAll = true;  // its V is the unconstrained one, computed once per node
    lastT.lowerCap = lower;
    byTime_.push_back(std::move(lastT));

    lower = 0;
    for (double step : kMemorySteps) {
        Programme p;
        p.cap = kInf;
        p.memCap = mStar_ * step;
        p.lowerMemCap = lower;
        lower = p.memCap;
        byMemory_.push_back(std::move(p));
    }
    Programme lastM;
    lastM.cap = lastM.memCap = kInf;
    lastM.copyOfAll = true;
    lastM.lowerMemCap = lower;
    byMemory_.push_back(std::move(lastM));
}

void SplitBounds::prepare(Programme& p, bool withGrid) const
{
    if (!p.built) {
        p.built = true;
        if (p.copyOfAll) {
            p.minMaxT = all_.minMaxT;
            p.minSumT = all_.minSumT;
            p.minMaxMem = all_.minMaxMem;
            p.minMaxPost = all_.minMaxPost;
            p.minS1 = all_.minS1;
            p.maxS1 = all_.maxS1;
            p.ownVariance = false;
            return;
        }
        // Without the V grid first: the grid costs several times the rest,
        // and the unconstrained V bound often settles the class.
        const bool own = p.ownVariance;
        p.ownVariance = false;
        build(p);
        p.ownVariance = own;
    }
    if (withGrid && p.ownVariance && !p.gridBuilt) {
        p.gridBuilt = true;
        build(p);
    }
}

void SplitBounds::unitsUnderCaps(double cap, double memCap, std::vector<int>& top, std::vector<int>& suffix) const
{
    top.assign(static_cast<std::size_t>(P_) + 1, 0);
    for (int i = 0; i < P_; ++i)
        for (int u = 1; u <= units_; ++u)
            for (const Option& o : opts_[at(i, u)])
                if (o.timeMs <= cap && o.memMiB <= memCap) {
                    top[static_cast<std::size_t>(i)] = u;
                    break;
                }
    suffix.assign(static_cast<std::size_t>(P_) + 1, 0);
    for (int i = P_ - 1; i >= 0; --i)
        suffix[static_cast<std::size_t>(i)]
            = std::min(units_, suffix[static_cast<std::size_t>(i) + 1] + top[static_cast<std::size_t>(i)]);
}

void SplitBounds::build(Programme& p) const
{
    p.minMaxT.assign(cells_, kInf);
    p.minSumT.assign(cells_, kInf);
    p.minMaxMem.assign(cells_, kInf);
    p.minMaxPost.assign(cells_, kInf);
    p.minS1.assign(cells_, kInf);
    p.maxS1.assign(cells_, -kInf);
    const std::size_t K = p.ownVariance ? p.grid.size() : 0;
    // Laid out [cell * K + k]: the inner loop over grid points is contiguous.
    p.gridMin.assign(cells_ * K, kInf);
    const std::size_t base = at(P_, 0);
    p.minMaxT[base] = p.minSumT[base] = p.minMaxMem[base] = p.minMaxPost[base] = p.minS1[base] = p.maxS1[base] = 0;
    for (std::size_t k = 0; k < K; ++k)
        p.gridMin[base * K + k] = 0;
    const double* grid = p.grid.data();
    const double cap = p.cap, memCap = p.memCap;
    std::vector<int> top, suffix;
    unitsUnderCaps(cap, memCap, top, suffix);
    for (int i = P_ - 1; i >= 0; --i) {
        const int later = P_ - 1 - i;
        const int rMax = suffix[static_cast<std::size_t>(i)];
        const int uTop = top[static_cast<std::size_t>(i)], nextTop = suffix[static_cast<std::size_t>(i) + 1];
        for (int r = 1; r <= rMax; ++r) {
            const std::size_t me = at(i, r);
            // Locals: the compiler cannot keep p.minMaxT[me] in a register
            // while it reads p.minMaxT[sub] from the same array.
            double maxT = kInf, sumT = kInf, maxMem = kInf, maxPost = kInf, lo = kInf, hi = -kInf;
            double* best = p.gridMin.data() + me * K;
            for (int u = std::max(1, r - nextTop), uEnd = std::min(r - later, uTop); u <= uEnd; ++u) {
                const std::size_t sub = at(i + 1, r - u);
                const double subSumT = p.minSumT[sub];
                if (!(subSumT < kInf))
                    continue;
                const double subMaxT = p.minMaxT[sub], subMaxMem = p.minMaxMem[sub], subMaxPost = p.minMaxPost[sub];
                const double subLo = p.minS1[sub], subHi = p.maxS1[sub];
                const double* subGrid = p.gridMin.data() + sub * K;
                for (const Option& o : opts_[at(i, u)]) {
                    if (o.timeMs > cap || o.memMiB > memCap)
                        continue;
                    maxT = std::min(maxT, std::max(o.timeMs, subMaxT));
                    sumT = std::min(sumT, o.timeMs + subSumT);
                    maxMem = std::min(maxMem, std::max(o.memMiB, subMaxMem));
                    maxPost = std::min(maxPost, std::max(o.postMs, subMaxPost));
                    lo = std::min(lo, o.x + subLo);
                    hi = std::max(hi, o.x + subHi);
                    const double x = o.x;
                    for (std::size_t k = 0; k < K; ++k) {
                        const double d = x - grid[k];
                        best[k] = std::min(best[k], d * d + subGrid[k]);
                    }
                }
            }
            p.minMaxT[me] = maxT;
            p.minSumT[me] = sumT;
            p.minMaxMem[me] = maxMem;
            p.minMaxPost[me] = maxPost;
            p.minS1[me] = lo;
            p.maxS1[me] = hi;
        }
    }
}

double SplitBounds::varianceBound(const Programme& p, int stage, int unitsLeft, double s1, double s2) const
{
    // P V = min_c Q(c), Q(c) = s2 - 2 c s1 + i c^2 + D(c), where D(c) is the
    // least sum (x_j - c)^2 over the suffix completions: D(c) = (P-i) c^2 + g(c)
    // with g concave (a minimum of lines), so g lies above its chords.
    const std::size_t idx = at(stage, unitsLeft);
    const int rest = P_ - stage;
    const std::vector<double>& grid = p.grid;
    const double gLo = grid.front(), gHi = grid.back();
    double cLo = std::clamp((s1 + p.minS1[idx]) / P_, gLo, gHi);
    double cHi = std::clamp((s1 + p.maxS1[idx]) / P_, gLo, gHi);
    if (cLo > cHi)
        cLo = cHi = 0.5 * (cLo + cHi);
    const std::size_t K = grid.size();
    auto g = [&](std::size_t k) { return p.gridMin[idx * K + k] - rest * grid[k] * grid[k]; };
    double best = kInf;
    for (std::size_t k = 0; k + 1 < grid.size(); ++k) {
        const double c0 = grid[k], c1 = grid[k + 1];
        const double a = std::max(c0, cLo), b = std::min(c1, cHi);
        if (a > b)
            continue;
        const double g0 = g(k), g1 = g(k + 1);
        const double slope = c1 > c0 ? (g1 - g0) / (c1 - c0) : 0;
        // Q(c) >= P c^2 + (slope - 2 s1) c + (s2 + g0 - slope c0) on [a, b].
        const double c = std::clamp((2 * s1 - slope) / (2.0 * P_), a, b);
        best = std::min(best, P_ * c * c + (slope - 2 * s1) * c + s2 + g0 - slope * c0);
    }
    if (!(best < kInf))
        return 0;
    // Values are centred, so sums of squares stay small; a relative slack
    // covers rounding.
    const double scale = std::max(1.0, std::abs(s2) + std::abs(p.gridMin[idx * K]));
    return std::max(0.0, (best - 1e-9 * scale) / P_) * (1 - kBoundSlack);
}

unsigned SplitBounds::classAlive(Programme& p, std::size_t idx, int stage, int unitsLeft, double maxT, double sumT,
                                 double maxPost, double maxMem, double s1, double s2, const LeafSink& sink,
                                 unsigned ask, double* priority, double& fineV) const
{
    if (maxT > p.cap || maxMem > p.memCap)
        return 0;  // the prefix already exceeds this class's cap
    prepare(p, false);
    if (!(p.minSumT[idx] < kInf))
        return 0;  // no completion, or the prefix already exceeds this class's cap
    LeafBound b;
    const double bottleneck = std::max({maxT, p.minMaxT[idx], p.lowerCap});
    b.timeMs
        = IterationComposer::iterationMs(bottleneck, sumT + p.minSumT[idx], sumHopMs_, microBatchCount_, virtualStages_,
                                         fixedMs_, std::max(maxPost, p.minMaxPost[idx]), pipelineScale_)
        * timeScale_ * (1 - kBoundSlack);
    b.maxMemMiB = std::max({maxMem, p.minMaxMem[idx], p.lowerMemCap});
    // V last: sinks are monotone, so what dies with V = 0 dies with any V.
    unsigned alive = sink.aliveWithoutVariance(b, ask);
    if (alive == 0)
        return 0;
    // V is computed only for the aims it can still kill.
    const unsigned byV = alive & sink.varianceAims();
    const unsigned sure = byV ? sink.aliveAtAnyVariance(b, byV) : 0u;
    unsigned result = (alive & ~byV) | sure;
    if (const unsigned open = byV & ~sure) {
        if (std::isnan(fineV))
            fineV = varianceBound(all_, stage, unitsLeft, s1, s2);
        b.variance = fineV;
        unsigned a = sink.alive(b, open);
        if (a && p.ownVariance && &p != &all_) {
            // The class's own V bound is at least the unconstrained one:
            // asked only of the aims that one left alive.
            prepare(p, true);
            b.variance = std::max(b.variance, varianceBound(p, stage, unitsLeft, s1, s2));
            a = sink.alive(b, a);
        }
        result |= a;
    }
    if (result && priority)
        *priority = sink.priority(b);
    return result;
}

unsigned SplitBounds::alive(int stage, int unitsLeft, double maxT, double sumT, double maxPost, double maxMem,
                            double s1, double s2, const LeafSink& sink, double& priority, unsigned ask) const
{
    const std::size_t idx = at(stage, unitsLeft);
    // Each class's bound is at least the unconstrained ideal point in every
    // term, so what that point kills, every class kills.
    double fineV = std::numeric_limits<double>::quiet_NaN();
    unsigned mask
        = classAlive(all_, idx, stage, unitsLeft, maxT, sumT, maxPost, maxMem, s1, s2, sink, ask, &priority, fineV);
    if (mask == 0)
        return 0;
    if (refine()) {
        fineV = std::numeric_limits<double>::quiet_NaN();
        mask
            = classAlive(all_, idx, stage, unitsLeft, maxT, sumT, maxPost, maxMem, s1, s2, sink, ask, &priority, fineV);
        if (mask == 0)
            return 0;
    }
    ensureClasses();
    for (auto* partition : {&byTime_, &byMemory_}) {
        if (mask == 0)
            return 0;
        unsigned survived = 0;
        bool first = true;
        for (Programme& p : *partition) {
            const unsigned ask = mask & ~survived;
            if (ask == 0)
                break;
            const unsigned a = classAlive(p, idx, stage, unitsLeft, maxT, sumT, maxPost, maxMem, s1, s2, sink, ask,
                                          first ? &priority : nullptr, fineV);
            first = first && a == 0;
            survived |= a;
        }
        mask &= survived;
    }
    return mask;
}

unsigned SplitBounds::rootAlive(const LeafSink& sink) const
{
    double priority = 0;
    return alive(0, units_, 0, 0, 0, 0, 0, 0, sink, priority, sink.aims());
}

std::vector<LeafBound> SplitBounds::rootClasses() const
{
    // A sink that keeps every aim alive and records the bounds it is shown.
    class Recorder final : public LeafSink {
    public:
        void onLeaf(const Leaf&) override { }
        unsigned alive(const LeafBound& b, unsigned ask) const override
        {
            seen.push_back(b);
            return ask;
        }
        mutable std::vector<LeafBound> seen;
    };
    std::vector<LeafBound> out;
    const std::size_t idx = at(0, units_);
    if (!classesBuilt_) {
        // The unconstrained ideal point alone: no candidate is below it.
        Recorder r;
        double fineV = std::numeric_limits<double>::quiet_NaN();
        if (classAlive(all_, idx, 0, units_, 0, 0, 0, 0, 0, 0, r, 1, nullptr, fineV))
            out.push_back(r.seen.back());
        return out;
    }
    for (Programme& p : byTime_) {
        Recorder r;
        double fineV = std::numeric_limits<double>::quiet_NaN();
        if (classAlive(p, idx, 0, units_, 0, 0, 0, 0, 0, 0, r, 1, nullptr, fineV))
            out.push_back(r.seen.back());
    }
    return out;
}

}  // namespace memx
