#include "learn/TrendClassifier.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace memx {

TrendClassifier::Fit TrendClassifier::classify(const std::vector<double>& xs, const std::vector<double>& ys)
{
    const std::size_t n = xs.size();
    if (n < 3 || ys.size() != n)
        throw std::invalid_argument("a sweep needs at least 3 points with one value each");
    for (std::size_t i = 1; i < n; ++i)
        if (!(xs[i] > xs[i - 1]))
            throw std::invalid_argument("sweep values must be strictly ascending");
    Fit f;
    double mx = 0, my = 0;
    for (std::size_t i = 0; i < n; ++i) {
        mx += xs[i];
        my += ys[i];
    }
    mx /= n;
    my /= n;
    double sxx = 0, sxy = 0, syy = 0;
    for (std::size_t i = 0; i < n; ++i) {
        sxx += (xs[i] - mx) * (xs[i] - mx);
        sxy += (xs[i] - mx) * (ys[i] - my);
        syy += (ys[i] - my) * (ys[i] - my);
    }
    f.slope = sxy / sxx;
    f.intercept = my - f.slope * mx;
    f.r2 = syy > 0 ? (sxy * sxy) / (sxx * syy) : 1.0;
    auto [lo, hi] = std::minmax_element(ys.begin(), ys.end());
    f.relativeSpread = my != 0 ? (*hi - *lo) / std::abs(my) : (*hi - *lo);
    bool positive = std::all_of(xs.begin(), xs.end(), [](double v) { return v > 0; })
        && std::all_of(ys.begin(), ys.end(), [](double v) { return v > 0; });
    if (positive) {
        double lmx = 0, lmy = 0;
        for (std::size_t i = 0; i < n; ++i) {
            lmx += std::log(xs[i]);
            lmy += std::log(ys[i]);
        }
        lmx /= n;
        lmy /= n;
        double lsxx = 0, lsxy = 0;
        for (std::size_t i = 0; i < n; ++i) {
            lsxx += (std::log(xs[i]) - lmx) * (std::log(xs[i]) - lmx);
            lsxy += (std::log(xs[i]) - lmx) * (std::log(ys[i]) - lmy);
        }
        f.logLogSlope = lsxy / lsxx;
    }
    if (f.relativeSpread < kConstantSpread)
        f.trend = Trend::Constant;
    else if (f.r2 >= kStrong)
        f.trend = Trend::StrongLinear;
    else if (f.r2 >= kGate)
        f.trend = Trend::ApproxLinear;
    else if (positive && f.logLogSlope > 1.0)
        f.trend = Trend::Superlinear;
    else
        f.trend = Trend::Nonlinear;
    return f;
}

std::vector<std::pair<double, double>>
TrendClassifier::interpolate(const std::vector<double>& xs, const std::vector<double>& ys, Trend trend, int perGap)
{
    std::vector<std::pair<double, double>> out;
    if (xs.size() < 2 || ys.size() != xs.size())
        return out;
    for (std::size_t i = 0; i + 1 < xs.size(); ++i) {
        const double x0 = xs[i], x1 = xs[i + 1], y0 = ys[i], y1 = ys[i + 1];
        switch (trend) {
        case Trend::StrongLinear:
            for (int k = 1; k <= perGap; ++k) {
                double a = double(k) / (perGap + 1);
                out.emplace_back(x0 + a * (x1 - x0), y0 + a * (y1 - y0));
            }
            break;
        case Trend::ApproxLinear: out.emplace_back(0.5 * (x0 + x1), 0.5 * (y0 + y1)); break;
        case Trend::Superlinear:
            if (x0 > 0 && y0 > 0 && y1 > 0) {
                // Geometric midpoint: exact for a power law between neighbours.
                double xm = std::sqrt(x0 * x1);
                double p = std::log(y1 / y0) / std::log(x1 / x0);
                out.emplace_back(xm, y0 * std::pow(xm / x0, p));
            }
            break;
        case Trend::Nonlinear:
        case Trend::Constant: break;
        }
    }
    return out;
}

const char* TrendClassifier::toString(Trend t)
{
    switch (t) {
    case Trend::StrongLinear: return "strong linear";
    case Trend::ApproxLinear: return "approximately linear";
    case Trend::Superlinear: return "superlinear";
    case Trend::Nonlinear: return "nonlinear";
    case Trend::Constant: return "constant";
    }
    return "?";
}

}  // namespace memx
