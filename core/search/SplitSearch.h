#pragma once

#include "search/Objective.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace memx {

struct SkeletonTables;
struct Skeleton;

// A complete candidate as the split search sees it.
struct Leaf {
    const int* layers = nullptr;     // per stage
    const int* levels = nullptr;     // per stage, Recompute as int
    double timeMs = 0;               // T
    double maxMemMiB = 0;            // M
    double variance = 0;             // V
    int postStage = 0;               // stage whose gradient sync + optimizer bounds the iteration
    std::uint64_t key = 0;
};

class LeafSink {
public:
    virtual ~LeafSink() = default;
    virtual void onLeaf(const Leaf& leaf) = 0;
    // Phase 2 only: a subtree whose Phi lower bound (under weight set
    // `profile` of PhiBound::weights) exceeds this for every profile is cut.
    virtual double phiThreshold(std::size_t profile) const
    {
        (void)profile;
        return std::numeric_limits<double>::infinity();
    }
    // Polled every few thousand leaves; true abandons the skeleton (cancel).
    virtual bool stopRequested() const { return false; }
};

// Lower-bound terms for Phi (phase 2): one weight set per ranked profile.
struct PhiBound {
    bool enabled = false;
    References ref;
    std::vector<Weights> weights;
};

// Depth-first search over layer splits (and, when asked, per-stage
// recomputation levels) of one skeleton. Memory pruning (MemX rule 2) cuts a
// stage as soon as even its most frugal feasible level cannot hold the layers,
// or the remaining stages cannot hold the remaining layers; the Phi bound
// (rule 3) cuts a subtree whose best conceivable Phi is worse than the K-th
// best found. Both are exact: see tests/core/tst_search_pruning.cpp.
class SplitSearch {
public:
    SplitSearch(const SkeletonTables& tables, const Skeleton& skeleton, bool enumerateLevels, VarianceMode variance,
                std::uint64_t skeletonIndex);

    void run(LeafSink& sink, const PhiBound& bound, bool pruneMemory);

    std::uint64_t leaves() const { return leaves_; }
    std::uint64_t prunedMemory() const { return prunedMemory_; }
    std::uint64_t prunedBound() const { return prunedBound_; }
    bool aborted() const { return aborted_; }
    // Candidates (layer splits x level choices) the skeleton has in total.
    std::uint64_t spaceSize() const;

    // T, M, V of one complete assignment: the single place where a leaf's
    // metrics are composed (the search and PlanEvaluator both use it).
    static Leaf compose(const SkeletonTables& t, const Skeleton& sk, const int* layers, const int* levels,
                        VarianceMode variance, std::vector<double>& scratch);

private:
    void descend(int stage, int unitsLeft, double maxT, double sumT, double maxPost, int postStage, double maxMem,
                 std::uint64_t index, std::uint64_t levelDigits);
    void finishLeaf(std::uint64_t key);
    std::uint64_t compositions(int units, int parts) const;  // C(units-1, parts-1)
    double timeLowerBound(int stage, int unitsLeft, double maxT, double sumT, double maxPost) const;
    double memLowerBound(int stage, double maxMem) const;
    void prepareBounds();

    const SkeletonTables& t_;
    const Skeleton& sk_;
    bool enumerateLevels_;
    VarianceMode varianceMode_;
    std::uint64_t skeletonIndex_;
    int step_ = 1;   // layers per unit (virtual stages)
    int P_ = 0;
    std::vector<int> n_;
    std::vector<int> lv_;
    std::vector<std::vector<std::uint64_t>> binom_;
    std::uint64_t levelSpace_ = 1;   // 3^P in enumerate mode
    // Suffix aggregates for the bounds, index = first remaining stage.
    std::vector<double> sufMaxTauMin_, sufSumTauMin_, sufInvBeta_, sufTauOverBeta_, sufMinBeta_, sufMaxPostMin_,
        sufMaxMemMin_;
    std::vector<int> sufNMaxUnits_;
    std::vector<char> sufCapacityValid_;
    LeafSink* sink_ = nullptr;
    PhiBound bound_;
    bool pruneMemory_ = true;
    std::uint64_t leaves_ = 0, prunedMemory_ = 0, prunedBound_ = 0;
    bool aborted_ = false;
    std::uint64_t visits_ = 0;
    std::vector<double> memScratch_;
};

}  // namespace memx
