#include "predict/StageFeatures.h"

#include "hardware/GpuType.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace memx {

std::vector<std::string> StageFeatures::names()
{
    return {"gpu_type_index",
            "gpu_peak_tflops",
            "gpu_memory_gib",
            "gpu_bandwidth_gbps",
            "tp",
            "dp",
            "layers",
            "micro_batch",
            "seq_len",
            "hidden",
            "heads",
            "query_groups",
            "ffn_hidden",
            "vocab",
            "has_embedding",
            "has_output",
            "recompute",
            "inflight",
            "tp_link_gbps",
            "analytic_time_ms",
            "analytic_memory_mib",
            "precision",
            "tokens_per_gpu",
            "hidden_per_gpu",
            "analytic_ms_per_layer",
            "analytic_host_share",
            "analytic_comm_share",
            "activation_share",
            "mlp_gelu",
            "tied_embeddings",
            "flash_attention",
            "attention_dropout",
            "hidden_dropout",
            "sequence_parallel",
            "distributed_optimizer"};
}

float StageFeatures::gpuTypeIndex(const std::string& gpuTypeName)
{
    std::uint32_t h = 2166136261u;
    for (unsigned char c : gpuTypeName) {
        h ^= c;
        h *= 16777619u;
    }
    return static_cast<float>(h & 0xFFFFFFu);
}

void StageFeatures::encode(const StageQuery& q, const StagePrediction& analytic, float* row)
{
    constexpr float nan = std::numeric_limits<float>::quiet_NaN();
    auto f = [](double v) { return static_cast<float>(v); };
    std::size_t i = 0;
    if (q.gpu) {
        row[i++] = gpuTypeIndex(q.gpu->name);
        row[i++] = f(q.gpu->peakTflops(q.precision));  // the peak of the run's precision
        row[i++] = f(q.gpu->memoryGiB);
        row[i++] = f(q.gpu->memoryBandwidthGBps);
    } else {
        for (int k = 0; k < 4; ++k)
            row[i++] = nan;
    }
    row[i++] = f(q.tp);
    row[i++] = f(q.dp);
    row[i++] = f(q.layers);
    row[i++] = f(q.microBatch);
    row[i++] = f(q.seqLen);
    row[i++] = f(q.hidden);
    row[i++] = f(q.heads);
    row[i++] = f(q.queryGroups > 0 ? q.queryGroups : q.heads);
    row[i++] = f(q.ffnHidden);
    row[i++] = f(q.vocab);
    row[i++] = q.hasEmbedding ? 1.0f : 0.0f;
    row[i++] = q.hasOutput ? 1.0f : 0.0f;
    row[i++] = f(static_cast<int>(q.recompute));
    row[i++] = f(q.inflight);
    row[i++] = f(q.tpLinkGBps);
    row[i++] = f(analytic.timeMs);
    row[i++] = f(analytic.memoryMiB());
    const double t = std::max(1, q.tp);
    row[i++] = f(static_cast<int>(q.precision));
    row[i++] = f(double(q.microBatch) * q.seqLen / t);
    row[i++] = f(q.hidden / t);
    row[i++] = f(analytic.timeMs / std::max(1, q.layers));
    row[i++] = analytic.hostShare;
    row[i++] = analytic.commShare;
    const double allocated = analytic.memory.allocatedMiB();
    row[i++] = f(allocated > 0 ? analytic.memory.activationsMiB / allocated : 0.0);
    const auto flag = [](bool b) { return b ? 1.0f : 0.0f; };
    row[i++] = flag(q.mlp == MlpKind::Gelu);
    row[i++] = flag(q.tiedEmbeddings);
    row[i++] = flag(q.flashAttention);
    row[i++] = flag(q.dropout.attention);
    row[i++] = flag(q.dropout.hidden);
    row[i++] = flag(q.sequenceParallel);
    row[i++] = flag(q.distributedOptimizer);
}

}  // namespace memx
