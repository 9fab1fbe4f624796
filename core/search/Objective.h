#pragma once

#include <string>
#include <vector>

namespace memx {

// Weights of Phi = (T/Tref)^wT * (M/Mref)^wM * ((V+eV)/(Vref+eV))^wV (MemX Eq. 2).
struct Weights {
    double time = 0.4;
    double memory = 0.2;
    double variance = 0.4;

    bool operator==(const Weights&) const = default;
};

// Balanced is not a weighting: it picks the knee of the time-variance Pareto
// front (search/ParetoKnee.h); Phi values shown for it use the default weights.
enum class WeightProfile { Default, SafetyFirst, ThroughputFirst, Custom, Auto, Balanced };
const char* toString(WeightProfile p);
bool parseProfile(const std::string& s, WeightProfile& out);
Weights weightsOf(WeightProfile p);  // the paper's three profiles; Custom/Auto -> default

// Memory variance over absolute MiB (the paper) or over utilisation
// (peak / capacity), which clusters with very different capacities want.
enum class VarianceMode { AbsoluteMiB, Utilisation };
const char* toString(VarianceMode v);  // "mib", "util"
bool parseVarianceMode(const std::string& s, VarianceMode& out);

// eV, the floor under V in Phi. The paper fixes eV = 0.01 x Vref; by default
// it follows the uncertainty of the memory predictions instead, so that plans
// whose per-GPU peaks differ by less than that uncertainty are not told apart
// by V (docs/ARCHITECTURE.md, "eV: variance within what the model can tell
// apart"): eV = (2 u X)^2, u the predictions' relative uncertainty and X the
// fullest GPU's peak (MiB, or utilisation), both medians; never below the
// paper's value.
enum class EpsilonRule {
    Uncertainty,  // --ev uncertainty (default)
    Fraction,  // --ev paper (fraction 0.01) or --eps F: eV = F x Vref
    Absolute,  // --ev X: eV = X, in V's unit
};
const char* toString(EpsilonRule r);
bool parseEpsilonRule(const std::string& s, EpsilonRule& out);

// Sequence length and query groups change the training task (issue #33): an
// iteration at 2048 tokens does not do the work of one at 8192. When a search
// is given several such values, PerTask ranks each task on its own (its own
// references) and sets their best plans side by side; PerToken ranks every
// plan together on time per token (T scaled to the largest task's tokens per
// iteration), the user's explicit choice (--compare-tasks per-token).
enum class TaskCompare { PerTask, PerToken };
const char* toString(TaskCompare c);
bool parseTaskCompare(const std::string& s, TaskCompare& out);

struct ObjectiveSpec {
    WeightProfile profile = WeightProfile::Default;
    Weights custom;  // used when profile == Custom (normalised to sum 1)
    VarianceMode variance = VarianceMode::AbsoluteMiB;
    EpsilonRule epsilonRule = EpsilonRule::Uncertainty;
    double epsilonFraction = 0.01;  // Fraction: eV = epsilonFraction * Vref (the paper: 0.01)
    double epsilonValue = 0;  // Absolute: eV in MiB^2 (or utilisation^2)
    // Auto rule thresholds (MemX 3.1.2): safety-first below this memory margin,
    // throughput-first at or below this heterogeneity (CV of device compute).
    double safetyMarginThreshold = 0.10;
    double weakHeterogeneityThreshold = 0.10;
    // Constraints, applied before Phi ranks (to every profile's pick):
    double minHeadroom = 0;  // every GPU keeps at least this fraction of its memory free; 0: off
    bool headroomAtUpper = false;  // ... with its peak at the prediction's upper bound, peak x (1 + uncertainty)
    double maxSlowdown = -1;  // at most this much slower than the fastest feasible plan; < 0: off
    TaskCompare compareTasks = TaskCompare::PerTask;  // several sequence lengths or query groups

    // Throws InputError("objective", field, reason) for a value no search
    // takes; fields as ObjectiveSpecJson spells them (custom_weights,
    // epsilon_fraction, epsilon, min_headroom, max_slowdown, thresholds).
    void validate() const;
    bool operator==(const ObjectiveSpec&) const = default;
};

struct References {
    double time = 1, memory = 1, variance = 0, epsilon = 0;
    // How epsilon was chosen: the rule, and for Uncertainty the median
    // relative uncertainty u and fullest-GPU value X it used.
    EpsilonRule epsilonRule = EpsilonRule::Fraction;
    double epsilonUncertainty = 0;
    double epsilonFullest = 0;
};

// The objective itself: pure arithmetic, shared by search, tests and GUI.
struct Objective {
    static double phi(double t, double m, double v, const References& ref, const Weights& w);
    static Weights normalised(Weights w);  // throws std::invalid_argument when all are zero or any negative
    // eV under `spec`'s rule (the comment at EpsilonRule): `vref` is Vref,
    // `uncertainty` the memory predictions' relative uncertainty, `fullest`
    // the fullest GPU's value in V's unit (MiB, or utilisation).
    static double epsilon(const ObjectiveSpec& spec, double vref, double uncertainty, double fullest);
    // The factor by which the uncertainty rule's eV exceeds (u X)^2: a plan
    // whose peaks spread by no more than the uncertainty (V <= (u X)^2)
    // scores within (1 + 1/4)^wV of a perfectly balanced one (<= 9.3% of Phi).
    static constexpr double kEpsilonSpread = 2.0;
};

}  // namespace memx
