#pragma once

#include "predict/IterationTerms.h"
#include "predict/StageQuery.h"

#include <span>
#include <string>

namespace memx {

// Answers stage queries. Implementations must be pure (same query, same
// answer) and safe to call from several threads at once.
class Predictor {
public:
    virtual ~Predictor() = default;
    virtual std::string name() const = 0;
    // What makes two predictors give the same answers, for the prediction
    // store's invalidation: by default the object itself; a stateless or
    // value-configured predictor says what configures it.
    virtual std::string identity() const;
    // Batched on purpose: a learned model pays a fixed cost per call.
    virtual void predict(std::span<const StageQuery> queries, std::span<StagePrediction> out) const = 0;
    StagePrediction predictOne(const StageQuery& q) const;
    // Per-iteration framework overhead of a GPU type (ms): the catalog's,
    // unless the predictor was calibrated to measurements.
    virtual double iterationOverheadMs(const GpuType& gpu) const;
    // The optimizer step of a GPU that updates ownedParams[i] parameters,
    // into out[i] (ms): LayerOperators::optimizerStep timed by OperatorCost,
    // on the type as calibrated where the predictor was. One GPU type and
    // several stage sizes per call (SkeletonTables asks per stage).
    virtual void optimizerStepMs(const GpuType& gpu, Precision p, std::span<const double> ownedParams,
                                 std::span<double> out) const;
    // Scales on the iteration terms no stage query sees (pipeline bubble and
    // hops, DP synchronisation, per-iteration overhead): all 1 unless a
    // learned model fitted them to measured iterations (IterationTerms).
    // A reference, not a copy: SkeletonTables reads it once per skeleton.
    virtual const IterationTerms& iterationTerms() const;
};

}  // namespace memx
