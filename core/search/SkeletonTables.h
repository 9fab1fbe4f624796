#pragma once

#include "model/ModelSpec.h"
#include "model/Precision.h"
#include "model/Recompute.h"
#include "predict/StageQuery.h"
#include "space/Plan.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace memx {

class Cluster;
class PredictionCache;
class Topology;
struct Skeleton;
struct Problem;
struct TrainingSetup;
struct GpuType;

// One stage's tables: predictions for every layer count n and level, the
// gradient sync and optimizer step, and what the recomputation policy makes
// of them. Indexed [n], n = 1..maxLayers (index 0 unused). Stages alike in
// everything the tables read (GPU type, TP, DP, micro-batch, sequence, query
// groups, first or last, in-flight micro-batches, ring rates) share one row
// (StageRowCache), so most skeletons of a search predict nothing anew.
struct StageRow {
    std::vector<std::array<StagePrediction, kRecomputeLevels>> pred;
    std::vector<double> postMs;  // gradient sync + optimizer step
    std::vector<double> dpMs;
    std::array<bool, kRecomputeLevels> allowed{};  // levels the mode permits (selective may collapse)
    // Derived by the policy: fastest feasible level and its time; level -1
    // when nothing fits.
    std::vector<int> policyLevel;
    std::vector<double> minTimeMs;  // fastest feasible over allowed levels
    std::vector<double> minMemMiB;  // smallest memory over allowed feasible levels
    int nMax = 0;  // largest feasible n (0: none)
    std::size_t bytes() const;
};

class StageRowCache;

// Where one stage sits and how it runs, as its stage query needs it.
struct StagePlace {
    const GpuType* gpu = nullptr;
    StageShape shape;
    bool first = false, last = false;  // holds the embedding / the output layer
    double inflight = 1;
    int virtualStages = 1;
    double tpLinkGBps = 0, tpLatencyUs = 0;  // its TP rings' bottleneck (0 when TP = 1)
};

// Predictions for every (stage position, layer count, recomputation level) of
// one skeleton, plus the communication terms. The split search only looks up
// these tables, so each distinct stage query reaches the predictor once.
struct SkeletonTables {
    int stages = 0;
    int layers = 0;  // L
    int maxLayers = 0;  // largest layer count any stage can get: L - (P - 1)
    ModelSpec model;  // with the skeleton's sequence length and query groups
    Precision precision = Precision::Bf16;  // the job's (jobPrecision)
    std::vector<double> capacityMiB;  // per stage
    std::vector<std::shared_ptr<const StageRow>> rows;  // per stage
    std::vector<double> hopMs;  // [stage]: hop to the next stage (P-1 entries)
    std::vector<double> inflight;  // [stage]
    std::vector<std::vector<int>> devices;  // [stage]
    double sumHopMs = 0;
    double fixedMs = 0;  // per-iteration constant overhead
    // The predictor's IterationTerms: hopMs, dpMs (and postMs's share of it)
    // and fixedMs come scaled; the bubble's scale goes to the composer.
    double pipelineScale = 1;
    std::vector<std::string> notes;

    const StageRow& row(int stage) const { return *rows[static_cast<std::size_t>(stage)]; }
    const StageRow& row(std::size_t stage) const { return *rows[stage]; }

    bool feasible(int stage, int n, int level) const
    {
        const StageRow& r = row(stage);
        return r.allowed[static_cast<std::size_t>(level)]
            && r.pred[static_cast<std::size_t>(n)][static_cast<std::size_t>(level)].memoryMiB()
            <= capacityMiB[static_cast<std::size_t>(stage)];
    }

    // Builds the tables; returns false (with a reason in `why`) when the
    // skeleton cannot run at all (e.g. no link joins two of its stages).
    // onlyLayers (one count per stage): predict only those rows, for
    // evaluating one given split (PlanEvaluator); the other rows stay empty.
    // rowCache: rows shared with earlier skeletons (not with onlyLayers).
    // The query of `layers` layers at recomputation `level` of a stage at
    // `place`: the model (at the skeleton's sequence and query groups),
    // the setup's options, the job's precision.
    static StageQuery queryOf(const TrainingSetup& setup, const ModelSpec& model, Precision precision,
                              const StagePlace& place, int layers, int level);

    static bool build(const Problem& problem, const Skeleton& sk, const Topology& topo, PredictionCache& cache,
                      SkeletonTables& out, std::string& why, const std::vector<int>* onlyLayers = nullptr,
                      StageRowCache* rowCache = nullptr);
};

}  // namespace memx
