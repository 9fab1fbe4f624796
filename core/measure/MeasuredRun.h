#pragma once

#include "model/ModelSpec.h"
#include "model/Recompute.h"
#include "measure/Measurement.h"

#include <optional>
#include <string>
#include <vector>

namespace memx {

// One pipeline stage of a measured (or queried) run, completed from the
// run's rows: a stage without a stage row takes the run row's GPU type and
// recomputation and an even share of the layers not held by given stages.
struct MeasuredStage {
    int stage = 0;
    std::string gpuType;
    int tp = 1;
    int layers = 0;
    Recompute recompute = Recompute::None;
    std::optional<double> stageTimeMs;  // measured, per iteration
    std::optional<double> peakMemMiB;  // measured, one GPU of the stage
    int row = -1;  // index of its stage row in the input, -1 if none
};

// The rows of one run_id put together: the configuration of the run, one
// entry per pipeline stage, and the run-level targets.
struct MeasuredRun {
    std::string runId;
    Measurement config;  // run-level fields (the run row's, else the first stage row's)
    std::vector<MeasuredStage> stages;  // exactly pp entries, in pipeline order
    std::optional<double> iterationTimeMs;
    std::optional<double> runPeakMemMiB;  // max over the run's GPUs (run row)
    int runRow = -1;  // index of the run row in the input, -1 if none

    int microBatchCount() const { return config.gbs / (config.mbs * config.dp); }
    bool heterogeneous() const;  // stages of more than one GPU type
    // The GPU types of its stages, sorted, each once.
    std::vector<std::string> gpuTypes() const;
    // The configuration without its targets (GPU type, parallelism, batch,
    // model, precision, and each stage's layers and recomputation): runs
    // with equal keys are repeats of one configuration.
    std::string configurationKey() const;
    // Empty rows (no targets, no annotations) to fill with new numbers for
    // this run: the run row, and the row of pipeline stage i.
    Measurement emptyRunRow(MeasurementSource source) const;
    Measurement emptyStageRow(std::size_t i, MeasurementSource source) const;

    // The model of the run: dimensions from the rows, name "<hidden>h<layers>L".
    ModelSpec model() const;

    // Groups rows by run_id, in order of first appearance. A stage without a
    // row takes the run row's GPU type, TP and recomputation, or, without a
    // run row, those of the run's stage rows when they all agree (a
    // homogeneous run measured on one stage). A run cannot be completed when
    // neither exists, when the layers left do not split evenly over the
    // stages without a row, or when stages differ in TP (the planner's plans
    // use one TP for all stages): then `group` throws InputError naming `file`
    // and the run, or, when `skipped` is given, leaves the run out and
    // appends "run X: reason" to it.
    static std::vector<MeasuredRun> group(const std::vector<Measurement>& rows, const std::string& file,
                                          std::vector<std::string>* skipped = nullptr);
};

}  // namespace memx
