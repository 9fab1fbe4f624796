// MainWindow's file actions: the project (new, open, save, recent files, recovery), the cluster's import and
// export, and the export of plans, the plot and the candidates (the plan files themselves: PlanExporter).
#include "MainWindow.h"
#include "StdText.h"
#include "io/AtomicFile.h"
#include <QUndoStack>
#include "JobTracker.h"
#include "ProjectSession.h"
#include "CountText.h"
#include "ClusterCanvas.h"
#include "ClusterDocument.h"
#include "FileDialogs.h"
#include "MemoryBars.h"
#include "ObjectivePanel.h"
#include "ParetoPlot.h"
#include "PipelineView.h"
#include "WhyNotShapePanel.h"
#include "PlanTableModel.h"
#include "PredictorPanel.h"
#include "ProfileComparisonView.h"
#include "BandwidthWhatIfPanel.h"
#include "NodeChoicePanel.h"
#include "NodeLossPanel.h"
#include "BaselinesView.h"
#include "SimplexMapView.h"
#include "SearchController.h"
#include "SetupPanel.h"
#include "NoticeBanner.h"
#include "export/CandidateCsv.h"
#include "export/PlanJsonReader.h"
#include "io/JsonReader.h"
#include "search/RequestChanges.h"
#include <QAction>
#include <QCloseEvent>
#include <QDialog>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QTabWidget>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextCursor>
#include <QTextDocument>
#include <QVBoxLayout>
#include <limits>

namespace memx {

namespace {
const char* kSampleResource = ":/memx/paper-20gpu-3vendor.json";

}  // namespace

void MainWindow::openSampleProject()
{
    QFile f(QString::fromLatin1(kSampleResource));
    f.open(QIODevice::ReadOnly);
    Project p;
    p.cluster = nlohmann::json::parse(f.readAll().toStdString());
    p.model = ModelSpec::resolve("llama2-7b").toJson();
    p.setup.globalBatch = 128;
    p.setup.microBatchSizes = {1, 2, 4};
    loadProject(p, QString());
    session_->startUntitled(tr("Sample project"));
    statusLabel_->setText(tr("Sample project: the MemX paper's 20-GPU, 3-vendor cluster with LLaMA2-7B"));
}

bool MainWindow::openProject(const QString& file, QString* error)
{
    try {
        const Project p = ProjectSession::read(file);
        loadProject(p, file);
        session_->opened(file);
        return true;
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
}

void MainWindow::loadProject(const Project& project, const QString& file)
{
    controller_->cancel();
    document_->setJson(project.cluster);
    document_->undoStack()->clear();
    setupPanel_->setModel(ModelSpec::fromJson(JsonReader(project.model, file.toStdString(), "/model")));
    setupPanel_->setSetup(project.setup);
    objectivePanel_->setObjective(project.objective);
    updatePredictorContext();
    QString predictorError;
    if (project.predictor.empty() || project.predictor == "analytic") {
        predictorPanel_->setChoice(PredictorPanel::Choice::Analytic);
    } else {
        // A relative path is relative to the project file.
        QString path = qs(project.predictor);
        if (QFileInfo(path).isRelative() && !file.isEmpty())
            path = QFileInfo(file).absoluteDir().filePath(path);
        if (!predictorPanel_->loadFile(path)) {
            predictorPanel_->setChoice(PredictorPanel::Choice::Analytic);
            predictorError = predictorPanel_->errorText();
        }
    }
    lastResultSummary_ = project.lastResult;
    selectedKey_ = 0;
    // The previous project's plans answer nothing this one holds: gone from
    // every view (they stayed dimmed in the Profiles, Weights and Baselines tabs).
    controller_->forgetResult();
    jobs_->dropFollowUps();
    ++showGeneration_;  // drops result steps still queued
    pareto_->clear();
    bars_->clear();
    pipeline_->clear();
    compare_->clear();
    simplex_->clear();
    baselines_->clear();
    whatIf_->clear();
    nodeLoss_->clear();
    nodeChoice_->clear();
    noticeBanner_->setNotices({});
    tableRanking_ = nullptr;
    kneeRanking_.clear();
    planModel_->setPlans({}, project.objective.variance);
    planInfo_->clear();
    whyLabel_->setText(tr("Run a search (F5); the selected plan is explained here."));
    whyNot_->clear();
    updateStaleness();
    updateExportActions();
    showSavedResult(file);
    if (!predictorError.isEmpty())
        statusLabel_->setText(
            tr("The project's predictor was not loaded (searching with the analytic one): %1").arg(predictorError));
}

// The user guide (docs/USER_GUIDE.md and its screenshots, bundled): the
// workflow in ten steps and what each view shows, offline, in a window
// beside the workbench.
void MainWindow::showUserGuide()
{
    if (!guide_) {
        guide_ = new QDialog(this);
        guide_->setObjectName(QStringLiteral("userGuide"));
        guide_->setWindowTitle(tr("MemX Workbench User Guide"));
        auto* browser = new QTextBrowser(guide_);
        browser->setObjectName(QStringLiteral("userGuideText"));
        browser->setOpenExternalLinks(true);
        browser->setSource(QUrl(QStringLiteral("qrc:/memx/guide/USER_GUIDE.md")), QTextDocument::MarkdownResource);
        // Screenshots at the width of the text, not of the screen they were taken on.
        QTextDocument* doc = browser->document();
        for (QTextBlock b = doc->begin(); b.isValid(); b = b.next())
            for (auto it = b.begin(); !it.atEnd(); ++it) {
                const QTextFragment f = it.fragment();
                if (!f.charFormat().isImageFormat())
                    continue;
                QTextImageFormat image = f.charFormat().toImageFormat();
                image.setWidth(760);
                QTextCursor cursor(doc);
                cursor.setPosition(f.position());
                cursor.setPosition(f.position() + f.length(), QTextCursor::KeepAnchor);
                cursor.setCharFormat(image);
            }
        auto* layout = new QVBoxLayout(guide_);
        layout->addWidget(browser);
        guide_->resize(860, 900);
    }
    guide_->show();
    guide_->raise();
    guide_->activateWindow();
}

// A project saved after a search holds its best plan (last_result): shown in
// the Memory and Pipeline tabs when the project opens, so that it does not
// look as if it had never been searched. The plot, the rankings and exports
// need the whole search, which F5 runs again.
void MainWindow::showSavedResult(const QString& file)
{
    if (!lastResultSummary_.is_object() || !lastResultSummary_.contains("best"))
        return;
    try {
        const Cluster cluster = document_->cluster();
        const ModelSpec model = setupPanel_->model();
        const JsonReader best(lastResultSummary_.at("best"), file.toStdString(), "/last_result/best");
        const Plan plan = PlanJsonReader::planFromJson(best, cluster, model, setupPanel_->setup().distributedOptimizer);
        bars_->setPlan(plan, cluster);
        pipeline_->setPlan(plan);
        pareto_->setEmptyNote(tr("Saved result: its best plan is shown in Memory per GPU and Pipeline.\nPress F5 to "
                                 "search again for the plot of every candidate."));
        const auto feasible = lastResultSummary_.value("feasible", std::uint64_t{0});
        statusLabel_->setText(tr("Saved result: best plan %1 s per iteration, peak %2 GiB, of %3 feasible plans. "
                                 "Press F5 to search again for the plot, the rankings and exports.")
                                  .arg(plan.iterationMs / 1000.0, 0, 'f', 2)
                                  .arg(plan.maxMemMiB / 1024.0, 0, 'f', 1)
                                  .arg(CountText::compact(static_cast<std::uint64_t>(feasible))));
        statusLabel_->setToolTip(tr("%1 feasible plans").arg(CountText::exact(feasible)));
    } catch (const std::exception& e) {
        // The cluster or model was edited by hand since: say so, keep the project.
        statusLabel_->setText(tr("The project's saved result no longer fits its cluster or model (%1); press F5 to "
                                 "search again.")
                                  .arg(QString::fromUtf8(e.what())));
    }
}

Project MainWindow::currentProject() const
{
    Project p;
    p.cluster = document_->json();
    p.model = setupPanel_->model().toJson();
    p.setup = setupPanel_->setup();
    p.objective = objectivePanel_->objective();
    p.predictor = predictorPanel_->choice() == PredictorPanel::Choice::Learned
        ? predictorPanel_->filePath().toStdString()
        : std::string("analytic");
    p.lastResult = lastResultSummary_;
    return p;
}

bool MainWindow::saveProject(const QString& file, QString* error) { return session_->save(file, error); }

bool MainWindow::isDirty() const { return session_->isModified(); }

void MainWindow::markDirty()
{
    session_->markModified();
    updateStaleness();
}

void MainWindow::updateTitle() { setWindowTitle(session_->title()); }

void MainWindow::newProject()
{
    if (!maybeSave())
        return;
    // An empty cluster, the sample's model and setup: the user builds the cluster.
    Project p;
    p.cluster = ClusterDocument::emptyDocument();
    p.model = ModelSpec::resolve("llama2-7b").toJson();
    p.setup.globalBatch = 128;
    p.setup.microBatchSizes = {1, 2, 4};
    loadProject(p, QString());
    session_->startUntitled(tr("Untitled"));
    tabs_->setCurrentWidget(canvas_);
    statusLabel_->setText(tr("New project: drop a GPU type from the palette onto the canvas, or Edit > Add Node, "
                             "or File > Import Cluster"));
}

void MainWindow::openDialog()
{
    if (!maybeSave())
        return;
    QString file = FileDialogs::openFile(this, tr("Open Project"), tr("MemX projects (*.memx);;All files (*)"),
                                         QStringLiteral("project"));
    if (file.isEmpty())
        return;
    QString error;
    if (!openProject(file, &error))
        QMessageBox::warning(this, tr("Cannot open project"), error);
}

bool MainWindow::save()
{
    if (session_->file().isEmpty())
        return saveAs();
    QString error;
    if (!saveProject(session_->file(), &error)) {
        QMessageBox::warning(this, tr("Cannot save project"), error);
        return false;
    }
    return true;
}

bool MainWindow::saveAs()
{
    const QString suggested = session_->file().isEmpty() ? qs(document_->cluster().name()) + QStringLiteral(".memx")
                                                         : QFileInfo(session_->file()).fileName();
    const QString file = FileDialogs::saveFile(this, tr("Save Project"), tr("MemX projects (*.memx)"),
                                               QStringLiteral("project"), suggested, QStringLiteral("memx"));
    if (file.isEmpty())
        return false;
    QString error;
    if (!saveProject(file, &error)) {
        QMessageBox::warning(this, tr("Cannot save project"), error);
        return false;
    }
    return true;
}

bool MainWindow::maybeSave()
{
    if (!isDirty())
        return true;
    auto answer = QMessageBox::warning(this, tr("Unsaved changes"), tr("The project has unsaved changes. Save them?"),
                                       QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    if (answer == QMessageBox::Save)
        return save();
    return answer == QMessageBox::Discard;
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    controller_->cancel();
    if (options_.restoreState) {
        QSettings settings;
        settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
        settings.setValue(QStringLiteral("window/state"), saveState());
    }
    session_->discardAutosave();
    event->accept();
}

void MainWindow::rebuildRecentMenu()
{
    if (!recentMenu_)
        return;
    recentMenu_->clear();
    const QStringList files = session_->recentFiles();
    for (const QString& f : files) {
        recentMenu_
            ->addAction(QFileInfo(f).fileName(), this,
                        [this, f] {
                            if (!maybeSave())
                                return;
                            QString error;
                            if (!openProject(f, &error))
                                QMessageBox::warning(this, tr("Cannot open project"), error);
                        })
            ->setToolTip(f);
    }
    recentMenu_->setEnabled(!files.isEmpty());
}

bool MainWindow::recoverProject(const AutosaveSlot::Orphan& orphan, QString* error)
{
    try {
        const Project p = ProjectSession::read(orphan);
        loadProject(p, orphan.projectFile);
        session_->adopted(orphan);
        return true;
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
}

// ---- import / export ----

void MainWindow::importCluster()
{
    const QString file = FileDialogs::openFile(this, tr("Import Cluster"), tr("Cluster files (*.json);;All files (*)"),
                                               QStringLiteral("cluster"));
    if (file.isEmpty())
        return;
    // One undo step, like any edit: Undo brings the previous cluster back.
    QString error;
    if (!document_->importFile(file, &error)) {
        QMessageBox::warning(this, tr("Cannot import cluster"), error);
        return;
    }
    canvas_->fitAll();
    statusLabel_->setText(tr("Imported %1: %2 nodes, %3 GPUs (Undo restores the previous cluster)")
                              .arg(QFileInfo(file).fileName())
                              .arg(document_->cluster().nodes().size())
                              .arg(document_->cluster().deviceCount()));
}

void MainWindow::exportCluster()
{
    const QString file
        = FileDialogs::saveFile(this, tr("Export Cluster"), tr("Cluster files (*.json)"), QStringLiteral("cluster"),
                                qs(document_->cluster().name()) + QStringLiteral(".json"), QStringLiteral("json"));
    if (file.isEmpty())
        return;
    QString error;
    if (!document_->save(file, &error))
        QMessageBox::warning(this, tr("Cannot export cluster"), error);
    else
        statusLabel_->setText(tr("Exported cluster \"%1\" to %2").arg(qs(document_->cluster().name()), file));
}

void MainWindow::exportPlot()
{
    const QString file
        = FileDialogs::saveFile(this, tr("Export Plot"), tr("PNG (*.png);;PDF (*.pdf)"), QStringLiteral("plot"),
                                QStringLiteral("pareto.png"), QStringLiteral("png"));
    if (file.isEmpty())
        return;
    if (!pareto_->exportImage(file, 1600, 1000))
        QMessageBox::warning(this, tr("Cannot export plot"), tr("Could not write %1").arg(file));
}

void MainWindow::exportCandidates()
{
    if (!controller_->hasResult())
        return;
    const QString file
        = FileDialogs::saveFile(this, tr("Export Candidates"), tr("CSV (*.csv)"), QStringLiteral("candidates"),
                                QStringLiteral("candidates.csv"), QStringLiteral("csv"));
    if (file.isEmpty())
        return;
    try {
        writeFileAtomically(file.toStdString(), CandidateCsv::write(controller_->lastResult()));
    } catch (const std::exception& e) {
        QMessageBox::warning(this, tr("Cannot export candidates"), QString::fromUtf8(e.what()));
    }
}

QString MainWindow::predictorLabel(const std::shared_ptr<const Predictor>& predictor, const std::string& name) const
{
    if (predictor && predictor == searchPredictor_ && !searchPredictorFile_.isEmpty())
        return tr("%1 (%2)").arg(qs(name), QFileInfo(searchPredictorFile_).fileName());
    return qs(name);
}

MainWindow::ExportOutcome MainWindow::exportPlan(ExportTarget target, const QString& destination)
{
    if (const QString refusal = exportRefusal(); !refusal.isEmpty())
        return {false, refusal, {}};
    const SearchResult* r = result();
    const Plan* plan = planByKey(selectedKey_);
    if (!plan)
        plan = &r->best.front();
    const SearchRequest& req = controller_->lastRequest();
    const PlanExporter::Source source{req,
                                      *r,
                                      *plan,
                                      session_->file().isEmpty() ? std::string("unsaved-project.memx")
                                                                 : session_->file().toStdString(),
                                      predictorLabel(req.predictor, r->predictorName).toStdString(),
                                      originOfResult().toStdString()};
    return PlanExporter::write(source, target, destination);
}

// Why no plan can be exported now (no result, or a result of other
// settings); empty when one can. Asked before the folder dialog, so that a
// user does not pick a folder only to be told the plan is stale.
QString MainWindow::exportRefusal() const
{
    const SearchResult* r = result();
    if (!r || r->best.empty())
        return tr("Nothing to export: run a search first.");
    if (!staleChanges_.empty())
        return tr("Not exported: the results were computed before %1 changed. Press Run (F5) to plan "
                  "the project as it is now, then export.")
            .arg(qs(RequestChanges::describe(staleChanges_)));
    return {};
}

void MainWindow::exportPlanDialog(ExportTarget target)
{
    if (const QString refusal = exportRefusal(); !refusal.isEmpty()) {
        statusLabel_->setText(refusal);
        QMessageBox::warning(this, tr("Plan not exported"), refusal);
        return;
    }
    QString destination;
    if (target == ExportTarget::Json) {
        destination
            = FileDialogs::saveFile(this, tr("Export Plan JSON"), tr("Plan JSON (*.json)"), QStringLiteral("plan"),
                                    QStringLiteral("plan.json"), QStringLiteral("json"));
    } else {
        destination
            = FileDialogs::folder(this,
                                  target == ExportTarget::Megatron ? tr("Folder for the Megatron-LM launch scripts")
                                                                   : tr("Folder for the FlagScale config"),
                                  QStringLiteral("launch"));
    }
    if (destination.isEmpty())
        return;
    const ExportOutcome outcome = exportPlan(target, destination);
    statusLabel_->setText(outcome.message);
    if (outcome.ok) {
        QMessageBox box(QMessageBox::Information, tr("Plan exported"), outcome.message, QMessageBox::Ok, this);
        box.setDetailedText(outcome.files.join(QLatin1Char('\n')));
        box.exec();
    } else {
        QMessageBox::warning(this, tr("Plan not exported"), outcome.message);
    }
}

void MainWindow::updateExportActions()
{
    const bool any = result() && !result()->best.empty();
    for (QAction* a : {exportMegatronAct_, exportFlagScaleAct_, exportJsonAct_})
        if (a)
            a->setEnabled(any);
}

}  // namespace memx
