// A search stopped by its time limit, or by a front end's "stop and keep"
// (SearchOptions::stopEarly), returns the best plans it has, marked
// incomplete, and says which pass it stopped in (issue #14, item 5). The
// passes are told apart by what the search reports, not by timing: the stop
// is asked for at the first progress report of a pass, and the engine
// checks for it before a pass starts and every ~20 ms while it runs.
#include "TestClusters.h"
#include "search/PlanEvaluator.h"
#include "search/SearchEngine.h"

#include "TestMain.h"

#include <set>

namespace tst_search_time_limit {

using namespace memx;

class TestSearchTimeLimit : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void stopBeforeAnything_data();
    void stopBeforeAnything();
    void stopInCount();
    void stopInExplore();
    void stopInRank();
    void cancelStillReturnsNothing();

private:
    SearchRequest request() const;
    static std::set<std::uint64_t> keysOf(const std::vector<Plan>& plans);
    SearchResult complete_;
};

// 4 nodes of 8 GPUs, four types, LLaMA2-70B over up to 8 stages: a search of
// about a second on two cores (docs/SCALING.md), long enough for every pass
// to be reported. Every GPU must keep 10% of its memory free.
SearchRequest TestSearchTimeLimit::request() const
{
    SearchRequest req;
    req.problem.cluster = test::mixedNodes(4, "32gpu");
    req.problem.model = ModelSpec::resolve("llama2-70b");
    req.problem.setup.globalBatch = 512;
    req.problem.setup.maxPipelineStages = 8;
    req.objective.minHeadroom = 0.1;
    return req;
}

std::set<std::uint64_t> TestSearchTimeLimit::keysOf(const std::vector<Plan>& plans)
{
    std::set<std::uint64_t> keys;
    for (const Plan& p : plans)
        keys.insert(p.key);
    return keys;
}

void TestSearchTimeLimit::initTestCase()
{
    complete_ = SearchEngine::run(request());
    QVERIFY2(complete_.error.empty(), complete_.error.c_str());
    QVERIFY(complete_.incomplete.empty());
    QVERIFY(!complete_.best.empty());
}

void TestSearchTimeLimit::stopBeforeAnything_data()
{
    QTest::addColumn<double>("timeLimitS");
    QTest::addColumn<bool>("stopEarly");
    QTest::addColumn<QString>("cause");
    // A nanosecond has passed before the first pass starts: nothing is counted.
    QTest::newRow("time limit") << 1e-9 << false << "the time limit (1e-09 s) ran out";
    QTest::newRow("stop early") << 0.0 << true << "a request to stop early came";
}

void TestSearchTimeLimit::stopBeforeAnything()
{
    QFETCH(double, timeLimitS);
    QFETCH(bool, stopEarly);
    QFETCH(QString, cause);
    SearchRequest req = request();
    req.options.timeLimitS = timeLimitS;
    if (stopEarly)
        req.options.stopEarly = [] { return true; };
    const SearchResult r = SearchEngine::run(req);
    QVERIFY(!r.cancelled);
    QVERIFY(r.best.empty());
    const QString incomplete = QString::fromStdString(r.incomplete);
    QVERIFY2(incomplete.startsWith(cause + " in the counting pass with 0 of "), qPrintable(incomplete));
    // No plan to show, and the error says why and what to do.
    const QString error = QString::fromStdString(r.error);
    QVERIFY2(error.contains("before any plan was evaluated"), qPrintable(error));
}

// Stopped while counting (issue #32 item 6): a search that has counted some
// skeletons offers each one's greedy plan (the layer split whose slowest
// stage is fastest), ranked by Phi with the constraints applied. Per-type
// meshes make the count pass long (about 186,000 skeletons), so the stop
// asked for once a feasible skeleton is counted lands inside it.
void TestSearchTimeLimit::stopInCount()
{
    SearchRequest req = request();
    req.problem.setup.meshes = MeshMode::PerType;
    bool stop = false;
    req.options.stopEarly = [&] { return stop; };
    const SearchResult r = SearchEngine::run(req, [&](const SearchProgress& p) {
        stop = stop || (p.phase == 1 && p.permille < 100 && p.feasible > 0);
    });
    QVERIFY2(r.error.empty(), r.error.c_str());
    const QString incomplete = QString::fromStdString(r.incomplete);
    QVERIFY2(incomplete.startsWith("a request to stop early came in the counting pass with "), qPrintable(incomplete));
    QVERIFY2(incomplete.contains("greedy plan"), qPrintable(incomplete));
    QVERIFY(r.notes.front().rfind("incomplete: ", 0) == 0);
    QVERIFY(!r.best.empty());
    QVERIFY(!r.fastest.empty());
    for (std::size_t i = 1; i < r.best.size(); ++i)
        QVERIFY(r.best[i - 1].phi <= r.best[i].phi);
    // Real plans: each one predicts again to the same time and peak, fits,
    // and keeps the 10% headroom asked for.
    for (const Plan& p : r.best) {
        QVERIFY(p.ranksApproximate);
        QVERIFY2(p.minHeadroom() >= 0.1, qPrintable(QString::number(p.minHeadroom())));
        const Evaluation e = PlanEvaluator::evaluate(req.problem, PlanSpec::of(p));
        QVERIFY2(e.feasible, e.whyInfeasible.c_str());
        QVERIFY(std::abs(e.plan.iterationMs - p.iterationMs) <= 1e-9 * p.iterationMs);
        QVERIFY(std::abs(e.plan.maxMemMiB - p.maxMemMiB) <= 1e-9 * p.maxMemMiB);
    }
}

// Stopped while exploring: the plans found so far (fastest, fronts, plot) are
// ranked by Phi with the constraints applied, and marked approximate.
void TestSearchTimeLimit::stopInExplore()
{
    SearchRequest req = request();
    bool stop = false;
    req.options.stopEarly = [&] { return stop; };
    // Explore is the part of phase 1 after the count pass (0-10%).
    const SearchResult r
        = SearchEngine::run(req, [&](const SearchProgress& p) { stop = stop || (p.phase == 1 && p.permille > 100); });
    QVERIFY2(r.error.empty(), r.error.c_str());
    const QString incomplete = QString::fromStdString(r.incomplete);
    QVERIFY2(incomplete.contains("in the explore pass"), qPrintable(incomplete));
    QVERIFY(!r.best.empty());
    QVERIFY(r.stats.sampleFraction < 1.0);
    QVERIFY(r.notes.front().rfind("incomplete: ", 0) == 0);
    // Real plans of the space: none faster than the complete search's fastest,
    // each one of those explore found, each meeting the headroom constraint.
    std::set<std::uint64_t> found = keysOf(r.fastest);
    for (const auto& pt : r.paretoTimeVariance.points())
        found.insert(pt.plan.key);
    for (const auto& pt : r.paretoTimeMemory.points())
        found.insert(pt.plan.key);
    for (const Plan& p : r.plotSample)
        found.insert(p.key);
    for (const Plan& p : r.best) {
        QVERIFY(p.iterationMs >= complete_.fastest.front().iterationMs * (1 - 1e-12));
        QVERIFY(found.count(p.key) == 1);
        QVERIFY2(p.minHeadroom() >= 0.1, qPrintable(QString::number(p.minHeadroom())));
        QVERIFY(p.ranksApproximate);
    }
    for (std::size_t i = 1; i < r.best.size(); ++i)
        QVERIFY(r.best[i - 1].phi <= r.best[i].phi);
}

// Stopped as the rank pass begins: explore finished, so the fastest plans and
// the references are those of the complete search; the ranking has the plans
// explore found, so its best Phi is no better than the complete search's.
void TestSearchTimeLimit::stopInRank()
{
    SearchRequest req = request();
    bool stop = false;
    req.options.stopEarly = [&] { return stop; };
    const SearchResult r = SearchEngine::run(req, [&](const SearchProgress& p) { stop = stop || p.phase == 2; });
    QVERIFY2(r.error.empty(), r.error.c_str());
    const QString incomplete = QString::fromStdString(r.incomplete);
    QVERIFY2(incomplete.contains("in the Phi ranking pass with 0 of "), qPrintable(incomplete));
    QVERIFY(keysOf(r.fastest) == keysOf(complete_.fastest));
    QCOMPARE(r.references.time, complete_.references.time);
    QCOMPARE(r.references.variance, complete_.references.variance);
    QVERIFY(!r.best.empty());
    QVERIFY(r.best.front().phi >= complete_.best.front().phi * (1 - 1e-12));
    for (const Plan& p : r.best)
        QVERIFY(p.minHeadroom() >= 0.1);
    // The same plans in both, the same Phi (one set of references).
    for (const Plan& p : r.best)
        for (const Plan& q : complete_.best)
            if (p.key == q.key)
                QCOMPARE(p.phi, q.phi);
}

// A cancel is not a stop: it ends the search with nothing, not incomplete.
void TestSearchTimeLimit::cancelStillReturnsNothing()
{
    SearchRequest req = request();
    req.options.timeLimitS = 1e-9;
    const SearchResult r = SearchEngine::run(req, {}, [] { return true; });
    QVERIFY(r.cancelled);
    QVERIFY(r.incomplete.empty());
    QVERIFY(r.best.empty());
}

MEMX_TEST_GUILESS_MAIN(TestSearchTimeLimit)
}  // namespace tst_search_time_limit

#include "tst_search_time_limit.moc"
