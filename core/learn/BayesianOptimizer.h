#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace memx {

// Bayesian optimisation of a black-box function (MemX section 3.2.2: the
// predictor's hyper-parameters - depth, learning rate, subsample, rounds - are
// chosen by minimising cross-validated MAPE with a Gaussian process and
// expected improvement). Plain C++20, no dependencies; sized for the small
// budgets of hyper-parameter search (tens of evaluations, a handful of
// dimensions).
//
// The maths
// ---------
// Input scaling. Every dimension i with bounds [lo_i, hi_i] is mapped to
// u_i in [0, 1]:  u = (x - lo) / (hi - lo)  or, for a log-scale dimension,
// u = (ln x - ln lo) / (ln hi - ln lo). Integer dimensions are rounded to the
// nearest integer in [ceil(lo), floor(hi)] *before* evaluation, and the GP is
// trained on the rounded point (mapped back to [0, 1]), so it sees exactly
// what was evaluated.
//
// Output scaling. Observations y_1..y_n are standardised,
// z_j = (y_j - mean(y)) / sd(y) (sd := 1 when all are equal), so a zero-mean
// GP with unit signal variance is a sensible prior.
//
// Kernel. Matern 5/2 with one (isotropic) length scale l on the unit cube:
//     r = |u - u'| / l,
//     k(u, u') = (1 + sqrt5 r + 5 r^2 / 3) exp(-sqrt5 r).
// With noise variance s2 (on the standardised scale) K = k(U, U) + s2 I.
//
// Length scale. Chosen from a fixed grid by maximising the log marginal
// likelihood
//     log p(z | U, l) = -1/2 z^T K^-1 z - sum_j log L_jj - n/2 log(2 pi),
// where K = L L^T is the Cholesky factorisation (done by hand: n is small).
//
// Posterior at u*: with k* = k(U, u*), alpha = K^-1 z = L^-T L^-1 z and
// v = L^-1 k*,
//     mu(u*)     = k*^T alpha,
//     sigma2(u*) = k(u*, u*) - v^T v     (clamped at 0),
// returned in the original units (mu * sd + mean, sigma2 * sd^2). At a
// training point the mean equals the observation up to the noise term.
//
// Acquisition. Expected improvement for minimisation, on the standardised
// scale, with z_best the smallest standardised observation and a small
// exploration margin xi:
//     gamma = (z_best - mu - xi) / sigma,
//     EI    = (z_best - mu - xi) Phi(gamma) + sigma phi(gamma)   (sigma > 0),
//     EI    = max(z_best - mu - xi, 0)                           (sigma = 0),
// with Phi / phi the standard normal CDF / density. EI is maximised over
// `candidates` random points of the unit cube (three quarters uniform, one
// quarter Gaussian perturbations of the incumbent, which sharpens the final
// approach to the optimum); candidates that coincide with an evaluated point
// after integer rounding are skipped.
//
// Design. The first `initialPoints` evaluations are a Latin hypercube sample;
// then `iterations` EI steps follow, so f is called initialPoints + iterations
// times (fewer only if, in some step, every candidate had already been
// evaluated - a small all-integer box - at which point the search stops). All randomness comes from one std::mt19937_64 seeded with
// Options::seed: the same seed gives the same evaluations on every run.
//
// Non-finite objective values are kept in the history but replaced, for the
// GP only, by the worst finite value seen (a failed configuration is "bad",
// not "unknown"); they can never become the best.

// A Gaussian-process regressor on inputs already scaled to [0, 1]^d, as
// described above. Exposed for testing and for reuse (e.g. a surrogate).
class GaussianProcess {
public:
    struct Prediction {
        double mean = 0;  // original units
        double variance = 0;  // original units squared
    };

    // Default length-scale grid (unit-cube distances).
    static std::vector<double> defaultLengthScales();

    // Fits on n >= 1 points x (each of the same dimension d >= 1) with
    // observations y; noise is the noise variance on the standardised scale
    // (>= 0; a tiny jitter is added if the Cholesky factorisation needs it).
    // The length scale is the grid entry of highest log marginal likelihood.
    // Throws std::invalid_argument for empty or inconsistent input, a
    // non-finite observation, or an empty / non-positive grid.
    void fit(const std::vector<std::vector<double>>& x, const std::vector<double>& y, double noise = 1e-6,
             const std::vector<double>& lengthScales = defaultLengthScales());

    // Posterior mean and variance at u (dimension d). Throws std::logic_error
    // before fit(), std::invalid_argument for a wrong dimension.
    Prediction predict(const std::vector<double>& u) const;

    // Expected improvement (for minimisation) over `bestObserved` (original
    // units) at u, with exploration margin xi on the standardised scale.
    double expectedImprovement(const std::vector<double>& u, double bestObserved, double xi = 0.01) const;

    bool fitted() const { return !x_.empty(); }
    double lengthScale() const { return lengthScale_; }
    double logMarginalLikelihood() const { return logLikelihood_; }

    // Matern 5/2 kernel with unit signal variance.
    static double kernel(const std::vector<double>& a, const std::vector<double>& b, double lengthScale);

private:
    // Standardised-scale posterior (mean, variance).
    std::pair<double, double> posteriorStd(const std::vector<double>& u) const;

    std::vector<std::vector<double>> x_;
    std::vector<double> chol_;  // lower-triangular L, row-major n x n
    std::vector<double> alpha_;  // K^-1 z
    double yMean_ = 0;
    double yScale_ = 1;
    double lengthScale_ = 0;
    double logLikelihood_ = 0;
};

struct BayesianOptimizer {
    struct Dimension {
        std::string name;
        double lo = 0;
        double hi = 1;
        bool integer = false;
        bool logScale = false;  // requires lo > 0
    };

    struct Options {
        int initialPoints = 5;  // Latin hypercube design, >= 1
        int iterations = 20;  // EI steps after the design, >= 0
        int candidates = 2000;  // random points EI is maximised over, >= 1
        std::uint64_t seed = 0;
        double noise = 1e-6;  // GP noise variance on standardised outputs, >= 0
        // Asked before each evaluation after the first; true ends the search
        // with the best point so far (a time limit).
        std::function<bool()> stop;
    };

    struct Result {
        std::vector<double> best;  // in the dimensions' own units (integers rounded)
        double bestValue = 0;
        // Every evaluation in order: (point, value).
        std::vector<std::pair<std::vector<double>, double>> history;
        bool stopped = false;  // Options::stop ended it before all iterations
    };

    // Minimises f over the box. Throws std::invalid_argument for no
    // dimensions, lo >= hi or non-finite bounds, a log-scale dimension with
    // lo <= 0, an integer dimension containing no integer, or invalid
    // options. Exceptions thrown by f propagate.
    static Result minimise(const std::vector<Dimension>& dims,
                           const std::function<double(const std::vector<double>&)>& f, const Options& options);
    // Same with default Options.
    static Result minimise(const std::vector<Dimension>& dims,
                           const std::function<double(const std::vector<double>&)>& f);

    // The [0,1] <-> dimension-unit mappings used above (integers rounded).
    static double toUnit(const Dimension& d, double value);
    static double fromUnit(const Dimension& d, double u);
};

}  // namespace memx
