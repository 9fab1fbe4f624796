#pragma once

#include "predict/PredictorFile.h"

#include <memory>
#include <string>
#include <vector>

namespace memx {
class Cluster;
}

namespace memx::cli {

// `--model FILE|analytic` (predict, evaluate) and `--predictor` (search):
// "analytic" or empty selects the analytic predictor; anything else is a
// memx-predictor/1 file.
struct LoadedPredictor {
    std::shared_ptr<const Predictor> predictor;  // null: analytic
    const LearnedPredictor* learned = nullptr;  // set when a file was loaded
    PredictorMetadata metadata;
    std::string label;  // "analytic" or "learned (FILE)"
    std::string file;  // the model file; empty: analytic
};

LoadedPredictor loadPredictor(const std::string& nameOrFile);

// For a learned model used on `cluster` (null: the synthetic placement of
// RunScenario): when it was trained on another topology, prints one
// "warning: ..." line to stderr and returns it (without the prefix); else "".
std::string warnTopology(const LoadedPredictor& p, const Cluster* cluster,
                         const std::vector<std::string>& gpuTypes = {});

// The measurement rows' format problems and unknown-column warnings go to stderr.
void printWarnings(const std::vector<std::string>& warnings);

}  // namespace memx::cli
