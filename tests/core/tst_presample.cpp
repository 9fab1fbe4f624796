// The paper's profiler on measured pre-sampling runs (section 3.2.1):
// profile-plan --presample lists the single-parameter sweeps, and the key
// parameters come from the measured amplitudes of those runs
// (PresampleMeasurements), not from the analytic model's.
#include "TestModels.h"

#include "hardware/GpuCatalog.h"
#include "measure/MeasuredRun.h"
#include "model/ModelSpec.h"
#include "profiling/PresampleMeasurements.h"
#include "profiling/ProfilingPlanner.h"

#include "TestMain.h"

#include <cmath>
#include <map>

namespace tst_presample {

using namespace memx;

namespace {

const GpuType& a100() { return test::catalogType("A100-80GB"); }

// Two axes, so that every sweep point can be named by hand: TP {1, 2, 4}
// (three points 1, 2, 4) and micro-batch {1, 2, 4, 8} (three points 1, 2, 8),
// both defaulting to 1.
std::vector<ParameterAxis> twoAxes() { return {{"tp", {1, 2, 4}, 1, true}, {"micro_batch", {1, 2, 4, 8}, 1, true}}; }

StageQuery base() { return ProfilingPlanner::baseQuery(test::presetModel("llama2-7b"), a100(), twoAxes()); }

// The measured run of a query: (time ms, peak MiB), a NaN time for a run
// that ran out of memory.
Measurement measured(const StageQuery& q, double timeMs, double peakMiB)
{
    Measurement m;
    m.runId = PresampleMeasurements::runIdOf(q);
    m.gpuType = q.gpu->name;
    m.numGpus = q.tp;
    m.tp = q.tp;
    m.mbs = q.microBatch;
    m.gbs = 4 * q.microBatch;
    m.seqLen = q.seqLen;
    m.numLayers = q.layers;
    m.hidden = q.hidden;
    m.ffnHidden = q.ffnHidden;
    m.heads = q.heads;
    m.queryGroups = q.queryGroups;
    m.vocab = q.vocab;
    m.recompute = q.recompute;
    if (!std::isnan(timeMs))
        m.iterationTimeMs = timeMs;
    m.peakMemMiB = peakMiB;
    return m;
}

// (tp, micro-batch) -> (time, peak): TP moves time by 3% and memory by 1.5%
// (low at 10%); the micro-batch moves time by (700 - 100) / 330 = 182% (high).
const std::map<std::pair<int, int>, std::pair<double, double>>& numbers()
{
    static const std::map<std::pair<int, int>, std::pair<double, double>> n{{{1, 1}, {100, 20000}},
                                                                            {{2, 1}, {101, 19800}},
                                                                            {{4, 1}, {103, 19700}},
                                                                            {{1, 2}, {190, 21000}},
                                                                            {{1, 8}, {700, 26000}}};
    return n;
}

std::vector<MeasuredRun> runsOf(const std::vector<StageQuery>& queries, const std::pair<int, int>& leaveOut = {0, 0},
                                bool oomInstead = false)
{
    std::vector<Measurement> rows;
    for (const StageQuery& q : queries) {
        const auto key = std::make_pair(q.tp, q.microBatch);
        const auto [t, m] = numbers().at(key);
        if (key == leaveOut && !oomInstead)
            continue;
        rows.push_back(measured(q, key == leaveOut ? std::nan("") : t, m));
    }
    return MeasuredRun::group(rows, "presample.csv");
}

}  // namespace

class TestPresample : public QObject {
    Q_OBJECT
private slots:
    void presampleRunsAreTheSweeps();
    void measuredAmplitudesPickTheKeys();
    void aMissingPointIsNamedAndKeepsTheAxis_data();
    void aMissingPointIsNamedAndKeepsTheAxis();
    void otherRunsAreNotPresampleRuns();
    void timeOnlyPointsCountForTime();
    void stageProfilesAnswerTypesWithoutSingleStageRuns();
    void defaultsMoveUntilTheBaseFits_data();
    void defaultsMoveUntilTheBaseFits();
};

// The base (TP 1, micro-batch 1), TP 2 and 4, micro-batch 2 and 8: 1 + 2 + 2.
void TestPresample::presampleRunsAreTheSweeps()
{
    const auto queries = ProfilingPlanner::presampleQueries(base(), twoAxes());
    QCOMPARE(queries.size(), std::size_t(5));
    std::vector<std::pair<int, int>> got;
    for (const StageQuery& q : queries)
        got.emplace_back(q.tp, q.microBatch);
    const std::vector<std::pair<int, int>> expected{{1, 1}, {2, 1}, {4, 1}, {1, 2}, {1, 8}};
    QVERIFY(got == expected);
}

void TestPresample::measuredAmplitudesPickTheKeys()
{
    const auto queries = ProfilingPlanner::presampleQueries(base(), twoAxes());
    const PresampleMeasurements measuredRuns(runsOf(queries));
    QCOMPARE(measuredRuns.used(), std::size_t(5));
    std::vector<std::string> missing, noPeak;
    const auto keys = ProfilingPlanner::identify(base(), twoAxes(), measuredRuns.measure(missing, noPeak), 0.10);
    QVERIFY(missing.empty());
    QVERIFY(noPeak.empty());
    QCOMPARE(keys.size(), std::size_t(2));
    QCOMPARE(keys[0].name, std::string("tp"));
    QVERIFY(std::abs(keys[0].timeAmplitude - 3.0 / (304.0 / 3)) < 1e-12);
    QVERIFY(std::abs(keys[0].memoryAmplitude - 300.0 / (59500.0 / 3)) < 1e-12);
    QVERIFY(!keys[0].highImpact);
    QVERIFY(std::abs(keys[1].timeAmplitude - 600.0 / 330.0) < 1e-12);
    QVERIFY(keys[1].highImpact);
    // Three-point sampling of the micro-batch alone: 3 runs, not 3 x 3.
    QCOMPARE(ProfilingPlanner::sampledCount(twoAxes(), keys), std::uint64_t(3));
    QCOMPARE(ProfilingPlanner::sampleQueries(base(), twoAxes(), keys).size(), std::size_t(3));
}

// A sweep point without a number (never run, or out of memory) is named,
// left out of the amplitude, and an axis with fewer than two measured points
// stays high-impact: nothing shows it is not.
void TestPresample::aMissingPointIsNamedAndKeepsTheAxis_data()
{
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("mbs");
    QTest::addColumn<bool>("oom");
    QTest::addColumn<bool>("tpHigh");
    QTest::newRow("TP 4 not run: TP 1, 2 still low") << 4 << 1 << false << false;
    QTest::newRow("TP 4 out of memory") << 4 << 1 << true << false;
    QTest::newRow("micro-batch 8 not run: 100 to 190 still high") << 1 << 8 << false << false;
}

void TestPresample::aMissingPointIsNamedAndKeepsTheAxis()
{
    QFETCH(int, tp);
    QFETCH(int, mbs);
    QFETCH(bool, oom);
    QFETCH(bool, tpHigh);
    const auto queries = ProfilingPlanner::presampleQueries(base(), twoAxes());
    const PresampleMeasurements measuredRuns(runsOf(queries, {tp, mbs}, oom));
    std::vector<std::string> missing, noPeak;
    const auto keys = ProfilingPlanner::identify(base(), twoAxes(), measuredRuns.measure(missing, noPeak), 0.10);
    QCOMPARE(missing.size(), std::size_t(1));
    QVERIFY(noPeak.empty());  // an out-of-memory run's peak is no point of its own
    QVERIFY2(missing.front().find("_tp" + std::to_string(tp) + "_mbs" + std::to_string(mbs) + "_") != std::string::npos,
             missing.front().c_str());
    QCOMPARE(keys[0].highImpact, tpHigh);
    QVERIFY(keys[1].highImpact);
    QCOMPARE(keys[0].points + keys[1].points, 5);  // each axis counts the base; one point is gone

    // Both TP points beyond the base gone: one point left, so TP is kept.
    const auto onlyBase = [&] {
        std::vector<StageQuery> q;
        for (const StageQuery& s : queries)
            if (s.tp == 1)
                q.push_back(s);
        return q;
    }();
    const PresampleMeasurements few(runsOf(onlyBase));
    std::vector<std::string> gone, noPeak2;
    const auto again = ProfilingPlanner::identify(base(), twoAxes(), few.measure(gone, noPeak2), 0.10);
    QCOMPARE(gone.size(), std::size_t(2));
    QVERIFY(again[0].unmeasured);
    QVERIFY(again[0].highImpact);
    QVERIFY(ProfilingPlanner::formatTable(again, 0.10).find("fewer than two points measured") != std::string::npos);
}

// A pipelined or data-parallel run is not a pre-sampling run: counted, not used.
void TestPresample::otherRunsAreNotPresampleRuns()
{
    const auto queries = ProfilingPlanner::presampleQueries(base(), twoAxes());
    Measurement m = measured(queries.front(), 100, 20000);
    m.runId = "pp2";
    m.pp = 2;
    m.numGpus = 2;
    m.numLayers = 32;
    const PresampleMeasurements runs(MeasuredRun::group({m}, "other.csv"));
    QCOMPARE(runs.used(), std::size_t(0));
    QCOMPARE(runs.ignored(), std::size_t(1));
    QVERIFY(std::isnan(runs.find(queries.front()).first));
}

// Runs timed without a peak (a time-only profile): time amplitudes as
// before, and an axis whose memory no two points measured stays high-impact,
// since nothing shows its memory does not move.
void TestPresample::timeOnlyPointsCountForTime()
{
    const auto queries = ProfilingPlanner::presampleQueries(base(), twoAxes());
    std::vector<Measurement> rows;
    for (const StageQuery& q : queries) {
        Measurement m = measured(q, numbers().at({q.tp, q.microBatch}).first, 0);
        m.peakMemMiB.reset();
        rows.push_back(m);
    }
    const PresampleMeasurements runs(MeasuredRun::group(rows, "times.csv"));
    std::vector<std::string> missing, noPeak;
    const auto keys = ProfilingPlanner::identify(base(), twoAxes(), runs.measure(missing, noPeak), 0.10);
    QVERIFY(missing.empty());
    QCOMPARE(noPeak.size(), std::size_t(5));
    QCOMPARE(keys[0].points, 3);
    QCOMPARE(keys[0].memoryPoints, 0);
    QVERIFY(std::abs(keys[0].timeAmplitude - 3.0 / (304.0 / 3)) < 1e-12);  // as with the peaks
    QVERIFY(!keys[0].unmeasured);
    QVERIFY(keys[0].memoryUnmeasured);
    QVERIFY(keys[0].highImpact);
    const std::string table = ProfilingPlanner::formatTable(keys, 0.10);
    QVERIFY2(table.find("tp" + std::string(19, ' ') + "3.0%" + std::string(10, ' ') + "-  high (memory not measured)")
                 != std::string::npos,
             table.c_str());
}

// Sailor's kind of profile: one measured stage inside a pipeline, its time
// per iteration of 2 micro-batches. A type without single-stage runs is
// answered from such inner stages (time per micro-batch, no peak); a type
// with single-stage runs keeps them, and first or last stages (embedding,
// output layer) are not profiles of the shape.
void TestPresample::stageProfilesAnswerTypesWithoutSingleStageRuns()
{
    const auto queries = ProfilingPlanner::presampleQueries(base(), twoAxes());
    std::vector<Measurement> rows;
    for (const StageQuery& q : queries) {
        const double perMicroBatch = numbers().at({q.tp, q.microBatch}).first;
        for (int stage : {0, 1}) {  // the first stage's row is no profile
            Measurement m = measured(q, std::nan(""), 0);
            m.runId = PresampleMeasurements::runIdOf(q) + "_pp4";
            m.pp = 4;
            m.numGpus = 4 * q.tp;
            m.numLayers = 4 * q.layers;
            m.gbs = 2 * q.microBatch;
            m.iterationTimeMs.reset();
            m.peakMemMiB = 999;  // a pipeline stage's peak: other micro-batches in flight
            m.stage = stage;
            m.stageLayers = q.layers;
            m.stageTimeMs = (stage == 0 ? 5000 : 2 * perMicroBatch);
            rows.push_back(m);
        }
    }
    const PresampleMeasurements runs(MeasuredRun::group(rows, "profiles.csv"));
    QCOMPARE(runs.profiledTypes(), std::vector<std::string>{"A100-80GB"});
    QCOMPARE(runs.used(), std::size_t(5));
    for (const StageQuery& q : queries) {
        const auto [t, m] = runs.find(q);
        QCOMPARE(t, numbers().at({q.tp, q.microBatch}).first);
        QVERIFY(std::isnan(m));
    }
    std::vector<std::string> missing, noPeak;
    const auto keys = ProfilingPlanner::identify(base(), twoAxes(), runs.measure(missing, noPeak), 0.10);
    QVERIFY(std::abs(keys[1].timeAmplitude - 600.0 / 330.0) < 1e-12);

    // With single-stage runs of the type beside them, the profiles are not used.
    std::vector<Measurement> both = rows;
    for (const StageQuery& q : queries)
        both.push_back(
            measured(q, numbers().at({q.tp, q.microBatch}).first, numbers().at({q.tp, q.microBatch}).second));
    const PresampleMeasurements whole(MeasuredRun::group(both, "both.csv"));
    QVERIFY(whole.profiledTypes().empty());
    QCOMPARE(whole.find(queries.front()).second, 20000.0);
}

// LLaMA2-7B's default axes: TP 1 (of 1, 2, 4, 8), 8 layers (of 4, 8, ...,
// 32), no recomputation. A GPU where the base does not fit gets the nearest
// defaults that do: sweeping around a base that cannot run measures OOMs.
void TestPresample::defaultsMoveUntilTheBaseFits_data()
{
    QTest::addColumn<int>("minTp");
    QTest::addColumn<int>("maxLayers");
    QTest::addColumn<int>("minRecompute");
    QTest::addColumn<QString>("moved");
    QTest::newRow("fits already") << 1 << 32 << 0 << "";
    QTest::newRow("needs TP 4") << 4 << 32 << 0 << "tp 1 -> 4";
    QTest::newRow("needs 4 layers: TP stays") << 1 << 4 << 0 << "layers 8 -> 4";
    QTest::newRow("needs both") << 2 << 4 << 0 << "tp 1 -> 2, layers 8 -> 4";
    QTest::newRow("needs full recomputation") << 1 << 32 << 2 << "recompute 0 -> 2";
    QTest::newRow("nothing fits: unchanged") << 16 << 32 << 0 << "";
}

void TestPresample::defaultsMoveUntilTheBaseFits()
{
    QFETCH(int, minTp);
    QFETCH(int, maxLayers);
    QFETCH(int, minRecompute);
    QFETCH(QString, moved);
    const ModelSpec* m = ModelSpec::findPreset("llama2-7b");
    QVERIFY(m);
    auto axes = ProfilingPlanner::defaultAxes(*m);
    const auto before = axes;
    const auto fits = [&](const StageQuery& q) {
        return q.tp >= minTp && q.layers <= maxLayers && static_cast<int>(q.recompute) >= minRecompute;
    };
    QCOMPARE(QString::fromStdString(ProfilingPlanner::fitDefaults(axes, *m, a100(), {}, fits)), moved);
    if (moved.isEmpty()) {
        for (std::size_t i = 0; i < axes.size(); ++i)
            QCOMPARE(axes[i].defaultValue, before[i].defaultValue);
        return;
    }
    QVERIFY(fits(ProfilingPlanner::baseQuery(*m, a100(), axes)));
}

MEMX_TEST_GUILESS_MAIN(TestPresample)
}  // namespace tst_presample

#include "tst_presample.moc"
