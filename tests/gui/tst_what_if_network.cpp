// The What-if Network panel (issue #13, item 6): after a search, a slider per
// kind of link of the searched cluster; moving one re-times the search's
// plans on the scaled network off the GUI thread and shows plan 1's time
// there and the best plans re-ranked, the same numbers BandwidthWhatIf gives
// the CLI; a row click selects that plan everywhere. Below it, choosing nodes
// reports its progress and lists every choice.
#include "TestWindow.h"

#include "BandwidthWhatIfPanel.h"
#include "NodeChoicePanel.h"
#include "TestPaths.h"
#include "SearchController.h"
#include "search/BandwidthWhatIf.h"
#include "search/NodeChoice.h"

#include <QSignalSpy>
#include <QRegularExpression>
#include <QTableWidget>
#include <QTimer>
#include "TestMain.h"

namespace tst_what_if_network {

using namespace memx;
using namespace memx::test;

class TestWhatIfNetwork : public QObject {
    Q_OBJECT
private slots:
    void slidersFollowTheSearchedCluster();
    void movingASliderReRanks();
    void choosingNodesReportsEachChoice();
};

void TestWhatIfNetwork::slidersFollowTheSearchedCluster()
{
    MainWindow w(quietOptions());
    BandwidthWhatIfPanel* panel = w.whatIfPanel();
    QVERIFY(panel->kinds().isEmpty());  // nothing searched, nothing to scale
    w.openSampleProject();
    QVERIFY(runAndWait(w));
    QStringList expected;
    for (const Link& l : w.controller()->lastRequest().problem.cluster.links())
        if (!expected.contains(QString::fromLatin1(toString(l.kind))))
            expected << QString::fromLatin1(toString(l.kind));
    QCOMPARE(panel->kinds(), expected);
    QVERIFY(panel->scales().empty());
}

void TestWhatIfNetwork::movingASliderReRanks()
{
    MainWindow w(quietOptions());
    w.openSampleProject();
    QVERIFY(runAndWait(w));
    BandwidthWhatIfPanel* panel = w.whatIfPanel();
    QSignalSpy asked(panel, &BandwidthWhatIfPanel::scalesChanged);
    // Two quick moves: one re-ranking, for where the slider stopped.
    panel->setPercent(LinkKind::PCIe, 50);
    panel->setPercent(LinkKind::PCIe, 25);
    QTRY_COMPARE_WITH_TIMEOUT(asked.count(), 1, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(panel->rankedRows() > 0, 30000);
    QCOMPARE(panel->scales().size(), std::size_t(1));
    QCOMPARE(panel->scales().front().selector, std::string("kind:PCIe"));
    QCOMPARE(panel->scales().front().factor, 0.25);

    // The numbers are BandwidthWhatIf's for the same scenario.
    const SearchRequest& req = w.controller()->lastRequest();
    const Plan& plan1 = w.controller()->lastResult().best.front();
    const double t
        = BandwidthWhatIf::retime(req, BandwidthScenario::apply(req.problem.cluster, panel->scales()), plan1);
    QVERIFY(t > plan1.iterationMs);  // plan 1's stages talk over PCIe switches
    const QString expected = QStringLiteral("plan 1 takes <b>%1 s</b> instead of %2 s (<b>+%3%</b>)")
                                 .arg(t / 1000, 0, 'f', 2)
                                 .arg(plan1.iterationMs / 1000, 0, 'f', 2)
                                 .arg(100 * (t / plan1.iterationMs - 1), 0, 'f', 1);
    QVERIFY2(panel->summaryText().contains(expected), qPrintable(panel->summaryText() + "\n" + expected));

    // A row selects its plan in the workbench.
    auto* table = panel->findChild<QTableWidget*>();
    QVERIFY(table);
    QSignalSpy activated(panel, &BandwidthWhatIfPanel::planActivated);
    emit table->cellClicked(0, 0);
    QCOMPARE(activated.count(), 1);

    // All at 100%: the network as described again.
    for (const QString& kind : panel->kinds()) {
        LinkKind k;
        QVERIFY(parseLinkKind(kind.toStdString(), k));
        panel->setPercent(k, 100);
    }
    QVERIFY(panel->scales().empty());
    QTRY_VERIFY_WITH_TIMEOUT(panel->summaryText().contains(QStringLiteral("(<b>+0.0%</b>)")), 30000);
}

// "Compare node choices" below node loss: off the GUI thread, it says how
// many choices it has searched, then lists every choice (here both types,
// H100 only, A100 only, one of the two A100 nodes), as NodeChoice does.
void TestWhatIfNetwork::choosingNodesReportsEachChoice()
{
    MainWindow w(quietOptions());
    QString error;
    QVERIFY2(w.openProject(QString::fromStdString(sampleCluster("projects/uneven-h100-a100-priced.memx")), &error),
             qPrintable(error));
    QVERIFY(runAndWait(w));
    NodeChoicePanel* panel = w.nodeChoicePanel();
    QStringList seen;
    QTimer watch;
    QObject::connect(&watch, &QTimer::timeout, [&] {
        if (!seen.contains(panel->summaryText()))
            seen << panel->summaryText();
    });
    watch.start(1);
    panel->request();
    QTRY_VERIFY_WITH_TIMEOUT(panel->rows() == 4, 60000);
    watch.stop();
    // The last progress line may be replaced before the timer sees it; the
    // first ones cannot all be.
    QVERIFY2(!seen.filter(QRegularExpression(R"(^Searching each choice of nodes: [1-3] of 4 searched)")).isEmpty(),
             qPrintable(seen.join('\n')));
    int partly = 0;
    for (int i = 0; i < panel->rows(); ++i)
        partly += panel->rowText(i).contains("A100-40GB 1/2 nodes + H100-SXM (12 GPUs)\nleaves out a100x2");
    QCOMPARE(partly, 1);
}

MEMX_TEST_MAIN(TestWhatIfNetwork)
}  // namespace tst_what_if_network

#include "tst_what_if_network.moc"
