#pragma once

#include <array>
#include <string>

namespace memx {

// The planners the MemX paper compares against, as partitioners inside our
// engine (same cluster, model, predictor and memory model), and MemX itself.
// What each searches and leaves out is in docs/BASELINES.md and in `info`.
enum class BaselineKind {
    ComputeProportional,  // AMP / HexiScale: layers by compute, no recomputation, no memory check
    MemoryProportional,  // the paper's Table 1 alternative: layers by memory, no recomputation
    MetisStyle,  // minimise the bottleneck stage, one recomputation level for all stages
    FasopStyle,  // throughput first over TP/PP/DP, even split, one level for all stages
    MemX,  // Phi with per-stage recomputation (the search itself)
};
inline constexpr int kBaselineKinds = 5;
inline constexpr std::array<BaselineKind, kBaselineKinds> kAllBaselines
    = {BaselineKind::ComputeProportional, BaselineKind::MemoryProportional, BaselineKind::MetisStyle,
       BaselineKind::FasopStyle, BaselineKind::MemX};

struct BaselineInfo {
    const char* key;  // "compute-proportional": JSON and CLI
    const char* name;  // "Compute-proportional (AMP/HexiScale)"
    const char* searches;  // what it chooses
    const char* leavesOut;  // what it does not search
};

const BaselineInfo& baselineInfo(BaselineKind kind);

}  // namespace memx
