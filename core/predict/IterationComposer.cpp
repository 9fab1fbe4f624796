#include "predict/IterationComposer.h"

#include <numeric>

namespace memx {

double IterationComposer::iterationMs(const std::vector<double>& stageMs, const std::vector<double>& hopMs,
                                      int microBatches, int virtualStages, double fixedMs, double dpMs)
{
    double mx = stageMs.empty() ? 0 : *std::max_element(stageMs.begin(), stageMs.end());
    double sum = std::accumulate(stageMs.begin(), stageMs.end(), 0.0);
    double hops = std::accumulate(hopMs.begin(), hopMs.end(), 0.0);
    return iterationMs(mx, sum, hops, microBatches, virtualStages, fixedMs, dpMs);
}

double IterationComposer::dataParallelMs(double paramsPerGpu, int dp, bool distributedOptimizer,
                                         double bandwidthGBps, double latencyUs)
{
    if (dp <= 1 || bandwidthGBps <= 0)
        return 0;
    double frac = double(dp - 1) / dp;
    double bytes = distributedOptimizer ? frac * (4.0 + 2.0) * paramsPerGpu  // RS fp32 grads + AG bf16 weights
                                        : 2.0 * frac * 4.0 * paramsPerGpu;   // all-reduce fp32 grads
    double steps = distributedOptimizer ? 2.0 * (dp - 1) : 2.0 * (dp - 1);
    return bytes / (bandwidthGBps * 1e6) + steps * latencyUs * 1e-3;
}

}  // namespace memx
