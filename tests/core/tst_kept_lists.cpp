// The fastest list (TopPlans) and the Pareto fronts (ParetoFront) as the
// explore pass feeds them: a plan offered again (each aim of a skeleton is
// searched on its own, and a plan can be found by more than one) is kept
// once; ties go to the smaller key whatever the order of arrival; a front
// keeps only non-dominated points.
#include "search/ParetoFront.h"
#include "search/TopPlans.h"

#include "TestMain.h"

namespace tst_kept_lists {

using namespace memx;

class TestKeptLists : public QObject {
    Q_OBJECT
private slots:
    void topPlansKeepAPlanOnce_data();
    void topPlansKeepAPlanOnce();
    void frontKeepsAPlanOnce();
};

namespace {
Plan plan(std::uint64_t key, double ms)
{
    Plan p;
    p.key = key;
    p.iterationMs = ms;
    return p;
}
}  // namespace

void TestKeptLists::topPlansKeepAPlanOnce_data()
{
    QTest::addColumn<int>("k");
    QTest::addColumn<QList<double>>("times");  // offered in this order, keys 1, 2, 3, ...
    QTest::addColumn<QList<int>>("again");  // indices offered a second time
    QTest::addColumn<QList<quint64>>("keptKeys");  // fastest first
    QTest::newRow("list not full") << 3 << QList<double>{10, 20} << QList<int>{0, 1} << QList<quint64>{1, 2};
    QTest::newRow("full list") << 2 << QList<double>{10, 20, 30} << QList<int>{0} << QList<quint64>{1, 2};
    // Three plans tie at 10: the two smaller keys stay, in any order of arrival.
    QTest::newRow("ties") << 2 << QList<double>{10, 10, 10} << QList<int>{2, 1, 0} << QList<quint64>{1, 2};
}

void TestKeptLists::topPlansKeepAPlanOnce()
{
    QFETCH(int, k);
    QFETCH(QList<double>, times);
    QFETCH(QList<int>, again);
    QFETCH(QList<quint64>, keptKeys);
    TopPlans top(static_cast<std::size_t>(k));
    for (int i = 0; i < times.size(); ++i)
        top.insert(times[i], plan(static_cast<std::uint64_t>(i + 1), times[i]));
    for (int i : again) {
        QVERIFY(!top.accepts(times[i], static_cast<std::uint64_t>(i + 1)) || i >= k);
        top.insert(times[i], plan(static_cast<std::uint64_t>(i + 1), times[i]));
    }
    const std::vector<Plan> kept = top.sorted();
    QCOMPARE(static_cast<int>(kept.size()), keptKeys.size());
    for (int i = 0; i < keptKeys.size(); ++i)
        QCOMPARE(static_cast<quint64>(kept[static_cast<std::size_t>(i)].key), keptKeys[i]);
}

void TestKeptLists::frontKeepsAPlanOnce()
{
    ParetoFront front;
    front.insert(10, 5, plan(1, 10));
    front.insert(20, 2, plan(2, 20));
    front.insert(15, 6, plan(3, 15));  // dominated by (10, 5)
    QVERIFY(!front.accepts(10, 5, 1));  // the same plan again
    front.insert(10, 5, plan(1, 10));
    front.insert(20, 2, plan(2, 20));
    QCOMPARE(front.points().size(), std::size_t(2));
    // An equal point of a smaller key replaces it; of a larger key does not enter.
    QVERIFY(!front.accepts(20, 2, 9));
    front.insert(20, 2, plan(0, 20));
    QCOMPARE(front.points().size(), std::size_t(2));
    QCOMPARE(front.points().back().plan.key, std::uint64_t(0));
}

MEMX_TEST_GUILESS_MAIN(TestKeptLists)
}  // namespace tst_kept_lists

#include "tst_kept_lists.moc"
