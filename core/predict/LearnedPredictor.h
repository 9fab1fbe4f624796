#pragma once

#include "predict/AnalyticPredictor.h"
#include "predict/Predictor.h"
#include "predict/XgboostModel.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace memx {

// The learned dual-output predictor (MemX section 3.2.2), built on the
// analytic model as a prior.
//
// What it learns: not time and memory themselves but their ratio to the
// analytic model, in logs:
//   target_t = log(measured_time / analytic_time)
//   target_m = log(measured_memory / analytic_memory)
// with the analytic estimates also among the features (StageFeatures). The
// answer is analytic x exp(prediction). Trees are piecewise constant and
// cannot extrapolate; outside the measured range they return the correction
// learnt at the edge of that range, so the prediction keeps the analytic
// model's shape (its scaling in layers, micro-batch, sequence length, ...)
// times the nearest learnt correction instead of flattening out.
//
// Memory: every term of the analytic breakdown is scaled by the same ratio,
// so the breakdown still sums to the prediction.
//
// The correction is a property of the stage's kernels and its place in the
// pipeline, not of how far the optimizer state is sharded: the features are
// those of the query with dp = 1 (canonical()), and the ratio multiplies the
// analytic prediction of the real query, whose DP terms stay analytic (the
// run-level correction, IterationTerms, scales the iteration's DP term). So the
// booster is evaluated once per canonical query; answers are kept (memo), and
// a search over more nodes, which mostly adds DP combinations, costs few new
// booster rows (MemX 4.3; tests/bench/bench_cache). The in-flight count
// stays a feature: real runs' per-iteration overheads follow pipeline depth,
// and dropping it cost 10 points of time MAPE on the Megatron-LM CI runs.
//
// Uncertainty (relative, StagePrediction::uncertainty): inRangeUncertainty when
// every feature lies within the [min, max] seen in training; otherwise it grows
// linearly with the largest relative excursion outside that range
//   e = max_j dist(x_j, [min_j, max_j]) / scale_j,
//   scale_j = max_j - min_j, or |max_j| when that is 0, or 1 when both are 0
// up to outOfRangeUncertainty at e >= 1 (one full range width outside); an
// unknown GPU type (gpu_type_index NaN) counts as e = 1. Provenance is always
// Learned; the uncertainty says how far it extrapolates.
//
// Thread-safe: predict() only reads.
struct LearnedPredictorParams {
    double inRangeUncertainty = 0.10;  // relative, every feature inside the training range
    double outOfRangeUncertainty = 0.30;  // relative, one range width (or more) outside it
    // Mean training label of each target (log ratio of time, of memory). The
    // booster learns the labels minus these and predict() adds them back, so
    // that with few rows and rounds its shrinkage pulls towards the average
    // correction of the measurements instead of towards XGBoost's fixed base
    // score. Set by fit().
    double timeOffset = 0;
    double memoryOffset = 0;
    // Whether the trees' correction is applied, per target. The trainer
    // turns one off when, cross-validated, the trees predict the held-out
    // runs worse than the (calibrated) analytic model alone.
    bool timeCorrection = true;
    bool memoryCorrection = true;
    // The run-level correction (identity until the trainer fits one).
    IterationTerms iteration;
};

class LearnedPredictor final : public Predictor {
public:
    using Params = LearnedPredictorParams;

    // featureMin/featureMax: per StageFeatures column, the range seen in training
    // (see featureRanges()).
    LearnedPredictor(XgboostModel model, std::vector<float> featureMin, std::vector<float> featureMax,
                     AnalyticPredictor analytic = AnalyticPredictor(), Params params = Params());

    // Trains on measured stages: time (ms) and peak memory (MiB) per query,
    // both positive. Throws std::invalid_argument on mismatched sizes or bad
    // values.
    static LearnedPredictor fit(std::span<const StageQuery> queries, std::span<const double> measuredTimeMs,
                                std::span<const double> measuredMemoryMiB,
                                const XgboostModel::TrainParams& trainParams = XgboostModel::TrainParams(),
                                AnalyticPredictor analytic = AnalyticPredictor(), Params params = Params());

    // Column-wise min and max of a rows x StageFeatures::count() matrix (NaN ignored).
    static void featureRanges(const std::vector<float>& features, std::size_t rows, std::vector<float>& min,
                              std::vector<float>& max);

    std::string name() const override { return "learned"; }
    // One feature matrix and one XGBoost call for all queries.
    void predict(std::span<const StageQuery> queries, std::span<StagePrediction> out) const override;
    double iterationOverheadMs(const GpuType& gpu) const override { return analytic_.iterationOverheadMs(gpu); }
    void optimizerStepMs(const GpuType& gpu, Precision p, std::span<const double> ownedParams,
                         std::span<double> out) const override
    {
        analytic_.optimizerStepMs(gpu, p, ownedParams, out);
    }
    const IterationTerms& iterationTerms() const override { return params_.iteration; }
    // Sets the run-level correction (the trainer, after the stage model).
    // Not thread-safe: before the predictor is shared.
    void setIterationTerms(IterationTerms terms) { params_.iteration = std::move(terms); }

    const XgboostModel& model() const { return model_; }
    const AnalyticPredictor& analytic() const { return analytic_; }
    const std::vector<float>& featureMin() const { return min_; }
    const std::vector<float>& featureMax() const { return max_; }
    const Params& params() const { return params_; }

    // `q` with dp = 1: what the booster sees.
    static StageQuery canonical(const StageQuery& q);
    // Booster rows evaluated so far (distinct canonical queries), for statistics.
    std::uint64_t boosterRows() const { return boosterRows_.load(); }

    // Relative excursion e of one feature row outside the training range (0 inside).
    double rangeExcess(const float* row) const;
    // The same for a query (encodes its features with the analytic prior).
    double rangeExcess(const StageQuery& q) const;

    LearnedPredictor(LearnedPredictor&& other) noexcept;
    ~LearnedPredictor() override;

private:
    struct Memo;
    XgboostModel model_;
    std::vector<float> min_, max_;
    AnalyticPredictor analytic_;
    Params params_;
    std::unique_ptr<Memo> memo_;
    mutable std::atomic<std::uint64_t> boosterRows_{0};
};

}  // namespace memx
