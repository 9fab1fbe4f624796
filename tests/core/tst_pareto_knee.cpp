// The balanced profile's rule: the knee of the time-variance front, the point
// farthest from the line between the front's ends with both axes normalised,
// on fronts whose knee is worked out by hand; and a balanced search picks the
// knee of its own front.
#include "TestPaths.h"

#include "search/ParetoKnee.h"
#include "search/SearchEngine.h"

#include "TestMain.h"

#include <cmath>

namespace tst_pareto_knee {

using namespace memx;

using Front = std::vector<std::pair<double, double>>;
}  // namespace tst_pareto_knee
Q_DECLARE_METATYPE(tst_pareto_knee::Front)
namespace tst_pareto_knee {

class TestParetoKnee : public QObject {
    Q_OBJECT
private slots:
    void knee_data();
    void knee();
    void distanceByHand();
    void balancedSearchPicksTheKnee();
};

void TestParetoKnee::knee_data()
{
    QTest::addColumn<Front>("front");
    QTest::addColumn<int>("knee");
    // x normalised over [1, 10], y over [1, 10]: (2, 2) is at (1/9, 1/9),
    // 1 - x - y = 7/9; (4, 1.5) at (3/9, 0.5/9), 5.5/9. The ends are at 0.
    QTest::newRow("bulge at the second point") << Front{{1, 10}, {2, 2}, {4, 1.5}, {10, 1}} << 1;
    QTest::newRow("bulge at the third point") << Front{{1, 10}, {8, 9}, {9, 1.5}, {10, 1}} << 2;
    // A straight front: every distance is 0, the fastest point wins.
    QTest::newRow("straight") << Front{{1, 3}, {2, 2}, {3, 1}} << 0;
    QTest::newRow("two points") << Front{{1, 5}, {2, 1}} << 0;
    QTest::newRow("one point") << Front{{7, 7}} << 0;
    // Units do not matter: the same shape in ms and MiB^2.
    QTest::newRow("scaled") << Front{{1000, 1e7}, {2000, 2e6}, {4000, 1.5e6}, {10000, 1e6}} << 1;
    // A tie goes to the faster point: (2, 3) and (3, 2) are both at 6/9.
    QTest::newRow("tie") << Front{{1, 10}, {2, 3}, {3, 2}, {10, 1}} << 1;
}

void TestParetoKnee::knee()
{
    QFETCH(Front, front);
    QFETCH(int, knee);
    QCOMPARE(static_cast<int>(ParetoKnee::index(front)), knee);
}

void TestParetoKnee::distanceByHand()
{
    const auto d = ParetoKnee::distances({{1, 10}, {2, 2}, {4, 1.5}, {10, 1}});
    QCOMPARE(d[0], 0.0);
    QCOMPARE(d[3], 0.0);
    QVERIFY(std::abs(d[1] - (7.0 / 9.0) / std::sqrt(2.0)) < 1e-12);
    QVERIFY(std::abs(d[2] - (5.5 / 9.0) / std::sqrt(2.0)) < 1e-12);
}

void TestParetoKnee::balancedSearchPicksTheKnee()
{
    SearchRequest req;
    req.problem.cluster = Cluster::fromFile(test::sampleCluster("paper-20gpu-3vendor.json"));
    req.problem.model = ModelSpec::resolve("llama2-7b");
    req.problem.setup.globalBatch = 128;
    req.objective.profile = WeightProfile::Balanced;
    const SearchResult r = SearchEngine::run(req);
    QVERIFY2(r.error.empty(), r.error.c_str());
    QCOMPARE(r.profileUsed, WeightProfile::Balanced);
    Front front;
    for (const auto& pt : r.paretoTimeVariance.points())
        front.emplace_back(pt.x, pt.y);
    QVERIFY(front.size() >= 3);
    const auto& knee = r.paretoTimeVariance.points()[ParetoKnee::index(front)];
    QCOMPARE(r.best.front().key, knee.plan.key);
    QVERIFY2(r.profileReason.find("knee of the time-variance front") != std::string::npos, r.profileReason.c_str());
    // It sits strictly between the fastest plan and the most balanced one.
    QVERIFY(r.best.front().iterationMs > front.front().first);
    QVERIFY(r.best.front().varMem > front.back().second);
}

MEMX_TEST_GUILESS_MAIN(TestParetoKnee)
}  // namespace tst_pareto_knee

#include "tst_pareto_knee.moc"
