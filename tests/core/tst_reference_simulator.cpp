// The reference simulator stands in for a cluster: it must be reproducible
// (same seed, same numbers), noisy across seeds, label its output as
// simulated, catch out-of-memory configurations, and behave differently from
// the analytic model in the documented ways (selective recomputation saves
// memory on some stacks, allocator fragmentation).
#include "TestPaths.h"

#include "search/PlanEvaluator.h"
#include "search/SearchEngine.h"
#include "measure/MegatronLogParser.h"
#include "megatron/RankLayout.h"
#include "sim/ReferenceSimulator.h"

#include "TestMain.h"

namespace tst_reference_simulator {

using namespace memx;

namespace {
SearchRequest table1()
{
    SearchRequest req;
    req.problem.cluster = Cluster::fromFile(test::sampleCluster("paper-table1-xy.json"));
    req.problem.model = ModelSpec::resolve("llama2-7b");
    req.problem.setup.globalBatch = 32;
    req.problem.setup.microBatchSizes = {1};
    return req;
}

Plan planFor(const SearchRequest& req, std::vector<int> layers, std::vector<Recompute> recompute)
{
    PlanSpec spec;
    spec.stageGroups = {"xy/Vendor-X", "xy/Vendor-Y"};
    spec.layers = std::move(layers);
    spec.recompute = std::move(recompute);
    return PlanEvaluator::evaluate(req.problem, spec).plan;
}
}  // namespace

class TestReferenceSimulator : public QObject {
    Q_OBJECT
private slots:
    void sameSeedSameNumbers();
    void seedsDifferByNoiseOnly();
    void warmupIterationsAreSlower();
    void outOfMemoryIsReported();
    void selectiveSavesWhereTheStackAllows();
    void logIsLabelledAndHasEveryRank();
    void logRoundTripsThroughTheImporter();
};

void TestReferenceSimulator::sameSeedSameNumbers()
{
    auto req = table1();
    Plan p = planFor(req, {8, 24}, {Recompute::None, Recompute::None});
    auto a = ReferenceSimulator(7).run(req.problem, p);
    auto b = ReferenceSimulator(7).run(req.problem, p);
    QCOMPARE(a.iterationMs, b.iterationMs);
    QCOMPARE(a.stages[0].maxAllocatedMiB, b.stages[0].maxAllocatedMiB);
}

void TestReferenceSimulator::seedsDifferByNoiseOnly()
{
    auto req = table1();
    Plan p = planFor(req, {8, 24}, {Recompute::None, Recompute::None});
    auto a = ReferenceSimulator(1).run(req.problem, p);
    auto b = ReferenceSimulator(2).run(req.problem, p);
    QVERIFY(a.medianIterationMs != b.medianIterationMs);
    // Noise is a few percent (profiles: 2-3.5% relative standard deviation).
    QVERIFY(std::abs(a.medianIterationMs / b.medianIterationMs - 1.0) < 0.15);
    // Memory is not noisy.
    QCOMPARE(a.stages[1].maxAllocatedMiB, b.stages[1].maxAllocatedMiB);
}

void TestReferenceSimulator::warmupIterationsAreSlower()
{
    auto req = table1();
    Plan p = planFor(req, {8, 24}, {Recompute::None, Recompute::None});
    auto r = ReferenceSimulator(3).run(req.problem, p, 10, 2);
    QCOMPARE(r.iterationMs.size(), std::size_t(10));
    QVERIFY(r.iterationMs[0] > 1.15 * r.medianIterationMs);
    QVERIFY(r.iterationMs[1] > 1.15 * r.medianIterationMs);
}

void TestReferenceSimulator::outOfMemoryIsReported()
{
    auto req = table1();
    // 21:11 cannot fit X (tst_paper_table1); the simulator must agree.
    Plan p = planFor(req, {21, 11}, {Recompute::Full, Recompute::None});
    auto r = ReferenceSimulator(0).run(req.problem, p);
    QVERIFY(r.outOfMemory);
    QVERIFY(r.outOfMemoryReason.find("stage 0") != std::string::npos);
}

void TestReferenceSimulator::selectiveSavesWhereTheStackAllows()
{
    // On the 20-GPU cluster Vendor-B's stack frees 18% of activations with
    // selective recomputation, the A100's nothing (FlashAttention keeps no s^2).
    SearchRequest req;
    req.problem.cluster = Cluster::fromFile(test::sampleCluster("paper-20gpu-3vendor.json"));
    req.problem.model = ModelSpec::resolve("llama2-7b");
    req.problem.setup.globalBatch = 64;
    PlanSpec spec;
    spec.tp = 1;
    spec.dp = 4;
    spec.microBatch = 1;
    spec.stageGroups = {"vb", "a100"};
    spec.layers = {16, 16};
    spec.recompute = {Recompute::None, Recompute::None};
    Plan none = PlanEvaluator::evaluate(req.problem, spec).plan;
    spec.recompute = {Recompute::Selective, Recompute::Selective};
    Plan sel = PlanEvaluator::evaluate(req.problem, spec).plan;
    ReferenceSimulator sim(0);
    auto a = sim.run(req.problem, none);
    auto b = sim.run(req.problem, sel);
    QVERIFY(b.stages[0].maxAllocatedMiB < 0.95 * a.stages[0].maxAllocatedMiB);  // Vendor-B saves
    QVERIFY(std::abs(b.stages[1].maxAllocatedMiB - a.stages[1].maxAllocatedMiB) < 4.0);  // A100 does not
}

void TestReferenceSimulator::logIsLabelledAndHasEveryRank()
{
    auto req = table1();
    Plan p = planFor(req, {8, 24}, {Recompute::None, Recompute::None});
    ReferenceSimulator sim(5);
    auto r = sim.run(req.problem, p, 6);
    QString log = QString::fromStdString(sim.megatronLog(r, p));
    QVERIFY(log.startsWith("# SIMULATED"));
    QCOMPARE(log.count(QStringLiteral("elapsed time per iteration (ms):")), 6);
    QVERIFY(log.contains(QStringLiteral("[Rank 0] (after 1 iterations) memory (MB)")));
    QVERIFY(log.contains(QStringLiteral("[Rank 1] (after 1 iterations) memory (MB)")));
}

void TestReferenceSimulator::logRoundTripsThroughTheImporter()
{
    // Simulate a TP 2 x PP 3 x DP 1 plan on the V100/T4 cluster... keep it simple:
    // the 20-GPU cluster, TP 2, DP 2, 5 stages; write the log, import it, and get
    // every stage's peak and the median iteration time back.
    SearchRequest req;
    req.problem.cluster = Cluster::fromFile(test::sampleCluster("paper-20gpu-3vendor.json"));
    req.problem.model = ModelSpec::resolve("llama2-7b");
    req.problem.setup.globalBatch = 64;
    PlanSpec spec;
    spec.tp = 2;
    spec.dp = 2;
    spec.microBatch = 1;
    spec.stageGroups = {"vb", "vb", "vc", "vc", "a100"};
    spec.layers = {8, 8, 5, 5, 6};
    Plan p = PlanEvaluator::evaluate(req.problem, spec).plan;
    ReferenceSimulator sim(11);
    auto run = sim.run(req.problem, p, 8, 2);
    auto log = MegatronLogParser::parse(sim.megatronLog(run, p), "simulated.log");
    auto peaks = MegatronLogParser::stagePeakMiB(log, RankLayout(p.tp, p.pp, p.dp));
    QCOMPARE(peaks.size(), std::size_t(5));
    for (int i = 0; i < 5; ++i)
        QVERIFY(std::abs(peaks[i] - run.stages[i].maxAllocatedMiB) < 0.01);  // printed with 2 decimals
    auto summary = log.summary(2);
    QVERIFY(std::abs(summary.medianIterationMs - run.medianIterationMs) < 0.1);
}

MEMX_TEST_APPLESS_MAIN(TestReferenceSimulator)
}  // namespace tst_reference_simulator

#include "tst_reference_simulator.moc"
