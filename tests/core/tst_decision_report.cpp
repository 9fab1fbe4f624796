// The ranking decisions of an accuracy report (DecisionReport, filled by
// AccuracyEvaluator::summarise): groups of competing runs, the run the
// prediction picks in each, the regret, and how they appear in the text
// report and in memx-accuracy/1 JSON. Numbers worked out by hand.
#include "accuracy/AccuracyEvaluator.h"

#include "TestMain.h"

#include <cmath>
#include <limits>

namespace tst_decision_report {

using namespace memx;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

RunScore score(const std::string& id, const std::string& group, double measuredMs, double predictedMs)
{
    RunScore s;
    s.runId = id;
    s.group = group;
    s.measuredIterationMs = s.measuredRankMs = measuredMs;
    s.predictedIterationMs = s.predictedRankMs = predictedMs;
    s.measuredPhi = s.predictedPhi = kNaN;
    return s;
}

// Three groups of >= 2 runs and one of a single run (ms):
//   g1: a1 100 (pred 50), a2 120 (pred 40), a3 150 (pred 60) -> picks a2,
//       fastest a1: regret 100 * (120/100 - 1) = 20 %; a1 predicted 2nd.
//   g2: b1 200 (pred 90), b2 250 (pred 95) -> picks b1 = fastest: regret 0.
//   g3: c1 80 (pred 30), c2 100 (pred 20) -> picks c2, fastest c1:
//       regret 100 * (100/80 - 1) = 25 %; c1 predicted 2nd.
//   g4: d1 70 alone: not a decision.
//   x1: measured NaN: not ranked at all (no group).
// Summary: 3 groups, 1 single-run; top-1 {g2} = 1/3, top-3 3/3; regrets
// 0, 20, 25 -> median 20, max 25 (c2 over c1 in g3).
AccuracyReport sample()
{
    AccuracyReport r;
    r.predictor = "test";
    r.scores = {score("a1", "g1", 100, 50), score("a2", "g1", 120, 40), score("a3", "g1", 150, 60),
                score("b1", "g2", 200, 90), score("b2", "g2", 250, 95), score("c1", "g3", 80, 30),
                score("c2", "g3", 100, 20), score("d1", "g4", 70, 10),  score("x1", "g1", kNaN, 10)};
    return AccuracyEvaluator::summarise(std::move(r));
}

}  // namespace

class TestDecisionReport : public QObject {
    Q_OBJECT
private slots:
    void summary();
    void namesTheRuns_data();
    void namesTheRuns();
    void json();
    void text();
    void textWithSingleRunsOnly();
    void tiedPick();
    void repeatsAreOneChoice_data();
    void repeatsAreOneChoice();
    void summariseTwiceIsTheSame();
};

void TestDecisionReport::summary()
{
    const RankingDecisions::Summary s = sample().decisions.summary;
    QCOMPARE(s.groups, std::size_t{3});
    QCOMPARE(s.singleRunGroups, std::size_t{1});
    QCOMPARE(s.hitTop1, 1.0 / 3);
    QCOMPARE(s.hitTop3, 1.0);
    QCOMPARE(s.regretMedianPct, 20.0);
    QCOMPARE(s.regretMaxPct, 25.0);
}

void TestDecisionReport::namesTheRuns_data()
{
    QTest::addColumn<QString>("group");
    QTest::addColumn<QString>("picked");
    QTest::addColumn<QString>("fastest");
    QTest::addColumn<double>("regretPct");
    QTest::newRow("g1") << "g1"
                        << "a2"
                        << "a1" << 20.0;
    QTest::newRow("g2") << "g2"
                        << "b1"
                        << "b1" << 0.0;
    QTest::newRow("g3") << "g3"
                        << "c2"
                        << "c1" << 25.0;
    QTest::newRow("g4") << "g4"
                        << "d1"
                        << "d1" << 0.0;
}

void TestDecisionReport::namesTheRuns()
{
    QFETCH(QString, group);
    QFETCH(QString, picked);
    QFETCH(QString, fastest);
    QFETCH(double, regretPct);
    const AccuracyReport r = sample();
    const auto it = std::find_if(r.decisions.groups.begin(), r.decisions.groups.end(),
                                 [&](const DecisionReport::Named& g) { return g.group == group.toStdString(); });
    QVERIFY(it != r.decisions.groups.end());
    QCOMPARE(QString::fromStdString(it->pickedRun), picked);
    QCOMPARE(QString::fromStdString(it->fastestRun), fastest);
    QCOMPARE(it->d.regretPct, regretPct);
}

void TestDecisionReport::json()
{
    const nlohmann::json j = sample().toJson()["decisions"];
    QCOMPARE(j["groups"].get<int>(), 3);
    QCOMPARE(j["single_run_groups"].get<int>(), 1);
    QCOMPARE(j["hit_top1"].get<double>(), 1.0 / 3);
    QCOMPARE(j["hit_top3"].get<double>(), 1.0);
    QCOMPARE(j["regret_median_pct"].get<double>(), 20.0);
    QCOMPARE(j["regret_max_pct"].get<double>(), 25.0);
    // Per group of >= 2 runs only (g4 is not a decision), in group order.
    QCOMPARE(j["per_group"].size(), std::size_t{3});
    const nlohmann::json& g3 = j["per_group"][2];
    QCOMPARE(g3["group"].get<std::string>(), std::string("g3"));
    QCOMPARE(g3["runs"].get<int>(), 2);
    QCOMPARE(g3["picked_run"].get<std::string>(), std::string("c2"));
    QCOMPARE(g3["picked_ms"].get<double>(), 100.0);
    QCOMPARE(g3["fastest_run"].get<std::string>(), std::string("c1"));
    QCOMPARE(g3["fastest_ms"].get<double>(), 80.0);
    QCOMPARE(g3["regret_pct"].get<double>(), 25.0);
    QCOMPARE(g3["top1"].get<bool>(), false);
    QCOMPARE(g3["top3"].get<bool>(), true);
    // No group at all: counts 0, statistics null.
    const nlohmann::json e = AccuracyEvaluator::summarise(AccuracyReport{}).toJson()["decisions"];
    QCOMPARE(e["groups"].get<int>(), 0);
    QVERIFY(e["regret_median_pct"].is_null());
    QVERIFY(e["hit_top1"].is_null());
}

void TestDecisionReport::text()
{
    const QString t = QString::fromStdString(sample().formatText());
    QVERIFY2(t.contains("ranking decisions over 3 group(s) of >= 2 configurations (1 group(s) of one excluded"),
             qPrintable(t));
    QVERIFY2(t.contains("(top-1) 33%, among the predicted 3 fastest (top-3) 100%"), qPrintable(t));
    QVERIFY2(t.contains("median 20.0%, max 25.0%"), qPrintable(t));
    QVERIFY2(t.contains("largest regret: c2 (100.0 ms) picked over c1 (80.0 ms), group g3"), qPrintable(t));
}

void TestDecisionReport::textWithSingleRunsOnly()
{
    AccuracyReport r;
    r.scores = {score("a", "g1", 10, 1), score("b", "g2", 20, 2)};
    const QString t = QString::fromStdString(AccuracyEvaluator::summarise(std::move(r)).formatText());
    QVERIFY2(t.contains("ranking decisions: none (2 group(s) of a single configuration, nothing to choose)"),
             qPrintable(t));
    QVERIFY(!t.contains("regret"));
}

void TestDecisionReport::tiedPick()
{
    // One configuration measured twice (t1 100 ms, t2 130 ms, both predicted 5)
    // and another (t3 90 ms, predicted 9). The pick is the slower repeat t2:
    // regret 100 * (130/90 - 1) = 44.4 %; broken at random, the mean of
    // 100 * (100/90 - 1) and 100 * (130/90 - 1) = 100 * (115/90 - 1) = 27.8 %.
    AccuracyReport r;
    r.scores = {score("t1", "t", 100, 5), score("t2", "t", 130, 5), score("t3", "t", 90, 9)};
    r = AccuracyEvaluator::summarise(std::move(r));
    const nlohmann::json j = r.toJson()["decisions"];
    QCOMPARE(j["tied_picks"].get<int>(), 1);
    QCOMPARE(j["regret_max_pct"].get<double>(), 100.0 * (130.0 / 90 - 1));
    QCOMPARE(j["expected_regret_median_pct"].get<double>(), 100.0 * (115.0 / 90 - 1));
    QCOMPARE(j["expected_regret_max_pct"].get<double>(), 100.0 * (115.0 / 90 - 1));
    QCOMPARE(j["per_group"][0]["tied_at_pick"].get<int>(), 2);
    QCOMPARE(j["per_group"][0]["expected_regret_pct"].get<double>(), 100.0 * (115.0 / 90 - 1));
    const QString t = QString::fromStdString(r.formatText());
    QVERIFY2(t.contains("1 of the 1 pick(s) are ties in prediction"), qPrintable(t));
    QVERIFY2(t.contains("ties broken at random: regret median 27.8%, max 27.8%"), qPrintable(t));
    QVERIFY2(t.contains("largest regret: t2 (130.0 ms) picked over t3 (90.0 ms) (2 tied in prediction, the slowest "
                        "counted), group t"),
             qPrintable(t));
}

void TestDecisionReport::repeatsAreOneChoice_data()
{
    // Configuration A measured three times (100, 130, 90 ms; median 100),
    // predicted 5 each time; configuration B once, 95 ms, predicted 9. The
    // planner picks A, whose median is 100: regret 100 * (100/95 - 1) = 5.26 %,
    // and no tie, since A's repeats are one choice. Counted run by run, the
    // pick would be A's slowest repeat against its own fastest: 44.4 %.
    QTest::addColumn<QString>("bMeasured");
    QTest::addColumn<double>("regretPct");
    QTest::addColumn<QString>("picked");
    QTest::addColumn<QString>("fastest");
    QTest::newRow("B fastest") << "95" << 100.0 * (100.0 / 95 - 1) << "a1 and 2 repeat(s), median"
                               << "b1";
    // B at 120 ms is slower than A's median: the pick is right.
    QTest::newRow("A fastest") << "120" << 0.0 << "a1 and 2 repeat(s), median"
                               << "a1 and 2 repeat(s), median";
}

void TestDecisionReport::repeatsAreOneChoice()
{
    QFETCH(QString, bMeasured);
    QFETCH(double, regretPct);
    QFETCH(QString, picked);
    QFETCH(QString, fastest);
    AccuracyReport r;
    r.scores = {score("a1", "g", 100, 5), score("a2", "g", 130, 5), score("a3", "g", 90, 5),
                score("b1", "g", bMeasured.toDouble(), 9)};
    for (int i = 0; i < 3; ++i)
        r.scores[i].configuration = "A";
    r.scores[3].configuration = "B";
    r = AccuracyEvaluator::summarise(std::move(r));
    QCOMPARE(r.decisions.summary.groups, std::size_t{1});
    QCOMPARE(r.decisions.summary.tiedPicks, std::size_t{0});
    QCOMPARE(r.decisions.groups.front().d.runs, std::size_t{2});
    QVERIFY(std::abs(r.decisions.summary.regretMedianPct - regretPct) < 1e-9);
    QCOMPARE(QString::fromStdString(r.decisions.groups.front().pickedRun), picked);
    QCOMPARE(QString::fromStdString(r.decisions.groups.front().fastestRun), fastest);
    // The per-run ranking statistics still see four runs.
    QCOMPARE(r.rankedGroups, std::size_t{1});
}

void TestDecisionReport::summariseTwiceIsTheSame()
{
    // AccuracyProtocol merges reports by summarising again: nothing accumulates.
    const AccuracyReport again = AccuracyEvaluator::summarise(sample());
    QCOMPARE(again.decisions.groups.size(), std::size_t{4});
    QCOMPARE(again.decisions.summary.groups, std::size_t{3});
}

MEMX_TEST_APPLESS_MAIN(TestDecisionReport)
}  // namespace tst_decision_report

#include "tst_decision_report.moc"
