#pragma once

#include "model/Recompute.h"
#include "model/MemoryBreakdown.h"
#include "model/Provenance.h"

#include <cstdint>
#include <string>
#include <vector>

namespace memx {

enum class Schedule { OneF1B, Interleaved };
inline const char* toString(Schedule s) { return s == Schedule::OneF1B ? "1f1b" : "interleaved"; }

// One stage's parallel shape. In a uniform plan (Megatron-LM's) every stage
// has the plan's; in a per-mesh plan (FlagScale's process meshes,
// --hetero-process-meshes) each GPU type's stages have their own TP and DP,
// and their micro-batch is dp0 x mbs / dp, dp0 and mbs being the first
// mesh's (the global DP and micro-batch).
struct StageShape {
    int tp = 1, dp = 1, microBatch = 1;
    int gpus() const { return tp * dp; }
    bool operator==(const StageShape&) const = default;
};

// One pipeline stage of a plan: TP x DP GPUs of one type: part of a node,
// a node, or several whole nodes (StageSlot).
struct StagePlan {
    int group = 0;  // index into Cluster::groups(): the (first) device group
    std::vector<int> groups;  // every device group the stage covers (more than one: whole nodes)
    std::string groupName;  // the group's name, or "g1+g2" when it spans groups
    std::string gpuType;
    int slice = 0;  // which TP x DP block of the group (0-based; 0 when spanning groups)
    std::vector<int> devices;  // global device ids, TP-major: [dp0: tp0..tpT-1][dp1: ...]
    int firstLayer = 0;  // 0-based index of the stage's first transformer layer
    int layers = 0;
    // The stage's own shape in a per-mesh plan; 0 = the plan's (Plan::shapeOf).
    int tp = 0, dp = 0, microBatch = 0;
    Recompute recompute = Recompute::None;
    double inflight = 1;  // micro-batches alive at the peak
    double timeMs = 0;  // one micro-batch forward + backward
    MemoryBreakdown memory;  // peak per GPU
    double capacityMiB = 0;  // device memory
    double headroom() const { return capacityMiB > 0 ? 1.0 - memory.totalMiB() / capacityMiB : 0; }
    bool spansGroups() const { return groups.size() > 1; }
    std::string label() const;  // "a100#1", or "n0+n1" for a stage over whole nodes
    bool operator==(const StagePlan&) const = default;
};

// A complete training configuration with its predicted cost.
struct Plan {
    int tp = 1, pp = 1, dp = 1;  // per-mesh plans: the first mesh's TP and DP (DP is the global DP)
    int microBatch = 1;  // per-mesh plans: the first mesh's (the global micro-batch size)
    int globalBatch = 1;
    int microBatchCount = 1;  // G = gbs / (dp * mbs)
    int seqLen = 0;
    int queryGroups = 0;
    Schedule schedule = Schedule::OneF1B;
    int virtualStages = 1;
    std::vector<StagePlan> stages;
    std::vector<double> hopMs;  // pipeline hop i -> i+1, one direction, ms
    double dpMs = 0;  // gradient synchronisation, ms
    double fixedMs = 0;  // optimizer step and per-iteration overhead, ms
    double iterationMs = 0;  // T
    // The time the search ranked the plan by is iterationMs x rankScale: 1,
    // or under TaskCompare::PerToken the largest task's tokens per iteration
    // over this plan's (time per token, in ms of the largest task).
    double rankScale = 1;
    double rankMs() const { return iterationMs * rankScale; }
    double maxMemMiB = 0;  // M
    double varMem = 0;  // V (MiB^2, or utilisation^2 when the objective says so)
    double phi = 0;
    std::uint64_t rankTime = 0;  // 1 = fastest feasible plan
    std::uint64_t rankPhi = 0;  // 1 = best under the objective
    bool ranksApproximate = false;
    Provenance provenance = Provenance::Analytic;
    double uncertainty = 0;  // relative
    int idleGpus = 0;  // GPUs of the cluster no stage uses (TP x DP does not fill every type)
    std::uint64_t key = 0;  // deterministic identity within one search

    // A stage's TP, DP and micro-batch: its own in a per-mesh plan, else the plan's.
    StageShape shapeOf(std::size_t stage) const;
    // Whether some stage's shape differs from the plan's (a FlagScale
    // process-mesh plan; Megatron-LM cannot run it).
    bool perMesh() const;
    // "TP 4 x DP 2, mbs 1" for a uniform plan; "A100 TP 4 x DP 2 mbs 1 | V100 TP 8 x DP 1 mbs 2"
    // (one entry per mesh: consecutive stages of one type and shape) for a per-mesh plan.
    std::string shapeString() const;
    // One field of the shape: "4" for a uniform plan, each mesh's in pipeline
    // order joined by '|' for a per-mesh plan ("4|2"); field is
    // &StageShape::tp, ::dp or ::microBatch.
    std::string meshValues(int StageShape::*field) const;
    std::string orderString() const;  // "a100 > vb[0-3] > ..."
    std::string layersString() const;  // "8,8,8,8"
    std::string recomputeString() const;
    double minHeadroom() const;
    // The same with every stage's peak at the prediction's upper bound, peak x (1 + uncertainty).
    double minHeadroomAtUpper() const;
    // Field by field: what a reader must give back of what a writer wrote.
    bool operator==(const Plan&) const = default;
};

}  // namespace memx
