#pragma once

#include "hardware/GpuType.h"
#include "model/Precision.h"

#include <string>

namespace memx {

struct Problem;
class Cluster;

// The one precision a job trains in on every rank (docs/PRECISION.md).
// TrainingSetup::precision is "auto" or a precision name; "auto" takes bf16
// where every GPU type of the cluster has it, else fp16, else tf32, else fp32.
// A named precision that some type lacks (fp8 on an A100, bf16 on a V100, a
// type without that peak in the catalog) throws InputError naming the
// types and the precisions they do have.
Precision jobPrecision(const Problem& problem);
Precision jobPrecision(const std::string& setting, const Cluster& cluster);

// FlashAttention needs 16-bit inputs: fp32 and tf32 jobs run the unfused
// attention core (Megatron's --attention-backend unfused).
inline bool flashAttentionRuns(bool requested, Precision p) { return requested && !storesFp32(p); }
// ... and a GPU that has it (GpuType::hasFlashAttention): asked for on a
// cluster with V100s, the V100 stages run the unfused core, as Megatron's
// default backend (auto) falls back to on them.
inline bool flashAttentionRuns(bool requested, Precision p, const GpuType& gpu)
{
    return flashAttentionRuns(requested, p) && gpu.hasFlashAttention();
}

}  // namespace memx
