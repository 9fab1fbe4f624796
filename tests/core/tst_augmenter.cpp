// Interpolation augmentation (MemX 3.2.2, Table 2): sweeps are found in
// hand-built rows, classified, and interpolated where the trend allows. Every
// expected number is worked out by hand from the sweep in the test.
#include "learn/Augmenter.h"
#include "measure/MeasurementCsv.h"

#include <map>
#include "TestMain.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace tst_augmenter {

using namespace memx;
using Axis = Augmenter::Axis;
using Metric = Augmenter::Metric;
using Trend = TrendClassifier::Trend;

namespace {

// A valid run row: LLaMA2-7B-like, one GPU. gbs 720720 = lcm(1..16), so every
// mbs up to 16 divides it.
Measurement runRow(const std::string& gpu, const std::string& id)
{
    Measurement m;
    m.runId = id;
    m.gpuType = gpu;
    m.numGpus = 1;
    m.mbs = 1;
    m.gbs = 720720;
    m.seqLen = 4096;
    m.numLayers = 32;
    m.hidden = 4096;
    m.ffnHidden = 11008;
    m.heads = 32;
    m.queryGroups = 32;
    m.vocab = 32000;
    return m;
}

// Stage `stage` of a pp-stage run, tp 1, dp 1: pp GPUs, 32 / pp layers.
Measurement stageRow(const std::string& gpu, const std::string& id, int stage, int pp)
{
    Measurement m = runRow(gpu, id);
    m.pp = pp;
    m.numGpus = pp;
    m.stage = stage;
    m.stageLayers = 32 / pp;
    return m;
}

// The column a test reads, named at each call (not Augmenter::axisValue's
// mapping, which would only agree with itself).
using Column = std::function<int(const Measurement&)>;
const Column kMbs = [](const Measurement& m) { return m.mbs; };
const Column kSeqLen = [](const Measurement& m) { return m.seqLen; };
const Column kTp = [](const Measurement& m) { return m.tp; };
const Column kStageLayers = [](const Measurement& m) { return m.stageLayers.value_or(0); };

using Fn = std::function<double(int)>;

// One row per x, copied from `base` with the axis set, run_id = prefix + x,
// time (iteration time on run rows, stage time on stage rows) and memory.
std::vector<Measurement> sweep(const Measurement& base, const std::string& prefix, Axis a, const std::vector<int>& xs,
                               const Fn& time, const Fn& mem)
{
    std::vector<Measurement> out;
    for (int x : xs) {
        Measurement m = base;
        m.runId = prefix + std::to_string(x);
        Augmenter::setAxis(a, m, x);
        if (a == Axis::Tp && !m.isStageRow())
            m.numGpus = m.tp * m.pp * m.dp;
        if (m.isStageRow())
            m.stageTimeMs = time(x);
        else
            m.iterationTimeMs = time(x);
        m.peakMemMiB = mem(x);
        out.push_back(m);
    }
    return out;
}

const Measurement* findRow(const std::vector<Measurement>& rows, const Column& column, int x, int stage = -1)
{
    for (const Measurement& m : rows)
        if (column(m) == x && m.stage.value_or(-1) == stage)
            return &m;
    return nullptr;
}

std::vector<int> axisValues(const std::vector<Measurement>& rows, const Column& column)
{
    std::vector<int> out;
    for (const Measurement& m : rows)
        out.push_back(column(m));
    return out;
}

const Augmenter::Sweep* findSweep(const Augmenter::Result& r, Axis a)
{
    for (const Augmenter::Sweep& s : r.sweeps)
        if (s.axis == a)
            return &s;
    return nullptr;
}

const TrendClassifier::Fit* findFit(const Augmenter::Sweep& s, Metric t)
{
    for (const Augmenter::MetricFit& f : s.fits)
        if (f.metric == t)
            return &f.fit;
    return nullptr;
}

bool close(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); }

// The scenarios, one GPU name each so that they never share a sweep.
// time = 100 + 50 mbs, memory = 1000 + 300 mbs, mbs = 1, 4, 7, 10, 13.
std::vector<Measurement> linearMbs(const std::string& gpu = "GPU-lin")
{
    return sweep(
        runRow(gpu, ""), "lin", Axis::Mbs, {1, 4, 7, 10, 13}, [](int x) { return 100.0 + 50 * x; },
        [](int x) { return 1000.0 + 300 * x; });
}

// time = 100 (seq / 512)^2, memory = 2000 + seq, seq = 512 .. 8192 doubling.
std::vector<Measurement> quadraticSeq()
{
    return sweep(
        runRow("GPU-sq", ""), "sq", Axis::SeqLen, {512, 1024, 2048, 4096, 8192},
        [](int x) { return 100.0 * (x / 512.0) * (x / 512.0); }, [](int x) { return 2000.0 + x; });
}

// query_groups 1, 2, 8, 16, 32 (heads 32): time 1000, 1004, 1001, 1003, 1002
// (spread 4 / 1002 = 0.4%), memory 50000, 50100, 50020, 50080, 50050 (0.2%).
std::vector<Measurement> constantQg()
{
    const std::vector<int> xs = {1, 2, 8, 16, 32};
    const std::vector<double> t = {1000, 1004, 1001, 1003, 1002}, m = {50000, 50100, 50020, 50080, 50050};
    auto at = [&xs](const std::vector<double>& v) {
        return [&xs, v](int x) { return v[std::find(xs.begin(), xs.end(), x) - xs.begin()]; };
    };
    return sweep(runRow("GPU-qg", ""), "qg", Axis::QueryGroups, xs, at(t), at(m));
}

// Zig-zag time 100, 300, 120, 310, 130 over mbs 1, 4, 7, 10, 13: sxx = 90,
// sxy = 210, syy = 43080 -> R^2 = 0.011; log-log slope about 0.19 < 1 -> nonlinear.
// Memory 1000 + 300 mbs stays strong linear.
std::vector<Measurement> zigZag()
{
    return sweep(
        runRow("GPU-zz", ""), "zz", Axis::Mbs, {1, 4, 7, 10, 13},
        [](int x) {
            return x == 1 ? 100.0 : x == 4 ? 300.0 : x == 7 ? 120.0 : x == 10 ? 310.0 : 130.0;
        },
        [](int x) { return 1000.0 + 300 * x; });
}

}  // namespace

class TestAugmenter : public QObject {
    Q_OBJECT
private slots:
    void axisReadsAndWritesItsColumn_data();
    void axisReadsAndWritesItsColumn();
    void linearMbsValues_data();
    void linearMbsValues();
    void linearMbsCopiesTheLowerNeighbour();
    void rowsNameTheRunsTheyCameFrom();
    void mbsSweepAtFixedMicroBatches();
    void superlinearSeqLen_data();
    void superlinearSeqLen();
    void constantQueryGroups();
    void nonlinearGeneratesNothing();
    void minPoints_data();
    void minPoints();
    void runAndStageRowsNeverMix_data();
    void runAndStageRowsNeverMix();
    void mbsKeepsGbsDivisible_data();
    void mbsKeepsGbsDivisible();
    void tpOnlyAtPowersOfTwo_data();
    void tpOnlyAtPowersOfTwo();
    void stageLayersKeepNumLayers();
    void stagesOfOneRunShareTheRunId();
    void repeatsAreAveraged();
    void interpolatedInputIsIgnored();
    void maxRatio_data();
    void maxRatio();
    void everythingRoundTrips();
    void tableText();
    void badOptions();
    void clustersNeverShareASweep();
};

void TestAugmenter::linearMbsValues_data()
{
    QTest::addColumn<int>("mbs");
    QTest::addColumn<double>("time");
    QTest::addColumn<double>("mem");
    QTest::addColumn<QString>("runId");
    // Gaps of 3 with 2 points per gap land on integers: 1 + 3k/3. time = 100 + 50 mbs, memory = 1000 + 300 mbs.
    QTest::newRow("2") << 2 << 200.0 << 1600.0 << "lin1~mbs=2";
    QTest::newRow("3") << 3 << 250.0 << 1900.0 << "lin1~mbs=3";
    QTest::newRow("5") << 5 << 350.0 << 2500.0 << "lin4~mbs=5";
    QTest::newRow("6") << 6 << 400.0 << 2800.0 << "lin4~mbs=6";
    QTest::newRow("8") << 8 << 500.0 << 3400.0 << "lin7~mbs=8";
    QTest::newRow("9") << 9 << 550.0 << 3700.0 << "lin7~mbs=9";
    QTest::newRow("11") << 11 << 650.0 << 4300.0 << "lin10~mbs=11";
    QTest::newRow("12") << 12 << 700.0 << 4600.0 << "lin10~mbs=12";
}

void TestAugmenter::linearMbsValues()
{
    QFETCH(int, mbs);
    QFETCH(double, time);
    QFETCH(double, mem);
    QFETCH(QString, runId);
    const auto r = Augmenter::augment(linearMbs());
    QCOMPARE(r.rows.size(), std::size_t(8));
    const Measurement* m = findRow(r.rows, kMbs, mbs);
    QVERIFY(m);
    QVERIFY(m->iterationTimeMs && m->peakMemMiB && !m->stageTimeMs);
    QCOMPARE(*m->iterationTimeMs, time);
    QCOMPARE(*m->peakMemMiB, mem);
    QCOMPARE(QString::fromStdString(m->runId), runId);
    QCOMPARE(m->source, MeasurementSource::Interpolated);
}

void TestAugmenter::linearMbsCopiesTheLowerNeighbour()
{
    // Run-level fields away from their defaults, so a row that forgot one shows.
    auto in = linearMbs();
    for (Measurement& m : in) {
        m.precision = Precision::Fp32;
        m.peakMemKind = MemoryKind::Device;
        m.mlp = MlpKind::Gelu;
        m.tiedEmbeddings = true;
    }
    const auto r = Augmenter::augment(in);
    QCOMPARE(r.inputRows, 5);
    QCOMPARE(r.sweeps.size(), std::size_t(1));
    const Augmenter::Sweep& s = r.sweeps[0];
    QCOMPARE(s.axis, Axis::Mbs);
    QCOMPARE(s.xs, (std::vector<double>{1, 4, 7, 10, 13}));
    QCOMPARE(s.trend, Trend::StrongLinear);
    QCOMPARE(s.fits.size(), std::size_t(2));
    QCOMPARE(s.generated, 8);
    // Everything but the run id, source, mbs and targets is the neighbour's.
    for (const Measurement& m : r.rows) {
        Measurement expect = in[0];
        expect.runId = m.runId;
        expect.source = MeasurementSource::Interpolated;
        expect.mbs = m.mbs;
        expect.iterationTimeMs = m.iterationTimeMs;
        expect.peakMemMiB = m.peakMemMiB;
        QCOMPARE(m, expect);
    }
}

// Each generated row names the runs it was interpolated between (both
// neighbours, every repeat at a neighbour), which cross-validation needs to
// keep it out of the folds that score them; files do not carry it.
void TestAugmenter::rowsNameTheRunsTheyCameFrom()
{
    auto in = sweep(
        runRow("A100-80GB", ""), "m", Axis::Mbs, {1, 4, 7, 10, 13}, [](int x) { return 1000.0 + 100 * x; },
        [](int x) { return 20000.0 + 500 * x; });
    Measurement repeat = in[1];  // mbs 4 measured twice
    repeat.runId = "m4b";
    in.push_back(repeat);
    const auto r = Augmenter::augment(in);
    using Ids = std::vector<std::string>;
    QCOMPARE(findRow(r.rows, kMbs, 2)->derivedFrom.runIds, (Ids{"m1", "m4", "m4b"}));
    QCOMPARE(findRow(r.rows, kMbs, 5)->derivedFrom.runIds, (Ids{"m4", "m4b", "m7"}));
    QCOMPARE(findRow(r.rows, kMbs, 11)->derivedFrom.runIds, (Ids{"m10", "m13"}));
    for (const Measurement& m : in)
        QVERIFY(m.derivedFrom.runIds.empty());
}

// A per-layer profiler's sweep: one micro-batch of each size (gbs = mbs,
// dp 1), time 2 + 8 mbs ms, memory 3000 + 500 mbs MiB at mbs 1, 2, 4, 8, 16.
// With gbs moving, no fixed-gbs sweep exists; the fixed-G axis finds one and
// every interpolated row keeps gbs = mbs.
void TestAugmenter::mbsSweepAtFixedMicroBatches()
{
    std::vector<Measurement> in;
    for (int mbs : {1, 2, 4, 8, 16}) {
        Measurement m = runRow("GPU-layer", "layer" + std::to_string(mbs));
        m.mbs = mbs;
        m.gbs = mbs;
        m.iterationTimeMs = 2.0 + 8 * mbs;
        m.peakMemMiB = 3000.0 + 500 * mbs;
        in.push_back(m);
    }
    const auto r = Augmenter::augment(in);
    QCOMPARE(r.sweeps.size(), std::size_t(1));
    QCOMPARE(r.sweeps[0].axis, Axis::MbsPerMicroBatches);
    QCOMPARE(r.sweeps[0].xs, (std::vector<double>{1, 2, 4, 8, 16}));
    QCOMPARE(r.sweeps[0].trend, Trend::StrongLinear);
    QVERIFY(!r.rows.empty());
    for (const Measurement& m : r.rows) {
        QCOMPARE(m.gbs, m.mbs);  // G = 1 kept
        QVERIFY(close(*m.iterationTimeMs, 2.0 + 8 * m.mbs));
        QVERIFY(close(*m.peakMemMiB, 3000.0 + 500 * m.mbs));
    }
    // mbs 3 lies halfway between 2 (18 ms) and 4 (34 ms): 26 ms.
    const Measurement* three = findRow(r.rows, kMbs, 3);
    QVERIFY(three);
    QVERIFY(close(*three->iterationTimeMs, 26.0));
}

void TestAugmenter::superlinearSeqLen_data()
{
    QTest::addColumn<int>("seq");
    QTest::addColumn<double>("time");
    QTest::addColumn<double>("mem");
    // Geometric midpoints sqrt(x0 x1) = x0 sqrt 2 rounded: 724.08, 1448.15, 2896.31, 5792.62.
    // Time is the power law through the neighbours, exactly 100 (x / 512)^2:
    // 100 * 724^2 / 512^2 = 52417600 / 262144 = 199.957275390625, etc. Memory is linear: 2000 + x.
    QTest::newRow("724") << 724 << 199.957275390625 << 2724.0;
    QTest::newRow("1448") << 1448 << 799.8291015625 << 3448.0;
    QTest::newRow("2896") << 2896 << 3199.31640625 << 4896.0;
    QTest::newRow("5793") << 5793 << 12801.684951782227 << 7793.0;
}

void TestAugmenter::superlinearSeqLen()
{
    QFETCH(int, seq);
    QFETCH(double, time);
    QFETCH(double, mem);
    const auto r = Augmenter::augment(quadraticSeq());
    const Augmenter::Sweep* s = findSweep(r, Axis::SeqLen);
    QVERIFY(s);
    QCOMPARE(s->trend, Trend::Superlinear);
    // y = x^2 at x = 1, 2, 4, 8, 16 (R^2 is scale-free): sxx = 148.8, sxy = 2566.8, syy = 46648.8,
    // R^2 = 2566.8^2 / (148.8 * 46648.8) = 0.94916 < 0.95; log-log slope 2 > 1.
    const TrendClassifier::Fit* t = findFit(*s, Metric::IterationTimeMs);
    QVERIFY(t);
    QCOMPARE(t->trend, Trend::Superlinear);
    QVERIFY(std::abs(t->r2 - 0.9491627) < 1e-6);
    QCOMPARE(findFit(*s, Metric::PeakMemMiB)->trend, Trend::StrongLinear);
    // Only the 4 midpoints, one per gap.
    QCOMPARE(axisValues(r.rows, kSeqLen), (std::vector<int>{724, 1448, 2896, 5793}));
    const Measurement* m = findRow(r.rows, kSeqLen, seq);
    QVERIFY(m);
    QVERIFY(close(*m->iterationTimeMs, time));
    QVERIFY(close(*m->peakMemMiB, mem));
}

void TestAugmenter::constantQueryGroups()
{
    const auto r = Augmenter::augment(constantQg());
    const Augmenter::Sweep* s = findSweep(r, Axis::QueryGroups);
    QVERIFY(s);
    QCOMPARE(s->trend, Trend::Constant);
    QCOMPARE(findFit(*s, Metric::IterationTimeMs)->trend, Trend::Constant);
    QCOMPARE(findFit(*s, Metric::PeakMemMiB)->trend, Trend::Constant);
    QCOMPARE(r.rows.size(), std::size_t(0));  // fixed at the default: no rows

    // Interpolated like a strong linear sweep on request: thirds of the gaps
    // 1-2 (none), 2-8 (4, 6), 8-16 (10.7, 13.3), 16-32 (21.3, 26.7); only 4 is
    // a power of two dividing heads 32. Linear between (2, 1004) and (8, 1001):
    // 1004 - 3 * 2/6 = 1003; memory 50100 - 80 * 2/6 = 50073.333...
    AugmentOptions o;
    o.interpolateConstant = true;
    const auto c = Augmenter::augment(constantQg(), o);
    QCOMPARE(c.rows.size(), std::size_t(1));
    QCOMPARE(c.rows[0].queryGroups, 4);
    QVERIFY(close(*c.rows[0].iterationTimeMs, 1003.0));
    QVERIFY(close(*c.rows[0].peakMemMiB, 50100.0 - 80.0 / 3.0));
}

void TestAugmenter::nonlinearGeneratesNothing()
{
    const auto r = Augmenter::augment(zigZag());
    const Augmenter::Sweep* s = findSweep(r, Axis::Mbs);
    QVERIFY(s);
    QCOMPARE(findFit(*s, Metric::IterationTimeMs)->trend, Trend::Nonlinear);
    QCOMPARE(findFit(*s, Metric::PeakMemMiB)->trend, Trend::StrongLinear);
    QCOMPARE(s->trend, Trend::Nonlinear);  // the most restrictive metric decides
    QCOMPARE(r.rows.size(), std::size_t(0));
}

void TestAugmenter::minPoints_data()
{
    QTest::addColumn<int>("points");
    QTest::addColumn<int>("minPoints");
    QTest::addColumn<int>("expected");
    // mbs 1, 4, 7, ... (first `points` of them): 2 rows per gap.
    QTest::newRow("4 points, need 5") << 4 << 5 << 0;
    QTest::newRow("4 points, need 4") << 4 << 4 << 6;
    QTest::newRow("5 points, need 5") << 5 << 5 << 8;
    QTest::newRow("3 points, need 3") << 3 << 3 << 4;
    QTest::newRow("3 points, need 5") << 3 << 5 << 0;
}

void TestAugmenter::minPoints()
{
    QFETCH(int, points);
    QFETCH(int, minPoints);
    QFETCH(int, expected);
    auto rows = linearMbs();
    rows.resize(points);
    AugmentOptions o;
    o.minPoints = minPoints;
    const auto r = Augmenter::augment(rows, o);
    QCOMPARE(static_cast<int>(r.rows.size()), expected);
    QCOMPARE(r.sweeps.size(), std::size_t(points >= minPoints ? 1 : 0));
}

void TestAugmenter::runAndStageRowsNeverMix_data()
{
    QTest::addColumn<QString>("layout");
    QTest::addColumn<int>("expected");
    // One token per mbs 1, 4, 7, 10, 13: R = run row, S<k>p<pp> = stage k of pp.
    QTest::newRow("all run rows") << "R R R R R" << 8;
    QTest::newRow("all stage 0 of 2") << "S0p2 S0p2 S0p2 S0p2 S0p2" << 8;
    QTest::newRow("3 run + 2 stage rows") << "R R R S0p2 S0p2" << 0;
    QTest::newRow("stage 0 and stage 1") << "S0p2 S0p2 S1p2 S1p2 S1p2" << 0;
    QTest::newRow("same stage, other pp") << "S0p2 S0p2 S0p2 S0p4 S0p4" << 0;
}

void TestAugmenter::runAndStageRowsNeverMix()
{
    QFETCH(QString, layout);
    QFETCH(int, expected);
    const std::vector<int> xs = {1, 4, 7, 10, 13};
    const QStringList tokens = layout.split(' ');
    std::vector<Measurement> rows;
    for (int i = 0; i < 5; ++i) {
        const QString t = tokens[i];
        Measurement base = t == "R" ? runRow("GPU", "") : stageRow("GPU", "", t.mid(1, 1).toInt(), t.mid(3).toInt());
        auto one = sweep(
            base, "m", Axis::Mbs, {xs[i]}, [](int x) { return 100.0 + 50 * x; },
            [](int x) { return 1000.0 + 300 * x; });
        rows.push_back(one[0]);
    }
    const auto r = Augmenter::augment(rows);
    QCOMPARE(static_cast<int>(r.rows.size()), expected);
    for (const Measurement& m : r.rows)
        QCOMPARE(m.isStageRow(), rows[0].isStageRow());
}

void TestAugmenter::mbsKeepsGbsDivisible_data()
{
    QTest::addColumn<int>("dp");
    QTest::addColumn<int>("gbs");
    QTest::addColumn<std::vector<int>>("mbs");
    QTest::addColumn<std::vector<int>>("expected");
    // gbs 720720 = lcm(1..16): every third of the gaps is kept.
    QTest::newRow("all divide") << 1 << 720720 << std::vector<int>{1, 4, 7, 10, 13}
                                << std::vector<int>{2, 3, 5, 6, 8, 9, 11, 12};
    // mbs * 2 must divide 48, i.e. mbs divides 24: gaps 1-4 -> 2, 3 (both divide); 4-8 -> 5.3, 6.7 -> 5, 7
    // (neither); 8-12 -> 9.3, 10.7 -> 9, 11 (neither); 12-24 -> 16, 20 (neither).
    QTest::newRow("dp 2, gbs 48") << 2 << 48 << std::vector<int>{1, 4, 8, 12, 24} << std::vector<int>{2, 3};
    // mbs divides 60: 1-3 -> 1.7, 2.3 -> 2 (once); 3-6 -> 4, 5 (both); 6-12 -> 8 (no), 10 (yes);
    // 12-30 -> 18 (no), 24 (no).
    QTest::newRow("dp 1, gbs 60") << 1 << 60 << std::vector<int>{1, 3, 6, 12, 30} << std::vector<int>{2, 4, 5, 10};
}

void TestAugmenter::mbsKeepsGbsDivisible()
{
    QFETCH(int, dp);
    QFETCH(int, gbs);
    QFETCH(std::vector<int>, mbs);
    QFETCH(std::vector<int>, expected);
    Measurement base = runRow("GPU", "");
    base.dp = dp;
    base.numGpus = dp;
    base.gbs = gbs;
    const auto in = sweep(
        base, "m", Axis::Mbs, mbs, [](int x) { return 100.0 + 50 * x; }, [](int x) { return 1000.0 + 300 * x; });
    const auto r = Augmenter::augment(in);
    QCOMPARE(axisValues(r.rows, kMbs), expected);
    for (const Measurement& m : r.rows)
        QCOMPARE(m.gbs % (m.mbs * m.dp), 0);
}

void TestAugmenter::tpOnlyAtPowersOfTwo_data()
{
    QTest::addColumn<bool>("stageRows");
    QTest::addColumn<int>("numGpus");
    // tp 1, 2, 8, 16, 32 (heads = query_groups = 32), time 2000 - 50 tp: thirds of the gaps give
    // 4 and 6 between 2 and 8, 10.7/13.3 and 21.3/26.7 elsewhere; only 4 is a power of two.
    // Time at 4 = 1900 - 300 * 2/6 = 1800.
    // Run row, pp 2, dp 1: num_gpus = tp * pp * dp = 8.
    QTest::newRow("run rows") << false << 8;
    // Stage 0 of 2 (stage 1 has tp 1): num_gpus = tp + 1; the tp-2 neighbour has 3, tp 4 gives 5.
    QTest::newRow("stage rows") << true << 5;
}

void TestAugmenter::tpOnlyAtPowersOfTwo()
{
    QFETCH(bool, stageRows);
    QFETCH(int, numGpus);
    Measurement base = stageRows ? stageRow("GPU", "", 0, 2) : runRow("GPU", "");
    base.pp = 2;
    auto in = sweep(
        base, "tp", Axis::Tp, {1, 2, 8, 16, 32}, [](int x) { return 2000.0 - 50 * x; },
        [](int x) { return 60000.0 - 1000 * x; });
    if (stageRows)
        for (Measurement& m : in)
            m.numGpus = m.tp + 1;
    const auto r = Augmenter::augment(in);
    QCOMPARE(axisValues(r.rows, kTp), std::vector<int>{4});
    const Measurement& m = r.rows[0];
    QCOMPARE(m.numGpus, numGpus);
    QVERIFY(close(stageRows ? *m.stageTimeMs : *m.iterationTimeMs, 1800.0));
    QVERIFY(close(*m.peakMemMiB, 56000.0));  // 58000 - 6000 * 2/6
    QCOMPARE(QString::fromStdString(m.runId), stageRows ? QString("tp2~tp=4~stage=0") : QString("tp2~tp=4"));
    QVERIFY(MeasurementCsv::parse(MeasurementCsv::write(r.rows), "aug.csv").rows == r.rows);
}

// Each axis is one column of the measurement, written and read back; the
// micro-batch axis at a fixed number of micro-batches also moves gbs so that
// G = gbs / (mbs x dp) stays (by hand: mbs 2, dp 4, gbs 64 gives G = 8; mbs 3
// then needs gbs 8 x 3 x 4 = 96; blanking leaves -G = -8).
void TestAugmenter::axisReadsAndWritesItsColumn_data()
{
    QTest::addColumn<int>("axis");
    QTest::addColumn<int>("value");
    QTest::addColumn<QString>("column");
    QTest::addColumn<int>("gbs");
    QTest::newRow("mbs") << int(Axis::Mbs) << 3 << "mbs" << 64;
    QTest::newRow("seq_len") << int(Axis::SeqLen) << 8192 << "seq_len" << 64;
    QTest::newRow("stage_layers") << int(Axis::StageLayers) << 7 << "stage_layers" << 64;
    QTest::newRow("num_layers") << int(Axis::NumLayers) << 40 << "num_layers" << 64;
    QTest::newRow("tp") << int(Axis::Tp) << 8 << "tp" << 64;
    QTest::newRow("query_groups") << int(Axis::QueryGroups) << 8 << "query_groups" << 64;
    QTest::newRow("mbs at fixed G") << int(Axis::MbsPerMicroBatches) << 3 << "mbs" << 96;
    QTest::newRow("mbs at fixed G, blanked") << int(Axis::MbsPerMicroBatches) << 0 << "mbs" << -8;
}

void TestAugmenter::axisReadsAndWritesItsColumn()
{
    QFETCH(int, axis);
    QFETCH(int, value);
    QFETCH(QString, column);
    QFETCH(int, gbs);
    Measurement m = stageRow("A100-80GB", "r", 0, 2);
    m.mbs = 2;
    m.dp = 4;
    m.gbs = 64;
    Augmenter::setAxis(static_cast<Axis>(axis), m, value);
    const std::map<QString, int> columns{{"mbs", m.mbs},
                                         {"seq_len", m.seqLen},
                                         {"stage_layers", m.stageLayers.value_or(0)},
                                         {"num_layers", m.numLayers},
                                         {"tp", m.tp},
                                         {"query_groups", m.queryGroups}};
    const std::map<QString, int> before{{"mbs", 2},         {"seq_len", 4096}, {"stage_layers", 16},
                                        {"num_layers", 32}, {"tp", 1},         {"query_groups", 32}};
    for (const auto& [name, v] : columns)
        QCOMPARE(v, name == column ? value : before.at(name));
    QCOMPARE(m.gbs, gbs);
    QCOMPARE(Augmenter::axisValue(static_cast<Axis>(axis), m), value);
}

void TestAugmenter::stageLayersKeepNumLayers()
{
    // Stage 0 of 2, stage_layers 4, 10, 16, 22, 28 of 32; stage time 10 L + 5, memory 1000 + 500 L.
    const auto in = sweep(
        stageRow("GPU", "", 0, 2), "s", Axis::StageLayers, {4, 10, 16, 22, 28}, [](int x) { return 10.0 * x + 5; },
        [](int x) { return 1000.0 + 500 * x; });
    const auto r = Augmenter::augment(in);
    QCOMPARE(axisValues(r.rows, kStageLayers), (std::vector<int>{6, 8, 12, 14, 18, 20, 24, 26}));
    for (const Measurement& m : r.rows) {
        QCOMPARE(m.numLayers, 32);
        QCOMPARE(*m.stage, 0);
        QCOMPARE(*m.stageTimeMs, 10.0 * *m.stageLayers + 5);
        QCOMPARE(*m.peakMemMiB, 1000.0 + 500 * *m.stageLayers);
    }
    QCOMPARE(QString::fromStdString(r.rows[0].runId), QString("s4~stage_layers=6~stage=0"));
    // No num_layers sweep is made of stage rows.
    QVERIFY(!findSweep(r, Axis::NumLayers));
}

void TestAugmenter::stagesOfOneRunShareTheRunId()
{
    // Five runs (mbs 1, 4, 7, 10, 13), each with a run row and the rows of its 2 stages:
    // three sweeps of 8 rows; the rows at one mbs form one interpolated run.
    std::vector<Measurement> in;
    for (int x : {1, 4, 7, 10, 13}) {
        Measurement run = runRow("GPU", "");
        run.pp = 2;
        run.numGpus = 2;
        in.push_back(sweep(
            run, "m", Axis::Mbs, {x}, [](int v) { return 100.0 + 50 * v; }, [](int v) { return 1000.0 + 300 * v; })[0]);
        for (int s : {0, 1})
            in.push_back(sweep(
                stageRow("GPU", "", s, 2), "m", Axis::Mbs, {x}, [s](int v) { return 40.0 + s + 20 * v; },
                [](int v) { return 900.0 + 300 * v; })[0]);
    }
    QVERIFY(MeasurementCsv::parse(MeasurementCsv::write(in), "in.csv").rows == in);
    const auto r = Augmenter::augment(in);
    QCOMPARE(r.rows.size(), std::size_t(24));
    QCOMPARE(r.sweeps.size(), std::size_t(3));
    std::set<std::string> ids;
    for (const Measurement& m : r.rows)
        ids.insert(m.runId);
    QCOMPARE(ids.size(), std::size_t(8));
    QVERIFY(ids.count("m1~mbs=2"));
    // Stage 1 at mbs 2: 40 + 1 + 20 * 2 = 81.
    QCOMPARE(*findRow(r.rows, kMbs, 2, 1)->stageTimeMs, 81.0);
    auto all = in;
    all.insert(all.end(), r.rows.begin(), r.rows.end());
    QVERIFY(MeasurementCsv::parse(MeasurementCsv::write(all), "all.csv").rows == all);
}

void TestAugmenter::repeatsAreAveraged()
{
    // mbs 4 measured twice (290 and 310 ms): the sweep has 5 distinct x, 6 rows,
    // and uses the mean 300 = 100 + 50 * 4. At mbs 5: 300 + 150/3 = 350.
    auto in = linearMbs();
    Measurement a = in[1], b = in[1];
    a.iterationTimeMs = 290;
    b.iterationTimeMs = 310;
    b.runId = "lin4b";
    in[1] = a;
    in.push_back(b);
    const auto r = Augmenter::augment(in);
    QCOMPARE(r.sweeps.size(), std::size_t(1));
    QCOMPARE(r.sweeps[0].rows, 6);
    QCOMPARE(r.sweeps[0].xs.size(), std::size_t(5));
    QCOMPARE(*findRow(r.rows, kMbs, 5)->iterationTimeMs, 350.0);
    QCOMPARE(*findRow(r.rows, kMbs, 3)->iterationTimeMs, 250.0);
}

void TestAugmenter::interpolatedInputIsIgnored()
{
    // Five points, one of them interpolated: 4 measured points < 5.
    auto in = linearMbs();
    in[2].source = MeasurementSource::Interpolated;
    auto r = Augmenter::augment(in);
    QCOMPARE(r.inputRows, 4);
    QCOMPARE(r.rows.size(), std::size_t(0));
    // Simulated rows count like measured ones.
    for (Measurement& m : in)
        m.source = MeasurementSource::Simulated;
    r = Augmenter::augment(in);
    QCOMPARE(r.inputRows, 5);
    QCOMPARE(r.rows.size(), std::size_t(8));
}

void TestAugmenter::maxRatio_data()
{
    QTest::addColumn<double>("ratio");
    QTest::addColumn<int>("expected");
    QTest::addColumn<int>("capped");
    // 5 measured rows, 8 candidates.
    QTest::newRow("default 10x") << 10.0 << 8 << 0;
    QTest::newRow("1x") << 1.0 << 5 << 3;
    QTest::newRow("1.5x -> 7") << 1.5 << 7 << 1;
    QTest::newRow("0x") << 0.0 << 0 << 8;
    QTest::newRow("no cap") << std::numeric_limits<double>::infinity() << 8 << 0;
}

void TestAugmenter::maxRatio()
{
    QFETCH(double, ratio);
    QFETCH(int, expected);
    QFETCH(int, capped);
    AugmentOptions o;
    o.maxRatio = ratio;
    const auto r = Augmenter::augment(linearMbs(), o);
    QCOMPARE(static_cast<int>(r.rows.size()), expected);
    QCOMPARE(r.capped, capped);
    QCOMPARE(r.sweeps[0].candidates, 8);
    QCOMPARE(r.sweeps[0].generated, expected);
}

void TestAugmenter::everythingRoundTrips()
{
    std::vector<Measurement> in;
    for (const auto& part : {linearMbs(), quadraticSeq(), constantQg(), zigZag()})
        in.insert(in.end(), part.begin(), part.end());
    // A num_layers sweep (run rows): memory 2000 + 1000 L over 8, 16, 24, 32, 40 -> 2 per gap.
    for (const Measurement& m : sweep(
             runRow("GPU-nl", ""), "nl", Axis::NumLayers, {8, 16, 24, 32, 40}, [](int x) { return 30.0 * x; },
             [](int x) { return 2000.0 + 1000 * x; }))
        in.push_back(m);
    // A stage_layers sweep of stage 1 of 4 (8 layers each by default; num_layers 32).
    for (const Measurement& m : sweep(
             stageRow("GPU-sl", "", 1, 4), "sl", Axis::StageLayers, {2, 5, 8, 11, 14}, [](int x) { return 10.0 * x; },
             [](int x) { return 500.0 * x; }))
        in.push_back(m);
    const auto r = Augmenter::augment(in);
    // 8 (mbs) + 4 (seq_len) + 0 (constant) + 0 (zig-zag) + 8 (num_layers: 10.7->11, 13.3->13, ...) + 8 (stage_layers).
    QCOMPARE(r.rows.size(), std::size_t(28));
    QCOMPARE(r.inputRows, 30);
    for (const Measurement& m : r.rows)
        QCOMPARE(m.source, MeasurementSource::Interpolated);
    QVERIFY(MeasurementCsv::parse(MeasurementCsv::write(r.rows), "aug.csv").rows == r.rows);
    auto all = in;
    all.insert(all.end(), r.rows.begin(), r.rows.end());
    QVERIFY(MeasurementCsv::parse(MeasurementCsv::write(all), "all.csv").rows == all);
    // Augmenting the augmented set again ignores the interpolated rows and
    // repeats no configuration already present: nothing new.
    const auto again = Augmenter::augment(all);
    QCOMPARE(again.inputRows, 30);
    QCOMPARE(again.rows.size(), std::size_t(0));
}

void TestAugmenter::tableText()
{
    std::vector<Measurement> in;
    for (const auto& part : {linearMbs(), quadraticSeq(), constantQg(), zigZag()})
        in.insert(in.end(), part.begin(), part.end());
    const auto r = Augmenter::augment(in);
    // (mbs, iteration time): linear (strong) and zig-zag (nonlinear) -> 1 each, tie to the more
    // restrictive class; R^2 mean (1 + 0.01138) / 2; rows 8 + 0.
    const Augmenter::TableEntry* mbsTime = nullptr;
    const Augmenter::TableEntry* mbsMem = nullptr;
    for (const auto& e : r.table) {
        if (e.axis == Axis::Mbs && e.metric == Metric::IterationTimeMs)
            mbsTime = &e;
        if (e.axis == Axis::Mbs && e.metric == Metric::PeakMemMiB)
            mbsMem = &e;
    }
    QVERIFY(mbsTime && mbsMem);
    QCOMPARE(mbsTime->sweeps, 2);
    QCOMPARE(mbsTime->byTrend[static_cast<int>(Trend::StrongLinear)], 1);
    QCOMPARE(mbsTime->byTrend[static_cast<int>(Trend::Nonlinear)], 1);
    QCOMPARE(mbsTime->representative, Trend::Nonlinear);
    // sxy^2 / (sxx syy) = 210^2 / (90 * 43080) = 0.011374
    QVERIFY(std::abs(mbsTime->meanR2 - (1 + 44100.0 / 3877200.0) / 2) < 1e-12);
    QCOMPARE(mbsTime->rowsGenerated, 8);
    QCOMPARE(mbsMem->representative, Trend::StrongLinear);
    QCOMPARE(mbsMem->meanR2, 1.0);

    const QString text = QString::fromStdString(Augmenter::formatTable(r));
    for (const char* s : {"parameter", "metric", "R^2", "mbs", "seq_len", "query_groups", "iteration_time_ms",
                          "peak_mem_mib", "strong linear", "superlinear", "constant", "nonlinear", "log-space midpoint",
                          "fixed default", "linear, 2 per gap", "20 measured rows, 12 interpolated rows (0.6x)"})
        QVERIFY2(text.contains(s), s);
}

void TestAugmenter::badOptions()
{
    AugmentOptions o;
    o.minPoints = 2;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Augmenter::augment(linearMbs(), o));
    o = {};
    o.perGap = 0;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Augmenter::augment(linearMbs(), o));
    o = {};
    o.maxRatio = -1;
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Augmenter::augment(linearMbs(), o));
    o.maxRatio = std::nan("");
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Augmenter::augment(linearMbs(), o));
}

// Runs measured on two clusters (the `cluster` column) with the same GPU type and
// configuration are two sweeps: cluster a.json time 100 + 50 mbs, memory 1000 +
// 300 mbs; cluster b.json twice that. Merged, repeats would be averaged into
// 150 + 75 mbs and the rows would carry one of the two clusters.
void TestAugmenter::clustersNeverShareASweep()
{
    Measurement base = runRow("GPU-c", "");
    base.cluster = "a.json";
    std::vector<Measurement> in = sweep(
        base, "a", Axis::Mbs, {1, 4, 7, 10, 13}, [](int x) { return 100.0 + 50 * x; },
        [](int x) { return 1000.0 + 300 * x; });
    base.cluster = "b.json";
    for (const Measurement& m : sweep(
             base, "b", Axis::Mbs, {1, 4, 7, 10, 13}, [](int x) { return 200.0 + 100 * x; },
             [](int x) { return 2000.0 + 600 * x; }))
        in.push_back(m);
    const auto r = Augmenter::augment(in);
    QCOMPARE(r.sweeps.size(), std::size_t(2));
    QCOMPARE(r.rows.size(), std::size_t(16));  // 8 per sweep, as linearMbsValues
    for (const Measurement& m : r.rows) {
        const double k = m.cluster == "a.json" ? 1 : 2;
        QVERIFY(m.cluster == "a.json" || m.cluster == "b.json");
        QCOMPARE(*m.iterationTimeMs, k * (100.0 + 50 * m.mbs));
        QCOMPARE(*m.peakMemMiB, k * (1000.0 + 300 * m.mbs));
    }
    std::vector<Measurement> all = in;
    all.insert(all.end(), r.rows.begin(), r.rows.end());
    QCOMPARE(MeasurementCsv::parse(MeasurementCsv::write(all), "all.csv").rows.size(), all.size());
}

MEMX_TEST_APPLESS_MAIN(TestAugmenter)
}  // namespace tst_augmenter

#include "tst_augmenter.moc"
