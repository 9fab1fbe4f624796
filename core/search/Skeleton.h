#pragma once

#include "space/Plan.h"
#include "space/StageSlots.h"
#include "search/MeshTimeBound.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace memx {

struct Problem;

// Everything of a candidate except the layer split and the recomputation
// levels: parallel degrees, micro-batch, sequence, query groups, schedule and
// which stage slot (part of a node, a node, or whole nodes of one type) holds
// each pipeline stage, in pipeline order.
struct Skeleton {
    int tp = 1, dp = 1, mbs = 1, seq = 0, queryGroups = 0;
    int microBatchCount = 1;  // G
    Schedule schedule = Schedule::OneF1B;
    int virtualStages = 1;
    bool autoSchedule = false;  // the adaptive rule decides whether this variant is kept
    std::shared_ptr<const StageSlotSet> slotSet;  // shared by every skeleton of one TP x DP size
    std::vector<int> stageSlot;  // per stage: index into slots->all
    int idleGpus = 0;  // GPUs of the cluster this skeleton leaves unused
    // Per-mesh skeletons (FlagScale's process meshes): each stage's own TP, DP
    // and micro-batch; empty for a uniform skeleton, whose every stage has
    // tp, dp and mbs above. In a per-mesh skeleton those are the first
    // mesh's, and microBatchCount = gbs / (dp x mbs) holds for every mesh.
    std::vector<StageShape> shapes;
    // What the search ranks by is T x timeScale (Plan::rankScale): 1, or the
    // time-per-token factor of TaskCompare::PerToken.
    double timeScale = 1;

    StageShape shapeOf(int stage) const
    {
        return shapes.empty() ? StageShape{tp, dp, mbs} : shapes[static_cast<std::size_t>(stage)];
    }
    bool perMesh() const { return !shapes.empty(); }

    int stages() const { return static_cast<int>(stageSlot.size()); }
    const StageSlot& slot(int stage) const
    {
        return slotSet->all[static_cast<std::size_t>(stageSlot[static_cast<std::size_t>(stage)])];
    }
    int unitLayers() const { return schedule == Schedule::Interleaved ? virtualStages : 1; }
};

struct SkeletonList {
    std::vector<Skeleton> skeletons;
    std::map<std::string, std::uint64_t> excluded;  // structural rule -> skeletons skipped
    std::vector<std::string> notes;
    // Non-empty when a cap left skeletons of the space out (too many stage
    // orders or per-type mesh choices): what was left out. The search is then
    // exact only over the skeletons it was given.
    std::string spaceCut;
    // With Limits::perTypeTimeBound and a cap: no plan of a skeleton left out
    // is faster than this (ms); infinity when none was left out.
    double leftOutTimeBoundMs = std::numeric_limits<double>::infinity();
};

// Enumerates the skeletons of a request, applying the structural rules:
// rule 1 (TP inside a node, TP and DP inside one GPU type), Megatron's
// divisibility rules (heads and query groups by TP, global batch by DP x
// micro-batch, interleaving needs G % P == 0), every stage the same TP x DP,
// and the pipeline-depth limit.
struct SkeletonEnumerator {
    // Caps on what is built; beyond them skeletons are counted and the list
    // says so (SkeletonList::spaceCut).
    struct Limits {
        std::size_t stageOrders = 200000;  // per TP x DP
        // Per-type mesh skeletons in all: at 128 and 512 GPUs of four types
        // 12,000 take about as long as the uniform search again, leaving the
        // 10 s budget at 128 GPUs a margin on a busy 2-core machine (docs/SCALING.md).
        std::size_t perTypeMeshes = 12000;
        // A lower bound on the iteration time of every plan of a per-type
        // mesh choice (MeshTimeBound): with it, a cap keeps the skeletons of
        // the lowest bounds and says the least bound of those left out;
        // without, it keeps the first ones in enumeration order.
        std::function<double(const std::vector<MeshTimeBound::Mesh>&, int microBatchCount, int seq, int queryGroups)>
            perTypeTimeBound;
    };
    static SkeletonList enumerate(const Problem& problem, const Limits& limits);
    static SkeletonList enumerate(const Problem& problem) { return enumerate(problem, Limits{}); }
};

}  // namespace memx
