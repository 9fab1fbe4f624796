#include "learn/BayesianOptimizer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <stdexcept>

namespace memx {

namespace {

constexpr double kSqrt5 = 2.23606797749978969640917366873127623544;

// In-place Cholesky of the symmetric n x n matrix a (row-major), lower
// triangle. Returns false if a is not (numerically) positive definite.
bool cholesky(std::vector<double>& a, std::size_t n)
{
    for (std::size_t j = 0; j < n; ++j) {
        double d = a[j * n + j];
        for (std::size_t k = 0; k < j; ++k)
            d -= a[j * n + k] * a[j * n + k];
        if (!(d > 0) || !std::isfinite(d))
            return false;
        const double ljj = std::sqrt(d);
        a[j * n + j] = ljj;
        for (std::size_t i = j + 1; i < n; ++i) {
            double s = a[i * n + j];
            for (std::size_t k = 0; k < j; ++k)
                s -= a[i * n + k] * a[j * n + k];
            a[i * n + j] = s / ljj;
        }
        for (std::size_t k = j + 1; k < n; ++k)
            a[j * n + k] = 0;
    }
    return true;
}

// Solves L v = b (forward substitution).
std::vector<double> solveLower(const std::vector<double>& l, std::size_t n, std::vector<double> b)
{
    for (std::size_t i = 0; i < n; ++i) {
        double s = b[i];
        for (std::size_t k = 0; k < i; ++k)
            s -= l[i * n + k] * b[k];
        b[i] = s / l[i * n + i];
    }
    return b;
}

// Solves L^T v = b (back substitution).
std::vector<double> solveUpper(const std::vector<double>& l, std::size_t n, std::vector<double> b)
{
    for (std::size_t ii = n; ii-- > 0;) {
        double s = b[ii];
        for (std::size_t k = ii + 1; k < n; ++k)
            s -= l[k * n + ii] * b[k];
        b[ii] = s / l[ii * n + ii];
    }
    return b;
}

double normalPdf(double x) { return std::exp(-0.5 * x * x) / std::sqrt(2 * std::numbers::pi); }
double normalCdf(double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }

// EI on the standardised scale.
double expectedImprovementStd(double mu, double var, double best, double xi)
{
    const double improvement = best - mu - xi;
    const double sigma = std::sqrt(std::max(var, 0.0));
    if (sigma < 1e-12)
        return std::max(improvement, 0.0);
    const double g = improvement / sigma;
    return improvement * normalCdf(g) + sigma * normalPdf(g);
}

void validate(const BayesianOptimizer::Dimension& d)
{
    const std::string who = "BayesianOptimizer: dimension '" + d.name + "'";
    if (!std::isfinite(d.lo) || !std::isfinite(d.hi))
        throw std::invalid_argument(who + " has non-finite bounds");
    if (!(d.lo < d.hi))
        throw std::invalid_argument(who + " needs lo < hi");
    if (d.logScale && !(d.lo > 0))
        throw std::invalid_argument(who + " is log-scale but lo <= 0");
    if (d.integer && std::ceil(d.lo) > std::floor(d.hi))
        throw std::invalid_argument(who + " is integer but contains no integer");
}

}  // namespace

// ----------------------------------------------------------------------------
// GaussianProcess

std::vector<double> GaussianProcess::defaultLengthScales()
{
    return {0.03, 0.05, 0.08, 0.12, 0.18, 0.25, 0.35, 0.5, 0.7, 1.0, 1.5, 2.5};
}

double GaussianProcess::kernel(const std::vector<double>& a, const std::vector<double>& b, double lengthScale)
{
    double d2 = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double t = a[i] - b[i];
        d2 += t * t;
    }
    const double r = std::sqrt(d2) / lengthScale;
    return (1 + kSqrt5 * r + 5.0 / 3.0 * r * r) * std::exp(-kSqrt5 * r);
}

namespace {

void checkFitInputs(const std::vector<std::vector<double>>& x, const std::vector<double>& y, double noise,
                    const std::vector<double>& lengthScales)
{
    if (x.empty() || x.size() != y.size())
        throw std::invalid_argument("GaussianProcess::fit: need as many points as observations (>= 1)");
    const std::size_t dim = x.front().size();
    if (dim == 0)
        throw std::invalid_argument("GaussianProcess::fit: zero-dimensional inputs");
    for (const auto& p : x) {
        if (p.size() != dim)
            throw std::invalid_argument("GaussianProcess::fit: inputs of different dimensions");
        for (double v : p)
            if (!std::isfinite(v))
                throw std::invalid_argument("GaussianProcess::fit: non-finite input");
    }
    for (double v : y)
        if (!std::isfinite(v))
            throw std::invalid_argument("GaussianProcess::fit: non-finite observation");
    if (!(noise >= 0) || !std::isfinite(noise))
        throw std::invalid_argument("GaussianProcess::fit: noise must be finite and >= 0");
    if (lengthScales.empty())
        throw std::invalid_argument("GaussianProcess::fit: empty length-scale grid");
    for (double l : lengthScales)
        if (!(l > 0) || !std::isfinite(l))
            throw std::invalid_argument("GaussianProcess::fit: length scales must be positive");
}

// K + jitter I for length scale l, Cholesky-factored in place, the jitter
// escalated from the noise until K is positive definite; false when it never is.
bool factoredKernel(const std::vector<std::vector<double>>& x, double l, double noise, std::vector<double>& k)
{
    const std::size_t n = x.size();
    for (double jitter = std::max(noise, 1e-10); jitter < 1; jitter *= 10) {
        k.assign(n * n, 0);
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t j = 0; j <= i; ++j) {
                const double v = GaussianProcess::kernel(x[i], x[j], l);
                k[i * n + j] = v;
                k[j * n + i] = v;
            }
            k[i * n + i] += jitter;
        }
        if (cholesky(k, n))
            return true;
    }
    return false;
}

}  // namespace

void GaussianProcess::fit(const std::vector<std::vector<double>>& x, const std::vector<double>& y, double noise,
                          const std::vector<double>& lengthScales)
{
    checkFitInputs(x, y, noise, lengthScales);
    const std::size_t n = x.size();
    double mean = 0;
    for (double v : y)
        mean += v;
    mean /= static_cast<double>(n);
    double var = 0;
    for (double v : y)
        var += (v - mean) * (v - mean);
    double scale = n > 1 ? std::sqrt(var / static_cast<double>(n - 1)) : 0;
    if (!(scale > 0))
        scale = 1;
    std::vector<double> z(n);
    for (std::size_t i = 0; i < n; ++i)
        z[i] = (y[i] - mean) / scale;

    double bestLml = -std::numeric_limits<double>::infinity();
    bool found = false;
    for (double l : lengthScales) {
        std::vector<double> k;
        if (!factoredKernel(x, l, noise, k))
            continue;
        std::vector<double> alpha = solveUpper(k, n, solveLower(k, n, z));
        double lml = -0.5 * static_cast<double>(n) * std::log(2 * std::numbers::pi);
        for (std::size_t i = 0; i < n; ++i)
            lml += -0.5 * z[i] * alpha[i] - std::log(k[i * n + i]);
        if (!found || lml > bestLml) {
            found = true;
            bestLml = lml;
            chol_ = std::move(k);
            alpha_ = std::move(alpha);
            lengthScale_ = l;
        }
    }
    if (!found)
        throw std::invalid_argument("GaussianProcess::fit: kernel matrix is not positive definite");
    x_ = x;
    yMean_ = mean;
    yScale_ = scale;
    logLikelihood_ = bestLml;
}

std::pair<double, double> GaussianProcess::posteriorStd(const std::vector<double>& u) const
{
    if (!fitted())
        throw std::logic_error("GaussianProcess::predict before fit");
    if (u.size() != x_.front().size())
        throw std::invalid_argument("GaussianProcess::predict: wrong input dimension");
    const std::size_t n = x_.size();
    std::vector<double> ks(n);
    double mu = 0;
    for (std::size_t i = 0; i < n; ++i) {
        ks[i] = kernel(x_[i], u, lengthScale_);
        mu += ks[i] * alpha_[i];
    }
    const std::vector<double> v = solveLower(chol_, n, std::move(ks));
    double var = 1;
    for (double t : v)
        var -= t * t;
    return {mu, std::max(var, 0.0)};
}

GaussianProcess::Prediction GaussianProcess::predict(const std::vector<double>& u) const
{
    const auto [mu, var] = posteriorStd(u);
    return {mu * yScale_ + yMean_, var * yScale_ * yScale_};
}

double GaussianProcess::expectedImprovement(const std::vector<double>& u, double bestObserved, double xi) const
{
    const auto [mu, var] = posteriorStd(u);
    return expectedImprovementStd(mu, var, (bestObserved - yMean_) / yScale_, xi) * yScale_;
}

// ----------------------------------------------------------------------------
// BayesianOptimizer

double BayesianOptimizer::fromUnit(const Dimension& d, double u)
{
    u = std::clamp(u, 0.0, 1.0);
    double v = d.logScale ? std::exp(std::log(d.lo) + u * (std::log(d.hi) - std::log(d.lo))) : d.lo + u * (d.hi - d.lo);
    if (d.integer)
        v = std::clamp(std::round(v), std::ceil(d.lo), std::floor(d.hi));
    else
        v = std::clamp(v, d.lo, d.hi);
    return v;
}

double BayesianOptimizer::toUnit(const Dimension& d, double value)
{
    const double u = d.logScale ? (std::log(std::max(value, d.lo)) - std::log(d.lo)) / (std::log(d.hi) - std::log(d.lo))
                                : (value - d.lo) / (d.hi - d.lo);
    return std::clamp(u, 0.0, 1.0);
}

namespace {

// One minimisation: a Latin hypercube design, then expected improvement
// over random and incumbent-local candidates under a Gaussian process.
class BoSearch {
public:
    using Dimension = BayesianOptimizer::Dimension;
    BoSearch(const std::vector<Dimension>& dims, const std::function<double(const std::vector<double>&)>& f,
             const BayesianOptimizer::Options& options)
        : dims_(dims)
        , f_(f)
        , options_(options)
        , dim_(dims.size())
        , rng_(options.seed)
    {
        result.bestValue = std::numeric_limits<double>::infinity();
    }

    // Latin hypercube design: one point per stratum in each dimension.
    // A stop is honoured from the second design point on: one point gives a best.
    void design()
    {
        const int n0 = options_.initialPoints;
        std::vector<std::vector<double>> design(static_cast<std::size_t>(n0), std::vector<double>(dim_));
        for (std::size_t i = 0; i < dim_; ++i) {
            std::vector<int> strata(static_cast<std::size_t>(n0));
            for (int s = 0; s < n0; ++s)
                strata[static_cast<std::size_t>(s)] = s;
            std::shuffle(strata.begin(), strata.end(), rng_);
            for (int s = 0; s < n0; ++s)
                design[static_cast<std::size_t>(s)][i] = (strata[static_cast<std::size_t>(s)] + uniform_(rng_)) / n0;
        }
        for (std::size_t k = 0; k < design.size() && !result.stopped; ++k) {
            if (k > 0 && options_.stop && options_.stop())
                result.stopped = true;
            else
                evaluate(design[k]);
        }
    }

    void iterate()
    {
        GaussianProcess gp;
        for (int it = 0; it < options_.iterations && !result.stopped; ++it) {
            if (options_.stop && options_.stop()) {
                result.stopped = true;
                break;
            }
            const std::vector<double> targets = gpTargets();
            bool haveGp = true;
            try {
                gp.fit(unitPoints_, targets, options_.noise);
            } catch (const std::invalid_argument&) {
                haveGp = false;  // degenerate: fall back to the random candidate
            }
            const std::vector<double> chosen
                = choose(haveGp ? &gp : nullptr, *std::min_element(targets.begin(), targets.end()));
            if (chosen.empty()) {
                // Every candidate was already evaluated (tiny integer grid): the
                // search space is exhausted as far as we can tell.
                break;
            }
            evaluate(chosen);
        }
        if (result.best.empty()) {
            // Nothing finite: report the first evaluated point.
            result.best = result.history.front().first;
            result.bestValue = result.history.front().second;
        }
    }

    BayesianOptimizer::Result result;

private:
    // Snap a unit point onto what will actually be evaluated.
    std::vector<double> snap(std::vector<double>& u) const
    {
        std::vector<double> x(dim_);
        for (std::size_t i = 0; i < dim_; ++i) {
            x[i] = BayesianOptimizer::fromUnit(dims_[i], u[i]);
            u[i] = BayesianOptimizer::toUnit(dims_[i], x[i]);
        }
        return x;
    }

    void evaluate(std::vector<double> u)
    {
        const std::vector<double> x = snap(u);
        const double y = f_(x);
        result.history.emplace_back(x, y);
        unitPoints_.push_back(std::move(u));
        values_.push_back(y);
        if (std::isfinite(y) && (result.best.empty() || y < result.bestValue)) {
            result.bestValue = y;
            result.best = x;
        }
    }

    // GP targets: non-finite values become the worst finite one.
    std::vector<double> gpTargets() const
    {
        double worst = -std::numeric_limits<double>::infinity();
        for (double v : values_)
            if (std::isfinite(v))
                worst = std::max(worst, v);
        std::vector<double> targets = values_;
        for (double& v : targets)
            if (!std::isfinite(v))
                v = std::isfinite(worst) ? worst : 0.0;
        return targets;
    }

    bool evaluated(const std::vector<double>& u) const
    {
        for (const auto& p : unitPoints_) {
            double d2 = 0;
            for (std::size_t i = 0; i < dim_; ++i)
                d2 += (p[i] - u[i]) * (p[i] - u[i]);
            if (d2 < 1e-18)
                return true;
        }
        return false;
    }

    // The candidate of most expected improvement not yet evaluated (the
    // first fresh one without a GP); empty when every candidate was.
    std::vector<double> choose(const GaussianProcess* gp, double bestTarget)
    {
        std::vector<double> incumbentUnit;
        if (!result.best.empty()) {
            incumbentUnit.resize(dim_);
            for (std::size_t i = 0; i < dim_; ++i)
                incumbentUnit[i] = BayesianOptimizer::toUnit(dims_[i], result.best[i]);
        }
        std::vector<double> chosen;
        double chosenEi = -1;
        std::vector<double> firstFresh;
        std::vector<double> u(dim_);
        for (int c = 0; c < options_.candidates; ++c) {
            const bool local = !incumbentUnit.empty() && c % 4 == 3;
            if (local) {
                const double sd = (c / 4) % 2 == 0 ? 0.02 : 0.1;
                for (std::size_t i = 0; i < dim_; ++i)
                    u[i] = std::clamp(incumbentUnit[i] + sd * gauss_(rng_), 0.0, 1.0);
            } else {
                for (std::size_t i = 0; i < dim_; ++i)
                    u[i] = uniform_(rng_);
            }
            snap(u);
            if (evaluated(u))
                continue;
            if (firstFresh.empty())
                firstFresh = u;
            if (!gp)
                break;
            const double ei = gp->expectedImprovement(u, bestTarget);
            if (ei > chosenEi) {
                chosenEi = ei;
                chosen = u;
            }
        }
        return chosen.empty() ? firstFresh : chosen;
    }

    const std::vector<Dimension>& dims_;
    const std::function<double(const std::vector<double>&)>& f_;
    const BayesianOptimizer::Options& options_;
    const std::size_t dim_;
    std::mt19937_64 rng_;
    std::uniform_real_distribution<double> uniform_{0.0, 1.0};
    std::normal_distribution<double> gauss_{0.0, 1.0};
    std::vector<std::vector<double>> unitPoints_;  // rounded points mapped back to [0,1]
    std::vector<double> values_;
};

}  // namespace

BayesianOptimizer::Result BayesianOptimizer::minimise(const std::vector<Dimension>& dims,
                                                      const std::function<double(const std::vector<double>&)>& f,
                                                      const Options& options)
{
    if (dims.empty())
        throw std::invalid_argument("BayesianOptimizer: no dimensions");
    for (const auto& d : dims)
        validate(d);
    if (!f)
        throw std::invalid_argument("BayesianOptimizer: empty objective");
    if (options.initialPoints < 1 || options.iterations < 0 || options.candidates < 1)
        throw std::invalid_argument("BayesianOptimizer: need initialPoints >= 1, iterations >= 0, candidates >= 1");
    if (!(options.noise >= 0) || !std::isfinite(options.noise))
        throw std::invalid_argument("BayesianOptimizer: noise must be finite and >= 0");
    BoSearch search(dims, f, options);
    search.design();
    search.iterate();
    return search.result;
}

BayesianOptimizer::Result BayesianOptimizer::minimise(const std::vector<Dimension>& dims,
                                                      const std::function<double(const std::vector<double>&)>& f)
{
    return minimise(dims, f, Options());
}

}  // namespace memx
