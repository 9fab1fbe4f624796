#include "predict/Predictor.h"

namespace memx {

StagePrediction Predictor::predictOne(const StageQuery& q) const
{
    StagePrediction p;
    predict(std::span<const StageQuery>(&q, 1), std::span<StagePrediction>(&p, 1));
    return p;
}

}  // namespace memx
