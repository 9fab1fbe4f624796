#include "predict/IterationComposer.h"

#include <numeric>

namespace memx {

double IterationComposer::iterationMs(const std::vector<double>& stageMs, const std::vector<double>& hopMs,
                                      int microBatchCount, int virtualStages, double fixedMs, double dpMs)
{
    double mx = stageMs.empty() ? 0 : *std::max_element(stageMs.begin(), stageMs.end());
    double sum = std::accumulate(stageMs.begin(), stageMs.end(), 0.0);
    double hops = std::accumulate(hopMs.begin(), hopMs.end(), 0.0);
    return iterationMs(mx, sum, hops, microBatchCount, virtualStages, fixedMs, dpMs);
}

double IterationComposer::dataParallelMs(double paramsPerGpu, int dp, bool distributedOptimizer, double bandwidthGBps,
                                         double latencyUs, Precision p)
{
    return dataParallelComm(paramsPerGpu, dp, distributedOptimizer, bandwidthGBps, latencyUs, p).totalMs();
}

IterationComposer::DataParallelComm IterationComposer::dataParallelComm(double paramsPerGpu, int dp,
                                                                        bool distributedOptimizer, double bandwidthGBps,
                                                                        double latencyUs, Precision p)
{
    DataParallelComm c;
    if (dp <= 1 || bandwidthGBps <= 0)
        return c;
    const PrecisionBytes pb = bytesOf(p);
    const double frac = double(dp - 1) / dp;
    const double msPerByte = 1.0 / (bandwidthGBps * 1e6);
    const double stepMs = latencyUs * 1e-3;
    if (distributedOptimizer) {
        c.reduceMs = frac * pb.gradient * paramsPerGpu * msPerByte + (dp - 1) * stepMs;  // reduce-scatter
        c.gatherMs = frac * pb.weightGather * paramsPerGpu * msPerByte + (dp - 1) * stepMs;  // all-gather
    } else {
        c.reduceMs = 2.0 * frac * pb.gradient * paramsPerGpu * msPerByte + 2.0 * (dp - 1) * stepMs;  // all-reduce
    }
    return c;
}

double IterationComposer::exposedDataParallelMs(const DataParallelComm& c, Overlap o, bool firstStage,
                                                double stageParams, double lastBucketParams, double forwardMs,
                                                double backwardMs)
{
    // The share of the stage's parameters in the bucket that backward
    // reaches last (forward gathers first); none past the first stage, whose
    // one bucket starts when its backward ends.
    const double lastBucket = firstStage && stageParams > 0 ? std::min(1.0, lastBucketParams / stageParams) : 0.0;
    auto hidden = [&](double commMs, double windowMs) {
        return std::max(lastBucket * commMs, commMs - std::max(0.0, windowMs));
    };
    double reduce = o.gradReduce ? hidden(c.reduceMs, backwardMs) : c.reduceMs;
    double gather = o.gradReduce && o.paramGather ? hidden(c.gatherMs, forwardMs) : c.gatherMs;
    return reduce + gather;
}

}  // namespace memx
