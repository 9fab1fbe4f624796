#include "search/Objective.h"

#include "io/EnumNames.h"
#include "io/InputError.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace memx {

const char* toString(WeightProfile p)
{
    switch (p) {
    case WeightProfile::Default: return "default";
    case WeightProfile::SafetyFirst: return "safety-first";
    case WeightProfile::ThroughputFirst: return "throughput-first";
    case WeightProfile::Custom: return "custom";
    case WeightProfile::Auto: return "auto";
    case WeightProfile::Balanced: return "balanced";
    }
    return "?";
}

bool parseProfile(const std::string& s, WeightProfile& out)
{
    return parseByName(s, out,
                       {WeightProfile::Default, WeightProfile::SafetyFirst, WeightProfile::ThroughputFirst,
                        WeightProfile::Custom, WeightProfile::Auto, WeightProfile::Balanced});
}

Weights weightsOf(WeightProfile p)
{
    switch (p) {
    case WeightProfile::SafetyFirst: return {0.3, 0.5, 0.2};
    case WeightProfile::ThroughputFirst: return {0.7, 0.2, 0.1};
    default: return {0.4, 0.2, 0.4};
    }
}

const char* toString(EpsilonRule r)
{
    switch (r) {
    case EpsilonRule::Uncertainty: return "uncertainty";
    case EpsilonRule::Fraction: return "fraction";
    case EpsilonRule::Absolute: return "absolute";
    }
    return "?";
}

bool parseEpsilonRule(const std::string& s, EpsilonRule& out)
{
    return parseByName(s, out, {EpsilonRule::Uncertainty, EpsilonRule::Fraction, EpsilonRule::Absolute});
}

const char* toString(VarianceMode v) { return v == VarianceMode::Utilisation ? "util" : "mib"; }

bool parseVarianceMode(const std::string& s, VarianceMode& out)
{
    return parseByName(s, out, {VarianceMode::AbsoluteMiB, VarianceMode::Utilisation});
}

void ObjectiveSpec::validate() const
{
    auto fail = [](const char* field, const std::string& reason) { throw InputError("objective", field, reason); };
    // Checked whatever the profile: the weights stay in the file and the
    // panel for when Custom is chosen.
    try {
        Objective::normalised(custom);
    } catch (const std::invalid_argument& e) {
        fail("custom_weights", e.what());
    }
    if (!(epsilonFraction > 0 && epsilonFraction < 1))
        fail("epsilon_fraction", "expected a small fraction in (0, 1)");
    if (!(epsilonValue >= 0 && std::isfinite(epsilonValue)))
        fail("epsilon", "expected a finite number >= 0");
    if (!(minHeadroom >= 0 && minHeadroom < 1))
        fail("min_headroom", "expected a fraction in [0, 1)");
    if (!(maxSlowdown < 0 || maxSlowdown <= 100) || std::isnan(maxSlowdown))
        fail("max_slowdown", "expected a fraction of at least 0 (0.1 = 10% slower than the fastest plan)");
    for (auto [field, t] : {std::pair{"safety_margin_threshold", safetyMarginThreshold},
                            std::pair{"weak_heterogeneity_threshold", weakHeterogeneityThreshold}})
        if (!(t >= 0 && t <= 1))
            fail(field, "expected a fraction in [0, 1]");
}

const char* toString(TaskCompare c) { return c == TaskCompare::PerToken ? "per-token" : "per-task"; }

bool parseTaskCompare(const std::string& s, TaskCompare& out)
{
    return parseByName(s, out, {TaskCompare::PerTask, TaskCompare::PerToken});
}

double Objective::epsilon(const ObjectiveSpec& spec, double vref, double uncertainty, double fullest)
{
    constexpr double kFloor = 1e-12;  // keeps V + eV > 0 when every plan is balanced
    const double paper = 0.01 * vref;
    switch (spec.epsilonRule) {
    case EpsilonRule::Absolute: return std::max(spec.epsilonValue, kFloor);
    case EpsilonRule::Fraction: return std::max(spec.epsilonFraction * vref, kFloor);
    case EpsilonRule::Uncertainty: {
        const double spread = kEpsilonSpread * std::max(uncertainty, 0.0) * std::max(fullest, 0.0);
        return std::max({spread * spread, paper, kFloor});
    }
    }
    return std::max(paper, kFloor);
}

double Objective::phi(double t, double m, double v, const References& ref, const Weights& w)
{
    double tn = t / ref.time;
    double mn = m / ref.memory;
    double vn = (v + ref.epsilon) / (ref.variance + ref.epsilon);
    return std::pow(tn, w.time) * std::pow(mn, w.memory) * std::pow(vn, w.variance);
}

Weights Objective::normalised(Weights w)
{
    if (w.time < 0 || w.memory < 0 || w.variance < 0)
        throw std::invalid_argument("weights must not be negative");
    double sum = w.time + w.memory + w.variance;
    if (!(sum > 0))
        throw std::invalid_argument("at least one weight must be positive");
    return {w.time / sum, w.memory / sum, w.variance / sum};
}

}  // namespace memx
