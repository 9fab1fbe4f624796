#pragma once

#include "accuracy/AccuracyEvaluator.h"
#include "learn/Calibrator.h"
#include "learn/PredictorTrainer.h"

#include <memory>
#include <string>
#include <vector>

namespace memx {

class Cluster;
struct Measurement;

// The accuracy protocol of docs/ACCURACY.md: the profiler picks a minimal set
// among the runs a dataset contains (MinimalSetSelector), the learned
// predictor trains on those (optionally augmented), and both the learned and
// the analytic predictor are scored on all the other runs. When the minimal
// set is the whole dataset (a handful of runs), each run is scored by a model
// trained on all the others (leave one run out) and `leaveOneOut` says so.
// Training first calibrates the analytic model to the training runs
// (Calibrator); the calibrated model is scored on its own and is the prior
// the trees correct.
struct ProtocolResult {
    std::size_t runs = 0;  // complete runs in the dataset
    std::vector<std::string> trainRuns;
    std::size_t interpolatedRows = 0;
    TrainReport training;
    AccuracyReport analytic;  // on the held-out runs, catalog values
    AccuracyReport calibrated;  // the analytic model fitted to the training runs (Calibrator)
    AccuracyReport learned;  // on the same runs (trees on top of the calibrated model)
    Calibrator::Result calibration;  // of the training runs (leave one out: of the last fold)
    std::vector<std::string> skipped;  // runs that could not be completed
    // The minimal set was the whole dataset: every run was scored by a model
    // trained on all the other runs instead (leave one run out).
    bool leaveOneOut = false;
    // Non-empty: Options::timeLimitS cut the protocol short, and how (the
    // hyper-parameter search stopped early, runs left unscored).
    std::string incomplete;
};

class AccuracyProtocol {
public:
    struct Options {
        PredictorTrainer::Options trainer;
        bool augment = false;
        bool calibrate = true;  // fit each GPU type's parameters before the trees learn
        // Where runs without a `cluster` of their own are placed, for
        // training and scoring alike (null: the synthetic cluster).
        std::shared_ptr<const Cluster> cluster;
        // Seconds the whole protocol may take (0: no limit): each training's
        // hyper-parameter search gets what is left, and leave-one-out scores
        // no more runs once it is spent. Calibration is not cut short.
        double timeLimitS = 0;
    };

    // Throws InputError when fewer than two runs are usable.
    static ProtocolResult run(const std::vector<Measurement>& rows, const std::string& file, const Options& options);
};

}  // namespace memx
