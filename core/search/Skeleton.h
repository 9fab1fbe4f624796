#pragma once

#include "space/Plan.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace memx {

struct SearchRequest;

// Everything of a candidate except the layer split and the recomputation
// levels: parallel degrees, micro-batch, sequence, query groups, schedule and
// which device-group slice holds each pipeline stage, in pipeline order.
struct Skeleton {
    int tp = 1, dp = 1, mbs = 1, seq = 0, queryGroups = 0;
    int microBatches = 1;
    Schedule schedule = Schedule::OneF1B;
    int virtualStages = 1;
    bool autoSchedule = false;       // the adaptive rule decides whether this variant is kept
    std::vector<int> stageGroup;     // per stage: index into Cluster::groups()
    std::vector<int> stageSlice;     // per stage: which TP x DP block of that group
    int stages() const { return static_cast<int>(stageGroup.size()); }
};

struct SkeletonList {
    std::vector<Skeleton> skeletons;
    std::map<std::string, std::uint64_t> excluded;  // structural rule -> skeletons skipped
    std::vector<std::string> notes;
};

// Enumerates the skeletons of a request, applying the structural rules:
// rule 1 (TP and DP inside one device group), Megatron's divisibility rules
// (heads and query groups by TP, global batch by DP x micro-batch, interleaving
// needs G % P == 0), and the pipeline-depth limit.
struct SkeletonEnumerator {
    static SkeletonList enumerate(const SearchRequest& request);
};

}  // namespace memx
