#pragma once

#include "accuracy/AccuracyMetrics.h"
#include "accuracy/DecisionReport.h"
#include "accuracy/RepeatFloor.h"
#include "measure/Measurement.h"

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace memx {

class RunPlacement;

class GpuCatalog;
class LearnedPredictor;
class Predictor;

// One measured run next to what a predictor says about it. Times per
// iteration in ms, memory per GPU in MiB; NaN where nothing was measured.
struct RunScore {
    std::string runId;
    std::string group;  // runs that compete for one cluster and model
    std::string configuration;  // MeasuredRun::configurationKey: equal for repeats of one configuration
    std::string gpuTypes;  // the run's GPU types, sorted, joined by "+" ("A100-80GB+H100-SXM")
    double measuredIterationMs = 0;
    double predictedIterationMs = 0;
    std::vector<double> measuredStageMs, predictedStageMs;  // per iteration, stages with a measured time
    std::vector<double> measuredMemMiB, predictedMemMiB;  // stage peaks, or the run peak
    // What the ranking compares: the iteration time, or (for stage-level data
    // without it) the sum of the measured stages' times. NaN: not ranked.
    double measuredRankMs = 0, predictedRankMs = 0;
    bool allStagesMeasured = false;  // every stage's peak memory was measured (Phi can be scored)
    double measuredPhi = 0, predictedPhi = 0;  // default weights, group references; NaN if not scored
    bool inRange = true;  // every stage inside the learned model's training range
    double uncertainty = 0;
    int microBatch = 0, pp = 0, seqLen = 0;  // the run's, for the errors by subset
};

// The paper's accuracy metrics (Tables 6-8) of one predictor on measured
// runs: errors of iteration time, stage time and memory, overall and split
// inside / outside the learned model's training range, and ranking quality
// (Spearman, Kendall, Top-k hits under time and under Phi with the default
// weights) within each group of competing runs (same model, global batch,
// sequence length and GPUs), averaged over groups weighted by their size;
// and what acting on the ranking costs (DecisionReport: top-1/top-3 hit of
// the truly fastest run and regret of the predicted-fastest one, over the
// groups of >= 2 runs).
struct AccuracyReport {
    using Summary = AccuracyMetrics::ErrorSummary;
    std::string predictor;
    std::size_t runs = 0;
    Summary iterationTime, stageTime, memory;
    Summary iterationTimeInRange, iterationTimeOutOfRange, stageTimeInRange, stageTimeOutOfRange, memoryInRange,
        memoryOutOfRange;
    std::size_t rankedGroups = 0;  // groups of >= 3 runs with measured (iteration or stage) times
    double spearman = 0, kendall = 0;
    std::map<int, double> topKTime;  // k -> share of ranked groups whose best run is in the predicted top k
    std::size_t phiGroups = 0;  // groups of >= 3 runs with every stage's memory measured
    double spearmanPhi = 0, kendallPhi = 0;  // under Phi (default weights), as spearman/kendall; NaN: no group
    std::map<int, double> topKPhi;
    DecisionReport decisions;  // every group with measured (iteration or stage) times
    // The error no per-configuration prediction can go below on these runs,
    // because repeats of one configuration differ (RepeatFloor).
    RepeatFloor iterationTimeFloor, memoryFloor;
    // The errors of the runs of each GPU type (RunScore::gpuTypes): which
    // type the model is worst on.
    struct TypeErrors {
        Summary iterationTime, stageTime, memory;
    };
    std::map<std::string, TypeErrors> byGpuType;
    // The errors split the way the paper's tables break them down: by
    // "micro_batch", "pp" and "seq_len", each value's runs.
    std::map<std::string, std::map<int, TypeErrors>> bySubset;
    std::vector<RunScore> scores;
    std::vector<std::string> skipped;

    nlohmann::json toJson() const;
    // Table in the shape of the paper's Tables 6-8.
    std::string formatText() const;
};

class AccuracyEvaluator {
public:
    // `rangeOf`: whose training range splits in / out of range (usually the
    // learned predictor itself; null: everything counts as in range).
    // `placement`: where the runs go (null: synthetic unless a run names its
    // cluster; see RunPlacement).
    static AccuracyReport evaluate(const std::vector<Measurement>& truth, const std::string& file,
                                   const GpuCatalog& catalog, std::shared_ptr<const Predictor> predictor,
                                   const LearnedPredictor* rangeOf, RunPlacement* placement = nullptr);

    // Fills the summaries and rankings of a report from its `scores` (used by
    // evaluate(), and to merge scores of several models, e.g. leave-one-out).
    static AccuracyReport summarise(AccuracyReport report);
};

}  // namespace memx
