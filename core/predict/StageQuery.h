#pragma once

#include "model/Dropout.h"
#include "model/MemoryBreakdown.h"
#include "model/LayerStyle.h"
#include "model/MlpKind.h"
#include "model/Provenance.h"
#include "model/Precision.h"
#include "model/Recompute.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace memx {

struct GpuType;

// The unit of prediction (DESIGN.md): one pipeline stage processing one
// micro-batch on one GPU type. Everything a predictor may use is here.
struct StageQuery {
    const GpuType* gpu = nullptr;
    int tp = 1;
    int dp = 1;  // data-parallel degree (shards optimizer state with the distributed optimizer)
    int layers = 1;  // transformer layers held by the stage
    int microBatch = 1;  // sequences per micro-batch
    int seqLen = 2048;  // tokens
    int hidden = 0;
    int heads = 0;
    int headDim = 0;
    int queryGroups = 0;
    int ffnHidden = 0;
    MlpKind mlp = MlpKind::SwiGlu;
    int vocab = 0;
    LayerStyle style;  // positions, norm and linear biases (model/LayerStyle.h)
    bool tiedEmbeddings
        = false;  // the output layer shares the embedding (a last stage that is not the first keeps a copy)
    bool hasEmbedding = false;  // first stage
    bool hasOutput = false;  // last stage (output layer and loss)
    bool distributedOptimizer = true;
    bool flashAttention = true;
    Dropout dropout;  // attention / hidden dropout running (rate above zero)
    bool sequenceParallel = true;  // Megatron --sequence-parallel (only matters for TP > 1)
    Recompute recompute = Recompute::None;
    Precision precision = Precision::Bf16;  // the job's training precision
    double inflight = 1;  // micro-batches whose activations are alive at the peak
    int virtualStages = 1;  // model chunks of the stage (interleaved schedule), each its own pipeline messages
    double tpLinkGBps = 0;  // bottleneck bandwidth of the stage's TP rings, GB/s
    double tpLatencyUs = 0;

    bool operator==(const StageQuery& o) const;
    // Hash signature used by the prediction cache (MemX section 3.1.2).
    std::uint64_t signature() const;
    // The same with the GPU type identified by name instead of by pointer,
    // for answers kept beyond one cluster object (PredictionStore, the
    // learned predictor's memo); `portable` receives the query with gpu cleared.
    std::uint64_t portableSignature(StageQuery& portable) const;
};

struct StagePrediction {
    double timeMs = 0;  // forward + backward of one micro-batch, ms
    MemoryBreakdown memory;  // peak per GPU
    double memoryMiB() const { return memory.totalMiB(); }
    Provenance provenance = Provenance::Analytic;
    double uncertainty = 0;  // relative (0.2 = +-20%)
    // The analytic time's shares spent waiting for the host (launch-bound
    // kernels) and on tensor-parallel collectives: features of the learned
    // correction, which is largest where these terms dominate.
    float hostShare = 0;
    float commShare = 0;
};

}  // namespace memx
