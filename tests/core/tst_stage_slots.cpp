// Pipeline stages that span nodes: a stage is part of a node, a node, or
// several whole nodes of one GPU type. TP stays inside a node, DP may cross
// nodes (its ring then runs over the inter-node links), PP=1 plans exist,
// and the exported ranks of a stage over two nodes land on both.
#include "TestClusters.h"
#include "TestPaths.h"

#include "export/LaunchFiles.h"
#include "search/PlanEvaluator.h"
#include "search/SearchEngine.h"
#include "space/StageSlots.h"

#include "TestMain.h"

#include <set>

namespace tst_stage_slots {

using namespace memx;

class TestStageSlots : public QObject {
    Q_OBJECT
private slots:
    void slotsOfASize_data();
    void slotsOfASize();
    void singleStagePlansExist();
    void dataParallelAcrossNodesUsesTheInterNodeLinks();
    void exportedRanksOfASpanningStage();
    void tooFewStagesForTheTypesIsExplained();
};

void TestStageSlots::slotsOfASize_data()
{
    QTest::addColumn<int>("nodes");
    QTest::addColumn<int>("gpusPerNode");
    QTest::addColumn<int>("stageSize");
    QTest::addColumn<int>("tp");
    QTest::addColumn<QStringList>("expected");  // slot names
    QTest::addColumn<int>("idle");
    QTest::newRow("two blocks per node") << 2 << 8 << 4 << 2 << QStringList{"n0#0", "n0#1", "n1#0", "n1#1"} << 0;
    QTest::newRow("one node per stage") << 2 << 8 << 8 << 8 << QStringList{"n0#0", "n1#0"} << 0;
    QTest::newRow("one stage over two nodes") << 2 << 8 << 16 << 8 << QStringList{"n0+n1"} << 0;
    QTest::newRow("two stages over two nodes each") << 4 << 8 << 16 << 4 << QStringList{"n0+n1", "n2+n3"} << 0;
    QTest::newRow("three nodes, two-node stages: one left idle") << 3 << 8 << 16 << 1 << QStringList{"n0+n1"} << 8;
    QTest::newRow("size that is not whole nodes") << 2 << 8 << 12 << 4 << QStringList{} << 16;
    QTest::newRow("block leaves GPUs idle") << 1 << 8 << 3 << 1 << QStringList{"n0#0", "n0#1"} << 2;
    QTest::newRow("TP must divide each node") << 2 << 6 << 12 << 4 << QStringList{} << 12;
}

void TestStageSlots::slotsOfASize()
{
    QFETCH(int, nodes);
    QFETCH(int, gpusPerNode);
    QFETCH(int, stageSize);
    QFETCH(int, tp);
    QFETCH(QStringList, expected);
    QFETCH(int, idle);
    const Cluster c = test::uniformNodes(nodes, gpusPerNode, "A100-80GB");
    const StageSlotSet set = StageSlots::of(c, stageSize, tp);
    QStringList names;
    for (const auto& s : set.all) {
        names << QString::fromStdString(s.name);
        QCOMPARE(static_cast<int>(s.devices.size()), stageSize);
        // TP groups (consecutive devices) never leave a node.
        for (std::size_t k = 0; k < s.devices.size(); k += static_cast<std::size_t>(tp))
            QCOMPARE(c.devices()[static_cast<std::size_t>(s.devices[k])].node,
                     c.devices()[static_cast<std::size_t>(s.devices[k + static_cast<std::size_t>(tp) - 1])].node);
    }
    QCOMPARE(names, expected);
    QCOMPARE(set.idleGpus, idle);
}

void TestStageSlots::singleStagePlansExist()
{
    // The plans Megatron-LM users run first on two 8-GPU nodes: pure DP=16
    // and TP=8 x DP=2, both one pipeline stage over both nodes.
    SearchRequest req;
    req.problem.cluster = test::uniformNodes(2, 8, "A100-80GB");
    req.problem.model = ModelSpec::resolve("llama2-7b");
    req.problem.setup.globalBatch = 64;
    req.problem.setup.microBatchSizes = {1};
    req.problem.setup.maxPipelineStages = 1;
    req.options.topK = 50;
    const SearchResult r = SearchEngine::run(req);
    QVERIFY2(r.error.empty(), r.error.c_str());
    std::set<std::pair<int, int>> tpDp;
    for (const auto& p : r.fastest) {
        QCOMPARE(p.pp, 1);
        QCOMPARE(p.stages.front().label(), std::string("n0+n1"));
        tpDp.insert({p.tp, p.dp});
    }
    QVERIFY(tpDp.count({1, 16}));
    QVERIFY(tpDp.count({8, 2}));

    // And they stay in the space when deeper pipelines are allowed.
    req.problem.setup.maxPipelineStages = 8;
    req.options.topK = 10;
    PlanSpec spec;
    spec.tp = 8;
    spec.dp = 2;
    spec.stageGroups = {"n0+n1"};
    spec.layers = {32};
    QVERIFY(PlanEvaluator::evaluate(req.problem, spec).feasible);
}

void TestStageSlots::dataParallelAcrossNodesUsesTheInterNodeLinks()
{
    // uniformNodes: NVLink 240 GB/s inside a node, InfiniBand 25 GB/s
    // between nodes. DP=16 over two nodes rings through the InfiniBand hop;
    // DP=8 inside one node through NVLink. With the distributed optimizer a
    // DP group moves (DP-1)/DP x 6 bytes per parameter, so the ratio of the
    // two synchronisations is (15/16) / (7/8) x 240 / 25 = 10.29 when
    // latency is negligible (LLaMA2-70B's stage: about 2.2 GB per GPU).
    SearchRequest req;
    req.problem.cluster = test::uniformNodes(2, 8, "H100-SXM");
    req.problem.model = ModelSpec::resolve("llama2-70b");
    req.problem.setup.globalBatch = 64;
    PlanSpec wide;
    wide.tp = 1;
    wide.dp = 16;
    wide.stageGroups = {"n0+n1"};
    wide.layers = {80};
    wide.microBatch = 1;
    PlanSpec narrow = wide;
    narrow.dp = 8;
    narrow.stageGroups = {"n0", "n1"};
    narrow.layers = {40, 40};
    const Plan a = PlanEvaluator::evaluate(req.problem, wide).plan;
    const Plan b = PlanEvaluator::evaluate(req.problem, narrow).plan;
    // Stage 0 of the narrow plan holds 40 layers plus the embedding; scale
    // by parameters: the wide stage holds all 80 layers, embedding and head.
    const double perParamWide = a.dpMs;
    const double perParamNarrow = b.dpMs;
    QVERIFY(perParamWide > 0 && perParamNarrow > 0);
    const double ratio = (perParamWide / perParamNarrow);
    // 80 layers + embedding + head against 40 layers + embedding: about 1.94x the parameters.
    QVERIFY2(ratio > 10.29 * 1.85 && ratio < 10.29 * 2.05, qPrintable(QString::number(ratio)));
}

void TestStageSlots::exportedRanksOfASpanningStage()
{
    // A stage over two nodes gets its ranks on both, in Megatron's order:
    // ranks 0-7 (DP replicas 0-3 of TP 2) on n0, 8-15 on n1.
    SearchRequest req;
    req.problem.cluster = test::uniformNodes(2, 8, "A100-80GB");
    req.problem.model = ModelSpec::resolve("llama2-7b");
    req.problem.setup.globalBatch = 64;
    PlanSpec spec;
    spec.tp = 2;
    spec.dp = 8;
    spec.stageGroups = {"n0+n1"};
    spec.layers = {32};
    const Plan plan = PlanEvaluator::evaluate(req.problem, spec).plan;
    const LaunchLayout lay = LaunchFiles::layout(req.problem.cluster, plan);
    QCOMPARE(static_cast<int>(lay.agents.size()), 2);
    QCOMPARE(lay.hosts[0].name, std::string("n0"));
    QCOMPARE(lay.hosts[1].name, std::string("n1"));
    QCOMPARE(lay.agents[0].firstRank, 0);
    QCOMPARE(lay.agents[1].firstRank, 8);
    for (int r = 0; r < 16; ++r)
        QCOMPARE(req.problem.cluster.devices()[static_cast<std::size_t>(lay.deviceOfRank[static_cast<std::size_t>(r)])]
                     .node,
                 r < 8 ? 0 : 1);
}

void TestStageSlots::tooFewStagesForTheTypesIsExplained()
{
    SearchRequest req;
    req.problem.cluster = Cluster::fromFile(test::sampleCluster("mixed-128gpu-4types.json"));
    req.problem.model = ModelSpec::resolve("llama2-7b");
    req.problem.setup.globalBatch = 256;
    req.problem.setup.maxPipelineStages = 2;
    const SearchResult r = SearchEngine::run(req);
    QVERIFY(QString::fromStdString(r.error).contains("the cluster has 4 types, so --max-pp must be at least 4"));
}

MEMX_TEST_APPLESS_MAIN(TestStageSlots)
}  // namespace tst_stage_slots

#include "tst_stage_slots.moc"
