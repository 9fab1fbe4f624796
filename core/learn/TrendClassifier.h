#pragma once

#include <string>
#include <utility>
#include <vector>

namespace memx {

// The interpolation gate of MemX section 3.2.2 (Table 2): fit a line to a
// dense single-parameter sweep (5-7 points), compute R^2, and decide how far
// linear interpolation may be trusted for that (parameter, metric) pair.
struct TrendClassifier {
    enum class Trend {
        StrongLinear,  // R^2 >= 0.98: interpolate with large steps
        ApproxLinear,  // 0.95 <= R^2 < 0.98: smaller steps (midpoints only)
        Superlinear,  // growth faster than linear (log-log slope > 1): only between neighbours, in log space
        Nonlinear,  // anything else: no interpolation
        Constant  // relative spread below the threshold: fix at the default, no rows needed
    };

    struct Fit {
        double slope = 0;
        double intercept = 0;
        double r2 = 0;  // coefficient of determination of the straight line
        double logLogSlope = 0;  // slope of log y against log x (when all positive)
        double relativeSpread = 0;  // (max - min) / mean of y
        Trend trend = Trend::Nonlinear;
    };

    // Thresholds: the paper's R^2 > 0.95 gate, 0.98 for "strong", and a 2%
    // spread under which a metric is treated as constant (Table 2's query groups).
    static constexpr double kStrong = 0.98;
    static constexpr double kGate = 0.95;
    static constexpr double kConstantSpread = 0.02;

    // xs ascending, at least 3 points; throws std::invalid_argument otherwise.
    static Fit classify(const std::vector<double>& xs, const std::vector<double>& ys);

    // Interpolated (x, y) points strictly between the measured xs, as many as
    // the trend allows: `perGap` per interval for StrongLinear, 1 (the
    // midpoint) for ApproxLinear, 1 log-space midpoint for Superlinear, none
    // for Nonlinear and Constant.
    static std::vector<std::pair<double, double>> interpolate(const std::vector<double>& xs,
                                                              const std::vector<double>& ys, Trend trend, int perGap);

    static const char* toString(Trend t);
};

}  // namespace memx
