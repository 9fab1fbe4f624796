#pragma once

#include "model/Precision.h"

#include <algorithm>
#include <vector>

namespace memx {

// Composes stage predictions into one training iteration (MemX section 3.1.2).
struct IterationComposer {
    // Eq. (3), 1F1B: (G-1) * max_i t_i + sum_i t_i + 2 * sum_i t_pp,i + t_fix + t_dp.
    // Interleaved with v virtual stages per GPU, only the pipeline bubble
    // shrinks by v (Narayanan et al. 2021, sec. 2.2.2: total (m + (p-1)/v) t
    // for p uniform stages of time t per micro-batch). Eq. (3)'s sum term is
    // that bubble plus one more micro-batch of the slowest stage, so
    //   G * max_i t_i + (sum_i t_i - max_i t_i) / v + ...,
    // which for v = 1 is Eq. (3) again. The paper's printed Eq. (4) divides
    // the steady-state term by v as well, which would claim that interleaving
    // speeds up every micro-batch; until 2026-12-03 this divided the whole
    // sum by v, which is short by max_i t_i (1 - 1/v). All times in ms.
    // pipelineScale: the learned scale on the bubble (IterationTerms::pipeline;
    // the hops come scaled in sumHopMs, SkeletonTables), at most G v: the
    // slowest stage weighs G - scale / v, and a larger scale would make a
    // plan faster when one stage gets slower at the others' expense. With the
    // cap the time never falls as a stage time grows, which the split
    // search's bounds (SplitBounds) rely on.
    static double iterationMs(double maxStageMs, double sumStageMs, double sumHopMs, int microBatchCount,
                              int virtualStages, double fixedMs, double dpMs, double pipelineScale = 1.0)
    {
        const int v = std::max(1, virtualStages);
        const double scale = std::min(pipelineScale, static_cast<double>(std::max(1, microBatchCount)) * v);
        const double bubble = scale * (sumStageMs - maxStageMs) / v;
        return microBatchCount * maxStageMs + bubble + 2.0 * sumHopMs + fixedMs + dpMs;
    }
    static double iterationMs(const std::vector<double>& stageMs, const std::vector<double>& hopMs, int microBatchCount,
                              int virtualStages, double fixedMs, double dpMs);

    // Micro-batches whose activations a stage holds at its peak.
    // 1F1B: stage i of P keeps min(P - i, G) (PipeDream-Flush warm-up).
    static double inflight1F1B(int stage, int stages, int microBatchCount)
    {
        return std::min(stages - stage, microBatchCount);
    }
    // Interleaved: Megatron warms up (P - i - 1) * 2 + (v - 1) * P model chunks and
    // then runs one more, each chunk holding 1/v of the stage's activations; for
    // the first stage this is Korthikanti's factor 1 + (P-1)/(P v) times P. A
    // stage whose warm-up reaches all G v chunks runs every forward first and
    // holds all G micro-batches. This is Megatron-LM's schedule since
    // --microbatch-group-size-per-virtual-pipeline-stage (default P) came in
    // (core/pipeline_parallel/schedules.py, e.g. at d98e8a64, the CI golden
    // values' commit). Older Megatron ran every forward first on every stage
    // whenever G == P; now with G == P the later stages hold fewer (P 4, v 3:
    // the last holds 9 of 12 chunks, 3 micro-batches).
    static double inflightInterleaved(int stage, int stages, int microBatchCount, int v)
    {
        int chunks = (stages - stage - 1) * 2 + (v - 1) * stages + 1;
        chunks = std::min(chunks, microBatchCount * v);
        return static_cast<double>(chunks) / v;
    }

    // Gradient synchronisation of one stage over its DP group, ms: a ring
    // all-reduce of the fp32 gradients, t_dp = 2(DP-1)/DP * bytes / B_dp
    // (MemX's t_dp); with the distributed optimizer a reduce-scatter of the
    // gradients plus an all-gather of the weights; the bytes per element are
    // the precision's gradient and weight widths (bf16: fp32 gradients, bf16
    // weights; fp16: both 2; fp32: both 4).
    static double dataParallelMs(double paramsPerGpu, int dp, bool distributedOptimizer, double bandwidthGBps,
                                 double latencyUs, Precision p = Precision::Bf16);

    // The same collectives in their two parts: the gradient reduction (the
    // all-reduce, or the reduce-scatter with the distributed optimizer) and
    // the all-gather of the updated weights (distributed optimizer only).
    struct DataParallelComm {
        double reduceMs = 0;
        double gatherMs = 0;
        double totalMs() const { return reduceMs + gatherMs; }
    };
    static DataParallelComm dataParallelComm(double paramsPerGpu, int dp, bool distributedOptimizer,
                                             double bandwidthGBps, double latencyUs, Precision p = Precision::Bf16);

    // Megatron-LM's default bucket, in parameters, when --overlap-grad-reduce
    // splits the gradients: max(40M, 1M x DP) (DistributedDataParallelConfig.
    // bucket_size; without overlap all gradients form one bucket).
    static double gradientBucketParams(int dp) { return std::max(40e6, 1e6 * dp); }
    // The first stage's bucket that backward reaches last (and forward
    // gathers first): Megatron fills buckets in reverse registration order
    // and closes one only when it holds a bucket's worth, so the word (and
    // learned position) embedding, registered first, ends up whole in the
    // last one, which is therefore at least as large as the embedding.
    static double lastBucketParams(int dp, double embeddingParamsOnRank)
    {
        return std::max(gradientBucketParams(dp), embeddingParamsOnRank);
    }

    // What of a stage's data-parallel collectives the iteration waits for, ms.
    // Without overlap all of it: finalize_model_grads reduces after the last
    // backward and the optimizer gathers after its step. (Each stage starts
    // its reduction when its own last backward ends, up to P - 1 backward
    // passes before the first stage's; the composer takes no credit for that
    // cool-down, so this is an upper bound for PP > 1.)
    // --overlap-grad-reduce reduces during the last micro-batch's backward:
    // Megatron enables gradient sync for that micro-batch only. On the first
    // pipeline stage buckets go out as backward reaches them, so what is left
    // is the larger of the last bucket (lastBucketParams: the embedding's)
    // and the reduction minus that backward. Later stages reduce in one
    // bucket, which Megatron does because the cool-down of the stages before
    // them hides it (distributed_data_parallel.py: "data-parallel
    // communication on these stages is not on the critical path"): their
    // window is the backward of the stages before them. The search, which
    // times each stage on its own, takes the stage's own backward for it (one
    // stage's worth, which a balanced pipeline's earlier stages match or
    // exceed); the reference simulator, which knows every stage, passes the
    // real sum.
    // --overlap-param-gather moves the all-gather into the next iteration's
    // first forward in the same way (bucket by bucket, waited for by each
    // bucket's forward pre-hook).
    // backwardMs, forwardMs: the windows (one micro-batch's backward and
    // forward of the stage); stageParams: the parameters the stage holds per
    // GPU; lastBucket: lastBucketParams for the first stage.
    struct Overlap {
        bool gradReduce = false;
        bool paramGather = false;
    };
    static double exposedDataParallelMs(const DataParallelComm& c, Overlap o, bool firstStage, double stageParams,
                                        double lastBucket, double forwardMs, double backwardMs);
};

}  // namespace memx
