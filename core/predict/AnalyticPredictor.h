#pragma once

#include "predict/Predictor.h"

namespace memx {

struct ModelSpec;

// Cold-start predictor from first principles (used until a trained model
// exists). Time = GEMM FLOPs at an effective fraction of peak + TP collectives
// over the stage's real links + kernel-launch and elementwise overheads.
// Memory = model states + activations x micro-batches in flight + reserve.
// See docs/ANALYTIC_MODEL.md for the derivation and its measured error.
class AnalyticPredictor final : public Predictor {
public:
    struct Params {
        // Per-GPU forward work (FLOPs of one layer for one micro-batch) at which
        // GEMMs reach half of their large-problem efficiency: eff(W) = eff * W / (W + W0).
        double halfEfficiencyWorkFlops = 10e9;
        // Elementwise kernels (norms, SwiGLU, residuals, rotary) stream each stored
        // activation byte about this many times per forward+backward.
        double elementwiseTrafficFactor = 4.0;
        double relativeUncertainty = 0.25;
    };

    AnalyticPredictor();
    std::string identity() const override;
    explicit AnalyticPredictor(Params params);

    std::string name() const override { return "analytic"; }
    void predict(std::span<const StageQuery> queries, std::span<StagePrediction> out) const override;

    StagePrediction predictStage(const StageQuery& q) const;

    // Effective fraction of peak for a per-GPU GEMM work size (FLOPs).
    double efficiency(const GpuType& gpu, double workFlops) const;

    // The ModelSpec a query describes (for the formulas in TransformerMath).
    static ModelSpec modelOf(const StageQuery& q);

private:
    Params params_;
};

}  // namespace memx
