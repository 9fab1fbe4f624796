#pragma once

#include "predict/IterationTerms.h"

#include <memory>
#include <string>
#include <vector>

namespace memx {

class GpuCatalog;
class Predictor;
class RunPlacement;
struct MeasuredRun;

// The run-level correction of the learned model (IterationTerms): what the
// stage model cannot see, because it only shows in a whole iteration. Each
// training run with a measured iteration time is composed with the trained
// stage model (scales 1) and split into its terms,
//   predicted = compute + pipeline + dataParallel + fixed,
// compute = G x the slowest stage's micro-batch (the steady state; the stage
// model's to correct), pipeline = bubble + PP hops. With z_rj = x_rj / m_r
// (term j's share of run r's measured time) and y_r = (m_r - compute_r) / m_r,
// the scales k solve the ridge-regularised least squares in relative error
//   min sum_r (sum_j k_j z_rj - y_r)^2 + lambda sum_j s_j (k_j - 1)^2,
// lambda = 1 and s_j = mean_r z_rj^2: the pull towards 1 weighs as much as
// one average run. For one free term with equal shares z and y = c z in n
// runs this gives k = (c n + 1) / (n + 1). A run whose residual lies beyond
// both 0.4 and four robust standard deviations from the median residual (a
// contradicting repeat, a broken log) is left out and the rest refitted, at
// most a fifth of the runs. Scales are clamped to ranges::termScale. A term
// below 3 % of the measured time in all but two runs cannot be told from
// noise and keeps scale 1. The scales are kept only when, leave one run out
// (each run predicted by scales fitted to the others), they lower the
// iteration time MAPE by at least 2 % of it; the result records both errors
// and says why nothing was fitted otherwise.
struct IterationTermFit {
    struct Sample {
        std::string runId;
        // MeasuredRun::configurationKey: repeats of one configuration share
        // it, and are held out together (empty: the run is its own).
        std::string configuration;
        double computeMs = 0;
        double pipelineMs = 0;  // bubble + 2 x hops
        double dataParallelMs = 0;  // gradient synchronisation of the slowest stage
        double fixedMs = 0;  // per-iteration overhead + optimizer step
        double measuredMs = 0;
        double predictedMs() const { return computeMs + pipelineMs + dataParallelMs + fixedMs; }
    };

    static constexpr int kMinRuns = 5;  // distinct configurations with a measured iteration time
    static constexpr double kMinShare = 0.03;
    static constexpr double kMinGain = 0.02;  // relative drop of the leave-one-out MAPE

    // Samples with measuredMs > 0 and every term finite are used; others are
    // ignored. Never returns a non-finite scale.
    static IterationTerms fit(const std::vector<Sample>& samples);

    // The runs of `runs` with a measured iteration time, placed as `placement`
    // places them and composed with `stageModel` (whose own scales must be 1).
    static std::vector<Sample> samples(const std::vector<MeasuredRun>& runs, const std::string& file,
                                       const GpuCatalog& catalog, RunPlacement& placement,
                                       std::shared_ptr<const Predictor> stageModel);

    // One line for a report: the scales and the leave-one-out errors, or why
    // nothing was fitted.
    static std::string describe(const IterationTerms& t);
};

}  // namespace memx
