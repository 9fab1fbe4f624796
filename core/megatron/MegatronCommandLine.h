#pragma once

#include "model/ModelSpec.h"
#include "model/Recompute.h"

#include <string>
#include <vector>

namespace memx {

struct GpuType;

// What one Megatron-LM training job is: the one input of the one function
// that builds pretrain_gpt.py argument lists (the exporter and the profiling
// planner's single-stage runs both go through MegatronCommandLine::arguments).
struct MegatronJob {
    ModelSpec model;  // numLayers = layers of the whole job
    int tp = 1, pp = 1, dp = 1;
    int microBatch = 1;
    int globalBatch = 1;
    int seqLen = 0;  // 0: the model's
    int queryGroups = 0;  // 0: the model's
    std::vector<int> stageLayers;  // per pipeline stage, pipeline order; empty: even split
    int virtualStages = 1;  // > 1: interleaved schedule
    Recompute recompute = Recompute::None;  // one level for every stage (Megatron has one)
    bool sequenceParallel = true;  // only passed when TP > 1
    bool distributedOptimizer = true;
    bool overlapGradReduce = false;  // --overlap-grad-reduce
    bool overlapParamGather = false;  // --overlap-param-gather
    std::string precision = "bf16";  // fp32, tf32, fp16 (dynamic loss scaling), bf16 or fp8 (Transformer Engine)
    bool flashAttention = true;  // false: --attention-backend unfused (what the plan assumed)
    double attentionDropout = 0.0;  // always written: Megatron's default 0.1 keeps masks a plan may not count
    double hiddenDropout = 0.0;
};

// Megatron-LM's pretrain_gpt.py command line (main @ d98e8a6,
// reference/EXPORT_AND_LOGS.md section 1): the one place that builds it, for
// the exports and the profiling planner's runs.
class MegatronCommandLine {
public:
    // pretrain_gpt.py arguments, one token per element. Throws
    // std::invalid_argument when Megatron would refuse the job (the reason
    // names the rule: heads % TP, query groups vs TP, GBS % (MBS x DP), VPP).
    static std::vector<std::string> arguments(const MegatronJob& job);

    // Flags for the layer split: none (even, 1F1B), --num-layers-per-virtual-
    // pipeline-stage (even, interleaved), --decoder-first/last-pipeline-num-
    // layers (+ --num-virtual-stages-per-pipeline-rank) when only the first
    // and/or last stage differ, else --pipeline-model-parallel-layout.
    static std::vector<std::string> splitArguments(const std::vector<int>& layers, int virtualStages);
    // Megatron's layout string: "Et*10|t*8|t*8|t*6L"; with v > 1, P*v entries,
    // entry vpp*P + pp holding layers[pp]/v decoder layers.
    static std::string layout(const std::vector<int>& layers, int virtualStages);

    // The one precision every rank of a job can train in: bf16 where every
    // type has it, else fp16 (V100, T4), else fp32. `why` names the types
    // that ruled bf16 out (empty when bf16).
    static std::string precisionFor(const std::vector<const GpuType*>& types, std::string& why);

    // The environment that makes fp32 GEMMs run in the math the job was
    // predicted in, whatever the image sets (docs/PRECISION.md): tf32 turns
    // TF32 on (TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1, read by PyTorch), fp32
    // turns it off (TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=0 over the =1 of
    // NVIDIA's PyTorch containers, and NVIDIA_TF32_OVERRIDE=0, which NVIDIA's
    // libraries obey whatever the framework asks). Empty for 16-bit
    // precisions. A tf32 job must also not inherit NVIDIA_TF32_OVERRIDE=0:
    // kTf32Unset names it for the launchers that can unset a variable.
    struct EnvVar {
        std::string name, value;
    };
    static std::vector<EnvVar> matmulEnvironment(const std::string& precision);
    static constexpr const char* kTf32Unset = "NVIDIA_TF32_OVERRIDE";
};

}  // namespace memx
