#include "search/PlanExplanation.h"

#include "io/Text.h"
#include "search/PlanCost.h"
#include "search/SearchResult.h"

#include <cmath>
#include <cstdio>

namespace memx {

namespace {

template <typename... A> std::string format(const char* f, A... a)
{
    char buf[512];
    std::snprintf(buf, sizeof buf, f, a...);
    return buf;
}

std::string seconds(double ms) { return Text::fmt("%.1f s", ms / 1000.0); }

std::string gib(double mib) { return Text::fmt("%.1f GiB", mib / 1024.0); }

std::string variance(double v, VarianceMode mode)
{
    return mode == VarianceMode::AbsoluteMiB ? Text::fmt("%.3g GiB^2", v / (1024.0 * 1024.0))
                                             : Text::fmt("%.3g (utilisation^2)", v);
}

std::string summary(const Plan& p, VarianceMode mode)
{
    return "T " + seconds(p.iterationMs) + Text::fmt(" (%.0f tokens/s)", PlanCost::tokensPerSecond(p)) + ", peak "
        + gib(p.maxMemMiB) + ", V " + variance(p.varMem, mode)
        + Text::fmt(", lowest headroom %.0f%%", 100 * p.minHeadroom()) + " (TP " + p.meshValues(&StageShape::tp)
        + ", PP " + std::to_string(p.pp) + ", DP " + p.meshValues(&StageShape::dp) + ")";
}

std::string ruleOf(WeightProfile k)
{
    switch (k) {
    case WeightProfile::SafetyFirst:
        return "safety-first weighs peak memory most: plans with headroom win over faster, tighter ones";
    case WeightProfile::ThroughputFirst:
        return "throughput-first weighs time most, but still lets a large memory imbalance count";
    case WeightProfile::Custom: return "custom weights, as set in the Objective panel";
    case WeightProfile::Balanced:
        return "balanced picks the knee of the time-variance Pareto front: the plan farthest (normalised) from the "
               "line between the fastest plan and the most balanced one; Phi is shown under the default weights";
    case WeightProfile::Auto:
    case WeightProfile::Default: break;
    }
    return "default weighs time and memory balance most, peak memory least (the paper's default profile)";
}

}  // namespace

std::vector<std::string> PlanExplanation::lines(const SearchResult& r, const Plan& chosen)
{
    return lines(r, chosen, r.profileUsed, r.weights);
}

std::string PlanExplanation::epsilonReason(const SearchResult& r)
{
    const References& ref = r.references;
    switch (ref.epsilonRule) {
    case EpsilonRule::Uncertainty: {
        const std::string fullest = r.varianceMode == VarianceMode::AbsoluteMiB
            ? Text::fmt("%.2f GiB", ref.epsilonFullest / 1024)
            : Text::fmt("%.0f%% of its memory", 100 * ref.epsilonFullest);
        const double spread = Objective::kEpsilonSpread * ref.epsilonUncertainty * ref.epsilonFullest;
        std::string out = "memory predictions +-" + Text::fmt("%.0f", 100 * ref.epsilonUncertainty)
            + "% on a fullest GPU of " + fullest
            + " (median); per-GPU peaks within that of one another are not told apart by V";
        if (ref.epsilon > spread * spread * (1 + 1e-9))
            out += " (the paper's 0.01 x V is larger and is used)";
        return out;
    }
    case EpsilonRule::Fraction:
        return Text::fmt("%g", ref.variance > 0 ? ref.epsilon / ref.variance : 0.0) + " x V"
            + (std::abs(ref.epsilon - 0.01 * ref.variance) <= 1e-9 * ref.variance ? " (the paper's rule, --ev paper)"
                                                                                  : "");
    case EpsilonRule::Absolute: return "as given";
    }
    return {};
}

std::vector<std::string> PlanExplanation::lines(const SearchResult& r, const Plan& chosen, WeightProfile kind,
                                                const Weights& w)
{
    std::vector<std::string> out;
    const References& ref = r.references;
    out.push_back("Phi = (T/Tref)^" + Text::fmt("%.2f", w.time) + " x (M/Mref)^" + Text::fmt("%.2f", w.memory)
                  + " x ((V+eV)/(Vref+eV))^" + Text::fmt("%.2f", w.variance)
                  + "; lower is better. T is the iteration time, M the largest per-GPU peak memory, V the variance "
                    "of peak memory across GPUs. The references are the medians over the feasible plans: Tref "
                  + seconds(ref.time) + ", Mref " + gib(ref.memory) + ", Vref " + variance(ref.variance, r.varianceMode)
                  + "; eV " + variance(ref.epsilon, r.varianceMode) + ": " + epsilonReason(r) + ".");
    const bool searched = kind == r.profileUsed;
    out.push_back(
        "Profile " + std::string(toString(kind)) + ": " + ruleOf(kind)
        + (!searched || r.profileReason.empty() || r.profileReason == "requested" ? "" : " (" + r.profileReason + ")")
        + ".");
    if (r.constraints.any()) {
        std::string c = "Only plans that meet the constraints were ranked:";
        if (r.constraints.minHeadroom > 0)
            c += format(" every GPU keeps at least %.0f%% of its memory free%s", 100 * r.constraints.minHeadroom,
                        r.constraints.headroomAtUpper ? " at the prediction's upper bound" : "");
        if (r.constraints.maxSlowdown >= 0)
            c += format("%s at most %.0f%% slower than the fastest feasible plan",
                        r.constraints.minHeadroom > 0 ? ";" : "", 100 * r.constraints.maxSlowdown);
        out.push_back(c + ".");
    }
    // Phi from the result's references and weights: a plan picked from the
    // fastest list or the plot was not ranked under them.
    const double chosenPhi = Objective::phi(chosen.rankMs(), chosen.maxMemMiB, chosen.varMem, ref, w);
    out.push_back("This plan: " + summary(chosen, r.varianceMode) + Text::fmt("; Phi %.3g.", chosenPhi));
    if (r.fastest.empty())
        return out;
    const Plan& fast = r.fastest.front();
    if (fast.key == chosen.key) {
        out.push_back("It is also the fastest feasible plan.");
        return out;
    }
    const double fastPhi = Objective::phi(fast.rankMs(), fast.maxMemMiB, fast.varMem, ref, w);
    out.push_back("Fastest feasible plan: " + summary(fast, r.varianceMode) + Text::fmt("; Phi %.3g.", fastPhi));
    // Phi(fastest) / Phi(this) factor by factor.
    const double ft = std::pow(fast.rankMs() / chosen.rankMs(), w.time);
    const double fm = std::pow(fast.maxMemMiB / chosen.maxMemMiB, w.memory);
    const double fv = std::pow((fast.varMem + ref.epsilon) / (chosen.varMem + ref.epsilon), w.variance);
    const double slower = 100.0 * (chosen.rankMs() / fast.rankMs() - 1.0);
    std::string why = format("This plan is %.0f%% slower than the fastest. Against it, the fastest plan's Phi is "
                             "x%.2f for time, x%.2f for peak memory and x%.2f for memory variance",
                             slower, ft, fm, fv);
    if (fastPhi >= chosenPhi) {
        const char* decisive = fv >= fm ? "its memory imbalance" : "its peak memory";
        why += format(" (x%.2f in all): %s outweighs its speed under these weights.", ft * fm * fv, decisive);
    } else {
        why += format(" (x%.2f in all): it scores better, but is not in this profile's ranking.", ft * fm * fv);
    }
    out.push_back(why);
    return out;
}

}  // namespace memx
