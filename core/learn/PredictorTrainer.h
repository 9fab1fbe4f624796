#pragma once

#include "predict/LearnedPredictor.h"
#include "predict/XgboostModel.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace memx {

struct TrainingSet;
class RunPlacement;

// Cross-validated accuracy of one hyper-parameter choice, at the level the
// booster learns: stages of held-out runs, relative error of the predicted
// stage time and memory against the measured ones.
struct CrossValidation {
    int folds = 0;
    double timeMape = 0;  // percent; NaN when no held-out time label
    double memoryMape = 0;  // percent; NaN when no held-out memory label
    double objective = 0;  // mean of the two that exist
    // The same held-out rows predicted by the analytic prior alone (the
    // calibrated model when the set has one): what the trees must beat.
    double priorTimeMape = 0;
    double priorMemoryMape = 0;
};

struct TrainReport {
    XgboostModel::TrainParams params;  // chosen
    CrossValidation cv;  // of the chosen parameters
    struct Trial {
        XgboostModel::TrainParams params;
        double objective = 0;
    };
    std::vector<Trial> trials;  // every Bayesian-optimisation evaluation, in order
    std::map<std::string, double> importance;  // gain per feature of the final model
    LearnedPredictorParams uncertainty;  // calibrated from the cross-validation
    bool stoppedByTimeLimit = false;  // the hyper-parameter search was cut short
    IterationTerms iterationTerms;  // the run-level correction's fit (also in the model)

    // The "training" object of a predictor file: params, cross_validation,
    // trials, importance_gain (docs/FILE_FORMATS.md).
    nlohmann::json toJson() const;
};

// Trains the learned predictor as MemX section 3.2.2 does: hyper-parameters
// (depth, learning rate, subsample, rounds) by Bayesian optimisation with a
// Gaussian process over cross-validated MAPE, then one fit on everything.
// Folds split by run, so no run is on both sides. The in-range uncertainty
// of the result is the cross-validated error (max of time and memory MAPE,
// clamped to 2-50%); out of range it grows to three times that. A target whose
// cross-validated error with the trees is above that of the prior alone is
// left uncorrected (LearnedPredictorParams::timeCorrection / memoryCorrection)
// and the report says so: a few runs teach trees noise as easily as signal.
// Last, the run-level correction (IterationTermFit) is fitted to the runs'
// measured iteration times as the stage model composes them.
class PredictorTrainer {
public:
    struct Options {
        int folds = 5;  // fewer when there are fewer measured runs; none below 2, no tuning below 3
        int initialPoints = 6;  // Latin hypercube design of the optimiser
        int iterations = 14;  // expected-improvement steps after it
        bool tune = true;  // false: use `params` as given
        XgboostModel::TrainParams params;  // start (and fixed, when tune is false)
        std::uint64_t seed = 0;
        // Seconds the hyper-parameter search may take (0: no limit); when it
        // runs out, the best parameters so far train the model and the
        // report says the search was cut short.
        double timeLimitS = 0;
        // Fit the run-level correction (IterationTermFit) to the runs with a
        // measured iteration time, placed by `placement` (null: as the runs
        // say, else on the synthetic cluster: what TrainingSet::build used).
        bool runLevel = true;
        RunPlacement* placement = nullptr;
    };

    // Throws std::invalid_argument when the set has no row.
    static LearnedPredictor train(const TrainingSet& set, const Options& options, TrainReport& report);

    // The folds train on up to `threads` threads (0: every usable core);
    // the figures are the same for any count (summed in fold order).
    static CrossValidation crossValidate(const TrainingSet& set, const XgboostModel::TrainParams& params, int folds,
                                         std::uint64_t seed, int threads = 0);

    // Runs a fold can score: the measured and simulated ones, not the
    // interpolated (train --augment) ones.
    static std::size_t scoredRuns(const TrainingSet& set);
    // Each run's fold: the scored runs shuffled by `seed` and dealt round
    // the folds, so the folds differ by at most one scored run; interpolated
    // runs are in no fold (-1). Throws std::invalid_argument for folds < 1.
    static std::vector<int> assignFolds(const TrainingSet& set, int folds, std::uint64_t seed);
    // The rows of one cross-validation fold, given each run's fold: the test
    // rows are the fold's measured (and simulated) runs; interpolated runs are
    // never scored, and the training rows leave out every interpolated run
    // made from a run of the fold (Measurement::derivedFrom), or the fold
    // would be judged on its own values drawn on a straight line. An
    // interpolated run that names no origin (read from a file, not made by
    // this train) trains in no fold: it might have come from any.
    struct FoldRows {
        std::vector<std::size_t> train, test;
    };
    static FoldRows foldRows(const TrainingSet& set, const std::vector<int>& foldOf, int fold);
};

}  // namespace memx
