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
                                         double bandwidthGBps, double latencyUs, Precision p)
{
    const PrecisionBytes pb = bytesOf(p);
    if (dp <= 1 || bandwidthGBps <= 0)
        return 0;
    double frac = double(dp - 1) / dp;
    double bytes = distributedOptimizer ? frac * (pb.gradient + pb.weightGather) * paramsPerGpu  // RS grads + AG weights
                                        : 2.0 * frac * pb.gradient * paramsPerGpu;               // all-reduce grads
    double steps = distributedOptimizer ? 2.0 * (dp - 1) : 2.0 * (dp - 1);
    return bytes / (bandwidthGBps * 1e6) + steps * latencyUs * 1e-3;
}

}  // namespace memx
