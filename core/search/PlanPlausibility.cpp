#include "search/PlanPlausibility.h"

#include "io/Text.h"

namespace memx {

std::vector<std::string> PlanPlausibility::warnings(const Problem& problem, const Plan& best)
{
    std::vector<std::string> out;
    const double seconds = best.iterationMs / 1000;
    if (seconds > kLongIterationS) {
        const std::string length
            = seconds >= 2 * 3600 ? Text::fmt("%.1f hours", seconds / 3600) : Text::fmt("%.0f minutes", seconds / 60);
        out.push_back("The best plan takes " + length + " per iteration (global batch "
                      + std::to_string(problem.setup.globalBatch) + " sequences of " + std::to_string(best.seqLen)
                      + " tokens on " + std::to_string(problem.cluster.deviceCount())
                      + " GPUs): is the global batch what you meant?");
    }
    return out;
}

}  // namespace memx
