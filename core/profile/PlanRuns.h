#pragma once

#include "profile/Measurement.h"

#include <string>
#include <vector>

namespace memx {

struct ModelSpec;
struct Plan;

// A plan as a run list entry (memx-measurements/1 without targets): one
// stage row per pipeline stage with its GPU type, layers and recomputation,
// so that plans a search proposes can be simulated, measured or predicted
// by the same commands as profiling runs.
struct PlanRuns {
    static std::vector<Measurement> rows(const Plan& plan, const ModelSpec& model, const std::string& runId);
};

}  // namespace memx
