#include "predict/Predictor.h"

#include "hardware/GpuType.h"
#include "predict/OperatorCost.h"

#include <cstdio>

namespace memx {

std::string Predictor::identity() const
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "@%p", static_cast<const void*>(this));
    return name() + buf;
}

StagePrediction Predictor::predictOne(const StageQuery& q) const
{
    StagePrediction p;
    predict(std::span<const StageQuery>(&q, 1), std::span<StagePrediction>(&p, 1));
    return p;
}

double Predictor::iterationOverheadMs(const GpuType& gpu) const { return gpu.iterationOverheadMs; }

void Predictor::optimizerStepMs(const GpuType& gpu, Precision p, std::span<const double> ownedParams,
                                std::span<double> out) const
{
    OperatorCost().optimizerStepMs(gpu, p, ownedParams, out);
}

const IterationTerms& Predictor::iterationTerms() const
{
    static const IterationTerms identity;
    return identity;
}

}  // namespace memx
