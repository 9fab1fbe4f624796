// The pieces of the learned loop between measurement files and the search:
// completing runs from their rows (MeasuredRun), training labels of both
// granularities (TrainingSet), the minimal-set choice of the accuracy
// protocol (MinimalSetSelector) and the predictor file with its refusals
// (PredictorFile), and the protocol's choice of which runs it can use
// (AccuracyProtocol).
#include "TestPaths.h"

#include "hardware/Cluster.h"
#include "hardware/GpuCatalog.h"
#include "io/InputError.h"
#include "model/ModelSpec.h"
#include "predict/PredictorFile.h"
#include "accuracy/AccuracyProtocol.h"
#include "measure/MeasuredRun.h"
#include "measure/MeasurementCsv.h"
#include "profiling/MinimalSetSelector.h"
#include "learn/PredictorTrainer.h"
#include "learn/TrainingSet.h"
#include "space/TrainingSetup.h"

#include <QTemporaryDir>
#include "TestMain.h"

#include <cmath>
#include <fstream>

namespace tst_learned_loop {

using namespace memx;

namespace {

const std::string kHeader
    = "run_id,gpu_type,num_gpus,tp,pp,dp,mbs,gbs,seq_len,num_layers,hidden,heads,vocab,recompute,stage,stage_layers,"
      "iteration_time_ms,stage_time_ms,peak_mem_mib\n";

std::vector<Measurement> rows(const std::string& body) { return MeasurementCsv::parse(kHeader + body, "t.csv").rows; }

std::vector<int> layersOf(const MeasuredRun& r)
{
    std::vector<int> v;
    for (const auto& s : r.stages)
        v.push_back(s.layers);
    return v;
}

}  // namespace

class TestLearnedLoop : public QObject {
    Q_OBJECT
private slots:
    void completeRuns_data();
    void completeRuns();
    void incompleteRuns_data();
    void incompleteRuns();
    void labelsFromRunRow();
    void labelsFromStageRows();
    void foldsNeverTrainOnRowsMadeFromTheirRuns();
    void interpolatedRunNamesTheNeighboursOfEveryRow();
    void foldsDealOnlyMeasuredRuns();
    void crossValidationIsTheSameOnOneThread();
    void minimalSetCoversThreePoints();
    void protocolSkipsRunsNoModelCanPredict();
    void predictorFileRoundTrip();
    void predictorFileRefusesMismatch();
    void predictorFileErrors_data();
    void predictorFileErrors();
};

void TestLearnedLoop::completeRuns_data()
{
    QTest::addColumn<QString>("body");
    QTest::addColumn<QList<int>>("layers");
    QTest::addColumn<QStringList>("types");
    // pp 4 from a run row: 32 layers split evenly, all on the run's GPU.
    QTest::newRow("run row only") << "r,A100-80GB,8,1,4,2,1,16,2048,32,4096,32,32000,none,,,1000,,\n"
                                  << QList<int>{8, 8, 8, 8}
                                  << QStringList{"A100-80GB", "A100-80GB", "A100-80GB", "A100-80GB"};
    // Two stage rows (10 and 6 layers) fix theirs; the other two share 32 - 16 = 16.
    QTest::newRow("partial stage rows") << "r,A100-80GB,8,1,4,2,1,16,2048,32,4096,32,32000,none,,,1000,,\n"
                                           "r,H100-SXM,8,1,4,2,1,16,2048,32,4096,32,32000,none,0,10,,,50000\n"
                                           "r,H100-SXM,8,1,4,2,1,16,2048,32,4096,32,32000,none,3,6,,,40000\n"
                                        << QList<int>{10, 8, 8, 6}
                                        << QStringList{"H100-SXM", "A100-80GB", "A100-80GB", "H100-SXM"};
    // One stage measured of a homogeneous run (Sailor's per-layer profile):
    // the others take its GPU type.
    QTest::newRow("one stage row") << "r,V100-16GB,4,1,4,1,1,1,2048,4,4096,32,32000,none,1,1,,12.5,\n"
                                   << QList<int>{1, 1, 1, 1}
                                   << QStringList{"V100-16GB", "V100-16GB", "V100-16GB", "V100-16GB"};
}

void TestLearnedLoop::completeRuns()
{
    QFETCH(QString, body);
    QFETCH(QList<int>, layers);
    QFETCH(QStringList, types);
    const auto runs = MeasuredRun::group(rows(body.toStdString()), "t.csv");
    QCOMPARE(runs.size(), std::size_t(1));
    const std::vector<int> got = layersOf(runs[0]);
    QCOMPARE(QList<int>(got.begin(), got.end()), layers);
    for (int i = 0; i < types.size(); ++i)
        QCOMPARE(QString::fromStdString(runs[0].stages[i].gpuType), types[i]);
}

void TestLearnedLoop::incompleteRuns_data()
{
    QTest::addColumn<QString>("body");
    QTest::addColumn<QString>("reason");
    QTest::newRow("uneven rest") << "r,A100-80GB,8,1,4,2,1,16,2048,30,4096,32,32000,none,,,1000,,\n"
                                 << "30 layers left for 4 stage(s) without a stage row do not split evenly";
    QTest::newRow("stage rows disagree, no run row")
        << "r,A100-80GB,12,1,3,1,1,4,2048,30,4096,32,32000,none,0,10,,100,\n"
           "r,H100-SXM,12,1,3,1,1,4,2048,30,4096,32,32000,none,1,10,,100,\n"
        << "no run row";
    QTest::newRow("tp per stage") << "r,A100-80GB,8,2,2,1,1,4,2048,32,4096,32,32000,none,0,16,,100,\n"
                                     "r,A100-80GB,8,4,2,1,1,4,2048,32,4096,32,32000,none,1,16,,100,\n"
                                  << "stage 1 has tp 4 but stage 0 has tp 2";
}

void TestLearnedLoop::incompleteRuns()
{
    QFETCH(QString, body);
    QFETCH(QString, reason);
    const auto measurements = rows(body.toStdString());
    // Strict: the whole read fails, naming file, run and reason.
    try {
        MeasuredRun::group(measurements, "t.csv");
        QFAIL("expected InputError");
    } catch (const InputError& e) {
        QCOMPARE(QString::fromStdString(e.file()), QString("t.csv"));
        QCOMPARE(QString::fromStdString(e.field()), QString("run r"));
        QVERIFY2(QString::fromStdString(e.reason()).contains(reason), e.what());
    }
    // Lenient: the run is left out and named.
    std::vector<std::string> skipped;
    QVERIFY(MeasuredRun::group(measurements, "t.csv", &skipped).empty());
    QCOMPARE(skipped.size(), std::size_t(1));
    QVERIFY(QString::fromStdString(skipped[0]).startsWith("run r: "));
}

// A run row gives every stage the ratio measured / analytic iteration time;
// its peak memory labels the stage the analytic model expects at the peak.
void TestLearnedLoop::labelsFromRunRow()
{
    auto m = rows("r,A100-80GB,8,1,4,2,1,16,2048,32,4096,32,32000,none,,,1000,,60000\n");
    TrainingSet set = TrainingSet::build(m, "t.csv", GpuCatalog::builtin());
    QCOMPARE(set.runs.size(), std::size_t(1));
    QCOMPARE(set.rows.size(), std::size_t(4));
    const double T = set.analytic[0].iterationMs();
    int peak = 0;
    for (int i = 1; i < 4; ++i)
        if (set.analytic[0].plan.stages[i].memory.totalMiB() > set.analytic[0].plan.stages[peak].memory.totalMiB())
            peak = i;
    QCOMPARE(peak, 0);  // stage 0 holds the embedding and the most in-flight micro-batches
    for (int i = 0; i < 4; ++i) {
        const TrainingRow& row = set.rows[i];
        QVERIFY(row.hasTime);
        QVERIFY(std::abs(std::exp(row.timeLabel) - 1000.0 / T) < 1e-9);
        QCOMPARE(row.hasMemory, i == peak);
    }
    // The label compares allocated with allocated (peak_mem_kind empty).
    QVERIFY(std::abs(std::exp(set.rows[0].memoryLabel) * set.rows[0].analytic.memory.allocatedMiB() - 60000) < 1e-6);
    // Imputed targets for the memory-less stages: the mean observed correction.
    std::vector<StageQuery> q;
    std::vector<double> t, mem;
    set.targets(set.rowsOfRuns({}), q, t, mem);
    for (int i = 1; i < 4; ++i)
        QVERIFY(std::abs(mem[i] / set.rows[i].analytic.memoryMiB() - std::exp(set.rows[0].memoryLabel)) < 1e-9);
}

// A stage row's stage_time_ms is per iteration: the label is for one micro-batch.
void TestLearnedLoop::labelsFromStageRows()
{
    // G = gbs / (mbs * dp) = 16 / (2 * 2) = 4 micro-batches.
    auto m = rows("r,A100-80GB,8,1,2,2,2,16,2048,32,4096,32,32000,none,0,16,,800,30000\n"
                  "r,A100-80GB,8,1,2,2,2,16,2048,32,4096,32,32000,none,1,16,,600,20000\n");
    TrainingSet set = TrainingSet::build(m, "t.csv", GpuCatalog::builtin());
    QCOMPARE(set.rows.size(), std::size_t(2));
    const double perMb[] = {800.0 / 4, 600.0 / 4};
    const double mem[] = {30000, 20000};
    for (int i = 0; i < 2; ++i) {
        QVERIFY(std::abs(std::exp(set.rows[i].timeLabel) * set.rows[i].analytic.timeMs - perMb[i]) < 1e-6);
        QVERIFY(std::abs(std::exp(set.rows[i].memoryLabel) * set.rows[i].analytic.memory.allocatedMiB() - mem[i])
                < 1e-6);
    }
}

// Cross-validation with interpolated rows (train --augment): a fold is scored
// on its measured runs only, and trains on no row interpolated from one of
// them, or it would be judged on its own values drawn on a straight line.
// Runs a (mbs 1), b (mbs 4) and c (mbs 8) are measured; i (mbs 2) was made
// from a and b, j (mbs 6) from b and c; k (mbs 3) was read from a file of
// interpolated rows that does not say what it came from.
void TestLearnedLoop::foldsNeverTrainOnRowsMadeFromTheirRuns()
{
    auto m = rows("a,A100-80GB,8,1,1,8,1,384,2048,32,4096,32,32000,none,,,1000,,\n"
                  "b,A100-80GB,8,1,1,8,4,384,2048,32,4096,32,32000,none,,,1600,,\n"
                  "c,A100-80GB,8,1,1,8,8,384,2048,32,4096,32,32000,none,,,2400,,\n"
                  "i,A100-80GB,8,1,1,8,2,384,2048,32,4096,32,32000,none,,,1200,,\n"
                  "j,A100-80GB,8,1,1,8,6,384,2048,32,4096,32,32000,none,,,2000,,\n"
                  "k,A100-80GB,8,1,1,8,3,384,2048,32,4096,32,32000,none,,,1400,,\n");
    m[3].source = m[4].source = m[5].source = MeasurementSource::Interpolated;
    m[3].derivedFrom.runIds = {"a", "b"};
    m[4].derivedFrom.runIds = {"b", "c"};
    const TrainingSet set = TrainingSet::build(m, "t.csv", GpuCatalog::builtin());
    QCOMPARE(set.runs.size(), std::size_t(6));
    // The runs of each training row, by id, for a fold.
    auto ids = [&](const std::vector<std::size_t>& rowIdx) {
        QStringList out;
        for (std::size_t r : rowIdx)
            out << QString::fromStdString(set.runs[static_cast<std::size_t>(set.rows[r].run)].runId);
        return out;
    };
    const std::vector<int> foldOf = {0, 1, 2, -1, -1, -1};  // a, b, c, i, j, k
    // Fold 0 holds a; i was made from it; j, made from b and c, trains; k
    // trains in no fold.
    auto f0 = PredictorTrainer::foldRows(set, foldOf, 0);
    QCOMPARE(ids(f0.test), QStringList{"a"});
    QCOMPARE(ids(f0.train), (QStringList{"b", "c", "j"}));
    // Fold 1 holds b: i and j were both made from it.
    auto f1 = PredictorTrainer::foldRows(set, foldOf, 1);
    QCOMPARE(ids(f1.test), QStringList{"b"});
    QCOMPARE(ids(f1.train), (QStringList{"a", "c"}));
    // Fold 2 holds c, which j was made from: i, made from a and b, trains.
    auto f2 = PredictorTrainer::foldRows(set, foldOf, 2);
    QCOMPARE(ids(f2.test), QStringList{"c"});
    QCOMPARE(ids(f2.train), (QStringList{"a", "b", "i"}));
}

// The folds train on their own threads; the figures must not depend on how
// many: the same cross-validation on one thread and on five, compared bit
// for bit.
void TestLearnedLoop::crossValidationIsTheSameOnOneThread()
{
    std::string body;
    for (int k = 1; k <= 12; ++k)
        body += "r" + std::to_string(k) + ",A100-80GB,8,1,1,8," + std::to_string(1 + k % 4) + ",384,2048,32,"
            + std::to_string(1024 + 256 * (k % 5)) + ",32,32000,none,,," + std::to_string(900 + 130 * k) + ",,\n";
    const TrainingSet set = TrainingSet::build(rows(body), "t.csv", GpuCatalog::builtin());
    XgboostModel::TrainParams params;
    params.rounds = 30;
    const CrossValidation every = PredictorTrainer::crossValidate(set, params, 5, 3, 5);
    const CrossValidation single = PredictorTrainer::crossValidate(set, params, 5, 3, 1);
    QVERIFY(!std::isnan(every.timeMape));
    QCOMPARE(every.timeMape, single.timeMape);
    QCOMPARE(every.priorTimeMape, single.priorTimeMape);
    QCOMPARE(every.objective, single.objective);
}

// Folds are dealt over the runs they can score. Seven measured runs and
// eight interpolated ones in three folds: 3, 2 and 2 measured runs per fold
// whatever the seed, and no interpolated run in any (were they dealt too, a
// fold could hold one measured run and four interpolated ones).
void TestLearnedLoop::foldsDealOnlyMeasuredRuns()
{
    std::string body;
    for (int k = 1; k <= 15; ++k)
        body += "r" + std::to_string(k) + ",A100-80GB,8,1,1,8,1,384,2048,32," + std::to_string(1024 + 128 * k)
            + ",32,32000,none,,," + std::to_string(1000 + 100 * k) + ",,\n";
    auto m = rows(body);
    for (int i = 1; i < 15; i += 2) {  // r2, r4, ... r14 interpolated, plus r15
        m[static_cast<std::size_t>(i)].source = MeasurementSource::Interpolated;
        m[static_cast<std::size_t>(i)].derivedFrom.runIds = {m[i - 1].runId, m[i + 1].runId};
    }
    m[14].source = MeasurementSource::Interpolated;
    m[14].derivedFrom.runIds = {"r13"};
    const TrainingSet set = TrainingSet::build(m, "t.csv", GpuCatalog::builtin());
    QCOMPARE(set.runs.size(), std::size_t(15));
    QCOMPARE(PredictorTrainer::scoredRuns(set), std::size_t(7));
    for (std::uint64_t seed : {0u, 1u, 7919u, 15838u}) {
        const std::vector<int> foldOf = PredictorTrainer::assignFolds(set, 3, seed);
        std::vector<int> count(3, 0);
        for (std::size_t i = 0; i < set.runs.size(); ++i) {
            const bool interpolated = set.runs[i].config.source == MeasurementSource::Interpolated;
            if (interpolated) {
                QCOMPARE(foldOf[i], -1);
            } else {
                QVERIFY(foldOf[i] >= 0 && foldOf[i] < 3);
                ++count[static_cast<std::size_t>(foldOf[i])];
            }
        }
        std::sort(count.begin(), count.end());
        QCOMPARE(count, (std::vector<int>{2, 2, 3}));
    }
}

// An interpolated run whose run row and stage row come from different
// neighbours is made from all of them, whichever row speaks for the run.
void TestLearnedLoop::interpolatedRunNamesTheNeighboursOfEveryRow()
{
    auto m = rows("k,A100-80GB,8,1,2,4,2,384,2048,32,4096,32,32000,none,1,16,,600,\n"
                  "k,A100-80GB,8,1,2,4,2,384,2048,32,4096,32,32000,none,,,1200,,\n");
    for (Measurement& r : m)
        r.source = MeasurementSource::Interpolated;
    m[0].derivedFrom.runIds = {"a", "b"};
    m[1].derivedFrom.runIds = {"b", "c"};
    const auto runs = MeasuredRun::group(m, "t.csv");
    QCOMPARE(runs.size(), std::size_t(1));
    QCOMPARE(runs[0].config.derivedFrom.runIds, (std::vector<std::string>{"a", "b", "c"}));
}

// 4 micro-batch sizes x 3 TP degrees of one GPU type: the three points are
// mbs {1, 4, 8} (4 is nearest (1 + 8) / 2) and tp {1, 2, 4}; the greedy
// cover takes (1,1), (4,2), (8,4), runs 0, 7 and 11 in input order.
void TestLearnedLoop::minimalSetCoversThreePoints()
{
    std::string body;
    int k = 0;
    for (int mbs : {1, 2, 4, 8})
        for (int tp : {1, 2, 4}) {
            const int gpus = tp * 2;
            body += "r" + std::to_string(k++) + ",A100-80GB," + std::to_string(gpus) + "," + std::to_string(tp)
                + ",1,2," + std::to_string(mbs) + ",64,2048,32,4096,32,32000,none,,,1000,,\n";
        }
    const auto runs = MeasuredRun::group(rows(body), "t.csv");
    QCOMPARE(runs.size(), std::size_t(12));
    QCOMPARE(MinimalSetSelector::select(runs), (std::vector<int>{0, 7, 11}));
    QCOMPARE(MinimalSetSelector::rest(5, {1, 3}), (std::vector<int>{0, 2, 4}));
}

// A run in fp8 on A100s (which have none) is complete but cannot be
// predicted: the accuracy protocol names it as skipped and draws its
// minimal set from the other runs. It used to take a training place (it is
// the only mbs-1 run) and vanish there without a word.
void TestLearnedLoop::protocolSkipsRunsNoModelCanPredict()
{
    std::string body;
    int k = 0;
    for (int mbs : {1, 2, 4, 8})
        for (int tp : {1, 2}) {
            body += "r" + std::to_string(k++) + ",A100-80GB," + std::to_string(tp * 2) + "," + std::to_string(tp)
                + ",1,2," + std::to_string(mbs) + ",64,2048,32,4096,32,32000,none,,,"
                + std::to_string(1000 + 100 * mbs + 200 * tp) + ",,\n";
        }
    auto m = rows(body);
    QCOMPARE(m.front().runId, std::string("r0"));
    m.front().precision = Precision::Fp8;
    // r7 comes from a file of interpolated rows: no measurement to score,
    // and no telling which held-out run it was drawn from.
    QCOMPARE(m.back().runId, std::string("r7"));
    m.back().source = MeasurementSource::Interpolated;
    AccuracyProtocol::Options opt;
    opt.trainer.tune = false;
    opt.calibrate = false;
    const ProtocolResult r = AccuracyProtocol::run(m, "t.csv", opt);
    QCOMPARE(r.runs, std::size_t(6));
    QCOMPARE(int(r.skipped.size()), 2);
    QVERIFY2(r.skipped[0].find("run r0: ") == 0, r.skipped[0].c_str());
    QVERIFY2(r.skipped[0].find("fp8 is not available on A100-80GB") != std::string::npos, r.skipped[0].c_str());
    QVERIFY2(r.skipped[1].find("run r7: interpolated") == 0, r.skipped[1].c_str());
    for (const char* out : {"r0", "r7"})
        QVERIFY(std::find(r.trainRuns.begin(), r.trainRuns.end(), out) == r.trainRuns.end());
    QCOMPARE(r.analytic.runs + r.trainRuns.size(), std::size_t(6));
    // With one usable run left the protocol cannot run, and says why.
    std::vector<Measurement> two = {m.front(), m[1], m.back()};
    try {
        AccuracyProtocol::run(two, "t.csv", opt);
        QFAIL("expected an InputError");
    } catch (const InputError& e) {
        const std::string what = e.what();
        QVERIFY2(what.find("at least two complete runs a model can predict, found 1") != std::string::npos, e.what());
        QVERIFY2(what.find("skipped: run r0: ") != std::string::npos, e.what());
        QVERIFY2(what.find("run r7: interpolated") != std::string::npos, e.what());
    }
}

namespace {

const std::string kB200 = memx::test::dataFile("measurements/simumax_b200.csv");

TrainingSet b200Set() { return TrainingSet::build(MeasurementCsv::read(kB200).rows, kB200, GpuCatalog::builtin()); }

// A small learned predictor on real B200 measurements (SimuMax).
LearnedPredictor trainB200Model(const TrainingSet& set)
{
    PredictorTrainer::Options opt;
    opt.tune = false;
    opt.params.rounds = 30;
    TrainReport report;
    return PredictorTrainer::train(set, opt, report);
}

// The same, saved to `dir` and loaded back.
PredictorFile::Loaded trainB200(const QTemporaryDir& dir)
{
    const TrainingSet set = b200Set();
    PredictorMetadata meta = set.metadata();
    meta.dataHash = PredictorMetadata::hashText("x");
    const std::string out = dir.filePath("model.json").toStdString();
    PredictorFile::save(out, trainB200Model(set), meta);
    return PredictorFile::load(out);
}

}  // namespace

void TestLearnedLoop::predictorFileRoundTrip()
{
    QTemporaryDir dir;
    const TrainingSet set = b200Set();
    const LearnedPredictor model = trainB200Model(set);
    const std::string out = dir.filePath("model.json").toStdString();
    PredictorFile::save(out, model, set.metadata());
    const PredictorFile::Loaded loaded = PredictorFile::load(out);
    // Same answers, bit for bit, on every training query.
    std::vector<StageQuery> q;
    for (const TrainingRow& r : set.rows)
        q.push_back(r.query);
    std::vector<StagePrediction> a(q.size()), b(q.size());
    model.predict(q, a);
    loaded.predictor->predict(q, b);
    for (std::size_t i = 0; i < q.size(); ++i) {
        QCOMPARE(a[i].timeMs, b[i].timeMs);
        QCOMPARE(a[i].memoryMiB(), b[i].memoryMiB());
        QCOMPARE(a[i].uncertainty, b[i].uncertainty);
    }
    QCOMPARE(loaded.metadata.gpuTypes, std::vector<std::string>{"B200"});
    QCOMPARE(loaded.metadata.runs, set.runs.size());
}

void TestLearnedLoop::predictorFileRefusesMismatch()
{
    QTemporaryDir dir;
    const PredictorFile::Loaded loaded = trainB200(dir);
    const Cluster a100 = Cluster::fromFile(memx::test::sampleCluster("homogeneous-8xa100.json"));
    std::vector<std::string> problems, warnings;
    PredictorFile::checkFits(loaded.metadata, Problem{a100, ModelSpec::resolve("llama2-7b"), TrainingSetup{}}, problems,
                             warnings);
    QCOMPARE(problems.size(), std::size_t(2));
    QVERIFY(QString::fromStdString(problems[0]).contains("no measurement of A100-80GB (trained on B200)"));
    QVERIFY(QString::fromStdString(problems[1]).contains("hidden 4096, heads 32"));
    QVERIFY(QString::fromStdString(problems[1]).contains("hidden 8192, heads 64"));
}

void TestLearnedLoop::predictorFileErrors_data()
{
    QTest::addColumn<QString>("edit");  // JSON member to damage
    QTest::addColumn<QString>("field");
    QTest::newRow("format") << "format"
                            << "format";
    QTest::newRow("schema") << "feature_schema"
                            << "feature_schema";
    QTest::newRow("booster") << "booster"
                             << "booster";
    QTest::newRow("ranges") << "feature_min"
                            << "feature_min";
    QTest::newRow("offset") << "label_offset"
                            << "label_offset";
}

void TestLearnedLoop::predictorFileErrors()
{
    QFETCH(QString, edit);
    QFETCH(QString, field);
    QTemporaryDir dir;
    trainB200(dir);
    const std::string file = dir.filePath("model.json").toStdString();
    nlohmann::json doc;
    std::ifstream(file) >> doc;
    if (edit == "format" || edit == "feature_schema")
        doc[edit.toStdString()] = "something-else/9";
    else if (edit == "booster")
        doc["booster"] = {{"learner", "garbage"}};
    else if (edit == "feature_min")
        doc["feature_min"] = nlohmann::json::array({1, 2});
    else
        doc.erase(edit.toStdString());
    try {
        PredictorFile::fromJson(doc, file);
        QFAIL("expected InputError");
    } catch (const InputError& e) {
        QCOMPARE(QString::fromStdString(e.file()), QString::fromStdString(file));
        QVERIFY2(QString::fromStdString(e.field()).contains(field), e.what());
    }
}

MEMX_TEST_GUILESS_MAIN(TestLearnedLoop)
}  // namespace tst_learned_loop

#include "tst_learned_loop.moc"
