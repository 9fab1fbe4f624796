#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace memx {

class JsonReader;

// The run-level correction of the learned model (issue #12, item 3): learned
// coefficients of the iteration terms that no stage prediction sees. The
// composition (IterationComposer, SkeletonTables) multiplies
//   the pipeline terms (the fill/drain bubble and the PP hops) by pipeline,
//   the data-parallel gradient synchronisation by dataParallel,
//   the per-iteration overhead (framework, optimizer step) by fixed,
// so search, predict, evaluate and accuracy apply it alike. All 1: no
// correction (the analytic and calibrated models, and files without one).
// Fitted by IterationTermFit to the training runs' measured iteration times
// after the stage model, and kept only where it lowers the leave-one-run-out
// error; the fit's record travels in the model file.
struct IterationTerms {
    double pipeline = 1;
    double dataParallel = 1;
    double fixed = 1;

    // How it was fitted (model file and reports; not used to predict).
    std::vector<std::string> fitted;  // "pipeline", "data_parallel", "fixed": the scales moved from 1
    int runs = 0;  // training runs with a measured iteration time
    double mapeBefore = 0;  // their leave-one-run-out iteration time MAPE %, scales 1
    double mapeAfter = 0;  // ... with the scales fitted on the other runs
    std::string note;  // why nothing (or not everything) was fitted

    bool identity() const { return pipeline == 1 && dataParallel == 1 && fixed == 1; }

    // Nothing fitted writes only the record.
    nlohmann::json toJson() const;
    // Throws InputError naming the file and field when a scale is out of
    // range (ranges::termScale) or not a number.
    static IterationTerms fromJson(const JsonReader& json);
};

}  // namespace memx
