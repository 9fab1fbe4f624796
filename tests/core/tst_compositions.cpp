// Compositions: ways to split L layers over P pipeline stages (every stage
// at least one layer) = C(L-1, P-1), by stars and bars.
#include "space/Compositions.h"

#include "TestMain.h"

#include <cstdint>
#include <limits>
#include <numeric>
#include <set>
#include <vector>

namespace tst_compositions {

using memx::Compositions;

class TestCompositions : public QObject {
    Q_OBJECT

private slots:
    void count_data();
    void count();
    void forEachEnumeratesEveryCompositionOnce_data();
    void forEachEnumeratesEveryCompositionOnce();
    void forEachListsFiveIntoThreeInLexicographicOrder();
    void forEachVisitsNothingWhenImpossible();
    void countMultiples_data();
    void countMultiples();
    void binomial_data();
    void binomial();
};

void TestCompositions::count_data()
{
    QTest::addColumn<int>("layers");
    QTest::addColumn<int>("parts");
    QTest::addColumn<quint64>("expected");
    QTest::newRow("32 layers, 4 stages") << 32 << 4 << quint64(4495);  // C(31,3) = 31*30*29/6
    QTest::newRow("32 layers, 5 stages") << 32 << 5 << quint64(31465);  // C(31,4) = 31*30*29*28/24
    QTest::newRow("31 layers, 4 stages") << 31 << 4 << quint64(4060);  // C(30,3) = 30*29*28/6
    QTest::newRow("10 layers, 3 stages") << 10 << 3 << quint64(36);  // C(9,2) = 9*8/2
    QTest::newRow("80 layers, 8 stages") << 80 << 8 << quint64(2898753715);  // C(79,7) = 79*78*...*73/5040
    QTest::newRow("one stage takes all") << 32 << 1 << quint64(1);  // C(31,0)
    QTest::newRow("one layer per stage") << 6 << 6 << quint64(1);  // C(5,5)
    QTest::newRow("more stages than layers") << 4 << 5 << quint64(0);
    QTest::newRow("zero stages") << 4 << 0 << quint64(0);
    QTest::newRow("zero layers") << 0 << 2 << quint64(0);
}

void TestCompositions::count()
{
    QFETCH(int, layers);
    QFETCH(int, parts);
    QFETCH(quint64, expected);
    QCOMPARE(quint64(Compositions::count(layers, parts)), expected);
}

void TestCompositions::forEachEnumeratesEveryCompositionOnce_data()
{
    QTest::addColumn<int>("layers");
    QTest::addColumn<int>("parts");
    QTest::addColumn<int>("expected");  // hand value of C(L-1, P-1)
    QTest::newRow("1 into 1") << 1 << 1 << 1;
    QTest::newRow("4 into 2") << 4 << 2 << 3;  // 1+3, 2+2, 3+1
    QTest::newRow("6 into 3") << 6 << 3 << 10;  // C(5,2)
    QTest::newRow("8 into 4") << 8 << 4 << 35;  // C(7,3)
    QTest::newRow("10 into 3") << 10 << 3 << 36;  // C(9,2)
    QTest::newRow("12 into 5") << 12 << 5 << 330;  // C(11,4) = 11*10*9*8/24
    QTest::newRow("7 into 7") << 7 << 7 << 1;
}

void TestCompositions::forEachEnumeratesEveryCompositionOnce()
{
    QFETCH(int, layers);
    QFETCH(int, parts);
    QFETCH(int, expected);
    std::set<std::vector<int>> seen;
    std::vector<int> previous;
    int visits = 0;
    bool ordered = true, shapeOk = true;
    Compositions::forEach(layers, parts, [&](const std::vector<int>& c) {
        ++visits;
        if (int(c.size()) != parts || std::accumulate(c.begin(), c.end(), 0) != layers)
            shapeOk = false;
        for (int x : c)
            if (x < 1)
                shapeOk = false;
        if (!previous.empty() && !(previous < c))  // strictly increasing = lexicographic and no repeats
            ordered = false;
        previous = c;
        seen.insert(c);
    });
    QVERIFY2(shapeOk, "every composition has P parts >= 1 summing to L");
    QVERIFY2(ordered, "compositions come in strictly increasing lexicographic order");
    QCOMPARE(visits, expected);
    QCOMPARE(int(seen.size()), expected);
    QCOMPARE(quint64(Compositions::count(layers, parts)), quint64(expected));
}

void TestCompositions::forEachListsFiveIntoThreeInLexicographicOrder()
{
    // All compositions of 5 into 3 parts, written out by hand: C(4,2) = 6.
    const std::vector<std::vector<int>> expected = {
        {1, 1, 3}, {1, 2, 2}, {1, 3, 1}, {2, 1, 2}, {2, 2, 1}, {3, 1, 1},
    };
    std::vector<std::vector<int>> got;
    Compositions::forEach(5, 3, [&](const std::vector<int>& c) { got.push_back(c); });
    QCOMPARE(got.size(), expected.size());
    for (std::size_t i = 0; i < got.size(); ++i)
        QVERIFY2(got[i] == expected[i], qPrintable(QString("composition %1 differs").arg(i)));
}

void TestCompositions::forEachVisitsNothingWhenImpossible()
{
    int visits = 0;
    Compositions::forEach(3, 4, [&](const std::vector<int>&) { ++visits; });
    Compositions::forEach(3, 0, [&](const std::vector<int>&) { ++visits; });
    QCOMPARE(visits, 0);
}

// Interleaved schedules need every stage's layer count to be a multiple of
// v: writing each part as v*k, k >= 1, gives compositions of L/v into P parts.
void TestCompositions::countMultiples_data()
{
    QTest::addColumn<int>("layers");
    QTest::addColumn<int>("parts");
    QTest::addColumn<int>("step");
    QTest::addColumn<quint64>("expected");
    QTest::newRow("32 layers, 4 stages, step 2") << 32 << 4 << 2 << quint64(455);  // C(15,3) = 15*14*13/6
    QTest::newRow("32 layers, 4 stages, step 4") << 32 << 4 << 4 << quint64(35);  // C(7,3)
    QTest::newRow("step 1 is plain count") << 32 << 4 << 1 << quint64(4495);
    QTest::newRow("6 layers, 2 stages, step 2") << 6 << 2 << 2 << quint64(2);  // 2+4, 4+2
    QTest::newRow("L not a multiple of step") << 30 << 3 << 4 << quint64(0);
    QTest::newRow("too few multiples") << 8 << 3 << 4 << quint64(0);  // 8/4 = 2 < 3 parts
    QTest::newRow("step 0 is invalid") << 8 << 2 << 0 << quint64(0);
}

void TestCompositions::countMultiples()
{
    QFETCH(int, layers);
    QFETCH(int, parts);
    QFETCH(int, step);
    QFETCH(quint64, expected);
    QCOMPARE(quint64(Compositions::countMultiples(layers, parts, step)), expected);
    if (step > 0 && layers <= 12) {  // cross-check against enumeration
        quint64 n = 0;
        Compositions::forEach(layers, parts, [&](const std::vector<int>& c) {
            bool all = true;
            for (int x : c)
                all = all && x % step == 0;
            n += all;
        });
        QCOMPARE(n, expected);
    }
}

void TestCompositions::binomial_data()
{
    const quint64 max = std::numeric_limits<std::uint64_t>::max();  // 18,446,744,073,709,551,615
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("k");
    QTest::addColumn<quint64>("expected");
    QTest::newRow("C(5,2)") << 5 << 2 << quint64(10);
    QTest::newRow("C(n,0)") << 9 << 0 << quint64(1);
    QTest::newRow("C(n,n)") << 9 << 9 << quint64(1);
    QTest::newRow("k > n") << 3 << 4 << quint64(0);
    QTest::newRow("negative k") << 3 << -1 << quint64(0);
    QTest::newRow("C(52,5) poker hands") << 52 << 5 << quint64(2598960);
    // C(67,33) = 14,226,520,737,620,288,370 < 2^64 - 1: still exact.
    QTest::newRow("C(67,33) largest central that fits") << 67 << 33 << quint64(14226520737620288370ULL);
    // C(68,34) = 28,453,041,475,240,576,740 > 2^64 - 1: saturates.
    QTest::newRow("C(68,34) saturates") << 68 << 34 << max;
    QTest::newRow("C(200,100) saturates") << 200 << 100 << max;
    QTest::newRow("C(1000,500) saturates") << 1000 << 500 << max;
}

void TestCompositions::binomial()
{
    QFETCH(int, n);
    QFETCH(int, k);
    QFETCH(quint64, expected);
    QCOMPARE(quint64(Compositions::binomial(n, k)), expected);
}

MEMX_TEST_APPLESS_MAIN(TestCompositions)
}  // namespace tst_compositions

#include "tst_compositions.moc"
