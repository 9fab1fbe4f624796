#include "predict/LearnedPredictor.h"

#include "predict/StageFeatures.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace memx {

LearnedPredictor::LearnedPredictor(XgboostModel model, std::vector<float> featureMin, std::vector<float> featureMax,
                                   AnalyticPredictor analytic, Params params)
    : model_(std::move(model)), min_(std::move(featureMin)), max_(std::move(featureMax)),
      analytic_(std::move(analytic)), params_(params)
{
    const std::size_t n = StageFeatures::count();
    if (model_.numFeatures() != n)
        throw std::invalid_argument("LearnedPredictor: model has " + std::to_string(model_.numFeatures()) +
                                    " features, schema " + StageFeatures::kSchema + " has " + std::to_string(n));
    if (min_.size() != n || max_.size() != n)
        throw std::invalid_argument("LearnedPredictor: feature ranges must have " + std::to_string(n) + " entries");
}

void LearnedPredictor::featureRanges(const std::vector<float>& features, std::size_t rows, std::vector<float>& min,
                                     std::vector<float>& max)
{
    const std::size_t n = StageFeatures::count();
    if (features.size() != rows * n) throw std::invalid_argument("LearnedPredictor::featureRanges: bad matrix size");
    min.assign(n, std::numeric_limits<float>::quiet_NaN());
    max.assign(n, std::numeric_limits<float>::quiet_NaN());
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t j = 0; j < n; ++j) {
            const float v = features[r * n + j];
            if (std::isnan(v)) continue;
            if (std::isnan(min[j]) || v < min[j]) min[j] = v;
            if (std::isnan(max[j]) || v > max[j]) max[j] = v;
        }
}

LearnedPredictor LearnedPredictor::fit(std::span<const StageQuery> queries, std::span<const double> measuredTimeMs,
                                       std::span<const double> measuredMemoryMiB,
                                       const XgboostModel::TrainParams& trainParams, AnalyticPredictor analytic,
                                       Params params)
{
    const std::size_t rows = queries.size();
    if (rows == 0) throw std::invalid_argument("LearnedPredictor::fit: no measurements");
    if (measuredTimeMs.size() != rows || measuredMemoryMiB.size() != rows)
        throw std::invalid_argument("LearnedPredictor::fit: " + std::to_string(rows) + " queries but " +
                                    std::to_string(measuredTimeMs.size()) + " times and " +
                                    std::to_string(measuredMemoryMiB.size()) + " memories");
    const std::size_t n = StageFeatures::count();
    std::vector<StagePrediction> prior(rows);
    analytic.predict(queries, prior);
    std::vector<float> features(rows * n);
    std::vector<float> labels(2 * rows);
    for (std::size_t r = 0; r < rows; ++r) {
        const double t = measuredTimeMs[r], m = measuredMemoryMiB[r];
        const double at = prior[r].timeMs, am = prior[r].memoryMiB();
        if (!(t > 0) || !(m > 0) || !std::isfinite(t) || !std::isfinite(m))
            throw std::invalid_argument("LearnedPredictor::fit: measurement " + std::to_string(r) +
                                        " is not a positive time and memory");
        if (!(at > 0) || !(am > 0))
            throw std::invalid_argument("LearnedPredictor::fit: the analytic model has no positive estimate for query " +
                                        std::to_string(r));
        StageFeatures::encode(queries[r], prior[r], &features[r * n]);
        labels[2 * r] = static_cast<float>(std::log(t / at));
        labels[2 * r + 1] = static_cast<float>(std::log(m / am));
    }
    double meanT = 0, meanM = 0;
    for (std::size_t r = 0; r < rows; ++r) {
        meanT += labels[2 * r];
        meanM += labels[2 * r + 1];
    }
    params.timeOffset = meanT / static_cast<double>(rows);
    params.memoryOffset = meanM / static_cast<double>(rows);
    for (std::size_t r = 0; r < rows; ++r) {
        labels[2 * r] = static_cast<float>(labels[2 * r] - params.timeOffset);
        labels[2 * r + 1] = static_cast<float>(labels[2 * r + 1] - params.memoryOffset);
    }
    std::vector<float> lo, hi;
    featureRanges(features, rows, lo, hi);
    XgboostModel model = XgboostModel::train(features, rows, n, labels, trainParams);
    return LearnedPredictor(std::move(model), std::move(lo), std::move(hi), std::move(analytic), params);
}

double LearnedPredictor::rangeExcess(const float* row) const
{
    double e = 0;
    for (std::size_t j = 0; j < min_.size(); ++j) {
        const double v = row[j];
        if (std::isnan(v)) {
            e = std::max(e, 1.0);  // unknown value (e.g. GPU type absent)
            continue;
        }
        if (std::isnan(min_[j])) continue;  // never seen in training: nothing to compare with
        const double lo = min_[j], hi = max_[j];
        const double dist = v < lo ? lo - v : (v > hi ? v - hi : 0.0);
        if (dist == 0) continue;
        double scale = hi - lo;
        if (scale <= 0) scale = std::abs(hi);
        if (scale <= 0) scale = 1.0;
        e = std::max(e, dist / scale);
    }
    return e;
}

double LearnedPredictor::rangeExcess(const StageQuery& q) const
{
    std::vector<float> row(StageFeatures::count());
    StageFeatures::encode(q, analytic_.predictOne(q), row.data());
    return rangeExcess(row.data());
}

void LearnedPredictor::predict(std::span<const StageQuery> queries, std::span<StagePrediction> out) const
{
    if (out.size() < queries.size()) throw std::invalid_argument("LearnedPredictor::predict: output span too small");
    const std::size_t rows = queries.size();
    if (rows == 0) return;
    const std::size_t n = StageFeatures::count();
    std::vector<StagePrediction> prior(rows);
    analytic_.predict(queries, prior);
    std::vector<float> features(rows * n);
    for (std::size_t r = 0; r < rows; ++r) StageFeatures::encode(queries[r], prior[r], &features[r * n]);
    std::vector<float> ratio(2 * rows);
    model_.predict(features.data(), rows, n, ratio.data());
    for (std::size_t r = 0; r < rows; ++r) {
        const double ft = std::exp(static_cast<double>(ratio[2 * r]) + params_.timeOffset);
        const double fm = std::exp(static_cast<double>(ratio[2 * r + 1]) + params_.memoryOffset);
        StagePrediction p = prior[r];
        p.timeMs *= ft;
        p.memory.weightsMiB *= fm;
        p.memory.gradientsMiB *= fm;
        p.memory.optimizerMiB *= fm;
        p.memory.activationsMiB *= fm;
        p.memory.reserveMiB *= fm;
        p.provenance = Provenance::Learned;
        const double e = std::min(1.0, rangeExcess(&features[r * n]));
        p.uncertainty = params_.inRangeUncertainty + (params_.outOfRangeUncertainty - params_.inRangeUncertainty) * e;
        out[r] = p;
    }
}

}  // namespace memx
