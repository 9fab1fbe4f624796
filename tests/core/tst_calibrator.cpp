// Calibration from measurements (issue #12, item 2, and its "bad input"):
// each GPU type's physical parameters fitted to its runs, the catalog values
// kept (and said why) when the runs cannot determine them, and no NaN in a
// model file trained on degenerate data.
//
// The recovery test measures runs on a made-up A100 whose parameters are
// chosen here (GEMMs at 0.8 of the catalog efficiency, 40 ms of framework
// overhead per iteration, 100 us of host time per kernel): the calibrator,
// starting from the catalog values (20 us, 10 ms), must find times that
// match those runs; the parameters it may not pin down exactly, but the
// overhead dominates these small runs and must come back within 25 %.
#include "hardware/GpuCatalog.h"
#include "io/JsonReader.h"
#include "predict/PredictorFile.h"
#include "learn/Calibrator.h"
#include "measure/MeasuredRun.h"
#include "measure/MeasurementCsv.h"
#include "learn/PredictorTrainer.h"
#include "measure/RunPlacement.h"
#include "learn/TrainingSet.h"
#include "search/PlanEvaluator.h"

#include <QTemporaryDir>
#include "TestMain.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace tst_calibrator {

using namespace memx;

namespace {

const std::string kHeader
    = "run_id,gpu_type,num_gpus,tp,pp,dp,mbs,gbs,seq_len,num_layers,hidden,heads,vocab,recompute,stage,stage_layers,"
      "iteration_time_ms,stage_time_ms,peak_mem_mib\n";

struct Config {
    const char* id;
    int tp, pp, dp, mbs, gbs;
};

// A 12-layer, hidden-512 GPT on 8 A100s, the shape of Megatron-LM's CI runs.
const Config kConfigs[] = {
    {"tp1pp1", 1, 1, 8, 4, 32}, {"tp1pp2", 1, 2, 4, 4, 32}, {"tp1pp4", 1, 4, 2, 4, 32},    {"tp2pp1", 2, 1, 4, 4, 32},
    {"tp4pp1", 4, 1, 2, 4, 32}, {"tp2pp2", 2, 2, 2, 4, 32}, {"tp1pp1mb8", 1, 1, 8, 8, 64}, {"tp4pp2", 4, 2, 1, 4, 32},
};

std::string row(const Config& c, double ms)
{
    std::ostringstream s;
    s << c.id << ",A100-80GB,8," << c.tp << "," << c.pp << "," << c.dp << "," << c.mbs << "," << c.gbs
      << ",1024,12,512,8,50257,none,,," << ms << ",,\n";
    return s.str();
}

std::vector<MeasuredRun> group(const std::string& body)
{
    return MeasuredRun::group(MeasurementCsv::parse(kHeader + body, "runs.csv").rows, "runs.csv");
}

// The iteration time `gpu` predicts for the run in `rows` (its CSV lines
// after `header`, with any iteration time), placed on the synthetic cluster:
// how the made-up GPUs below "measure" a run.
double measuredMs(const std::string& header, const std::string& rows, const std::string& file,
                  const std::shared_ptr<const Predictor>& gpu)
{
    const MeasuredRun run = MeasuredRun::group(MeasurementCsv::parse(header + rows, file).rows, file).front();
    RunPlacement synthetic;
    PlanSpec spec;
    const Problem p = synthetic.problem(run, file, GpuCatalog::builtin(), spec);
    return PlanEvaluator::evaluate(p, spec, gpu).plan.iterationMs;
}

GpuParamsFit truth()
{
    GpuParamsFit t = GpuParamsFit::of(*GpuCatalog::builtin().find("A100-80GB"));
    t.efficiencyMultiplier = 0.8;
    t.iterationOverheadMs = 40;
    t.launchOverheadUs = 100;
    return t;
}

// The runs "measured" on the made-up A100; the run `slowId`, if any, took
// `factor` times as long (a repeat on a busy node, a run that checkpointed).
std::string measuredRuns(const char* slowId = "", double factor = 1.0)
{
    auto gpu = std::make_shared<AnalyticPredictor>();
    gpu->setCalibration({truth()});
    std::string body;
    for (const Config& c : kConfigs) {
        const double ms = measuredMs(kHeader, row(c, 1), "runs.csv", gpu);
        body += row(c, std::string(c.id) == slowId ? ms * factor : ms);
    }
    return body;
}

bool contains(const std::vector<std::string>& v, const std::string& s)
{
    return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

// Runs that mix an A100 stage and an H100 stage only, measured on made-up
// GPUs: the A100 spends 100 us per kernel, the H100 reaches 0.7 of its
// catalog efficiency and 30 ms per iteration.
std::string mixedRuns()
{
    GpuParamsFit a100 = GpuParamsFit::of(*GpuCatalog::builtin().find("A100-80GB"));
    a100.launchOverheadUs = 100;
    GpuParamsFit h100 = GpuParamsFit::of(*GpuCatalog::builtin().find("H100-SXM"));
    h100.efficiencyMultiplier = 0.7;
    h100.iterationOverheadMs = 30;
    auto gpus = std::make_shared<AnalyticPredictor>();
    gpus->setCalibration({a100, h100});
    const char* header = "run_id,stage,stage_layers,gpu_type,recompute,tp,pp,dp,num_gpus,mbs,gbs,seq_len,num_layers,"
                         "hidden,heads,vocab,iteration_time_ms\n";
    struct Mixed {
        const char* id;
        int split, tp, dp, mbs, gbs, hidden;
    };
    const Mixed runs[] = {{"m1", 12, 1, 4, 1, 32, 1024}, {"m2", 16, 2, 2, 2, 32, 1024}, {"m3", 8, 1, 4, 4, 64, 2048},
                          {"m4", 12, 4, 1, 1, 16, 2048}, {"m5", 20, 2, 2, 1, 64, 1024}, {"m6", 12, 1, 4, 2, 128, 4096}};
    std::string body = header;
    for (const Mixed& m : runs) {
        auto rowsOf = [&](double ms) {
            std::ostringstream s;
            for (int stage = 0; stage < 2; ++stage)
                s << m.id << "," << stage << "," << (stage == 0 ? m.split : 24 - m.split) << ","
                  << (stage == 0 ? "A100-80GB" : "H100-SXM") << ",none," << m.tp << ",2," << m.dp << ","
                  << 2 * m.tp * m.dp << "," << m.mbs << "," << m.gbs << ",2048,24," << m.hidden << "," << m.hidden / 64
                  << ",32000," << ms << "\n";
            return s.str();
        };
        body += rowsOf(measuredMs(header, rowsOf(1), "mixed.csv", gpus));
    }
    return body;
}

class TestCalibrator : public QObject {
    Q_OBJECT
private slots:
    void recoversTheParametersOfMeasuredRuns();
    void theFitIsTheSameOnAnyThreadCount();
    void fitsTypesMeasuredOnlyTogether();
    void keepsCatalogValues_data();
    void keepsCatalogValues();
    void modelFileFromOneRunHasNoNan();
    void aRunThatCannotBeCompletedIsLeftOut();
    void aRunInAPrecisionItsGpuLacksIsLeftOut();
    void recoversTheMemoryOfMeasuredRuns();
    void aRunFarOffTheOthersIsLeftOut_data();
    void aRunFarOffTheOthersIsLeftOut();
    void fitsScheduleStepsWhereChunksDiffer();
    void keepsScheduleStepsWhereChunksAreAlike();
    void schedulesStepsOfEachTypeByItsOwnChunks();
};

void TestCalibrator::recoversTheParametersOfMeasuredRuns()
{
    const std::vector<MeasuredRun> runs = group(measuredRuns());
    const Calibrator::Result r = Calibrator::fit(runs, GpuCatalog::builtin(), "runs.csv");
    QCOMPARE(int(r.fits.size()), 1);
    const GpuParamsFit& f = r.fits.front();
    QCOMPARE(f.type, std::string("A100-80GB"));
    QCOMPARE(f.runs, 8);
    QVERIFY2(f.mapeBefore > 30,
             qPrintable(QString::number(f.mapeBefore)));  // the catalog's 10 ms and 20 us are far off
    QVERIFY2(f.mapeAfter < 3, qPrintable(QString::number(f.mapeAfter)));
    QVERIFY(contains(f.fitted, "iteration_overhead_ms"));
    QVERIFY(contains(f.fitted, "launch_overhead_us"));
    QVERIFY2(std::abs(f.iterationOverheadMs / 40 - 1) < 0.25, qPrintable(QString::number(f.iterationOverheadMs)));
    QVERIFY2(std::abs(f.launchOverheadUs / 100 - 1) < 0.25, qPrintable(QString::number(f.launchOverheadUs)));
}

// The runs' plans are evaluated on several threads and summed in run order
// afterwards: one thread and three give the same fit, bit for bit.
void TestCalibrator::theFitIsTheSameOnAnyThreadCount()
{
    const auto runs = MeasuredRun::group(MeasurementCsv::parse(mixedRuns(), "mixed.csv").rows, "mixed.csv");
    std::vector<Calibrator::Result> results;
    for (int threads : {1, 3}) {
        RunPlacement synthetic;
        Calibrator::Options options;
        options.threads = threads;
        results.push_back(
            Calibrator::fit(runs, GpuCatalog::builtin(), "mixed.csv", synthetic, AnalyticPredictor::Params(), options));
    }
    QCOMPARE(results[0].fits.size(), results[1].fits.size());
    QVERIFY(!results[0].fits.empty());
    for (std::size_t i = 0; i < results[0].fits.size(); ++i) {
        const GpuParamsFit& a = results[0].fits[i];
        const GpuParamsFit& b = results[1].fits[i];
        QVERIFY2(!a.fitted.empty(), a.note.c_str());
        QCOMPARE(a.efficiencyMultiplier, b.efficiencyMultiplier);
        QCOMPARE(a.bandwidthMultiplier, b.bandwidthMultiplier);
        QCOMPARE(a.launchOverheadUs, b.launchOverheadUs);
        QCOMPARE(a.commOverheadUs, b.commOverheadUs);
        QCOMPARE(a.iterationOverheadMs, b.iterationOverheadMs);
        QCOMPARE(a.stepOverheadUs, b.stepOverheadUs);
        QCOMPARE(a.mapeAfter, b.mapeAfter);
    }
}

void TestCalibrator::fitsTypesMeasuredOnlyTogether()
{
    const auto runs = MeasuredRun::group(MeasurementCsv::parse(mixedRuns(), "mixed.csv").rows, "mixed.csv");
    QCOMPARE(int(runs.size()), 6);
    const Calibrator::Result r = Calibrator::fit(runs, GpuCatalog::builtin(), "mixed.csv");
    QCOMPARE(int(r.fits.size()), 2);
    for (const GpuParamsFit& f : r.fits) {
        QCOMPARE(f.runs, 6);
        QVERIFY2(!f.fitted.empty(), f.note.c_str());
        QVERIFY2(f.note.find("jointly") != std::string::npos, f.note.c_str());
        QVERIFY2(f.mapeBefore > 10, qPrintable(QString::number(f.mapeBefore)));
        QVERIFY2(f.mapeAfter < f.mapeBefore / 3, qPrintable(QString("%1 -> %2").arg(f.mapeBefore).arg(f.mapeAfter)));
    }
}

void TestCalibrator::keepsCatalogValues_data()
{
    QTest::addColumn<QString>("body");
    QTest::addColumn<QString>("why");
    QTest::newRow("one run") << QString::fromStdString(row(kConfigs[0], 90)) << "only 1 distinct configuration";
    QTest::newRow("the same run twice") << QString::fromStdString(row(kConfigs[0], 90)
                                                                  + row({"again", 1, 1, 8, 4, 32}, 91))
                                        << "only 1 distinct configuration";
    // The same configuration 4x apart, and another run: contradiction.
    QTest::newRow("contradicting runs")
        << QString::fromStdString(row(kConfigs[0], 90) + row({"again", 1, 1, 8, 4, 32}, 360) + row(kConfigs[1], 140))
        << "runs tp1pp1 and again of one configuration differ 4.0x in iteration time (90.0 vs 360.0 ms)";
    // Exactly 3x is already a contradiction (the "3x apart").
    QTest::newRow("3x apart")
        << QString::fromStdString(row(kConfigs[0], 90) + row({"again", 1, 1, 8, 4, 32}, 270) + row(kConfigs[1], 140))
        << "runs tp1pp1 and again of one configuration differ 3.0x in iteration time (90.0 vs 270.0 ms)";
}

void TestCalibrator::keepsCatalogValues()
{
    QFETCH(QString, body);
    QFETCH(QString, why);
    const Calibrator::Result r = Calibrator::fit(group(body.toStdString()), GpuCatalog::builtin(), "runs.csv");
    QCOMPARE(int(r.fits.size()), 1);
    const GpuParamsFit& f = r.fits.front();
    const GpuParamsFit catalog = GpuParamsFit::of(*GpuCatalog::builtin().find("A100-80GB"));
    QVERIFY(f.fitted.empty());
    QCOMPARE(f.efficiencyMultiplier, catalog.efficiencyMultiplier);
    QCOMPARE(f.iterationOverheadMs, catalog.iterationOverheadMs);
    QCOMPARE(f.launchOverheadUs, catalog.launchOverheadUs);
    QVERIFY2(f.note.find(why.toStdString()) != std::string::npos, f.note.c_str());
    // The message names the file and the type.
    QCOMPARE(int(r.messages.size()), 1);
    QVERIFY2(r.messages.front().find("runs.csv: GPU type A100-80GB: ") == 0, r.messages.front().c_str());
}

void TestCalibrator::modelFileFromOneRunHasNoNan()
{
    // One run with constant targets: nothing to cross-validate, nothing to
    // fit; the file must still be finite and load.
    const auto rows = MeasurementCsv::parse(kHeader + row(kConfigs[0], 90), "one.csv").rows;
    RunPlacement synthetic;
    const Calibrator::Result cal
        = Calibrator::fit(MeasuredRun::group(rows, "one.csv"), GpuCatalog::builtin(), "one.csv");
    auto prior = std::make_shared<AnalyticPredictor>();
    prior->setCalibration(cal.fits);
    const TrainingSet set = TrainingSet::build(rows, "one.csv", GpuCatalog::builtin(), &synthetic, prior);
    TrainReport report;
    PredictorTrainer::Options opt;
    opt.tune = false;
    const LearnedPredictor model = PredictorTrainer::train(set, opt, report);
    PredictorMetadata meta = set.metadata();
    meta.training = report.toJson();
    QTemporaryDir dir;
    const std::string file = dir.filePath("model.json").toStdString();
    PredictorFile::save(file, model, meta);
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    QVERIFY(s.find("nan") == std::string::npos && s.find("NaN") == std::string::npos);
    const PredictorFile::Loaded loaded = PredictorFile::load(file);
    QVERIFY(loaded.predictor);
    QCOMPARE(int(loaded.predictor->analytic().calibration().size()), 1);
    QVERIFY(loaded.predictor->analytic().calibration().front().fitted.empty());
}

// train on Megatron-LM CI used to stop here: a pp-4 run of 6 layers without
// stage rows cannot be split, and calibration grouped the rows strictly while
// training leaves such a run out. Now both leave it out.
void TestCalibrator::aRunThatCannotBeCompletedIsLeftOut()
{
    const std::string body = measuredRuns() + "uneven,A100-80GB,8,1,4,2,4,32,1024,6,512,8,50257,none,,,150,,\n";
    RunPlacement synthetic;
    Calibrator::Result r;
    const auto model
        = Calibrator::calibratedModel(MeasurementCsv::parse(kHeader + body, "runs.csv").rows, "runs.csv", synthetic, r);
    QVERIFY(model);
    QCOMPARE(int(r.fits.size()), 1);
    QCOMPARE(r.fits.front().runs, 8);  // the eight complete runs
    QCOMPARE(int(model->calibration().size()), 1);
}

// A run in fp8 on A100s (which have none) cannot be predicted: the fit
// leaves it out with the reason and calibrates on the other eight, where it
// used to stop the whole `train` with the evaluator's exception.
void TestCalibrator::aRunInAPrecisionItsGpuLacksIsLeftOut()
{
    const std::string body = measuredRuns() + "infp8,A100-80GB,8,1,1,8,4,32,1024,12,512,8,50257,none,,,150,,\n";
    auto rows = MeasurementCsv::parse(kHeader + body, "runs.csv").rows;
    QCOMPARE(rows.back().runId, std::string("infp8"));
    rows.back().precision = Precision::Fp8;
    RunPlacement synthetic;
    Calibrator::Result r;
    const auto model = Calibrator::calibratedModel(rows, "runs.csv", synthetic, r);
    QVERIFY(model);
    QCOMPARE(int(r.fits.size()), 1);
    QCOMPARE(r.fits.front().runs, 8);
    QVERIFY2(r.fits.front().mapeAfter < 3, qPrintable(QString::number(r.fits.front().mapeAfter)));
    bool named = false;
    for (const std::string& m : r.messages)
        named = named
            || (m.find("runs.csv: run infp8 left out: ") == 0
                && m.find("fp8 is not available on A100-80GB") != std::string::npos);
    QVERIFY2(named, r.messages.empty() ? "no message" : r.messages.front().c_str());
}

// The eight runs' peaks (run level: the largest over the GPUs, `allocated`)
// measured on a made-up A100 whose framework holds 600 MiB of buffers and
// whose tensors take 1.1x the model's bytes: the fit must find both (1.1 is
// on the multiplier grid), the error must vanish, and the model file must
// keep them.
void TestCalibrator::recoversTheMemoryOfMeasuredRuns()
{
    GpuParamsFit made = truth();
    made.memoryMultiplier = 1.1;
    made.frameworkMiB = 600;
    auto gpu = std::make_shared<AnalyticPredictor>();
    gpu->setCalibration({made});
    std::string body;
    RunPlacement synthetic;
    for (const Config& c : kConfigs) {
        const MeasuredRun run = group(row(c, 1)).front();
        PlanSpec spec;
        const Plan plan
            = PlanEvaluator::evaluate(synthetic.problem(run, "runs.csv", GpuCatalog::builtin(), spec), spec, gpu).plan;
        double peak = 0;
        for (const StagePlan& s : plan.stages)
            peak = std::max(peak, s.memory.allocatedMiB());
        std::string r = row(c, plan.iterationMs);
        r.insert(r.size() - 1, QString::number(peak, 'f', 3).toStdString());  // the last column, peak_mem_mib
        body += r;
    }
    const Calibrator::Result r = Calibrator::fit(group(body), GpuCatalog::builtin(), "runs.csv");
    QCOMPARE(int(r.fits.size()), 1);
    const GpuParamsFit& f = r.fits.front();
    QCOMPARE(f.memoryRuns, 8);
    QVERIFY2(f.memoryMapeBefore > 5, qPrintable(QString::number(f.memoryMapeBefore)));
    QVERIFY2(f.memoryMapeAfter < 0.01, qPrintable(QString::number(f.memoryMapeAfter)));
    QVERIFY(contains(f.fitted, "memory_multiplier") && contains(f.fitted, "framework_mib"));
    QVERIFY2(std::abs(f.memoryMultiplier - 1.1) < 1e-9, qPrintable(QString::number(f.memoryMultiplier)));
    QVERIFY2(std::abs(f.frameworkMiB - 600) < 0.01, qPrintable(QString::number(f.frameworkMiB)));

    const GpuParamsFit back = GpuParamsFit::fromJson(JsonReader(f.toJson(), "model.json"));
    QCOMPARE(back.memoryMultiplier, f.memoryMultiplier);
    QCOMPARE(back.frameworkMiB, f.frameworkMiB);
    QCOMPARE(back.memoryRuns, 8);
    // A model file from before memory calibration reads as multiplier 1, no buffers.
    nlohmann::json old = f.toJson();
    old.erase("memory_multiplier");
    old.erase("framework_mib");
    const GpuParamsFit legacy = GpuParamsFit::fromJson(JsonReader(old, "old.json"));
    QCOMPARE(legacy.memoryMultiplier, 1.0);
    QCOMPARE(legacy.frameworkMiB, 0.0);
    // One from before schedule steps had a host time was fitted without
    // one: it applies none (not the catalog's 50 us on top of per-kernel
    // and per-iteration times that already absorbed that time).
    QCOMPARE(back.stepOverheadUs, f.stepOverheadUs);
    old.erase("step_overhead_us");
    const GpuParamsFit noSteps = GpuParamsFit::fromJson(JsonReader(old, "old.json"));
    GpuType a100 = *GpuCatalog::builtin().find("A100-80GB");
    QCOMPARE(a100.stepOverheadUs, 50.0);
    noSteps.applyTo(a100);
    QCOMPARE(a100.stepOverheadUs, 0.0);
}

// One of the eight runs took 3x as long as the made-up A100 makes it (a
// repeat of a Megatron-LM CI configuration can), or a third: the calibrator
// names it, fits the other seven, and finds the 40 ms and 100 us the runs were
// made with within 25 % (32 ms and 99 us; kept in, the 3x slower run drags the
// per-iteration time to 26 ms). A run 1.3x off is noise the fit keeps.
void TestCalibrator::aRunFarOffTheOthersIsLeftOut_data()
{
    QTest::addColumn<double>("factor");
    QTest::addColumn<bool>("leftOut");
    QTest::newRow("3x slower") << 3.0 << true;
    QTest::newRow("3x faster") << 1.0 / 3 << true;
    QTest::newRow("1.3x slower") << 1.3 << false;
}

void TestCalibrator::aRunFarOffTheOthersIsLeftOut()
{
    QFETCH(double, factor);
    QFETCH(bool, leftOut);
    const Calibrator::Result r
        = Calibrator::fit(group(measuredRuns("tp1pp4", factor)), GpuCatalog::builtin(), "runs.csv");
    QCOMPARE(int(r.fits.size()), 1);
    const GpuParamsFit& f = r.fits.front();
    QCOMPARE(f.runs, 8);
    const bool named = std::any_of(r.messages.begin(), r.messages.end(), [](const std::string& m) {
        return m.find("runs.csv: GPU type A100-80GB: run tp1pp4 left out of the time fit") == 0;
    });
    QCOMPARE(named, leftOut);
    QCOMPARE(f.note.find("tp1pp4") != std::string::npos, leftOut);
    QVERIFY(contains(f.fitted, "iteration_overhead_ms"));
    QVERIFY(contains(f.fitted, "launch_overhead_us"));
    if (!leftOut)
        return;
    QVERIFY2(std::abs(f.iterationOverheadMs / 40 - 1) < 0.25, qPrintable(QString::number(f.iterationOverheadMs)));
    QVERIFY2(std::abs(f.launchOverheadUs / 100 - 1) < 0.25, qPrintable(QString::number(f.launchOverheadUs)));
}

namespace {

// Runs of the CI-shaped GPT with and without interleaving, measured on a
// made-up A100 that spends 100 us per kernel and `stepUs` per schedule step
// (Megatron's forward_step or backward_step of one model chunk). `configs`
// lists tp, pp, dp, vp, mbs, gbs.
std::string interleavedRuns(double stepUs, const std::vector<std::array<int, 6>>& configs)
{
    GpuParamsFit t = GpuParamsFit::of(*GpuCatalog::builtin().find("A100-80GB"));
    t.launchOverheadUs = 100;
    t.stepOverheadUs = stepUs;
    auto gpu = std::make_shared<AnalyticPredictor>();
    gpu->setCalibration({t});
    const std::string header = "run_id,gpu_type,num_gpus,tp,pp,dp,vp,mbs,gbs,seq_len,num_layers,hidden,heads,vocab,"
                               "recompute,iteration_time_ms\n";
    std::string body = header;
    for (const auto& [tp, pp, dp, vp, mbs, gbs] : configs) {
        auto rowOf = [&](double ms) {
            std::ostringstream s;
            s << "tp" << tp << "pp" << pp << "dp" << dp << "vp" << vp << "mb" << mbs << "gb" << gbs << ",A100-80GB,8,"
              << tp << "," << pp << "," << dp << "," << vp << "," << mbs << "," << gbs << ",1024,12,512,8,50257,none,"
              << ms << "\n";
            return s.str();
        };
        body += rowOf(measuredMs(header, rowOf(1), "vp.csv", gpu));
    }
    return body;
}

}  // namespace

// Chunks of 12, 6, 3, 2 and 1 layers: the step's host time is what stays when
// the per-kernel time is accounted for, and the fit finds it (the catalog
// says 50 us; these runs spent 400).
void TestCalibrator::fitsScheduleStepsWhereChunksDiffer()
{
    const std::string body = interleavedRuns(400,
                                             {{1, 1, 8, 1, 4, 32},
                                              {1, 2, 4, 1, 4, 32},
                                              {1, 4, 2, 1, 4, 32},
                                              {1, 4, 2, 3, 4, 32},
                                              {2, 2, 2, 1, 4, 32},
                                              {1, 4, 2, 3, 2, 32},
                                              {2, 1, 4, 1, 4, 32},
                                              {1, 2, 4, 3, 2, 32}});
    const auto runs = MeasuredRun::group(MeasurementCsv::parse(body, "vp.csv").rows, "vp.csv");
    QCOMPARE(int(runs.size()), 8);  // 7 parameters' budget: the step, fitted last, is reached
    const Calibrator::Result r = Calibrator::fit(runs, GpuCatalog::builtin(), "vp.csv");
    const GpuParamsFit& f = r.fits.front();
    QVERIFY(contains(f.fitted, "step_overhead_us"));
    QVERIFY2(f.mapeAfter < 3, qPrintable(QString::number(f.mapeAfter)));
    QVERIFY2(std::abs(f.stepOverheadUs / 400 - 1) < 0.3, qPrintable(QString::number(f.stepOverheadUs)));
    QVERIFY2(std::abs(f.launchOverheadUs / 100 - 1) < 0.25, qPrintable(QString::number(f.launchOverheadUs)));
}

// Every run has 12-layer chunks (one stage, micro-batch sizes differ): a step
// comes with the same kernels each time, so the runs cannot tell its host
// time from theirs and the catalog's stays.
void TestCalibrator::keepsScheduleStepsWhereChunksAreAlike()
{
    const std::string body = interleavedRuns(400,
                                             {{1, 1, 8, 1, 1, 32},
                                              {1, 1, 8, 1, 2, 32},
                                              {1, 1, 8, 1, 4, 32},
                                              {2, 1, 4, 1, 4, 32},
                                              {4, 1, 2, 1, 4, 32},
                                              {1, 1, 8, 1, 4, 64}});
    const auto runs = MeasuredRun::group(MeasurementCsv::parse(body, "vp.csv").rows, "vp.csv");
    QCOMPARE(int(runs.size()), 6);
    const Calibrator::Result r = Calibrator::fit(runs, GpuCatalog::builtin(), "vp.csv");
    const GpuParamsFit& f = r.fits.front();
    QVERIFY(!contains(f.fitted, "step_overhead_us"));
    QCOMPARE(f.stepOverheadUs, GpuCatalog::builtin().find("A100-80GB")->stepOverheadUs);
    QVERIFY(contains(f.fitted, "launch_overhead_us"));
}

// Two-stage runs whose A100 stage always holds 12 layers and whose H100 stage
// holds 4 to 24: the H100's chunks differ, so its step time can be fitted; the
// A100's never do, and the H100's variety says nothing about them. Eight
// distinct configurations leave budget for every parameter (step last).
void TestCalibrator::schedulesStepsOfEachTypeByItsOwnChunks()
{
    GpuParamsFit a100 = GpuParamsFit::of(*GpuCatalog::builtin().find("A100-80GB"));
    a100.launchOverheadUs = 100;
    GpuParamsFit h100 = GpuParamsFit::of(*GpuCatalog::builtin().find("H100-SXM"));
    h100.stepOverheadUs = 400;
    auto gpus = std::make_shared<AnalyticPredictor>();
    gpus->setCalibration({a100, h100});
    const std::string header = "run_id,stage,stage_layers,gpu_type,recompute,tp,pp,dp,num_gpus,mbs,gbs,seq_len,"
                               "num_layers,hidden,heads,vocab,iteration_time_ms\n";
    struct Mixed {
        int h100Layers, tp, dp, mbs;
    };
    const Mixed runs[] = {{4, 1, 4, 1},  {8, 2, 2, 2},  {12, 1, 4, 4}, {16, 4, 1, 1},
                          {20, 2, 2, 1}, {24, 1, 4, 2}, {6, 2, 2, 4},  {10, 4, 1, 2}};
    std::string body = header;
    for (const Mixed& m : runs) {
        auto rowsOf = [&](double ms) {
            std::ostringstream s;
            for (int stage = 0; stage < 2; ++stage)
                s << "h" << m.h100Layers << "," << stage << "," << (stage == 0 ? 12 : m.h100Layers) << ","
                  << (stage == 0 ? "A100-80GB" : "H100-SXM") << ",none," << m.tp << ",2," << m.dp << ","
                  << 2 * m.tp * m.dp << "," << m.mbs << ",64,2048," << 12 + m.h100Layers << ",1024,16,32000," << ms
                  << "\n";
            return s.str();
        };
        body += rowsOf(measuredMs(header, rowsOf(1), "chunks.csv", gpus));
    }
    const auto measured = MeasuredRun::group(MeasurementCsv::parse(body, "chunks.csv").rows, "chunks.csv");
    QCOMPARE(int(measured.size()), 8);
    const Calibrator::Result r = Calibrator::fit(measured, GpuCatalog::builtin(), "chunks.csv");
    QCOMPARE(int(r.fits.size()), 2);
    for (const GpuParamsFit& f : r.fits) {
        QVERIFY2(!f.fitted.empty(), f.note.c_str());
        QCOMPARE(contains(f.fitted, "step_overhead_us"), f.type == "H100-SXM");
    }
}

MEMX_TEST_APPLESS_MAIN(TestCalibrator)
}  // namespace tst_calibrator

#include "tst_calibrator.moc"
