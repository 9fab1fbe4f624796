// Choosing which GPUs to use (issue #32 item 4): prices per GPU-hour are read
// strictly; a plan's cost counts the nodes it uses, whole (hand arithmetic);
// the node choice searches the cluster with the nodes of each set of types
// left out, and with some nodes of one type left out, ranks by throughput or
// cost and applies the limits.
#include "TestInputErrors.h"

#include "hardware/ClusterGenerator.h"
#include "hardware/GpuCatalog.h"
#include "io/InputError.h"
#include "predict/PredictionStore.h"
#include "search/NodeChoice.h"
#include "search/SearchEngine.h"

#include "TestMain.h"

namespace tst_node_choice {

using namespace memx;

class TestNodeChoice : public QObject {
    Q_OBJECT
private slots:
    void pricesAreReadStrictly_data();
    void pricesAreReadStrictly();
    void planCostByHand();
    void unknownPriceMeansUnknownCost();
    void choicesRankedAndLimited();
    void keptCounts_data();
    void keptCounts();
    void someNodesOfATypeLeftOut();
    void timeLimitBoundsTheChoices();
    void progressAndCancel();
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
    // Both types, H100 only, T4 only, and one of the two H100 nodes with the
    // T4 node (the single T4 node has no count to sweep).
    QCOMPARE(byThroughput.rows.size(), std::size_t(4));
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
        if (!row.part.empty()) {
            QCOMPARE(row.part, (std::vector<NodeChoice::PartNodes>{{"H100-SXM", 1, 2}}));
            QCOMPARE(row.left, std::vector<std::string>{"n1"});  // the last H100 node
            QCOMPARE(row.gpus, 16);
            QCOMPARE(NodeChoice::keptText(row), std::string("H100-SXM 1/2 nodes + T4"));
        }
    }

    o.rank = NodeChoice::Rank::Cost;
    const NodeChoice::Result byCost = NodeChoice::run(req, r, o);
    QVERIFY(byCost.rows[0].cost.perMillionTokens <= byCost.rows[1].cost.perMillionTokens);

    // At most 30 per hour: the H100-only choice (40) goes, one H100 node
    // and the T4 node (at most 8 x 2.5 + 8 x 0.35 = 22.8) stays; the whole
    // cluster's row stays, marked.
    o.maxCostPerHour = 30;
    const NodeChoice::Result limited = NodeChoice::run(req, r, o);
    QCOMPARE(limited.dropped, std::size_t(1));
    QCOMPARE(limited.rows.size(), std::size_t(3));
    for (const auto& row : limited.rows)
        if (row.whole)
            QCOMPARE(row.meetsLimits, row.cost.perHour <= 30);
    QVERIFY(NodeChoice::parseRank("cost", o.rank));
    QVERIFY(!NodeChoice::parseRank("cheap", o.rank));
}

void TestNodeChoice::keptCounts_data()
{
    QTest::addColumn<int>("nodes");
    QTest::addColumn<QList<int>>("kept");
    QTest::newRow("one node: nothing to sweep") << 1 << QList<int>{};
    QTest::newRow("two") << 2 << QList<int>{1};
    QTest::newRow("seven: every count") << 7 << QList<int>{6, 5, 4, 3, 2, 1};
    // 7, 6, the power of two 4, 3n/4 = 6, n/2 = 4, n/4 = 2, 1.
    QTest::newRow("eight") << 8 << QList<int>{7, 6, 4, 2, 1};
    // 15, 14, 8, 12, 8, 4, 1.
    QTest::newRow("sixteen") << 16 << QList<int>{15, 14, 12, 8, 4, 1};
    // 99, 98, 64, 75, 50, 25, 1.
    QTest::newRow("a hundred") << 100 << QList<int>{99, 98, 75, 64, 50, 25, 1};
}

void TestNodeChoice::keptCounts()
{
    QFETCH(int, nodes);
    QFETCH(QList<int>, kept);
    const std::vector<int> got = NodeChoice::keptCounts(nodes);
    QCOMPARE(QList<int>(got.begin(), got.end()), kept);
}

namespace {

// n0, n3: 4 x H100-SXM at 1 per GPU-hour; n1, n4: 4 x A100-80GB and n2, n5:
// 4 x V100-32GB, both at 40: the dear types pay for little of the throughput.
SearchRequest dearSlowTypes()
{
    ClusterGenerator::Spec spec;
    spec.nodes = 6;
    spec.gpusPerNode = 4;
    spec.types = {"H100-SXM", "A100-80GB", "V100-32GB"};
    nlohmann::json doc = ClusterGenerator::generate(spec);
    doc["gpu_types"] = {{"H100-SXM", {{"price_per_gpu_hour", 1.0}}},
                        {"A100-80GB", {{"price_per_gpu_hour", 40.0}}},
                        {"V100-32GB", {{"price_per_gpu_hour", 40.0}}}};
    SearchRequest req = request(Cluster::fromJson(doc, "dear.json", GpuCatalog::builtin()));
    req.problem.setup.microBatchSizes = {1};  // 11 searches: a small space each
    return req;
}

}  // namespace

void TestNodeChoice::someNodesOfATypeLeftOut()
{
    const SearchRequest req = dearSlowTypes();
    const SearchResult r = SearchEngine::run(req);
    QVERIFY(r.error.empty());
    NodeChoice::Options o;
    o.rank = NodeChoice::Rank::Cost;
    const NodeChoice::Result c = NodeChoice::run(req, r, o);
    // 7 sets of types, one count (1 of 2 nodes) for each of the 3 types, and
    // the dear types at their best counts together.
    QCOMPARE(c.rows.size(), std::size_t(11));
    double wholeKey = 0;
    for (const auto& row : c.rows)
        if (row.whole)
            wholeKey = row.cost.perMillionTokens;
    const NodeChoice::Row* together = nullptr;
    for (const auto& row : c.rows) {
        QVERIFY2(row.error.empty(), row.error.c_str());
        if (row.part.size() == 1) {
            // The last node of the type is the one left out.
            const auto& p = row.part.front();
            QCOMPARE(p.kept, 1);
            QCOMPARE(p.of, 2);
            const std::string last = p.type == "H100-SXM" ? "n3" : p.type == "A100-80GB" ? "n4" : "n5";
            QCOMPARE(row.left, std::vector<std::string>{last});
            QCOMPARE(row.gpus, 20);
            // Half the dear nodes cost less per token than all of them; half
            // the cheap fast ones cost more.
            if (p.type == "H100-SXM")
                QVERIFY(row.cost.perMillionTokens > wholeKey);
            else
                QVERIFY(row.cost.perMillionTokens < wholeKey);
        } else if (row.part.size() > 1) {
            together = &row;
        }
    }
    QVERIFY(together);
    QCOMPARE(together->part, (std::vector<NodeChoice::PartNodes>{{"A100-80GB", 1, 2}, {"V100-32GB", 1, 2}}));
    QCOMPARE(together->left, (std::vector<std::string>{"n4", "n5"}));
    QCOMPARE(together->gpus, 16);
    QCOMPARE(NodeChoice::keptText(*together), std::string("A100-80GB 1/2 nodes + H100-SXM + V100-32GB 1/2 nodes"));
}

void TestNodeChoice::timeLimitBoundsTheChoices()
{
    SearchRequest req = dearSlowTypes();
    const SearchResult r = SearchEngine::run(req);
    QVERIFY(r.error.empty());
    // A limit spent before the first choice: every choice but the whole
    // cluster (the search already made) is named as not searched.
    req.options.timeLimitS = 1e-9;
    const NodeChoice::Result c = NodeChoice::run(req, r, {});
    QCOMPARE(c.rows.size(), std::size_t(10));  // no count gained, so no row of counts together
    QCOMPARE(c.notSearched, std::size_t(9));
    for (const auto& row : c.rows)
        QCOMPARE(row.error.empty(), row.whole);
    QCOMPARE(QString::fromStdString(c.rows.back().error), QString(NodeChoice::timeRanOut));
}

void TestNodeChoice::progressAndCancel()
{
    const SearchRequest req = request(cluster(slow3()));
    const SearchResult r = SearchEngine::run(req);
    QVERIFY(r.error.empty());
    // Three sets of types and one H100 count: four choices, each reported.
    std::vector<std::pair<std::size_t, std::size_t>> calls;
    const NodeChoice::Result all
        = NodeChoice::run(req, r, {}, [&](std::size_t done, std::size_t total) { calls.emplace_back(done, total); });
    QVERIFY(!all.cancelled);
    QCOMPARE(calls, (std::vector<std::pair<std::size_t, std::size_t>>{{1, 4}, {2, 4}, {3, 4}, {4, 4}}));
    // Cancelled after two choices: their rows, and it says so.
    std::size_t done = 0;
    const NodeChoice::Result part = NodeChoice::run(
        req, r, {}, [&](std::size_t d, std::size_t) { done = d; }, [&] { return done >= 2; });
    QVERIFY(part.cancelled);
    QCOMPARE(part.rows.size(), std::size_t(2));
}

MEMX_TEST_GUILESS_MAIN(TestNodeChoice)
}  // namespace tst_node_choice

#include "tst_node_choice.moc"
