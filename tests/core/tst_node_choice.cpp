// Choosing which GPUs to use (issue #32 item 4): prices per GPU-hour are read
// strictly; a plan's cost counts the nodes it uses, whole (hand arithmetic);
// the node choice searches the cluster with the nodes of each set of types
// left out, ranks by throughput or cost and applies the limits.
#include "TestInputErrors.h"

#include "hardware/ClusterGenerator.h"
#include "hardware/GpuCatalog.h"
#include "io/InputError.h"
#include "predict/PredictionStore.h"
#include "search/NodeChoice.h"
#include "search/SearchEngine.h"

#include <QtTest>

using namespace memx;

class TestNodeChoice : public QObject {
    Q_OBJECT
private slots:
    void pricesAreReadStrictly_data();
    void pricesAreReadStrictly();
    void planCostByHand();
    void unknownPriceMeansUnknownCost();
    void choicesRankedAndLimited();
};

namespace {

// n0, n1: 8 x H100-SXM at 2.5 per GPU-hour; n2: 8 x T4 at 0.35.
nlohmann::json slow3(const nlohmann::json& h100Price = 2.5, const nlohmann::json& t4Price = 0.35)
{
    ClusterGenerator::Spec spec;
    spec.nodes = 3;
    spec.types = {"H100-SXM", "H100-SXM", "T4"};
    nlohmann::json doc = ClusterGenerator::generate(spec);
    doc["gpu_types"] = {{"H100-SXM", {{"price_per_gpu_hour", h100Price}}}, {"T4", {{"price_per_gpu_hour", t4Price}}}};
    return doc;
}

Cluster cluster(const nlohmann::json& doc) { return Cluster::fromJson(doc, "slow3.json", GpuCatalog::builtin()); }

Plan planOn(std::vector<int> devices, double ms)
{
    Plan p;
    p.globalBatch = 64;
    p.seqLen = 4096;
    p.iterationMs = ms;
    StagePlan s;
    s.devices = std::move(devices);
    p.stages = {s};
    return p;
}

SearchRequest request(Cluster c)
{
    SearchRequest req;
    req.problem.cluster = std::move(c);
    req.problem.model = ModelSpec::resolve("llama2-7b");
    req.problem.setup.globalBatch = 64;
    req.problem.setup.microBatchSizes = {1, 2};
    req.options.threads = 2;
    req.store = std::make_shared<PredictionStore>();
    return req;
}

}  // namespace

void TestNodeChoice::pricesAreReadStrictly_data()
{
    QTest::addColumn<QString>("price");  // JSON
    QTest::addColumn<QString>("expected");  // in the message; empty: accepted
    QTest::newRow("negative") << "-1"
                              << "gpu_types/H100-SXM/price_per_gpu_hour";
    QTest::newRow("absurd") << "5000"
                            << "price per GPU-hour";
    QTest::newRow("text") << "\"cheap\""
                          << "price_per_gpu_hour";
    QTest::newRow("zero (owned)") << "0"
                                  << "";
    QTest::newRow("null (unknown)") << "null"
                                    << "";
}

void TestNodeChoice::pricesAreReadStrictly()
{
    QFETCH(QString, price);
    QFETCH(QString, expected);
    const nlohmann::json doc = slow3(nlohmann::json::parse(price.toStdString()));
    if (expected.isEmpty()) {
        const Cluster c = cluster(doc);
        QCOMPARE(c.typeOf(0).pricePerHour, price == "null" ? -1.0 : 0.0);
        return;
    }
    try {
        cluster(doc);
        QFAIL("accepted");
    } catch (const InputError& e) {
        QVERIFY2(QString::fromStdString(e.what()).contains(expected), e.what());
        QVERIFY2(QString::fromStdString(e.what()).contains("slow3.json"), e.what());
    }
}

void TestNodeChoice::planCostByHand()
{
    const Cluster c = cluster(slow3());
    // Four GPUs of n0: the whole node is paid, 8 x 2.5 = 20 per hour.
    const PlanCost cost = PlanCost::of(c, planOn({0, 1, 2, 3}, 10000));
    QCOMPARE(cost.usedGpus, 4);
    QCOMPARE(cost.paidGpus, 8);
    QCOMPARE(cost.perHour, 20.0);
    QCOMPARE(cost.tokensPerS, 26214.4);  // 64 x 4096 tokens in 10 s
    // 20 per hour / (26214.4 x 3600 tokens per hour) x 1e6 = 0.211927...
    QVERIFY(qFuzzyCompare(cost.perMillionTokens, 20.0 / 94371840.0 * 1e6));
    QCOMPARE(cost.unusedNodes, (std::vector<std::string>{"n1", "n2"}));
    // One GPU on each node: 8 x 2.5 + 8 x 2.5 + 8 x 0.35 = 42.8 per hour.
    const PlanCost all = PlanCost::of(c, planOn({0, 8, 16}, 10000));
    QCOMPARE(all.paidGpus, 24);
    QVERIFY(qFuzzyCompare(all.perHour, 42.8));
    QVERIFY(all.unusedNodes.empty());
}

void TestNodeChoice::unknownPriceMeansUnknownCost()
{
    const Cluster c = cluster(slow3(2.5, nullptr));
    QCOMPARE(PlanCost::of(c, planOn({0}, 1000)).perHour, 20.0);  // the T4 node is not paid
    const PlanCost withT4 = PlanCost::of(c, planOn({0, 16}, 1000));
    QCOMPARE(withT4.perHour, -1.0);
    QCOMPARE(withT4.perMillionTokens, -1.0);
    QVERIFY(withT4.tokensPerS > 0);
}

void TestNodeChoice::choicesRankedAndLimited()
{
    const SearchRequest req = request(cluster(slow3()));
    const SearchResult r = SearchEngine::run(req);
    QVERIFY(r.error.empty());
    NodeChoice::Options o;
    NodeChoice::Result byThroughput = NodeChoice::run(req, r, o);
    QVERIFY(byThroughput.pricesKnown);
    QCOMPARE(byThroughput.rows.size(), std::size_t(3));  // both types, H100 only, T4 only
    // T4 alone cannot hold LLaMA2-7B's optimizer state: its row says why, last.
    const auto& last = byThroughput.rows.back();
    QCOMPARE(last.types, std::vector<std::string>{"T4"});
    QCOMPARE(last.left, (std::vector<std::string>{"n0", "n1"}));
    QVERIFY(!last.error.empty());
    QVERIFY(byThroughput.rows[0].cost.tokensPerS >= byThroughput.rows[1].cost.tokensPerS);
    for (const auto& row : byThroughput.rows) {
        if (row.whole)
            QCOMPARE(row.plan.key, r.best.front().key);
        if (row.types == std::vector<std::string>{"H100-SXM"}) {
            QCOMPARE(row.left, std::vector<std::string>{"n2"});
            QCOMPARE(row.gpus, 16);
            QCOMPARE(row.cost.perHour, 40.0);  // both H100 nodes, 16 x 2.5
        }
    }

    o.rank = NodeChoice::Rank::Cost;
    const NodeChoice::Result byCost = NodeChoice::run(req, r, o);
    QVERIFY(byCost.rows[0].cost.perMillionTokens <= byCost.rows[1].cost.perMillionTokens);

    // At most 30 per hour: the H100-only choice (40) goes; the whole
    // cluster's row stays, marked.
    o.maxCostPerHour = 30;
    const NodeChoice::Result limited = NodeChoice::run(req, r, o);
    QCOMPARE(limited.dropped, std::size_t(1));
    QCOMPARE(limited.rows.size(), std::size_t(2));
    for (const auto& row : limited.rows)
        if (row.whole)
            QCOMPARE(row.meetsLimits, row.cost.perHour <= 30);
    QVERIFY(NodeChoice::parseRank("cost", o.rank));
    QVERIFY(!NodeChoice::parseRank("cheap", o.rank));
}

QTEST_GUILESS_MAIN(TestNodeChoice)
#include "tst_node_choice.moc"
