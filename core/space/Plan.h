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

// One pipeline stage of a plan: TP x DP GPUs of one type: part of a node,
// a node, or several whole nodes (StageSlot).
struct StagePlan {
    int group = 0;              // index into Cluster::groups(): the (first) device group
    std::vector<int> groups;    // every device group the stage covers (more than one: whole nodes)
    std::string groupName;      // the group's name, or "g1+g2" when it spans groups
    std::string gpuType;
    int slice = 0;              // which TP x DP block of the group (0-based; 0 when spanning groups)
    std::vector<int> devices;   // global device ids, TP-major: [dp0: tp0..tpT-1][dp1: ...]
    int firstLayer = 0;         // 0-based index of the stage's first transformer layer
    int layers = 0;
    Recompute recompute = Recompute::None;
    double inflight = 1;        // micro-batches alive at the peak
    double timeMs = 0;          // one micro-batch forward + backward
    MemoryBreakdown memory;     // peak per GPU
    double capacityMiB = 0;     // device memory
    double headroom() const { return capacityMiB > 0 ? 1.0 - memory.totalMiB() / capacityMiB : 0; }
    bool spansGroups() const { return groups.size() > 1; }
    std::string label() const;  // "a100#1", or "n0+n1" for a stage over whole nodes
};

// A complete training configuration with its predicted cost.
struct Plan {
    int tp = 1, pp = 1, dp = 1;
    int microBatch = 1;
    int globalBatch = 1;
    int microBatches = 1;       // G = gbs / (dp * mbs)
    int seqLen = 0;
    int queryGroups = 0;
    Schedule schedule = Schedule::OneF1B;
    int virtualStages = 1;
    std::vector<StagePlan> stages;
    std::vector<double> hopMs;  // pipeline hop i -> i+1, one direction, ms
    double dpMs = 0;            // gradient synchronisation, ms
    double fixedMs = 0;         // optimizer step and per-iteration overhead, ms
    double iterationMs = 0;     // T
    double maxMemMiB = 0;       // M
    double varMem = 0;          // V (MiB^2, or utilisation^2 when the objective says so)
    double phi = 0;
    std::uint64_t rankTime = 0;  // 1 = fastest feasible plan
    std::uint64_t rankPhi = 0;   // 1 = best under the objective
    bool ranksApproximate = false;
    Provenance provenance = Provenance::Analytic;
    double uncertainty = 0;     // relative
    int idleGpus = 0;           // GPUs of the cluster no stage uses (TP x DP does not fill every type)
    std::uint64_t key = 0;      // deterministic identity within one search

    std::string orderString() const;   // "a100 > vb[0-3] > ..."
    std::string layersString() const;  // "8,8,8,8"
    std::string recomputeString() const;
    double minHeadroom() const;
    // The same with every stage's peak at the prediction's upper bound, peak x (1 + uncertainty).
    double minHeadroomAtUpper() const;
};

}  // namespace memx
