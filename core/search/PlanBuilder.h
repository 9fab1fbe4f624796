#pragma once

#include "space/Plan.h"

namespace memx {

class Cluster;
struct Leaf;
struct Skeleton;
struct SkeletonTables;

// Turns a leaf of the split search into a full Plan (only done for the few
// candidates that enter a top list, a front or the plot sample).
struct PlanBuilder {
    static Plan build(const Cluster& cluster, const Skeleton& sk, const SkeletonTables& t, const Leaf& leaf,
                      int globalBatch);
};

}  // namespace memx
