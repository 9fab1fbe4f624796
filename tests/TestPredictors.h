#pragma once
// A small learned predictor file for tests, trained in a second or two:
// made-up stage measurements of the analytic search's best plans, each GPU
// type off from the analytic model by its own factor; no hyper-parameter search.

#include "hardware/GpuCatalog.h"
#include "predict/PredictorFile.h"
#include "measure/MeasurementCsv.h"
#include "measure/PlanRuns.h"
#include "learn/PredictorTrainer.h"
#include "learn/TrainingSet.h"
#include "search/SearchEngine.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace memx::test {

inline void trainSmallPredictor(const SearchRequest& req, const std::string& file)
{
    // The made-up runs are the paper-eV picks (EpsilonRule::Fraction), whose
    // spread of micro-batch sizes and layer counts the tests' ranges expect.
    SearchRequest paperEv = req;
    paperEv.objective.epsilonRule = EpsilonRule::Fraction;
    const SearchResult r = SearchEngine::run(paperEv);
    std::vector<Measurement> rows;
    const std::map<std::string, double> slower = {{"A100-80GB", 1.10}, {"Vendor-B", 1.30}, {"Vendor-C", 0.90}};
    for (std::size_t n = 0; n < std::min<std::size_t>(8, r.best.size()); ++n) {
        const Plan& p = r.best[n];
        std::vector<Measurement> stages = PlanRuns::rows(p, req.problem, "run" + std::to_string(n));
        for (Measurement& m : stages) {
            if (!m.stage)
                continue;  // the run row: these made-up runs measure stages only
            const StagePlan& st = p.stages[static_cast<std::size_t>(*m.stage)];
            m.source = MeasurementSource::Simulated;
            const auto f = slower.find(m.gpuType);
            m.stageTimeMs = st.timeMs * p.microBatchCount * (f == slower.end() ? 1.0 : f->second);
            m.peakMemMiB = st.memory.totalMiB() * 1.05;
            rows.push_back(m);
        }
    }
    const TrainingSet set = TrainingSet::build(rows, "made-up.csv", GpuCatalog::builtin());
    PredictorTrainer::Options opt;
    opt.tune = false;
    opt.folds = 3;
    opt.params.rounds = 30;
    opt.params.maxDepth = 3;
    TrainReport report;
    const LearnedPredictor model = PredictorTrainer::train(set, opt, report);
    PredictorMetadata meta = set.metadata();
    meta.dataHash = PredictorMetadata::hashText(MeasurementCsv::write(rows));
    meta.sources = {"made-up.csv"};
    meta.training = report.toJson();
    PredictorFile::save(file, model, meta);
}

}  // namespace memx::test
