#pragma once

#include "predict/Predictor.h"

#include <memory>
#include <mutex>
#include <vector>

namespace memx {

// Forwards to another predictor and keeps every (query, answer) pair it was
// asked, so that a caller of a higher-level API (PlanEvaluator) can recover
// the exact stage queries behind a composed plan, e.g. to train on them.
class RecordingPredictor final : public Predictor {
public:
    struct Entry {
        StageQuery query;
        StagePrediction prediction;
    };

    explicit RecordingPredictor(std::shared_ptr<const Predictor> inner);

    std::string name() const override { return inner_->name(); }
    void predict(std::span<const StageQuery> queries, std::span<StagePrediction> out) const override;
    double iterationOverheadMs(const GpuType& gpu) const override { return inner_->iterationOverheadMs(gpu); }
    void optimizerStepMs(const GpuType& gpu, Precision p, std::span<const double> ownedParams,
                         std::span<double> out) const override
    {
        inner_->optimizerStepMs(gpu, p, ownedParams, out);
    }
    const IterationTerms& iterationTerms() const override { return inner_->iterationTerms(); }

    std::vector<Entry> entries() const;

private:
    std::shared_ptr<const Predictor> inner_;
    mutable std::mutex mutex_;
    mutable std::vector<Entry> entries_;
};

}  // namespace memx
