#pragma once

#include "model/MlpKind.h"
#include "predict/LearnedPredictor.h"
#include "predict/TrainedTopology.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace memx {

struct Problem;

// What a learned predictor was trained on, stored next to the booster so
// that a search can refuse a model that does not fit the cluster or model at
// hand (MemX's cache-invalidation conditions: GPU type set, model structure,
// batch size).
struct PredictorMetadata {
    struct ModelShape {
        int hidden = 0;
        int heads = 0;
        int ffnHidden = 0;
        int vocab = 0;
        MlpKind mlp = MlpKind::SwiGlu;
        bool operator==(const ModelShape&) const = default;
        std::string toString() const;  // "hidden 4096, heads 32, ffn 11008 swiglu, vocab 32000"
    };

    std::string toolVersion;
    std::vector<std::string> gpuTypes;      // sorted, distinct
    std::vector<ModelShape> models;         // distinct model structures seen
    std::vector<int> microBatches;          // sorted, distinct
    std::vector<int> seqLens;
    std::vector<int> globalBatches;
    std::vector<int> tensorParallel;
    int minStageLayers = 0, maxStageLayers = 0;
    std::string dataHash;                   // FNV-1a 64 of the canonical measurement text, hex
    std::vector<std::string> sources;       // measurement files
    std::size_t runs = 0, rows = 0, timeLabels = 0, memoryLabels = 0;
    std::size_t interpolatedRows = 0;       // measurement rows that came from augmentation
    TrainedTopology topology;               // where the training runs were placed
    nlohmann::json training;                // hyper-parameters, cross-validation, trials, importance

    static std::string hashText(const std::string& text);
};

// memx-predictor/1: a JSON document with the XGBoost booster (its own JSON,
// embedded), the feature schema and ranges, the uncertainty parameters and
// the metadata above. Saved atomically.
class PredictorFile {
public:
    static constexpr const char* kFormat = "memx-predictor/1";

    struct Loaded {
        std::shared_ptr<const LearnedPredictor> predictor;
        PredictorMetadata metadata;
    };

    static nlohmann::json toJson(const LearnedPredictor& predictor, const PredictorMetadata& metadata);
    static void save(const std::string& file, const LearnedPredictor& predictor, const PredictorMetadata& metadata);
    // Throws InputError naming the file and field: not JSON, another format,
    // a feature schema other than this build's, a corrupt booster.
    static Loaded load(const std::string& file);
    static Loaded fromJson(const nlohmann::json& doc, const std::string& file);

    // Refusals (`problems`, non-empty: do not use it) and extrapolation
    // warnings for using the predictor on this cluster, model and setup:
    // a GPU type of the cluster without training data, or a model structure
    // (hidden, heads, ffn, vocab) it never saw, is a problem; micro-batch
    // sizes, sequence lengths or a global batch outside what it saw are
    // warnings (the prediction extrapolates and says so in its uncertainty).
    static void checkFits(const PredictorMetadata& metadata, const Problem& problem,
                          std::vector<std::string>& problems, std::vector<std::string>& warnings);
};

}  // namespace memx
