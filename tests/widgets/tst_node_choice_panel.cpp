// The Choose nodes panel (issue #32 item 4): idle until a search finished; the
// button asks for the comparison with the panel's ranking and limits; an
// outcome shows one row per choice with GPUs, time, tokens per second and,
// with prices, cost per hour and per million tokens; without prices it says
// where to set them.
#include "NodeChoicePanel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QPushButton>
#include <QSignalSpy>
#include "TestMain.h"

namespace tst_node_choice_panel {

using namespace memx;

class TestNodeChoicePanel : public QObject {
    Q_OBJECT
private slots:
    void idleUntilASearch();
    void optionsFollowTheControls_data();
    void optionsFollowTheControls();
    void showsChoices();
    void saysWherePricesGo();
};

namespace {

NodeChoice::Row row(std::vector<std::string> types, int gpus, double ms, double perHour)
{
    NodeChoice::Row r;
    r.types = std::move(types);
    r.gpus = gpus;
    r.plan.key = static_cast<std::uint64_t>(gpus);
    r.plan.pp = 2;
    r.plan.tp = 4;
    r.plan.dp = gpus / 8;
    r.plan.globalBatch = 64;
    r.plan.seqLen = 4096;
    r.plan.iterationMs = ms;
    r.cost.tokensPerS = 64.0 * 4096 / (ms / 1000);
    r.cost.perHour = perHour;
    r.cost.perMillionTokens = perHour < 0 ? -1 : perHour / (r.cost.tokensPerS * 3600) * 1e6;
    return r;
}

}  // namespace

void TestNodeChoicePanel::idleUntilASearch()
{
    NodeChoicePanel panel;
    auto* run = panel.findChild<QPushButton*>(QStringLiteral("nodeChoiceRun"));
    QVERIFY(run);
    QVERIFY(!run->isEnabled());
    panel.setReady();
    QVERIFY(run->isEnabled());
    QSignalSpy spy(&panel, &NodeChoicePanel::compareRequested);
    run->click();
    QCOMPARE(spy.count(), 1);
    panel.setBusy();
    QVERIFY(!run->isEnabled());
    panel.clear();
    QVERIFY(!run->isEnabled());
    QCOMPARE(panel.rows(), 0);
}

void TestNodeChoicePanel::optionsFollowTheControls_data()
{
    QTest::addColumn<int>("rankIndex");
    QTest::addColumn<double>("maxCost");  // < 0: the spin box at "no limit"
    QTest::addColumn<double>("minTokens");
    QTest::addColumn<int>("rank");
    QTest::newRow("defaults") << 0 << -1.0 << -1.0 << int(NodeChoice::Rank::Throughput);
    QTest::newRow("cost, both limits") << 1 << 150.0 << 20000.0 << int(NodeChoice::Rank::Cost);
    QTest::newRow("throughput, cost cap") << 0 << 40.0 << -1.0 << int(NodeChoice::Rank::Throughput);
}

void TestNodeChoicePanel::optionsFollowTheControls()
{
    QFETCH(int, rankIndex);
    QFETCH(double, maxCost);
    QFETCH(double, minTokens);
    QFETCH(int, rank);
    NodeChoicePanel panel;
    panel.findChild<QComboBox*>()->setCurrentIndex(rankIndex);
    const auto boxes = panel.findChildren<QDoubleSpinBox*>();
    QCOMPARE(boxes.size(), 2);
    for (QDoubleSpinBox* b : boxes) {
        const double v = b->accessibleName().contains("cost") ? maxCost : minTokens;
        b->setValue(v < 0 ? b->minimum() : v);
        if (v < 0)
            QCOMPARE(b->text(), QString("no limit"));
    }
    const NodeChoice::Options o = panel.options();
    QCOMPARE(int(o.rank), rank);
    QCOMPARE(o.maxCostPerHour, maxCost < 0 ? -1.0 : maxCost);
    QCOMPARE(o.minTokensPerS, minTokens < 0 ? -1.0 : minTokens);
}

void TestNodeChoicePanel::showsChoices()
{
    NodeChoice::Result r;
    r.pricesKnown = true;
    NodeChoice::Row h100 = row({"H100-SXM"}, 8, 7160, 20.0);
    h100.left = {"a100x4", "a100x2"};
    NodeChoice::Row whole = row({"A100-40GB", "H100-SXM"}, 14, 7410, 24.8);
    whole.whole = true;
    NodeChoice::Row a100 = row({"A100-40GB"}, 6, 0, -1);
    a100.error = "no plan fits in memory";
    r.rows = {h100, whole, a100};
    r.dropped = 1;
    NodeChoicePanel panel;
    panel.setReady();
    panel.setOutcome(r);
    QCOMPARE(panel.rows(), 3);
    // 64 x 4096 tokens in 7.16 s = 36,612 tokens/s; 20 per hour over
    // 36,612 x 3,600 tokens an hour = 0.152 per million tokens.
    const QString first = panel.rowText(0);
    QVERIFY2(first.startsWith("1. H100-SXM (8 GPUs)\nleaves out a100x4, a100x2\n7.16 s, 36612 tokens/s"),
             qPrintable(first));
    QVERIFY2(first.contains("20.00 per hour, 0.152 per million tokens"), qPrintable(first));
    QVERIFY(panel.rowText(1).startsWith("2. whole cluster (14 GPUs)"));
    QVERIFY(panel.rowText(1).contains("24.80 per hour, 0.195 per million tokens"));
    QVERIFY(panel.rowText(2).contains("no plan fits: no plan fits in memory"));
    QVERIFY(panel.summaryText().contains("1 dropped by the limits"));
}

void TestNodeChoicePanel::saysWherePricesGo()
{
    NodeChoice::Result r;
    r.pricesKnown = false;
    r.rows = {row({"H100-SXM"}, 8, 7160, -1)};
    NodeChoicePanel panel;
    panel.setOutcome(r);
    QVERIFY(!panel.rowText(0).contains("per hour"));
    QVERIFY(panel.summaryText().contains("Price per GPU-hour"));
    r.error = "the search found no plan to compare";
    panel.setOutcome(r);
    QCOMPARE(panel.rows(), 0);
    QCOMPARE(panel.summaryText(), QString("the search found no plan to compare"));
}

MEMX_TEST_MAIN(TestNodeChoicePanel)
}  // namespace tst_node_choice_panel

#include "tst_node_choice_panel.moc"
