#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace memx {

// RAII owner of one XGBoost booster (C API of XGBoost 1.7) that predicts two
// targets at once: time and memory. XGBoost stays out of this header (the
// handle is opaque), so users of memx_core need no XGBoost headers.
//
// Multi-target in 1.7: a two-column label (row-major t0,m0,t1,m1,...) makes
// the booster train with num_target = 2; every boosting round grows one tree
// per target (multi-output trees only arrive in 2.0), so `rounds` rounds give
// 2 x rounds trees. One predict() call returns both outputs for every row.
//
// Every XGBoost failure is reported as std::runtime_error carrying
// XGBGetLastError(). predict() is safe to call from several threads at once
// (XGBoost's in-place prediction is thread-safe and its output buffer is
// thread-local; the model is configured once, when it is built or loaded).
// Do not keep one in a static object: a booster freed after main() returns
// crashes inside XGBoost, whose own statics are destroyed by then.
class XgboostModel {
public:
    struct TrainParams {
        int maxDepth = 6;
        double eta = 0.1;
        double subsample = 0.9;
        int rounds = 200;
        int seed = 0;
    };

    XgboostModel(XgboostModel&& other) noexcept;
    XgboostModel& operator=(XgboostModel&& other) noexcept;
    XgboostModel(const XgboostModel&) = delete;
    XgboostModel& operator=(const XgboostModel&) = delete;
    ~XgboostModel();

    // features: rows x cols, row-major (NaN = missing). labels2: rows x 2,
    // row-major (t0, m0, t1, m1, ...). Objective: squared error on each target.
    static XgboostModel train(const std::vector<float>& features, std::size_t rows, std::size_t cols,
                              const std::vector<float>& labels2, const TrainParams& params);

    // One XGBoosterPredictFromDense call for all rows; out2 receives rows x 2
    // floats, row-major (t, m per row). cols must equal numFeatures().
    void predict(const float* features, std::size_t rows, std::size_t cols, float* out2) const;

    // The booster as XGBoost JSON; loadJson(saveJson()) predicts bit-identically.
    std::string saveJson() const;
    static XgboostModel loadJson(const std::string& json);

    // Average gain per split, by feature name (XGBoosterFeatureScore with
    // importance_type "gain"); features never split on get 0. featureNames must
    // have numFeatures() entries.
    std::map<std::string, double> gainImportance(const std::vector<std::string>& featureNames) const;

    std::size_t numFeatures() const { return numFeatures_; }

    // OpenMP threads used by predict() (0 = XGBoost's default: all). Not stored
    // in the model; 1 is best for calls of a few rows. Not thread-safe: set it
    // before sharing the model between threads.
    void setThreads(int threads);

private:
    explicit XgboostModel(void* booster);
    void configure();  // reads the feature count, warms the booster up

    void* booster_ = nullptr;  // BoosterHandle
    std::size_t numFeatures_ = 0;
};

}  // namespace memx
