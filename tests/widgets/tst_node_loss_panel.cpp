// The Node loss panel (issue #32 item 5): idle until a search finished; the
// button asks for a re-plan; an outcome shows one row per scenario with its
// slowdown and tokens per second, the robust ranking only when asked for, and
// a robust row selects its plan.
#include "NodeLossPanel.h"

#include <QCheckBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include "TestMain.h"

namespace tst_node_loss_panel {

using namespace memx;

class TestNodeLossPanel : public QObject {
    Q_OBJECT
private slots:
    void idleUntilASearch();
    void showsScenarios();
    void robustRowSelectsItsPlan();
    void showsWhyNothingCouldBeSaid();
};

namespace {

Plan plan(std::uint64_t key, double ms)
{
    Plan p;
    p.key = key;
    p.tp = 2;
    p.pp = 2;
    p.dp = 4;
    p.globalBatch = 64;
    p.seqLen = 4096;
    p.iterationMs = ms;
    return p;
}

NodeLossWhatIf::Result outcome(bool robust)
{
    NodeLossWhatIf::Result w;
    w.plan1Ms = 10000;
    w.plan1TokensPerS = 26214.4;  // 64 x 4096 tokens in 10 s
    NodeLossWhatIf::Scenario a;
    a.name = "n0";
    a.alike = {"n1", "n2"};
    a.gpus = "8 x H100-SXM";
    a.plan = plan(7, 12500);
    a.slowdown = 0.25;
    a.tokensPerS = 20971.52;
    NodeLossWhatIf::Scenario b;
    b.name = "n3";
    b.gpus = "8 x T4";
    b.error = "no configuration passes the structural rules";
    w.scenarios = {a, b};
    w.robust = robust;
    if (robust) {
        NodeLossWhatIf::RobustPlan rp;
        rp.plan = plan(42, 10000);
        rp.scenarioMs = {12500, 10000};
        rp.resumed = {true, false};
        rp.worstMs = 12500;
        rp.worstPhi = 0.5;
        w.robustPlans = {rp};
    }
    return w;
}

}  // namespace

void TestNodeLossPanel::idleUntilASearch()
{
    NodeLossPanel panel;
    auto* run = panel.findChild<QPushButton*>(QStringLiteral("nodeLossRun"));
    QVERIFY(run);
    QVERIFY(!run->isEnabled());
    panel.setReady();
    QVERIFY(run->isEnabled());
    QSignalSpy spy(&panel, &NodeLossPanel::replanRequested);
    run->click();
    QCOMPARE(spy.count(), 1);
    panel.setBusy();
    QVERIFY(!run->isEnabled());  // one re-plan at a time
    QCOMPARE(panel.options().which, NodeLossWhatIf::Which::EachNode);
    QVERIFY(!panel.options().robust);
    panel.findChild<QCheckBox*>()->setChecked(true);
    QVERIFY(panel.options().robust);
}

void TestNodeLossPanel::showsScenarios()
{
    NodeLossPanel panel;
    panel.setReady();
    panel.setOutcome(outcome(false));
    QCOMPARE(panel.scenarioRows(), 2);
    QCOMPARE(panel.robustRows(), 0);
    QVERIFY2(panel.summaryText().contains("10.00 s") && panel.summaryText().contains("26214 tokens/s"),
             qPrintable(panel.summaryText()));
    const auto tables = panel.findChildren<QTableWidget*>();
    QCOMPARE(tables.size(), 2);
    const QString first = tables[0]->item(0, 0)->text();
    QVERIFY2(first.contains("without n0 (8 x H100-SXM), or any of 2 like it") && first.contains("12.50 s (+25.0%)")
                 && first.contains("20972 tokens/s"),
             qPrintable(first));
    QVERIFY2(tables[0]->item(1, 0)->text().contains("no plan fits: no configuration passes"),
             qPrintable(tables[0]->item(1, 0)->text()));
    QVERIFY(tables[1]->isHidden());
}

void TestNodeLossPanel::robustRowSelectsItsPlan()
{
    NodeLossPanel panel;
    panel.setReady();
    panel.setOutcome(outcome(true));
    QCOMPARE(panel.robustRows(), 1);
    const auto tables = panel.findChildren<QTableWidget*>();
    QVERIFY2(tables[1]->item(0, 0)->text().contains("worst 12.50 s (without n0), planned 10.00 s"),
             qPrintable(tables[1]->item(0, 0)->text()));
    QSignalSpy spy(&panel, &NodeLossPanel::planActivated);
    emit tables[1]->cellClicked(0, 0);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.front().front().toULongLong(), quint64(42));
}

void TestNodeLossPanel::showsWhyNothingCouldBeSaid()
{
    NodeLossPanel panel;
    panel.setReady();
    NodeLossWhatIf::Result w;
    w.error = "the cluster has one node; losing it leaves nothing to plan on";
    panel.setOutcome(w);
    QCOMPARE(panel.scenarioRows(), 0);
    QVERIFY(panel.summaryText().contains("one node"));
    QVERIFY(panel.findChild<QPushButton*>(QStringLiteral("nodeLossRun"))->isEnabled());
}

MEMX_TEST_MAIN(TestNodeLossPanel)
}  // namespace tst_node_loss_panel

#include "tst_node_loss_panel.moc"
