// Node-loss what-if (issue #32 item 5): a cluster without a node is the
// cluster a file without that node describes; nodes whose loss is the same
// problem are one scenario; losing fast GPUs never speeds a plan up; the
// robust ranking ranks by the worst time, a plan the lost node was idle in
// keeping its own time.
#include "TestClusters.h"
#include "TestRequests.h"

#include "hardware/ClusterGenerator.h"
#include "predict/PredictionStore.h"
#include "search/NodeLossWhatIf.h"
#include "search/PlanCost.h"
#include "search/SearchEngine.h"

#include "TestMain.h"

#include <algorithm>
#include <stdexcept>

namespace tst_node_loss {

using namespace memx;

class TestNodeLoss : public QObject {
    Q_OBJECT
private slots:
    void withoutNodesRenumbers();
    void withoutNodesRefusesNonsense();
    void reducedClusterSearchesLikeItsFile();
    void alikeNodesAreOneScenario_data();
    void alikeNodesAreOneScenario();
    void tokensPerSecondByHand();
    void losingFastGpusNeverHelps();
    void robustRankingByWorstTime();
    void cancelStopsBetweenScenarios();

private:
    test::SearchOnce slow3_;  // the base search of the cases that re-plan or rank it
};

namespace {

// a: 2 x A100; b: 1 x A100 + 1 x T4 (two device groups); c: 2 x T4.
Cluster threeNodes()
{
    const nlohmann::json doc = nlohmann::json::parse(R"({
      "format": "memx-cluster/1", "name": "three",
      "nodes": [ {"name": "a", "gpus": [{"type": "A100-80GB", "count": 2}]},
                 {"name": "b", "gpus": [{"type": "A100-80GB", "count": 1}, {"type": "T4", "count": 1}]},
                 {"name": "c", "gpus": [{"type": "T4", "count": 2}]} ],
      "links": [ {"name": "a-nvl", "kind": "NVLink", "within": "a", "bandwidth_gbps": 300},
                 {"name": "b-pcie", "kind": "PCIe", "within": "b", "bandwidth_gbps": 16},
                 {"name": "c-pcie", "kind": "PCIe", "within": "c:0-1", "bandwidth_gbps": 16},
                 {"name": "ab", "kind": "InfiniBand", "between": ["a", "b"], "bandwidth_gbps": 25},
                 {"name": "bc", "kind": "InfiniBand", "between": ["b:0", "c"], "bandwidth_gbps": 25},
                 {"name": "ac", "kind": "InfiniBand", "between": ["a", "c"], "bandwidth_gbps": 12} ] })");
    return Cluster::fromJson(doc, "three", GpuCatalog::builtin());
}

nlohmann::json generated(int nodes, const std::vector<std::string>& types)
{
    ClusterGenerator::Spec spec;
    spec.nodes = nodes;
    spec.types = types;
    return ClusterGenerator::generate(spec);
}

SearchRequest request(Cluster cluster, int gbs)
{
    SearchRequest req;
    req.problem.cluster = std::move(cluster);
    req.problem.model = ModelSpec::resolve("llama2-7b");
    req.problem.setup.globalBatch = gbs;
    req.problem.setup.microBatchSizes = {1, 2};
    req.options.threads = 2;
    req.store = std::make_shared<PredictionStore>();
    return req;
}

// n0, n1: 8 x H100-SXM; n2: 8 x T4.
Cluster slow3()
{
    return Cluster::fromJson(generated(3, {"H100-SXM", "H100-SXM", "T4"}), "slow3", GpuCatalog::builtin());
}

}  // namespace

void TestNodeLoss::withoutNodesRenumbers()
{
    const Cluster full = threeNodes();
    const Cluster noB = full.withoutNodes({1});
    QCOMPARE(noB.nodes().size(), std::size_t(2));
    QCOMPARE(noB.deviceCount(), 4);
    QCOMPARE(noB.types().size(), std::size_t(2));  // a keeps the A100s, c the T4s
    QCOMPARE(noB.nodes()[1].name, std::string("c"));
    QCOMPARE(noB.nodes()[1].devices, (std::vector<int>{2, 3}));
    QCOMPARE(noB.typeOf(2).name, std::string("T4"));
    QCOMPARE(noB.groups().size(), std::size_t(2));
    QCOMPARE(noB.groups()[1].name, std::string("c"));
    QCOMPARE(noB.groups()[1].devices, (std::vector<int>{2, 3}));
    // ab, bc and b-pcie reach b; ac keeps a's GPUs and c's, now devices 2 and 3.
    QCOMPARE(noB.links().size(), std::size_t(3));
    const Link& ac = noB.links()[2];
    QCOMPARE(ac.name, std::string("ac"));
    QCOMPARE(ac.a, (std::vector<int>{0, 1}));
    QCOMPARE(ac.b, (std::vector<int>{2, 3}));

    // Only b: a mixed node keeps its two groups' names; one link is left.
    const Cluster onlyB = full.withoutNodes({0, 2});
    QCOMPARE(onlyB.deviceCount(), 2);
    QCOMPARE(onlyB.groups().size(), std::size_t(2));
    QCOMPARE(onlyB.groups()[0].name, std::string("b/A100-80GB"));
    QCOMPARE(onlyB.groups()[1].name, std::string("b/T4"));
    QCOMPARE(onlyB.links().size(), std::size_t(1));

    // Without b and c no T4 is left: the type goes, indices follow.
    const Cluster onlyA = full.withoutNodes({1, 2});
    QCOMPARE(onlyA.types().size(), std::size_t(1));
    QCOMPARE(onlyA.types()[0].name, std::string("A100-80GB"));
    for (const Device& d : onlyA.devices()) {
        QCOMPARE(d.type, 0);
        QCOMPARE(d.group, 0);
    }
}

void TestNodeLoss::withoutNodesRefusesNonsense()
{
    const Cluster full = threeNodes();
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, full.withoutNodes({0, 1, 2}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, full.withoutNodes({3}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, full.withoutNodes({-1}));
    QCOMPARE(full.withoutNodes({}).deviceCount(), full.deviceCount());
}

void TestNodeLoss::reducedClusterSearchesLikeItsFile()
{
    // Three generated nodes without the last are the two-node file.
    const Cluster three
        = Cluster::fromJson(generated(3, {"H100-SXM", "H100-SXM", "T4"}), "three", GpuCatalog::builtin());
    const Cluster two = Cluster::fromJson(generated(2, {"H100-SXM"}), "two", GpuCatalog::builtin());
    const SearchResult a = SearchEngine::run(request(three.withoutNodes({2}), 64));
    const SearchResult b = SearchEngine::run(request(two, 64));
    QVERIFY(a.error.empty() && b.error.empty());
    QCOMPARE(a.stats.feasible, b.stats.feasible);
    QCOMPARE(a.best.front().iterationMs, b.best.front().iterationMs);
    QCOMPARE(a.best.front().maxMemMiB, b.best.front().maxMemMiB);
}

void TestNodeLoss::alikeNodesAreOneScenario_data()
{
    QTest::addColumn<QString>("which");
    QTest::addColumn<bool>("slowLink");  // an extra slow link between n0 and n1 only
    QTest::addColumn<QString>("expected");  // scenarios; nodes of one scenario joined by '+'
    QTest::newRow("each") << "each" << false << "n0+n2 n1+n3";
    QTest::newRow("per type") << "per-type" << false << "n0 n1";
    // n0 and n1 now have a link of their own: their losses differ from n2's and n3's.
    QTest::newRow("each, one slow link") << "each" << true << "n0 n1 n2 n3";
    QTest::newRow("per type, one slow link") << "per-type" << true << "n0 n1";
}

void TestNodeLoss::alikeNodesAreOneScenario()
{
    QFETCH(QString, which);
    QFETCH(bool, slowLink);
    QFETCH(QString, expected);
    nlohmann::json doc = generated(4, {"A100-80GB", "H20"});
    if (slowLink)  // beside the InfiniBand fabric across every node
        doc["links"].push_back(
            {{"name", "eth-n0-n1"}, {"kind", "Ethernet"}, {"between", {"n0", "n1"}}, {"bandwidth_gbps", 5.0}});
    const Cluster c = Cluster::fromJson(doc, "four", GpuCatalog::builtin());
    NodeLossWhatIf::Which w{};
    QVERIFY(NodeLossWhatIf::parse(which.toStdString(), w));
    QStringList got;
    for (const auto& nodes : NodeLossWhatIf::scenarioNodes(c, w)) {
        QStringList names;
        for (int n : nodes)
            names << QString::fromStdString(c.nodes()[static_cast<std::size_t>(n)].name);
        got << names.join('+');
    }
    QCOMPARE(got.join(' '), expected);
    QVERIFY(!NodeLossWhatIf::parse("every", w));
}

void TestNodeLoss::tokensPerSecondByHand()
{
    Plan p;
    p.globalBatch = 128;
    p.seqLen = 4096;
    p.iterationMs = 20000;  // 128 x 4096 tokens in 20 s
    QCOMPARE(PlanCost::tokensPerSecond(p), 26214.4);
    p.iterationMs = 0;
    QCOMPARE(PlanCost::tokensPerSecond(p), 0.0);
}

void TestNodeLoss::losingFastGpusNeverHelps()
{
    // Two H100 nodes and a T4 node: without an H100 node the job has half
    // its fast GPUs; without the T4 node it loses at most GPUs it may not use.
    const Cluster c = slow3();
    const SearchRequest req = request(c, 64);
    const SearchResult r = SearchEngine::run(req);
    QVERIFY(r.error.empty());
    const NodeLossWhatIf::Result w = NodeLossWhatIf::run(req, r, {});
    QVERIFY(w.error.empty());
    QCOMPARE(w.scenarios.size(), std::size_t(2));
    const auto& h100 = w.scenarios[0];
    QCOMPARE(h100.name, std::string("n0"));
    QCOMPARE(h100.alike, std::vector<std::string>{"n1"});
    QCOMPARE(h100.gpus, std::string("8 x H100-SXM"));
    QVERIFY(h100.error.empty());
    QVERIFY(!h100.plan1Idle);
    QVERIFY2(h100.slowdown > 0, qPrintable(QString::number(h100.slowdown)));
    QCOMPARE(h100.slowdown, h100.plan.iterationMs / r.best.front().iterationMs - 1);
    const auto& t4 = w.scenarios[1];
    QCOMPARE(t4.name, std::string("n2"));
    QVERIFY(t4.alike.empty());
    QCOMPARE(t4.gpus, std::string("8 x T4"));
    QVERIFY(t4.error.empty());  // the T4 node's loss removes a GPU type: it re-plans without the store
}

void TestNodeLoss::robustRankingByWorstTime()
{
    const SearchResult& r = slow3_.run([] { return request(slow3(), 64); });
    const SearchRequest& req = slow3_.request;
    NodeLossWhatIf::Options o;
    o.robust = true;
    o.topK = 5;
    const NodeLossWhatIf::Result w = NodeLossWhatIf::run(req, r, o);
    QVERIFY(w.robust);
    QVERIFY(!w.robustPlans.empty());
    QVERIFY(w.robustPlans.size() <= o.topK);
    QVERIFY(w.candidates <= 20);  // max(topK, 20) kept plans are tried
    QVERIFY(w.robustPlans.size() + w.cannotResume <= w.candidates);
    double previous = 0;
    for (const auto& rp : w.robustPlans) {
        QCOMPARE(rp.scenarioMs.size(), w.scenarios.size());
        for (std::size_t k = 0; k < rp.scenarioMs.size(); ++k) {
            QVERIFY(rp.scenarioMs[k] > 0);
            if (!rp.resumed[k])  // the node was idle: the plan runs on as it is
                QCOMPARE(rp.scenarioMs[k], rp.plan.iterationMs);
        }
        QCOMPARE(rp.worstMs, *std::max_element(rp.scenarioMs.begin(), rp.scenarioMs.end()));
        QCOMPARE(rp.worstMs, rp.scenarioMs[rp.worst]);
        QVERIFY(rp.worstPhi >= previous);
        previous = rp.worstPhi;
        // Phi is increasing in T: the worst case never ranks a plan better.
        QVERIFY(rp.worstPhi >= rp.plan.phi * (1 - 1e-12) || rp.worstMs < rp.plan.iterationMs);
    }
}

void TestNodeLoss::cancelStopsBetweenScenarios()
{
    const SearchResult& r = slow3_.run([] { return request(slow3(), 64); });
    const SearchRequest& req = slow3_.request;
    NodeLossWhatIf::Options o;
    o.robust = true;
    // Cancelled before it starts: no scenario searched, no ranking, and it says so.
    const NodeLossWhatIf::Result stopped = NodeLossWhatIf::run(req, r, o, [] { return true; });
    QVERIFY(stopped.cancelled);
    QVERIFY(stopped.scenarios.empty());
    QVERIFY(stopped.robustPlans.empty());
    // A predicate that never fires changes nothing: both scenarios (an H100
    // node, the T4 node) and the robust ranking.
    const NodeLossWhatIf::Result whole = NodeLossWhatIf::run(req, r, o, [] { return false; });
    QVERIFY(!whole.cancelled);
    QCOMPARE(whole.scenarios.size(), std::size_t(2));
    QVERIFY(!whole.robustPlans.empty());
}

MEMX_TEST_GUILESS_MAIN(TestNodeLoss)
}  // namespace tst_node_loss

#include "tst_node_loss.moc"
