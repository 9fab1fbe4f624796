#include "export/SimplexReport.h"

#include "io/Text.h"
#include "search/PlanCost.h"

#include <algorithm>

namespace memx {

namespace {
std::string semicolons(std::string s)
{
    std::replace(s.begin(), s.end(), ',', ';');
    return s;
}
}  // namespace

std::string SimplexReport::csv(const SimplexMap& map, const Cluster& cluster)
{
    std::string out = "w_time,w_memory,w_variance,plan,key,iteration_ms,max_mem_mib,mem_variance,phi,tp,pp,dp,"
                      "micro_batch,layers,recompute,region_points,tokens_per_s,cost_per_hour,cost_per_million_tokens\n";
    std::vector<PlanCost> costs;
    for (const Plan& p : map.plans)
        costs.push_back(PlanCost::of(cluster, p));
    const auto money = [](double v) { return v < 0 ? std::string() : Text::fmt("%.6g", v); };  // empty: unknown
    for (const auto& pt : map.points) {
        const Plan& p = map.plans[pt.winner];
        const PlanCost& c = costs[pt.winner];
        out += Text::fmt("%.2f", pt.weights.time) + "," + Text::fmt("%.2f", pt.weights.memory) + ","
            + Text::fmt("%.2f", pt.weights.variance) + ",P" + std::to_string(pt.winner + 1) + ","
            + std::to_string(p.key) + "," + Text::fmt("%.3f", p.iterationMs) + "," + Text::fmt("%.1f", p.maxMemMiB)
            + "," + Text::fmt("%.6g", p.varMem) + "," + Text::fmt("%.6g", pt.phi) + "," + std::to_string(p.tp) + ","
            + std::to_string(p.pp) + "," + std::to_string(p.dp) + "," + std::to_string(p.microBatch) + ","
            + semicolons(p.layersString()) + "," + semicolons(p.recomputeString()) + ","
            + std::to_string(map.regionSize[pt.winner]) + "," + Text::fmt("%.1f", c.tokensPerS) + "," + money(c.perHour)
            + "," + money(c.perMillionTokens) + "\n";
    }
    return out;
}

std::string SimplexReport::summary(const SimplexMap& map, const Cluster& cluster)
{
    const std::size_t n = map.points.size();
    std::string out = "\nWeight simplex: " + std::to_string(n) + " weightings (step " + Text::fmt("%g", 1.0 / map.steps)
        + ") over " + std::to_string(map.candidates) + " kept plans: " + std::to_string(map.plans.size())
        + " distinct winners\n";
    double tMin = map.plans.front().iterationMs, tMax = tMin, mMin = map.plans.front().maxMemMiB, mMax = mMin;
    for (const Plan& p : map.plans) {
        tMin = std::min(tMin, p.iterationMs);
        tMax = std::max(tMax, p.iterationMs);
        mMin = std::min(mMin, p.maxMemMiB);
        mMax = std::max(mMax, p.maxMemMiB);
    }
    out += "  winners span " + Text::fmt("%.1f", tMin) + "-" + Text::fmt("%.1f", tMax) + " ms and "
        + Text::fmt("%.2f", mMin / 1024) + "-" + Text::fmt("%.2f", mMax / 1024) + " GiB peak\n";
    for (std::size_t k = 0; k < map.plans.size(); ++k) {
        const Plan& p = map.plans[k];
        out += "  P" + std::to_string(k + 1) + ": " + Text::fmt("%.1f", p.iterationMs) + " ms, "
            + Text::fmt("%.2f", p.maxMemMiB / 1024) + " GiB, TP=" + std::to_string(p.tp) + " PP=" + std::to_string(p.pp)
            + " DP=" + std::to_string(p.dp) + " layers " + p.layersString() + " recompute " + p.recomputeString()
            + ": wins " + std::to_string(map.regionSize[k]) + " of " + std::to_string(n) + " weightings ("
            + Text::fmt("%.0f", 100.0 * map.regionSize[k] / n) + "%); " + PlanCost::of(cluster, p).brief() + "\n";
    }
    for (WeightProfile kind : {WeightProfile::Default, WeightProfile::SafetyFirst, WeightProfile::ThroughputFirst}) {
        const auto& pt = map.at(weightsOf(kind));
        out += "  " + std::string(toString(kind)) + " (" + Text::fmt("%g", pt.weights.time) + ", "
            + Text::fmt("%g", pt.weights.memory) + ", " + Text::fmt("%g", pt.weights.variance)
            + ") lies in the region of P" + std::to_string(pt.winner + 1) + " ("
            + std::to_string(map.regionSize[pt.winner]) + " weightings)\n";
    }
    return out;
}

}  // namespace memx
