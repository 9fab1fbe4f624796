#pragma once

#include "search/SplitSearch.h"

#include <vector>

namespace memx {

// Admissible bounds for the split search: per suffix (stage i onwards with r
// layer units left) the least T, M and V any completion can reach.
//
// One ideal point per subtree mixes what different completions achieve:
// fast plans with unbalanced memory, balanced plans that are slow. So the
// completions are split twice into classes, once by their bottleneck stage
// time (class c: bottleneck in (cap[c-1], cap[c]]) and once by their memory
// peak (class q: peak in (mcap[q-1], mcap[q]]); the last class of each
// partition has no cap. A class's bound is the ideal point of its
// completions: per-term minima under its cap (min-max partitions for the
// bottleneck and the memory peak, the least summed time and the least
// slowest gradient synchronisation), raised to the class's lower cap. The
// sink is asked which of its aims each class can still serve; an aim
// survives a partition when some class serves it, and a subtree when it
// survives both. Every completion lies in exactly one class of each
// partition, so this is exact.
//
// V: P V = min_c sum_j (x_j - c)^2. The least sum (x_j - c)^2 over
// completions is computed exactly at grid points c_k spanning every mean a
// plan can have; between grid points it is (P-i) c^2 plus a concave function,
// so it lies above the chord. With the prefix's own sum of squares exact,
// the bound is a quadratic in c, minimised over the means the node's
// completions can have. Bottleneck classes carry their own V programme;
// memory classes use the unconstrained one.
class SplitBounds {
public:
    using Option = SplitBoundsOption;
    // Grid points for V: as many as keep the spacing near `meanResolution`
    // (in the unit of x), between 2 and kMaxGrid intervals. The chord between
    // two points can undercut the least sum of squares by about (P-i) h^2 / 8
    // at spacing h, so a wide range of plan means needs more points.
    static constexpr int kMaxGrid = 32;
    static constexpr int kCoarseGrid = 4;  // the first, cheap, V programme (refine() replaces it)

    // opts[at(i, u)]: the options of stage i with u units; count[at(i, r)]:
    // feasible completions. Composition constants as IterationComposer needs.
    SplitBounds(int stages, int units, const std::vector<std::vector<Option>>& opts,
                const std::vector<CandidateCount>& count, double sumHopMs, int microBatchCount, int virtualStages,
                double fixedMs, double meanResolution, double pipelineScale = 1.0, double timeScale = 1.0);

    // The sink's aims that a completion of (stage, unitsLeft) after a prefix
    // with these aggregates (s1, s2: sum and sum of squares of the prefix's
    // centred x) could still serve; 0 cuts the subtree. `priority` is the
    // sink's priority of the first class that serves an aim. Only the aims
    // of `ask` are asked: those alive at the parent (an aim dead there is
    // dead below, the sink's lists and fronts only tightening).
    unsigned alive(int stage, int unitsLeft, double maxT, double sumT, double maxPost, double maxMem, double s1,
                   double s2, const LeafSink& sink, double& priority, unsigned ask) const;

    // The aims of the sink that survive at the root (no prefix); 0: none.
    unsigned rootAlive(const LeafSink& sink) const;
    // The bounds of the bottleneck classes at the root (no prefix): no
    // candidate is below all of them. Before any node survived the
    // unconstrained ideal point (so the classes were never built), that
    // point alone.
    std::vector<LeafBound> rootClasses() const;

private:
    std::size_t at(int stage, int unitsLeft) const
    {
        return static_cast<std::size_t>(stage) * static_cast<std::size_t>(units_ + 1)
            + static_cast<std::size_t>(unitsLeft);
    }
    struct Programme {
        double cap = 0;  // every stage time <= cap (infinity: none)
        double memCap = 0;  // every stage memory <= memCap (infinity: none)
        double lowerCap = 0, lowerMemCap = 0;  // the class's bottleneck / peak lies above these
        bool ownVariance = false;  // gridMin, minS1, maxS1 built
        bool built = false;  // prepare() ran: every array but gridMin
        bool gridBuilt = false;  // gridMin too
        bool copyOfAll = false;  // the last class of a partition: the unconstrained programme, uncapped
        std::vector<double> minMaxT, minSumT, minMaxMem, minMaxPost, minS1, maxS1;
        std::vector<double> grid;  // plan means where gridMin is exact
        std::vector<double> gridMin;  // [at * K + k]: least sum (x - grid_k)^2
    };
    void build(Programme& p) const;
    // Per stage the most units any option under the caps takes (top), and per
    // suffix their sum: a class with a tight cap leaves each stage a few
    // layer counts, and build() visits only those.
    void unitsUnderCaps(double cap, double memCap, std::vector<int>& top, std::vector<int>& suffix) const;
    void ensureClasses() const;
    // Builds a class's programme on first use, its V grid when asked.
    void prepare(Programme& p, bool withGrid) const;
    bool refine() const;  // true when it rebuilt all_ on the fine grid
    std::vector<double> grid(int most) const;
    double varianceBound(const Programme& p, int stage, int unitsLeft, double s1, double s2) const;
    // Aims of `ask` that one class can serve (0 when it holds no completion).
    // `fineV` caches the unconstrained programme's V bound of the node (NaN:
    // not computed yet), valid for every class.
    unsigned classAlive(Programme& p, std::size_t idx, int stage, int unitsLeft, double maxT, double sumT,
                        double maxPost, double maxMem, double s1, double s2, const LeafSink& sink, unsigned ask,
                        double* priority, double& fineV) const;
    static constexpr int kClassGrid = 6;  // grid intervals of the class programmes (the unconstrained one has more)

    int P_, units_;
    const std::vector<std::vector<Option>>& opts_;
    const std::vector<CandidateCount>& count_;
    double sumHopMs_, fixedMs_;
    int microBatchCount_, virtualStages_;
    double pipelineScale_;  // IterationTerms::pipeline, on the bubble
    double timeScale_;  // Skeleton::timeScale, on the whole time
    std::size_t cells_;
    mutable Programme all_;  // unconstrained (coarse V grid until refine())
    double meanLo_ = 0, meanHi_ = 0, meanResolution_ = 1;
    mutable bool fineBuilt_ = false;
    double bStar_ = 0, mStar_ = 0;  // least bottleneck and peak: the classes' caps scale them
    std::vector<double> classGrid_;
    // Built on first use (ensureClasses): the search is single-threaded per object.
    mutable bool classesBuilt_ = false;
    mutable std::vector<Programme> byTime_;  // bottleneck partition (last: uncapped)
    mutable std::vector<Programme> byMemory_;  // memory-peak partition (last: uncapped)
};

}  // namespace memx
