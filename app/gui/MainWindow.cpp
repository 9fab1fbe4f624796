// Over 600 lines: the wiring of twelve views, six docks and their menus to the document, the project session, the
// job tracker and one another; each view and job lives in its own class.
#include "MainWindow.h"
#include "JobTracker.h"
#include "ProjectSession.h"

#include "CountText.h"

#include "ClusterCanvas.h"
#include "ClusterDocument.h"
#include "ElidedLabel.h"
#include "FileDialogs.h"
#include "GpuPalette.h"
#include "GpuTypeColors.h"
#include "MemoryBars.h"
#include "ObjectivePanel.h"
#include "ParetoPlot.h"
#include "PipelineView.h"
#include "PlanFilterProxy.h"
#include "WhyNotShapePanel.h"
#include "PlanTableModel.h"
#include "PredictorPanel.h"
#include "ProfileComparisonView.h"
#include "BandwidthWhatIfPanel.h"
#include "NodeChoicePanel.h"
#include "NodeLossPanel.h"
#include "BaselinesView.h"
#include "SimplexMapView.h"
#include "PropertyPanel.h"
#include "SearchController.h"
#include "SetupPanel.h"
#include "StaleBanner.h"
#include "StaleOverlay.h"
#include "NoticeBanner.h"

#include "export/CandidateCsv.h"
#include "export/ExportFolder.h"
#include "export/LaunchFiles.h"
#include "export/PlanExport.h"
#include "export/PlanJson.h"
#include "export/PlanJsonReader.h"
#include "io/AtomicFile.h"
#include "io/InputError.h"
#include "io/JsonReader.h"
#include "predict/LibraryVersions.h"
#include "predict/PredictionStore.h"
#include "search/BandwidthWhatIf.h"
#include "search/NodeChoice.h"
#include "search/NodeLossWhatIf.h"
#include "search/KneeRanking.h"
#include "search/PlanExplanation.h"
#include "search/PlanPlausibility.h"
#include "export/SearchReport.h"
#include "search/RecomputeAblation.h"
#include "search/RequestChanges.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDialog>
#include <QDir>
#include <QDockWidget>

#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QStyle>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextCursor>
#include <QTextDocument>
#include <QTimer>
#include <QToolBar>
#include <QUndoStack>
#include <QVBoxLayout>

#include <limits>

#include <qcustomplot.h>

// Resources of a static library must be initialised explicitly, outside any namespace.
static void initMemxResources() { Q_INIT_RESOURCE(memx); }

namespace memx {

namespace {
constexpr int kMaxRecentPredictors = 6;
const char* kRecentPredictorsKey = "recentPredictors";
const char* kSampleResource = ":/memx/paper-20gpu-3vendor.json";

QString qs(const std::string& s) { return QString::fromStdString(s); }

using Job = JobTracker::Job;

// A what-if that re-plans the last search (node loss, node choice): the
// search's request, on a copy of its prediction store (the next search writes
// to its own), run as a job of the tracker; its outcome is shown only if no
// later request or search made it stale.
template <class Run, class Show>
void replanOffThread(JobTracker& jobs, Job job, const SearchController& controller, Run run, Show show)
{
    SearchRequest request = controller.lastRequest();
    request.options.stopEarly = {};
    request.options.background = true;
    if (request.store)
        request.store = std::make_shared<PredictionStore>(*request.store);
    const std::shared_ptr<const SearchResult> result = controller.lastResultShared();
    jobs.start(
        job, [request = std::move(request), result, run](const JobTracker::Ticket&) { return run(request, *result); },
        show);
}

}  // namespace

MainWindow::MainWindow(Options options, QWidget* parent) : QMainWindow(parent), options_(options)
{
    initMemxResources();
    setObjectName(QStringLiteral("MemXMainWindow"));
    document_ = new ClusterDocument(this);
    jobs_ = new JobTracker(this);  // before the controller: destroyed first, it waits for every job
    controller_ = new SearchController(this, jobs_);
    session_ = new ProjectSession([this] { return currentProject(); }, document_->undoStack(), options_.autosave, this);
    createViews();
    createActions();
    createDocks();
    createMenus();
    createStatusBar();
    connectSearch();
    connect(pareto_, &ParetoPlot::planClicked, this, &MainWindow::selectPlan);
    connect(compare_, &ProfileComparisonView::planActivated, this, &MainWindow::selectPlan);
    connect(simplex_, &SimplexMapView::planActivated, this, &MainWindow::selectPlan);
    connect(document_, &ClusterDocument::changed, this, [this] {
        updateStaleness();
        if (!staleChanges_.empty())
            statusLabel_->setText(tr("Cluster changed: press Run (F5) to plan again"));
        updateTitle();
    });
    // Every view colours GPU types as the canvas does: by the current cluster's types.
    auto recolourGpuTypes = [this] {
        const GpuTypeColors colours = GpuTypeColors::of(document_->cluster());
        palette_->setGpuTypeColors(colours);
        pipeline_->setGpuTypeColors(colours);
        compare_->setGpuTypeColors(colours);
    };
    connect(document_, &ClusterDocument::changed, this, recolourGpuTypes);
    recolourGpuTypes();
    connect(setupPanel_, &SetupPanel::changed, this, &MainWindow::markDirty);
    connect(objectivePanel_, &ObjectivePanel::changed, this, &MainWindow::markDirty);
    connect(document_, &ClusterDocument::changed, this, &MainWindow::updatePredictorContext);
    connect(setupPanel_, &SetupPanel::changed, this, &MainWindow::updatePredictorContext);
    connect(predictorPanel_, &PredictorPanel::changed, this, &MainWindow::markDirty);
    connect(predictorPanel_, &PredictorPanel::fileLoaded, this, &MainWindow::addRecentPredictor);
    connect(predictorPanel_, &PredictorPanel::loadFailed, this,
            [this](const QString& message) { statusLabel_->setText(message); });

    connect(session_, &ProjectSession::titleChanged, this, &QWidget::setWindowTitle);
    connect(session_, &ProjectSession::recentFilesChanged, this, &MainWindow::rebuildRecentMenu);
    connect(session_, &ProjectSession::autosaveProblemChanged, this, [this](const QString& problem) {
        // Until an autosave succeeds a crash would lose the edits: said in
        // the status bar, with the reason in its tooltip.
        autosaveWarning_->setText(problem.isEmpty() ? QString()
                                                    : tr("Autosave failed: unsaved changes are only in this window"));
        autosaveWarning_->setToolTip(problem);
        autosaveWarning_->setVisible(!problem.isEmpty());
    });

    resize(1500, 950);
    if (options_.restoreState) {
        QSettings settings;
        restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
        restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    }
    // Dock sizes apply once the window is laid out: the explanation gets a
    // third of the bottom row, the plan table the rest (a restored layout keeps its own).
    QTimer::singleShot(0, this, [this] {
        if (!QSettings().contains(QStringLiteral("window/state")) || !options_.restoreState) {
            resizeDocks({whyDock_}, {std::max(320, width() / 3)}, Qt::Horizontal);
            // Model & Setup as tall as its fields; the objective and predictor below get the rest.
            resizeDocks({setupDock_}, {setupDock_->sizeHint().height()}, Qt::Vertical);
        }
    });
    rebuildRecentMenu();
    updateTitle();
}

void MainWindow::createViews()
{
    tabs_ = new QTabWidget(this);
    tabs_->setDocumentMode(true);
    canvas_ = new ClusterCanvas(document_, this);
    pareto_ = new ParetoPlot(this);
    bars_ = new MemoryBars(this);
    pipeline_ = new PipelineView(this);
    compare_ = new ProfileComparisonView(this);
    simplex_ = new SimplexMapView(this);
    baselines_ = new BaselinesView(this);
    tabs_->addTab(canvas_, tr("Cluster"));
    tabs_->addTab(pareto_, tr("Pareto"));
    tabs_->addTab(bars_, tr("Memory per GPU"));
    tabs_->addTab(pipeline_, tr("Pipeline"));
    tabs_->addTab(compare_, tr("Profiles"));
    tabs_->addTab(simplex_, tr("Weights"));
    tabs_->addTab(baselines_, tr("Baselines"));
    staleBanner_ = new StaleBanner(this);
    noticeBanner_ = new NoticeBanner(this);
    auto* central = new QWidget(this);
    auto* centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    centralLayout->setSpacing(2);
    centralLayout->addWidget(staleBanner_);
    centralLayout->addWidget(noticeBanner_);
    centralLayout->addWidget(tabs_, 1);
    setCentralWidget(central);
    pareto_->setLogAxes(true);
}

void MainWindow::connectSearch()
{
    connect(controller_, &SearchController::started, this, &MainWindow::onSearchStarted);
    connect(controller_, &SearchController::progress, this, &MainWindow::onSearchProgress);
    connect(controller_, &SearchController::finished, this, &MainWindow::onSearchFinished);
    connect(controller_, &SearchController::failed, this, &MainWindow::onSearchFailed);
    connect(controller_, &SearchController::cancelled, this, [this] {
        progress_->setVisible(false);
        cancelButton_->setVisible(false);
        keepButton_->setVisible(false);
        runAct_->setEnabled(true);
        cancelAct_->setEnabled(false);
        statusLabel_->setText(staleChanges_.empty()
                                  ? tr("Search cancelled")
                                  : tr("Search cancelled: the results shown were computed before %1 changed")
                                        .arg(qs(RequestChanges::describe(staleChanges_))));
    });
    connect(staleBanner_, &StaleBanner::runRequested, this, &MainWindow::runSearch);
}

MainWindow::~MainWindow() = default;

void MainWindow::createActions()
{
    newAct_ = new QAction(QIcon::fromTheme(QStringLiteral("document-new")), tr("&New Project"), this);
    newAct_->setShortcut(QKeySequence::New);
    connect(newAct_, &QAction::triggered, this, &MainWindow::newProject);
    openAct_ = new QAction(QIcon::fromTheme(QStringLiteral("document-open")), tr("&Open Project..."), this);
    openAct_->setShortcut(QKeySequence::Open);
    connect(openAct_, &QAction::triggered, this, &MainWindow::openDialog);
    saveAct_ = new QAction(QIcon::fromTheme(QStringLiteral("document-save")), tr("&Save"), this);
    saveAct_->setShortcut(QKeySequence::Save);
    connect(saveAct_, &QAction::triggered, this, &MainWindow::save);
    saveAsAct_ = new QAction(tr("Save &As..."), this);
    saveAsAct_->setShortcut(QKeySequence::SaveAs);
    connect(saveAsAct_, &QAction::triggered, this, &MainWindow::saveAs);
    undoAct_ = document_->undoStack()->createUndoAction(this, tr("&Undo"));
    undoAct_->setShortcut(QKeySequence::Undo);
    redoAct_ = document_->undoStack()->createRedoAction(this, tr("&Redo"));
    redoAct_->setShortcut(QKeySequence::Redo);
    runAct_ = new QAction(QIcon::fromTheme(QStringLiteral("media-playback-start")), tr("&Run Search"), this);
    runAct_->setShortcuts({QKeySequence(Qt::Key_F5), QKeySequence(Qt::CTRL | Qt::Key_R)});
    connect(runAct_, &QAction::triggered, this, &MainWindow::runSearch);
    cancelAct_ = new QAction(QIcon::fromTheme(QStringLiteral("process-stop")), tr("&Cancel Search"), this);
    cancelAct_->setShortcut(QKeySequence(Qt::Key_Escape));
    cancelAct_->setEnabled(false);
    connect(cancelAct_, &QAction::triggered, controller_, &SearchController::cancel);
}

void MainWindow::createMenus()
{
    createFileMenu();
    createEditMenu();
    auto* search = menuBar()->addMenu(tr("&Search"));
    search->addAction(runAct_);
    search->addAction(cancelAct_);
    createViewMenu();
    auto* help = menuBar()->addMenu(tr("&Help"));
    QAction* guide = help->addAction(tr("&User Guide"), this, &MainWindow::showUserGuide);
    guide->setShortcut(QKeySequence::HelpContents);
    help->addSeparator();
    help->addAction(tr("&About MemX Workbench"), this, &MainWindow::about);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
    createToolBar();
}

void MainWindow::createFileMenu()
{
    auto* file = menuBar()->addMenu(tr("&File"));
    file->addAction(newAct_);
    file->addAction(openAct_);
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    file->addAction(saveAct_);
    file->addAction(saveAsAct_);
    file->addSeparator();
    file->addAction(tr("&Import Cluster..."), this, &MainWindow::importCluster);
    file->addAction(tr("&Export Cluster..."), this, &MainWindow::exportCluster);
    file->addSeparator();
    auto* exportMenu = file->addMenu(tr("E&xport"));
    exportMegatronAct_ = exportMenu->addAction(tr("&Megatron-LM launch scripts..."), this,
                                               [this] { exportPlanDialog(ExportTarget::Megatron); });
    exportFlagScaleAct_ = exportMenu->addAction(tr("&FlagScale config..."), this,
                                                [this] { exportPlanDialog(ExportTarget::FlagScale); });
    exportJsonAct_ = exportMenu->addAction(tr("Plan &JSON..."), this, [this] { exportPlanDialog(ExportTarget::Json); });
    for (QAction* a : {exportMegatronAct_, exportFlagScaleAct_, exportJsonAct_})
        a->setStatusTip(tr("Export the selected plan (the best one when none is selected)"));
    exportMenu->addSeparator();
    exportMenu->addAction(tr("&Plot (PNG, PDF)..."), this, &MainWindow::exportPlot);
    exportMenu->addAction(tr("&Candidates (CSV)..."), this, &MainWindow::exportCandidates);
    updateExportActions();
    file->addSeparator();
    auto* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
}

void MainWindow::createEditMenu()
{
    auto* edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(undoAct_);
    edit->addAction(redoAct_);
    edit->addSeparator();
    auto paletteType = [this] {
        auto* item = palette_->currentItem();
        return item ? item->data(GpuPalette::TypeNameRole).toString() : QStringLiteral("A100-80GB");
    };
    auto* addNode = edit->addAction(tr("Add &Node"), this, [this, paletteType] {
        // A new node needs a link to every other node to be a valid cluster;
        // the canvas adds InfiniBand links in the same undo step and says so.
        if (canvas_->addNode(paletteType()))
            canvas_->fitAll();
    });
    addNode->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_N));
    addNode->setToolTip(tr("Add a node of 8 GPUs of the type selected in the palette, with its fabric"));
    auto* templates = edit->addMenu(tr("Add Node From &Template"));
    QList<QAction*> templateActions;
    for (NodeTemplate::Kind kind : {NodeTemplate::Kind::Fabric, NodeTemplate::Kind::PciePairs}) {
        auto* act = templates->addAction(NodeTemplate::menuText(kind, paletteType()), this, [this, kind, paletteType] {
            if (canvas_->addNode(paletteType(), kind))
                canvas_->fitAll();
        });
        templateActions << act;
    }
    // The templates are for the palette's type: name it in the menu.
    auto retitle = [paletteType, templateActions] {
        templateActions[0]->setText(NodeTemplate::menuText(NodeTemplate::Kind::Fabric, paletteType()));
        templateActions[1]->setText(NodeTemplate::menuText(NodeTemplate::Kind::PciePairs, paletteType()));
    };
    connect(templates, &QMenu::aboutToShow, this, retitle);
    connect(palette_, &QListWidget::currentItemChanged, this, retitle);
    canvas_->setContextActions(templateActions);
    auto* del = edit->addAction(tr("&Delete Selection"), this, [this] {
        QString error;
        if (!canvas_->deleteSelection(&error) && !error.isEmpty())
            statusLabel_->setText(tr("Cannot delete: %1").arg(error));
    });
    del->setShortcut(QKeySequence::Delete);
    del->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    canvas_->addAction(del);
    // The action names what it removes: a node with its links reads as one.
    auto retitleDelete = [this, del] {
        const QString text = canvas_->deleteText();
        del->setText(text.isEmpty() ? tr("&Delete Selection") : text);
    };
    connect(edit, &QMenu::aboutToShow, this, retitleDelete);
    connect(canvas_, &ClusterCanvas::selectionChanged, this, retitleDelete);
    edit->addAction(tr("&Fit Cluster in View"), canvas_, &ClusterCanvas::fitAll);
}

void MainWindow::createViewMenu()
{
    auto* view = menuBar()->addMenu(tr("&View"));
    auto* variance = view->addAction(tr("Plot Against Memory &Variance"));
    auto* peak = view->addAction(tr("Plot Against &Peak Memory"));
    variance->setCheckable(true);
    peak->setCheckable(true);
    variance->setChecked(true);
    auto* group = new QActionGroup(this);
    group->addAction(variance);
    group->addAction(peak);
    connect(variance, &QAction::triggered, this, [this] { pareto_->setYAxis(ParetoPlot::YAxis::Variance); });
    connect(peak, &QAction::triggered, this, [this] { pareto_->setYAxis(ParetoPlot::YAxis::PeakMemory); });
    auto* logAxes = view->addAction(tr("&Logarithmic Axes"));
    logAxes->setCheckable(true);
    logAxes->setChecked(true);  // variance spans decades: the front is unreadable on linear axes
    connect(logAxes, &QAction::toggled, this, [this](bool on) { pareto_->setLogAxes(on); });
    view->addAction(tr("&Reset Plot View"), this, [this] { pareto_->resetView(); });
    view->addSeparator();
    for (auto* dock : findChildren<QDockWidget*>()) {
        // A menu reads '&' as the mnemonic mark: "Model & Setup" showed as
        // "Model _Setup". The title's '&' is a character here.
        QAction* toggle = dock->toggleViewAction();
        toggle->setText(dock->windowTitle().replace(QLatin1Char('&'), QLatin1String("&&")));
        view->addAction(toggle);
    }
}

void MainWindow::createToolBar()
{
    auto* tools = addToolBar(tr("Main"));
    tools->setObjectName(QStringLiteral("mainToolBar"));
    tools->addAction(newAct_);
    tools->addAction(openAct_);
    tools->addAction(saveAct_);
    tools->addSeparator();
    // The toolbar's Undo and Redo keep a short fixed label (the Edit menu's full
    // "Undo Rename node ..." is their tooltip) so the buttons after them never shift.
    auto fixedLabel = [tools](QAction* full, const QString& label) {
        auto* a = tools->addAction(full->icon(), label);
        auto sync = [a, full] {
            a->setEnabled(full->isEnabled());
            a->setToolTip(QString(full->text()).remove(QLatin1Char('&')));
        };
        sync();
        connect(full, &QAction::changed, a, sync);
        connect(a, &QAction::triggered, full, &QAction::trigger);
    };
    fixedLabel(undoAct_, tr("Undo"));
    fixedLabel(redoAct_, tr("Redo"));
    tools->addSeparator();
    tools->addAction(runAct_);
    tools->addAction(cancelAct_);
}

QDockWidget* MainWindow::dock(QWidget* w, const QString& title, const char* name, Qt::DockWidgetArea area)
{
    auto* d = new QDockWidget(title, this);
    d->setObjectName(QString::fromLatin1(name));
    d->setWidget(w);
    addDockWidget(area, d);
    return d;
}

// A panel that scrolls rather than squeezes its fields, or makes the window
// taller than the screen, when short of room. `minimumWidth` > 0: up and down
// only, at least that wide beside its scroll bar.
QScrollArea* MainWindow::scrolling(QWidget* panel, int minimumWidth)
{
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(panel);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    if (minimumWidth > 0) {
        scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        scroll->setMinimumWidth(minimumWidth + style()->pixelMetric(QStyle::PM_ScrollBarExtent));
    }
    return scroll;
}

void MainWindow::createDocks()
{
    palette_ = new GpuPalette(this);
    properties_ = new PropertyPanel(document_, this);
    setupPanel_ = new SetupPanel(this);
    objectivePanel_ = new ObjectivePanel(this);
    predictorPanel_ = new PredictorPanel(this);
    predictorPanel_->setRecentFiles(QSettings().value(QLatin1String(kRecentPredictorsKey)).toStringList());
    dock(palette_, tr("GPU Types"), "gpuTypesDock", Qt::LeftDockWidgetArea);
    // In a scroll area: a long form with a refusal under it scrolls rather
    // than squashing its fields; as wide as the panel's forms, so that the
    // dock keeps one width whatever is selected.
    auto* propertiesDock = dock(scrolling(properties_, properties_->minimumWidth()), tr("Properties"), "propertiesDock",
                                Qt::LeftDockWidgetArea);
    // What-if bandwidth shares the Properties place: both are about the cluster.
    // The network sliders and, below them, node loss: two what-ifs of the
    // last search's cluster.
    auto* whatIfBox = new QWidget(this);
    auto* whatIfLayout = new QVBoxLayout(whatIfBox);
    whatIf_ = new BandwidthWhatIfPanel(whatIfBox);
    nodeLoss_ = new NodeLossPanel(whatIfBox);
    nodeChoice_ = new NodeChoicePanel(whatIfBox);
    whatIfLayout->addWidget(whatIf_, 1);
    whatIfLayout->addWidget(nodeLoss_, 1);
    whatIfLayout->addWidget(nodeChoice_, 1);
    auto* whatIfScroll = scrolling(whatIfBox);
    whatIfScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    whatIfScroll->setMinimumWidth(250);  // room for a slider beside each kind's name
    whatIfDock_ = dock(whatIfScroll, tr("What-if Network"), "whatIfDock", Qt::LeftDockWidgetArea);
    auto* whatIfDock = whatIfDock_;
    tabifyDockWidget(propertiesDock, whatIfDock);
    propertiesDock->raise();
    connect(whatIf_, &BandwidthWhatIfPanel::scalesChanged, this, &MainWindow::runWhatIf);
    connect(whatIf_, &BandwidthWhatIfPanel::planActivated, this, &MainWindow::selectPlan);
    connect(nodeLoss_, &NodeLossPanel::replanRequested, this, &MainWindow::runNodeLoss);
    connect(nodeLoss_, &NodeLossPanel::planActivated, this, &MainWindow::selectPlan);
    connect(nodeChoice_, &NodeChoicePanel::compareRequested, this, &MainWindow::runNodeChoice);
    createScoringDocks();
    connect(canvas_, &ClusterCanvas::selectionChanged, properties_, &PropertyPanel::setSelection);
    connect(canvas_, &ClusterCanvas::editRefused, this,
            [this](const QString& reason) { statusLabel_->setText(tr("Edit refused: %1").arg(reason)); });
    connect(canvas_, &ClusterCanvas::feedback, this,
            [this](const QString& message) { statusLabel_->setText(message); });
    createPlanDocks();
}

// Model & Setup; below it the objective and the predictor, sharing a place
// (both say how plans are scored).
void MainWindow::createScoringDocks()
{
    setupDock_ = dock(setupPanel_, tr("Model & Setup"), "setupDock", Qt::RightDockWidgetArea);
    auto* objectiveDock = dock(scrolling(objectivePanel_, objectivePanel_->minimumSizeHint().width()), tr("Objective"),
                               "objectiveDock", Qt::RightDockWidgetArea);
    predictorDock_ = dock(scrolling(predictorPanel_), tr("Predictor"), "predictorDock", Qt::RightDockWidgetArea);
    tabifyDockWidget(objectiveDock, predictorDock_);
    objectiveDock->raise();
}

// The Plans table and, beside it, why the selected plan and why no plan of a shape.
void MainWindow::createPlanDocks()
{
    auto* tableBox = new QWidget(this);
    auto* layout = new QVBoxLayout(tableBox);
    layout->setContentsMargins(0, 0, 0, 0);
    planFilter_ = new QLineEdit(tableBox);
    planFilter_->setPlaceholderText(tr("Filter plans (group, layers, recomputation, GPU type)..."));
    planFilter_->setClearButtonEnabled(true);
    planModel_ = new PlanTableModel(this);
    planProxy_ = new PlanFilterProxy(this);
    planProxy_->setSourceModel(planModel_);
    planTable_ = new QTableView(tableBox);
    planTable_->setObjectName(QStringLiteral("planTable"));
    planTable_->setModel(planProxy_);
    planTable_->setSortingEnabled(true);
    planTable_->setSelectionBehavior(QAbstractItemView::SelectRows);
    planTable_->setSelectionMode(QAbstractItemView::SingleSelection);
    planTable_->horizontalHeader()->setStretchLastSection(true);
    // Column widths from the first rows (and the visible ones), not all 200.
    planTable_->horizontalHeader()->setResizeContentsPrecision(40);
    planTable_->verticalHeader()->setVisible(false);
    planTable_->verticalHeader()->setDefaultSectionSize(planTable_->fontMetrics().height() + 6);
    // Before any result: columns as wide as their titles, not 100 px each
    // (a reopened project showed "#", "TP" and "PP" across the whole dock).
    planTable_->resizeColumnsToContents();
    layout->addWidget(planFilter_);
    layout->addWidget(planTable_);
    connect(planFilter_, &QLineEdit::textChanged, planProxy_, &PlanFilterProxy::setFilterText);
    connect(planTable_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (!current.isValid())
                    return;
                quint64 key = current.data(PlanTableModel::PlanKeyRole).toULongLong();
                if (key != selectedKey_)
                    selectPlan(key);
            });
    auto* plansDock = dock(tableBox, tr("Plans"), "plansDock", Qt::BottomDockWidgetArea);
    // The setup and objective docks take the right column's full height, so the
    // Plans dock below the canvas can show ten rows (the right column's panels
    // above it would otherwise squeeze it to one or two).
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    const int tenRows = 10 * planTable_->verticalHeader()->defaultSectionSize()
        + planTable_->horizontalHeader()->sizeHint().height() + style()->pixelMetric(QStyle::PM_ScrollBarExtent)
        + 2 * planTable_->frameWidth() + planFilter_->sizeHint().height() + layout->spacing()
        + plansDock->sizeHint().height() - tableBox->sizeHint().height();  // title bar
    resizeDocks({plansDock}, {tenRows}, Qt::Vertical);

    // Why this plan? Beside the table: what Phi weighs and how the selected
    // plan compares with the fastest one (PlanExplanation).
    whyLabel_ = new QLabel(this);
    whyLabel_->setObjectName(QStringLiteral("whyThisPlan"));
    whyLabel_->setWordWrap(true);
    whyLabel_->setTextFormat(Qt::RichText);
    whyLabel_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    whyLabel_->setMargin(6);
    whyLabel_->setText(tr("Run a search (F5); the selected plan is explained here."));
    auto* whyScroll = scrolling(whyLabel_);
    // Below it: why no plan has a shape the user expected (issue #35 item 7).
    whyNot_ = new WhyNotShapePanel(this);
    auto* whyBox = new QWidget(this);
    auto* whyLayout = new QVBoxLayout(whyBox);
    whyLayout->setContentsMargins(0, 0, 0, 0);
    whyLayout->addWidget(whyScroll, 1);
    whyLayout->addWidget(whyNot_);
    whyDock_ = dock(whyBox, tr("Why this plan?"), "whyDock", Qt::BottomDockWidgetArea);
    splitDockWidget(plansDock, whyDock_, Qt::Horizontal);
}

void MainWindow::createStatusBar()
{
    // Long status and plan lines elide rather than widen the window.
    statusLabel_ = new ElidedLabel(tr("Ready"), this);
    statusLabel_->setObjectName(QStringLiteral("statusLabel"));
    progress_ = new QProgressBar(this);
    progress_->setRange(0, 1000);
    progress_->setMaximumWidth(260);
    progress_->setVisible(false);
    cancelButton_ = new QPushButton(tr("Cancel"), this);
    cancelButton_->setVisible(false);
    connect(cancelButton_, &QPushButton::clicked, controller_, &SearchController::cancel);
    keepButton_ = new QPushButton(tr("Stop, Keep Best"), this);
    keepButton_->setObjectName(QStringLiteral("stopKeepBest"));
    keepButton_->setToolTip(tr("End the search now and show the best plans found so far, marked incomplete"));
    keepButton_->setVisible(false);
    connect(keepButton_, &QPushButton::clicked, controller_, &SearchController::stopEarly);
    planInfo_ = new ElidedLabel(QString(), this);
    planInfo_->setObjectName(QStringLiteral("planInfo"));
    planInfo_->setToolTip(tr("Selected plan: predictor provenance and relative uncertainty of its time and memory"));
    autosaveWarning_ = new QLabel(this);
    autosaveWarning_->setObjectName(QStringLiteral("autosaveWarning"));
    autosaveWarning_->setStyleSheet(QStringLiteral("QLabel { color: #d9534f; font-weight: bold; }"));
    autosaveWarning_->setVisible(false);
    statusBar()->addWidget(statusLabel_, 1);
    statusBar()->addPermanentWidget(autosaveWarning_);
    statusBar()->addPermanentWidget(planInfo_);
    statusBar()->addPermanentWidget(progress_);
    statusBar()->addPermanentWidget(keepButton_);
    statusBar()->addPermanentWidget(cancelButton_);
}

// ---- project ----

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
    ExportOutcome out;
    out.message = exportRefusal();
    if (!out.message.isEmpty())
        return out;
    const SearchResult* r = result();
    const Plan* plan = planByKey(selectedKey_);
    if (!plan)
        plan = &r->best.front();
    if (destination.isEmpty()) {
        out.message = tr("No destination given.");
        return out;
    }
    // The plan goes through its memx-plan/2 document and back, exactly as
    // `memx-cli export --plan` reads it, so both front ends write the same files.
    const SearchRequest& req = controller_->lastRequest();
    const std::string source
        = session_->file().isEmpty() ? std::string("unsaved-project.memx") : session_->file().toStdString();
    const std::string predictor = predictorLabel(req.predictor, r->predictorName).toStdString();
    const memx::ExportTarget coreTarget = target == ExportTarget::Megatron ? memx::ExportTarget::Megatron
        : target == ExportTarget::FlagScale                                ? memx::ExportTarget::FlagScale
                                                                           : memx::ExportTarget::Json;
    try {
        PlanDocument doc = PlanJsonReader::fromJson(PlanJson::planDocument(req.problem, predictor, *plan), source);
        doc.origin = originOfResult().toStdString();
        doc.incomplete = r->incomplete;
        const std::vector<ExportedFile> files = PlanExport::files(doc, coreTarget, destination.toStdString());
        if (target == ExportTarget::Json) {
            writeFileAtomically(destination.toStdString(), files.front().content);  // the user named the file
            out.files << QFileInfo(destination).absoluteFilePath();
        } else {
            ExportFolder::write(destination.toStdString(), files);
            const QDir dir(destination);
            for (const ExportedFile& f : files)
                out.files << dir.absoluteFilePath(qs(f.name));
        }
    } catch (const InputError& e) {
        const QString what = target == ExportTarget::FlagScale ? tr("FlagScale cannot run this plan")
            : target == ExportTarget::Megatron                 ? tr("Megatron-LM cannot run this plan")
                                                               : tr("Cannot export the plan");
        out.message = QStringLiteral("%1: %2").arg(what, qs(e.reason()));
        return out;
    } catch (const std::exception& e) {
        out.message = tr("Cannot export the plan: %1").arg(QString::fromUtf8(e.what()));
        return out;
    }
    out.ok = true;
    QStringList names;
    for (const QString& f : out.files)
        names << QFileInfo(f).fileName();
    out.message
        = tr("Exported the plan (%1 ms per iteration, %2 predictor) to %3: %4")
              .arg(plan->iterationMs, 0, 'f', 1)
              .arg(qs(predictor),
                   QDir::toNativeSeparators(target == ExportTarget::Json ? QFileInfo(destination).absolutePath()
                                                                         : QFileInfo(destination).absoluteFilePath()),
                   names.join(QStringLiteral(", ")));
    return out;
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

Problem MainWindow::currentProblem() const
{
    if (document_->isEmpty())
        throw std::runtime_error(tr("the cluster has no GPUs: add a node").toStdString());
    return Problem{document_->cluster(), setupPanel_->model(), setupPanel_->setup()};
}

QString MainWindow::originOfResult() const
{
    const QString project = session_->file().isEmpty() ? tr("an unsaved project")
                                                       : tr("project %1").arg(QFileInfo(session_->file()).fileName());
    return tr("%1 as it was when searched on %2%3 (cluster %4, model %5)")
        .arg(project, resultTime_.toString(Qt::ISODate),
             resultHadUnsavedChanges_ ? tr(", with unsaved changes") : QString(),
             qs(controller_->lastRequest().problem.cluster.name()), qs(controller_->lastRequest().problem.model.name));
}

const std::vector<Plan>* MainWindow::rankingFor(const ObjectiveSpec& objective) const
{
    if (!controller_->hasResult())
        return nullptr;
    const SearchRequest& last = controller_->lastRequest();
    const SearchResult& r = controller_->lastResult();
    // Only the profile (and custom weights) may differ.
    ObjectiveSpec a = last.objective, b = objective;
    a.profile = b.profile;
    a.custom = b.custom;
    if (!(a == b))
        return nullptr;
    auto sameWeights = [&](const Weights& w) {
        if (objective.profile != WeightProfile::Custom)
            return true;
        try {
            return Objective::normalised(objective.custom) == w;
        } catch (const std::exception&) {
            return false;
        }
    };
    if (objective.profile == last.objective.profile && objective.custom == last.objective.custom)
        return &r.best;
    if (objective.profile == r.profileUsed && objective.profile != WeightProfile::Custom)
        return &r.best;
    for (const auto& pb : r.profilePicks)
        if (pb.kind == objective.profile && !pb.ranking.empty() && sameWeights(pb.weights))
            return &pb.ranking;
    // The balanced pick is the knee of the result's time-variance front: no
    // new search needed (the walk saw it reported as an objective change).
    if (objective.profile == WeightProfile::Balanced && !kneeRanking_.empty())
        return &kneeRanking_;
    return nullptr;
}

void MainWindow::showRanking(const ObjectiveSpec& objective)
{
    const std::vector<Plan>* ranking = rankingFor(objective);
    if (!ranking || ranking == tableRanking_)
        return;
    tableRanking_ = ranking;
    planModel_->setPlans(*ranking, controller_->lastResult().varianceMode);
    planTable_->sortByColumn(0, Qt::AscendingOrder);
    if (!ranking->empty())
        selectPlan(ranking->front().key);
    statusLabel_->setText(tr("Plans ranked under %1 (from the last search)").arg(qs(toString(objective.profile))));
}

void MainWindow::updateStaleness()
{
    std::vector<std::string> changes;
    if (controller_->hasResult()) {
        SearchRequest now;
        try {
            now.problem = currentProblem();
            now.objective = objectivePanel_->objective();
            now.predictor = predictorPanel_->predictor();
            changes = RequestChanges::between(controller_->lastRequest(), now);
            // Another weight profile the search also ranked is not a stale
            // result: the table follows it.
            // Nor is it a change beside another: the banner names only what
            // the result does not cover.
            if (std::ranges::find(changes, "objective") != changes.end() && rankingFor(now.objective)) {
                std::erase(changes, "objective");
                if (changes.empty())
                    showRanking(now.objective);
            }
        } catch (const std::exception&) {
            // The panels hold something that cannot even be searched: an
            // emptied cluster, or a setup a panel refuses.
            changes = {document_->isEmpty() ? "cluster" : "setup"};
        }
    }
    staleChanges_ = changes;
    staleBanner_->setChanges(changes);
    // Dimmed, not hidden: a user may still compare with what they had.
    for (QWidget* view :
         std::initializer_list<QWidget*>{pareto_, bars_, pipeline_, compare_, simplex_, baselines_, planTable_}) {
        StaleOverlay* veil = StaleOverlay::of(view);
        if (!veil)
            veil = new StaleOverlay(view);
        veil->setStale(!changes.empty());
    }
}

void MainWindow::updatePredictorContext()
{
    try {
        predictorPanel_->setContext(currentProblem());
    } catch (const std::exception&) {
        // An invalid setup is reported by its own panel; the fit is checked again at Run.
    }
}

void MainWindow::addRecentPredictor(const QString& file)
{
    QSettings settings;
    QStringList files = settings.value(QLatin1String(kRecentPredictorsKey)).toStringList();
    files.removeAll(file);
    files.prepend(file);
    while (files.size() > kMaxRecentPredictors)
        files.removeLast();
    settings.setValue(QLatin1String(kRecentPredictorsKey), files);
    predictorPanel_->setRecentFiles(files);
}

void MainWindow::about()
{
    QMessageBox::about(this, tr("About MemX Workbench"),
                       tr("<h3>MemX Workbench %1</h3>"
                          "<p>Memory-aware parallelism planning for LLM training on heterogeneous GPU clusters, "
                          "after MemX (Meng, Sun, Zhu; arXiv 2610.41525).</p>"
                          "<p>Qt %2<br>QCustomPlot %3<br>XGBoost %4<br>nlohmann/json %5</p>")
                           .arg(QStringLiteral(MEMX_VERSION), QString::fromLatin1(qVersion()),
                                QStringLiteral(QCUSTOMPLOT_VERSION_STR), qs(LibraryVersions::xgboost()),
                                qs(LibraryVersions::nlohmannJson())));
}

// ---- search ----

void MainWindow::runSearch()
{
    // A field holding a refused value never reaches the search (it would run
    // with the field's last valid value and show that as current).
    if (!setupPanel_->isValid()) {
        const QString why = setupPanel_->errorText();
        statusLabel_->setText(
            tr("Search refused: %1").arg(QString(why).replace(QLatin1Char('\n'), QStringLiteral("; "))));
        setupDock_->show();
        setupDock_->raise();
        setupPanel_->focusFirstInvalid();
        emit searchRefused(why);
        return;
    }
    SearchRequest req;
    try {
        req.problem = currentProblem();
        req.objective = objectivePanel_->objective();
    } catch (const std::exception& e) {
        statusLabel_->setText(tr("Cannot search: %1").arg(QString::fromUtf8(e.what())));
        return;
    }
    predictorPanel_->setContext(req.problem);
    const QString refusal = predictorPanel_->refusal();
    if (!refusal.isEmpty()) {
        statusLabel_->setText(tr("Search refused: %1").arg(refusal));
        predictorDock_->show();
        predictorDock_->raise();
        emit searchRefused(refusal);
        return;
    }
    req.predictor = predictorPanel_->predictor();
    searchPredictor_ = req.predictor;
    searchPredictorFile_ = req.predictor ? predictorPanel_->filePath() : QString();
    req.compareProfiles
        = {WeightProfile::Default, WeightProfile::SafetyFirst, WeightProfile::ThroughputFirst, WeightProfile::Custom};
    req.options.topK = 200;
    req.options.compareTopK = 20;  // the Plans table of each compared profile
    req.options.baselines = true;  // the Baselines tab (a few per cent of the count pass)
    if (jobs_->running(Job::WhatIf) > 0)
        controller_->detachStore();  // a what-if still reads the store: the search writes into a copy
    controller_->start(std::move(req));
}

void MainWindow::onSearchStarted()
{
    ++showGeneration_;  // a result still being shown step by step is superseded
    pareto_->clear();
    progress_->setValue(0);
    progress_->setVisible(true);
    cancelButton_->setVisible(true);
    keepButton_->setVisible(true);
    runAct_->setEnabled(true);  // running again restarts
    cancelAct_->setEnabled(true);
    const QStringList warnings
        = predictorPanel_->choice() == PredictorPanel::Choice::Learned ? predictorPanel_->warnings() : QStringList();
    statusLabel_->setText(warnings.isEmpty() ? tr("Searching...")
                                             : tr("Searching with the learned predictor (extrapolating: %1)...")
                                                   .arg(warnings.join(QStringLiteral("; "))));
}

void MainWindow::onSearchProgress(const SearchProgress& p)
{
    progress_->setValue(p.permille);
    // An estimate under a second while the search still runs says nothing
    // true (the last phase's share is a guess): "finishing" instead of a
    // "0.0 s left" that can stand for seconds.
    const QString left = p.remainingS < 0 ? tr(", estimating time left…")
        : p.remainingS < 1                ? tr(", finishing…")
                           : tr(", about %1 s left").arg(p.remainingS, 0, 'f', p.remainingS < 10 ? 1 : 0);
    statusLabel_->setText(tr("Phase %1: explored %2, pruned %3, feasible %4%5")
                              .arg(p.phase)
                              .arg(CountText::compact(static_cast<std::uint64_t>(p.explored)),
                                   CountText::compact(static_cast<std::uint64_t>(p.pruned)),
                                   CountText::compact(static_cast<std::uint64_t>(p.feasible)), left));
    statusLabel_->setToolTip(
        tr("Explored %1, pruned %2, feasible %3 (exact; explored and pruned depend on how the "
           "threads shared the work)")
            .arg(CountText::exact(p.explored), CountText::exact(p.pruned), CountText::exact(p.feasible)));
    if (!p.liveFront.empty())
        pareto_->setLiveFront(p.liveFront);
}

// The sliders of the What-if Network panel moved: re-time the last search's
// kept plans on the scaled network, off the GUI thread, reading the search's
// prediction store (a search started meanwhile writes into a copy of it).
void MainWindow::runWhatIf()
{
    jobs_->drop(Job::WhatIf);
    if (!controller_->hasResult() || controller_->lastResult().best.empty())
        return;
    if (controller_->isRunning()) {
        BandwidthWhatIf::Result busy;
        busy.error = tr("A search is running: move the slider again when it has finished.").toStdString();
        whatIf_->setOutcome(busy, controller_->lastResult().best.front());
        return;
    }
    SearchRequest request = controller_->lastRequest();
    request.options.stopEarly = {};
    const std::shared_ptr<const SearchResult> result = controller_->lastResultShared();
    BandwidthScenario scenario;
    scenario.name = "the sliders";
    scenario.segments.push_back({0, 1, whatIf_->scales()});
    whatIf_->setBusy();
    jobs_->start(
        Job::WhatIf,
        [request = std::move(request), result, scenario](const JobTracker::Ticket&) {
            BandwidthWhatIf::Options o;
            o.robust = BandwidthWhatIf::Robust::Worst;  // one scenario: its time
            o.topK = 8;
            o.replan = false;  // the kept plans only: fast enough to follow a slider
            // The same call as memx-cli's follow-ups (SearchReport).
            SearchFollowUps asked;
            asked.scenarios = {scenario};
            asked.whatIf = o;
            return SearchReport::of(request, *result, asked).whatIf.value_or(BandwidthWhatIf::Result{});
        },
        [this, result](const BandwidthWhatIf::Result& out) { whatIf_->setOutcome(out, result->best.front()); });
}

// "Re-plan without each node": one search per scenario (replanOffThread).
void MainWindow::runNodeLoss()
{
    jobs_->drop(Job::NodeLoss);
    if (!controller_->hasResult() || controller_->lastResult().best.empty())
        return;
    const NodeLossWhatIf::Options options = nodeLoss_->options();
    nodeLoss_->setBusy();
    replanOffThread(
        *jobs_, Job::NodeLoss, *controller_,
        [options](const SearchRequest& r, const SearchResult& res) {
            SearchFollowUps asked;
            asked.nodeLoss = true;
            asked.nodeLossOptions = options;
            return SearchReport::of(r, res, asked).nodeLoss.value_or(NodeLossWhatIf::Result{});
        },
        [this](const NodeLossWhatIf::Result& out) { nodeLoss_->setOutcome(out); });
}

void MainWindow::runNodeChoice()
{
    jobs_->drop(Job::NodeChoice);
    if (!controller_->hasResult() || controller_->lastResult().best.empty())
        return;
    const NodeChoice::Options options = nodeChoice_->options();
    nodeChoice_->setBusy();
    replanOffThread(
        *jobs_, Job::NodeChoice, *controller_,
        [options](const SearchRequest& r, const SearchResult& res) {
            SearchFollowUps asked;
            asked.chooseNodes = true;
            asked.choice = options;
            return SearchReport::of(r, res, asked).choice.value_or(NodeChoice::Result{});
        },
        [this](const NodeChoice::Result& out) { nodeChoice_->setOutcome(out); });
}

void MainWindow::onSearchFinished()
{
    const SearchResult& r = controller_->lastResult();
    progress_->setVisible(false);
    cancelButton_->setVisible(false);
    keepButton_->setVisible(false);
    cancelAct_->setEnabled(false);
    tableRanking_ = nullptr;  // pointed into the previous result
    kneeRanking_ = KneeRanking::of(r, controller_->lastRequest().options.topK).plans;
    updateStaleness();  // current, unless the panels were edited while it ran
    resultTime_ = QDateTime::currentDateTime();
    resultHadUnsavedChanges_ = isDirty();
    pareto_->setResult(controller_->lastResultShared());
    compare_->setResult(r, &controller_->lastRequest().problem.cluster);
    baselines_->setResult(r, controller_->lastRequest().problem.cluster);
    jobs_->dropFollowUps();  // a re-ranking or map of the previous result is no longer wanted
    startSimplex();
    // Why-not answers are about the problem of this search, whatever it found
    // (a search without any plan is where they matter most).
    if (r.error.empty() || !r.invalidRequest) {
        const Plan* shape = r.best.empty() ? nullptr : &r.best.front();
        whyNot_->setProblem(controller_->lastRequest().problem, controller_->lastRequest().predictor,
                            shape ? shape->tp : 1, shape ? shape->pp : 1, shape ? shape->dp : 1);
    }
    if (r.best.empty()) {
        whatIf_->clear();
        nodeLoss_->clear();
        nodeChoice_->clear();
    } else {
        whatIf_->setCluster(controller_->lastRequest().problem.cluster);
        nodeLoss_->setReady();
        nodeChoice_->setReady();
    }
    if (r.profileRequested == WeightProfile::Auto)
        objectivePanel_->setAutoExplanation(
            tr("auto chose %1: %2").arg(qs(toString(r.profileUsed)), qs(r.profileReason)));
    else
        objectivePanel_->setAutoExplanation(QString());
    if (!r.best.empty())
        lastResultSummary_ = {{"best", PlanJson::plan(r.best.front())},
                              {"feasible", r.stats.feasible},
                              {"profile_used", toString(r.profileUsed)},
                              {"predictor", r.predictorName}};
    showFinishedLine(r);
    showNotices(r);
    updateExportActions();
    showResultSteps();
}

// Feasible plans are counted, not visited: the search composes only the ones
// its bounds cannot rule out.
void MainWindow::showFinishedLine(const SearchResult& r)
{
    if (!r.incomplete.empty())
        statusLabel_->setText(tr("Incomplete: the best plans found so far, not necessarily the best of the space (%1)")
                                  .arg(qs(r.incomplete)));
    else if (r.stats.feasible == std::numeric_limits<std::uint64_t>::max())  // saturated: no rate to tell
        statusLabel_->setText(tr("more than 1.8e19 feasible plans covered, %1 composed, in %2 s (%3 predictor)")
                                  .arg(CountText::compact(static_cast<std::uint64_t>(r.stats.explored)))
                                  .arg(r.stats.wallS, 0, 'f', 2)
                                  .arg(predictorLabel(controller_->lastRequest().predictor, r.predictorName)));
    else
        statusLabel_->setText(tr("%1 feasible plans covered, %2 composed, in %3 s (%4 predictor, %5 candidates/s)")
                                  .arg(CountText::compact(static_cast<std::uint64_t>(r.stats.feasible)),
                                       CountText::compact(static_cast<std::uint64_t>(r.stats.explored)))
                                  .arg(r.stats.wallS, 0, 'f', 2)
                                  .arg(predictorLabel(controller_->lastRequest().predictor, r.predictorName),
                                       CountText::compact(r.stats.candidatesPerS)));
    // The exact counts, and which of them a second run of the same search
    // reproduces: the feasible count is counted, the composed one depends on
    // the order the threads met the plans.
    statusLabel_->setToolTip(tr("%1 feasible plans (exact, the same on every run of this search); %2 composed while "
                                "exploring (varies with thread timing from run to run)")
                                 .arg(CountText::exact(r.stats.feasible), CountText::exact(r.stats.explored)));
}

void MainWindow::showNotices(const SearchResult& r)
{
    // A search stopped early (Stop, Keep Best, or its time limit) says so in
    // the strip above the views, not only in a status line that elides: its
    // plans are the best found, not necessarily the best there are.
    QStringList notices;
    if (!r.incomplete.empty())
        notices << tr("Incomplete search: these are the best plans found before it stopped (%1), not necessarily the "
                      "best of the space. Run the search again (F5) to search it to the end.")
                       .arg(qs(r.incomplete));
    if (!r.spaceCut.empty())
        notices << tr("Part of the space: %1. These are the best plans of the part searched. Narrow the search (TP, "
                      "micro-batch sizes, pipeline depth, or uniform meshes) to search all of it.")
                       .arg(qs(r.spaceCut));
    // Valid but likely not meant (a global batch that makes hours per iteration).
    if (!r.best.empty())
        for (const auto& n : PlanPlausibility::warnings(controller_->lastRequest().problem, r.best.front()))
            notices << qs(n);
    noticeBanner_->setNotices(notices);
}

void MainWindow::showResultSteps()
{
    // The plan table and the chosen plan's views follow on later turns of the
    // event loop, each after the previous one has been drawn, so that no turn
    // holds the GUI thread long: a 128-GPU result redraws a plot of thousands
    // of plans, 200 table rows and per-GPU bars (bench_gui_stall measures the
    // longest gap; docs/SCALING.md). A newer result or search drops the steps.
    const quint64 generation = ++showGeneration_;
    QTimer::singleShot(0, this, [this, generation] {
        if (generation != showGeneration_)
            return;
        const SearchResult& res = controller_->lastResult();
        // The requested profile's ranking, or the one the objective was
        // switched to while the search ran (when the search ranked it).
        const std::vector<Plan>* ranking = rankingFor(objectivePanel_->objective());
        tableRanking_ = ranking ? ranking : &res.best;
        planModel_->setPlans(*tableRanking_, res.varianceMode);
        planTable_->sortByColumn(0, Qt::AscendingOrder);
        planTable_->resizeColumnsToContents();
        QTimer::singleShot(0, this, [this, generation] {
            if (generation != showGeneration_)
                return;
            if (!shownFirstResult_) {
                shownFirstResult_ = true;
                tabs_->setCurrentWidget(pareto_);  // a new user sees the plan space first
            }
            if (tableRanking_ && !tableRanking_->empty())
                selectPlan(tableRanking_->front().key);
            announceWhenSettled(generation);
        });
    });
}

void MainWindow::onSearchFailed(const QString& reason)
{
    ++showGeneration_;
    progress_->setVisible(false);
    cancelButton_->setVisible(false);
    keepButton_->setVisible(false);
    cancelAct_->setEnabled(false);
    statusLabel_->setText(tr("No feasible plan: %1").arg(reason));
    pareto_->clear();
    bars_->clear();
    pipeline_->clear();
    simplex_->clear();
    baselines_->clear();
    jobs_->dropFollowUps();
    whatIf_->clear();
    nodeLoss_->clear();
    nodeChoice_->clear();
    planInfo_->clear();
    whyLabel_->setText(tr("Run a search (F5); the selected plan is explained here."));
    whyNot_->clear();
    tableRanking_ = nullptr;
    planModel_->setPlans({}, objectivePanel_->objective().variance);
    updateExportActions();
}

const SearchResult* MainWindow::result() const
{
    return controller_->hasResult() ? &controller_->lastResult() : nullptr;
}

const Plan* MainWindow::planByKey(quint64 key) const
{
    const SearchResult* r = result();
    if (!r || key == 0)
        return nullptr;
    for (const auto* list : {&r->best, &r->fastest, &r->plotSample})
        for (const auto& p : *list)
            if (p.key == key)
                return &p;
    for (const auto& pb : r->profilePicks) {
        if (pb.plan.key == key)
            return &pb.plan;
        for (const auto& p : pb.ranking)
            if (p.key == key)
                return &p;
    }
    for (const auto* front : {&r->paretoTimeVariance, &r->paretoTimeMemory})
        for (const auto& pt : front->points())
            if (pt.plan.key == key)
                return &pt.plan;
    return nullptr;
}

void MainWindow::selectPlan(quint64 key)
{
    const Plan* plan = planByKey(key);
    if (!plan)
        return;
    selectedKey_ = key;
    bars_->setPlan(*plan, document_->cluster());
    pipeline_->setPlan(*plan);
    simplex_->setSelectedPlan(key);
    startAblation(*plan);
    planInfo_->setText(planSummary());
    {
        QStringList html;
        // Under the profile whose ranking the table shows.
        const SearchResult& r = *result();
        WeightProfile kind = r.profileUsed;
        Weights weights = r.weights;
        for (const auto& pb : r.profilePicks)
            if (tableRanking_ == &pb.ranking) {
                kind = pb.kind;
                weights = pb.weights;
            }
        if (tableRanking_ == &kneeRanking_) {
            kind = WeightProfile::Balanced;
            weights = weightsOf(WeightProfile::Balanced);  // Phi under the default weights
        }
        for (const std::string& line : PlanExplanation::lines(r, *plan, kind, weights))
            html << QStringLiteral("<p>%1</p>").arg(qs(line).toHtmlEscaped());
        whyLabel_->setText(html.join(QString()));
    }
    pareto_->setSelectedPlan(key);
    int row = planModel_->rowOfKey(key);
    if (row >= 0) {
        QModelIndex idx = planProxy_->mapFromSource(planModel_->index(row, 0));
        if (idx.isValid() && planTable_->currentIndex().row() != idx.row())
            planTable_->setCurrentIndex(idx);
    }
}

QString MainWindow::planSummary() const
{
    const Plan* plan = planByKey(selectedKey_);
    if (!plan)
        return {};
    const double u = std::max(0.0, plan->uncertainty);
    const int pct = qRound(100 * u);
    const QString source = qs(toString(plan->provenance));
    const double gib = plan->maxMemMiB / 1024.0;
    // Seconds, as every other view states iteration times.
    const double s = plan->iterationMs / 1000.0;
    if (u <= 0)
        return tr("%1: %2 s, peak %3 GiB (no uncertainty given)").arg(source).arg(s, 0, 'f', 2).arg(gib, 0, 'f', 1);
    return tr("%1, ±%2%: %3 ± %4 s, peak %5 ± %6 GiB")
        .arg(source)
        .arg(pct)
        .arg(s, 0, 'f', 2)
        .arg(s * u, 0, 'f', 2)
        .arg(gib, 0, 'f', 1)
        .arg(gib * u, 0, 'f', 1);
}

// ---- views ----

bool MainWindow::parseView(const QString& name, View& out)
{
    static const std::pair<const char*, View> names[]
        = {{"window", View::Window},   {"cluster", View::Cluster},     {"pareto", View::Pareto},
           {"memory", View::Memory},   {"pipeline", View::Pipeline},   {"compare", View::Compare},
           {"weights", View::Weights}, {"predictor", View::Predictor}, {"baselines", View::Baselines},
           {"whatif", View::WhatIf},   {"nodeloss", View::NodeLoss},   {"nodechoice", View::NodeChoice},
           {"guide", View::Guide}};
    for (const auto& [n, v] : names)
        if (name == QLatin1String(n)) {
            out = v;
            return true;
        }
    return false;
}

QWidget* MainWindow::viewWidget(View view)
{
    switch (view) {
    case View::Window: return this;
    case View::Cluster: return canvas_;
    case View::Pareto: return pareto_;
    case View::Memory: return bars_;
    case View::Pipeline: return pipeline_;
    case View::Compare: return compare_;
    case View::Weights: return simplex_;
    case View::Baselines: return baselines_;
    case View::Predictor: return predictorDock_;
    case View::WhatIf: return whatIfDock_;
    case View::NodeLoss: return nodeLoss_;  // the whole panel, below the dock's fold
    case View::NodeChoice: return nodeChoice_;
    case View::Guide: return guide_ ? static_cast<QWidget*>(guide_) : this;  // made by showView
    }
    return this;
}

void MainWindow::showView(View view)
{
    if (view == View::Guide) {
        showUserGuide();
        return;
    }
    if (view == View::Predictor || view == View::WhatIf || view == View::NodeLoss) {
        QDockWidget* d = view == View::Predictor ? predictorDock_ : whatIfDock_;
        d->show();
        d->raise();
        return;
    }
    if (view != View::Window)
        tabs_->setCurrentWidget(viewWidget(view));
}

// What per-stage recomputation buys over one level on every stage (three plan
// evaluations): a job, so that a learned predictor never holds the GUI thread.
void MainWindow::startAblation(const Plan& plan)
{
    pipeline_->setAblation({});
    const SearchRequest& req = controller_->lastRequest();
    const VarianceMode variance = result()->varianceMode;
    jobs_->start(
        Job::Ablation,
        [problem = req.problem, predictor = req.predictor, plan, variance](const JobTracker::Ticket&) {
            return RecomputeAblation::line(plan, RecomputeAblation::uniform(problem, plan, predictor, variance),
                                           variance);
        },
        [this](const std::string& line) { pipeline_->setAblation(qs(line).trimmed().split(QLatin1Char('\n'))); });
}

// The weight simplex of the result just shown: which kept plan wins at each
// weighting (231 rankings of the kept candidates).
void MainWindow::startSimplex()
{
    simplex_->setBusy();
    const std::shared_ptr<const SearchResult> r = controller_->lastResultShared();
    jobs_->start(
        Job::Simplex, [r](const JobTracker::Ticket&) { return SimplexMapView::mapOf(*r); },
        [this, r](SimplexMapView::Mapped mapped) {
            simplex_->setMapped(*r, std::move(mapped), &controller_->lastRequest().problem.cluster);
        });
}

// resultShown() once the result's own jobs (the simplex, the best plan's
// ablation) have shown theirs; never for a result superseded meanwhile.
void MainWindow::announceWhenSettled(quint64 generation)
{
    const auto settled = [this] { return !jobs_->isRunning(Job::Simplex) && !jobs_->isRunning(Job::Ablation); };
    if (settled()) {
        emit resultShown();
        return;
    }
    auto connection = std::make_shared<QMetaObject::Connection>();
    *connection = connect(jobs_, &JobTracker::jobFinished, this, [this, connection, generation, settled] {
        if (generation != showGeneration_) {
            disconnect(*connection);
            return;
        }
        if (!settled())
            return;
        disconnect(*connection);
        emit resultShown();
    });
}

}  // namespace memx
