#pragma once

#include "predict/AnalyticPredictor.h"
#include "predict/PredictorFile.h"
#include "predict/StageQuery.h"
#include "measure/MeasuredRun.h"
#include "measure/RunScenario.h"
#include "predict/TrainedTopology.h"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace memx {

class GpuCatalog;
class RunPlacement;

// One stage of one measured run as the learned predictor trains on it: the
// stage query, the analytic prior for it, and the measured correction
//   time label   = log(measured / analytic) of the micro-batch time,
//   memory label = log(measured / analytic) of the stage's peak memory.
struct TrainingRow {
    StageQuery query;
    StagePrediction analytic;
    double timeLabel = 0;
    double memoryLabel = 0;
    bool hasTime = false;
    bool hasMemory = false;
    int run = 0;  // index into TrainingSet::runs
};

// Turns measurements (run rows, stage rows or both) into training rows, so
// both granularities train the same stage-level model:
// - a stage row with stage_time_ms gives that stage's time label directly
//   (per micro-batch: stage_time_ms / micro-batches per iteration);
// - a run's iteration_time_ms gives every stage without its own time the
//   run's ratio measured / analytic iteration time. (Solving instead for the
//   factor on stage compute alone, with hops, DP and optimizer fixed, blows up
//   when the analytic compute is a small part of the iteration, as in tiny
//   CI models dominated by per-iteration overhead, and transfers badly.)
// - a stage row's peak_mem_mib labels that stage; a run row's peak (max over
//   GPUs) labels the stage the analytic model expects to be the peak.
// Runs that cannot be rebuilt (unknown GPU type, a split the planner cannot
// express, no room on their cluster) are skipped and named in `skipped`,
// never dropped silently. Runs are placed by `placement` (null: the synthetic
// cluster, unless a run names its own), and `topology` records where.
struct TrainingSet {
    std::vector<MeasuredRun> runs;
    std::vector<RunPrediction> analytic;  // one per run
    std::vector<TrainingRow> rows;
    std::vector<std::string> skipped;  // "run X: reason"
    std::string file;
    // The analytic model the labels are relative to: calibrated to the runs
    // (Calibrator) or, when null, the catalog's.
    std::shared_ptr<const AnalyticPredictor> prior;
    TrainedTopology topology;  // where the runs were placed

    // Throws InputError when a run's cluster file cannot be read (RunPlacement).
    static TrainingSet build(const std::vector<Measurement>& measurements, const std::string& file,
                             const GpuCatalog& catalog, RunPlacement* placement = nullptr,
                             std::shared_ptr<const AnalyticPredictor> prior = nullptr);
    // The prior as a value (the catalog's analytic model when none is set).
    AnalyticPredictor priorModel() const { return prior ? *prior : AnalyticPredictor(); }

    // Rows whose run is in `runSubset` (indices into runs; empty: all rows).
    std::vector<std::size_t> rowsOfRuns(const std::vector<int>& runSubset) const;

    // Measured-equivalent targets of the given rows (analytic x exp(label));
    // a missing label is imputed with the mean of the observed labels of
    // that target among these rows (0, i.e. the analytic value, when none is
    // observed), which pulls the booster neither way.
    void targets(const std::vector<std::size_t>& rowSubset, std::vector<StageQuery>& queries,
                 std::vector<double>& timeMs, std::vector<double>& memoryMiB) const;

    // What the set covers (GPU types, model structures, ranges, sizes), for
    // the predictor file; dataHash and sources are the caller's.
    PredictorMetadata metadata() const;

    std::size_t timeLabels() const;
    std::size_t memoryLabels() const;
};

}  // namespace memx
