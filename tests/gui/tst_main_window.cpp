// The workbench window end to end, offscreen: a search started from the
// window completes without blocking the event loop, fills the plot, selection
// drives the memory bars, profiles move the highlighted plan, a new search
// supersedes the running one and a bad field or an implausible result is
// reported. Staleness, rendering and the views' details: tst_main_window_views;
// projects, predictors and exports: tst_main_window_files.
#include "TestFiles.h"
#include "TestPaths.h"
#include "TestRequests.h"

#include "ClusterDocument.h"
#include "AutosaveSlot.h"
#include "MainWindow.h"
#include "ProjectSession.h"
#include "NoticeBanner.h"
#include "ProfileComparisonView.h"
#include "TestWindow.h"
#include "MemoryBars.h"
#include "ObjectivePanel.h"
#include "ParetoPlot.h"
#include "PredictorPanel.h"
#include "SearchController.h"
#include "SetupPanel.h"
#include "StaleBanner.h"
#include "StaleOverlay.h"

#include "export/PlanJsonReader.h"
#include "search/SearchEngine.h"
#include "hardware/GpuCatalog.h"
#include "io/AtomicFile.h"
#include "measure/MeasurementCsv.h"
#include "measure/PlanRuns.h"
#include "learn/PredictorTrainer.h"
#include "learn/TrainingSet.h"

#include <qcustomplot.h>

#include <QDirIterator>
#include <QProcess>
#include <QSettings>
#include <QSysInfo>
#include <QAction>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QDialog>
#include <QHeaderView>
#include <QTableView>
#include <QScreen>
#include <QTabWidget>
#include <QDockWidget>
#include <QRegularExpression>
#include <QTextBlock>
#include <QTextBrowser>
#include "TestMain.h"

namespace tst_main_window {

using namespace memx;
using memx::test::darkPalette;
using memx::test::quietOptions;
using memx::test::runAndWait;

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void searchCompletesWithoutBlocking();
    void plotShowsEveryCandidate();
    void selectingAPlanUpdatesTheBars();
    void profileSwitchMovesTheHighlight();
    void newSearchSupersedesTheRunningOne();
    void aResultBeingShownIsDroppedByANewSearch();
    void cancelStopsTheSearch();
    void viewMenuShowsDockTitlesAsWritten();
    void helpMenuOpensTheUserGuide();
    void invalidFieldRefusesTheSearch();
    void implausibleResultIsNoticed();
    void noFeasiblePlanNamesTheReason();
};

void TestMainWindow::initTestCase() { QStandardPaths::setTestModeEnabled(true); }

void TestMainWindow::searchCompletesWithoutBlocking()
{
    MainWindow w(quietOptions());
    w.openSampleProject();
    // The GUI thread's event loop must go on while the search runs: a
    // zero-interval timer fires on each pass of the loop, so it fires while
    // the search is in flight only if the search is not on this thread. No
    // wall-clock margin: a loaded machine makes the passes slower, not fewer
    // than one.
    int ticksWhileSearching = 0;
    QTimer timer;
    timer.setInterval(0);
    connect(&timer, &QTimer::timeout, [&] {
        if (w.controller()->isRunning())
            ++ticksWhileSearching;
    });
    timer.start();
    QSignalSpy progress(w.controller(), &SearchController::progress);
    QVERIFY(runAndWait(w));
    timer.stop();
    QVERIFY(w.result() != nullptr);
    QVERIFY(!w.result()->best.empty());
    QVERIFY2(ticksWhileSearching >= 1, "the event loop stood still while the search ran");
    QVERIFY(progress.count() >= 1);
    QCOMPARE(w.selectedPlan(), w.result()->best.front().key);
}

void TestMainWindow::plotShowsEveryCandidate()
{
    MainWindow w(quietOptions());
    w.openSampleProject();
    QVERIFY(runAndWait(w));
    const auto& r = *w.result();
    QCOMPARE(w.paretoPlot()->candidatePointCount(), static_cast<int>(std::min<std::size_t>(r.plotSample.size(), 5000)));
}

void TestMainWindow::selectingAPlanUpdatesTheBars()
{
    MainWindow w(quietOptions());
    w.openSampleProject();
    QVERIFY(runAndWait(w));
    const auto& r = *w.result();
    QVERIFY(r.fastest.size() >= 1);
    const Plan& target = r.fastest.front();  // usually not the Phi winner
    emit w.paretoPlot()->planClicked(target.key);
    QCOMPARE(w.selectedPlan(), target.key);
    int gpus = 0;
    for (const auto& s : target.stages)
        gpus += static_cast<int>(s.devices.size());
    QCOMPARE(w.memoryBars()->barCount(), gpus);
    int bar = 0;
    for (const auto& s : target.stages)
        for (std::size_t d = 0; d < s.devices.size(); ++d, ++bar)
            QCOMPARE(w.memoryBars()->barTotalMiB(bar), s.memory.totalMiB());
}

void TestMainWindow::profileSwitchMovesTheHighlight()
{
    MainWindow w(quietOptions());
    w.openSampleProject();
    QVERIFY(runAndWait(w));
    quint64 defaultBest = w.selectedPlan();
    ObjectiveSpec o = w.objectivePanel()->objective();
    o.profile = WeightProfile::SafetyFirst;
    w.objectivePanel()->setObjective(o);
    QVERIFY(runAndWait(w));
    QCOMPARE(w.result()->profileUsed, WeightProfile::SafetyFirst);
    QVERIFY(w.selectedPlan() != defaultBest);
    QCOMPARE(w.paretoPlot()->selectedPlan(), w.selectedPlan());
}

void TestMainWindow::newSearchSupersedesTheRunningOne()
{
    MainWindow w(quietOptions());
    w.openSampleProject();
    QSignalSpy done(w.controller(), &SearchController::finished);
    QSignalSpy shown(&w, &MainWindow::resultShown);
    w.runSearch();
    w.runSearch();  // supersedes the first
    QVERIFY(done.wait(60000));
    QVERIFY(shown.wait(5000));
    // The superseded search delivers nothing, however long one waits for it.
    QVERIFY(!done.wait(200));
    QCOMPARE(done.count(), 1);
    QCOMPARE(shown.count(), 1);
}

void TestMainWindow::aResultBeingShownIsDroppedByANewSearch()
{
    // A result is shown over a few event-loop turns; a search started in
    // between must not let the old result's remaining steps fill the views.
    MainWindow w(quietOptions());
    w.openSampleProject();
    QSignalSpy done(w.controller(), &SearchController::finished);
    QSignalSpy shown(&w, &MainWindow::resultShown);
    bool restarted = false;
    connect(w.controller(), &SearchController::finished, &w, [&] {
        if (!restarted) {
            restarted = true;
            w.runSearch();  // right after the first result arrived, before its steps ran
        }
    });
    w.runSearch();
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 2, 120000);
    QVERIFY(shown.count() == 1 || shown.wait(5000));
    QVERIFY(!shown.wait(200));  // the first result's remaining steps never show it
    QCOMPARE(shown.count(), 1);  // only the second result completed its steps
    QVERIFY(w.result());
    QCOMPARE(w.selectedPlan(), static_cast<quint64>(w.result()->best.front().key));
}

void TestMainWindow::cancelStopsTheSearch()
{
    MainWindow w(quietOptions());
    w.openSampleProject();
    QSignalSpy done(w.controller(), &SearchController::finished);
    QSignalSpy cancelled(w.controller(), &SearchController::cancelled);
    w.runSearch();
    w.controller()->cancel();
    QCOMPARE(cancelled.count(), 1);
    QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->isRunning(), 5000);
    QVERIFY(!done.wait(100));  // a cancelled search delivers nothing
    QCOMPARE(done.count(), 0);
}

// Issue #35 item 8: the View menu showed "Model _Setup" (the dock title's
// '&' read as a mnemonic mark).
void TestMainWindow::viewMenuShowsDockTitlesAsWritten()
{
    MainWindow w(quietOptions());
    auto* setup = w.findChild<QDockWidget*>(QStringLiteral("setupDock"));
    QVERIFY(setup);
    QCOMPARE(setup->windowTitle(), QStringLiteral("Model & Setup"));
    QCOMPARE(setup->toggleViewAction()->text(), QStringLiteral("Model && Setup"));
    // How a menu draws it: the mnemonic marks removed, one '&' left.
    QCOMPARE(QAction(setup->toggleViewAction()->text()).iconText(), QStringLiteral("Model & Setup"));
}

// Issue #35 item 6: a user guide in the Help menu, bundled (no network),
// the workflow in ten steps with its screenshots.
void TestMainWindow::helpMenuOpensTheUserGuide()
{
    MainWindow w(quietOptions());
    QAction* guide = test::action(w, QStringLiteral("&User Guide"));
    QVERIFY(guide);
    QCOMPARE(guide->shortcut(), QKeySequence(QKeySequence::HelpContents));
    guide->trigger();
    auto* dialog = w.findChild<QDialog*>(QStringLiteral("userGuide"));
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    auto* text = dialog->findChild<QTextBrowser*>(QStringLiteral("userGuideText"));
    QVERIFY(text);
    const QString plain = text->toPlainText();
    QVERIFY2(plain.contains(QStringLiteral("The workflow in ten steps")), qPrintable(plain.left(300)));
    for (int step = 1; step <= 10; ++step)
        QVERIFY2(plain.contains(QRegularExpression(QStringLiteral("(^|\\n)%1\\. [A-Z]").arg(step))),
                 qPrintable(QString("step %1 missing").arg(step)));
    QVERIFY(plain.contains(QStringLiteral("What each view shows")));
    // Every screenshot it shows is bundled and loads.
    int images = 0;
    for (QTextBlock b = text->document()->begin(); b.isValid(); b = b.next())
        for (auto it = b.begin(); !it.atEnd(); ++it)
            if (it.fragment().charFormat().isImageFormat()) {
                const QString name = it.fragment().charFormat().toImageFormat().name();
                const QVariant data = text->loadResource(QTextDocument::ImageResource, QUrl(name));
                QVERIFY2(data.isValid() && !data.toByteArray().isEmpty(), qPrintable(name));
                ++images;
            }
    QVERIFY2(images >= 6, qPrintable(QString::number(images)));
    // Asked again, the same window comes up rather than a second one.
    guide->trigger();
    QCOMPARE(w.findChildren<QDialog*>(QStringLiteral("userGuide")).size(), 1);
}

// A field holding text that is not a valid value (shown red) never reaches
// the search: F5 is refused, the reason names the field, and the field gets
// the focus. Before, the search ran with the last valid value and showed its
// result as current.
void TestMainWindow::invalidFieldRefusesTheSearch()
{
    MainWindow w(quietOptions());
    w.openSampleProject();
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* mbs = w.findChild<QLineEdit*>(QStringLiteral("microBatches"));
    QVERIFY(mbs);
    mbs->selectAll();
    QTest::keyClicks(mbs, QStringLiteral("-1,abc"));
    QSignalSpy refused(&w, &MainWindow::searchRefused);
    QSignalSpy started(w.controller(), &SearchController::started);
    w.runSearch();
    QCOMPARE(started.count(), 0);
    QCOMPARE(refused.count(), 1);
    const QString reason = refused.first().first().toString();
    QVERIFY2(reason.contains(QStringLiteral("micro-batch"), Qt::CaseInsensitive), qPrintable(reason));
    QTRY_VERIFY(mbs->hasFocus());
    // Put right, it runs.
    mbs->selectAll();
    QTest::keyClicks(mbs, QStringLiteral("1,2"));
    QVERIFY(runAndWait(w));
    QCOMPARE(refused.count(), 1);
}

// Valid but likely not meant: a global batch of 999,999 sequences is within
// range, and its best plan takes hours per iteration. The result says so in
// a strip the user can dismiss; a plausible result shows none.
void TestMainWindow::implausibleResultIsNoticed()
{
    MainWindow w(quietOptions());
    w.openSampleProject();
    auto* banner = w.findChild<NoticeBanner*>(QStringLiteral("noticeBanner"));
    QVERIFY(banner);
    auto* gbs = w.findChild<QSpinBox*>(QStringLiteral("globalBatch"));
    QVERIFY(gbs);
    gbs->setValue(999999);
    QVERIFY(runAndWait(w));
    QVERIFY2(w.result()->best.front().iterationMs > 3'600'000, "the test needs an iteration over an hour");
    QVERIFY2(banner->text().contains(QStringLiteral("hours per iteration (global batch 999999 sequences")),
             qPrintable(banner->text()));
    banner->dismissButton()->click();
    QVERIFY(banner->text().isEmpty());
    gbs->setValue(128);
    QVERIFY(runAndWait(w));
    QVERIFY(banner->text().isEmpty());
}

void TestMainWindow::noFeasiblePlanNamesTheReason()
{
    // The same words as memx-cli (tst_cli: noFeasiblePlan), from the same engine.
    MainWindow w(quietOptions());
    w.openSampleProject();
    const nlohmann::json bare = nlohmann::json::parse(
        R"({"format":"memx-cluster/1","name":"bare","nodes":[{"name":"a","gpus":[{"type":"A100-80GB","count":8}]},)"
        R"({"name":"h","gpus":[{"type":"H20","count":8}]}],)"
        R"("links":[{"name":"ib","kind":"InfiniBand","between":["a","h"],"bandwidth_gbps":25,"latency_us":5}]})");
    QString error;
    QVERIFY2(w.document()->setJson(bare, &error), qPrintable(error));
    QSignalSpy failed(w.controller(), &SearchController::failed);
    w.runSearch();
    QVERIFY(failed.wait(60000));
    const QString reason = failed.front().front().toString();
    QVERIFY2(reason.startsWith(QStringLiteral("no plan can run: no link joins the GPUs inside a (A100-80GB)")),
             qPrintable(reason));
    QVERIFY2(reason.contains(QStringLiteral("no link joins the GPUs inside h (H20)")), qPrintable(reason));
    QVERIFY2(w.statusBar()->currentMessage().isEmpty(), "the reason is in the status label, not a transient message");
    QVERIFY(!w.result());
}

MEMX_TEST_MAIN(TestMainWindow)
}  // namespace tst_main_window

#include "tst_main_window.moc"
