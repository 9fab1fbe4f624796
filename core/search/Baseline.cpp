#include "search/Baseline.h"

namespace memx {

const BaselineInfo& baselineInfo(BaselineKind kind)
{
    static const std::array<BaselineInfo, kBaselineKinds> infos = {{
        {"compute-proportional", "Compute-proportional (AMP/HexiScale)",
         "TP, PP, DP, micro-batch and placement; layers in proportion to each stage's predicted per-layer speed; "
         "the fastest such plan",
         "recomputation (none on every stage) and memory: the pick is not checked against device memory"},
        {"memory-proportional", "Memory-proportional (Table 1)",
         "TP, PP, DP, micro-batch and placement; layers in proportion to how many layers each stage's memory "
         "holds; the fastest such plan that fits",
         "recomputation (none on every stage) and compute balance"},
        {"metis", "Metis-style",
         "TP, PP, DP, micro-batch and placement; the layer split that minimises the bottleneck stage, under memory; "
         "one recomputation level for every stage; the plan with the least (G + P - 1) x bottleneck stage time",
         "per-stage recomputation, communication and gradient synchronisation in its ranking"},
        {"fasop", "FaSOP-style",
         "TP, PP, DP, micro-batch and placement; throughput first: the fastest plan that fits, with the layers "
         "split evenly and one recomputation level for every stage",
         "uneven layer splits and per-stage recomputation"},
        {"memx", "MemX",
         "everything above plus uneven splits with per-stage recomputation, ranked by Phi under the profile",
         "nothing of the above"},
    }};
    return infos[static_cast<std::size_t>(kind)];
}

}  // namespace memx
