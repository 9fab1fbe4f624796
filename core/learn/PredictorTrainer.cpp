#include "learn/PredictorTrainer.h"

#include <chrono>

#include "hardware/GpuCatalog.h"
#include "io/HostCores.h"
#include "predict/StageFeatures.h"
#include "learn/BayesianOptimizer.h"
#include "learn/IterationTermFit.h"
#include "measure/RunPlacement.h"
#include "learn/TrainingSet.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <limits>
#include <set>
#include <random>
#include <stdexcept>
#include <thread>

namespace memx {

namespace {

LearnedPredictor fitRows(const TrainingSet& set, const std::vector<std::size_t>& rows,
                         const XgboostModel::TrainParams& params, const LearnedPredictorParams& uncertainty = {})
{
    std::vector<StageQuery> queries;
    std::vector<double> t, m;
    set.targets(rows, queries, t, m);
    return LearnedPredictor::fit(queries, t, m, params, set.priorModel(), uncertainty);
}

double nanMean(double a, double b)
{
    if (std::isnan(a))
        return b;
    if (std::isnan(b))
        return a;
    return (a + b) / 2;
}

nlohmann::json paramsJson(const XgboostModel::TrainParams& p)
{
    return {{"max_depth", p.maxDepth},
            {"eta", p.eta},
            {"subsample", p.subsample},
            {"rounds", p.rounds},
            {"seed", p.seed}};
}

nlohmann::json number(double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); }

}  // namespace

nlohmann::json TrainReport::toJson() const
{
    nlohmann::json j;
    j["params"] = paramsJson(params);
    j["cross_validation"] = {{"folds", cv.folds},
                             {"time_mape_pct", number(cv.timeMape)},
                             {"memory_mape_pct", number(cv.memoryMape)},
                             {"prior_time_mape_pct", number(cv.priorTimeMape)},
                             {"prior_memory_mape_pct", number(cv.priorMemoryMape)}};
    j["corrections"] = {{"time", uncertainty.timeCorrection}, {"memory", uncertainty.memoryCorrection}};
    nlohmann::json t = nlohmann::json::array();
    for (const Trial& trial : trials)
        t.push_back({{"params", paramsJson(trial.params)}, {"cv_mape_pct", number(trial.objective)}});
    j["trials"] = t;
    j["importance_gain"] = importance;
    j["iteration_terms"] = iterationTerms.toJson();
    if (stoppedByTimeLimit)
        j["incomplete"] = "the hyper-parameter search was stopped by --time-limit after "
            + std::to_string(trials.size()) + " trials";
    return j;
}

PredictorTrainer::FoldRows PredictorTrainer::foldRows(const TrainingSet& set, const std::vector<int>& foldOf, int fold)
{
    // Runs of the fold by id, to find the interpolated runs made from them.
    std::set<std::string> held;
    for (std::size_t i = 0; i < set.runs.size(); ++i)
        if (foldOf[i] == fold)
            held.insert(set.runs[i].runId);
    std::vector<char> leaks(set.runs.size(), 0);
    for (std::size_t i = 0; i < set.runs.size(); ++i) {
        const Measurement& c = set.runs[i].config;
        leaks[i] = c.hasUnknownOrigin();  // may have come from any fold: it trains in none
        for (const std::string& from : c.derivedFrom.runIds)
            leaks[i] = leaks[i] || held.count(from) > 0;
    }
    FoldRows out;
    for (std::size_t r = 0; r < set.rows.size(); ++r) {
        const auto run = static_cast<std::size_t>(set.rows[r].run);
        const bool interpolated = set.runs[run].config.isInterpolated();
        if (foldOf[run] == fold) {
            if (!interpolated)
                out.test.push_back(r);
        } else if (!leaks[run]) {
            out.train.push_back(r);
        }
    }
    return out;
}

std::size_t PredictorTrainer::scoredRuns(const TrainingSet& set)
{
    return static_cast<std::size_t>(std::count_if(set.runs.begin(), set.runs.end(),
                                                  [](const MeasuredRun& r) { return !r.config.isInterpolated(); }));
}

std::vector<int> PredictorTrainer::assignFolds(const TrainingSet& set, int folds, std::uint64_t seed)
{
    if (folds < 1)
        throw std::invalid_argument("PredictorTrainer::assignFolds: " + std::to_string(folds) + " folds");
    std::vector<int> scored;
    for (std::size_t i = 0; i < set.runs.size(); ++i)
        if (!set.runs[i].config.isInterpolated())
            scored.push_back(static_cast<int>(i));
    std::mt19937_64 rng(seed);
    std::shuffle(scored.begin(), scored.end(), rng);
    std::vector<int> foldOf(set.runs.size(), -1);
    for (std::size_t k = 0; k < scored.size(); ++k)
        foldOf[static_cast<std::size_t>(scored[k])] = static_cast<int>(k % static_cast<std::size_t>(folds));
    return foldOf;
}

CrossValidation PredictorTrainer::crossValidate(const TrainingSet& set, const XgboostModel::TrainParams& params,
                                                int folds, std::uint64_t seed, int threads)
{
    CrossValidation cv;
    cv.folds = std::min(folds, static_cast<int>(scoredRuns(set)));
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (cv.folds < 2) {
        cv.timeMape = cv.memoryMape = cv.objective = cv.priorTimeMape = cv.priorMemoryMape = nan;
        return cv;
    }
    const std::vector<int> foldOf = assignFolds(set, cv.folds, seed);

    // The folds train on their own threads (one booster each, XGBoost on one
    // thread for tables this small): on two cores the optimiser's trials take
    // half the time. Each fold's predictions are kept and summed afterwards in
    // fold order, so the figures are bit for bit those of one thread.
    struct FoldOutcome {
        std::vector<std::size_t> test;
        std::vector<StagePrediction> predicted;
    };
    std::vector<FoldOutcome> outcome(static_cast<std::size_t>(cv.folds));
    std::atomic<int> next{0};
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(cv.folds));
    const auto work = [&] {
        for (int f = next++; f < cv.folds; f = next++) {
            try {
                auto [train, test] = foldRows(set, foldOf, f);
                if (train.empty() || test.empty())
                    continue;
                const LearnedPredictor model = fitRows(set, train, params);
                std::vector<StageQuery> q;
                for (std::size_t r : test)
                    q.push_back(set.rows[r].query);
                FoldOutcome& out = outcome[static_cast<std::size_t>(f)];
                out.predicted.resize(q.size());
                model.predict(q, out.predicted);
                out.test = std::move(test);
            } catch (...) {
                errors[static_cast<std::size_t>(f)] = std::current_exception();
            }
        }
    };
    {
        const int workers = std::clamp(threads > 0 ? threads : usableCores(), 1, cv.folds);
        std::vector<std::thread> pool;
        for (int i = 1; i < workers; ++i)
            pool.emplace_back(work);
        work();
        for (std::thread& t : pool)
            t.join();
    }
    for (const std::exception_ptr& e : errors)
        if (e)
            std::rethrow_exception(e);

    double sumT = 0, sumM = 0, priorT = 0, priorM = 0;
    int nT = 0, nM = 0;
    for (const FoldOutcome& out : outcome) {
        const std::vector<StagePrediction>& p = out.predicted;
        for (std::size_t k = 0; k < out.test.size(); ++k) {
            const TrainingRow& row = set.rows[out.test[k]];
            if (row.hasTime) {
                sumT += 100 * std::abs(p[k].timeMs / (row.analytic.timeMs * std::exp(row.timeLabel)) - 1);
                priorT += 100 * std::abs(std::exp(-row.timeLabel) - 1);
                ++nT;
            }
            if (row.hasMemory) {
                sumM += 100 * std::abs(p[k].memoryMiB() / (row.analytic.memoryMiB() * std::exp(row.memoryLabel)) - 1);
                priorM += 100 * std::abs(std::exp(-row.memoryLabel) - 1);
                ++nM;
            }
        }
    }
    cv.timeMape = nT ? sumT / nT : nan;
    cv.memoryMape = nM ? sumM / nM : nan;
    cv.priorTimeMape = nT ? priorT / nT : nan;
    cv.priorMemoryMape = nM ? priorM / nM : nan;
    cv.objective = nanMean(cv.timeMape, cv.memoryMape);
    return cv;
}

LearnedPredictor PredictorTrainer::train(const TrainingSet& set, const Options& options, TrainReport& report)
{
    if (set.rows.empty())
        throw std::invalid_argument("PredictorTrainer: no usable measurement (every run was skipped or had no target)");
    report = TrainReport{};
    XgboostModel::TrainParams best = options.params;
    best.seed = static_cast<int>(options.seed % 1000003);
    const bool canValidate = std::min<std::size_t>(options.folds, scoredRuns(set)) >= 3;
    // Each trial's cross-validation, so that the chosen parameters' is not
    // computed twice (the same folds and seed give the same figures).
    std::vector<std::pair<XgboostModel::TrainParams, CrossValidation>> tried;
    if (options.tune && canValidate) {
        const std::vector<BayesianOptimizer::Dimension> dims = {
            {"max_depth", 2, 8, true, false},
            {"eta", 0.02, 0.4, false, true},
            {"subsample", 0.5, 1.0, false, false},
            {"rounds", 20, 400, true, true},
        };
        const auto toParams = [&](const std::vector<double>& x) {
            XgboostModel::TrainParams p = best;
            p.maxDepth = static_cast<int>(std::lround(x[0]));
            p.eta = x[1];
            p.subsample = x[2];
            p.rounds = static_cast<int>(std::lround(x[3]));
            return p;
        };
        BayesianOptimizer::Options bo;
        bo.initialPoints = options.initialPoints;
        bo.iterations = options.iterations;
        bo.seed = options.seed;
        const auto start = std::chrono::steady_clock::now();
        if (options.timeLimitS > 0)
            bo.stop = [&] {
                return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()
                    > options.timeLimitS;
            };
        const auto result = BayesianOptimizer::minimise(
            dims,
            [&](const std::vector<double>& x) {
                const XgboostModel::TrainParams p = toParams(x);
                tried.emplace_back(p, crossValidate(set, p, options.folds, options.seed));
                const double v = tried.back().second.objective;
                report.trials.push_back({p, v});
                return std::isnan(v) ? 1e6 : v;
            },
            bo);
        best = toParams(result.best);
        report.stoppedByTimeLimit = result.stopped;
    }
    report.params = best;
    const auto same = [&](const XgboostModel::TrainParams& p) {
        return p.maxDepth == best.maxDepth && p.eta == best.eta && p.subsample == best.subsample
            && p.rounds == best.rounds && p.seed == best.seed;
    };
    const auto known = std::find_if(tried.begin(), tried.end(), [&](const auto& t) { return same(t.first); });
    report.cv = known != tried.end() ? known->second : crossValidate(set, best, options.folds, options.seed);

    LearnedPredictorParams u;
    const double cvErr = std::max(std::isnan(report.cv.timeMape) ? 0 : report.cv.timeMape,
                                  std::isnan(report.cv.memoryMape) ? 0 : report.cv.memoryMape)
        / 100;
    if (cvErr > 0) {
        u.inRangeUncertainty = std::clamp(cvErr, 0.02, 0.5);
        u.outOfRangeUncertainty = std::min(1.5, 3 * u.inRangeUncertainty);
    }
    // The gate: keep a correction only where it beat the prior alone. The
    // optimiser chose the parameters on these folds, so their error there is
    // optimistic; the gate judges them on folds drawn afresh, three times
    // (with a dozen runs one draw of folds decides by luck: on Megatron-LM
    // CI's minimal set a single draw let through a time correction that
    // made the held-out runs 28 % off instead of 17 %).
    CrossValidation fresh = report.cv;
    if (options.tune && canValidate) {
        constexpr int kDraws = 3;
        fresh = {};
        for (int d = 1; d <= kDraws; ++d) {
            const CrossValidation c = crossValidate(set, best, options.folds, options.seed + 7919u * d);
            fresh.timeMape += c.timeMape / kDraws;
            fresh.priorTimeMape += c.priorTimeMape / kDraws;
            fresh.memoryMape += c.memoryMape / kDraws;
            fresh.priorMemoryMape += c.priorMemoryMape / kDraws;
        }
    }
    // Kept only where cross-validation saw the trees do no worse; without a
    // figure (fewer than two measured runs, no such label) there is no
    // evidence for them, and the calibrated model answers alone.
    u.timeCorrection = fresh.timeMape <= fresh.priorTimeMape;
    u.memoryCorrection = fresh.memoryMape <= fresh.priorMemoryMape;
    report.uncertainty = u;
    LearnedPredictor model = fitRows(set, set.rowsOfRuns({}), best, u);
    report.importance = model.model().gainImportance(StageFeatures::names());
    if (options.runLevel) {
        RunPlacement synthetic;
        RunPlacement& place = options.placement ? *options.placement : synthetic;
        // Borrowed, not owned: the samples are composed before `model` moves.
        const std::shared_ptr<const Predictor> stageModel(&model, [](const Predictor*) {});
        report.iterationTerms = IterationTermFit::fit(
            IterationTermFit::samples(set.runs, set.file, GpuCatalog::builtin(), place, stageModel));
        model.setIterationTerms(report.iterationTerms);
    }
    return model;
}

}  // namespace memx
