#pragma once

#include "predict/StageQuery.h"

#include <cstddef>
#include <string>
#include <vector>

namespace memx {

// The feature schema of the learned predictor: one row of floats per
// StageQuery. Versioned: any change to the list, its order or its encoding
// bumps kSchema, and a model file records the schema it was trained with
// (names() in order), so a model trained on another schema is refused.
//
// memx-stage-features/1, in column order (units in the names):
//   gpu_type_index      categorical id of the GPU type: FNV-1a hash of the type
//                       name, low 24 bits (exact in a float, independent of any
//                       catalog's order); NaN (missing) when the query has no type
//   gpu_peak_tflops     dense bf16 peak, TFLOP/s  } so that an unseen type still
//   gpu_memory_gib      device memory, GiB       } lands near the known types
//   gpu_bandwidth_gbps  memory bandwidth, GB/s   } that resemble it
//   tp, dp, layers, micro_batch, seq_len, hidden, heads, query_groups,
//   ffn_hidden, vocab   as in StageQuery
//   has_embedding, has_output   0/1
//   recompute           0 none, 1 selective, 2 full
//   inflight            micro-batches whose activations are alive at the peak
//   tp_link_gbps        bottleneck bandwidth of the TP rings, GB/s
//   analytic_time_ms    the analytic predictor's time for the query (the prior)
//   analytic_memory_mib the analytic predictor's peak memory for the query
//
// memx-stage-features/2 adds (trees split on thresholds, so a log of a size
// adds nothing; ratios and the analytic terms' shares do):
//   precision           0 fp32, 1 tf32, 2 fp16, 3 bf16, 4 fp8; gpu_peak_tflops
//                       is now the peak of that precision
//   tokens_per_gpu      b*s/t: the rows of every GEMM on one TP rank
//   hidden_per_gpu      h/t: the width of the sharded GEMMs
//   analytic_ms_per_layer  analytic time / layers
//   analytic_host_share share of the analytic time spent waiting for the host
//   analytic_comm_share share spent in tensor-parallel collectives
//   activation_share    activations / allocated memory in the analytic peak
//
// memx-stage-features/3 adds what the block and the setup are, 0/1 each (the
// analytic terms already depend on them; a tree can now also correct them
// separately):
//   mlp_gelu            plain GeLU MLP (1) or gated SwiGLU (0)
//   tied_embeddings     output layer shares the embedding
//   flash_attention     attention without the s x s scores (0: unfused)
//   attention_dropout   dropout on the attention probabilities runs
//   hidden_dropout      dropout after the projection and FC2 runs
//   sequence_parallel   Megatron --sequence-parallel
//   distributed_optimizer  optimizer state sharded over DP
class StageFeatures {
public:
    static constexpr const char* kSchema = "memx-stage-features/3";
    static constexpr std::size_t kCount = 35;

    static std::vector<std::string> names();
    static std::size_t count() { return kCount; }

    // Writes count() floats to row.
    static void encode(const StageQuery& q, const StagePrediction& analytic, float* row);

    // The categorical id used in column gpu_type_index.
    static float gpuTypeIndex(const std::string& gpuTypeName);
};

}  // namespace memx
