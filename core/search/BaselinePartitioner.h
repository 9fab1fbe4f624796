#pragma once

#include "search/Baseline.h"
#include "search/Objective.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace memx {

struct Skeleton;
struct SkeletonTables;

// One baseline's plan on one skeleton (its layer split and recomputation
// levels), composed with the search's own tables.
struct BaselineCandidate {
    std::vector<int> layers;  // per stage
    std::vector<int> levels;  // per stage, Recompute as int
    double timeMs = 0, maxMemMiB = 0, variance = 0;
    int postStage = 0;
    double cost = 0;  // what the baseline ranks by (ms)
    bool fits = false;  // every stage within its device's memory
    std::uint64_t key = 0;  // SplitSearch's identity of the candidate
    std::size_t skeleton = 0;
};

// How each baseline splits the layers of one skeleton and which plan it
// prefers; see Baseline.h and docs/BASELINES.md.
class BaselinePartitioner {
public:
    // The baseline's candidate on this skeleton; false when it has none
    // (MemX: never asked here; it is the search's own pick).
    static bool choose(BaselineKind kind, const SkeletonTables& t, const Skeleton& sk, VarianceMode variance,
                       std::size_t skeletonIndex, BaselineCandidate& out);
    // Whether the baseline prefers a to b: the baselines that check memory
    // take any plan that fits over one that does not; then the lower cost;
    // then the lower skeleton index and key (a fixed order, whatever the threads).
    static bool prefers(BaselineKind kind, const BaselineCandidate& a, const BaselineCandidate& b);

    // `units` split in proportion to `weights` (positive), every stage at
    // least one unit and at most maxUnits: floors first, then the largest
    // remainders (ties to the earlier stage). Empty when it cannot be done.
    static std::vector<int> proportionalSplit(const std::vector<double>& weights, int units, int maxUnits);
    // units / P on every stage, the remainder one each to the first stages.
    static std::vector<int> evenSplit(int stages, int units);
    // The split minimising the largest cost(stage, units) (infinite: not
    // allowed); ties to the smaller first stages. Empty when none is allowed.
    static std::vector<int> minMaxSplit(int stages, int units, const std::function<double(int, int)>& cost);
};

}  // namespace memx
