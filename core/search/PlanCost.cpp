#include "search/PlanCost.h"

#include "io/Text.h"

#include <vector>

namespace memx {

std::string PlanCost::brief() const
{
    std::string out = Text::fmt("%.0f", tokensPerS) + " tokens/s, ";
    if (perHour < 0)
        return out + "cost unknown";
    out += Text::fmt("%.2f", perHour) + " per hour";
    if (perMillionTokens >= 0)
        out += ", " + Text::fmt("%.3g", perMillionTokens) + " per million tokens";
    return out;
}

double PlanCost::tokensPerSecond(const Plan& plan)
{
    return plan.iterationMs > 0 ? 1000.0 * plan.globalBatch * plan.seqLen / plan.iterationMs : 0;
}

PlanCost PlanCost::of(const Cluster* cluster, const Plan& plan)
{
    if (cluster)
        return of(*cluster, plan);
    PlanCost c;
    c.tokensPerS = tokensPerSecond(plan);
    return c;
}

PlanCost PlanCost::of(const Cluster& cluster, const Plan& plan)
{
    PlanCost c;
    c.tokensPerS = tokensPerSecond(plan);
    std::vector<bool> paid(cluster.nodes().size(), false);
    for (const StagePlan& s : plan.stages)
        for (int d : s.devices)
            if (d >= 0 && d < cluster.deviceCount()) {
                paid[static_cast<std::size_t>(cluster.devices()[static_cast<std::size_t>(d)].node)] = true;
                ++c.usedGpus;
            }
    bool known = true;
    double perHour = 0;
    for (std::size_t n = 0; n < paid.size(); ++n) {
        if (!paid[n]) {
            c.unusedNodes.push_back(cluster.nodes()[n].name);
            continue;
        }
        for (int d : cluster.nodes()[n].devices) {
            ++c.paidGpus;
            const double price = cluster.typeOf(d).pricePerHour;
            known = known && price >= 0;
            perHour += price;
        }
    }
    if (known && c.paidGpus > 0) {
        c.perHour = perHour;
        if (c.tokensPerS > 0)
            c.perMillionTokens = perHour / (c.tokensPerS * 3600.0) * 1e6;
    }
    return c;
}

}  // namespace memx
