#pragma once

#include "predict/PredictorFile.h"

#include <memory>
#include <string>

namespace memx::cli {

// `--model FILE|analytic` (predict, evaluate) and `--predictor` (search):
// "analytic" or empty selects the analytic predictor; anything else is a
// memx-predictor/1 file.
struct LoadedPredictor {
    std::shared_ptr<const Predictor> predictor;  // null: analytic
    const LearnedPredictor* learned = nullptr;   // set when a file was loaded
    PredictorMetadata metadata;
    std::string label;                           // "analytic" or "learned (FILE)"
};

LoadedPredictor loadPredictor(const std::string& nameOrFile);

// The measurement rows' format problems and unknown-column warnings go to stderr.
void printWarnings(const std::vector<std::string>& warnings);

}  // namespace memx::cli
