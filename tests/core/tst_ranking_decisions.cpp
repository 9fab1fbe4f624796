// Rankings acted on (RankingDecisions): in each group of competing runs, is
// the truly fastest run the predicted-fastest (top-1) or among the predicted
// 3 fastest (top-3), and how much slower is the run the prediction picks
// (regret = measured time of the picked run / fastest measured time - 1)?
// Every expected value is worked out by hand in the comment of its row.
#include "accuracy/RankingDecisions.h"

#include "TestMain.h"

#include <cmath>
#include <random>
#include <stdexcept>

namespace tst_ranking_decisions {

using namespace memx;

using Times = std::vector<double>;
using TimesPerGroup = std::vector<std::vector<double>>;
}  // namespace tst_ranking_decisions
Q_DECLARE_METATYPE(tst_ranking_decisions::TimesPerGroup)
namespace tst_ranking_decisions {

namespace {

// The groups used by several rows below (ms; lower is better):
//   A: measured 10, 12, 15, predicted 1, 2, 3 -> picks row 0 = the fastest:
//      regret 0, top-1 and top-3 hits.
//   B: measured 10, 12, 15, predicted 2, 1, 3 -> picks row 1 (12 ms), fastest
//      row 0 (10 ms): regret 100 * (12/10 - 1) = 20 %; the fastest is predicted
//      2nd: top-1 miss, top-3 hit.
//   C: measured 10, 11, 13, 20, 8, predicted 1, 2, 3, 5, 4 -> picks row 0
//      (10 ms), fastest row 4 (8 ms): regret 100 * (10/8 - 1) = 25 %; rows 0, 1,
//      2 are predicted ahead of row 4 -> predicted 4th: top-1 and top-3 miss.
//   D: measured 100, 150, predicted 5, 4 -> picks row 1 (150 ms), fastest row 0:
//      regret 50 %; top-1 miss, top-3 hit (3 > 2 runs).
//   S1, S2: single runs (7 ms and 9 ms): no decision.
const Times kAm{10, 12, 15}, kAp{1, 2, 3};
const Times kBm{10, 12, 15}, kBp{2, 1, 3};
const Times kCm{10, 11, 13, 20, 8}, kCp{1, 2, 3, 5, 4};
const Times kDm{100, 150}, kDp{5, 4};
const Times kS1m{7}, kS1p{3}, kS2m{9}, kS2p{1};
// Ties. Tm: measured tie at the top (10, 10, 12), predicted 2, 1, 3: both
// 10 ms runs are the fastest, the picked row 1 is one of them: regret 0, hit.
// Tp: predicted tie at the top (1, 1, 3), measured 10, 12, 15: the pick among
// the tied is the slower one (pessimistic), row 1 (12 ms): regret 20 %, top-1
// miss (a slower run predicted as fast as the fastest), top-3 hit.
const Times kTmm{10, 10, 12}, kTmp{2, 1, 3};
const Times kTpm{10, 12, 15}, kTpp{1, 1, 3};

const double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

class TestRankingDecisions : public QObject {
    Q_OBJECT
private slots:
    void decide_data();
    void decide();
    void summarise_data();
    void summarise();
    void topOneIffNoRegret();
    void invalidInput();
};

void TestRankingDecisions::decide_data()
{
    QTest::addColumn<Times>("predicted");
    QTest::addColumn<Times>("measured");
    QTest::addColumn<int>("picked");
    QTest::addColumn<int>("fastest");
    QTest::addColumn<double>("regretPct");
    QTest::addColumn<bool>("top1");
    QTest::addColumn<bool>("top3");
    QTest::addColumn<int>("tied");  // runs at the lowest prediction
    QTest::addColumn<double>("expectedRegret");  // mean regret over those

    // No tie at the lowest prediction: the expected regret is the regret.
    QTest::newRow("A: predicted best is the true best") << kAp << kAm << 0 << 0 << 0.0 << true << true << 1 << 0.0;
    QTest::newRow("B: second-fastest picked") << kBp << kBm << 1 << 0 << 20.0 << false << true << 1 << 20.0;
    QTest::newRow("C: fastest predicted 4th") << kCp << kCm << 0 << 4 << 25.0 << false << false << 1 << 25.0;
    QTest::newRow("D: two runs, wrong pick") << kDp << kDm << 1 << 0 << 50.0 << false << true << 1 << 50.0;
    QTest::newRow("single run") << kS1p << kS1m << 0 << 0 << 0.0 << true << true << 1 << 0.0;
    // Tm: the fastest among the tied is the one predicted fastest, row 1.
    QTest::newRow("tie in measured time") << kTmp << kTmm << 1 << 1 << 0.0 << true << true << 1 << 0.0;
    // Tp: rows 0 (10 ms, regret 0) and 1 (12 ms, regret 20) tie at prediction 1:
    // expected regret (0 + 20) / 2 = 10.
    QTest::newRow("tie in predicted time") << kTpp << kTpm << 1 << 0 << 20.0 << false << true << 2 << 10.0;
    // Tied in both (predicted 1, 1, 3; measured 10, 10, 15): rows 0 and 1 are the
    // same to the rule; the first is kept. Either way the regret is 0.
    QTest::newRow("tie in both") << Times{1, 1, 3} << Times{10, 10, 15} << 0 << 0 << 0.0 << true << true << 2 << 0.0;
    // One configuration measured three times (predicted 5, 5, 5, 9; measured 100,
    // 110, 160, 90): the pick is the slowest repeat (160 ms) against 90 ms, regret
    // 100 * (160/90 - 1) = 77.78 %; expected 100 * ((100 + 110 + 160)/3/90 - 1)
    // = 100 * (370/270 - 1) = 37.04 %.
    QTest::newRow("repeated configuration")
        << Times{5, 5, 5, 9} << Times{100, 110, 160, 90} << 2 << 3 << 100.0 * (160.0 / 90 - 1) << false << false << 3
        << 100.0 * (370.0 / 270 - 1);
    // Predicted 3, 1, 2; measured 80, 90, 100: picks row 1 (90 ms), fastest row 0
    // (80 ms): regret 100 * (90/80 - 1) = 12.5 %; rows 1, 2 predicted ahead of
    // row 0 -> predicted 3rd: top-1 miss, top-3 hit.
    QTest::newRow("regret 12.5%") << Times{3, 1, 2} << Times{80, 90, 100} << 1 << 0 << 12.5 << false << true << 1
                                  << 12.5;
}

void TestRankingDecisions::decide()
{
    QFETCH(Times, predicted);
    QFETCH(Times, measured);
    QFETCH(int, picked);
    QFETCH(int, fastest);
    QFETCH(double, regretPct);
    QFETCH(bool, top1);
    QFETCH(bool, top3);
    QFETCH(int, tied);
    QFETCH(double, expectedRegret);
    const RankingDecisions::Group g = RankingDecisions::decide(predicted, measured);
    QCOMPARE(g.runs, measured.size());
    QCOMPARE(static_cast<int>(g.picked), picked);
    QCOMPARE(static_cast<int>(g.fastest), fastest);
    QCOMPARE(g.regretPct, regretPct);
    QCOMPARE(g.top1, top1);
    QCOMPARE(g.top3, top3);
    QCOMPARE(static_cast<int>(g.tiedAtPick), tied);
    QCOMPARE(g.expectedRegretPct, expectedRegret);
}

void TestRankingDecisions::summarise_data()
{
    QTest::addColumn<TimesPerGroup>("predicted");
    QTest::addColumn<TimesPerGroup>("measured");
    QTest::addColumn<int>("groups");
    QTest::addColumn<int>("singleRunGroups");
    QTest::addColumn<double>("hitTop1");
    QTest::addColumn<double>("hitTop3");
    QTest::addColumn<double>("regretMedian");
    QTest::addColumn<double>("regretMax");
    QTest::addColumn<int>("tiedPicks");
    QTest::addColumn<double>("expectedMedian");
    QTest::addColumn<double>("expectedMax");

    // A, B, C: regrets 0, 20, 25 -> median 20, max 25; top-1 hits {A} = 1/3,
    // top-3 hits {A, B} = 2/3. No tie: the expected regrets are the same.
    QTest::newRow("three groups") << TimesPerGroup{kAp, kBp, kCp} << TimesPerGroup{kAm, kBm, kCm} << 3 << 0 << 1.0 / 3
                                  << 2.0 / 3 << 20.0 << 25.0 << 0 << 20.0 << 25.0;
    // The same with two single-run groups: they are counted, not scored.
    QTest::newRow("three groups + 2 single-run")
        << TimesPerGroup{kS1p, kAp, kBp, kS2p, kCp} << TimesPerGroup{kS1m, kAm, kBm, kS2m, kCm} << 3 << 2 << 1.0 / 3
        << 2.0 / 3 << 20.0 << 25.0 << 0 << 20.0 << 25.0;
    // One group (B): regret 20 is both median and max; top-1 0/1, top-3 1/1.
    QTest::newRow("one group") << TimesPerGroup{kBp} << TimesPerGroup{kBm} << 1 << 0 << 0.0 << 1.0 << 20.0 << 20.0 << 0
                               << 20.0 << 20.0;
    // One group where the prediction picks the fastest (A): regret 0, hits 1/1.
    QTest::newRow("one group, right pick")
        << TimesPerGroup{kAp} << TimesPerGroup{kAm} << 1 << 0 << 1.0 << 1.0 << 0.0 << 0.0 << 0 << 0.0 << 0.0;
    // A, B, C, D: regrets 0, 20, 25, 50 -> median (20 + 25) / 2 = 22.5, max 50;
    // top-1 {A} = 1/4, top-3 {A, B, D} = 3/4.
    QTest::newRow("four groups, even median") << TimesPerGroup{kAp, kBp, kCp, kDp} << TimesPerGroup{kAm, kBm, kCm, kDm}
                                              << 4 << 0 << 0.25 << 0.75 << 22.5 << 50.0 << 0 << 22.5 << 50.0;
    // Tm (regret 0, top-1 hit) and Tp (regret 20, top-1 miss): median 10, max 20,
    // top-1 1/2, top-3 2/2. Tp's pick is a tie (expected regret 10), Tm's is
    // not (0): 1 tied pick, expected median 5, max 10.
    QTest::newRow("ties") << TimesPerGroup{kTmp, kTpp} << TimesPerGroup{kTmm, kTpm} << 2 << 0 << 0.5 << 1.0 << 10.0
                          << 20.0 << 1 << 5.0 << 10.0;
    // Only single-run groups: no decision, every share NaN.
    QTest::newRow("single runs only") << TimesPerGroup{kS1p, kS2p} << TimesPerGroup{kS1m, kS2m} << 0 << 2 << kNaN
                                      << kNaN << kNaN << kNaN << 0 << kNaN << kNaN;
    QTest::newRow("no group") << TimesPerGroup{} << TimesPerGroup{} << 0 << 0 << kNaN << kNaN << kNaN << kNaN << 0
                              << kNaN << kNaN;
}

void TestRankingDecisions::summarise()
{
    QFETCH(TimesPerGroup, predicted);
    QFETCH(TimesPerGroup, measured);
    QFETCH(int, groups);
    QFETCH(int, singleRunGroups);
    QFETCH(double, hitTop1);
    QFETCH(double, hitTop3);
    QFETCH(double, regretMedian);
    QFETCH(double, regretMax);
    QFETCH(int, tiedPicks);
    QFETCH(double, expectedMedian);
    QFETCH(double, expectedMax);
    std::vector<RankingDecisions::Group> decided;
    for (std::size_t i = 0; i < measured.size(); ++i)
        decided.push_back(RankingDecisions::decide(predicted[i], measured[i]));
    const RankingDecisions::Summary s = RankingDecisions::summarise(decided);
    QCOMPARE(static_cast<int>(s.groups), groups);
    QCOMPARE(static_cast<int>(s.singleRunGroups), singleRunGroups);
    const auto same = [](double a, double b) { return std::isnan(b) ? std::isnan(a) : std::abs(a - b) < 1e-12; };
    QVERIFY2(same(s.hitTop1, hitTop1), qPrintable(QString::number(s.hitTop1)));
    QVERIFY2(same(s.hitTop3, hitTop3), qPrintable(QString::number(s.hitTop3)));
    QVERIFY2(same(s.regretMedianPct, regretMedian), qPrintable(QString::number(s.regretMedianPct)));
    QVERIFY2(same(s.regretMaxPct, regretMax), qPrintable(QString::number(s.regretMaxPct)));
    QCOMPARE(static_cast<int>(s.tiedPicks), tiedPicks);
    QVERIFY2(same(s.expectedRegretMedianPct, expectedMedian), qPrintable(QString::number(s.expectedRegretMedianPct)));
    QVERIFY2(same(s.expectedRegretMaxPct, expectedMax), qPrintable(QString::number(s.expectedRegretMaxPct)));
}

void TestRankingDecisions::topOneIffNoRegret()
{
    // The tie rules agree with AccuracyMetrics::topKHit: a top-1 hit exactly when
    // the picked run costs nothing. Small integer times make ties frequent.
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> t(1, 4), n(1, 6);
    for (int trial = 0; trial < 2000; ++trial) {
        Times p, m;
        for (int i = n(rng); i > 0; --i) {
            p.push_back(t(rng));
            m.push_back(10 * t(rng));
        }
        const RankingDecisions::Group g = RankingDecisions::decide(p, m);
        QCOMPARE(g.top1, g.regretPct == 0.0);
        QVERIFY(g.expectedRegretPct <= g.regretPct + 1e-9);  // the pick is the worst of the tied
        QVERIFY(g.regretPct >= 0);
        QCOMPARE(m[g.fastest], *std::min_element(m.begin(), m.end()));
        QCOMPARE(p[g.picked], *std::min_element(p.begin(), p.end()));
    }
}

void TestRankingDecisions::invalidInput()
{
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, RankingDecisions::decide({1, 2}, {1}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, RankingDecisions::decide({}, {}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, RankingDecisions::decide({1, kNaN}, {1, 2}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, RankingDecisions::decide({1, 2}, {1, kNaN}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             RankingDecisions::decide({1, 2}, {1, std::numeric_limits<double>::infinity()}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, RankingDecisions::decide({1, 2}, {0, 3}));
}

MEMX_TEST_APPLESS_MAIN(TestRankingDecisions)
}  // namespace tst_ranking_decisions

#include "tst_ranking_decisions.moc"
