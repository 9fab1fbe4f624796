// train, predict, evaluate: the learning half of the loop (MemX section 3.2.2).
#include "cli/Commands.h"
#include "cli/PredictorOption.h"

#include "hardware/Cluster.h"
#include "hardware/GpuCatalog.h"
#include "io/AtomicFile.h"
#include "io/InputError.h"
#include "io/Text.h"
#include "accuracy/AccuracyEvaluator.h"
#include "accuracy/AccuracyProtocol.h"
#include "learn/Calibrator.h"
#include "learn/IterationTermFit.h"
#include "learn/Augmenter.h"
#include "measure/MeasuredRun.h"
#include "measure/MeasurementCsv.h"
#include "learn/PredictorTrainer.h"
#include "measure/RunPlacement.h"
#include "measure/RunScenario.h"
#include "learn/TrainingSet.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>

namespace memx::cli {

namespace {

struct TrainArgs {
    std::vector<std::string> measurements;
    std::string out, report, cluster;
    bool augment = false;
    int augmentPerGap = AugmentOptions{}.perGap;
    bool noTune = false;
    bool noCalibrate = false;
    int folds = 5;
    int trials = 20;
    double timeLimit = 0;
    std::uint64_t seed = 0;
};

// Reads and concatenates measurement files; run ids are prefixed with the
// file's index when several files are given, so runs never merge by accident,
// and `cluster` cells are resolved against their own file's directory.
std::vector<Measurement> readAll(const std::vector<std::string>& files, std::string& text)
{
    std::vector<Measurement> rows;
    for (std::size_t f = 0; f < files.size(); ++f) {
        MeasurementSet set = MeasurementCsv::read(files[f]);
        printWarnings(set.warnings);
        for (Measurement& m : set.rows) {
            if (files.size() > 1) {
                m.runId = std::to_string(f) + ":" + m.runId;
                if (!m.cluster.empty())
                    m.cluster = RunPlacement::resolve(m.cluster, files[f]);
            }
            rows.push_back(std::move(m));
        }
    }
    text = MeasurementCsv::write(rows);
    return rows;
}

// `--cluster FILE` of train, predict, evaluate and accuracy (empty: none).
std::shared_ptr<const Cluster> loadCluster(const std::string& file)
{
    return file.empty() ? nullptr : std::make_shared<const Cluster>(Cluster::fromFile(file));
}

// One topology warning for each cluster the runs of `rows` go on (null: the
// synthetic one) that the learned model was not trained on.
void warnTopologies(const LoadedPredictor& p, const std::vector<Measurement>& rows, const std::string& file,
                    RunPlacement& placement)
{
    std::map<const Cluster*, std::vector<std::string>> typesOn;  // GPU types of the runs on each
    std::vector<const Cluster*> order;
    std::vector<std::string> incomplete;  // named where the runs are used
    for (const MeasuredRun& run : MeasuredRun::group(rows, file, &incomplete)) {
        const Cluster* used = placement.clusterOf(run, file).get();
        if (!typesOn.count(used))
            order.push_back(used);
        for (const MeasuredStage& s : run.stages)
            typesOn[used].push_back(s.gpuType);
    }
    for (const Cluster* used : order)
        warnTopology(p, used, typesOn[used]);
}

std::string calibrationText(const Calibrator::Result& c);

// Measurements that do not vary although the configurations do (one value
// pasted into every row, a log parser that read the same line): nothing to
// learn from, and almost surely a mistake in the file.
void warnConstantTargets(const TrainingSet& set, const std::string& file)
{
    const auto check = [&](const char* what, auto valueOf) {
        std::set<std::string> configs;
        double lo = 0, hi = 0;
        bool any = false;
        for (const MeasuredRun& run : set.runs) {
            const std::optional<double> v = valueOf(run);
            if (!v || run.config.isInterpolated())
                continue;
            lo = any ? std::min(lo, *v) : *v;
            hi = any ? std::max(hi, *v) : *v;
            any = true;
            configs.insert(run.configurationKey());
        }
        if (any && configs.size() >= 3 && hi <= lo * (1 + 1e-9))
            std::cerr << file << ": warning: every " << what << " is " << Text::fmt("%g", lo) << " across "
                      << configs.size() << " distinct configurations; is the column filled from one run?\n";
    };
    check("measured iteration time (ms)", [](const MeasuredRun& r) { return r.iterationTimeMs; });
    check("measured peak memory (MiB)", [](const MeasuredRun& r) -> std::optional<double> {
        std::optional<double> peak = r.runPeakMemMiB;
        for (const MeasuredStage& s : r.stages)
            if (s.peakMemMiB)
                peak = std::max(peak.value_or(0.0), *s.peakMemMiB);
        return peak;
    });
}

// --augment: interpolated rows appended to `rows` (MemX Table 2); the
// table is printed and its summary returned for the training report.
nlohmann::json augmentRows(const TrainArgs& a, std::vector<Measurement>& rows, std::size_t& interpolated)
{
    AugmentOptions augmentOptions;
    augmentOptions.perGap = a.augmentPerGap;
    const Augmenter::Result aug = Augmenter::augment(rows, augmentOptions);
    std::cout << "Interpolation augmentation (MemX Table 2):\n" << Augmenter::formatTable(aug) << "\n";
    interpolated = aug.rows.size();
    rows.insert(rows.end(), aug.rows.begin(), aug.rows.end());
    return {{"input_rows", aug.inputRows}, {"generated_rows", aug.rows.size()}, {"capped", aug.capped}};
}

// The training set, its skipped runs and doubts said; throws when no run can be used.
TrainingSet trainingSetOf(const std::vector<Measurement>& rows, const std::string& dataFile, RunPlacement& placement,
                          const std::shared_ptr<const AnalyticPredictor>& prior)
{
    TrainingSet set = TrainingSet::build(rows, dataFile, GpuCatalog::builtin(), &placement, prior);
    for (const std::string& s : set.skipped)
        std::cerr << dataFile << ": skipped " << s << "\n";
    if (set.rows.empty())
        throw InputError(dataFile, "",
                         set.skipped.empty() ? std::string("the file holds no run to train on")
                                             : "no run could be used for training (see the skipped "
                                               "runs above)");
    warnConstantTargets(set, dataFile);
    const auto unnamed = std::count_if(set.runs.begin(), set.runs.end(),
                                       [](const MeasuredRun& r) { return r.config.hasUnknownOrigin(); });
    if (unnamed > 0)
        std::cerr << dataFile << ": " << unnamed
                  << " interpolated run(s) read from the file do not say which runs they were made from: they train "
                     "the final model but no cross-validation fold (any fold might hold their source)\n";
    return set;
}

PredictorTrainer::Options trainerOptions(const TrainArgs& a, RunPlacement& placement)
{
    PredictorTrainer::Options opt;
    opt.folds = a.folds;
    opt.tune = !a.noTune;
    opt.initialPoints = std::min(6, std::max(1, a.trials));
    opt.iterations = std::max(0, a.trials - opt.initialPoints);
    opt.seed = a.seed;
    opt.timeLimitS = a.timeLimit;
    opt.placement = &placement;
    return opt;
}

void printCrossValidation(const TrainReport& report, const TrainingSet& set, bool calibrated)
{
    if (report.cv.folds < 2) {
        std::printf("too few measured runs for cross-validation (%zu; interpolated runs are never scored); "
                    "uncertainty left at its defaults\n",
                    PredictorTrainer::scoredRuns(set));
        return;
    }
    // The calibration was fitted on every run before the folds were
    // drawn: both figures are in-sample for it (the trees' folds learn on
    // top of that same calibration).
    // "-" where no held-out row had that label (no memory measured, say).
    const auto pct = [](double v) { return std::isnan(v) ? std::string("-") : Text::fmt("%.2f%%", v); };
    const char* prior = calibrated ? "calibrated analytic model" : "analytic model";
    std::printf("%d-fold cross-validation by run: stage time MAPE %s, stage memory MAPE %s "
                "(%s alone: %s, %s)%s\n",
                report.cv.folds, pct(report.cv.timeMape).c_str(), pct(report.cv.memoryMape).c_str(), prior,
                pct(report.cv.priorTimeMape).c_str(), pct(report.cv.priorMemoryMape).c_str(),
                calibrated ? "; the calibration saw every run, so both figures are in-sample for it" : "");
    if (!report.uncertainty.timeCorrection)
        std::printf("time: the trees did not beat the %s in cross-validation; it predicts time alone\n", prior);
    if (!report.uncertainty.memoryCorrection)
        std::printf("memory: the trees did not beat the %s in cross-validation; it predicts memory alone\n", prior);
}

void printImportance(const TrainReport& report)
{
    std::vector<std::pair<double, std::string>> imp;
    for (const auto& [k, v] : report.importance)
        if (v > 0)
            imp.emplace_back(v, k);
    std::sort(imp.rbegin(), imp.rend());
    std::printf("most important features (gain):");
    for (std::size_t i = 0; i < std::min<std::size_t>(5, imp.size()); ++i)
        std::printf(" %s %.3g%s", imp[i].second.c_str(), imp[i].first,
                    i + 1 < std::min<std::size_t>(5, imp.size()) ? "," : "");
    std::printf("\n");
}

void train(const TrainArgs& a)
{
    std::string text;
    std::vector<Measurement> rows = readAll(a.measurements, text);
    std::size_t interpolated = 0;  // rows generated here (--augment)
    const auto fromFile = static_cast<std::size_t>(
        std::count_if(rows.begin(), rows.end(), [](const Measurement& m) { return m.isInterpolated(); }));
    // Calibration fits real runs, not interpolated ones (neither generated
    // here nor read from a file that holds some).
    std::vector<Measurement> measured;
    std::copy_if(rows.begin(), rows.end(), std::back_inserter(measured),
                 [](const Measurement& m) { return !m.isInterpolated(); });
    const nlohmann::json augmentJson = a.augment ? augmentRows(a, rows, interpolated) : nlohmann::json();
    const std::string dataFile = a.measurements.size() == 1 ? a.measurements.front() : "measurements";
    RunPlacement placement(loadCluster(a.cluster));
    // Each GPU type's physical parameters first; the trees learn what is left.
    Calibrator::Result calibration;
    const std::shared_ptr<const AnalyticPredictor> prior
        = a.noCalibrate ? nullptr : Calibrator::calibratedModel(measured, dataFile, placement, calibration);
    const TrainingSet set = trainingSetOf(rows, dataFile, placement, prior);
    TrainReport report;
    const LearnedPredictor model = PredictorTrainer::train(set, trainerOptions(a, placement), report);

    PredictorMetadata meta = set.metadata();
    meta.dataHash = PredictorMetadata::hashText(text);
    meta.sources = a.measurements;
    meta.interpolatedRows = interpolated + fromFile;
    nlohmann::json training = report.toJson();
    training["skipped"] = set.skipped;
    if (!augmentJson.is_null())
        training["augmentation"] = augmentJson;
    meta.training = training;
    PredictorFile::save(a.out, model, meta);
    if (!a.report.empty())
        writeFileAtomically(a.report, training.dump(1) + "\n");

    std::printf("trained on %zu runs (%zu stage rows: %zu with time, %zu with memory; %zu interpolated rows%s), "
                "%zu run(s) skipped\n",
                set.runs.size(), set.rows.size(), set.timeLabels(), set.memoryLabels(), interpolated + fromFile,
                fromFile > 0 ? (": " + std::to_string(fromFile) + " read from the file").c_str() : "",
                set.skipped.size());
    if (report.stoppedByTimeLimit)
        std::printf("incomplete: --time-limit %.0f s stopped the hyper-parameter search after %zu of %d trials; the "
                    "best parameters so far trained the model\n",
                    a.timeLimit, report.trials.size(), a.trials);
    std::printf("hyper-parameters: depth %d, eta %.3f, subsample %.2f, rounds %d (%s)\n", report.params.maxDepth,
                report.params.eta, report.params.subsample, report.params.rounds,
                report.trials.empty()
                    ? "fixed"
                    : (std::to_string(report.trials.size()) + " Bayesian-optimisation trials").c_str());
    std::printf("%s", calibrationText(calibration).c_str());
    printCrossValidation(report, set, prior != nullptr);
    std::printf("%s\n", IterationTermFit::describe(report.iterationTerms).c_str());
    std::printf("uncertainty: +-%.0f%% inside the training range, up to +-%.0f%% outside\n",
                100 * report.uncertainty.inRangeUncertainty, 100 * report.uncertainty.outOfRangeUncertainty);
    printImportance(report);
    std::printf("runs placed on %s\n", set.topology.describe().c_str());
    std::printf("wrote %s (data hash %s)\n", a.out.c_str(), meta.dataHash.c_str());
}

struct PredictArgs {
    std::string model = "analytic", queries, out, cluster;
};

void predict(const PredictArgs& a)
{
    const LoadedPredictor p = loadPredictor(a.model);
    MeasurementSet set = MeasurementCsv::read(a.queries, MeasurementCsv::Kind::RunList);
    printWarnings(set.warnings);
    RunPlacement placement(loadCluster(a.cluster));
    warnTopologies(p, set.rows, a.queries, placement);
    std::size_t infeasible = 0;
    std::vector<std::string> unpredicted;
    const std::vector<MeasuredRun> runs = MeasuredRun::group(set.rows, a.queries);
    for (const MeasuredRun& run : runs) {
        PlanSpec spec;
        RunPrediction pred;
        try {
            const Problem problem = placement.problem(run, a.queries, GpuCatalog::builtin(), spec);
            pred = RunScenario::predict(problem, spec, p.predictor);
        } catch (const InputError& e) {
            // One run no model can predict (a precision its GPUs lack) leaves
            // its rows unpredicted; the others are still answered.
            std::cerr << a.queries << ": run " << run.runId << " not predicted: " << e.reason() << "\n";
            unpredicted.push_back(run.runId);
            continue;
        }
        if (!pred.feasible) {
            ++infeasible;
            std::cerr << "note: run " << run.runId << " would not fit: " << pred.whyInfeasible << "\n";
        }
        const int G = run.microBatchCount();
        const std::string prov = toString(pred.provenance());
        const auto fill = [&](Measurement& m) {
            m.provenance = prov;
            m.uncertainty = pred.uncertainty();
            if (m.isStageRow()) {
                const StagePlan& s = pred.plan.stages[*m.stage];
                m.stageTimeMs = s.timeMs * G;
                m.peakMemMiB = s.memory.ofKind(m.peakMemKind);  // the kind the row asks for (peak_mem_kind)
            } else {
                m.iterationTimeMs = pred.iterationMs();
                m.peakMemMiB = pred.peakMemMiB(m.peakMemKind);
            }
        };
        if (run.runRow >= 0)
            fill(set.rows[run.runRow]);
        for (const MeasuredStage& s : run.stages)
            if (s.row >= 0)
                fill(set.rows[s.row]);
    }
    if (!runs.empty() && unpredicted.size() == runs.size())
        throw InputError(a.queries, "", "no run could be predicted (see the reasons above); nothing written");
    MeasurementCsv::save(a.out, set.rows, MeasurementCsv::Kind::RunList);
    std::printf("%zu rows predicted by %s written to %s%s%s\n", set.rows.size(), p.label.c_str(), a.out.c_str(),
                infeasible ? (" (" + std::to_string(infeasible) + " run(s) exceed a GPU's memory)").c_str() : "",
                unpredicted.empty() ? ""
                                    : ("; " + std::to_string(unpredicted.size())
                                       + " run(s) could not be predicted and keep empty predictions (see above)")
                                          .c_str());
}

struct EvaluateArgs {
    std::string model = "analytic", truth, json, cluster;
};

void evaluate(const EvaluateArgs& a)
{
    const LoadedPredictor p = loadPredictor(a.model);
    const MeasurementSet set = MeasurementCsv::read(a.truth);
    printWarnings(set.warnings);
    RunPlacement placement(loadCluster(a.cluster));
    warnTopologies(p, set.rows, a.truth, placement);
    const AccuracyReport report
        = AccuracyEvaluator::evaluate(set.rows, a.truth, GpuCatalog::builtin(), p.predictor, p.learned, &placement);
    std::cout << report.formatText();
    if (!a.json.empty()) {
        nlohmann::json j = report.toJson();
        j["model"] = a.model;
        j["truth"] = a.truth;
        writeFileAtomically(a.json, j.dump(1) + "\n");
    }
    // Nothing scored is a failure to evaluate, not a perfect score.
    if (report.runs == 0 && set.rows.empty())
        throw InputError(a.truth, "", "holds no run (a header and no rows): nothing to score");
    if (report.runs == 0)
        throw InputError(a.truth, "",
                         "no run could be scored: " + std::to_string(report.skipped.size())
                             + " skipped (listed above)");
}

struct AccuracyArgs {
    std::string dataset, json, cluster;
    bool augment = false, noTune = false, noCalibrate = false;
    int trials = 12;
    std::uint64_t seed = 0;
    double timeLimit = 0;
};

// One line per GPU type: the fitted parameters and what they changed.
std::string calibrationText(const Calibrator::Result& c)
{
    std::string out;
    char buf[512];
    for (const GpuParamsFit& f : c.fits) {
        std::snprintf(buf, sizeof buf,
                      "calibration %s (%d runs): efficiency x%.3g, bandwidth x%.3g, %.3g us per operator, %.3g us per "
                      "schedule step, %.3g us per collective, %.3g ms per iteration; time MAPE %.1f%% with catalog "
                      "values, %.1f%% fitted%s%s\n",
                      f.type.c_str(), f.runs, f.efficiencyMultiplier, f.bandwidthMultiplier, f.launchOverheadUs,
                      f.stepOverheadUs, f.commOverheadUs, f.iterationOverheadMs, f.mapeBefore, f.mapeAfter,
                      f.note.empty() ? "" : " (", f.note.empty() ? "" : (f.note + ")").c_str());
        out += buf;
        if (f.memoryRuns > 0) {
            std::snprintf(buf, sizeof buf,
                          "  memory of %s (%d measured stage peaks): x%.3g on the model's tensors, %.0f MiB framework "
                          "buffers; memory MAPE %.1f%% with catalog values, %.1f%% fitted%s%s\n",
                          f.type.c_str(), f.memoryRuns, f.memoryMultiplier, f.frameworkMiB, f.memoryMapeBefore,
                          f.memoryMapeAfter, f.memoryNote.empty() ? "" : " (",
                          f.memoryNote.empty() ? "" : (f.memoryNote + ")").c_str());
            out += buf;
        }
    }
    for (const std::string& m : c.messages)
        out += "calibration: " + m + "\n";
    return out;
}

nlohmann::json protocolJson(const ProtocolResult& r)
{
    nlohmann::json j;
    j["format"] = "memx-accuracy-protocol/1";
    j["runs"] = r.runs;
    j["train_runs"] = r.trainRuns;
    j["leave_one_out"] = r.leaveOneOut;
    j["interpolated_rows"] = r.interpolatedRows;
    j["params"] = r.training.toJson()["params"];
    j["iteration_terms"] = r.training.iterationTerms.toJson();
    j["analytic"] = r.analytic.toJson();
    j["calibrated"] = r.calibrated.toJson();
    j["learned"] = r.learned.toJson();
    j["calibration"] = nlohmann::json::array();
    for (const GpuParamsFit& f : r.calibration.fits)
        j["calibration"].push_back(f.toJson());
    j["skipped"] = r.skipped;
    j["complete"] = r.incomplete.empty();
    if (!r.incomplete.empty())
        j["incomplete"] = r.incomplete;
    return j;
}

void accuracy(const AccuracyArgs& a)
{
    const MeasurementSet set = MeasurementCsv::read(a.dataset);
    printWarnings(set.warnings);
    AccuracyProtocol::Options opt;
    opt.augment = a.augment;
    opt.calibrate = !a.noCalibrate;
    opt.trainer.tune = !a.noTune;
    opt.trainer.initialPoints = std::min(6, a.trials);
    opt.trainer.iterations = std::max(0, a.trials - opt.trainer.initialPoints);
    opt.trainer.seed = a.seed;
    opt.cluster = loadCluster(a.cluster);
    if (!(a.timeLimit >= 0) || !std::isfinite(a.timeLimit))
        throw InputError("--time-limit", std::to_string(a.timeLimit), "expected seconds, 0 or more (0: no limit)");
    opt.timeLimitS = a.timeLimit;
    const ProtocolResult r = AccuracyProtocol::run(set.rows, a.dataset, opt);
    if (!r.incomplete.empty())
        std::printf("INCOMPLETE: %s; the scores below cover what ran\n", r.incomplete.c_str());
    if (r.leaveOneOut)
        std::printf("%s: %zu complete runs, all of them in the minimal set: each run scored by a model trained on "
                    "the other %zu (leave one run out)\n",
                    a.dataset.c_str(), r.runs, r.runs - 1);
    else
        std::printf("%s: %zu complete runs; minimal set: %zu runs for training (%zu interpolated rows), %zu held out\n",
                    a.dataset.c_str(), r.runs, r.trainRuns.size(), r.interpolatedRows, r.analytic.runs);
    for (const std::string& s : r.skipped)
        std::printf("skipped %s\n", s.c_str());
    std::printf("\n-- analytic model (baseline) on the held-out runs\n%s", r.analytic.formatText().c_str());
    if (opt.calibrate) {
        std::printf("\n%s", calibrationText(r.calibration).c_str());
        std::printf("\n-- analytic model calibrated to the training runs, on the held-out runs\n%s",
                    r.calibrated.formatText().c_str());
    }
    std::printf("\n%s%s\n", r.leaveOneOut ? "last leave-one-out model's " : "",
                IterationTermFit::describe(r.training.iterationTerms).c_str());
    std::printf("\n-- learned predictor on the held-out runs\n%s", r.learned.formatText().c_str());
    if (!a.json.empty())
        writeFileAtomically(a.json, protocolJson(r).dump(1) + "\n");
}

}  // namespace

void addPredictorCommands(CLI::App& app, int& exitCode)
{
    auto ta = std::make_shared<TrainArgs>();
    auto* tr = app.add_subcommand("train",
                                  "Train the dual-output XGBoost predictor (time and memory) on measurements, with "
                                  "Bayesian-optimised hyper-parameters");
    tr->add_option("--measurements", ta->measurements, "Measurement files (memx-measurements/1)")->required();
    tr->add_option("--out", ta->out, "Predictor file to write (memx-predictor/1)")->required();
    tr->add_flag("--augment", ta->augment, "Add interpolated rows where dense sweeps pass the R^2 gate (Table 2)");
    tr->add_option("--augment-per-gap", ta->augmentPerGap,
                   "With --augment: rows interpolated between two measured neighbours of a strongly linear sweep "
                   "(the paper's 5-10x more rows needs about 5-10)")
        ->check(CLI::Range(1, 64))
        ->capture_default_str();
    tr->add_option("--report", ta->report,
                   "Also write the training report (parameters, cross-validation, trials, "
                   "feature importance) as JSON");
    tr->add_flag("--no-tune", ta->noTune, "Skip the Bayesian optimisation; train with default hyper-parameters");
    tr->add_flag(
        "--no-calibrate", ta->noCalibrate,
        "Do not fit each GPU type's physical parameters first; the trees correct the catalog's analytic model");
    tr->add_option("--folds", ta->folds, "Cross-validation folds (split by run)")
        ->check(CLI::Range(2, 50))
        ->capture_default_str();
    tr->add_option("--time-limit", ta->timeLimit,
                   "Seconds the hyper-parameter search may take; then the best parameters so far train the model "
                   "and the report says the search was cut short (0: no limit)")
        ->check(CLI::Range(0.0, 1e7))
        ->capture_default_str();
    tr->add_option("--trials", ta->trials, "Hyper-parameter evaluations of the Bayesian optimiser")
        ->check(CLI::Range(1, 200))
        ->capture_default_str();
    tr->add_option("--seed", ta->seed, "Seed of folds, optimiser and booster")->capture_default_str();
    tr->add_option("--cluster", ta->cluster,
                   "Place the training runs on this cluster, as predict --cluster does (default: one synthetic node "
                   "per stage); a run's own `cluster` column wins. The model file records the topology");
    tr->callback([ta, &exitCode] {
        train(*ta);
        exitCode = Ok;
    });

    auto pa = std::make_shared<PredictArgs>();
    auto* pr = app.add_subcommand("predict", "Fill in the targets of a run list with a predictor's answers");
    pr->add_option("--model", pa->model, "analytic, or a predictor file from `memx-cli train`")->capture_default_str();
    pr->add_option("--queries", pa->queries, "Run list (memx-measurements/1; targets may be empty)")->required();
    pr->add_option("--out", pa->out, "Where to write the rows with targets, provenance and uncertainty")->required();
    pr->add_option("--cluster", pa->cluster,
                   "Place the runs on this cluster (default: one synthetic node per stage, see docs/MEASUREMENTS.md); "
                   "a run's own `cluster` column wins. Warns when the model was trained on another topology");
    pr->callback([pa, &exitCode] {
        predict(*pa);
        exitCode = Ok;
    });

    auto ea = std::make_shared<EvaluateArgs>();
    auto* ev = app.add_subcommand("evaluate",
                                  "Score a predictor against measurements: MAPE, good/severe shares, max error, "
                                  "Spearman, Kendall, top-k hits (MemX Tables 6-8)");
    ev->add_option("--model", ea->model, "analytic, or a predictor file from `memx-cli train`")->capture_default_str();
    ev->add_option("--truth", ea->truth, "Measurements to score against")->required();
    ev->add_option("--json", ea->json, "Also write the report as JSON (memx-accuracy/1)");
    ev->add_option("--cluster", ea->cluster, "Place the runs on this cluster, as predict --cluster does");
    ev->callback([ea, &exitCode] {
        evaluate(*ea);
        exitCode = Ok;
    });

    auto aa = std::make_shared<AccuracyArgs>();
    auto* ac = app.add_subcommand("accuracy",
                                  "Run the accuracy protocol on a dataset: pick the minimal set among its runs, "
                                  "train on it, score learned and analytic predictors on all other runs");
    ac->add_option("--dataset", aa->dataset, "Measurements (memx-measurements/1)")->required();
    ac->add_flag("--augment", aa->augment, "Augment the training runs by interpolation first");
    ac->add_flag("--no-tune", aa->noTune, "Default hyper-parameters instead of Bayesian optimisation");
    ac->add_flag("--no-calibrate", aa->noCalibrate,
                 "Train the trees on the catalog's analytic model instead of one calibrated to the training runs");
    ac->add_option("--trials", aa->trials, "Hyper-parameter evaluations")
        ->check(CLI::Range(1, 200))
        ->capture_default_str();
    ac->add_option("--seed", aa->seed, "Seed of folds, optimiser and booster")->capture_default_str();
    ac->add_option("--json", aa->json, "Also write both reports as JSON");
    ac->add_option("--cluster", aa->cluster,
                   "Place the runs on this cluster for training and scoring (default: one synthetic node per stage)");
    ac->add_option("--time-limit", aa->timeLimit,
                   "Seconds the protocol may take: hyper-parameter searches stop early and leave-one-out scores no "
                   "more runs; the report says INCOMPLETE and what ran (0: no limit)")
        ->capture_default_str();
    ac->callback([aa, &exitCode] {
        accuracy(*aa);
        exitCode = Ok;
    });
}

}  // namespace memx::cli
