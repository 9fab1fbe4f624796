// PredictionCache: the hash-signature cache of MemX section 3.1.2. A counting
// fake predictor shows what reaches the model and what is answered from cache.
#include "hardware/GpuType.h"
#include "predict/PredictionCache.h"
#include "predict/Predictor.h"

#include "TestMain.h"

#include <functional>
#include <vector>

namespace tst_prediction_cache {

using memx::PredictionCache;
using memx::StagePrediction;
using memx::StageQuery;

namespace {

// Answers every row with a fresh id (1, 2, 3, ...) in timeMs and logs the rows,
// so a test can tell which prediction went to which query.
class CountingPredictor : public memx::Predictor {
public:
    std::string name() const override { return "counting"; }
    void predict(std::span<const StageQuery> queries, std::span<StagePrediction> out) const override
    {
        ++calls;
        batchSizes.push_back(static_cast<int>(queries.size()));
        for (std::size_t i = 0; i < queries.size(); ++i) {
            log.push_back(queries[i]);
            out[i] = StagePrediction{};
            out[i].timeMs = static_cast<double>(log.size());
            out[i].memory.activationsMiB = 10.0 * static_cast<double>(log.size());
        }
    }
    int rows() const { return static_cast<int>(log.size()); }
    // The query the predictor actually saw for an answer id.
    const StageQuery& queryFor(const StagePrediction& p) const
    {
        return log.at(static_cast<std::size_t>(p.timeMs) - 1);
    }

    mutable int calls = 0;
    mutable std::vector<int> batchSizes;
    mutable std::vector<StageQuery> log;
};

// Two distinct GPU types; the cache keys on the type's identity.
memx::GpuType gpuA, gpuB;

StageQuery base()
{
    StageQuery q;
    q.gpu = &gpuA;
    q.tp = 2;
    q.dp = 2;
    q.layers = 8;
    q.microBatch = 1;
    q.seqLen = 4096;
    q.hidden = 4096;
    q.heads = 32;
    q.headDim = 128;
    q.queryGroups = 32;
    q.ffnHidden = 11008;
    q.vocab = 32000;
    q.inflight = 4;
    q.tpLinkGBps = 240;
    q.tpLatencyUs = 3;
    return q;
}

// Every answer the cache gave must be the one the predictor made for an equal query.
bool answersMatch(const CountingPredictor& p, const std::vector<StageQuery>& qs,
                  const std::vector<StagePrediction>& out)
{
    if (out.size() != qs.size())
        return false;
    for (std::size_t i = 0; i < qs.size(); ++i)
        if (out[i].timeMs < 1 || !(p.queryFor(out[i]) == qs[i]))
            return false;
    return true;
}

}  // namespace

}  // namespace tst_prediction_cache
Q_DECLARE_METATYPE(std::function<void(memx::StageQuery&)>)
namespace tst_prediction_cache {

class TestPredictionCache : public QObject {
    Q_OBJECT

private slots:
    void repeatedQueriesHitTheCache();
    void duplicatesInOneBatchArePredictedOnce();
    void anyChangedFieldMisses_data();
    void anyChangedFieldMisses();
    void missesGoOutInOneBatch();
    void emptyBatchCallsNothing();
};

void TestPredictionCache::repeatedQueriesHitTheCache()
{
    CountingPredictor p;
    PredictionCache cache(p);
    StageQuery q1 = base(), q2 = base(), q3 = base();
    q2.layers = 9;
    q3.recompute = memx::Recompute::Full;
    const std::vector<StageQuery> batch = {q1, q2, q3};
    std::vector<StagePrediction> out;

    cache.predict(batch, out);
    QCOMPARE(p.calls, 1);
    QCOMPARE(p.rows(), 3);
    QCOMPARE(cache.misses(), quint64(3));
    QCOMPARE(cache.hits(), quint64(0));
    QCOMPARE(cache.size(), std::size_t(3));
    QVERIFY(answersMatch(p, batch, out));
    const std::vector<StagePrediction> first = out;

    // Same batch again (even in another order): no predictor call, same answers.
    cache.predict(batch, out);
    cache.predict({q3, q1}, out);
    QCOMPARE(p.calls, 1);
    QCOMPARE(p.rows(), 3);
    QCOMPARE(cache.hits(), quint64(5));
    QCOMPARE(cache.misses(), quint64(3));
    QCOMPARE(out[0].timeMs, first[2].timeMs);
    QCOMPARE(out[1].timeMs, first[0].timeMs);
    QCOMPARE(out[1].memory.activationsMiB, first[0].memory.activationsMiB);
}

void TestPredictionCache::duplicatesInOneBatchArePredictedOnce()
{
    CountingPredictor p;
    PredictionCache cache(p);
    StageQuery q = base(), r = base();
    r.microBatch = 2;
    const std::vector<StageQuery> batch = {q, q, r, q, r};
    std::vector<StagePrediction> out;
    cache.predict(batch, out);
    QCOMPARE(p.calls, 1);
    QCOMPARE(p.rows(), 2);  // q and r once each
    QCOMPARE(cache.misses(), quint64(2));
    QCOMPARE(cache.hits() + cache.misses(), quint64(5));  // every query is counted once
    QCOMPARE(cache.size(), std::size_t(2));
    QVERIFY(answersMatch(p, batch, out));
    QCOMPARE(out[0].timeMs, out[1].timeMs);
    QCOMPARE(out[0].timeMs, out[3].timeMs);
    QCOMPARE(out[2].timeMs, out[4].timeMs);
    QVERIFY(out[0].timeMs != out[2].timeMs);
}

void TestPredictionCache::anyChangedFieldMisses_data()
{
    using Change = std::function<void(StageQuery&)>;
    QTest::addColumn<Change>("change");
    QTest::newRow("gpu type") << Change([](StageQuery& q) { q.gpu = &gpuB; });
    QTest::newRow("tp") << Change([](StageQuery& q) { q.tp = 4; });
    QTest::newRow("dp") << Change([](StageQuery& q) { q.dp = 4; });
    QTest::newRow("layers") << Change([](StageQuery& q) { q.layers = 7; });
    QTest::newRow("micro-batch") << Change([](StageQuery& q) { q.microBatch = 2; });
    QTest::newRow("sequence length") << Change([](StageQuery& q) { q.seqLen = 2048; });
    QTest::newRow("hidden") << Change([](StageQuery& q) { q.hidden = 5120; });
    QTest::newRow("heads") << Change([](StageQuery& q) { q.heads = 64; });
    QTest::newRow("head dim") << Change([](StageQuery& q) { q.headDim = 64; });
    QTest::newRow("query groups") << Change([](StageQuery& q) { q.queryGroups = 8; });
    QTest::newRow("ffn hidden") << Change([](StageQuery& q) { q.ffnHidden = 14336; });
    QTest::newRow("vocab") << Change([](StageQuery& q) { q.vocab = 128256; });
    QTest::newRow("has embedding") << Change([](StageQuery& q) { q.hasEmbedding = true; });
    QTest::newRow("has output") << Change([](StageQuery& q) { q.hasOutput = true; });
    QTest::newRow("distributed optimizer") << Change([](StageQuery& q) { q.distributedOptimizer = false; });
    QTest::newRow("flash attention") << Change([](StageQuery& q) { q.flashAttention = false; });
    QTest::newRow("attention dropout") << Change([](StageQuery& q) { q.dropout.attention = true; });
    QTest::newRow("hidden dropout") << Change([](StageQuery& q) { q.dropout.hidden = true; });
    QTest::newRow("recompute selective") << Change([](StageQuery& q) { q.recompute = memx::Recompute::Selective; });
    QTest::newRow("recompute full") << Change([](StageQuery& q) { q.recompute = memx::Recompute::Full; });
    QTest::newRow("inflight 4 -> 3") << Change([](StageQuery& q) { q.inflight = 3; });
    QTest::newRow("inflight 4 -> 5.5 (interleaved)") << Change([](StageQuery& q) { q.inflight = 5.5; });
    QTest::newRow("TP link bandwidth") << Change([](StageQuery& q) { q.tpLinkGBps = 17; });
    QTest::newRow("TP latency") << Change([](StageQuery& q) { q.tpLatencyUs = 6; });
}

void TestPredictionCache::anyChangedFieldMisses()
{
    using Change = std::function<void(StageQuery&)>;
    QFETCH(Change, change);
    CountingPredictor p;
    PredictionCache cache(p);
    const StageQuery q = base();
    StageQuery v = base();
    change(v);
    QVERIFY(!(q == v));
    std::vector<StagePrediction> out;
    cache.predict({q}, out);
    const double cachedAnswer = out[0].timeMs;
    cache.predict({v}, out);
    QCOMPARE(p.calls, 2);
    QCOMPARE(p.rows(), 2);
    QCOMPARE(cache.misses(), quint64(2));
    QCOMPARE(cache.hits(), quint64(0));
    QVERIFY(out[0].timeMs != cachedAnswer);  // never the other query's answer
    QVERIFY(p.queryFor(out[0]) == v);
    // And the original is still cached.
    cache.predict({q}, out);
    QCOMPARE(p.calls, 2);
    QCOMPARE(out[0].timeMs, cachedAnswer);
}

void TestPredictionCache::missesGoOutInOneBatch()
{
    CountingPredictor p;
    PredictionCache cache(p);
    StageQuery a = base(), b = base(), c = base(), d = base();
    b.layers = 4;
    c.tp = 1;
    d.gpu = &gpuB;
    std::vector<StagePrediction> out;
    cache.predict({a}, out);  // prime with a

    const std::vector<StageQuery> batch = {a, b, c, a, d, b};
    cache.predict(batch, out);
    QCOMPARE(p.calls, 2);
    QCOMPARE(p.batchSizes, (std::vector<int>{1, 3}));  // b, c, d together, once each
    QVERIFY(p.log[1] == b);  // in order of first appearance
    QVERIFY(p.log[2] == c);
    QVERIFY(p.log[3] == d);
    QCOMPARE(cache.misses(), quint64(4));  // a (first call), b, c, d
    QCOMPARE(cache.hits(), quint64(3));  // a, a, b (repeat in batch)
    QVERIFY(answersMatch(p, batch, out));
}

void TestPredictionCache::emptyBatchCallsNothing()
{
    CountingPredictor p;
    PredictionCache cache(p);
    std::vector<StagePrediction> out(3);
    cache.predict({}, out);
    QCOMPARE(p.calls, 0);
    QVERIFY(out.empty());
    QCOMPARE(cache.hits() + cache.misses(), quint64(0));
}

MEMX_TEST_APPLESS_MAIN(TestPredictionCache)
}  // namespace tst_prediction_cache

#include "tst_prediction_cache.moc"
