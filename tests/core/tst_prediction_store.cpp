// PredictionStore: predictions kept across searches, emptied exactly on the
// paper's invalidation conditions (GPU type set, model structure, global
// batch) and on a change of predictor (MemX 3.1.2, 4.3).
#include "TestClusters.h"

#include "hardware/Cluster.h"
#include "hardware/GpuCatalog.h"
#include "predict/AnalyticPredictor.h"
#include "predict/GpuParamsFit.h"
#include "predict/PredictionStore.h"
#include "search/SearchEngine.h"

#include "TestMain.h"

namespace tst_prediction_store {

using namespace memx;

namespace {

Cluster nodesOf(int nodes, const std::string& type, const std::string& extraType = {})
{
    return memx::test::uniformNodes(nodes, 4, type, extraType);
}

SearchRequest request(int nodes, int gbs = 32)
{
    SearchRequest req;
    req.problem.cluster = nodesOf(nodes, "A100-80GB");
    req.problem.model = ModelSpec::resolve("llama2-7b");
    req.problem.setup.globalBatch = gbs;
    req.problem.setup.microBatchSizes = {1, 2};
    req.problem.setup.maxPipelineStages = 4;
    req.options.threads = 1;
    return req;
}

}  // namespace

class TestPredictionStore : public QObject {
    Q_OBJECT
private slots:
    void sameSearchAgainCallsNoPredictor();
    void secondSearch_data();
    void secondSearch();
};

// A search repeated with another objective (which does not change any
// prediction) is answered entirely from the store.
void TestPredictionStore::sameSearchAgainCallsNoPredictor()
{
    auto store = std::make_shared<PredictionStore>();
    SearchRequest a = request(2);
    a.store = store;
    const SearchResult first = SearchEngine::run(a);
    QVERIFY(first.error.empty());
    QVERIFY(first.stats.cacheMisses > 0);
    QCOMPARE(first.stats.storeHits, std::uint64_t(0));
    QVERIFY(store->size() > 0);
    SearchRequest b = request(2);
    b.objective.profile = WeightProfile::SafetyFirst;
    b.store = store;
    const SearchResult second = SearchEngine::run(b);
    QCOMPARE(second.stats.cacheMisses, std::uint64_t(0));
    QVERIFY(second.stats.storeHits > 0);
    QVERIFY(!second.stats.storeInvalidated);
    // The answers are the same as without a store.
    SearchRequest c = request(2);
    c.objective.profile = WeightProfile::SafetyFirst;
    const SearchResult plain = SearchEngine::run(c);
    QCOMPARE(second.best.front().iterationMs, plain.best.front().iterationMs);
    QCOMPARE(second.best.front().maxMemMiB, plain.best.front().maxMemMiB);
}

void TestPredictionStore::secondSearch_data()
{
    QTest::addColumn<QString>("change");
    QTest::addColumn<bool>("invalidated");
    QTest::newRow("more nodes of the same type") << "nodes" << false;
    QTest::newRow("objective weights") << "objective" << false;
    QTest::newRow("a new GPU type") << "type" << true;
    QTest::newRow("model structure") << "model" << true;
    QTest::newRow("global batch") << "gbs" << true;
    QTest::newRow("another predictor") << "predictor" << true;
    QTest::newRow("same predictor settings, new object") << "analytic" << false;
    // Calibrated analytic models that differ only in the host time per
    // schedule step answer differently, and so do not share predictions.
    QTest::newRow("calibrated: another step time") << "step" << true;
    QTest::newRow("calibrated: the same values") << "same fit" << false;
}

void TestPredictionStore::secondSearch()
{
    QFETCH(QString, change);
    QFETCH(bool, invalidated);
    auto store = std::make_shared<PredictionStore>();
    auto calibrated = [](double stepUs) {
        GpuParamsFit f = GpuParamsFit::of(*GpuCatalog::builtin().find("A100-80GB"));
        f.stepOverheadUs = stepUs;
        auto a = std::make_shared<AnalyticPredictor>();
        a->setCalibration({f});
        return a;
    };
    SearchRequest a = request(1);
    if (change == "step" || change == "same fit")
        a.predictor = calibrated(50);
    a.store = store;
    QVERIFY(SearchEngine::run(a).error.empty());
    SearchRequest b = request(1);
    if (change == "nodes")
        b = request(2);
    else if (change == "objective")
        b.objective.profile = WeightProfile::ThroughputFirst;
    else if (change == "type")
        b.problem.cluster = nodesOf(2, "A100-80GB", "H100-SXM");
    else if (change == "model")
        b.problem.model = ModelSpec::resolve("llama2-13b");
    else if (change == "gbs")
        b = request(1, 64);
    else if (change == "predictor") {
        AnalyticPredictor::Params p;
        p.relativeUncertainty = 0.3;
        b.predictor = std::make_shared<AnalyticPredictor>(p);
    } else if (change == "analytic")
        b.predictor = std::make_shared<AnalyticPredictor>();
    else if (change == "step")
        b.predictor = calibrated(500);
    else if (change == "same fit")
        b.predictor = calibrated(50);
    b.store = store;
    const SearchResult r = SearchEngine::run(b);
    QVERIFY(r.error.empty());
    QCOMPARE(r.stats.storeInvalidated, invalidated);
    if (invalidated)
        QCOMPARE(r.stats.storeHits, std::uint64_t(0));
    else
        QVERIFY(r.stats.storeHits > 0);
}

MEMX_TEST_GUILESS_MAIN(TestPredictionStore)
}  // namespace tst_prediction_store

#include "tst_prediction_store.moc"
