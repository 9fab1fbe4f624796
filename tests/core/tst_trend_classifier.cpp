// The interpolation gate (MemX 3.2.2, Table 2): every expected value below is
// worked out by hand from the sweep in the row.
#include "learn/TrendClassifier.h"

#include "TestMain.h"

namespace tst_trend_classifier {

using namespace memx;
using Trend = TrendClassifier::Trend;

}  // namespace tst_trend_classifier
Q_DECLARE_METATYPE(tst_trend_classifier::Trend)
namespace tst_trend_classifier {

class TestTrendClassifier : public QObject {
    Q_OBJECT
private slots:
    void classify_data();
    void classify();
    void exactLine();
    void interpolationCounts_data();
    void interpolationCounts();
    void powerLawMidpointIsExact();
    void badSweeps();
};

void TestTrendClassifier::classify_data()
{
    QTest::addColumn<std::vector<double>>("xs");
    QTest::addColumn<std::vector<double>>("ys");
    QTest::addColumn<Trend>("trend");
    // Layers -> memory: y = 2.5x + 10 exactly: R^2 = 1.
    QTest::newRow("num_layers -> memory, exact line")
        << std::vector<double>{4, 8, 12, 16, 20} << std::vector<double>{20, 30, 40, 50, 60} << Trend::StrongLinear;
    // y = x + e with e = (0, 1, -1, 1, 0) over x = 10..50: sxx = 1000, sxy = 1000 + (0*-20 + 1*-10 + -1*0 + 1*10
    // + 0*20) = 1000, syy = 1000 + 2*0 + 3 = ... R^2 = 1000^2 / (1000 * 1003) = 0.997.
    QTest::newRow("micro-batch -> throughput, tiny noise")
        << std::vector<double>{10, 20, 30, 40, 50} << std::vector<double>{10, 21, 29, 41, 50} << Trend::StrongLinear;
    // x = 1..5, y = (1, 3, 2, 5, 4): sxx = 10, sxy = 8, syy = 10 -> R^2 = 0.64; log-log slope < 1 -> nonlinear.
    QTest::newRow("noisy") << std::vector<double>{1, 2, 3, 4, 5} << std::vector<double>{1, 3, 2, 5, 4}
                           << Trend::Nonlinear;
    // y = x^3 on 1..5: strongly convex, R^2 = 0.88 < 0.95; log-log slope exactly 3 -> superlinear.
    QTest::newRow("seq_length -> iteration time, cubic")
        << std::vector<double>{1, 2, 3, 4, 5} << std::vector<double>{1, 8, 27, 64, 125} << Trend::Superlinear;
    // Spread (100.8 - 100) / 100.4 = 0.8% < 2% -> constant (Table 2's query groups, delta 0.8%).
    QTest::newRow("num_query_groups -> throughput, flat")
        << std::vector<double>{1, 2, 4, 8, 16} << std::vector<double>{100.0, 100.8, 100.3, 100.5, 100.4}
        << Trend::Constant;
}

void TestTrendClassifier::classify()
{
    QFETCH(std::vector<double>, xs);
    QFETCH(std::vector<double>, ys);
    QFETCH(Trend, trend);
    QCOMPARE(TrendClassifier::classify(xs, ys).trend, trend);
}

void TestTrendClassifier::exactLine()
{
    auto f = TrendClassifier::classify({4, 8, 12, 16, 20}, {20, 30, 40, 50, 60});
    QCOMPARE(f.slope, 2.5);
    QCOMPARE(f.intercept, 10.0);
    QCOMPARE(f.r2, 1.0);
    // y = x^3: log-log slope exactly 3.
    auto c = TrendClassifier::classify({1, 2, 3, 4, 5}, {1, 8, 27, 64, 125});
    QVERIFY(std::abs(c.logLogSlope - 3.0) < 1e-12);
    // x = 1..5, y = (1,3,2,5,4): sxy = 8, sxx = 10, syy = 10 -> R^2 = 0.64, slope 0.8, intercept 3 - 0.8*3 = 0.6.
    auto n = TrendClassifier::classify({1, 2, 3, 4, 5}, {1, 3, 2, 5, 4});
    QVERIFY(std::abs(n.r2 - 0.64) < 1e-12);
    QVERIFY(std::abs(n.slope - 0.8) < 1e-12);
    QVERIFY(std::abs(n.intercept - 0.6) < 1e-12);
}

void TestTrendClassifier::interpolationCounts_data()
{
    QTest::addColumn<Trend>("trend");
    QTest::addColumn<int>("expected");
    // 5 measured points -> 4 gaps; perGap = 3.
    QTest::newRow("strong linear: 3 per gap") << Trend::StrongLinear << 12;
    QTest::newRow("approx linear: midpoints") << Trend::ApproxLinear << 4;
    QTest::newRow("superlinear: log midpoints") << Trend::Superlinear << 4;
    QTest::newRow("nonlinear: none") << Trend::Nonlinear << 0;
    QTest::newRow("constant: none") << Trend::Constant << 0;
}

void TestTrendClassifier::interpolationCounts()
{
    QFETCH(Trend, trend);
    QFETCH(int, expected);
    auto pts = TrendClassifier::interpolate({1, 2, 3, 4, 5}, {2, 4, 6, 8, 10}, trend, 3);
    QCOMPARE(static_cast<int>(pts.size()), expected);
    if (trend == Trend::StrongLinear) {
        // Between (1,2) and (2,4) at 1/4, 2/4, 3/4: (1.25, 2.5), (1.5, 3), (1.75, 3.5).
        QCOMPARE(pts[0].first, 1.25);
        QCOMPARE(pts[0].second, 2.5);
        QCOMPARE(pts[2].second, 3.5);
    }
}

void TestTrendClassifier::powerLawMidpointIsExact()
{
    // y = x^2 between 2 and 8: geometric midpoint 4, y = 16 exactly.
    auto pts = TrendClassifier::interpolate({2, 8}, {4, 64}, Trend::Superlinear, 1);
    QCOMPARE(pts.size(), std::size_t(1));
    QCOMPARE(pts[0].first, 4.0);
    QVERIFY(std::abs(pts[0].second - 16.0) < 1e-9);
}

void TestTrendClassifier::badSweeps()
{
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, TrendClassifier::classify({1, 2}, {1, 2}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, TrendClassifier::classify({1, 3, 2}, {1, 2, 3}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, TrendClassifier::classify({1, 2, 3}, {1, 2}));
}

MEMX_TEST_APPLESS_MAIN(TestTrendClassifier)
}  // namespace tst_trend_classifier

#include "tst_trend_classifier.moc"
