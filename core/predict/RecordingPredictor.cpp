#include "predict/RecordingPredictor.h"

#include <stdexcept>

namespace memx {

RecordingPredictor::RecordingPredictor(std::shared_ptr<const Predictor> inner) : inner_(std::move(inner))
{
    if (!inner_)
        throw std::invalid_argument("RecordingPredictor: no predictor to forward to");
}

void RecordingPredictor::predict(std::span<const StageQuery> queries, std::span<StagePrediction> out) const
{
    inner_->predict(queries, out);
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < queries.size(); ++i)
        entries_.push_back({queries[i], out[i]});
}

std::vector<RecordingPredictor::Entry> RecordingPredictor::entries() const
{
    std::lock_guard lock(mutex_);
    return entries_;
}

}  // namespace memx
