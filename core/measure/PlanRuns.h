#pragma once

#include "measure/Measurement.h"

#include <string>
#include <vector>

namespace memx {

struct Plan;
struct Problem;

// A plan as a run list entry (memx-measurements/1 without targets): a run
// row, then one stage row per pipeline stage with its GPU type, layers and
// recomputation,
// so that plans a search proposes can be simulated, measured or predicted
// by the same commands as profiling runs. The rows carry the problem's model,
// precision, attention and dropout, as the plan was predicted.
struct PlanRuns {
    static std::vector<Measurement> rows(const Plan& plan, const Problem& problem, const std::string& runId);
};

}  // namespace memx
