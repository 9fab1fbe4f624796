#include "search/RecomputeAblation.h"

#include "io/Text.h"
#include "search/PlanEvaluator.h"
#include "space/Plan.h"
#include "space/Problem.h"

#include <cmath>

namespace memx {

std::vector<RecomputeAblation::Variant> RecomputeAblation::uniform(const Problem& problem, const Plan& plan,
                                                                   std::shared_ptr<const Predictor> predictor,
                                                                   VarianceMode variance)
{
    std::vector<Variant> out;
    for (Recompute level : {Recompute::None, Recompute::Selective, Recompute::Full}) {
        Variant v;
        v.level = level;
        try {
            const Evaluation ev
                = PlanEvaluator::evaluate(problem,
                                          PlanSpec::of(plan, std::vector<Recompute>(plan.stages.size(), level)),
                                          predictor, variance);
            v.feasible = ev.feasible;
            v.iterationMs = ev.plan.iterationMs;
            v.maxMemMiB = ev.plan.maxMemMiB;
            v.varMem = ev.plan.varMem;
            v.whyInfeasible = ev.whyInfeasible;
        } catch (const std::exception& e) {
            v.whyInfeasible = e.what();
        }
        out.push_back(v);
    }
    return out;
}

std::string RecomputeAblation::line(const Plan& plan, const std::vector<Variant>& variants, VarianceMode variance)
{
    auto pct = [](double a, double b) { return Text::fmt("%+.0f%%", 100 * (a / b - 1)); };
    auto var = [&](double v) {
        return variance == VarianceMode::AbsoluteMiB ? Text::fmt("%.3g GiB^2", v / (1024.0 * 1024.0))
                                                     : Text::fmt("%.3g", v);
    };
    std::string out = "Recomputation per stage (" + plan.recomputeString() + ") against one level on every stage:";
    const Variant* fastest = nullptr;
    for (const Variant& v : variants)
        if (v.feasible && (!fastest || v.iterationMs < fastest->iterationMs))
            fastest = &v;
    for (const Variant& v : variants) {
        out += "\n  " + std::string(toString(v.level)) + ": ";
        if (!v.feasible) {
            out += "does not fit" + (v.whyInfeasible.empty() ? std::string() : " (" + v.whyInfeasible + ")");
            continue;
        }
        out += pct(v.iterationMs, plan.iterationMs) + " time (" + Text::fmt("%.1f", v.iterationMs) + " ms), "
            + pct(v.maxMemMiB, plan.maxMemMiB) + " peak memory (" + Text::fmt("%.2f", v.maxMemMiB / 1024)
            + " GiB), memory variance " + var(plan.varMem) + " -> " + var(v.varMem);
        if (&v == fastest)
            out += "  <- the best uniform level";
    }
    return out + "\n";
}

}  // namespace memx
