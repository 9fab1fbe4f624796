// "Why is there no plan of this shape?" (issue #35 item 7): a user who misses
// PP=1 plans on a mixed cluster, or any (TP, PP, DP), gets the rule, the stage
// slots or the memory that stops it, and a shape that has plans says how many.
// Expected reasons are worked out by hand from the cluster and the model
// (LLaMA2-13B: 40 heads, 40 layers; LLaMA2-70B: 64 heads, 80 layers).
#include "TestPaths.h"

#include "hardware/Cluster.h"
#include "hardware/GpuCatalog.h"
#include "search/ShapeExplanation.h"
#include "space/Problem.h"

#include "TestMain.h"

namespace tst_shape_explanation {

using namespace memx;

namespace {

// One node of 8 A100-80GB and one of 8 H100-SXM (docs/hetero_meshes/a100-h100-16.json).
Cluster a100h100(bool linksInside = true)
{
    nlohmann::json doc = nlohmann::json::parse(R"({
      "format": "memx-cluster/1", "name": "a100-h100-16",
      "nodes": [{"name": "a100", "gpus": [{"type": "A100-80GB", "count": 8}]},
                {"name": "h100", "gpus": [{"type": "H100-SXM", "count": 8}]}],
      "links": [{"name": "a", "kind": "NVLink", "within": "a100", "bandwidth_gbps": 300, "latency_us": 3},
                {"name": "h", "kind": "NVLink", "within": "h100", "bandwidth_gbps": 450, "latency_us": 3},
                {"name": "ib", "kind": "InfiniBand", "between": ["a100", "h100"], "bandwidth_gbps": 50, "latency_us": 5}]})");
    if (!linksInside)  // only the InfiniBand link between the nodes
        doc["links"].erase(doc["links"].begin(), doc["links"].begin() + 2);
    return Cluster::fromJson(doc, "a100-h100-16.json", GpuCatalog::builtin());
}

Problem problem(const QString& cluster, const QString& model, int gbs, const std::vector<int>& mbs, int maxPp,
                bool allowIdle)
{
    Problem p;
    p.cluster = cluster == "a100h100"     ? a100h100()
        : cluster == "a100h100 no NVLink" ? a100h100(false)
                                          : Cluster::fromFile(test::sampleCluster(cluster.toStdString()));
    p.model = ModelSpec::resolve(model.toStdString());
    p.setup.globalBatch = gbs;
    p.setup.microBatchSizes = mbs;
    p.setup.maxPipelineStages = maxPp;
    p.setup.allowIdleGpus = allowIdle;
    return p;
}

}  // namespace

class TestShapeExplanation : public QObject {
    Q_OBJECT

private slots:
    void explains_data();
    void explains();
    void badShapeText_data();
    void badShapeText();
};

void TestShapeExplanation::explains_data()
{
    QTest::addColumn<QString>("cluster");
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("gbs");
    QTest::addColumn<std::vector<int>>("mbs");
    QTest::addColumn<int>("maxPp");
    QTest::addColumn<bool>("allowIdle");
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("pp");
    QTest::addColumn<int>("dp");
    QTest::addColumn<bool>("fits");
    QTest::addColumn<QString>("says");

    const std::vector<int> mbs{1, 2, 4};
    // 40 heads do not split over 3.
    QTest::newRow("heads by TP") << "a100h100"
                                 << "llama2-13b" << 64 << mbs << 8 << true << 3 << 2 << 1 << false
                                 << "40 heads, which TP 3 does not divide";
    // Each node has 8 GPUs of one type: TP 16 cannot stay in one.
    QTest::newRow("rule 1") << "a100h100"
                            << "llama2-13b" << 64 << mbs << 8 << true << 16 << 1 << 1 << false
                            << "the largest such group here is 8 GPUs";
    // TP 8 x DP 2 = 16 GPUs of one type: each type has only 8.
    QTest::newRow("no slot") << "a100h100"
                             << "llama2-13b" << 64 << mbs << 8 << true << 8 << 1 << 2 << false
                             << "no GPU type can hold a stage of TP x DP = 16 GPUs";
    // The issue's case: TP 8 x DP 1 = 8 cuts two slots, one per node, so PP is 2.
    QTest::newRow("PP=1 on a mixed cluster") << "a100h100"
                                             << "llama2-13b" << 64 << mbs << 8 << true << 8 << 1 << 1 << false
                                             << "cuts the cluster into 2 stage slots (A100-80GB 1, H100-SXM 1)";
    // TP 4 x DP 1 = 4: two slots per node, PP 4, above --max-pp 2.
    QTest::newRow("max-pp") << "a100h100"
                            << "llama2-13b" << 64 << mbs << 2 << true << 4 << 4 << 1 << false
                            << "above the search's limit (--max-pp 2)";
    // TP 1 x DP 3 = 3: two slots of 3 per node of 8, four GPUs idle.
    QTest::newRow("idle GPUs") << "a100h100"
                               << "llama2-13b" << 63 << std::vector<int>{1} << 8 << false << 1 << 4 << 3 << false
                               << "leaves 4 GPUs idle";
    // TP 4 x DP 2 = 8: PP 2; 63 is odd, so DP 2 x mbs 1 does not divide it.
    QTest::newRow("global batch") << "a100h100"
                                  << "llama2-13b" << 63 << std::vector<int>{1} << 8 << true << 4 << 2 << 2 << false
                                  << "global batch 63 is not divisible by DP 2";
    // LLaMA2-70B over 6 stages of one GPU: some 11.7e9 parameters a stage, far
    // above 32 or 16 GB with their gradients and Adam states.
    QTest::newRow("memory") << "paper-6gpu-v100-t4.json"
                            << "llama2-70b" << 32 << std::vector<int>{1} << 8 << true << 1 << 6 << 1 << false
                            << "memory: no layer split";
    // The same shape with no link inside the nodes: TP 8 cannot talk.
    QTest::newRow("no link inside a node") << "a100h100 no NVLink"
                                           << "llama2-13b" << 64 << mbs << 8 << true << 8 << 2 << 1 << false
                                           << "its stages cannot be joined: no link joins the GPUs inside";
    // TP 8 x DP 1, PP 2: 13B parameters over 16 GPUs of 80 GB fit.
    QTest::newRow("a shape that fits") << "a100h100"
                                       << "llama2-13b" << 64 << mbs << 8 << true << 8 << 2 << 1 << true
                                       << "of this shape fit";
}

void TestShapeExplanation::explains()
{
    QFETCH(QString, cluster);
    QFETCH(QString, model);
    QFETCH(int, gbs);
    QFETCH(std::vector<int>, mbs);
    QFETCH(int, maxPp);
    QFETCH(bool, allowIdle);
    QFETCH(int, tp);
    QFETCH(int, pp);
    QFETCH(int, dp);
    QFETCH(bool, fits);
    QFETCH(QString, says);
    const ShapeExplanation e = ShapeExplanation::of(problem(cluster, model, gbs, mbs, maxPp, allowIdle), tp, pp, dp);
    const QString text = QString::fromStdString(e.text());
    QCOMPARE(e.fits, fits);
    QVERIFY2(text.contains(says), qPrintable(text));
    if (fits) {
        QVERIFY(e.plans > 0);
        QVERIFY(e.reasons.empty());
    } else {
        QVERIFY(!e.reasons.empty());
        QCOMPARE(e.plans, std::uint64_t(0));
    }
    const nlohmann::json j = e.toJson();
    QCOMPARE(j.at("fits").get<bool>(), fits);
    QCOMPARE(j.at("reasons").size(), e.reasons.size());
}

void TestShapeExplanation::badShapeText_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("ok");
    QTest::newRow("good") << "8,1,2" << true;
    QTest::newRow("two numbers") << "8,1" << false;
    QTest::newRow("zero") << "8,0,2" << false;
    QTest::newRow("negative") << "8,-1,2" << false;
    QTest::newRow("letters") << "a,b,c" << false;
    QTest::newRow("four numbers") << "8,1,2,3" << false;
    QTest::newRow("empty") << "" << false;
    QTest::newRow("huge") << "99999999999,1,1" << false;
}

void TestShapeExplanation::badShapeText()
{
    QFETCH(QString, text);
    QFETCH(bool, ok);
    int tp = 0, pp = 0, dp = 0;
    QCOMPARE(ShapeExplanation::parseShape(text.toStdString(), tp, pp, dp), ok);
    if (ok) {
        QCOMPARE(tp, 8);
        QCOMPARE(pp, 1);
        QCOMPARE(dp, 2);
    }
}

MEMX_TEST_APPLESS_MAIN(TestShapeExplanation)
}  // namespace tst_shape_explanation

#include "tst_shape_explanation.moc"
