// The workbench window's views end to end, offscreen (its search:
// tst_main_window): edits make the results stale and only the stale views
// repaint, the balanced profile draws the plot once, "why this plan" follows
// the selection, the memory margin follows the uncertainty, and the screenshot
// mode renders.
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

namespace tst_main_window_views {

using namespace memx;
using memx::test::darkPalette;
using memx::test::quietOptions;
using memx::test::runAndWait;

namespace {
using memx::test::filesUnder;

using memx::test::useUniformMeshes;

// What the window shows (its backing store, as a screen grab reads it) in the
// rectangle of `view`.
QImage shownArea(MainWindow& w, QWidget* view)
{
    QTest::qWait(0);
    QCoreApplication::processEvents();
    const QImage all = w.screen()->grabWindow(w.winId()).toImage();
    return all.copy(QRect(view->mapTo(&w, QPoint(0, 0)), view->size()));
}
}  // namespace

class TestMainWindowViews : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void screenshotIsRendered();
    void editsMakeResultsStale();
    void staleViewsPaintOnlyThemselves();
    void balancedProfileDrawsThePlotOnce();
    void whyThisPlanFollowsTheSelection();
    void memoryMarginAtUncertainty_data();
    void memoryMarginAtUncertainty();
};

void TestMainWindowViews::initTestCase() { QStandardPaths::setTestModeEnabled(true); }

void TestMainWindowViews::screenshotIsRendered()
{
    QTemporaryDir dir;
    for (const char* view : {"window", "memory", "predictor"}) {
        const QString file = dir.filePath(QStringLiteral("%1.png").arg(QLatin1String(view)));
        QProcess p;
        p.start(QStringLiteral(MEMX_GUI_PATH),
                {QStringLiteral("--screenshot"), file, QStringLiteral("--view"), QLatin1String(view)});
        QVERIFY(p.waitForFinished(120000));
        QCOMPARE(p.exitCode(), 0);
        QImage img(file);
        QVERIFY(!img.isNull());
        // The predictor view is a dock: narrower than the tabs.
        const int minWidth = QLatin1String(view) == QLatin1String("predictor") ? 300 : 400;
        QVERIFY2(img.width() > minWidth && img.height() > 300,
                 qPrintable(QStringLiteral("%1: %2 x %3").arg(QLatin1String(view)).arg(img.width()).arg(img.height())));
    }
}

void TestMainWindowViews::editsMakeResultsStale()
{
    // The scenario of a user who edited the cluster and the model, started a
    // search and cancelled it: the old plan must not be exported as current.
    MainWindow w(quietOptions());
    w.resize(1400, 900);
    w.show();
    w.openSampleProject();
    useUniformMeshes(w);  // its plan is exported to Megatron-LM below
    QVERIFY(runAndWait(w));
    auto* banner = w.findChild<StaleBanner*>();
    QVERIFY(banner);
    QVERIFY(banner->isHidden());
    QVERIFY(w.staleChanges().empty());
    QVERIFY(!StaleOverlay::of(w.paretoPlot()) || !StaleOverlay::of(w.paretoPlot())->isStale());

    const QString before = QString::fromStdString(w.document()->json()["nodes"][0]["name"].get<std::string>());
    QVERIFY(w.document()->renameNode(before, QStringLiteral("renamed")));
    auto* setup = w.findChild<SetupPanel*>();
    setup->setModel(ModelSpec::resolve("llama2-13b"));
    QCOMPARE(w.staleChanges(), (std::vector<std::string>{"cluster", "model"}));
    QVERIFY(!banner->isHidden());
    QVERIFY2(banner->text().contains(QStringLiteral("the cluster and model changed")), qPrintable(banner->text()));
    QVERIFY(StaleOverlay::of(w.paretoPlot())->isStale());  // dimmed
    QVERIFY(StaleOverlay::of(w.memoryBars())->isStale());
    QCoreApplication::processEvents();
    QVERIFY(w.grab().save(QStringLiteral("/tmp/gui-stale.png")));  // looked at by hand
    const QPalette dark = test::darkPalette();
    const QPalette light = w.palette();
    w.setPalette(dark);
    QCoreApplication::processEvents();
    QVERIFY(w.grab().save(QStringLiteral("/tmp/gui-stale-dark.png")));
    w.setPalette(light);

    // Run, then cancel: the old result stays, still stale.
    QSignalSpy cancelled(w.controller(), &SearchController::cancelled);
    w.runSearch();
    w.controller()->cancel();
    QCOMPARE(cancelled.count(), 1);
    QTRY_VERIFY_WITH_TIMEOUT(!w.controller()->isRunning(), 5000);
    QVERIFY(w.result());
    QCOMPARE(w.staleChanges().size(), std::size_t(2));
    QTemporaryDir dir;
    const MainWindow::ExportOutcome out = w.exportPlan(MainWindow::ExportTarget::Megatron, dir.path());
    QVERIFY(!out.ok);
    QVERIFY2(out.message.contains(QStringLiteral("before the cluster and model changed")), qPrintable(out.message));
    QVERIFY(filesUnder(dir.path()).isEmpty());

    // Undo both edits: the inputs are those of the result again.
    setup->setModel(ModelSpec::resolve("llama2-7b"));
    QCOMPARE(w.staleChanges(), std::vector<std::string>{"cluster"});
    w.document()->undoStack()->undo();
    QVERIFY(w.staleChanges().empty());
    QVERIFY(banner->isHidden());
    QVERIFY(!StaleOverlay::of(w.paretoPlot()) || !StaleOverlay::of(w.paretoPlot())->isStale());
    QVERIFY(w.exportPlan(MainWindow::ExportTarget::Megatron, dir.path()).ok);

    // Another profile the search ranked too: not stale, the table follows it.
    ObjectiveSpec o = w.objectivePanel()->objective();
    o.profile = WeightProfile::SafetyFirst;
    w.objectivePanel()->setObjective(o);
    QVERIFY(w.staleChanges().empty());
    const SearchResult::ProfilePick* safety = nullptr;
    for (const auto& pb : w.result()->profilePicks)
        if (pb.kind == WeightProfile::SafetyFirst)
            safety = &pb;
    QVERIFY(safety);
    QVERIFY(safety->ranking.size() >= 10);
    QCOMPARE(w.selectedPlan(), static_cast<quint64>(safety->ranking.front().key));
    auto* why = w.findChild<QLabel*>(QStringLiteral("whyThisPlan"));
    QVERIFY2(why->text().contains(QStringLiteral("Profile safety-first")), qPrintable(why->text()));
    // Balanced, the knee of the front, is ranked from the result too: the
    // same pick a search under it makes.
    {
        SearchRequest balancedReq = w.controller()->lastRequest();
        balancedReq.objective.profile = WeightProfile::Balanced;
        const SearchResult balanced = SearchEngine::run(balancedReq);
        QVERIFY(!balanced.best.empty());
        ObjectiveSpec b = w.objectivePanel()->objective();
        b.profile = WeightProfile::Balanced;
        w.objectivePanel()->setObjective(b);
        QVERIFY(w.staleChanges().empty());
        QCOMPARE(w.selectedPlan(), static_cast<quint64>(balanced.best.front().key));
        QVERIFY2(why->text().contains(QStringLiteral("knee")), qPrintable(why->text()));
        w.objectivePanel()->setObjective(o);  // safety-first again
    }
    // A setup edit then is a setup change only: the profile was ranked (the
    // walk saw "the setup and objective changed").
    auto* batch = setup->findChild<QSpinBox*>(QStringLiteral("globalBatch"));
    QVERIFY(batch);
    const int gbs = batch->value();
    batch->setValue(gbs * 2);
    QCOMPARE(w.staleChanges(), std::vector<std::string>{"setup"});
    batch->setValue(gbs);
    QVERIFY(w.staleChanges().empty());
    // An objective edit the search did not rank (other variance measure) is stale.
    o.variance = VarianceMode::Utilisation;
    w.objectivePanel()->setObjective(o);
    QCOMPARE(w.staleChanges(), std::vector<std::string>{"objective"});
    QVERIFY(runAndWait(w));
    QVERIFY(w.staleChanges().empty());
    QVERIFY(banner->isHidden());
}

void TestMainWindowViews::balancedProfileDrawsThePlotOnce()
{
    // Issue #35 item 1: choosing the Balanced profile after a search drew the
    // Pareto plot twice, offset, with two legends, still there 3 s later. The
    // plot shown after the switch is the one drawn after leaving the tab and
    // coming back, and its legend names each entry once.
    MainWindow w(quietOptions());
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.openSampleProject();
    QVERIFY(runAndWait(w));
    auto* tabs = w.findChild<QTabWidget*>();
    tabs->setCurrentWidget(w.paretoPlot());
    shownArea(w, w.paretoPlot());
    ObjectiveSpec b = w.objectivePanel()->objective();
    b.profile = WeightProfile::Balanced;
    w.objectivePanel()->setObjective(b);
    QVERIFY(w.staleChanges().empty());
    const QImage afterSwitch = shownArea(w, w.paretoPlot());
    tabs->setCurrentIndex(0);  // Cluster
    shownArea(w, tabs->currentWidget());
    tabs->setCurrentWidget(w.paretoPlot());
    QCOMPARE(shownArea(w, w.paretoPlot()), afterSwitch);
    QCPLegend* legend = w.paretoPlot()->plot()->legend;
    QStringList names;
    for (int i = 0; i < legend->itemCount(); ++i)
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i)))
            names << item->plottable()->name();
    QVERIFY(!names.isEmpty());
    QCOMPARE(QSet<QString>(names.begin(), names.end()).size(), names.size());
}

void TestMainWindowViews::staleViewsPaintOnlyThemselves()
{
    // Issue #35 item 1: after an edit made the results stale, the Pareto tab
    // opened from the Cluster tab showed the canvas through the dimmed plot,
    // the Memory tab the plot and canvas under its bars. A stale view must
    // look the same whichever tab was open before it.
    MainWindow w(quietOptions());
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.openSampleProject();
    QVERIFY(runAndWait(w));
    auto* tabs = w.findChild<QTabWidget*>();
    QWidget* canvas = tabs->widget(0);
    tabs->setCurrentWidget(canvas);
    const QString first = QString::fromStdString(w.document()->json()["nodes"][0]["name"].get<std::string>());
    QVERIFY(w.document()->removeNode(first));
    QVERIFY(!w.staleChanges().empty());

    for (QWidget* view : {static_cast<QWidget*>(w.paretoPlot()), static_cast<QWidget*>(w.memoryBars())}) {
        tabs->setCurrentWidget(canvas);
        shownArea(w, canvas);
        tabs->setCurrentWidget(view);
        const QImage afterCanvas = shownArea(w, view);
        tabs->setCurrentIndex(tabs->count() - 1);  // Baselines
        shownArea(w, tabs->currentWidget());
        tabs->setCurrentWidget(view);
        const QImage afterBaselines = shownArea(w, view);
        QVERIFY2(afterCanvas == afterBaselines, qPrintable(tabs->tabText(tabs->indexOf(view))));
        // and it is dimmed: lighter than the same view once current again
        StaleOverlay* veil = StaleOverlay::of(view);
        QVERIFY(veil && veil->isStale());
        QVERIFY(veil->testAttribute(Qt::WA_TransparentForMouseEvents));
        QCOMPARE(veil->geometry(), view->rect());
    }
    w.document()->undoStack()->undo();
    QVERIFY(w.staleChanges().empty());
    QVERIFY(!StaleOverlay::of(w.paretoPlot())->isStale());
}

void TestMainWindowViews::whyThisPlanFollowsTheSelection()
{
    MainWindow w(quietOptions());
    w.openSampleProject();
    useUniformMeshes(w);  // per GPU type, the sample's pick is its fastest plan too
    QVERIFY(runAndWait(w));
    auto* why = w.findChild<QLabel*>(QStringLiteral("whyThisPlan"));
    QVERIFY(why);
    const SearchResult& r = *w.result();
    const QString best = why->text();
    QVERIFY2(best.contains(QStringLiteral("Phi = (T/Tref)^0.40")), qPrintable(best));
    QVERIFY2(best.contains(QStringLiteral("Phi %1.").arg(r.best.front().phi, 0, 'g', 3)), qPrintable(best));
    // The fastest plan, selected, explains itself as the fastest.
    w.selectPlan(r.fastest.front().key);
    QVERIFY2(why->text().contains(QStringLiteral("It is also the fastest feasible plan.")), qPrintable(why->text()));
    QVERIFY(why->text() != best);
}

void TestMainWindowViews::memoryMarginAtUncertainty_data()
{
    QTest::addColumn<double>("beyond");  // uncertainty relative to what the tightest GPU's headroom allows
    QTest::addColumn<bool>("whiskers");
    QTest::addColumn<QString>("verdict");
    QTest::addRow("none") << -1.0 << false << "gives no uncertainty";
    QTest::addRow("half the headroom") << 0.5 << true << "fits with margin even at +";
    QTest::addRow("just inside") << 0.95 << true << "fits with margin even at +";
    QTest::addRow("just beyond") << 1.05 << true << "may not fit at +";
    QTest::addRow("twice the headroom") << 2.0 << true << "may not fit at +";
}

void TestMainWindowViews::memoryMarginAtUncertainty()
{
    QFETCH(double, beyond);
    QFETCH(bool, whiskers);
    QFETCH(QString, verdict);
    SearchRequest req = test::paperRequest();
    static const SearchResult r = SearchEngine::run(req);
    Plan plan = r.best.front();
    // The uncertainty at which the tightest GPU's upper bound meets its capacity.
    double limit = 1e9;
    for (const StagePlan& s : plan.stages)
        limit = std::min(limit, s.capacityMiB / s.memory.totalMiB() - 1.0);
    plan.uncertainty = beyond < 0 ? 0.0 : beyond * limit;
    MemoryBars bars;
    bars.setPlan(plan, req.problem.cluster);
    QCOMPARE(bars.hasWhiskers(), whiskers);
    QCOMPARE(bars.fitsAtUpperBound(), beyond <= 1.0);
    const QString text = bars.marginText();
    QVERIFY2(text.contains(verdict), qPrintable(text));
    QVERIFY2(text.startsWith(QStringLiteral("Tightest GPU ")), qPrintable(text));
    // Whiskers hang on an extra plottable after the five terms and the capacity legend.
    const int plottables = bars.plot()->plottableCount();
    QCOMPARE(plottables, whiskers ? 5 + 1 + 1 + 1 : 5 + 1);
    if (whiskers) {
        auto* errors = qobject_cast<QCPErrorBars*>(bars.plot()->plottable(plottables - 1));
        QVERIFY(errors);
        QCOMPARE(errors->dataCount(), bars.barCount());
        QCOMPARE(errors->data()->at(0).errorPlus, plan.stages[0].memory.totalMiB() * plan.uncertainty / 1024.0);
        for (int i = 0; i < bars.barCount(); ++i)
            QCOMPARE(bars.barUpperMiB(i), bars.barTotalMiB(i) * (1 + plan.uncertainty));
    }
}

MEMX_TEST_MAIN(TestMainWindowViews)
}  // namespace tst_main_window_views

#include "tst_main_window_views.moc"
