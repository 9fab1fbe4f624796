#pragma once

#include "model/ModelSpec.h"
#include "model/Precision.h"
#include "model/Recompute.h"
#include "predict/StageQuery.h"

#include <array>
#include <string>
#include <vector>

namespace memx {

class Cluster;
class PredictionCache;
class Topology;
struct Skeleton;
struct Problem;

// Predictions for every (stage position, layer count, recomputation level) of
// one skeleton, plus the communication terms. The split search only looks up
// these tables, so each distinct stage query reaches the predictor once.
struct SkeletonTables {
    int stages = 0;
    int layers = 0;          // L
    int maxLayers = 0;       // largest layer count any stage can get: L - (P - 1)
    ModelSpec model;         // with the skeleton's sequence length and query groups
    Precision precision = Precision::Bf16;  // the job's (jobPrecision)
    std::vector<double> capacityMiB;          // per stage
    std::vector<std::array<bool, kRecomputeLevels>> allowed;  // levels the mode permits, per stage
    // Indexed [stage][n][level], n = 1..maxLayers (index 0 unused).
    std::vector<std::vector<std::array<StagePrediction, kRecomputeLevels>>> pred;
    std::vector<std::vector<double>> postMs;  // [stage][n]: gradient sync + optimizer step
    std::vector<std::vector<double>> dpMs;    // [stage][n]
    std::vector<double> hopMs;                // [stage]: hop to the next stage (P-1 entries)
    std::vector<double> inflight;             // [stage]
    std::vector<std::vector<int>> devices;    // [stage]
    double sumHopMs = 0;
    double fixedMs = 0;                       // per-iteration constant overhead
    // The predictor's IterationTerms: hopMs, dpMs (and postMs's share of it)
    // and fixedMs come scaled; the bubble's scale goes to the composer.
    double pipelineScale = 1;
    // Derived by the policy: fastest feasible level and its time, per [stage][n];
    // level -1 when nothing fits.
    std::vector<std::vector<int>> policyLevel;
    std::vector<std::vector<double>> minTimeMs;   // fastest feasible over allowed levels
    std::vector<std::vector<double>> minMemMiB;   // smallest memory over allowed feasible levels
    std::vector<int> nMax;                        // largest feasible n per stage (0: none)
    std::vector<std::string> notes;

    bool feasible(int stage, int n, int level) const
    {
        return allowed[stage][level] && pred[stage][n][level].memoryMiB() <= capacityMiB[stage];
    }

    // Builds the tables; returns false (with a reason in `why`) when the
    // skeleton cannot run at all (e.g. no link joins two of its stages).
    // onlyLayers (one count per stage): predict only those rows, for
    // evaluating one given split (PlanEvaluator); the other rows stay empty.
    static bool build(const Problem& problem, const Skeleton& sk, const Topology& topo, PredictionCache& cache,
                      SkeletonTables& out, std::string& why, const std::vector<int>* onlyLayers = nullptr);
};

}  // namespace memx
