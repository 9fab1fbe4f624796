// Over 600 lines: the calibration of the analytic model, each term's fit with its guards, beside the measurements it
// reads.
#include "learn/Calibrator.h"

#include "io/HostCores.h"
#include "io/ParallelFor.h"

#include "hardware/GpuCatalog.h"
#include "io/InputError.h"
#include "io/Ranges.h"
#include "measure/MeasuredRun.h"
#include "learn/MemoryFit.h"
#include "measure/RunPlacement.h"
#include "measure/RunScenario.h"
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
    int stage = -1;  // -1: iteration time; else per-micro-batch time of that stage
    double measuredMs = 0;
};

struct Scenario {
    Problem problem;
    PlanSpec spec;
    const MeasuredRun* run = nullptr;
};

// A parameter in log space with its range, and how strongly the fit is
// pulled towards its catalog value (a factor on Options::priorWeight).
struct Param {
    const char* name;
    double GpuParamsFit::*field;
    Range range;
    double priorFactor = 1.0;
};

const Param kParams[] = {
    {"efficiency_multiplier", &GpuParamsFit::efficiencyMultiplier, ranges::efficiencyMultiplier},
    {"iteration_overhead_ms", &GpuParamsFit::iterationOverheadMs, ranges::iterationOverheadMs},
    {"launch_overhead_us", &GpuParamsFit::launchOverheadUs, ranges::operatorOverheadUs},
    {"comm_overhead_us", &GpuParamsFit::commOverheadUs, ranges::commOverheadUs},
    {"bandwidth_multiplier", &GpuParamsFit::bandwidthMultiplier, ranges::bandwidthMultiplier},
    // Last: the host time per schedule step moves few predictions (only where
    // chunks are small), so it is fitted only when the runs leave budget for
    // every other parameter. The catalog's value is a guess with no
    // measurement behind it (docs/ANALYTIC_ACCURACY.md, "schedule steps"), so
    // its pull is a tenth of the others': at the full pull the fit could not
    // recover a step of 400 us from runs measured with it (tst_calibrator).
    {"step_overhead_us", &GpuParamsFit::stepOverheadUs, ranges::stepOverheadUs, 0.1},
};

double huber(double r, double delta)
{
    double a = std::abs(r);
    return a <= delta ? 0.5 * r * r : delta * (a - 0.5 * delta);
}

// Nelder-Mead on f over R^n from x0 with initial step `step`.
// A Nelder-Mead simplex: its points and their values, best first after sort().
struct Simplex {
    std::vector<std::vector<double>> p;
    std::vector<double> v;

    void sort()
    {
        const std::size_t m = v.size();
        std::vector<std::size_t> order(m);
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
    }

    std::vector<double> centroidOfBest() const
    {
        const std::size_t n = v.size() - 1;
        std::vector<double> centroid(n, 0.0);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j)
                centroid[j] += p[i][j] / n;
        return centroid;
    }
};

std::vector<double> combine(const std::vector<double>& a, const std::vector<double>& b, double t)
{
    std::vector<double> r(a.size());
    for (std::size_t j = 0; j < a.size(); ++j)
        r[j] = a[j] + t * (b[j] - a[j]);
    return r;
}

// One step on a sorted simplex: reflect the worst point, expand, contract or
// shrink. Returns the evaluations it made.
int nelderMeadStep(const std::function<double(const std::vector<double>&)>& f, Simplex& s)
{
    auto& p = s.p;
    auto& v = s.v;
    const std::size_t n = v.size() - 1;
    const std::vector<double> centroid = s.centroidOfBest();
    std::vector<double> xr = combine(centroid, p[n], -1.0);
    double fr = f(xr);
    if (fr < v[0]) {
        std::vector<double> xe = combine(centroid, p[n], -2.0);
        double fe = f(xe);
        if (fe < fr) {
            p[n] = xe;
            v[n] = fe;
        } else {
            p[n] = xr;
            v[n] = fr;
        }
        return 2;
    }
    if (fr < v[n - 1]) {
        p[n] = xr;
        v[n] = fr;
        return 1;
    }
    std::vector<double> xc = combine(centroid, p[n], 0.5);
    double fc = f(xc);
    if (fc < v[n]) {
        p[n] = xc;
        v[n] = fc;
        return 2;
    }
    for (std::size_t i = 1; i <= n; ++i) {
        p[i] = combine(p[0], p[i], 0.5);
        v[i] = f(p[i]);
    }
    return 2 + static_cast<int>(n);
}

std::vector<double> nelderMead(const std::function<double(const std::vector<double>&)>& f,
                               const std::vector<double>& x0, double step, int maxEvaluations)
{
    const std::size_t n = x0.size();
    Simplex s;
    s.p.assign(n + 1, x0);
    s.v.assign(n + 1, 0.0);
    for (std::size_t i = 0; i < n; ++i)
        s.p[i + 1][i] += step;
    int evals = 0;
    for (std::size_t i = 0; i <= n; ++i, ++evals)
        s.v[i] = f(s.p[i]);
    while (evals < maxEvaluations) {
        s.sort();
        if (std::abs(s.v[n] - s.v[0]) < 1e-10)
            break;
        evals += nelderMeadStep(f, s);
    }
    return s.p[std::min_element(s.v.begin(), s.v.end()) - s.v.begin()];
}

// The number of `plan` that observation `o` measured.
double observedIn(const Plan& plan, const Observation& o)
{
    if (o.stage < 0)
        return plan.iterationMs;
    if (o.stage >= static_cast<int>(plan.stages.size()))
        return std::nan("");
    return plan.stages[static_cast<std::size_t>(o.stage)].timeMs;
}

double predictedMs(const Scenario& sc, const Observation& o, std::shared_ptr<const Predictor> predictor)
{
    return observedIn(PlanEvaluator::evaluate(sc.problem, sc.spec, std::move(predictor)).plan, o);
}

}  // namespace

Calibrator::Result Calibrator::fit(const std::vector<MeasuredRun>& runs, const GpuCatalog& catalog,
                                   const std::string& file)
{
    RunPlacement synthetic;
    return fit(runs, catalog, file, synthetic, AnalyticPredictor::Params(), Options());
}

namespace {

// One parameter of one type being fitted, in log space within [lo, hi].
struct Dim {
    std::string type;
    const Param* param = nullptr;
    double lo = 0, hi = 0;
    double prior = 0;  // log of the catalog value
};

class Fitter {
public:
    Fitter(const std::vector<Scenario>& scenarios, const AnalyticPredictor::Params& params,
           const Calibrator::Options& options)
        : scenarios_(scenarios)
        , params_(params)
        , options_(options)
    {
    }

    std::shared_ptr<const Predictor> predictorFor(const std::map<std::string, GpuParamsFit>& fits) const
    {
        auto a = std::make_shared<AnalyticPredictor>(params_);
        std::vector<GpuParamsFit> list;
        for (const auto& [type, f] : fits)
            list.push_back(f);
        a->setCalibration(std::move(list));
        return a;
    }

    // Every observation's prediction, on every usable core: the objective
    // below evaluates each run's plan hundreds of times per type, and its
    // sums run in observation order afterwards, so the fit is the same on
    // any number of threads.
    // A run's plan is evaluated once however many of its numbers (iteration
    // and stage times) are observed.
    std::vector<double> predictAll(const std::vector<Observation>& obs,
                                   const std::shared_ptr<const Predictor>& pred) const
    {
        std::vector<int> runs;  // distinct scenarios, in order of first observation
        std::vector<std::size_t> slot(obs.size());
        std::map<int, std::size_t> seen;
        for (std::size_t k = 0; k < obs.size(); ++k) {
            const auto [it, fresh] = seen.try_emplace(obs[k].scenario, runs.size());
            if (fresh)
                runs.push_back(obs[k].scenario);
            slot[k] = it->second;
        }
        std::vector<Plan> plans(runs.size());
        parallelFor(runs.size(), threads_, [&](std::size_t i) {
            const Scenario& sc = scenarios_[static_cast<std::size_t>(runs[i])];
            plans[i] = PlanEvaluator::evaluate(sc.problem, sc.spec, pred).plan;
        });
        std::vector<double> out(obs.size());
        for (std::size_t k = 0; k < obs.size(); ++k)
            out[k] = observedIn(plans[slot[k]], obs[k]);
        return out;
    }

    double mape(const std::map<std::string, GpuParamsFit>& fits, const std::vector<Observation>& obs) const
    {
        const std::vector<double> predicted = predictAll(obs, predictorFor(fits));
        double sum = 0;
        for (std::size_t k = 0; k < obs.size(); ++k)
            sum += std::abs(predicted[k] - obs[k].measuredMs) / obs[k].measuredMs;
        return obs.empty() ? 0.0 : 100.0 * sum / obs.size();
    }

    std::map<std::string, GpuParamsFit> decode(std::map<std::string, GpuParamsFit> fits, const std::vector<Dim>& dims,
                                               const std::vector<double>& x) const
    {
        for (std::size_t j = 0; j < dims.size(); ++j)
            fits[dims[j].type].*(dims[j].param->field) = std::clamp(std::exp(x[j]), dims[j].lo, dims[j].hi);
        return fits;
    }

    // Minimises the robust loss over `dims`, starting from `fits`: coordinate
    // sweeps over each parameter's whole range first (the loss has valleys a
    // local search from the catalog value stays in: a too-slow GEMM and a
    // missing overhead both lower the predicted time), then Nelder-Mead.
    std::map<std::string, GpuParamsFit> minimise(const std::map<std::string, GpuParamsFit>& fits,
                                                 const std::vector<Dim>& dims, const std::vector<Observation>& obs,
                                                 int grid, int sweeps) const
    {
        auto objective = [&](const std::vector<double>& x) {
            const std::vector<double> predicted = predictAll(obs, predictorFor(decode(fits, dims, x)));
            double loss = 0;
            for (std::size_t k = 0; k < obs.size(); ++k) {
                const double p = predicted[k];
                if (!std::isfinite(p) || p <= 0)
                    return 1e30;
                loss += huber(p / obs[k].measuredMs - 1.0, options_.huberDelta);
            }
            loss /= obs.size();
            for (std::size_t j = 0; j < x.size(); ++j)
                loss += options_.priorWeight * dims[j].param->priorFactor * (x[j] - dims[j].prior)
                    * (x[j] - dims[j].prior);
            return loss;
        };
        std::vector<double> x;
        for (const Dim& d : dims)
            x.push_back(std::log(std::clamp(fits.at(d.type).*(d.param->field), d.lo, d.hi)));
        double fx = objective(x);
        for (int sweep = 0; sweep < sweeps; ++sweep) {
            for (std::size_t j = 0; j < x.size(); ++j) {
                const double lo = std::log(dims[j].lo), hi = std::log(dims[j].hi);
                for (int g = 0; g <= grid; ++g) {
                    std::vector<double> y = x;
                    y[j] = lo + (hi - lo) * g / grid;
                    const double fy = objective(y);
                    if (fy < fx) {
                        fx = fy;
                        x = y;
                    }
                }
            }
        }
        return decode(fits, dims, nelderMead(objective, x, 0.3, options_.maxEvaluations));
    }

private:
    const std::vector<Scenario>& scenarios_;
    const AnalyticPredictor::Params& params_;
    const Calibrator::Options& options_;
    int threads_ = options_.threads > 0 ? options_.threads : usableCores();
};

// The dimension of one parameter of `type`, with its physical bounds: no GEMM
// above 95 % of peak, streaming kernels between a quarter of and a little
// above the catalog's share.
Dim dimOf(const GpuType& type, const Param& p)
{
    Dim d;
    d.type = type.name;
    d.param = &p;
    d.lo = std::max(p.range.min, 1e-3);
    d.hi = p.range.max;
    if (p.field == &GpuParamsFit::efficiencyMultiplier)
        d.hi = std::min(d.hi, 0.95 / type.defaultEfficiency);
    if (p.field == &GpuParamsFit::bandwidthMultiplier) {
        d.lo = 0.25;
        d.hi = 1.2;
    }
    d.prior = std::log(std::clamp(GpuParamsFit::of(type).*(p.field), d.lo, d.hi));
    return d;
}

// What the runs `members` can tell about the type `type` (whose stages they
// contain): its observations, the parameters they can determine (at most
// distinct configurations - 1, in kParams order) and repeated configurations
// that contradict each other.
struct Evidence {
    std::vector<Observation> obs;
    std::vector<const Param*> free;
    std::size_t distinct = 0;
    std::string contradiction;
};

Evidence evidenceOf(const std::vector<Scenario>& scenarios, const std::vector<int>& members, double ratio,
                    const std::string& type)
{
    Evidence e;
    std::map<std::string, std::vector<std::pair<double, std::string>>> repeats;  // time, run id
    std::set<std::string> distinct;
    bool anyIteration = false, anyComm = false;
    // Layers per model chunk of the type's own stages: a schedule step's host
    // time is told apart from its per-operator time only by runs whose chunks
    // of this type hold different numbers of layers (else every step comes
    // with the same operators; another type's chunks say nothing about it).
    std::set<int> chunkLayers;
    for (int idx : members) {
        const MeasuredRun& r = *scenarios[static_cast<std::size_t>(idx)].run;
        const int G = std::max(1, r.microBatchCount());
        if (r.iterationTimeMs) {
            e.obs.push_back({idx, -1, *r.iterationTimeMs});
            repeats[r.configurationKey()].emplace_back(*r.iterationTimeMs, r.runId);
            anyIteration = true;
        }
        for (std::size_t i = 0; i < r.stages.size(); ++i)
            if (r.stages[i].stageTimeMs) {
                e.obs.push_back({idx, static_cast<int>(i), *r.stages[i].stageTimeMs / G});
                repeats[r.configurationKey() + "\nstage " + std::to_string(i)].emplace_back(*r.stages[i].stageTimeMs,
                                                                                            r.runId);
            }
        if (r.config.tp > 1 || r.config.pp > 1)
            anyComm = true;
        for (const MeasuredStage& st : r.stages)
            if (st.gpuType == type)
                chunkLayers.insert(st.layers * 1000 / std::max(1, r.config.vp));
        distinct.insert(r.configurationKey());
    }
    for (const auto& [key, times] : repeats) {
        auto [lo, hi] = std::minmax_element(times.begin(), times.end());
        if (hi->first >= ratio * lo->first) {
            const std::size_t cut = key.find("\nstage ");
            const std::string what = cut == std::string::npos ? "iteration time" : key.substr(cut + 1) + " time";
            char buf[96];
            std::snprintf(buf, sizeof buf, " differ %.1fx in ", hi->first / lo->first);
            char ms[64];
            std::snprintf(ms, sizeof ms, " (%.1f vs %.1f ms)", lo->first, hi->first);
            e.contradiction = "runs " + lo->second + " and " + hi->second + " of one configuration" + buf + what + ms;
        }
    }
    e.distinct = distinct.size();
    for (const Param& p : kParams) {
        if (p.field == &GpuParamsFit::iterationOverheadMs && !anyIteration)
            continue;
        if (p.field == &GpuParamsFit::commOverheadUs && !anyComm)
            continue;
        if (p.field == &GpuParamsFit::stepOverheadUs && chunkLayers.size() < 2)
            continue;
        e.free.push_back(&p);
    }
    const std::size_t budget = e.distinct == 0 ? 0 : e.distinct - 1;
    if (e.free.size() > budget)
        e.free.resize(budget);
    return e;
}

// Runs of `members` that the fit `fits` predicts far worse than the rest: a
// run's error is its worst log ratio predicted / measured; it is an outlier
// when that lies further from the runs' median than both a factor of 1.6 and
// four robust standard deviations (1.4826 x the median absolute deviation).
// At most a fifth of the runs (none of fewer than 5) can be outliers, so a
// fit is never made to a few runs that happen to agree. One slow run of a
// handful (a 2.9x slower repeat of a configuration, say) otherwise drags the
// per-kernel and per-iteration host times apart, which a Huber loss alone does
// not prevent when only ten runs hold five parameters.
struct Outlier {
    Observation obs;  // the run's worst-predicted observation
};

std::vector<Outlier> outliersOf(const std::vector<Scenario>& scenarios, const Fitter& fitter,
                                const std::map<std::string, GpuParamsFit>& fits, const std::vector<Observation>& obs)
{
    const auto pred = fitter.predictorFor(fits);
    std::map<int, Outlier> worst;  // per scenario
    std::map<int, double> error;
    for (const Observation& o : obs) {
        const double p = predictedMs(scenarios[static_cast<std::size_t>(o.scenario)], o, pred);
        if (!std::isfinite(p) || p <= 0)
            continue;
        const double e = std::log(p / o.measuredMs);
        auto it = error.find(o.scenario);
        if (it == error.end() || std::abs(e) > std::abs(it->second)) {
            error[o.scenario] = e;
            worst[o.scenario] = {o};
        }
    }
    const std::size_t n = error.size();
    if (n < 5)
        return {};
    std::vector<double> e;
    for (const auto& [idx, v] : error)
        e.push_back(v);
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        const std::size_t m = v.size() / 2;
        return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
    };
    const double med = median(e);
    std::vector<double> dev;
    for (double v : e)
        dev.push_back(std::abs(v - med));
    const double limit = std::max(std::log(1.6), 4.0 * 1.4826 * median(dev));
    std::vector<std::pair<double, Outlier>> found;
    for (const auto& [idx, v] : error)
        if (std::abs(v - med) > limit)
            found.emplace_back(std::abs(v - med), worst[idx]);
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    const std::size_t allowed = n / 5;
    if (found.size() > allowed)
        return {};  // too many to call outliers: the model, not the runs, is off
    std::vector<Outlier> out;
    for (const auto& [d, o] : found)
        out.push_back(o);
    return out;
}

// Takes the parameter values of `from` (not its bookkeeping).
void adoptValues(GpuParamsFit& to, const GpuParamsFit& from)
{
    for (const Param& p : kParams)
        to.*(p.field) = from.*(p.field);
}

// The measured stage peaks of each type with the model's terms for them,
// predicted with the time fits in `fits` (memory does not depend on them). A
// run with only a run-level peak (the largest over its GPUs) counts as a peak
// of the stage the model predicts largest.
std::map<std::string, std::vector<MemoryObservation>>
memoryObservations(const std::vector<Scenario>& scenarios, const Fitter& fitter,
                   const std::map<std::string, GpuParamsFit>& fits)
{
    std::map<std::string, std::vector<MemoryObservation>> byType;
    const auto predictor = fitter.predictorFor(fits);
    for (const Scenario& sc : scenarios) {
        const MeasuredRun& r = *sc.run;
        std::vector<double> peaks(r.stages.size(), 0.0);
        bool any = false;
        for (std::size_t i = 0; i < r.stages.size(); ++i)
            if (r.stages[i].peakMemMiB && *r.stages[i].peakMemMiB > 0) {
                peaks[i] = *r.stages[i].peakMemMiB;
                any = true;
            }
        const bool runPeak = !any && r.runPeakMemMiB && *r.runPeakMemMiB > 0;
        if (!any && !runPeak)
            continue;
        const Evaluation ev = PlanEvaluator::evaluate(sc.problem, sc.spec, predictor);
        const MemoryKind kind = r.config.peakMemKind;
        if (runPeak) {
            std::size_t largest = 0;
            for (std::size_t i = 1; i < ev.plan.stages.size(); ++i)
                if (ev.plan.stages[i].memory.ofKind(kind) > ev.plan.stages[largest].memory.ofKind(kind))
                    largest = i;
            if (largest < peaks.size())
                peaks[largest] = *r.runPeakMemMiB;
        }
        for (std::size_t i = 0; i < r.stages.size() && i < ev.plan.stages.size(); ++i) {
            const MeasuredStage& s = r.stages[i];
            if (!(peaks[i] > 0))
                continue;
            const MemoryBreakdown& m = ev.plan.stages[i].memory;
            const auto fit = fits.find(s.gpuType);
            const double a0 = fit != fits.end() ? fit->second.memoryMultiplier : 1.0;
            MemoryObservation o;
            o.config = r.configurationKey() + "#" + std::to_string(i);
            o.measuredMiB = peaks[i];
            o.tensorsMiB = m.tensorsMiB() / a0;
            const double alloc = m.allocatedMiB();
            o.slack = kind == MemoryKind::Allocated || alloc <= 0 ? 0.0 : m.allocatorMiB / alloc;
            o.addMiB = kind == MemoryKind::Device ? m.reserveMiB : 0.0;
            byType[s.gpuType].push_back(o);
        }
    }
    return byType;
}

void fitMemory(const std::vector<Scenario>& scenarios, const Fitter& fitter, std::map<std::string, GpuParamsFit>& fits,
               const Calibrator::Options& options, const std::string& file, std::vector<std::string>& messages)
{
    for (auto& [type, obs] : memoryObservations(scenarios, fitter, fits)) {
        const auto it = fits.find(type);
        if (it == fits.end())
            continue;  // not in the catalog: its runs were not fitted either
        GpuParamsFit& fit = it->second;
        const MemoryFit::Result m
            = MemoryFit::fit(obs, fit.memoryMultiplier, fit.frameworkMiB, options.contradictionRatio);
        fit.memoryRuns = static_cast<int>(obs.size());
        fit.memoryMapeBefore = m.mapeBefore;
        fit.memoryMapeAfter = m.mapeAfter;
        fit.memoryNote = m.note;
        fit.memoryMultiplier = m.multiplier;
        fit.frameworkMiB = m.frameworkMiB;
        fit.fitted.insert(fit.fitted.end(), m.fitted.begin(), m.fitted.end());
        if (m.fitted.empty())
            messages.push_back(file + ": GPU type " + type + " memory: " + m.note);
    }
}

// The time fit's steps: each type on its own runs, then the types of the
// mixed-type runs jointly. `fits` collects every type's parameters.
class TimeFits {
public:
    TimeFits(const std::vector<Scenario>& scenarios, const Fitter& fitter, const GpuCatalog& catalog,
             const Calibrator::Options& options, const std::string& file, std::vector<std::string>& messages)
        : scenarios_(scenarios)
        , fitter_(fitter)
        , catalog_(catalog)
        , options_(options)
        , file_(file)
        , messages_(messages)
    {
    }

    // 1. One type on its own runs (`members`, homogeneous scenarios).
    void alone(const std::string& type, const std::vector<int>& members)
    {
        if (!catalog_.find(type))
            return;
        GpuParamsFit& fit = start(type);
        const Evidence e = evidenceOf(scenarios_, members, options_.contradictionRatio, type);
        const std::map<std::string, GpuParamsFit> alone{{type, fit}};
        fit.runs = static_cast<int>(members.size());
        fit.mapeBefore = fitter_.mape(alone, e.obs);
        if (e.obs.empty())
            fit.note = "no measured time";
        else if (!e.contradiction.empty())
            fit.note = e.contradiction + "; catalog values kept";
        else if (e.free.empty())
            fit.note = "only " + std::to_string(e.distinct)
                + " distinct configuration(s); two are needed to fit a parameter; catalog values kept";
        else
            fitFree(type, members, e, alone, fit);
        fit.mapeAfter = fitter_.mape({{type, fit}}, e.obs);
        if (fit.fitted.empty())
            messages_.push_back(file_ + ": GPU type " + type + ": " + fit.note);
    }

    // 2. Runs that mix types: the types they contain, jointly, on every run
    //    that contains one of them (a heterogeneous cluster's types are
    //    often measured only together).
    void mixed(const std::vector<int>& mixed)
    {
        std::set<std::string> involved;
        for (int idx : mixed)
            for (const std::string& t : scenarios_[static_cast<std::size_t>(idx)].run->gpuTypes())
                if (catalog_.find(t))
                    involved.insert(t);
        std::vector<int> members;
        for (std::size_t i = 0; i < scenarios_.size(); ++i) {
            const auto t = scenarios_[i].run->gpuTypes();
            if (std::any_of(t.begin(), t.end(), [&](const std::string& x) { return involved.count(x) > 0; }))
                members.push_back(static_cast<int>(i));
        }
        std::map<std::string, std::vector<int>> own;  // the runs containing each involved type
        for (int idx : members)
            for (const std::string& t : scenarios_[static_cast<std::size_t>(idx)].run->gpuTypes())
                if (involved.count(t))
                    own[t].push_back(idx);
        fitJointly(involved, own, members, mixed.size());
        std::map<std::string, GpuParamsFit> catalogValues;
        for (const std::string& t : involved)
            catalogValues.emplace(t, GpuParamsFit::of(*catalog_.find(t)));
        for (const std::string& type : involved) {
            GpuParamsFit& fit = fits.at(type);
            const Evidence e = evidenceOf(scenarios_, own[type], 1e300, type);
            fit.mapeBefore = fitter_.mape(catalogValues, e.obs);
            fit.mapeAfter = fitter_.mape(fits, e.obs);
            if (fit.fitted.empty() && fit.note.empty())
                fit.note = "the mixed-type runs did not determine its parameters; catalog values kept";
        }
    }

    std::map<std::string, GpuParamsFit> fits;

private:
    GpuParamsFit& start(const std::string& type)
    {
        auto it = fits.find(type);
        if (it == fits.end())
            it = fits.emplace(type, GpuParamsFit::of(*catalog_.find(type))).first;
        return it->second;
    }

    // The free parameters fitted, then fitted again without the outliers;
    // adopted only when they lower the type's time error.
    void fitFree(const std::string& type, const std::vector<int>& members, const Evidence& e,
                 const std::map<std::string, GpuParamsFit>& alone, GpuParamsFit& fit)
    {
        std::vector<Dim> dims;
        for (const Param* p : e.free)
            dims.push_back(dimOf(*catalog_.find(type), *p));
        auto best = fitter_.minimise(alone, dims, e.obs, 24, 2);
        double after = fitter_.mape(best, e.obs);
        Evidence kept = e;
        const std::string leftOut = withoutOutliers(type, members, e, alone, dims, best, after, kept);
        if (after < fitter_.mape(alone, kept.obs)) {
            adoptValues(fit, best.at(type));
            for (const Param* p : e.free)
                fit.fitted.push_back(p->name);
            if (e.free.size() < std::size(kParams))
                fit.note = std::to_string(e.distinct) + " distinct configuration(s): fitted "
                    + std::to_string(e.free.size()) + " of " + std::to_string(std::size(kParams)) + " parameters";
            if (!leftOut.empty())
                fit.note += (fit.note.empty() ? "" : "; ") + leftOut;
        } else {
            fit.note = "no fit of the model's parameters lowers these runs' time error ("
                + std::to_string(std::lround(after)) + "% against " + std::to_string(std::lround(fit.mapeBefore))
                + "% with catalog values); catalog values kept";
        }
    }

    // The fit again without the runs it predicts worst, kept when it predicts
    // the rest better; each run left out is named. Returns the brief list.
    std::string withoutOutliers(const std::string& type, const std::vector<int>& members, const Evidence& e,
                                const std::map<std::string, GpuParamsFit>& alone, const std::vector<Dim>& dims,
                                std::map<std::string, GpuParamsFit>& best, double& after, Evidence& kept)
    {
        const std::vector<Outlier> out = outliersOf(scenarios_, fitter_, best, e.obs);
        if (out.empty())
            return {};
        std::vector<int> rest;
        for (int idx : members)
            if (std::none_of(out.begin(), out.end(), [&](const Outlier& o) { return o.obs.scenario == idx; }))
                rest.push_back(idx);
        Evidence r = evidenceOf(scenarios_, rest, options_.contradictionRatio, type);
        if (r.free.size() != e.free.size())
            return {};
        const auto refit = fitter_.minimise(alone, dims, r.obs, 24, 2);
        if (!(fitter_.mape(refit, r.obs) < fitter_.mape(alone, r.obs)))
            return {};
        best = refit;
        after = fitter_.mape(best, r.obs);
        kept = r;
        const auto pred = fitter_.predictorFor(best);
        std::string leftOut;
        for (const Outlier& o : out) {
            const Scenario& sc = scenarios_[static_cast<std::size_t>(o.obs.scenario)];
            const double p = predictedMs(sc, o.obs, pred);
            char buf[320];
            std::snprintf(buf, sizeof buf,
                          "run %s left out of the time fit: its %s is %.1f ms, %.2fx what the fit of "
                          "the other %zu runs predicts (%.1f ms); a repeat of it would tell whether "
                          "the run or the model is off",
                          sc.run->runId.c_str(), o.obs.stage < 0 ? "iteration" : "stage time", o.obs.measuredMs,
                          o.obs.measuredMs / p, rest.size(), p);
            char brief[200];
            std::snprintf(brief, sizeof brief, "run %s left out of the time fit (%.2fx its prediction)",
                          sc.run->runId.c_str(), o.obs.measuredMs / p);
            leftOut += (leftOut.empty() ? "" : "; ") + std::string(brief);
            messages_.push_back(file_ + ": GPU type " + type + ": " + buf);
        }
        return leftOut;
    }

    void fitJointly(const std::set<std::string>& involved, std::map<std::string, std::vector<int>>& own,
                    const std::vector<int>& members, std::size_t mixedRuns)
    {
        std::vector<Dim> dims;
        std::map<std::string, std::vector<const Param*>> freeOf;
        for (const std::string& type : involved) {
            const Evidence e = evidenceOf(scenarios_, own[type], options_.contradictionRatio, type);
            GpuParamsFit& fit = start(type);
            fit.runs = static_cast<int>(own[type].size());
            if (!e.contradiction.empty()) {
                fit.note = e.contradiction + "; catalog values kept";
                continue;
            }
            for (const Param* p : e.free) {
                dims.push_back(dimOf(*catalog_.find(type), *p));
                freeOf[type].push_back(p);
            }
        }
        const Evidence all = evidenceOf(scenarios_, members, 1e300, "");  // its observations only
        const double before = fitter_.mape(fits, all.obs);
        if (dims.empty())
            return;
        const auto best = fitter_.minimise(fits, dims, all.obs, 12, 1);
        const double after = fitter_.mape(best, all.obs);
        if (std::getenv("MEMX_TRACE_CALIBRATION"))
            std::fprintf(stderr, "joint fit of %zu parameters over %zu observations: MAPE %.1f%% -> %.1f%%\n",
                         dims.size(), all.obs.size(), before, after);
        if (!(after < before))
            return;
        for (const auto& [type, params] : freeOf) {
            GpuParamsFit& fit = fits.at(type);
            adoptValues(fit, best.at(type));
            fit.fitted.clear();
            for (const Param* p : params)
                fit.fitted.push_back(p->name);
            fit.note = "fitted jointly with the other types of " + std::to_string(mixedRuns) + " mixed-type run(s)";
        }
    }

    const std::vector<Scenario>& scenarios_;
    const Fitter& fitter_;
    const GpuCatalog& catalog_;
    const Calibrator::Options& options_;
    const std::string& file_;
    std::vector<std::string>& messages_;
};

}  // namespace

Calibrator::Result Calibrator::fit(const std::vector<MeasuredRun>& runs, const GpuCatalog& catalog,
                                   const std::string& file, RunPlacement& placement,
                                   const AnalyticPredictor::Params& params, const Options& options)
{
    Result result;
    std::map<std::string, std::vector<int>> byType;  // homogeneous scenarios per type
    std::vector<int> mixed;  // scenarios of runs with several types
    std::vector<Scenario> scenarios;
    scenarios.reserve(runs.size());
    for (const MeasuredRun& run : runs) {
        Scenario sc;
        try {
            sc.problem = placement.problem(run, file, catalog, sc.spec);
            // What only evaluating finds (a precision one of the run's GPU
            // types lacks) skips the run here, as it does in training,
            // instead of stopping the fit halfway.
            PlanEvaluator::evaluate(sc.problem, sc.spec, nullptr);
        } catch (const InputError& e) {
            result.messages.push_back(file + ": run " + run.runId + " left out: " + e.reason());
            continue;
        }
        sc.run = &run;
        const int idx = static_cast<int>(scenarios.size());
        if (run.heterogeneous())
            mixed.push_back(idx);
        else
            byType[run.stages.front().gpuType].push_back(idx);
        scenarios.push_back(std::move(sc));
    }
    const Fitter fitter(scenarios, params, options);
    TimeFits time(scenarios, fitter, catalog, options, file, result.messages);
    for (const auto& [type, members] : byType)
        time.alone(type, members);
    if (!mixed.empty())
        time.mixed(mixed);
    // 3. Memory: each type's multiplier and framework buffers from the
    //    measured peaks of its stages (homogeneous and mixed runs alike: a
    //    stage's peak belongs to its own type).
    fitMemory(scenarios, fitter, time.fits, options, file, result.messages);
    for (auto& [type, f] : time.fits)
        result.fits.push_back(f);
    return result;
}

std::shared_ptr<const AnalyticPredictor> Calibrator::calibratedModel(const std::vector<Measurement>& rows,
                                                                     const std::string& file, RunPlacement& placement,
                                                                     Result& result)
{
    std::vector<std::string> incomplete;  // TrainingSet names these runs
    result = fit(MeasuredRun::group(rows, file, &incomplete), GpuCatalog::builtin(), file, placement,
                 AnalyticPredictor::Params(), Options());
    auto model = std::make_shared<AnalyticPredictor>();
    model->setCalibration(result.fits);
    return model;
}

}  // namespace memx
