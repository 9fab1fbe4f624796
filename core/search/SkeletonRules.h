#pragma once

#include "space/Problem.h"

#include <vector>

namespace memx {

// Rules the uniform and the per-type skeleton enumerators share.
namespace SkeletonRules {

// The TP sizes to try: the setup's, or every power of two up to the largest
// device group.
inline std::vector<int> tpCandidates(const Problem& problem, int maxGroup)
{
    std::vector<int> out;
    if (!problem.setup.tensorParallel.empty()) {
        out = problem.setup.tensorParallel;
    } else {
        for (int t = 1; t <= maxGroup; t *= 2)
            out.push_back(t);
    }
    return out;
}

// Why a pipeline of `stages` stages is outside the request (--max-pp,
// --min-pp, more stages than layers); null when it is inside.
inline const char* stageCountRefusal(int stages, const TrainingSetup& setup, const ModelSpec& model)
{
    if (stages > setup.maxPipelineStages)
        return "more pipeline stages than --max-pp";
    if (stages < setup.minPipelineStages)
        return "fewer pipeline stages than --min-pp";
    if (stages > model.numLayers)
        return "more pipeline stages than layers";
    return nullptr;
}

}  // namespace SkeletonRules

}  // namespace memx
