// The workbench window end to end, offscreen: a search started from the
// window completes without blocking the event loop, fills the plot, selection
// drives the memory bars, profiles move the highlighted plan, projects
// round-trip and the screenshot mode renders.
#include "TestPaths.h"

#include "MainWindow.h"
#include "MemoryBars.h"
#include "ObjectivePanel.h"
#include "ParetoPlot.h"
#include "SearchController.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace memx;

namespace {
MainWindow::Options quietOptions()
{
    MainWindow::Options o;
    o.restoreState = false;
    o.offerRecovery = false;
    o.autosave = false;
    return o;
}

bool runAndWait(MainWindow& w)
{
    QSignalSpy done(w.controller(), &SearchController::finished);
    w.runSearch();
    return done.wait(60000);
}
}  // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void searchCompletesWithoutBlocking();
    void plotShowsEveryCandidate();
    void selectingAPlanUpdatesTheBars();
    void profileSwitchMovesTheHighlight();
    void newSearchSupersedesTheRunningOne();
    void cancelStopsTheSearch();
    void projectRoundTrip();
    void autosaveHoldsUnsavedChanges();
    void screenshotIsRendered();
};

void TestMainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
}

void TestMainWindow::searchCompletesWithoutBlocking()
{
    MainWindow w(quietOptions());
    w.openSampleProject();
    // A timer on the GUI thread must keep firing while the search runs.
    int ticks = 0;
    qint64 longestGapMs = 0;
    QElapsedTimer gap;
    gap.start();
    QTimer timer;
    timer.setInterval(10);
    connect(&timer, &QTimer::timeout, [&] {
        ++ticks;
        longestGapMs = std::max(longestGapMs, gap.restart());
    });
    timer.start();
    QSignalSpy progress(w.controller(), &SearchController::progress);
    QVERIFY(runAndWait(w));
    timer.stop();
    QVERIFY(w.result() != nullptr);
    QVERIFY(!w.result()->best.empty());
    QVERIFY2(ticks >= 5, qPrintable(QString::number(ticks)));
    QVERIFY2(longestGapMs < 1000, qPrintable(QString::number(longestGapMs)));
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
    o.profile = ProfileKind::SafetyFirst;
    w.objectivePanel()->setObjective(o);
    QVERIFY(runAndWait(w));
    QCOMPARE(w.result()->profileUsed, ProfileKind::SafetyFirst);
    QVERIFY(w.selectedPlan() != defaultBest);
    QCOMPARE(w.paretoPlot()->selectedPlan(), w.selectedPlan());
}

void TestMainWindow::newSearchSupersedesTheRunningOne()
{
    MainWindow w(quietOptions());
    w.openSampleProject();
    QSignalSpy done(w.controller(), &SearchController::finished);
    w.runSearch();
    w.runSearch();  // supersedes the first
    QVERIFY(done.wait(60000));
    QTest::qWait(200);
    QCOMPARE(done.count(), 1);
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
    QTest::qWait(100);
    QCOMPARE(done.count(), 0);  // a cancelled search delivers nothing
}

void TestMainWindow::projectRoundTrip()
{
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("p.memx"));
    MainWindow w(quietOptions());
    w.openSampleProject();
    QVERIFY(runAndWait(w));
    QString error;
    QVERIFY2(w.saveProject(file, &error), qPrintable(error));
    nlohmann::json saved = w.currentProject().toJson();
    MainWindow again(quietOptions());
    QVERIFY2(again.openProject(file, &error), qPrintable(error));
    QCOMPARE(QString::fromStdString(again.currentProject().toJson().dump()), QString::fromStdString(saved.dump()));
    QVERIFY(!again.isDirty());
}

void TestMainWindow::autosaveHoldsUnsavedChanges()
{
    MainWindow w(quietOptions());
    w.openSampleProject();
    QFile::remove(w.autosavePath());
    w.writeAutosave();
    QVERIFY(!QFile::exists(w.autosavePath()));  // nothing unsaved, nothing written
    ObjectiveSpec o = w.objectivePanel()->objective();
    o.profile = ProfileKind::ThroughputFirst;
    w.objectivePanel()->setObjective(o);  // an unsaved change
    QVERIFY(w.isDirty());
    w.writeAutosave();
    QVERIFY(QFile::exists(w.autosavePath()));
    // What a restart would recover is the project as it stood.
    Project recovered = Project::load(w.autosavePath().toStdString());
    QCOMPARE(recovered.objective.profile, ProfileKind::ThroughputFirst);
    QCOMPARE(QString::fromStdString(recovered.toJson().dump()), QString::fromStdString(w.currentProject().toJson().dump()));
    QFile::remove(w.autosavePath());
}

void TestMainWindow::screenshotIsRendered()
{
    QTemporaryDir dir;
    for (const char* view : {"window", "memory"}) {
        const QString file = dir.filePath(QStringLiteral("%1.png").arg(QLatin1String(view)));
        QProcess p;
        p.start(QStringLiteral(MEMX_GUI_PATH), {QStringLiteral("--screenshot"), file, QStringLiteral("--view"),
                                               QLatin1String(view)});
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 0);
        QImage img(file);
        QVERIFY(!img.isNull());
        QVERIFY(img.width() > 400 && img.height() > 300);
    }
}

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
