// The workbench window's files end to end, offscreen (the window's search and
// views: tst_main_window): projects round-trip, autosave and recovery, a
// learned predictor chosen in the predictor panel drives the search (or
// refuses it when it does not fit) and is kept in the project, and File >
// Export writes launch files for the selected plan.
#include "TestFiles.h"
#include "TestPredictors.h"
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

#include <fstream>

namespace tst_main_window_files {

using namespace memx;
using memx::test::darkPalette;
using memx::test::quietOptions;
using memx::test::runAndWait;

namespace {
// A small learned predictor for the sample project (LLaMA2-7B on the paper's 20-GPU cluster).
void trainSmallPredictor(const std::string& file)
{
    SearchRequest req = test::paperRequest();
    req.problem.setup.microBatchSizes = {1, 2, 4};
    test::trainSmallPredictor(req, file);
}

using memx::test::filesUnder;

using memx::test::useUniformMeshes;
}  // namespace

class TestMainWindowFiles : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void projectRoundTrip();
    void autosaveHoldsUnsavedChanges();
    void learnedPredictorDrivesTheSearch();
    void unfitPredictorRefusesTheSearch();
    void newProjectDropsThePreviousResults();
    void projectKeepsThePredictor();
    void exportWritesMegatronScriptsAndPlanJson();
    void flagScaleRefusalIsReported();
    void exportNeedsAResult();
    void autosavesBelongToTheirInstance();
    void recoveredProjectKeepsItsNameAndWaits();
    void recoveredUntitledProjectIsUntitled();

private:
    QTemporaryDir modelDir_;
    QString model_;  // fits the sample project
    QString a100Only_;  // the same, claiming to know only A100-80GB
};

void TestMainWindowFiles::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(modelDir_.isValid());
    model_ = modelDir_.filePath(QStringLiteral("model.json"));
    trainSmallPredictor(model_.toStdString());
    std::ifstream in(model_.toStdString());
    nlohmann::json doc = nlohmann::json::parse(in);
    doc["trained_on"]["gpu_types"] = {"A100-80GB"};
    a100Only_ = modelDir_.filePath(QStringLiteral("a100-only.json"));
    writeFileAtomically(a100Only_.toStdString(), doc.dump());
}

void TestMainWindowFiles::projectRoundTrip()
{
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("p.memx"));
    MainWindow w(quietOptions());
    w.openSampleProject();
    QVERIFY(runAndWait(w));
    QString error;
    QVERIFY2(w.saveProject(file, &error), qPrintable(error));
    const Project saved = w.currentProject();
    MainWindow again(quietOptions());
    QVERIFY2(again.openProject(file, &error), qPrintable(error));
    // The project value itself, not the writer's output compared with itself.
    QVERIFY(again.currentProject() == saved);
    QVERIFY(Project::load(file.toStdString()) == saved);
    QVERIFY(!again.isDirty());
    // The saved result is on screen, not an empty workbench (issue #35 item 5):
    // the best plan's bars, one per GPU of its stages, and a status line that
    // says it is the saved one.
    const Plan& best = w.result()->best.front();
    int gpus = 0;
    for (const StagePlan& st : best.stages)
        gpus += static_cast<int>(st.devices.size());
    QCOMPARE(again.memoryBars()->barCount(), gpus);
    auto* status = again.findChild<QLabel*>(QStringLiteral("statusLabel"));
    QVERIFY(status);
    QVERIFY2(status->text().startsWith(QStringLiteral("Saved result: best plan ")), qPrintable(status->text()));
    QVERIFY2(status->text().contains(QString::number(best.iterationMs / 1000.0, 'f', 2)), qPrintable(status->text()));
    // The plot holds no candidates until F5 and says so where it would draw
    // them (it read "candidates (0)" and nothing else).
    QCOMPARE(again.paretoPlot()->candidatePointCount(), 0);
    QVERIFY2(again.paretoPlot()->emptyNote().startsWith(QStringLiteral("Saved result")),
             qPrintable(again.paretoPlot()->emptyNote()));
    // File > New: the note is how to fill the plot again.
    again.openSampleProject();
    QCOMPARE(again.paretoPlot()->emptyNote(), ParetoPlot::runNote());
}

void TestMainWindowFiles::autosaveHoldsUnsavedChanges()
{
    MainWindow w(quietOptions());
    w.openSampleProject();
    QFile::remove(w.session()->autosavePath());
    w.session()->writeAutosave();
    QVERIFY(!QFile::exists(w.session()->autosavePath()));  // nothing unsaved, nothing written
    ObjectiveSpec o = w.objectivePanel()->objective();
    o.profile = WeightProfile::ThroughputFirst;
    w.objectivePanel()->setObjective(o);  // an unsaved change
    QVERIFY(w.isDirty());
    w.session()->writeAutosave();
    QVERIFY(QFile::exists(w.session()->autosavePath()));
    // What a restart would recover is the project as it stood.
    Project recovered = Project::load(w.session()->autosavePath().toStdString());
    QCOMPARE(recovered.objective.profile, WeightProfile::ThroughputFirst);
    QVERIFY(recovered == w.currentProject());
    QFile::remove(w.session()->autosavePath());
}

void TestMainWindowFiles::learnedPredictorDrivesTheSearch()
{
    MainWindow w(quietOptions());
    w.openSampleProject();
    QVERIFY2(w.predictorPanel()->loadFile(model_), qPrintable(w.predictorPanel()->errorText()));
    QVERIFY(w.predictorPanel()->refusal().isEmpty());
    QVERIFY(runAndWait(w));
    const SearchResult& r = *w.result();
    QCOMPARE(QString::fromStdString(r.predictorName), QStringLiteral("learned"));
    QVERIFY(w.controller()->lastRequest().predictor == w.predictorPanel()->predictor());
    QVERIFY(!r.best.empty());
    for (const Plan& p : r.best) {
        QCOMPARE(p.provenance, Provenance::Learned);
        QVERIFY(p.uncertainty > 0);
    }
    // The chosen plan's provenance and uncertainty are visible: status line and whiskers.
    const Plan& best = r.best.front();
    const QString pct = QStringLiteral("±%1%").arg(qRound(100 * best.uncertainty));
    QVERIFY2(w.planSummary().startsWith(QStringLiteral("learned, ") + pct), qPrintable(w.planSummary()));
    // In seconds, as the other views state iteration times (it had read "21469.6 +- 5367.4 ms").
    QVERIFY2(w.planSummary().contains(QString::number(best.iterationMs / 1000, 'f', 2) + QStringLiteral(" ± ")
                                      + QString::number(best.iterationMs / 1000 * best.uncertainty, 'f', 2)
                                      + QStringLiteral(" s, peak")),
             qPrintable(w.planSummary()));
    QCOMPARE(w.memoryBars()->provenance(), QStringLiteral("learned"));
    QCOMPARE(w.memoryBars()->uncertainty(), best.uncertainty);
    QVERIFY(w.memoryBars()->hasWhiskers());
    QCOMPARE(w.memoryBars()->barUpperMiB(0), best.stages[0].memory.totalMiB() * (1 + best.uncertainty));
    const QString margin = w.memoryBars()->marginText();
    QVERIFY2(margin.contains(QStringLiteral("+%1%").arg(qRound(100 * best.uncertainty))), qPrintable(margin));
    QVERIFY2(margin.contains(w.memoryBars()->fitsAtUpperBound() ? QStringLiteral("fits with margin")
                                                                : QStringLiteral("may not fit")),
             qPrintable(margin));

    // Back to analytic: the next search is analytic again.
    w.predictorPanel()->setChoice(PredictorPanel::Choice::Analytic);
    QVERIFY(runAndWait(w));
    QCOMPARE(QString::fromStdString(w.result()->predictorName), QStringLiteral("analytic"));
    QCOMPARE(w.result()->best.front().provenance, Provenance::Analytic);
    QVERIFY(w.planSummary().startsWith(QStringLiteral("analytic, ")));
}

void TestMainWindowFiles::unfitPredictorRefusesTheSearch()
{
    MainWindow w(quietOptions());
    w.openSampleProject();
    QVERIFY(w.predictorPanel()->loadFile(a100Only_));
    QSignalSpy refused(&w, &MainWindow::searchRefused);
    QSignalSpy started(w.controller(), &SearchController::started);
    w.runSearch();
    QCOMPARE(refused.count(), 1);
    QCOMPARE(started.count(), 0);
    QVERIFY(!w.controller()->isRunning());
    const QString reason = refused.first().first().toString();
    QVERIFY2(reason.contains(QStringLiteral("a100-only.json")) && reason.contains(QStringLiteral("Vendor-B, Vendor-C")),
             qPrintable(reason));
    QVERIFY(w.result() == nullptr);
    // No silent fallback: picking analytic is the user's move, and then it runs.
    w.predictorPanel()->setChoice(PredictorPanel::Choice::Analytic);
    QVERIFY(runAndWait(w));
    QCOMPARE(refused.count(), 1);
    QCOMPARE(QString::fromStdString(w.result()->predictorName), QStringLiteral("analytic"));
}

// File > New: the previous project's plans are gone from every view, not
// shown dimmed as if they were stale results of the new one.
void TestMainWindowFiles::newProjectDropsThePreviousResults()
{
    MainWindow w(quietOptions());
    w.openSampleProject();
    QVERIFY(runAndWait(w));
    auto* compare = w.findChild<ProfileComparisonView*>();
    QVERIFY(compare);
    QVERIFY(compare->columnCount() > 0);
    QVERIFY(!w.isDirty());
    QAction* newProject = nullptr;
    for (QAction* a : w.findChildren<QAction*>())
        if (a->text() == QStringLiteral("&New Project"))
            newProject = a;
    QVERIFY(newProject);
    newProject->trigger();
    QVERIFY(!w.controller()->hasResult());
    QCOMPARE(compare->columnCount(), 0);
    auto* stale = w.findChild<StaleBanner*>(QStringLiteral("staleBanner"));
    QVERIFY(stale);
    QVERIFY2(stale->text().isEmpty(), qPrintable(stale->text()));
    QVERIFY(w.result() == nullptr || w.result()->best.empty());
}

void TestMainWindowFiles::projectKeepsThePredictor()
{
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("p.memx"));
    {
        MainWindow w(quietOptions());
        w.openSampleProject();
        QVERIFY(w.predictorPanel()->loadFile(model_));
        QVERIFY(w.isDirty());
        QString error;
        QVERIFY2(w.saveProject(file, &error), qPrintable(error));
        QCOMPARE(QString::fromStdString(w.currentProject().predictor), QFileInfo(model_).absoluteFilePath());
        // The file just loaded heads the recent predictors.
        QCOMPARE(QSettings().value(QStringLiteral("recentPredictors")).toStringList().value(0),
                 QFileInfo(model_).absoluteFilePath());
    }
    MainWindow again(quietOptions());
    QString error;
    QVERIFY2(again.openProject(file, &error), qPrintable(error));
    QCOMPARE(again.predictorPanel()->choice(), PredictorPanel::Choice::Learned);
    QCOMPARE(again.predictorPanel()->filePath(), QFileInfo(model_).absoluteFilePath());
    QVERIFY(!again.isDirty());

    // A project whose predictor file is gone still opens, on the analytic predictor.
    Project p = Project::load(file.toStdString());
    p.predictor = "gone.json";  // relative: next to the project
    const QString broken = dir.filePath(QStringLiteral("broken.memx"));
    p.save(broken.toStdString());
    MainWindow third(quietOptions());
    QVERIFY2(third.openProject(broken, &error), qPrintable(error));
    QCOMPARE(third.predictorPanel()->choice(), PredictorPanel::Choice::Analytic);
    QVERIFY2(third.predictorPanel()->errorText().contains(dir.filePath(QStringLiteral("gone.json"))),
             qPrintable(third.predictorPanel()->errorText()));
    QCOMPARE(third.currentProject().predictor, std::string("analytic"));
}

void TestMainWindowFiles::exportWritesMegatronScriptsAndPlanJson()
{
    MainWindow w(quietOptions());
    w.openSampleProject();
    QVERIFY(runAndWait(w));
    QTemporaryDir dir;
    const QString megatron = dir.filePath(QStringLiteral("megatron"));
    // The sample plans per GPU type, and its pick gives each type its own TP
    // and DP: Megatron-LM's export refuses it, saying what runs it and how to
    // plan for Megatron-LM, and writes nothing.
    QVERIFY(w.result()->best.front().perMesh());
    const MainWindow::ExportOutcome refused = w.exportPlan(MainWindow::ExportTarget::Megatron, megatron);
    QVERIFY(!refused.ok);
    QVERIFY2(refused.message.contains(QStringLiteral("--target flagscale"))
                 && refused.message.contains(QStringLiteral("Meshes: uniform")),
             qPrintable(refused.message));
    QVERIFY(filesUnder(megatron).isEmpty());
    useUniformMeshes(w);
    QVERIFY(runAndWait(w));
    const Plan& best = w.result()->best.front();
    QVERIFY(!best.perMesh());
    const MainWindow::ExportOutcome out = w.exportPlan(MainWindow::ExportTarget::Megatron, megatron);
    QVERIFY2(out.ok, qPrintable(out.message));
    const QStringList written = filesUnder(megatron);
    QVERIFY2(written.contains(QStringLiteral("launch_node0.sh")), qPrintable(written.join(',')));
    QVERIFY(written.contains(QStringLiteral("hostfile")));
    QVERIFY(written.contains(QStringLiteral("sbatch.sh")));
    QCOMPARE(out.files.size(), written.size());
    QVERIFY2(out.message.contains(QStringLiteral("launch_node0.sh")), qPrintable(out.message));
    QFile script(QDir(megatron).filePath(QStringLiteral("launch_node0.sh")));
    QVERIFY(script.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(script.readAll());
    QVERIFY(text.contains(QStringLiteral("--pipeline-model-parallel-size %1").arg(best.pp)));
    // The files say which project state they were planned for.
    QVERIFY2(text.contains(QStringLiteral("# Planned for ")), qPrintable(text.left(800)));
    QVERIFY(text.contains(QStringLiteral("(cluster %1, model llama2-7b)")
                              .arg(QString::fromStdString(w.controller()->lastRequest().problem.cluster.name()))));
    QVERIFY(QFileInfo(script).isExecutable());

    // Plan JSON: the whole memx-plan/2 document, readable by memx-cli export.
    const QString json = dir.filePath(QStringLiteral("plan.json"));
    const MainWindow::ExportOutcome j = w.exportPlan(MainWindow::ExportTarget::Json, json);
    QVERIFY2(j.ok, qPrintable(j.message));
    QCOMPARE(j.files, QStringList{QFileInfo(json).absoluteFilePath()});
    const PlanDocument doc = PlanJsonReader::read(json.toStdString());
    QCOMPARE(doc.format, std::string("memx-plan/2"));
    QCOMPARE(doc.plan.key, best.key);
    QCOMPARE(doc.plan.iterationMs, best.iterationMs);
    QCOMPARE(doc.problem.model.name, std::string("llama2-7b"));
    QCOMPARE(doc.problem.cluster.deviceCount(), 20);
    QCOMPARE(doc.predictor, std::string("analytic"));

    // The selected plan, not the best, when one is selected.
    const Plan& other = w.result()->best.at(1);
    w.selectPlan(other.key);
    QVERIFY(w.exportPlan(MainWindow::ExportTarget::Json, json).ok);
    QCOMPARE(PlanJsonReader::read(json.toStdString()).plan.key, other.key);
}

void TestMainWindowFiles::flagScaleRefusalIsReported()
{
    MainWindow w(quietOptions());
    w.openSampleProject();
    auto* setup = w.findChild<SetupPanel*>();
    QVERIFY(setup);
    TrainingSetup s = setup->setup();
    s.schedule = ScheduleMode::Both;
    s.meshes = MeshMode::Uniform;  // per-type plans run 1F1B only
    setup->setSetup(s);
    // The paper's eV (--ev paper), under which interleaved plans rank in the top ten here.
    auto* objective = w.findChild<ObjectivePanel*>();
    QVERIFY(objective);
    ObjectiveSpec spec = objective->objective();
    spec.epsilonRule = EpsilonRule::Fraction;
    objective->setObjective(spec);
    QVERIFY(runAndWait(w));
    const Plan* interleaved = nullptr;
    for (const Plan& p : w.result()->best)
        if (p.schedule == Schedule::Interleaved) {
            interleaved = &p;
            break;
        }
    QVERIFY(interleaved);
    w.selectPlan(interleaved->key);
    QTemporaryDir dir;
    const QString flagscale = dir.filePath(QStringLiteral("flagscale"));
    const MainWindow::ExportOutcome out = w.exportPlan(MainWindow::ExportTarget::FlagScale, flagscale);
    QVERIFY(!out.ok);
    QVERIFY2(out.message.startsWith(QStringLiteral("FlagScale cannot run this plan")), qPrintable(out.message));
    QVERIFY2(out.message.contains(QStringLiteral("virtual pipeline")), qPrintable(out.message));
    QVERIFY(out.files.isEmpty());
    QVERIFY(filesUnder(flagscale).isEmpty());
    // Megatron-LM runs interleaved plans.
    QVERIFY(w.exportPlan(MainWindow::ExportTarget::Megatron, dir.filePath(QStringLiteral("megatron"))).ok);
    // A 1F1B plan goes to FlagScale.
    w.selectPlan(w.result()->best.front().schedule == Schedule::OneF1B ? w.result()->best.front().key
                                                                       : w.result()->fastest.front().key);
    const MainWindow::ExportOutcome ok = w.exportPlan(MainWindow::ExportTarget::FlagScale, flagscale);
    QVERIFY2(ok.ok, qPrintable(ok.message));
    QVERIFY(filesUnder(flagscale).contains(QStringLiteral("conf/train_hetero.yaml")));
}

void TestMainWindowFiles::exportNeedsAResult()
{
    MainWindow w(quietOptions());
    w.openSampleProject();
    QTemporaryDir dir;
    const MainWindow::ExportOutcome out = w.exportPlan(MainWindow::ExportTarget::Megatron, dir.path());
    QVERIFY(!out.ok);
    QVERIFY(out.message.contains(QStringLiteral("run a search first")));
    QVERIFY(filesUnder(dir.path()).isEmpty());
}

void TestMainWindowFiles::autosavesBelongToTheirInstance()
{
    QTemporaryDir dir;
    AutosaveSlot a(dir.path()), b(dir.path());
    QVERIFY(a.file() != b.file());
    Project p;
    std::ifstream in(test::sampleCluster("paper-table1-xy.json"));
    p.cluster = nlohmann::json::parse(in);
    p.model = ModelSpec::resolve("llama2-7b").toJson();
    a.write(p, QStringLiteral("/projects/a.memx"));
    b.write(p, QString());
    // Both writers are alive: a second instance does not claim a crash.
    QVERIFY(AutosaveSlot::orphans(dir.path()).empty());

    // A crashed instance: its autosave and a lock whose process is gone.
    const QString crashed = QDir(dir.path()).filePath(QStringLiteral("autosave-999999-0.memx"));
    QVERIFY(QFile::copy(a.file(), crashed));
    writeFileAtomically((crashed + QStringLiteral(".origin")).toStdString(), "/projects/crashed.memx");
    {
        QFile lock(crashed + QStringLiteral(".lock"));
        QVERIFY(lock.open(QIODevice::WriteOnly));
        lock.write(QByteArray("999999\nmemx\n") + QSysInfo::machineHostName().toUtf8() + "\n");
    }
    std::vector<AutosaveSlot::Orphan> orphans = AutosaveSlot::orphans(dir.path());
    QCOMPARE(orphans.size(), std::size_t(1));
    QCOMPARE(orphans.front().file, crashed);
    QCOMPARE(orphans.front().projectFile, QStringLiteral("/projects/crashed.memx"));
    // Claimed: another new instance does not get it too.
    QVERIFY(AutosaveSlot::orphans(dir.path()).empty());
    AutosaveSlot::remove(orphans.front());
    QVERIFY(!QFile::exists(crashed));
    a.discard();
    QVERIFY(!QFile::exists(a.file()));
}

void TestMainWindowFiles::recoveredProjectKeepsItsNameAndWaits()
{
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("mine.memx"));
    QString error;
    {
        MainWindow w(quietOptions());
        w.openSampleProject();
        QVERIFY2(w.saveProject(file, &error), qPrintable(error));
        QCOMPARE(ProjectSession::lastProject(), QFileInfo(file).absoluteFilePath());  // reopened on the next launch
    }
    // The crashed session had changed the objective and not saved.
    Project unsaved = Project::load(file.toStdString());
    unsaved.objective.profile = WeightProfile::SafetyFirst;
    QDir().mkpath(ProjectSession::autosaveDir());
    const QString crashed = QDir(ProjectSession::autosaveDir()).filePath(QStringLiteral("autosave-999998-0.memx"));
    unsaved.save(crashed.toStdString());
    writeFileAtomically((crashed + QStringLiteral(".origin")).toStdString(), file.toStdString());
    std::vector<AutosaveSlot::Orphan> orphans = AutosaveSlot::orphans(ProjectSession::autosaveDir());
    auto it = std::find_if(orphans.begin(), orphans.end(), [&](const auto& o) { return o.file == crashed; });
    QVERIFY(it != orphans.end());  // (others may be left by earlier, interrupted test runs)

    MainWindow w(quietOptions());
    QSignalSpy started(w.controller(), &SearchController::started);
    QVERIFY2(w.recoverProject(*it, &error), qPrintable(error));
    QVERIFY2(w.windowTitle().startsWith(QStringLiteral("mine.memx *")), qPrintable(w.windowTitle()));
    QVERIFY(w.isDirty());
    QCOMPARE(w.objectivePanel()->objective().profile, WeightProfile::SafetyFirst);
    QVERIFY(!started.wait(50));  // no search by itself
    QCOMPARE(started.count(), 0);
    QVERIFY(!QFile::exists(crashed));
    QVERIFY(QFile::exists(w.session()->autosavePath()));  // the recovered work is safe in this instance's autosave
    // Saving writes to the project's own path and clears the autosave.
    QVERIFY(w.saveProject(file, &error));
    QCOMPARE(Project::load(file.toStdString()).objective.profile, WeightProfile::SafetyFirst);
    QVERIFY(!QFile::exists(w.session()->autosavePath()));
}

void TestMainWindowFiles::recoveredUntitledProjectIsUntitled()
{
    // Found by scripts/gui-walk: main() opens the sample before it offers a
    // crashed window's work back, and an untitled project recovered then was
    // titled "Sample project *".
    Project unsaved;
    unsaved.cluster = ClusterDocument::emptyDocument();
    unsaved.model = ModelSpec::resolve("llama2-7b").toJson();
    unsaved.setup.globalBatch = 512;
    QDir().mkpath(ProjectSession::autosaveDir());
    const QString crashed = QDir(ProjectSession::autosaveDir()).filePath(QStringLiteral("autosave-999997-0.memx"));
    unsaved.save(crashed.toStdString());
    std::vector<AutosaveSlot::Orphan> orphans = AutosaveSlot::orphans(ProjectSession::autosaveDir());
    auto it = std::find_if(orphans.begin(), orphans.end(), [&](const auto& o) { return o.file == crashed; });
    QVERIFY(it != orphans.end());
    QVERIFY(it->projectFile.isEmpty());

    MainWindow w(quietOptions());
    w.openSampleProject();
    QString error;
    QVERIFY2(w.recoverProject(*it, &error), qPrintable(error));
    QCOMPARE(w.windowTitle(), QStringLiteral("Untitled * - MemX Workbench"));
    // No search yet: the Plans table's columns are as wide as their titles
    // (the walk's screenshot had "#", "TP" and "PP" filling the dock).
    auto* table = w.findChild<QTableView*>(QStringLiteral("planTable"));
    QVERIFY(table);
    QHeaderView* header = table->horizontalHeader();
    for (int c = 0; c + 1 < header->count(); ++c) {
        const QString title = table->model()->headerData(c, Qt::Horizontal).toString();
        QVERIFY2(header->sectionSize(c) <= header->fontMetrics().horizontalAdvance(title) + 40,
                 qPrintable(QStringLiteral("%1: %2 px").arg(title).arg(header->sectionSize(c))));
    }
}

MEMX_TEST_MAIN(TestMainWindowFiles)
}  // namespace tst_main_window_files

#include "tst_main_window_files.moc"
