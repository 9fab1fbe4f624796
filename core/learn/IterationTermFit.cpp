#include "learn/IterationTermFit.h"
#include "io/Statistics.h"

#include "io/Ranges.h"
#include "io/Text.h"
#include "predict/Predictor.h"
#include "measure/MeasuredRun.h"
#include "measure/RunPlacement.h"
#include "measure/RunScenario.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

namespace memx {

namespace {

constexpr int kTerms = 3;  // pipeline, data parallel, fixed
constexpr std::array<const char*, kTerms> kNames{"pipeline", "data_parallel", "fixed"};
constexpr double kRidge = 1.0;  // the pull towards 1: one average run's weight per term

std::array<double, kTerms> termsOf(const IterationTermFit::Sample& s)
{
    return {s.pipelineMs, s.dataParallelMs, s.fixedMs};
}

bool usable(const IterationTermFit::Sample& s)
{
    const auto t = termsOf(s);
    return s.measuredMs > 0 && std::isfinite(s.measuredMs) && std::isfinite(s.computeMs)
        && std::all_of(t.begin(), t.end(), [](double x) { return std::isfinite(x) && x >= 0; });
}

// Solves A x = b (n <= 3) by Gaussian elimination with partial pivoting;
// false when A is singular.
bool solve(std::vector<std::vector<double>> A, std::vector<double> b, std::vector<double>& x)
{
    const std::size_t n = b.size();
    for (std::size_t c = 0; c < n; ++c) {
        std::size_t p = c;
        for (std::size_t r = c + 1; r < n; ++r)
            if (std::abs(A[r][c]) > std::abs(A[p][c]))
                p = r;
        if (!(std::abs(A[p][c]) > 1e-12))
            return false;
        std::swap(A[p], A[c]);
        std::swap(b[p], b[c]);
        for (std::size_t r = c + 1; r < n; ++r) {
            const double f = A[r][c] / A[c][c];
            for (std::size_t k = c; k < n; ++k)
                A[r][k] -= f * A[c][k];
            b[r] -= f * b[c];
        }
    }
    x.assign(n, 0);
    for (std::size_t c = n; c-- > 0;) {
        double v = b[c];
        for (std::size_t k = c + 1; k < n; ++k)
            v -= A[c][k] * x[k];
        x[c] = v / A[c][c];
    }
    return true;
}

// Terms that enough of `set`'s runs show: a share of at least kMinShare of
// the measured time in three runs or more.
std::array<bool, kTerms> candidates(const std::vector<IterationTermFit::Sample>& set)
{
    std::array<bool, kTerms> use{};
    for (int j = 0; j < kTerms; ++j) {
        int shown = 0;
        for (const auto& s : set)
            if (termsOf(s)[j] / s.measuredMs >= IterationTermFit::kMinShare)
                ++shown;
        use[j] = shown >= 3;
    }
    return use;
}

// The scales fitted to `set` (terms not in `use` stay 1).
// The scale system of the free terms: z, each run's free terms as shares of
// its measured time; y, what they must make up.
struct TermSystem {
    std::vector<std::vector<double>> z;
    std::vector<double> y;
    std::vector<bool> kept;  // runs the fit uses

    // Least squares over the kept runs, with the ridge pull towards 1; the
    // solution clamped to the plausible scales. False when singular.
    bool leastSquares(std::vector<double>& x) const
    {
        const std::size_t n = z.front().size();
        std::vector<std::vector<double>> A(n, std::vector<double>(n, 0));
        std::vector<double> b(n, 0), shareSq(n, 0);
        double m = 0;
        for (std::size_t r = 0; r < z.size(); ++r) {
            if (!kept[r])
                continue;
            m += 1;
            for (std::size_t a = 0; a < n; ++a) {
                b[a] += z[r][a] * y[r];
                shareSq[a] += z[r][a] * z[r][a];
                for (std::size_t c = 0; c < n; ++c)
                    A[a][c] += z[r][a] * z[r][c];
            }
        }
        for (double& v : shareSq)
            v /= m;
        for (std::size_t a = 0; a < n; ++a) {
            A[a][a] += kRidge * shareSq[a];
            b[a] += kRidge * shareSq[a];
        }
        if (!solve(A, b, x))
            return false;
        for (double& v : x)
            v = std::clamp(v, ranges::termScale.min, ranges::termScale.max);
        return true;
    }

    // A run far off the others (a contradicting repeat, a broken log):
    // residual (relative error) beyond both 0.4 and four robust standard
    // deviations from the median. None when more than a fifth of the runs are.
    std::vector<std::size_t> farRuns(const std::vector<double>& x) const
    {
        std::vector<double> e(z.size());
        for (std::size_t r = 0; r < z.size(); ++r)
            e[r] = std::inner_product(z[r].begin(), z[r].end(), x.begin(), 0.0) - y[r];
        const double mid = Statistics::median(e);
        std::vector<double> dev;
        dev.reserve(e.size());
        for (double v : e)
            dev.push_back(std::abs(v - mid));
        const double cut = std::max(0.4, 4 * 1.4826 * Statistics::median(dev));
        std::vector<std::size_t> far;
        for (std::size_t r = 0; r < z.size(); ++r)
            if (dev[r] > cut)
                far.push_back(r);
        if (far.size() * 5 > z.size())
            far.clear();
        return far;
    }
};

std::array<double, kTerms> scalesFor(const std::vector<IterationTermFit::Sample>& set,
                                     const std::array<bool, kTerms>& use)
{
    std::array<double, kTerms> k{1, 1, 1};
    std::vector<int> free;
    for (int j = 0; j < kTerms; ++j)
        if (use[j])
            free.push_back(j);
    if (free.empty() || set.empty())
        return k;
    TermSystem sys;
    for (const auto& s : set) {
        const auto t = termsOf(s);
        double rest = s.measuredMs - s.computeMs;
        std::vector<double> row;
        for (int j = 0; j < kTerms; ++j) {
            if (use[j])
                row.push_back(t[j] / s.measuredMs);
            else
                rest -= t[j];
        }
        sys.z.push_back(std::move(row));
        sys.y.push_back(rest / s.measuredMs);
    }
    sys.kept.assign(sys.z.size(), true);
    std::vector<double> x;
    if (!sys.leastSquares(x))
        return k;
    // Runs far off the others are left out and the rest refitted.
    if (const std::vector<std::size_t> far = sys.farRuns(x); !far.empty()) {
        for (std::size_t r : far)
            sys.kept[r] = false;
        if (!sys.leastSquares(x))
            return k;
    }
    for (std::size_t a = 0; a < free.size(); ++a)
        k[static_cast<std::size_t>(free[a])] = x[a];
    return k;
}

double predictedWith(const IterationTermFit::Sample& s, const std::array<double, kTerms>& k)
{
    const auto t = termsOf(s);
    return s.computeMs + k[0] * t[0] + k[1] * t[1] + k[2] * t[2];
}

}  // namespace

IterationTerms IterationTermFit::fit(const std::vector<Sample>& all)
{
    IterationTerms out;
    std::vector<Sample> set;
    for (const Sample& s : all)
        if (usable(s))
            set.push_back(s);
    out.runs = static_cast<int>(set.size());
    // Repeats of one configuration are held out together: leaving out one
    // of six identical runs tests nothing the other five do not already say.
    const auto keyOf = [](const Sample& s) { return s.configuration.empty() ? "run " + s.runId : s.configuration; };
    std::vector<std::string> configs;
    for (const Sample& s : set)
        if (std::find(configs.begin(), configs.end(), keyOf(s)) == configs.end())
            configs.push_back(keyOf(s));
    if (static_cast<int>(configs.size()) < kMinRuns) {
        out.note = "only " + std::to_string(configs.size()) + " distinct configuration(s) among "
            + std::to_string(out.runs) + " training run(s) with a measured iteration time (" + std::to_string(kMinRuns)
            + " needed): no run-level correction";
        return out;
    }
    const std::array<bool, kTerms> use = candidates(set);
    if (std::none_of(use.begin(), use.end(), [](bool b) { return b; })) {
        out.note = "the pipeline, data-parallel and fixed terms are each below 3 % of the measured time in all but "
                   "two runs: nothing to fit";
        return out;
    }
    // Leave one configuration out: each run predicted by scales fitted to
    // the runs of the other configurations.
    double before = 0, after = 0;
    for (const std::string& held : configs) {
        std::vector<Sample> others;
        for (const Sample& s : set)
            if (keyOf(s) != held)
                others.push_back(s);
        const auto k = scalesFor(others, candidates(others));
        for (const Sample& s : set) {
            if (keyOf(s) != held)
                continue;
            before += std::abs(s.predictedMs() - s.measuredMs) / s.measuredMs;
            after += std::abs(predictedWith(s, k) - s.measuredMs) / s.measuredMs;
        }
    }
    out.mapeBefore = 100 * before / static_cast<double>(set.size());
    out.mapeAfter = 100 * after / static_cast<double>(set.size());
    if (!std::isfinite(out.mapeAfter) || !(out.mapeAfter < (1 - kMinGain) * out.mapeBefore)) {
        out.note = "leave one configuration out, scaled terms give " + Text::fmt("%.1f", out.mapeAfter)
            + " % iteration time MAPE against " + Text::fmt("%.1f", out.mapeBefore) + " % without: not applied";
        return out;
    }
    const auto k = scalesFor(set, use);
    out.pipeline = k[0];
    out.dataParallel = k[1];
    out.fixed = k[2];
    for (int j = 0; j < kTerms; ++j)
        if (use[static_cast<std::size_t>(j)] && std::abs(k[static_cast<std::size_t>(j)] - 1) > 1e-9)
            out.fitted.push_back(kNames[static_cast<std::size_t>(j)]);
    std::string unfit;
    for (int j = 0; j < kTerms; ++j)
        if (!use[static_cast<std::size_t>(j)])
            unfit += std::string(unfit.empty() ? "" : ", ") + kNames[j];
    if (!unfit.empty())
        out.note = unfit + ": below 3 % of the measured time in all but two runs, kept at 1";
    return out;
}

std::vector<IterationTermFit::Sample> IterationTermFit::samples(const std::vector<MeasuredRun>& runs,
                                                                const std::string& file, const GpuCatalog& catalog,
                                                                RunPlacement& placement,
                                                                std::shared_ptr<const Predictor> stageModel)
{
    std::vector<Sample> out;
    std::vector<std::string> skipped;  // the trainer has named these already
    for (const MeasuredRun& run : runs) {
        if (!run.iterationTimeMs)
            continue;
        const std::optional<RunPrediction> p = placement.predict(run, file, catalog, stageModel, skipped);
        if (!p || p->plan.stages.empty())
            continue;
        double slowest = 0;
        for (const StagePlan& s : p->plan.stages)
            slowest = std::max(slowest, s.timeMs);
        Sample s;
        s.runId = run.runId;
        s.configuration = run.configurationKey();
        s.computeMs = std::max(1, p->plan.microBatchCount) * slowest;
        s.dataParallelMs = p->plan.dpMs;
        s.fixedMs = p->plan.fixedMs;
        s.pipelineMs = std::max(0.0, p->plan.iterationMs - s.computeMs - s.dataParallelMs - s.fixedMs);
        s.measuredMs = *run.iterationTimeMs;
        out.push_back(s);
    }
    return out;
}

std::string IterationTermFit::describe(const IterationTerms& t)
{
    if (t.identity())
        return "run-level correction: none (" + (t.note.empty() ? std::string("not fitted") : t.note) + ")";
    std::string s = "run-level correction over " + std::to_string(t.runs) + " runs: pipeline x"
        + Text::fmt("%.2f", t.pipeline) + ", data-parallel x" + Text::fmt("%.2f", t.dataParallel) + ", fixed x"
        + Text::fmt("%.2f", t.fixed) + "; leave one configuration out, iteration time MAPE "
        + Text::fmt("%.1f", t.mapeBefore) + " % -> " + Text::fmt("%.1f", t.mapeAfter) + " %";
    if (!t.note.empty())
        s += " (" + t.note + ")";
    return s;
}

}  // namespace memx
