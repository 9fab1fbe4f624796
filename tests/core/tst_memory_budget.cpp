// --max-memory (issue #14, item 5): what a search keeps fits the budget it
// is given, a budget too small for a useful search is refused with the least
// that works, and a prediction cache that starts over when full changes the
// number of predictor calls, never an answer.
#include "TestClusters.h"
#include "predict/AnalyticPredictor.h"
#include "predict/PredictionCache.h"
#include "search/MemoryBudget.h"
#include "search/SearchEngine.h"
#include "search/SearchSample.h"
#include "search/StageRowCache.h"

#include "TestMain.h"

namespace tst_memory_budget {

using namespace memx;

class TestMemoryBudget : public QObject {
    Q_OBJECT
private slots:
    void noBudgetKeepsTheDefaults();
    void keptSizesFitTheBudget_data();
    void keptSizesFitTheBudget();
    void tooSmallNamesTheLeast();
    void plansCostMoreOnBiggerClusters();
    void fullCacheStartsOver();
    void searchUnderABudget();

private:
    static Problem problem(int nodes);
};

Problem TestMemoryBudget::problem(int nodes)
{
    Problem p;
    p.cluster = test::mixedNodes(nodes);
    p.model = ModelSpec::resolve("llama2-70b");
    p.setup.globalBatch = 512;
    p.setup.maxPipelineStages = 8;
    p.setup.meshes = MeshMode::Uniform;  // the sizes below were measured on the uniform space
    return p;
}

void TestMemoryBudget::noBudgetKeepsTheDefaults()
{
    const SearchOptions o;
    const MemoryBudget::Sizes s = MemoryBudget::sizes(o, problem(4), 2, 1);
    QCOMPARE(s.sampleBudget, o.sampleBudget);
    QCOMPARE(s.estimateSamples, o.estimateSamples);
    QCOMPARE(s.frontCapacity, o.frontCapacity);
    QCOMPARE(s.plotPoints, o.plotPoints);
    // The prediction caches stop at 128 MiB each (the documented default).
    const double cacheBytes = double(s.cacheEntries) * double(PredictionCache::bytesPerEntry());
    QVERIFY(cacheBytes <= 128.0 * 1024 * 1024);
    QVERIFY(cacheBytes > 128.0 * 1024 * 1024 - double(PredictionCache::bytesPerEntry()));
}

void TestMemoryBudget::keptSizesFitTheBudget_data()
{
    QTest::addColumn<int>("nodes");
    QTest::addColumn<int>("threads");
    QTest::addColumn<double>("mib");
    QTest::newRow("32 GPUs, 2 threads, 64 MiB") << 4 << 2 << 64.0;
    QTest::newRow("32 GPUs, 16 threads, 256 MiB") << 4 << 16 << 256.0;
    QTest::newRow("512 GPUs, 2 threads, 100 MiB") << 64 << 2 << 100.0;
    QTest::newRow("512 GPUs, 8 threads, 1 GiB") << 64 << 8 << 1024.0;
}

// The worst case of every kept structure, priced as MemoryBudget documents
// (a sample entry four times over, two fronts and a plot per worker plus the
// merged ones, caches per worker), adds up to no more than the budget.
void TestMemoryBudget::keptSizesFitTheBudget()
{
    QFETCH(int, nodes);
    QFETCH(int, threads);
    QFETCH(double, mib);
    SearchOptions o;
    o.maxMemoryMiB = mib;
    const Problem p = problem(nodes);
    const MemoryBudget::Sizes s = MemoryBudget::sizes(o, p, threads, 1);
    const double plan = MemoryBudget::planBytes(p);
    const double copies = threads + 1;
    const double bytes = std::max(s.sampleBudget, s.estimateSamples) * 4.0 * sizeof(SearchSample::Entry)
        + copies * 2 * s.frontCapacity * plan + copies * s.plotPoints * plan
        + threads * double(s.cacheEntries) * PredictionCache::bytesPerEntry() + threads * double(s.rowCacheBytes)
        + copies * 2 * o.topK * plan;
    QVERIFY2(bytes <= mib * 1024 * 1024, qPrintable(QStringLiteral("%1 MiB").arg(bytes / 1024 / 1024)));
    // Nothing grows past its default, and the caches are bounded.
    QVERIFY(s.sampleBudget <= o.sampleBudget && s.estimateSamples <= o.estimateSamples);
    QVERIFY(s.frontCapacity <= o.frontCapacity && s.plotPoints <= o.plotPoints);
    QVERIFY(s.cacheEntries >= 4096);
    QVERIFY(s.rowCacheBytes >= 1024 * 1024 && s.rowCacheBytes <= StageRowCache::kDefaultBytes);
    QVERIFY(s.estimateSamples >= 20000 && s.frontCapacity >= 200 && s.plotPoints >= 200);
}

void TestMemoryBudget::tooSmallNamesTheLeast()
{
    SearchOptions o;
    o.maxMemoryMiB = 5;
    try {
        MemoryBudget::sizes(o, problem(4), 2, 1);
        QFAIL("a 5 MiB budget was accepted");
    } catch (const std::invalid_argument& e) {
        const QString msg = QString::fromUtf8(e.what());
        const QRegularExpression least(
            R"(a memory budget of 5 MiB is below the least this search works in, (\d+) MiB)");
        const auto m = least.match(msg);
        QVERIFY2(m.hasMatch(), qPrintable(msg));
        // The least it names does work.
        o.maxMemoryMiB = m.captured(1).toDouble();
        MemoryBudget::sizes(o, problem(4), 2, 1);
    }
}

void TestMemoryBudget::plansCostMoreOnBiggerClusters()
{
    // Each plan lists every device it uses: 512 devices are 480 ints more than 32.
    QVERIFY(MemoryBudget::planBytes(problem(64)) - MemoryBudget::planBytes(problem(4)) >= 480 * sizeof(int));
}

// Three answers kept at most: the fourth query empties the cache, and every
// answer still equals the predictor's own.
void TestMemoryBudget::fullCacheStartsOver()
{
    const AnalyticPredictor predictor;
    PredictionCache cache(predictor);
    cache.setCapacity(3);
    const GpuType a100 = *GpuCatalog::builtin().find("A100-80GB");
    const ModelSpec m = ModelSpec::resolve("llama2-7b");
    std::vector<StageQuery> queries;
    for (int layers = 1; layers <= 5; ++layers) {
        StageQuery q;
        q.gpu = &a100;
        q.layers = layers;
        q.seqLen = 4096;
        q.hidden = m.hidden;
        q.heads = m.heads;
        q.headDim = m.hidden / m.heads;
        q.queryGroups = m.heads;
        q.ffnHidden = m.ffnHidden;
        q.vocab = m.vocab;
        queries.push_back(q);
    }
    std::vector<StagePrediction> cached, direct(queries.size());
    cache.predict(queries, cached);
    cache.predict(queries, cached);  // again: the first ones were dropped
    predictor.predict(queries, direct);
    QCOMPARE(cached.size(), direct.size());
    for (std::size_t i = 0; i < direct.size(); ++i) {
        QCOMPARE(cached[i].timeMs, direct[i].timeMs);
        QCOMPARE(cached[i].memory.totalMiB(), direct[i].memory.totalMiB());
    }
    QVERIFY(cache.size() <= 3);
    QVERIFY(cache.resets() >= 2);
}

// A 32-GPU search under a budget that keeps the whole sample but caps the
// fronts, the plot and the caches: the same best plans and fastest plans as
// without a budget, the caches emptied on the way, and the report says so.
void TestMemoryBudget::searchUnderABudget()
{
    SearchRequest req;
    req.problem = problem(4);
    req.options.threads = 2;
    const SearchResult free = SearchEngine::run(req);
    QVERIFY2(free.error.empty(), free.error.c_str());
    req.options.maxMemoryMiB = 128;
    const SearchResult capped = SearchEngine::run(req);
    QVERIFY2(capped.error.empty(), capped.error.c_str());
    // Both caches hit their caps and started over; the free search never did.
    // (How many predictions that costs depends on which worker took which
    // skeleton, so the miss counts are not compared.)
    QVERIFY(capped.stats.cacheResets > 0);
    QCOMPARE(free.stats.cacheResets, std::uint64_t(0));
    QCOMPARE(free.stats.rowResets, std::uint64_t(0));
    QCOMPARE(capped.references.time, free.references.time);  // the sample was not cut
    QCOMPARE(capped.best.size(), free.best.size());
    for (std::size_t i = 0; i < free.best.size(); ++i)
        QCOMPARE(capped.best[i].key, free.best[i].key);
    QCOMPARE(capped.fastest.front().key, free.fastest.front().key);
    bool said = false;
    for (const auto& n : capped.notes)
        said = said || n.rfind("memory budget 128 MiB: ", 0) == 0;
    QVERIFY(said);
    req.options.maxMemoryMiB = 1;
    const SearchResult refused = SearchEngine::run(req);
    QVERIFY(refused.invalidRequest);
    QVERIFY(refused.best.empty());
}

MEMX_TEST_GUILESS_MAIN(TestMemoryBudget)
}  // namespace tst_memory_budget

#include "tst_memory_budget.moc"
