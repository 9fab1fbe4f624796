#pragma once

#include "hardware/Cluster.h"
#include "space/Plan.h"

#include <string>
#include <vector>

namespace memx {

// What a plan delivers and costs (issue #32 item 4). Rented GPUs are paid by
// the node: every node the plan puts a stage on is paid whole, idle GPUs in
// it included; nodes it leaves out are not. Prices come from the GPU types
// (GpuType::pricePerHour); unknown when one of the paid GPUs has none.
struct PlanCost {
    double tokensPerS = 0;  // gbs x seq / T
    int paidGpus = 0;  // GPUs of the nodes the plan uses
    int usedGpus = 0;  // GPUs the plan's stages run on
    double perHour = -1;  // price of the paid GPUs per hour; < 0: unknown
    double perMillionTokens = -1;  // perHour / (tokens per hour) x 1e6; < 0: unknown
    std::vector<std::string> unusedNodes;  // nodes the plan leaves out (not paid)

    static PlanCost of(const Cluster& cluster, const Plan& plan);
    // The same with the cluster unknown (null): tokens per second only, cost unknown.
    static PlanCost of(const Cluster* cluster, const Plan& plan);
    // "35987 tokens/s, 20.00 per hour, 0.154 per million tokens", or
    // "..., cost unknown" when some paid GPU has no price.
    std::string brief() const;
    static double tokensPerSecond(const Plan& plan);
};

}  // namespace memx
