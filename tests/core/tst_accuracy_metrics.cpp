// The paper's accuracy metrics (MemX Tables 6-8): MAPE, good/severe shares,
// largest and median error, Spearman rho, Kendall tau-b, Top-k hits. Every
// expected value below is worked out by hand in the comment of its row.
#include "accuracy/AccuracyEvaluator.h"
#include "accuracy/AccuracyMetrics.h"

#include "TestMain.h"

#include <random>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace tst_accuracy_metrics {

using namespace memx;

namespace {
const double kNaN = std::numeric_limits<double>::quiet_NaN();
}

class TestAccuracyMetrics : public QObject {
    Q_OBJECT
private slots:
    void errors_data();
    void errors();
    void errorsNothingUsable();
    void averageRanks();
    void spearman_data();
    void spearman();
    void kendallTau_data();
    void kendallTau();
    void kendallTauMatchesPairCounts();
    void constantSideIsNaN();
    void topKHit_data();
    void topKHit();
    void topKHits();
    void errorsByGpuType();
    void errorsBySubset();
    void rankingUnderPhi();
    void invalidInput();
};

void TestAccuracyMetrics::errors_data()
{
    QTest::addColumn<std::vector<double>>("predicted");
    QTest::addColumn<std::vector<double>>("measured");
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("skipped");
    QTest::addColumn<double>("mape");
    QTest::addColumn<double>("good");
    QTest::addColumn<double>("severe");
    QTest::addColumn<double>("maxPct");
    QTest::addColumn<double>("medianPct");

    // e_i = 100 |p - m| / m:
    //   110 vs 100 -> 10;  90 vs 100 -> 10;  160 vs 100 -> 60;  100 vs 40 -> 60/40 = 150.
    // MAPE = (10 + 10 + 60 + 150) / 4 = 230 / 4 = 57.5
    // good (< 20): {10, 10} -> 2/4 = 0.5;  severe (> 50): {60, 150} -> 2/4 = 0.5
    // max = 150;  sorted 10, 10, 60, 150 -> median = (10 + 60) / 2 = 35
    QTest::newRow("four rows") << std::vector<double>{110, 90, 160, 100} << std::vector<double>{100, 100, 100, 40} << 4
                               << 0 << 57.5 << 0.5 << 0.5 << 150.0 << 35.0;

    // The same four rows plus three unusable ones: measured 0, measured NaN,
    // measured negative -> skipped = 3, the statistics are those above.
    QTest::newRow("four rows + 3 skipped")
        << std::vector<double>{110, 90, 5, 160, 7, 100, 1} << std::vector<double>{100, 100, 0, 100, kNaN, 40, -2} << 4
        << 3 << 57.5 << 0.5 << 0.5 << 150.0 << 35.0;

    // Boundaries are strict: 120 vs 100 -> 20 (not good), 50 vs 100 -> 50 (not
    // severe), 100 vs 100 -> 0 (good).
    // MAPE = (20 + 50 + 0) / 3 = 70/3 = 23.333...;  good = 1/3;  severe = 0/3 = 0
    // max = 50;  sorted 0, 20, 50 -> median = 20
    QTest::newRow("strict thresholds") << std::vector<double>{120, 50, 100} << std::vector<double>{100, 100, 100} << 3
                                       << 0 << 70.0 / 3.0 << 1.0 / 3.0 << 0.0 << 50.0 << 20.0;

    // Perfect predictions: every e_i = 0 -> MAPE 0, good 1, severe 0, max 0, median 0.
    QTest::newRow("perfect") << std::vector<double>{3, 7, 11} << std::vector<double>{3, 7, 11} << 3 << 0 << 0.0 << 1.0
                             << 0.0 << 0.0 << 0.0;

    // A predicted NaN cannot be scored either: rows (NaN vs 10) skipped;
    // 15 vs 10 -> 50 (not severe, not good); 5 vs 10 -> 50.
    // MAPE = (50 + 50) / 2 = 50; good 0; severe 0; max 50; median (50 + 50) / 2 = 50
    QTest::newRow("predicted NaN skipped") << std::vector<double>{kNaN, 15, 5} << std::vector<double>{10, 10, 10} << 2
                                           << 1 << 50.0 << 0.0 << 0.0 << 50.0 << 50.0;
}

void TestAccuracyMetrics::errors()
{
    QFETCH(std::vector<double>, predicted);
    QFETCH(std::vector<double>, measured);
    QFETCH(int, n);
    QFETCH(int, skipped);
    QFETCH(double, mape);
    QFETCH(double, good);
    QFETCH(double, severe);
    QFETCH(double, maxPct);
    QFETCH(double, medianPct);

    const auto s = AccuracyMetrics::errors(predicted, measured);
    QCOMPARE(s.n, static_cast<std::size_t>(n));
    QCOMPARE(s.skipped, static_cast<std::size_t>(skipped));
    QVERIFY2(std::abs(s.mape - mape) < 1e-9, qPrintable(QString::number(s.mape, 'g', 17)));
    QVERIFY(std::abs(s.goodShare - good) < 1e-12);
    QVERIFY(std::abs(s.severeShare - severe) < 1e-12);
    QVERIFY(std::abs(s.maxAbsPct - maxPct) < 1e-9);
    QVERIFY(std::abs(s.medianAbsPct - medianPct) < 1e-9);
}

void TestAccuracyMetrics::errorsNothingUsable()
{
    // Both rows unusable (measured 0 and -1): n = 0, skipped = 2, statistics NaN.
    const auto s = AccuracyMetrics::errors({1, 2}, {0, -1});
    QCOMPARE(s.n, std::size_t{0});
    QCOMPARE(s.skipped, std::size_t{2});
    QVERIFY(std::isnan(s.mape));
    QVERIFY(std::isnan(s.goodShare));
    QVERIFY(std::isnan(s.medianAbsPct));
    const auto e = AccuracyMetrics::errors({}, {});
    QCOMPARE(e.n, std::size_t{0});
    QCOMPARE(e.skipped, std::size_t{0});
}

void TestAccuracyMetrics::averageRanks()
{
    // (5, 6, 7, 8, 7): 5 -> 1, 6 -> 2, the two 7s share ranks 3 and 4 -> 3.5, 8 -> 5.
    const std::vector<double> expected{1, 2, 3.5, 5, 3.5};
    QCOMPARE(AccuracyMetrics::averageRanks({5, 6, 7, 8, 7}), expected);
    // Three-way tie (2, 2, 2, 1): 1 -> 1; the 2s share ranks 2, 3, 4 -> 3.
    const std::vector<double> expected3{3, 3, 3, 1};
    QCOMPARE(AccuracyMetrics::averageRanks({2, 2, 2, 1}), expected3);
}

void TestAccuracyMetrics::spearman_data()
{
    QTest::addColumn<std::vector<double>>("a");
    QTest::addColumn<std::vector<double>>("b");
    QTest::addColumn<double>("rho");

    // a = (1,2,3,4,5): ranks r = (1,2,3,4,5);  b = (5,6,7,8,7): ranks s = (1,2,3.5,5,3.5).
    // Both means are 3.  r - 3 = (-2,-1,0,1,2);  s - 3 = (-2,-1,0.5,2,0.5).
    // sum (r-3)(s-3) = 4 + 1 + 0 + 2 + 1 = 8
    // sum (r-3)^2    = 4 + 1 + 0 + 1 + 4 = 10
    // sum (s-3)^2    = 4 + 1 + 0.25 + 4 + 0.25 = 9.5
    // rho = 8 / sqrt(10 * 9.5) = 8 / sqrt(95) = 8 / 9.74679434... = 0.82078268...
    QTest::newRow("ties in b") << std::vector<double>{1, 2, 3, 4, 5} << std::vector<double>{5, 6, 7, 8, 7}
                               << 8.0 / std::sqrt(95.0);

    // a = (1,1,2,3): ranks (1.5,1.5,3,4);  b = (1,2,2,3): ranks (1,2.5,2.5,4). Means 2.5.
    // dev a = (-1,-1,0.5,1.5);  dev b = (-1.5,0,0,1.5)
    // cov = 1.5 + 0 + 0 + 2.25 = 3.75;  var a = 1+1+0.25+2.25 = 4.5;  var b = 2.25+0+0+2.25 = 4.5
    // rho = 3.75 / sqrt(4.5 * 4.5) = 3.75 / 4.5 = 0.8333...
    QTest::newRow("ties in both") << std::vector<double>{1, 1, 2, 3} << std::vector<double>{1, 2, 2, 3} << 3.75 / 4.5;

    // Same order, different scale: ranks identical -> cov = var -> rho = +1.
    QTest::newRow("perfect") << std::vector<double>{1, 2, 3, 4, 5} << std::vector<double>{10, 20, 30, 40, 50} << 1.0;
    // Monotone but non-linear (squares): still identical ranks -> +1.
    QTest::newRow("perfect nonlinear") << std::vector<double>{1, 2, 3, 4} << std::vector<double>{1, 4, 9, 16} << 1.0;
    // Reversed: s = 6 - r, s - 3 = -(r - 3) -> cov = -var -> rho = -1.
    QTest::newRow("reversed") << std::vector<double>{1, 2, 3, 4, 5} << std::vector<double>{50, 40, 30, 20, 10} << -1.0;
    // No relation: a ranks (1,2,3,4), b = (2,4,1,3) ranks (2,4,1,3); devs (-1.5,-.5,.5,1.5) and (-.5,1.5,-1.5,.5):
    // cov = 0.75 - 0.75 - 0.75 + 0.75 = 0 -> rho = 0.
    QTest::newRow("zero") << std::vector<double>{1, 2, 3, 4} << std::vector<double>{2, 4, 1, 3} << 0.0;
}

void TestAccuracyMetrics::spearman()
{
    QFETCH(std::vector<double>, a);
    QFETCH(std::vector<double>, b);
    QFETCH(double, rho);
    const double got = AccuracyMetrics::spearman(a, b);
    QVERIFY2(std::abs(got - rho) < 1e-12, qPrintable(QString::number(got, 'g', 17)));
    // Symmetric in its arguments.
    QVERIFY(std::abs(AccuracyMetrics::spearman(b, a) - rho) < 1e-12);
}

void TestAccuracyMetrics::kendallTau_data()
{
    QTest::addColumn<std::vector<double>>("a");
    QTest::addColumn<std::vector<double>>("b");
    QTest::addColumn<double>("tau");

    // a = (1,2,3,4,5), b = (5,6,7,8,7); n0 = 5*4/2 = 10 pairs (i,j), positions 1-based:
    //  (1,2) 5->6 C  (1,3) 5->7 C  (1,4) 5->8 C  (1,5) 5->7 C
    //  (2,3) 6->7 C  (2,4) 6->8 C  (2,5) 6->7 C
    //  (3,4) 7->8 C  (3,5) 7->7 tie in b   (4,5) 8->7 D
    // nc = 8, nd = 1, n1 (ties in a) = 0, n2 (ties in b) = 1
    // tau_b = (8 - 1) / sqrt((10 - 0)(10 - 1)) = 7 / sqrt(90) = 0.73786478...
    QTest::newRow("ties in b") << std::vector<double>{1, 2, 3, 4, 5} << std::vector<double>{5, 6, 7, 8, 7}
                               << 7.0 / std::sqrt(90.0);

    // a = (1,1,2,3), b = (1,2,2,3); n0 = 6:
    //  (1,2) a 1->1 tie in a          (1,3) a up, b 1->2 up C   (1,4) up/up C
    //  (2,3) a up, b 2->2 tie in b    (2,4) up/up C             (3,4) up/up C
    // nc = 4, nd = 0, n1 = 1, n2 = 1 -> tau_b = 4 / sqrt(5 * 5) = 0.8
    QTest::newRow("ties in both") << std::vector<double>{1, 1, 2, 3} << std::vector<double>{1, 2, 2, 3} << 0.8;

    // a = (1,2,3,3), b = (1,3,2,2); n0 = 6:
    //  (1,2) up/up C  (1,3) up/up C  (1,4) up/up C
    //  (2,3) a up, b 3->2 D   (2,4) a up, b 3->2 D   (3,4) tie in a and tie in b
    // nc = 3, nd = 2, n1 = 1, n2 = 1 -> tau_b = (3 - 2) / sqrt(5 * 5) = 0.2
    QTest::newRow("pair tied in both") << std::vector<double>{1, 2, 3, 3} << std::vector<double>{1, 3, 2, 2} << 0.2;

    // All 10 pairs concordant, no ties: tau_b = 10 / sqrt(10 * 10) = +1.
    QTest::newRow("perfect") << std::vector<double>{1, 2, 3, 4, 5} << std::vector<double>{10, 20, 30, 40, 50} << 1.0;
    // All 10 pairs discordant: tau_b = -10 / 10 = -1.
    QTest::newRow("reversed") << std::vector<double>{1, 2, 3, 4, 5} << std::vector<double>{50, 40, 30, 20, 10} << -1.0;
    // a = (1,2,3), b = (1,3,2): (1,2) C, (1,3) C, (2,3) D -> (2 - 1) / sqrt(3 * 3) = 1/3.
    QTest::newRow("one swap") << std::vector<double>{1, 2, 3} << std::vector<double>{1, 3, 2} << 1.0 / 3.0;
}

void TestAccuracyMetrics::kendallTau()
{
    QFETCH(std::vector<double>, a);
    QFETCH(std::vector<double>, b);
    QFETCH(double, tau);
    const double got = AccuracyMetrics::kendallTau(a, b);
    QVERIFY2(std::abs(got - tau) < 1e-12, qPrintable(QString::number(got, 'g', 17)));
    QVERIFY(std::abs(AccuracyMetrics::kendallTau(b, a) - tau) < 1e-12);
}

// The O(n log n) count agrees with counting every pair by its definition,
// on data with many ties in a, in b and in both (values from a small set).
void TestAccuracyMetrics::kendallTauMatchesPairCounts()
{
    std::mt19937 rng(7);
    for (int trial = 0; trial < 20; ++trial) {
        const int n = 2 + trial * 13;
        std::uniform_int_distribution<int> pick(0, 2 + trial % 6);
        std::vector<double> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) {
            a[static_cast<std::size_t>(i)] = pick(rng);
            b[static_cast<std::size_t>(i)] = pick(rng) + 0.5 * a[static_cast<std::size_t>(i)];
        }
        long long nc = 0, nd = 0, n1 = 0, n2 = 0;
        for (int i = 0; i < n; ++i)
            for (int j = i + 1; j < n; ++j) {
                const double da = a[static_cast<std::size_t>(j)] - a[static_cast<std::size_t>(i)];
                const double db = b[static_cast<std::size_t>(j)] - b[static_cast<std::size_t>(i)];
                n1 += da == 0;
                n2 += db == 0;
                if (da != 0 && db != 0)
                    ((da > 0) == (db > 0) ? nc : nd) += 1;
            }
        const double n0 = 0.5 * n * (n - 1);
        const double denom = (n0 - n1) * (n0 - n2);
        const double got = AccuracyMetrics::kendallTau(a, b);
        if (denom <= 0) {
            QVERIFY(std::isnan(got));
            continue;
        }
        const double want = (nc - nd) / std::sqrt(denom);
        QVERIFY2(std::abs(got - want) < 1e-12, qPrintable(QStringLiteral("n %1: %2 vs %3").arg(n).arg(got).arg(want)));
    }
}

void TestAccuracyMetrics::constantSideIsNaN()
{
    // A constant side has no ranking: sum (s - sbar)^2 = 0 and n0 - n2 = 0 -> NaN.
    QVERIFY(std::isnan(AccuracyMetrics::spearman({1, 2, 3}, {4, 4, 4})));
    QVERIFY(std::isnan(AccuracyMetrics::kendallTau({1, 2, 3}, {4, 4, 4})));
}

void TestAccuracyMetrics::topKHit_data()
{
    QTest::addColumn<std::vector<double>>("predicted");
    QTest::addColumn<std::vector<double>>("truth");
    QTest::addColumn<int>("k");
    QTest::addColumn<bool>("hit");

    // Six configurations (lower = better):
    //   row      0    1    2    3    4    5
    //   truth    5    3    9    1    7    4    -> the true best is row 3 (1.0)
    //   pred     2    1    6    3    5    4
    // Sorted by prediction: row1 (1), row0 (2), row3 (3), row5 (4), row4 (5), row2 (6).
    // Row 3 has 2 rows predicted at or below it (rows 1, 0) -> predicted rank 3:
    // top-1 no, top-2 no, top-3 yes, top-5 yes, top-10 yes (k > n).
    const std::vector<double> truth{5, 3, 9, 1, 7, 4};
    const std::vector<double> pred{2, 1, 6, 3, 5, 4};
    QTest::newRow("6 rows k=1") << pred << truth << 1 << false;
    QTest::newRow("6 rows k=2") << pred << truth << 2 << false;
    QTest::newRow("6 rows k=3") << pred << truth << 3 << true;
    QTest::newRow("6 rows k=5") << pred << truth << 5 << true;
    QTest::newRow("6 rows k=10") << pred << truth << 10 << true;

    // Prediction tie: row 3 predicted 2, like row 0. Rows at or below 2: rows 1, 0
    // -> 2 ahead (the tie counts against the hit) -> k=2 no, k=3 yes.
    const std::vector<double> tied{2, 1, 6, 2, 5, 4};
    QTest::newRow("tie k=2") << tied << truth << 2 << false;
    QTest::newRow("tie k=3") << tied << truth << 3 << true;

    // Perfect prediction (pred = truth): row 3 has 0 rows ahead -> top-1 hit.
    QTest::newRow("perfect k=1") << truth << truth << 1 << true;
    // Reversed prediction (pred = 10 - truth = 5,7,1,9,3,6): row 3 predicted 9, the
    // worst; all 5 others are ahead -> k=5 no, k=6 yes.
    const std::vector<double> rev{5, 7, 1, 9, 3, 6};
    QTest::newRow("reversed k=5") << rev << truth << 5 << false;
    QTest::newRow("reversed k=6") << rev << truth << 6 << true;

    // Two truly best rows (truth 1 at rows 0 and 2), predicted 4 and 2; row 1 (truth 3)
    // predicted 3. Best-predicted truly-best row is row 2 (2): nothing worse at or
    // below 2 -> top-1 hit.
    QTest::newRow("tied truth") << std::vector<double>{4, 3, 2} << std::vector<double>{1, 3, 1} << 1 << true;
    // Both truly best rows predicted 2, row 1 predicted 5: a truly-best row is the
    // top-1 whichever way the tie breaks -> hit.
    QTest::newRow("tied truth and prediction")
        << std::vector<double>{2, 5, 2} << std::vector<double>{1, 3, 1} << 1 << true;
}

void TestAccuracyMetrics::topKHit()
{
    QFETCH(std::vector<double>, predicted);
    QFETCH(std::vector<double>, truth);
    QFETCH(int, k);
    QFETCH(bool, hit);
    QCOMPARE(AccuracyMetrics::topKHit(predicted, truth, k), hit);
}

void TestAccuracyMetrics::topKHits()
{
    // The 6-row example of topKHit_data: predicted rank of the true best is 3.
    const std::vector<double> truth{5, 3, 9, 1, 7, 4};
    const std::vector<double> pred{2, 1, 6, 3, 5, 4};
    const std::map<int, bool> expected{{1, false}, {3, true}, {5, true}, {10, true}};
    QCOMPARE(AccuracyMetrics::topKHits(pred, truth), expected);
    const std::map<int, bool> expected12{{1, false}, {2, false}};
    QCOMPARE(AccuracyMetrics::topKHits(pred, truth, {1, 2}), expected12);
}

void TestAccuracyMetrics::invalidInput()
{
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, AccuracyMetrics::errors({1, 2}, {1}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, AccuracyMetrics::spearman({1, 2, 3}, {1, 2}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, AccuracyMetrics::spearman({1}, {1}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, AccuracyMetrics::spearman({1, kNaN}, {1, 2}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, AccuracyMetrics::kendallTau({1, 2}, {1, 2, 3}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, AccuracyMetrics::kendallTau({}, {}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, AccuracyMetrics::topKHit({1, 2}, {1}, 1));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, AccuracyMetrics::topKHit({}, {}, 1));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, AccuracyMetrics::topKHit({1, 2}, {1, 2}, 0));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, AccuracyMetrics::topKHits({1, 2}, {1, 2, 3}));
}

// A report splits its errors by the runs' GPU types, a mixed run under its
// joined types: which type the model is worst on.
void TestAccuracyMetrics::errorsByGpuType()
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    auto run = [&](const char* id, const char* types, double measured, double predicted, std::vector<double> mMem,
                   std::vector<double> pMem) {
        memx::RunScore s;
        s.runId = id;
        s.group = id;
        s.gpuTypes = types;
        s.measuredIterationMs = measured;
        s.predictedIterationMs = predicted;
        s.measuredRankMs = measured;
        s.predictedRankMs = predicted;
        s.measuredMemMiB = std::move(mMem);
        s.predictedMemMiB = std::move(pMem);
        s.measuredPhi = s.predictedPhi = nan;
        return s;
    };
    memx::AccuracyReport r;
    // A100: 10 % and 30 % off in time (mean 20 %), memory 1000 vs 1100 (10 %).
    r.scores.push_back(run("a1", "A100-80GB", 100, 110, {1000}, {1100}));
    r.scores.push_back(run("a2", "A100-80GB", 200, 140, {}, {}));
    // H100: 50 % off; the mixed run 25 % off, reported apart.
    r.scores.push_back(run("h1", "H100-SXM", 100, 150, {}, {}));
    r.scores.push_back(run("m1", "A100-80GB+H100-SXM", 400, 300, {}, {}));
    r = memx::AccuracyEvaluator::summarise(std::move(r));
    QCOMPARE(int(r.byGpuType.size()), 3);
    QCOMPARE(r.byGpuType.at("A100-80GB").iterationTime.n, std::size_t(2));
    QCOMPARE(r.byGpuType.at("A100-80GB").iterationTime.mape, 20.0);
    QCOMPARE(r.byGpuType.at("A100-80GB").memory.mape, 10.0);
    QCOMPARE(r.byGpuType.at("H100-SXM").iterationTime.mape, 50.0);
    QCOMPARE(r.byGpuType.at("H100-SXM").memory.n, std::size_t(0));
    QCOMPARE(r.byGpuType.at("A100-80GB+H100-SXM").iterationTime.mape, 25.0);
    const QString text = QString::fromStdString(r.formatText());
    QVERIFY2(text.contains(QStringLiteral("  A100-80GB: iteration time 20.00 (2), peak memory 10.00 (1)\n")),
             qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("  H100-SXM: iteration time 50.00 (1)\n")), qPrintable(text));
    const nlohmann::json j = r.toJson();
    QCOMPARE(j.at("by_gpu_type").at("A100-80GB+H100-SXM").at("iteration_time").at("mape_pct").get<double>(), 25.0);
}

namespace {
memx::RunScore scored(const char* id, double measured, double predicted)
{
    memx::RunScore s;
    s.runId = id;
    s.group = "g";
    s.measuredIterationMs = s.measuredRankMs = measured;
    s.predictedIterationMs = s.predictedRankMs = predicted;
    s.measuredPhi = s.predictedPhi = std::numeric_limits<double>::quiet_NaN();
    return s;
}
}  // namespace

// The paper breaks its errors down by micro-batch size, PP and sequence
// length: a: mbs 1, PP 1, seq 2048, 10 % off; b: mbs 1, PP 2, seq 2048, 30 %;
// c: mbs 2, PP 2, seq 4096, 25 %.
void TestAccuracyMetrics::errorsBySubset()
{
    memx::AccuracyReport r;
    const auto add = [&](const char* id, int mbs, int pp, int seq, double m, double p) {
        memx::RunScore s = scored(id, m, p);
        s.group = id;
        s.microBatch = mbs;
        s.pp = pp;
        s.seqLen = seq;
        r.scores.push_back(s);
    };
    add("a", 1, 1, 2048, 100, 110);
    add("b", 1, 2, 2048, 100, 130);
    add("c", 2, 2, 4096, 200, 150);
    r = memx::AccuracyEvaluator::summarise(std::move(r));
    QCOMPARE(r.bySubset.at("micro_batch").at(1).iterationTime.mape, 20.0);
    QCOMPARE(r.bySubset.at("micro_batch").at(2).iterationTime.mape, 25.0);
    QCOMPARE(r.bySubset.at("pp").at(1).iterationTime.mape, 10.0);
    QCOMPARE(r.bySubset.at("pp").at(2).iterationTime.mape, 27.5);
    QCOMPARE(r.bySubset.at("seq_len").at(2048).iterationTime.n, std::size_t(2));
    QCOMPARE(r.bySubset.at("seq_len").at(4096).iterationTime.mape, 25.0);
    const QString text = QString::fromStdString(r.formatText());
    QVERIFY2(text.contains(QStringLiteral("by micro-batch size (MAPE %, n):\n  mbs 1: iteration time 20.00 (2)\n"
                                          "  mbs 2: iteration time 25.00 (1)\n")),
             qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("by PP (MAPE %, n):\n  PP 1: iteration time 10.00 (1)\n")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("  seq 4096: iteration time 25.00 (1)\n")), qPrintable(text));
    const nlohmann::json j = r.toJson();
    QCOMPARE(j.at("by_subset").at("pp").at("2").at("iteration_time").at("mape_pct").get<double>(), 27.5);
}

// Ranking under Phi (default weights, the measured runs' references) next to
// ranking under time. Three runs, every stage's memory measured:
//   measured  r1 100 ms {10, 10}, r2 110 ms {10, 10}, r3 120 ms {5, 45} MiB;
//   predicted r1 100 ms {10, 10}, r2  90 ms {10, 10}, r3  80 ms {5, 45} MiB.
// Time: measured order r1 < r2 < r3, predicted r3 < r2 < r1: Spearman -1,
// Kendall -1. Phi: r3's variance (400 MiB^2 over a median of 0) makes it the
// worst on both sides; measured r1 < r2, predicted r2 < r1. Ranks (1, 2, 3)
// against (2, 1, 3): Spearman 1 - 6 x 2 / (3 x 8) = 0.5, Kendall (2 - 1) / 3;
// the predicted best (r2) is not the measured best: top-1 miss, top-3 hit.
void TestAccuracyMetrics::rankingUnderPhi()
{
    memx::AccuracyReport r;
    const auto add = [&](const char* id, double m, double p, std::vector<double> mem) {
        memx::RunScore s = scored(id, m, p);
        s.measuredMemMiB = s.predictedMemMiB = std::move(mem);
        s.allStagesMeasured = true;
        r.scores.push_back(s);
    };
    add("r1", 100, 100, {10, 10});
    add("r2", 110, 90, {10, 10});
    add("r3", 120, 80, {5, 45});
    r = memx::AccuracyEvaluator::summarise(std::move(r));
    QCOMPARE(r.rankedGroups, std::size_t(1));
    QCOMPARE(r.spearman, -1.0);
    QCOMPARE(r.kendall, -1.0);
    QCOMPARE(r.phiGroups, std::size_t(1));
    QCOMPARE(r.spearmanPhi, 0.5);
    QVERIFY(std::fabs(r.kendallPhi - 1.0 / 3) < 1e-12);
    QCOMPARE(r.topKPhi.at(1), 0.0);
    QCOMPARE(r.topKPhi.at(3), 1.0);
    const QString text = QString::fromStdString(r.formatText());
    QVERIFY2(text.contains(QStringLiteral("ranking under Phi (default weights) over 1 group(s): Spearman 0.500, "
                                          "Kendall tau 0.333; top-1/3/5/10 hits 0%/100%/100%/100%")),
             qPrintable(text));
    const nlohmann::json j = r.toJson();
    QCOMPARE(j.at("spearman_phi").get<double>(), 0.5);
}

MEMX_TEST_APPLESS_MAIN(TestAccuracyMetrics)
}  // namespace tst_accuracy_metrics

#include "tst_accuracy_metrics.moc"
