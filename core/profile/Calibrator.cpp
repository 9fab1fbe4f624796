#include "profile/Calibrator.h"

#include "hardware/GpuCatalog.h"
#include "io/InputError.h"
#include "io/Ranges.h"
#include "profile/MeasuredRun.h"
#include "profile/RunPlacement.h"
#include "profile/RunScenario.h"
#include "search/PlanEvaluator.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <set>

namespace memx {

namespace {

// One measured number and where to find its prediction.
struct Observation {
    int scenario = 0;
    int stage = -1;         // -1: iteration time; else per-micro-batch time of that stage
    double measuredMs = 0;
};

struct Scenario {
    Problem problem;
    PlanSpec spec;
    const MeasuredRun* run = nullptr;
};

// A parameter in log space with its range.
struct Param {
    const char* name;
    double GpuParamsFit::*field;
    Range range;
};

const Param kParams[] = {
    {"efficiency_multiplier", &GpuParamsFit::efficiencyMultiplier, ranges::efficiencyMultiplier},
    {"iteration_overhead_ms", &GpuParamsFit::iterationOverheadMs, ranges::iterationOverheadMs},
    {"launch_overhead_us", &GpuParamsFit::launchOverheadUs, ranges::operatorOverheadUs},
    {"comm_overhead_us", &GpuParamsFit::commOverheadUs, ranges::commOverheadUs},
    {"bandwidth_multiplier", &GpuParamsFit::bandwidthMultiplier, ranges::bandwidthMultiplier},
};

double huber(double r, double delta)
{
    double a = std::abs(r);
    return a <= delta ? 0.5 * r * r : delta * (a - 0.5 * delta);
}

// Nelder-Mead on f over R^n from x0 with initial step `step`.
std::vector<double> nelderMead(const std::function<double(const std::vector<double>&)>& f, std::vector<double> x0,
                               double step, int maxEvaluations)
{
    const std::size_t n = x0.size();
    std::vector<std::vector<double>> p(n + 1, x0);
    std::vector<double> v(n + 1);
    for (std::size_t i = 0; i < n; ++i)
        p[i + 1][i] += step;
    int evals = 0;
    for (std::size_t i = 0; i <= n; ++i, ++evals)
        v[i] = f(p[i]);
    auto combine = [&](const std::vector<double>& a, const std::vector<double>& b, double t) {
        std::vector<double> r(n);
        for (std::size_t j = 0; j < n; ++j)
            r[j] = a[j] + t * (b[j] - a[j]);
        return r;
    };
    while (evals < maxEvaluations) {
        std::vector<std::size_t> order(n + 1);
        std::iota(order.begin(), order.end(), 0);
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
        std::vector<std::vector<double>> ps;
        std::vector<double> vs;
        for (std::size_t i : order) {
            ps.push_back(p[i]);
            vs.push_back(v[i]);
        }
        p = ps;
        v = vs;
        if (std::abs(v[n] - v[0]) < 1e-10)
            break;
        std::vector<double> centroid(n, 0.0);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j)
                centroid[j] += p[i][j] / n;
        std::vector<double> xr = combine(centroid, p[n], -1.0);
        double fr = f(xr);
        ++evals;
        if (fr < v[0]) {
            std::vector<double> xe = combine(centroid, p[n], -2.0);
            double fe = f(xe);
            ++evals;
            if (fe < fr) {
                p[n] = xe;
                v[n] = fe;
            } else {
                p[n] = xr;
                v[n] = fr;
            }
        } else if (fr < v[n - 1]) {
            p[n] = xr;
            v[n] = fr;
        } else {
            std::vector<double> xc = combine(centroid, p[n], 0.5);
            double fc = f(xc);
            ++evals;
            if (fc < v[n]) {
                p[n] = xc;
                v[n] = fc;
            } else {
                for (std::size_t i = 1; i <= n; ++i) {
                    p[i] = combine(p[0], p[i], 0.5);
                    v[i] = f(p[i]);
                    ++evals;
                }
            }
        }
    }
    return p[std::min_element(v.begin(), v.end()) - v.begin()];
}

// The configuration of a run without its targets, to find repeated runs.
std::string configKey(const MeasuredRun& r)
{
    const Measurement& c = r.config;
    std::string key = c.gpuType + "|" + std::to_string(c.tp) + "|" + std::to_string(c.pp) + "|"
        + std::to_string(c.dp) + "|" + std::to_string(c.vp) + "|" + std::to_string(c.mbs) + "|"
        + std::to_string(c.gbs) + "|" + std::to_string(c.seqLen) + "|" + std::to_string(c.numLayers) + "|"
        + std::to_string(c.hidden) + "|" + std::to_string(c.ffnHidden) + "|" + std::to_string(c.heads) + "|"
        + std::to_string(c.queryGroups) + "|" + std::to_string(c.vocab);
    for (const MeasuredStage& s : r.stages)
        key += "|" + std::to_string(s.layers) + toString(s.recompute);
    return key;
}

double predictedMs(const Scenario& sc, const Observation& o, std::shared_ptr<const Predictor> predictor)
{
    const Evaluation ev = PlanEvaluator::evaluate(sc.problem, sc.spec, std::move(predictor));
    if (o.stage < 0)
        return ev.plan.iterationMs;
    if (o.stage >= static_cast<int>(ev.plan.stages.size()))
        return std::nan("");
    return ev.plan.stages[static_cast<std::size_t>(o.stage)].timeMs;
}

}  // namespace

Calibrator::Result Calibrator::fit(const std::vector<MeasuredRun>& runs, const GpuCatalog& catalog,
                                   const std::string& file)
{
    RunPlacement synthetic;
    return fit(runs, catalog, file, synthetic, AnalyticPredictor::Params(), Options());
}

Calibrator::Result Calibrator::fit(const std::vector<MeasuredRun>& runs, const GpuCatalog& catalog,
                                   const std::string& file, RunPlacement& placement,
                                   const AnalyticPredictor::Params& params, const Options& options)
{
    Result result;
    std::map<std::string, std::vector<int>> byType;  // scenario indices
    std::vector<Scenario> scenarios;
    scenarios.reserve(runs.size());
    for (const MeasuredRun& run : runs) {
        if (run.heterogeneous()) {
            result.messages.push_back("run " + run.runId + " mixes GPU types: not used to fit per-type parameters");
            continue;
        }
        Scenario sc;
        try {
            sc.problem = placement.problem(run, file, catalog, sc.spec);
        } catch (const InputError& e) {
            result.messages.push_back("run " + run.runId + ": " + e.what());
            continue;
        }
        sc.run = &run;
        byType[run.stages.front().gpuType].push_back(static_cast<int>(scenarios.size()));
        scenarios.push_back(std::move(sc));
    }

    for (const auto& [type, members] : byType) {
        const GpuType* catalogType = catalog.find(type);
        if (!catalogType)
            continue;
        GpuParamsFit start = GpuParamsFit::of(*catalogType);

        // Observations, and repeated configurations that contradict each other.
        std::vector<Observation> obs;
        std::map<std::string, std::vector<double>> repeats;
        bool anyIteration = false, anyComm = false;
        for (int idx : members) {
            const Scenario& sc = scenarios[static_cast<std::size_t>(idx)];
            const MeasuredRun& r = *sc.run;
            const int G = std::max(1, r.microBatches());
            if (r.iterationTimeMs) {
                obs.push_back({idx, -1, *r.iterationTimeMs});
                repeats[configKey(r)].push_back(*r.iterationTimeMs);
                anyIteration = true;
            }
            for (std::size_t i = 0; i < r.stages.size(); ++i)
                if (r.stages[i].stageTimeMs)
                    obs.push_back({idx, static_cast<int>(i), *r.stages[i].stageTimeMs / G});
            if (r.config.tp > 1 || r.config.pp > 1)
                anyComm = true;
        }
        std::string contradiction;
        for (const auto& [key, times] : repeats) {
            auto [lo, hi] = std::minmax_element(times.begin(), times.end());
            if (*hi > options.contradictionRatio * *lo)
                contradiction = "runs of one configuration differ " + std::to_string(int(*hi / *lo + 0.5))
                    + "x in iteration time (" + std::to_string(*lo) + " vs " + std::to_string(*hi) + " ms)";
        }
        std::set<std::string> distinct;
        for (int idx : members)
            distinct.insert(configKey(*scenarios[static_cast<std::size_t>(idx)].run));

        std::vector<const Param*> free;
        for (const Param& p : kParams) {
            if (p.field == &GpuParamsFit::iterationOverheadMs && !anyIteration)
                continue;
            if (p.field == &GpuParamsFit::commOverheadUs && !anyComm)
                continue;
            free.push_back(&p);
        }
        const std::size_t budget = distinct.empty() ? 0 : distinct.size() - 1;
        if (free.size() > budget)
            free.resize(budget);

        auto predictorFor = [&](const GpuParamsFit& f) {
            auto a = std::make_shared<AnalyticPredictor>(params);
            a->setCalibration({f});
            return a;
        };
        auto mape = [&](const GpuParamsFit& f) {
            auto pred = predictorFor(f);
            double sum = 0;
            for (const Observation& o : obs)
                sum += std::abs(predictedMs(scenarios[static_cast<std::size_t>(o.scenario)], o, pred) - o.measuredMs)
                    / o.measuredMs;
            return obs.empty() ? 0.0 : 100.0 * sum / obs.size();
        };

        GpuParamsFit fit = start;
        fit.runs = static_cast<int>(members.size());
        fit.mapeBefore = mape(start);
        if (obs.empty()) {
            fit.note = "no measured time";
        } else if (!contradiction.empty()) {
            fit.note = contradiction + "; catalog values kept";
        } else if (free.empty()) {
            fit.note = "only " + std::to_string(distinct.size())
                + " distinct configuration(s); two are needed to fit a parameter; catalog values kept";
        } else {
            // Physical bounds: no GEMM above 95 % of peak, streaming kernels
            // between a quarter of and a little above the catalog's share.
            auto bounds = [&](const Param* p) {
                const Range& r = p->range;
                double lo = std::max(r.min, 1e-3), hi = r.max;
                if (p->field == &GpuParamsFit::efficiencyMultiplier)
                    hi = std::min(hi, 0.95 / catalogType->defaultEfficiency);
                if (p->field == &GpuParamsFit::bandwidthMultiplier) {
                    lo = 0.25;
                    hi = 1.2;
                }
                return std::pair<double, double>(lo, hi);
            };
            auto decode = [&](const std::vector<double>& x) {
                GpuParamsFit f = start;
                for (std::size_t j = 0; j < free.size(); ++j) {
                    const auto [lo, hi] = bounds(free[j]);
                    f.*(free[j]->field) = std::clamp(std::exp(x[j]), lo, hi);
                }
                return f;
            };
            std::vector<double> x0;
            for (const Param* p : free)
                x0.push_back(std::log(std::max(start.*(p->field), std::max(p->range.min, 1e-3))));
            auto objective = [&](const std::vector<double>& x) {
                auto pred = predictorFor(decode(x));
                double loss = 0;
                for (const Observation& o : obs) {
                    const double p = predictedMs(scenarios[static_cast<std::size_t>(o.scenario)], o, pred);
                    if (!std::isfinite(p) || p <= 0)
                        return 1e30;
                    loss += huber(std::log(p / o.measuredMs), options.huberDelta);
                }
                loss /= obs.size();
                for (std::size_t j = 0; j < x.size(); ++j)
                    loss += options.priorWeight * (x[j] - x0[j]) * (x[j] - x0[j]);
                return loss;
            };
            // Coordinate sweeps over each parameter's whole range first (the
            // loss has valleys a local search from the catalog value stays
            // in: a too-slow GEMM and a missing overhead both lower the
            // predicted time), then Nelder-Mead to polish.
            std::vector<double> x = x0;
            double fx = objective(x);
            for (int sweep = 0; sweep < 2; ++sweep) {
                for (std::size_t j = 0; j < x.size(); ++j) {
                    const auto [blo, bhi] = bounds(free[j]);
                    const double lo = std::log(blo), hi = std::log(bhi);
                    constexpr int kGrid = 24;
                    for (int g = 0; g <= kGrid; ++g) {
                        std::vector<double> y = x;
                        y[j] = lo + (hi - lo) * g / kGrid;
                        const double fy = objective(y);
                        if (fy < fx) {
                            fx = fy;
                            x = y;
                        }
                    }
                }
            }
            const std::vector<double> best = nelderMead(objective, x, 0.3, options.maxEvaluations);
            GpuParamsFit fitted = decode(best);
            fitted.runs = fit.runs;
            fitted.mapeBefore = fit.mapeBefore;
            fitted.mapeAfter = mape(fitted);
            if (fitted.mapeAfter < fit.mapeBefore) {
                fit = fitted;
                for (const Param* p : free)
                    fit.fitted.push_back(p->name);
                if (free.size() < std::size(kParams))
                    fit.note = std::to_string(distinct.size()) + " distinct configuration(s): fitted "
                        + std::to_string(free.size()) + " of " + std::to_string(std::size(kParams)) + " parameters";
            } else {
                fit.note = "no fit of the model's parameters lowers these runs' time error (" 
                    + std::to_string(int(fitted.mapeAfter + 0.5)) + "% against "
                    + std::to_string(int(fit.mapeBefore + 0.5)) + "% with catalog values); catalog values kept";
            }
        }
        fit.mapeAfter = mape(fit);
        if (std::getenv("MEMX_TRACE_CALIBRATION")) {
            auto before = predictorFor(start), after = predictorFor(fit);
            for (const Observation& o : obs) {
                const Scenario& sc = scenarios[static_cast<std::size_t>(o.scenario)];
                std::fprintf(stderr, "%s %s stage %d: measured %.2f catalog %.2f fitted %.2f\n", type.c_str(),
                             sc.run->runId.c_str(), o.stage, o.measuredMs, predictedMs(sc, o, before),
                             predictedMs(sc, o, after));
            }
        }
        if (!fit.note.empty() && fit.fitted.empty())
            result.messages.push_back(file + ": GPU type " + type + ": " + fit.note);
        result.fits.push_back(fit);
    }
    return result;
}

}  // namespace memx
