#include "predict/LearnedPredictor.h"

#include "hardware/GpuType.h"
#include "predict/StageFeatures.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <unordered_map>
#include <stdexcept>
#include <string>
#include <utility>

namespace memx {

// Booster answers per canonical query (GPU type by name), shared by threads.
struct LearnedPredictor::Memo {
    struct Entry {
        std::string gpu;
        StageQuery query;  // canonical, gpu pointer cleared
        float ratio[2];
        double excess;
    };
    std::mutex mutex;
    std::unordered_multimap<std::uint64_t, Entry> entries;

    const Entry* find(std::uint64_t k, const StageQuery& portable, const std::string& gpu) const
    {
        auto range = entries.equal_range(k);
        for (auto it = range.first; it != range.second; ++it)
            if (it->second.gpu == gpu && it->second.query == portable)
                return &it->second;
        return nullptr;
    }

    // Which queries the memo answers, and the distinct canonical queries it
    // does not (each query's index among them in missOf).
    struct Lookup {
        std::vector<const Entry*> answer;
        std::vector<std::size_t> missOf;
        std::vector<Entry> missing;
        std::vector<std::uint64_t> missingKey;
    };
    Lookup lookUp(std::span<const StageQuery> queries)
    {
        const std::size_t rows = queries.size();
        Lookup out;
        out.answer.assign(rows, nullptr);
        out.missOf.assign(rows, SIZE_MAX);
        std::lock_guard lock(mutex);
        for (std::size_t r = 0; r < rows; ++r) {
            StageQuery portable;
            const StageQuery c = LearnedPredictor::canonical(queries[r]);
            const std::uint64_t k = c.portableSignature(portable);
            const std::string gpu = c.gpu ? c.gpu->name : std::string();
            if ((out.answer[r] = find(k, portable, gpu)))
                continue;
            for (std::size_t m = 0; m < out.missing.size() && out.missOf[r] == SIZE_MAX; ++m)
                if (out.missingKey[m] == k && out.missing[m].gpu == gpu && out.missing[m].query == portable)
                    out.missOf[r] = m;
            if (out.missOf[r] != SIZE_MAX)
                continue;
            out.missOf[r] = out.missing.size();
            out.missing.push_back({gpu, portable, {0, 0}, 0});
            out.missingKey.push_back(k);
        }
        return out;
    }
};

namespace {

// The analytic prediction corrected by a memo entry's ratios, with the
// uncertainty its distance from the training range gives.
StagePrediction corrected(StagePrediction p, const float (&ratio)[2], double excess,
                          const LearnedPredictorParams& params)
{
    const double ft = params.timeCorrection ? std::exp(static_cast<double>(ratio[0]) + params.timeOffset) : 1.0;
    const double fm = params.memoryCorrection ? std::exp(static_cast<double>(ratio[1]) + params.memoryOffset) : 1.0;
    p.timeMs *= ft;
    p.memory.weightsMiB *= fm;
    p.memory.gradientsMiB *= fm;
    p.memory.optimizerMiB *= fm;
    p.memory.activationsMiB *= fm;
    p.memory.frameworkMiB *= fm;
    p.memory.allocatorMiB *= fm;
    p.memory.reserveMiB *= fm;
    p.provenance = Provenance::Learned;
    p.uncertainty = params.inRangeUncertainty + (params.outOfRangeUncertainty - params.inRangeUncertainty) * excess;
    return p;
}

}  // namespace

StageQuery LearnedPredictor::canonical(const StageQuery& q)
{
    StageQuery c = q;
    c.dp = 1;
    return c;
}

LearnedPredictor::LearnedPredictor(LearnedPredictor&& other) noexcept
    : model_(std::move(other.model_))
    , min_(std::move(other.min_))
    , max_(std::move(other.max_))
    , analytic_(std::move(other.analytic_))
    , params_(other.params_)
    , memo_(std::move(other.memo_))
    , boosterRows_(other.boosterRows_.load())
{
}

LearnedPredictor::~LearnedPredictor() = default;

LearnedPredictor::LearnedPredictor(XgboostModel model, std::vector<float> featureMin, std::vector<float> featureMax,
                                   AnalyticPredictor analytic, Params params)
    : model_(std::move(model))
    , min_(std::move(featureMin))
    , max_(std::move(featureMax))
    , analytic_(std::move(analytic))
    , params_(params)
    , memo_(std::make_unique<Memo>())
{
    const std::size_t n = StageFeatures::count();
    if (model_.numFeatures() != n)
        throw std::invalid_argument("LearnedPredictor: model has " + std::to_string(model_.numFeatures())
                                    + " features, schema " + StageFeatures::kSchema + " has " + std::to_string(n));
    if (min_.size() != n || max_.size() != n)
        throw std::invalid_argument("LearnedPredictor: feature ranges must have " + std::to_string(n) + " entries");
}

void LearnedPredictor::featureRanges(const std::vector<float>& features, std::size_t rows, std::vector<float>& min,
                                     std::vector<float>& max)
{
    const std::size_t n = StageFeatures::count();
    if (features.size() != rows * n)
        throw std::invalid_argument("LearnedPredictor::featureRanges: bad matrix size");
    min.assign(n, std::numeric_limits<float>::quiet_NaN());
    max.assign(n, std::numeric_limits<float>::quiet_NaN());
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t j = 0; j < n; ++j) {
            const float v = features[r * n + j];
            if (std::isnan(v))
                continue;
            if (std::isnan(min[j]) || v < min[j])
                min[j] = v;
            if (std::isnan(max[j]) || v > max[j])
                max[j] = v;
        }
}

LearnedPredictor LearnedPredictor::fit(std::span<const StageQuery> queries, std::span<const double> measuredTimeMs,
                                       std::span<const double> measuredMemoryMiB,
                                       const XgboostModel::TrainParams& trainParams, AnalyticPredictor analytic,
                                       Params params)
{
    const std::size_t rows = queries.size();
    if (rows == 0)
        throw std::invalid_argument("LearnedPredictor::fit: no measurements");
    if (measuredTimeMs.size() != rows || measuredMemoryMiB.size() != rows)
        throw std::invalid_argument("LearnedPredictor::fit: " + std::to_string(rows) + " queries but "
                                    + std::to_string(measuredTimeMs.size()) + " times and "
                                    + std::to_string(measuredMemoryMiB.size()) + " memories");
    const std::size_t n = StageFeatures::count();
    std::vector<StagePrediction> prior(rows), canonicalPrior(rows);
    analytic.predict(queries, prior);
    std::vector<StageQuery> canon(queries.begin(), queries.end());
    for (StageQuery& q : canon)
        q = canonical(q);
    analytic.predict(canon, canonicalPrior);
    std::vector<float> features(rows * n);
    std::vector<float> labels(2 * rows);
    for (std::size_t r = 0; r < rows; ++r) {
        const double t = measuredTimeMs[r], m = measuredMemoryMiB[r];
        const double at = prior[r].timeMs, am = prior[r].memoryMiB();
        if (!(t > 0) || !(m > 0) || !std::isfinite(t) || !std::isfinite(m))
            throw std::invalid_argument("LearnedPredictor::fit: measurement " + std::to_string(r)
                                        + " is not a positive time and memory");
        if (!(at > 0) || !(am > 0))
            throw std::invalid_argument("LearnedPredictor::fit: the analytic model has no positive estimate for query "
                                        + std::to_string(r));
        StageFeatures::encode(canon[r], canonicalPrior[r], &features[r * n]);
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
        if (std::isnan(min_[j]))
            continue;  // never seen in training: nothing to compare with
        const double lo = min_[j], hi = max_[j];
        const double dist = v < lo ? lo - v : (v > hi ? v - hi : 0.0);
        if (dist == 0)
            continue;
        double scale = hi - lo;
        if (scale <= 0)
            scale = std::abs(hi);
        if (scale <= 0)
            scale = 1.0;
        e = std::max(e, dist / scale);
    }
    return e;
}

double LearnedPredictor::rangeExcess(const StageQuery& q) const
{
    const StageQuery c = canonical(q);
    std::vector<float> row(StageFeatures::count());
    StageFeatures::encode(c, analytic_.predictOne(c), row.data());
    return rangeExcess(row.data());
}

void LearnedPredictor::predict(std::span<const StageQuery> queries, std::span<StagePrediction> out) const
{
    if (out.size() < queries.size())
        throw std::invalid_argument("LearnedPredictor::predict: output span too small");
    const std::size_t rows = queries.size();
    if (rows == 0)
        return;
    const std::size_t n = StageFeatures::count();
    std::vector<StagePrediction> prior(rows);
    analytic_.predict(queries, prior);

    // Booster answers: from the memo, else gathered and evaluated in one call.
    Memo::Lookup look = memo_->lookUp(queries);
    std::vector<Memo::Entry>& missing = look.missing;
    if (!missing.empty()) {
        std::vector<float> features(missing.size() * n);
        std::vector<StageQuery> canon;
        for (std::size_t r = 0; r < rows; ++r)
            if (look.missOf[r] != SIZE_MAX && canon.size() == look.missOf[r])
                canon.push_back(canonical(queries[r]));
        std::vector<StagePrediction> canonPrior(canon.size());
        analytic_.predict(canon, canonPrior);
        for (std::size_t m = 0; m < canon.size(); ++m)
            StageFeatures::encode(canon[m], canonPrior[m], &features[m * n]);
        std::vector<float> ratio(2 * missing.size());
        model_.predict(features.data(), missing.size(), n, ratio.data());
        boosterRows_ += missing.size();
        for (std::size_t m = 0; m < missing.size(); ++m) {
            missing[m].ratio[0] = ratio[2 * m];
            missing[m].ratio[1] = ratio[2 * m + 1];
            missing[m].excess = std::min(1.0, rangeExcess(&features[m * n]));
        }
        std::lock_guard lock(memo_->mutex);
        for (std::size_t m = 0; m < missing.size(); ++m)
            memo_->entries.emplace(look.missingKey[m], missing[m]);
    }
    for (std::size_t r = 0; r < rows; ++r) {
        const Memo::Entry& e = look.answer[r] ? *look.answer[r] : missing[look.missOf[r]];
        out[r] = corrected(prior[r], e.ratio, e.excess, params_);
    }
}

}  // namespace memx
