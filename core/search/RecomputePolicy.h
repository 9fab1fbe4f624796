#pragma once

#include "model/Recompute.h"
#include "predict/StageQuery.h"

#include <array>
#include <string>

namespace memx {

// The paper's two-level per-stage recomputation choice (MemX 3.1.1).
//  Hard level: if even full recomputation does not fit, the stage is
//  infeasible (pruned); if none fits, none; otherwise recompute.
//  Soft level: among the feasible levels, the one that minimises iteration
//  time (iteration time grows with every stage's time, so the fastest
//  feasible level of each stage is optimal for a fixed split). The
//  intermediate level is collapsed when the marginal exchange rate
//  rho = dT/dM is discontinuous: selective saves almost nothing, or buys
//  memory at a worse rate than full recomputation does.
struct RecomputePolicy {
    struct ExchangeRates {
        double rhoNoneToSelective = 0;  // ms of stage time per GiB saved
        double rhoNoneToFull = 0;
        double rhoSelectiveToFull = 0;
        double selectiveSavingFraction = 0;  // of the activations without recomputation
        bool collapseSelective = false;
    };

    // Rates from the predictions of one stage at the three levels.
    static ExchangeRates rates(const std::array<StagePrediction, kRecomputeLevels>& levels, double collapseFraction);

    // Index of the fastest level among those allowed and fitting in
    // `capacityMiB`; -1 when none fits.
    static int choose(const std::array<StagePrediction, kRecomputeLevels>& levels,
                      const std::array<bool, kRecomputeLevels>& allowed, double capacityMiB);

    static std::string describe(const std::string& gpuType, const ExchangeRates& r);
};

}  // namespace memx
