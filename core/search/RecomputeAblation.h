#pragma once

#include "model/Recompute.h"
#include "search/Objective.h"

#include <memory>
#include <string>
#include <vector>

namespace memx {

struct Plan;
struct Problem;
class Predictor;

// What per-stage recomputation buys: the same plan (split, placement, sizes)
// with one level on every stage (none, selective, full), predicted exactly as
// the search predicts, against the plan itself. The ablation MemX never ran.
struct RecomputeAblation {
    struct Variant {
        Recompute level = Recompute::None;
        bool feasible = false;
        double iterationMs = 0;
        double maxMemMiB = 0;
        double varMem = 0;
        std::string whyInfeasible;  // why it does not fit or cannot be built
    };
    static std::vector<Variant> uniform(const Problem& problem, const Plan& plan,
                                        std::shared_ptr<const Predictor> predictor = nullptr,
                                        VarianceMode variance = VarianceMode::AbsoluteMiB);
    // "Recomputation per stage (F,F,N,N,N) against one level on every stage:
    //  none does not fit (...); selective ...; full +12% time, -20% peak memory, ..."
    static std::string line(const Plan& plan, const std::vector<Variant>& variants, VarianceMode variance);
};

}  // namespace memx
