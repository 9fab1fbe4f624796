// Over 600 lines: the wiring of twelve views, six docks and their menus to the document, the project session, the
// job tracker and one another; each view and job lives in its own class.
#include "MainWindow.h"
#include "PlanExporter.h"
#include "JobTracker.h"
#include "ProjectSession.h"

#include "StdText.h"
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

}  // namespace memx
