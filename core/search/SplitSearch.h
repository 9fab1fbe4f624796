#pragma once

#include "search/Objective.h"

#include <memory>

#include <cstdint>
#include <limits>
#include <vector>

namespace memx {

struct SkeletonTables;
struct Skeleton;

// Candidate counts can exceed 64 bits (layer splits x 3^P level choices).
__extension__ typedef unsigned __int128 CandidateCount;

// A complete candidate as the split search sees it.
struct Leaf {
    const int* layers = nullptr;  // per stage
    const int* levels = nullptr;  // per stage, Recompute as int
    double timeMs = 0;  // T
    double maxMemMiB = 0;  // M
    double variance = 0;  // V
    int postStage = 0;  // stage whose gradient sync + optimizer bounds the iteration
    std::uint64_t key = 0;
};

// Lower bounds of T, M and V over every candidate below a node of the search.
struct LeafBound {
    double timeMs = 0;
    double maxMemMiB = 0;
    double variance = 0;
};

class LeafSink {
public:
    virtual ~LeafSink() = default;
    virtual void onLeaf(const Leaf& leaf) = 0;
    // The sink's aims (a top list, a front, ...), one bit each.
    virtual unsigned aims() const { return 1; }
    // Which aims of `ask` a candidate whose T, M and V are at least `bound`
    // could still serve. Must be exact: never drop an aim such a candidate
    // would serve. A subtree none of whose classes serves any aim is cut.
    virtual unsigned alive(const LeafBound& bound, unsigned ask) const
    {
        (void)bound;
        return ask;
    }
    // The same before V is known (bound.variance is 0, the best case); the
    // aims it returns are then asked again with V.
    virtual unsigned aliveWithoutVariance(const LeafBound& bound, unsigned ask) const { return alive(bound, ask); }
    // The aims whose answer depends on V (the others are decided by
    // aliveWithoutVariance), and of those the ones alive whatever V is: the
    // bounds skip computing V for the rest.
    virtual unsigned varianceAims() const { return aims(); }
    virtual unsigned aliveAtAnyVariance(const LeafBound& bound, unsigned ask) const
    {
        (void)bound;
        (void)ask;
        return 0;
    }
    // Which of two children to visit first (smaller first); any order is exact.
    virtual double priority(const LeafBound& bound) const { return bound.timeMs; }
    // Polled every few thousand nodes; true abandons the skeleton (cancel).
    virtual bool stopRequested() const { return false; }
};

// Exact search over the layer splits (and, when asked, per-stage
// recomputation levels) of one skeleton: a depth-first branch and bound
// over the stages in pipeline order, with the bounds of SplitBounds.
//
// Dynamic programmes over suffixes (stage i onwards with r layer units left)
// give, for every node of the depth-first search, the exact count of
// feasible completions and exact per-term minima: of the bottleneck stage
// time, of the summed stage times, of the slowest gradient synchronisation
// and of the largest stage memory (min-max partitions with per-stage memory
// feasibility). V is bounded through P V = min_c sum_j (x_j - c)^2: the
// minimum over completions of sum (x_j - c)^2 is computed exactly at grid
// points c_k spanning the means a plan can have; between grid points it is
// (P-i) c^2 plus a concave function, so it lies above the chord; with the
// prefix's own sum of squares exact, the bound is a quadratic in c minimised
// over the means the node's completions can have. All bounds are admissible,
// so cutting every subtree that serves none of the sink's aims keeps the result exact
// (tests/core/tst_search_exactness.cpp). Counting costs O(P L^2) per
// skeleton, the bound programmes O(P L^2 K); the search then visits only
// nodes whose bound can still compete.
class SplitBounds;

// One way to give a stage a number of layers: its recomputation level and
// what it costs. x is the stage's variance value (MiB or utilisation),
// centred on the skeleton's mid value so sums of squares stay small.
struct SplitBoundsOption {
    int level;
    double timeMs, memMiB, x, postMs;
};

class SplitSearch {
public:
    SplitSearch(const SkeletonTables& tables, const Skeleton& skeleton, bool enumerateLevels, VarianceMode variance,
                std::uint64_t skeletonIndex);

    // Feasible candidates of the skeleton (memory fits on every stage).
    CandidateCount feasibleCount() const { return count_.empty() ? 0 : count_[at(0, units_)]; }
    // Candidates before memory feasibility (splits x level choices).
    CandidateCount spaceSize() const;
    ~SplitSearch();
    // Bounds over the whole skeleton, one per bottleneck class of its
    // candidates (see SplitBounds): no candidate is below all of them.
    std::vector<LeafBound> rootBounds() const;
    // A bound over the whole skeleton without any programme, O(P U log PU):
    // the least bottleneck and the least memory peak of a relaxation that
    // lets every stage take any layer count up to the largest its options
    // allow under a cap, the least sums stage by stage. Weaker than
    // rootBounds(), and a hundredth of its cost: a skeleton it shows hopeless
    // never builds its programmes. V is 0.
    LeafBound quickRootBound() const;

    // Depth-first branch and bound; `prune` false visits every feasible leaf.
    void run(LeafSink& sink, bool prune);
    // Composes the feasible candidates with lexicographic ranks
    // floor((j + 0.5) * count / samples), j = 0..samples-1 (all of them when
    // samples >= count): a systematic sample that needs no enumeration.
    void sample(LeafSink& sink, std::uint64_t samples);

    // One feasible candidate found without search: the split whose slowest
    // stage is fastest, each stage at its fastest option (O(P U^2)), handed
    // to the sink: a plan that a search cut short while counting can still
    // offer. False when the
    // skeleton has no feasible candidate. memoryShare: only options using at
    // most that share of the stage's memory (a headroom constraint).
    bool greedy(LeafSink& sink, double memoryShare = 1.0);

    std::uint64_t leaves() const { return leaves_; }
    std::uint64_t nodes() const { return nodes_; }
    CandidateCount prunedBound() const { return prunedBound_; }
    bool aborted() const { return aborted_; }

    // T, M, V of one complete assignment: the single place where a leaf's
    // metrics are composed (the search and PlanEvaluator both use it).
    static Leaf compose(const SkeletonTables& t, const Skeleton& sk, const int* layers, const int* levels,
                        VarianceMode variance, std::vector<double>& scratch);
    // The identity of a candidate: a hash of its skeleton and its per-stage
    // (layers, level); the same whatever the order of the search.
    static std::uint64_t keyStart(std::uint64_t skeletonIndex);
    static std::uint64_t keyStep(std::uint64_t h, int layers, int level);

private:
    struct Child {
        int u;  // units given to the stage
        int opt;  // index into options(stage, u)
        double priority;
        unsigned aims;  // the sink's aims alive below it
    };

    const std::vector<SplitBoundsOption>& options(int stage, int units) const { return opts_[at(stage, units)]; }
    std::size_t at(int stage, int unitsLeft) const
    {
        return static_cast<std::size_t>(stage) * static_cast<std::size_t>(units_ + 1)
            + static_cast<std::size_t>(unitsLeft);
    }
    CandidateCount countAt(int stage, int unitsLeft) const { return count_[at(stage, unitsLeft)]; }
    void buildCounts();
    const SplitBounds& bounds() const;
    // `aims`: the sink's aims alive at this node (all of them when not pruning).
    void descend(int stage, int unitsLeft, double maxT, double sumT, double maxPost, double maxMem, double s1,
                 double s2, std::uint64_t key, unsigned aims);
    void emitLeaf(std::uint64_t key);  // not emit: Qt defines that word as a macro

    const SkeletonTables& t_;
    const Skeleton& sk_;
    bool enumerateLevels_;
    VarianceMode varianceMode_;
    std::uint64_t skeletonIndex_;
    int step_ = 1;  // layers per unit (virtual stages)
    int P_ = 0;
    int units_ = 0;  // layers / step
    std::vector<std::vector<SplitBoundsOption>> opts_;  // [at(stage, units)]
    std::vector<CandidateCount> count_;  // [at(stage, units left)], size (P+1)(U+1)
    mutable std::unique_ptr<SplitBounds> bounds_;
    std::vector<std::vector<Child>>
        children_;  // per depth of the search  // built on first use (counting and sampling need none)
    std::vector<int> n_, lv_;
    LeafSink* sink_ = nullptr;
    bool prune_ = true;
    std::uint64_t leaves_ = 0, nodes_ = 0;
    CandidateCount prunedBound_ = 0;
    bool aborted_ = false;
    std::vector<double> memScratch_;
};

}  // namespace memx
