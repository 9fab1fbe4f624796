// Constraints before Phi (--min-headroom, --headroom-at-upper, --max-slowdown):
// on a space small enough that the search keeps every feasible plan, the
// constrained pick is the Phi-best of exactly the plans that meet the
// constraints, under every compared profile; a slowdown of 0 picks the
// fastest plan; constraints nothing meets give a reason with the numbers.
#include "TestPaths.h"
#include "TestRequests.h"

#include "search/SearchEngine.h"

#include "TestMain.h"

#include <limits>

namespace tst_constraints {

using namespace memx;

namespace {

SearchRequest smallRequest()
{
    SearchRequest req = test::smallRequest();
    req.options.threads = 2;
    req.compareProfiles = {WeightProfile::SafetyFirst, WeightProfile::ThroughputFirst};
    return req;
}

const SearchResult& unconstrained()
{
    static const SearchResult r = SearchEngine::run(smallRequest());
    return r;
}

// The Phi-best plan of the complete feasible set that meets the constraints.
const Plan* bestMeeting(const SearchResult& all, const Weights& w, double minHeadroom, bool atUpper, double maxSlowdown)
{
    const double fastest = all.fastest.front().iterationMs;
    const Plan* best = nullptr;
    double bestPhi = std::numeric_limits<double>::infinity();
    for (const Plan& p : all.plotSample) {
        if (maxSlowdown >= 0 && p.iterationMs > fastest * (1 + maxSlowdown) * (1 + 1e-12))
            continue;
        if ((atUpper ? p.minHeadroomAtUpper() : p.minHeadroom()) < minHeadroom)
            continue;
        const double phi = Objective::phi(p.iterationMs, p.maxMemMiB, p.varMem, all.references, w);
        if (phi < bestPhi || (phi == bestPhi && best && p.key < best->key)) {
            bestPhi = phi;
            best = &p;
        }
    }
    return best;
}

}  // namespace

class TestConstraints : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void headroomAtTheUpperBound();
    void pickIsTheBestThatMeetsThem_data();
    void pickIsTheBestThatMeetsThem();
    void noSlowdownPicksTheFastest();
    void nothingMeetsThemSaysWhy();
};

void TestConstraints::initTestCase()
{
    QVERIFY2(unconstrained().error.empty(), unconstrained().error.c_str());
    QVERIFY(unconstrained().plotSampleComplete);  // every feasible plan, to check against
    QVERIFY(unconstrained().plotSample.size() > 20);
}

void TestConstraints::headroomAtTheUpperBound()
{
    // A stage at 60 GiB of 80 keeps 25% free; at +25% (75 GiB) 6.25%.
    Plan p;
    StagePlan s;
    s.capacityMiB = 80 * 1024;
    s.memory.activationsMiB = 60 * 1024;
    p.stages = {s};
    p.uncertainty = 0.25;
    QCOMPARE(p.minHeadroom(), 0.25);
    QCOMPARE(p.minHeadroomAtUpper(), 0.0625);
}

void TestConstraints::pickIsTheBestThatMeetsThem_data()
{
    // Headroom thresholds as shares of the most any plan keeps (V100 and T4
    // are tight: a few per cent), so that each row leaves some plans.
    double most = 0, mostUpper = 0;
    for (const Plan& p : unconstrained().plotSample) {
        most = std::max(most, p.minHeadroom());
        mostUpper = std::max(mostUpper, p.minHeadroomAtUpper());
    }
    QTest::addColumn<double>("minHeadroom");
    QTest::addColumn<bool>("atUpper");
    QTest::addColumn<double>("maxSlowdown");
    QTest::newRow("a third of the most headroom") << most / 3 << false << -1.0;
    QTest::newRow("nine tenths of the most headroom") << 0.9 * most << false << -1.0;
    if (mostUpper > 0)
        QTest::newRow("half the most headroom at the upper bound") << mostUpper / 2 << true << -1.0;
    QTest::newRow("5% slower at most") << 0.0 << false << 0.05;
    QTest::newRow("50% slower at most") << 0.0 << false << 0.50;
    QTest::newRow("both") << most / 4 << false << 1.0;
}

void TestConstraints::pickIsTheBestThatMeetsThem()
{
    QFETCH(double, minHeadroom);
    QFETCH(bool, atUpper);
    QFETCH(double, maxSlowdown);
    SearchRequest req = smallRequest();
    req.objective.minHeadroom = minHeadroom;
    req.objective.headroomAtUpper = atUpper;
    req.objective.maxSlowdown = maxSlowdown;
    const SearchResult r = SearchEngine::run(req);
    const SearchResult& all = unconstrained();
    // The references and the fastest plan are those of all feasible plans.
    QCOMPARE(r.references.time, all.references.time);
    QCOMPARE(r.fastest.front().iterationMs, all.fastest.front().iterationMs);
    const Plan* expected = bestMeeting(all, r.weights, minHeadroom, atUpper, maxSlowdown);
    QVERIFY2(expected, "each row's constraints leave some plans (see nothingMeetsThemSaysWhy for none)");
    QVERIFY2(r.error.empty(), r.error.c_str());
    QCOMPARE(r.best.front().key, expected->key);
    QCOMPARE(r.constraints.minHeadroom, minHeadroom);
    // Every compared profile's pick meets them too, and is that profile's best.
    for (const auto& pb : r.profilePicks) {
        const Plan* e = bestMeeting(all, pb.weights, minHeadroom, atUpper, maxSlowdown);
        QVERIFY(e);
        QCOMPARE(pb.plan.key, e->key);
    }
    for (const Plan& p : r.best) {
        QVERIFY((atUpper ? p.minHeadroomAtUpper() : p.minHeadroom()) >= minHeadroom);
        if (maxSlowdown >= 0)
            QVERIFY(p.iterationMs <= all.fastest.front().iterationMs * (1 + maxSlowdown) * (1 + 1e-9));
    }
}

void TestConstraints::noSlowdownPicksTheFastest()
{
    SearchRequest req = smallRequest();
    req.objective.maxSlowdown = 0;
    const SearchResult r = SearchEngine::run(req);
    QVERIFY2(r.error.empty(), r.error.c_str());
    QCOMPARE(r.best.front().iterationMs, r.fastest.front().iterationMs);
}

void TestConstraints::nothingMeetsThemSaysWhy()
{
    // More headroom than any plan keeps: the reason names the constraint and
    // the most headroom a refused plan kept (at most the best of all plans).
    double most = 0;
    for (const Plan& p : unconstrained().plotSample)
        most = std::max(most, p.minHeadroom());
    SearchRequest req = smallRequest();
    req.objective.minHeadroom = std::min(0.99, most + 0.05);
    const SearchResult r = SearchEngine::run(req);
    QVERIFY(r.best.empty());
    QVERIFY2(r.error.find("nothing meets the constraints") != std::string::npos, r.error.c_str());
    QVERIFY2(r.error.find("% of its memory free") != std::string::npos, r.error.c_str());
    QVERIFY(!r.fastest.empty());  // the fastest plan is still reported
    // Invalid constraints are refused before searching.
    req.objective.minHeadroom = 1.5;
    QVERIFY(SearchEngine::run(req).error.find("headroom") != std::string::npos);
}

MEMX_TEST_GUILESS_MAIN(TestConstraints)
}  // namespace tst_constraints

#include "tst_constraints.moc"
