#include "accuracy/AccuracyProtocol.h"

#include "hardware/GpuCatalog.h"
#include "io/InputError.h"
#include "io/Text.h"
#include "learn/Augmenter.h"
#include "measure/MeasuredRun.h"
#include "profiling/MinimalSetSelector.h"
#include "measure/RunPlacement.h"
#include "learn/TrainingSet.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <set>

namespace memx {

namespace {

// The protocol's time limit, from its start; none when 0.
class Deadline {
public:
    explicit Deadline(double seconds) : seconds_(seconds), start_(std::chrono::steady_clock::now()) { }
    bool passed() const { return seconds_ > 0 && elapsed() >= seconds_; }
    // The trainer's limit: what is left (at least a millisecond: 0 would
    // mean none), or `otherwise` without a limit.
    double left(double otherwise) const { return seconds_ > 0 ? std::max(1e-3, seconds_ - elapsed()) : otherwise; }

private:
    double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
    double seconds_;
    std::chrono::steady_clock::time_point start_;
};

std::vector<Measurement> augmented(std::vector<Measurement> train, bool augment, std::size_t& interpolated)
{
    if (!augment)
        return train;
    const Augmenter::Result aug = Augmenter::augment(train);
    interpolated += aug.rows.size();
    train.insert(train.end(), aug.rows.begin(), aug.rows.end());
    return train;
}

// The analytic model calibrated to the training rows: measured and simulated
// ones (AccuracyProtocol::run leaves interpolated runs of the file out, and
// `augmented` adds its rows only after this fit).
std::shared_ptr<const AnalyticPredictor> calibratedPrior(const std::vector<Measurement>& train, const std::string& file,
                                                         const AccuracyProtocol::Options& options,
                                                         RunPlacement& placement, Calibrator::Result& calibration)
{
    if (!options.calibrate)
        return nullptr;
    return Calibrator::calibratedModel(train, file, placement, calibration);
}

// Every run scored by a model trained on all the other runs.
ProtocolResult leaveOneOut(const std::vector<Measurement>& rows, const std::string& file,
                           const AccuracyProtocol::Options& options, const Deadline& deadline, ProtocolResult out)
{
    const GpuCatalog& catalog = GpuCatalog::builtin();
    RunPlacement place(options.cluster);
    out.leaveOneOut = true;
    out.trainRuns.clear();
    AccuracyReport analytic, calibrated, learned;
    const std::vector<MeasuredRun> runs = MeasuredRun::group(rows, file);
    std::size_t scored = 0;
    bool cutTraining = false;
    for (const MeasuredRun& run : runs) {
        if (deadline.passed()) {
            out.incomplete = "the time limit (" + Text::fmt("%g", options.timeLimitS) + " s) ran out after "
                + std::to_string(scored) + " of " + std::to_string(runs.size()) + " runs were scored (leave one out)";
            break;
        }
        if (out.training.stoppedByTimeLimit)
            cutTraining = true;
        ++scored;
        AccuracyProtocol::Options each = options;
        each.trainer.timeLimitS = deadline.left(options.trainer.timeLimitS);
        each.trainer.placement = &place;
        std::vector<Measurement> train, test;
        for (const Measurement& m : rows)
            (m.runId == run.runId ? test : train).push_back(m);
        auto prior = calibratedPrior(train, file, options, place, out.calibration);
        const TrainingSet set
            = TrainingSet::build(augmented(train, options.augment, out.interpolatedRows), file, catalog, &place, prior);
        if (set.rows.empty())
            continue;
        auto model = std::make_shared<LearnedPredictor>(PredictorTrainer::train(set, each.trainer, out.training));
        AccuracyReport a = AccuracyEvaluator::evaluate(test, file, catalog, nullptr, model.get(), &place);
        AccuracyReport c = AccuracyEvaluator::evaluate(test, file, catalog, prior, model.get(), &place);
        AccuracyReport l = AccuracyEvaluator::evaluate(test, file, catalog, model, model.get(), &place);
        analytic.predictor = a.predictor;
        calibrated.predictor = "calibrated";
        learned.predictor = l.predictor;
        analytic.scores.insert(analytic.scores.end(), a.scores.begin(), a.scores.end());
        calibrated.scores.insert(calibrated.scores.end(), c.scores.begin(), c.scores.end());
        learned.scores.insert(learned.scores.end(), l.scores.begin(), l.scores.end());
    }
    cutTraining = cutTraining || out.training.stoppedByTimeLimit;
    if (cutTraining)
        out.incomplete
            += (out.incomplete.empty() ? "the time limit (" + Text::fmt("%g", options.timeLimitS) + " s) " : "; it ")
            + "stopped hyper-parameter searches early";
    out.analytic = AccuracyEvaluator::summarise(std::move(analytic));
    out.calibrated = AccuracyEvaluator::summarise(std::move(calibrated));
    out.learned = AccuracyEvaluator::summarise(std::move(learned));
    return out;
}

}  // namespace

ProtocolResult AccuracyProtocol::run(const std::vector<Measurement>& rows, const std::string& file,
                                     const Options& options)
{
    const Deadline deadline(options.timeLimitS);
    ProtocolResult out;
    const GpuCatalog& catalog = GpuCatalog::builtin();
    RunPlacement place(options.cluster);
    // A complete run that no model can predict (a precision its GPUs lack)
    // is skipped with its reason before the minimal set is drawn, or it
    // would take a training place and be dropped there unseen. Interpolated
    // runs read from the file are left out too: the protocol scores
    // measurements, and a row that does not say which runs it was drawn
    // between could hand a held-out run's value to the training set
    // (--augment interpolates within the training runs instead).
    std::vector<MeasuredRun> runs;
    std::set<std::string> unusable;
    for (MeasuredRun& run : MeasuredRun::group(rows, file, &out.skipped)) {
        if (run.config.isInterpolated()) {
            out.skipped.push_back("run " + run.runId
                                  + ": interpolated (source column): the protocol scores and "
                                    "trains on measured and simulated runs only; --augment interpolates within the "
                                    "training runs");
            unusable.insert(run.runId);
        } else if (place.predict(run, file, catalog, nullptr, out.skipped)) {
            runs.push_back(std::move(run));
        } else {
            unusable.insert(run.runId);
        }
    }
    std::vector<Measurement> usable;
    for (const Measurement& m : rows)
        if (!unusable.count(m.runId) && !m.isInterpolated())
            usable.push_back(m);
    out.runs = runs.size();
    if (runs.size() < 2) {
        std::string why
            = "the protocol needs at least two complete runs a model can predict, found " + std::to_string(runs.size());
        for (std::size_t i = 0; i < out.skipped.size() && i < 3; ++i)
            why += (i == 0 ? "; skipped: " : "; ") + out.skipped[i];
        if (out.skipped.size() > 3)
            why += "; and " + std::to_string(out.skipped.size() - 3) + " more";
        throw InputError(file, "", why);
    }
    const std::vector<int> chosen = MinimalSetSelector::select(runs);
    std::set<std::string> trainIds;
    for (int i : chosen) {
        trainIds.insert(runs[i].runId);
        out.trainRuns.push_back(runs[i].runId);
    }
    if (chosen.size() == runs.size())
        return leaveOneOut(usable, file, options, deadline, std::move(out));
    std::vector<Measurement> train, test;
    for (const Measurement& m : usable)
        (trainIds.count(m.runId) ? train : test).push_back(m);
    auto prior = calibratedPrior(train, file, options, place, out.calibration);
    const TrainingSet set
        = TrainingSet::build(augmented(train, options.augment, out.interpolatedRows), file, catalog, &place, prior);
    PredictorTrainer::Options trainer = options.trainer;
    trainer.timeLimitS = deadline.left(trainer.timeLimitS);
    trainer.placement = &place;
    auto learned = std::make_shared<LearnedPredictor>(PredictorTrainer::train(set, trainer, out.training));
    if (out.training.stoppedByTimeLimit)
        out.incomplete = "the time limit (" + Text::fmt("%g", options.timeLimitS)
            + " s) stopped the hyper-parameter search after " + std::to_string(out.training.trials.size()) + " trials";
    out.analytic = AccuracyEvaluator::evaluate(test, file, catalog, nullptr, learned.get(), &place);
    out.calibrated = AccuracyEvaluator::evaluate(test, file, catalog, prior, learned.get(), &place);
    out.calibrated.predictor = "calibrated";
    out.learned = AccuracyEvaluator::evaluate(test, file, catalog, learned, learned.get(), &place);
    return out;
}

}  // namespace memx
