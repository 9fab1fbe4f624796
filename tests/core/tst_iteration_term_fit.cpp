// The run-level correction of the learned model (issue #12, item 3):
// IterationTermFit's scales on the pipeline, data-parallel and fixed terms,
// how the composition applies them, and how the model file keeps them.
// Scales worked out by hand from the fit's closed form (IterationTermFit.h):
// one free term with equal shares z and y = c z in n runs gives
// k = (c n + 1) / (n + 1).
#include "TestPaths.h"
#include "TestRequests.h"

#include "io/InputError.h"
#include "predict/AnalyticPredictor.h"
#include "predict/IterationComposer.h"
#include "predict/PredictorFile.h"
#include "learn/IterationTermFit.h"
#include "search/PlanEvaluator.h"
#include "search/SearchEngine.h"

#include <nlohmann/json.hpp>

#include "TestMain.h"

#include <cmath>
#include <fstream>
#include <limits>

namespace tst_iteration_term_fit {

using namespace memx;

namespace {

// A run of 100 ms steady-state compute and 25 ms of pipeline terms (no DP,
// no fixed overhead) that really took 100 + c x 25 ms.
IterationTermFit::Sample run(int i, double c, double dpMs = 0, double fixedMs = 0)
{
    IterationTermFit::Sample s;
    s.runId = "r" + std::to_string(i);
    s.computeMs = 100;
    s.pipelineMs = 25;
    s.dataParallelMs = dpMs;
    s.fixedMs = fixedMs;
    s.measuredMs = 100 + c * 25 + dpMs + fixedMs;
    return s;
}

std::vector<IterationTermFit::Sample> runs(int n, double c)
{
    std::vector<IterationTermFit::Sample> v;
    for (int i = 0; i < n; ++i)
        v.push_back(run(i, c));
    return v;
}

// The analytic model with given iteration-term scales.
class ScaledAnalytic final : public Predictor {
public:
    explicit ScaledAnalytic(IterationTerms t) : terms_(std::move(t)) { }
    std::string name() const override { return "scaled"; }
    void predict(std::span<const StageQuery> q, std::span<StagePrediction> out) const override
    {
        analytic_.predict(q, out);
    }
    double iterationOverheadMs(const GpuType& gpu) const override { return analytic_.iterationOverheadMs(gpu); }
    const IterationTerms& iterationTerms() const override { return terms_; }

private:
    AnalyticPredictor analytic_;
    IterationTerms terms_;
};

nlohmann::json fixture()
{
    std::ifstream in(test::dataFile("predictors/megatron_ci_small_mixed.json"));
    return nlohmann::json::parse(in);
}

}  // namespace

class TestIterationTermFit : public QObject {
    Q_OBJECT
private slots:
    void recoversTheScale_data();
    void recoversTheScale();
    void contradictingRunIsLeftOut();
    void tooFewRuns();
    void termTooSmallToFit();
    void noiseIsNotApplied();
    void degenerateInputGivesNoNaN();
    void composerScalesTheBubble();
    void searchAndEvaluateApplyTheScales();
    void modelFileKeepsTheScales();
    void modelFileRefusesABadScale_data();
    void modelFileRefusesABadScale();
};

void TestIterationTermFit::recoversTheScale_data()
{
    QTest::addColumn<int>("n");
    QTest::addColumn<double>("c");
    QTest::addColumn<double>("expected");
    // Before: 125 ms predicted for 150 (c = 2) or 112.5 (c = 0.5).
    QTest::newRow("twice, 8 runs") << 8 << 2.0 << 17.0 / 9;  // (2*8 + 1) / 9
    QTest::newRow("twice, 5 runs") << 5 << 2.0 << 11.0 / 6;  // (2*5 + 1) / 6
    QTest::newRow("half, 12 runs") << 12 << 0.5 << 7.0 / 13;  // (0.5*12 + 1) / 13
}

void TestIterationTermFit::recoversTheScale()
{
    QFETCH(int, n);
    QFETCH(double, c);
    QFETCH(double, expected);
    const IterationTerms t = IterationTermFit::fit(runs(n, c));
    QVERIFY2(!t.identity(), qPrintable(QString::fromStdString(t.note)));
    QCOMPARE(t.runs, n);
    QVERIFY2(std::abs(t.pipeline - expected) < 1e-9, qPrintable(QString::number(t.pipeline)));
    QCOMPARE(t.dataParallel, 1.0);  // zero share: not fitted
    QCOMPARE(t.fixed, 1.0);
    QCOMPARE(t.fitted, std::vector<std::string>{"pipeline"});
    // Leave one run out, each run is predicted with k = (c (n-1) + 1) / n
    // from the others: error |1 - c| 25 / n over the measured 100 + 25 c.
    const double measured = 100 + 25 * c;
    QVERIFY(std::abs(t.mapeBefore - 100 * std::abs(1 - c) * 25 / measured) < 1e-9);
    QVERIFY(std::abs(t.mapeAfter - 100 * std::abs(1 - c) * 25 / n / measured) < 1e-9);
    QVERIFY(QString::fromStdString(IterationTermFit::describe(t)).contains("pipeline x"));
}

void TestIterationTermFit::contradictingRunIsLeftOut()
{
    // 8 runs agreeing on c = 2 and one 3x slower than they say (450 ms): it
    // is left out, and the scale is the 8 runs' 17/9.
    std::vector<IterationTermFit::Sample> v = runs(8, 2.0);
    IterationTermFit::Sample odd = run(8, 2.0);
    odd.measuredMs = 450;
    v.push_back(odd);
    const IterationTerms t = IterationTermFit::fit(v);
    QVERIFY2(std::abs(t.pipeline - 17.0 / 9) < 1e-9, qPrintable(QString::number(t.pipeline)));
    QCOMPARE(t.runs, 9);
}

void TestIterationTermFit::tooFewRuns()
{
    const IterationTerms t = IterationTermFit::fit(runs(4, 2.0));
    QVERIFY(t.identity());
    QVERIFY2(QString::fromStdString(t.note).contains("only 4 distinct configuration(s) among 4 training run(s)"),
             qPrintable(QString::fromStdString(t.note)));
    // Eight repeats of two configurations are two configurations: leaving
    // out one repeat while its twins train would test nothing.
    std::vector<IterationTermFit::Sample> twins = runs(8, 2.0);
    for (std::size_t i = 0; i < twins.size(); ++i)
        twins[i].configuration = i % 2 ? "a" : "b";
    const IterationTerms r = IterationTermFit::fit(twins);
    QVERIFY(r.identity());
    QVERIFY2(QString::fromStdString(r.note).contains("only 2 distinct configuration(s) among 8 training run(s)"),
             qPrintable(QString::fromStdString(r.note)));
}

void TestIterationTermFit::termTooSmallToFit()
{
    // Pipeline 2 ms of ~104 (under 3 %), no DP, no fixed term.
    std::vector<IterationTermFit::Sample> v = runs(8, 2.0);
    for (auto& s : v) {
        s.pipelineMs = 2;
        s.measuredMs = 104;
    }
    const IterationTerms t = IterationTermFit::fit(v);
    QVERIFY(t.identity());
    QVERIFY2(QString::fromStdString(t.note).contains("below 3 %"), qPrintable(QString::fromStdString(t.note)));
}

void TestIterationTermFit::noiseIsNotApplied()
{
    // The pipeline share is the same in every run and the measured time is
    // 10 % above or below the prediction in turn: no scale predicts a
    // left-out run better than none.
    std::vector<IterationTermFit::Sample> v = runs(8, 1.0);
    for (std::size_t i = 0; i < v.size(); ++i)
        v[i].measuredMs = 125 * (i % 2 ? 1.1 : 0.9);
    const IterationTerms t = IterationTermFit::fit(v);
    QVERIFY(t.identity());
    QVERIFY2(QString::fromStdString(t.note).contains("not applied"), qPrintable(QString::fromStdString(t.note)));
    QVERIFY(t.mapeAfter >= 0.98 * t.mapeBefore);
}

void TestIterationTermFit::degenerateInputGivesNoNaN()
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<IterationTermFit::Sample> v = runs(6, 2.0);
    IterationTermFit::Sample zero = run(6, 2.0), notANumber = run(7, 2.0), negative = run(8, 2.0);
    zero.measuredMs = 0;
    notANumber.pipelineMs = nan;
    negative.dataParallelMs = -1;
    v.insert(v.end(), {zero, notANumber, negative});
    const IterationTerms t = IterationTermFit::fit(v);
    QCOMPARE(t.runs, 6);  // the three unusable samples are ignored
    QVERIFY(std::abs(t.pipeline - 13.0 / 7) < 1e-9);  // (2*6 + 1) / 7
    // Every term zero: nothing to fit, nothing non-finite.
    std::vector<IterationTermFit::Sample> flat(6);
    for (auto& s : flat) {
        s.computeMs = 50;
        s.measuredMs = 60;
    }
    const IterationTerms f = IterationTermFit::fit(flat);
    QVERIFY(f.identity());
    QVERIFY(std::isfinite(f.mapeBefore) && std::isfinite(f.mapeAfter));
    QVERIFY(IterationTermFit::fit({}).identity());
}

void TestIterationTermFit::composerScalesTheBubble()
{
    // Stages of 10, 10, 10 and 10 ms, G = 4, one hop pair summing to 1 ms,
    // fixed 5, DP 2: 4*10 + (40 - 10) + 2*1 + 5 + 2 = 79 ms; with the
    // bubble twice as long, 79 + 30 = 109 ms.
    QCOMPARE(IterationComposer::iterationMs(10, 40, 1, 4, 1, 5, 2), 79.0);
    QCOMPARE(IterationComposer::iterationMs(10, 40, 1, 4, 1, 5, 2, 2.0), 109.0);
    // Interleaved (v = 3): the bubble is 30 / 3 = 10, scaled 20.
    QCOMPARE(IterationComposer::iterationMs(10, 40, 1, 4, 3, 5, 2, 2.0), 40.0 + 20 + 2 + 5 + 2);
    // The scale is capped at G v: with one micro-batch and scale 2, stages
    // of 12 and 12 ms would take 12 + 2 x 12 = 36 ms and stages of 2 and
    // 20 ms (slower at the slowest stage) 20 + 2 x 2 = 24 ms. Capped at 1:
    // 24 and 22 ms, and the slower stage no longer makes the plan faster.
    QCOMPARE(IterationComposer::iterationMs(12, 24, 0, 1, 1, 0, 0, 2.0), 24.0);
    QCOMPARE(IterationComposer::iterationMs(20, 22, 0, 1, 1, 0, 0, 2.0), 22.0);
}

void TestIterationTermFit::searchAndEvaluateApplyTheScales()
{
    // A plan of the small search, evaluated with scales 1 and with pipeline
    // x2, DP x3, fixed x0.5: its terms move by exactly those factors, and a
    // search with the scaled predictor gives its plans the same times as
    // evaluating them does (one composition).
    SearchRequest req = test::smallRequest();
    const SearchResult plain = SearchEngine::run(req);
    QVERIFY(!plain.best.empty());
    const Plan* p = nullptr;
    for (const Plan& c : plain.best)
        if (c.pp > 1 && (!p || c.dp > p->dp))
            p = &c;
    QVERIFY2(p, "no pipelined plan among the best");
    IterationTerms k;
    k.pipeline = 2;
    k.dataParallel = 3;
    k.fixed = 0.5;
    const auto scaled = std::make_shared<ScaledAnalytic>(k);
    const Evaluation e1 = PlanEvaluator::evaluate(req.problem, PlanSpec::of(*p));
    const Evaluation ek = PlanEvaluator::evaluate(req.problem, PlanSpec::of(*p), scaled);
    QVERIFY(e1.feasible && ek.feasible);
    double slowest = 0;
    for (const StagePlan& s : e1.plan.stages)
        slowest = std::max(slowest, s.timeMs);
    const double compute = e1.plan.microBatchCount * slowest;
    const double pipeline = e1.plan.iterationMs - compute - e1.plan.dpMs - e1.plan.fixedMs;
    QVERIFY(pipeline > 0);
    QVERIFY(std::abs(ek.plan.dpMs - 3 * e1.plan.dpMs) < 1e-9 * (1 + e1.plan.dpMs));
    QVERIFY(std::abs(ek.plan.fixedMs - 0.5 * e1.plan.fixedMs) < 1e-9 * (1 + e1.plan.fixedMs));
    QVERIFY(std::abs(ek.plan.iterationMs - (compute + 2 * pipeline + ek.plan.dpMs + ek.plan.fixedMs)) < 1e-6);

    req.predictor = scaled;
    const SearchResult s = SearchEngine::run(req);
    QVERIFY(!s.best.empty());
    for (const Plan& q : s.best) {
        const Evaluation e = PlanEvaluator::evaluate(req.problem, PlanSpec::of(q), scaled);
        QVERIFY(std::abs(e.plan.iterationMs - q.iterationMs) < 1e-6 * q.iterationMs);
    }
}

void TestIterationTermFit::modelFileKeepsTheScales()
{
    nlohmann::json doc = fixture();
    doc.erase("iteration_terms");  // a file from before the run-level correction
    QVERIFY(PredictorFile::fromJson(doc, "old.json").predictor->iterationTerms().identity());
    doc["iteration_terms"] = {{"pipeline_scale", 1.5},
                              {"data_parallel_scale", 0.8},
                              {"fixed_scale", 1.0},
                              {"fitted", {"pipeline", "data_parallel"}},
                              {"runs", 12},
                              {"loo_mape_unscaled", 11.5},
                              {"loo_mape_scaled", 6.7},
                              {"note", ""}};
    const auto loaded = PredictorFile::fromJson(doc, "m.json").predictor;
    QCOMPARE(loaded->iterationTerms().pipeline, 1.5);
    QCOMPARE(loaded->iterationTerms().dataParallel, 0.8);
    QCOMPARE(loaded->iterationTerms().runs, 12);
    // Written back as read.
    const nlohmann::json again = PredictorFile::toJson(*loaded, PredictorFile::fromJson(doc, "m.json").metadata);
    QCOMPARE(again["iteration_terms"]["pipeline_scale"].get<double>(), 1.5);
    QCOMPARE(again["iteration_terms"]["loo_mape_scaled"].get<double>(), 6.7);
}

void TestIterationTermFit::modelFileRefusesABadScale_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("value");
    QTest::newRow("zero") << "pipeline_scale"
                          << "0";
    QTest::newRow("negative") << "fixed_scale"
                              << "-1";
    QTest::newRow("text") << "data_parallel_scale"
                          << "\"x\"";
    QTest::newRow("huge") << "pipeline_scale"
                          << "1e300";
}

void TestIterationTermFit::modelFileRefusesABadScale()
{
    QFETCH(QString, field);
    QFETCH(QString, value);
    nlohmann::json doc = fixture();
    doc["iteration_terms"] = {{field.toStdString(), nlohmann::json::parse(value.toStdString())}};
    try {
        PredictorFile::fromJson(doc, "bad.json");
        QFAIL("accepted");
    } catch (const InputError& e) {
        QCOMPARE(QString::fromStdString(e.file()), QString("bad.json"));
        QVERIFY2(QString::fromStdString(e.field()).contains(field), e.what());
    }
}

MEMX_TEST_APPLESS_MAIN(TestIterationTermFit)
}  // namespace tst_iteration_term_fit

#include "tst_iteration_term_fit.moc"
