#include "profile/AccuracyProtocol.h"

#include "hardware/GpuCatalog.h"
#include "io/InputError.h"
#include "profile/Augmenter.h"
#include "profile/MeasuredRun.h"
#include "profile/MinimalSetSelector.h"
#include "profile/TrainingSet.h"

#include <memory>
#include <set>

namespace memx {

ProtocolResult AccuracyProtocol::run(const std::vector<Measurement>& rows, const std::string& file,
                                     const Options& options)
{
    ProtocolResult out;
    const std::vector<MeasuredRun> runs = MeasuredRun::group(rows, file, &out.skipped);
    out.runs = runs.size();
    if (runs.size() < 2)
        throw InputError(file, "", "the protocol needs at least two complete runs, found " + std::to_string(runs.size()));
    const std::vector<int> chosen = MinimalSetSelector::select(runs);
    std::set<std::string> trainIds;
    for (int i : chosen) {
        trainIds.insert(runs[i].runId);
        out.trainRuns.push_back(runs[i].runId);
    }
    std::vector<Measurement> train, test;
    for (const Measurement& m : rows) (trainIds.count(m.runId) ? train : test).push_back(m);
    if (options.augment) {
        const Augmenter::Result aug = Augmenter::augment(train);
        out.interpolatedRows = aug.rows.size();
        train.insert(train.end(), aug.rows.begin(), aug.rows.end());
    }
    const GpuCatalog& catalog = GpuCatalog::builtin();
    const TrainingSet set = TrainingSet::build(train, file, catalog);
    auto learned = std::make_shared<LearnedPredictor>(PredictorTrainer::train(set, options.trainer, out.training));
    out.analytic = AccuracyEvaluator::evaluate(test, file, catalog, nullptr, learned.get());
    out.learned = AccuracyEvaluator::evaluate(test, file, catalog, learned, learned.get());
    return out;
}

}  // namespace memx
