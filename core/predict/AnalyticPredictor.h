#pragma once

#include "predict/GpuParamsFit.h"
#include "predict/OperatorCost.h"
#include "predict/Predictor.h"

#include <vector>

namespace memx {

struct ModelSpec;

// Cold-start predictor from first principles (used until a trained model
// exists). Time = the sum over the stage's operators (LayerOperators: GEMMs,
// attention, memory-bound kernels, TP collectives over the stage's real
// links, the output layer and loss, the embedding), each timed by
// OperatorCost, plus the host cost of the stage's pipeline messages.
// Memory = model states + activations x micro-batches in flight + reserve.
// See docs/ANALYTIC_ACCURACY.md for every term, its source and its error.
class AnalyticPredictor final : public Predictor {
public:
    struct Params {
        OperatorCost::Params operators;
        double relativeUncertainty = 0.25;
    };

    AnalyticPredictor();
    std::string identity() const override;
    explicit AnalyticPredictor(Params params);

    std::string name() const override { return "analytic"; }
    void predict(std::span<const StageQuery> queries, std::span<StagePrediction> out) const override;

    double iterationOverheadMs(const GpuType& gpu) const override;
    void optimizerStepMs(const GpuType& gpu, Precision p, std::span<const double> ownedParams,
                         std::span<double> out) const override;

    // Per-type physical parameters fitted to measurements (Calibrator); a
    // type without a fit keeps its catalog values.
    void setCalibration(std::vector<GpuParamsFit> fits);
    const std::vector<GpuParamsFit>& calibration() const { return fits_; }
    // `gpu` with its fitted parameters, if any (a copy in `scratch`).
    const GpuType& calibrated(const GpuType& gpu, GpuType& scratch) const;

    StagePrediction predictStage(const StageQuery& q) const;
    // Where the time of one micro-batch on the stage goes (forward + backward).
    OperatorCost::Breakdown timeBreakdown(const StageQuery& q) const;

    // The ModelSpec a query describes (for the formulas in TransformerMath).
    static ModelSpec modelOf(const StageQuery& q);

private:
    // What does not depend on the stage's layer count or place: one layer's
    // forward + backward (+ recomputation), the output layer, the embedding,
    // and the host time of one pipeline message, on the (calibrated) GPU.
    struct StageCosts {
        OperatorCost::Breakdown layer, output, embedding;
        double messageMs = 0;
        double stepMs = 0;  // host time of one forward or backward step of a model chunk
    };
    StageCosts costsOf(const StageQuery& q) const;
    const GpuParamsFit* fitOf(const GpuType& gpu) const;  // null: catalog values
    static OperatorCost::Breakdown compose(const StageCosts& c, const StageQuery& q);
    StagePrediction predictStage(const StageQuery& q, const StageCosts& c) const;

    Params params_;
    OperatorCost cost_;
    std::vector<GpuParamsFit> fits_;
};

}  // namespace memx
