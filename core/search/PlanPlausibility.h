#pragma once

#include "space/Plan.h"
#include "space/Problem.h"

#include <string>
#include <vector>

namespace memx {

// Valid but implausible (issue #35 item 3): what a planner's user most likely
// did not mean, said once so that it can be dismissed. A global batch of
// 999,999 is within the accepted range, and its best plan takes 36 hours per
// iteration; no training runs that way.
struct PlanPlausibility {
    static constexpr double kLongIterationS = 3600;  // one iteration longer than an hour

    // Warnings about the search's best plan, in words; empty when none.
    static std::vector<std::string> warnings(const Problem& problem, const Plan& best);
};

}  // namespace memx
