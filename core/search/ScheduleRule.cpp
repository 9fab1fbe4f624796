#include "search/ScheduleRule.h"
#include "io/Statistics.h"

#include "predict/IterationComposer.h"
#include "search/Objective.h"
#include "space/Problem.h"
#include "search/Skeleton.h"
#include "search/SkeletonTables.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace memx {

bool ScheduleRule::interleaveAllowed(const Problem& problem, const Skeleton& sk, const SkeletonTables& t)
{
    const int P = t.stages;
    int even = std::max(1, std::min(t.maxLayers, t.layers / P));
    double minCap = std::numeric_limits<double>::infinity(), maxDemand = 0;
    std::vector<double> compute;
    for (int i = 0; i < P; ++i) {
        const auto& p = t.row(static_cast<std::size_t>(i)).pred[static_cast<std::size_t>(even)][0];
        double act1f1b = p.memory.activationsMiB * IterationComposer::inflight1F1B(i, P, sk.microBatchCount)
            / std::max(1e-9, t.inflight[static_cast<std::size_t>(i)]);
        double demand = p.memory.totalMiB() - p.memory.activationsMiB + act1f1b;
        minCap = std::min(minCap, t.capacityMiB[static_cast<std::size_t>(i)]);
        maxDemand = std::max(maxDemand, demand);
        const GpuType& g = problem.cluster.types()[static_cast<std::size_t>(sk.slot(i).type)];
        compute.push_back(g.peakTflopsBf16 * g.defaultEfficiency * g.calibration.efficiencyMultiplier);
    }
    double mean = 0;
    for (double c : compute)
        mean += c;
    mean /= static_cast<double>(compute.size());
    double cv = mean > 0 ? std::sqrt(Statistics::variance(compute)) / mean : 0;
    double pressure = maxDemand > 0 ? minCap / maxDemand : 0;
    return pressure >= problem.setup.interleavePressureMin && cv <= problem.setup.interleaveHeterogeneityMax;
}

}  // namespace memx
