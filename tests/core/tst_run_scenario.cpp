// A measured run placed on a given cluster (memx-cli profile simulate,
// memx-cli predict --cluster): each stage takes the next free TP x DP slice of
// a node of its GPU type, or, when it is larger than any node, the next free
// whole nodes of that type, as the search places stages that span nodes.
#include "TestClusters.h"

#include "hardware/GpuCatalog.h"
#include "io/InputError.h"
#include "measure/MeasuredRun.h"
#include "measure/RunScenario.h"

#include "TestMain.h"

#include <set>

namespace tst_run_scenario {

using namespace memx;

namespace {

// LLaMA2-7B's shape, split evenly over pp stages of one GPU type.
MeasuredRun runOf(int tp, int dp, int pp, const std::string& type = "A100-80GB")
{
    MeasuredRun r;
    r.runId = "r1";
    Measurement& c = r.config;
    c.gpuType = type;
    c.tp = tp;
    c.dp = dp;
    c.pp = pp;
    c.numGpus = tp * dp * pp;
    c.mbs = 1;
    c.gbs = 64;
    c.seqLen = 4096;
    c.numLayers = 32;
    c.hidden = 4096;
    c.ffnHidden = 11008;
    c.heads = 32;
    c.queryGroups = 32;
    c.vocab = 32000;
    for (int i = 0; i < pp; ++i)
        r.stages.push_back({i, type, tp, 32 / pp, Recompute::Full, std::nullopt, std::nullopt, -1});
    return r;
}

}  // namespace

class TestRunScenario : public QObject {
    Q_OBJECT
private slots:
    void stagesArePlaced_data();
    void stagesArePlaced();
    void aSpanningStageIsPredictedOverBothNodes();
    void aStageThatFitsNowhereIsNamed();
    void syntheticClusterHasTheTypesFabric_data();
    void syntheticClusterHasTheTypesFabric();
    void parallelismIsAsTheRunRan();
};

void TestRunScenario::stagesArePlaced_data()
{
    QTest::addColumn<int>("nodes");
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("dp");
    QTest::addColumn<int>("pp");
    QTest::addColumn<QStringList>("expected");  // PlanSpec::stageGroups
    QTest::newRow("two stages in one node") << 2 << 4 << 1 << 2 << QStringList{"n0", "n0"};
    QTest::newRow("a node per stage") << 2 << 8 << 1 << 2 << QStringList{"n0", "n1"};
    QTest::newRow("pure DP over two nodes") << 2 << 1 << 16 << 1 << QStringList{"n0+n1"};
    QTest::newRow("TP 8 x DP 2 over two nodes") << 2 << 8 << 2 << 1 << QStringList{"n0+n1"};
    QTest::newRow("two stages of two nodes each") << 4 << 4 << 4 << 2 << QStringList{"n0+n1", "n2+n3"};
    QTest::newRow("slices fill a node before the next") << 3 << 4 << 1 << 3 << QStringList{"n0", "n0", "n1"};
}

void TestRunScenario::stagesArePlaced()
{
    QFETCH(int, nodes);
    QFETCH(int, tp);
    QFETCH(int, dp);
    QFETCH(int, pp);
    QFETCH(QStringList, expected);
    PlanSpec spec;
    const Problem problem = RunScenario::problem(runOf(tp, dp, pp), test::uniformNodes(nodes, 8, "A100-80GB"), spec);
    QStringList got;
    for (const auto& g : spec.stageGroups)
        got << QString::fromStdString(g);
    QCOMPARE(got, expected);
    QCOMPARE(problem.setup.globalBatch, 64);
    QCOMPARE(problem.model.numLayers, 32);
    QCOMPARE(spec.tp, tp);
    QCOMPARE(spec.dp, dp);
}

void TestRunScenario::aSpanningStageIsPredictedOverBothNodes()
{
    // TP 8 x DP 2 on two 8-GPU nodes: one stage, its 16 GPUs on both nodes,
    // and its DP gradient sync over InfiniBand (25 GB/s) rather than NVLink,
    // so it costs more than the same run with DP inside one 16-GPU node.
    PlanSpec spec;
    const Problem two = RunScenario::problem(runOf(8, 2, 1), test::uniformNodes(2, 8, "A100-80GB"), spec);
    const RunPrediction over = RunScenario::predict(two, spec, nullptr);
    QVERIFY2(over.feasible, over.whyInfeasible.c_str());
    QCOMPARE(over.plan.stages.size(), std::size_t(1));
    const StagePlan& s = over.plan.stages.front();
    QCOMPARE(s.devices.size(), std::size_t(16));
    std::set<int> groups;
    for (int d : s.devices)
        groups.insert(two.cluster.devices()[static_cast<std::size_t>(d)].group);
    QCOMPARE(groups.size(), std::size_t(2));
    QCOMPARE(QString::fromStdString(s.label()), QStringLiteral("n0+n1"));

    PlanSpec one;
    const Problem single = RunScenario::problem(runOf(8, 2, 1), test::uniformNodes(1, 16, "A100-80GB"), one);
    const RunPrediction inside = RunScenario::predict(single, one, nullptr);
    QVERIFY(inside.feasible);
    QVERIFY2(over.iterationMs() > inside.iterationMs(),
             qPrintable(QStringLiteral("%1 vs %2 ms").arg(over.iterationMs()).arg(inside.iterationMs())));
    // The per-GPU memory does not depend on where the ranks sit.
    QCOMPARE(over.peakMemMiB(), inside.peakMemMiB());
}

void TestRunScenario::aStageThatFitsNowhereIsNamed()
{
    PlanSpec spec;
    try {
        RunScenario::problem(runOf(8, 4, 1), test::uniformNodes(2, 8, "A100-80GB"), spec);
        QFAIL("32 GPUs placed on a 16-GPU cluster");
    } catch (const InputError& e) {
        const QString what = QString::fromUtf8(e.what());
        QVERIFY2(what.contains(QStringLiteral("run r1, stage 0")), qPrintable(what));
        QVERIFY2(what.contains(QStringLiteral("32 free GPUs")), qPrintable(what));
    }
    try {
        RunScenario::problem(runOf(4, 1, 1, "H100-SXM"), test::uniformNodes(2, 8, "A100-80GB"), spec);
        QFAIL("an H100 stage placed on A100 nodes");
    } catch (const InputError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("of type H100-SXM")), e.what());
    }
}

// Without a cluster a run's stage is one node wired as a server of its GPU
// type usually is (vendor datasheets, per direction): DGX A100 NVLink 3
// 600 GB/s both ways = 300; DGX H100 NVLink 4 900 = 450; DGX B200 NVLink 5
// 1.8 TB/s = 900; H800's NVLink cut to 400 = 200; a workstation card's
// PCIe 4.0 x16 switch about 25 GB/s, shared by the node's transfers; an
// RTX 3090 has no PCIe peer-to-peer, so its traffic goes through host
// memory: 6 GB/s, the median of Sailor's measurements of such machines.
void TestRunScenario::syntheticClusterHasTheTypesFabric_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<double>("bandwidth");
    QTest::addColumn<bool>("shared");
    QTest::newRow("A100-80GB") << "A100-80GB" << 300.0 << false;
    QTest::newRow("H100-SXM") << "H100-SXM" << 450.0 << false;
    QTest::newRow("B200") << "B200" << 900.0 << false;
    QTest::newRow("H800") << "H800" << 200.0 << false;
    QTest::newRow("RTX-A6000") << "RTX-A6000" << 25.0 << true;
    QTest::newRow("RTX-3090") << "RTX-3090" << 6.0 << true;
}

void TestRunScenario::syntheticClusterHasTheTypesFabric()
{
    QFETCH(QString, type);
    QFETCH(double, bandwidth);
    QFETCH(bool, shared);
    PlanSpec spec;
    const Problem problem
        = RunScenario::problem(runOf(4, 2, 2, type.toStdString()), GpuCatalog::builtin(), spec, "runs.csv");
    int inside = 0;
    for (const Link& link : problem.cluster.links()) {
        if (!link.within) {
            QCOMPARE(link.bandwidthGBps, 25.0);  // InfiniBand between the stages' nodes
            continue;
        }
        QCOMPARE(link.bandwidthGBps, bandwidth);
        QCOMPARE(link.medium >= 0, shared);
        ++inside;
    }
    QCOMPARE(inside, 2);  // one node per stage
}

// A run's sequence_parallel and distributed_optimizer columns reach the
// prediction. LLaMA2-7B (h 4096, ffn 11008, 32 layers, vocab 32000, untied)
// has 32 (4 h^2 + 3 h ffn + 2 h) + 2 vocab h + h = 6,738,415,616 parameters.
// Unsharded at DP 8 the optimizer keeps 12 bytes of each (fp32 master, Adam
// m and v) instead of 12 / 8: 6,738,415,616 x 10.5 B = 67,475.6 MiB more.
// Without sequence parallelism at TP 2, full recomputation keeps every
// layer's input whole instead of halved: 32 x 2 B x s b h / 2 = 512 MiB more
// (s 4096, b 1, h 4096), plus the recomputed layer's own activations, which
// are also larger: Korthikanti's sbh (10 + 24/t) against 34 sbh / t, with
// FlashAttention and without the two sbh of dropout masks (no dropout here)
// sbh (8 + 24/t) against 32 sbh / t, 4 sbh = 64 MiB more at t = 2: 576 MiB.
void TestRunScenario::parallelismIsAsTheRunRan()
{
    const auto predict = [](MeasuredRun run) {
        PlanSpec spec;
        const Problem p = RunScenario::problem(run, GpuCatalog::builtin(), spec, "runs.csv");
        return RunScenario::predict(p, spec, nullptr).plan.stages.front().memory;
    };
    MeasuredRun sharded = runOf(1, 8, 1);
    MeasuredRun unsharded = sharded;
    unsharded.config.distributedOptimizer = false;
    const double params = 32.0 * (4.0 * 4096 * 4096 + 3.0 * 4096 * 11008 + 2 * 4096) + 2.0 * 32000 * 4096 + 4096;
    QCOMPARE(params, 6738415616.0);
    const double extra = predict(unsharded).optimizerMiB - predict(sharded).optimizerMiB;
    QVERIFY2(std::abs(extra - params * 10.5 / (1 << 20)) < 0.5, qPrintable(QString::number(extra)));

    MeasuredRun withSp = runOf(2, 4, 1);
    MeasuredRun withoutSp = withSp;
    withoutSp.config.sequenceParallel = false;
    const double more = predict(withoutSp).activationsMiB - predict(withSp).activationsMiB;
    QVERIFY2(std::abs(more - 576) < 0.01, qPrintable(QString::number(more)));
    QCOMPARE(predict(withoutSp).optimizerMiB, predict(withSp).optimizerMiB);
}

MEMX_TEST_GUILESS_MAIN(TestRunScenario)
}  // namespace tst_run_scenario

#include "tst_run_scenario.moc"
