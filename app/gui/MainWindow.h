#pragma once

#include "AutosaveSlot.h"
#include "PlanExporter.h"
#include "ProjectFile.h"
#include "search/SearchResult.h"

#include <QDateTime>
#include <QMainWindow>
#include <QStringList>

#include <memory>
#include <optional>

class QAction;
class QDockWidget;
class QDialog;
class QLabel;
class QLineEdit;
class QMenu;
class QProgressBar;
class QPushButton;
class QScrollArea;
class QTabWidget;
class QTableView;
class QTimer;

namespace memx {

class ClusterCanvas;
class ClusterDocument;
class GpuPalette;
class MemoryBars;
class ObjectivePanel;
class ParetoPlot;
class PipelineView;
class PlanFilterProxy;
class WhyNotShapePanel;
class PlanTableModel;
class Predictor;
class PredictorPanel;
class ProfileComparisonView;
class SimplexMapView;
class BaselinesView;
class BandwidthWhatIfPanel;
class NodeChoicePanel;
class NodeLossPanel;
class PropertyPanel;
class SearchController;
class JobTracker;
class ProjectSession;
class SetupPanel;
class StaleBanner;
class NoticeBanner;

// The workbench window: thin glue between the document (cluster + setup +
// objective), the search controller and the views. No engine logic here.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    enum class View {
        Window,
        Cluster,
        Pareto,
        Memory,
        Pipeline,
        Compare,
        Weights,
        Predictor,
        Baselines,
        WhatIf,
        NodeLoss,
        NodeChoice,
        Guide
    };

    struct Options {
        bool restoreState = true;  // QSettings geometry and dock layout
        bool offerRecovery = true;  // ask about an autosaved copy after a crash
        bool autosave = true;
    };

    explicit MainWindow(Options options, QWidget* parent = nullptr);
    ~MainWindow() override;

    bool openProject(const QString& file, QString* error = nullptr);
    void openSampleProject();
    bool saveProject(const QString& file, QString* error = nullptr);
    Project currentProject() const;

    // Copies the document, setup, objective and predictor choice into a request
    // and starts it; refuses (searchRefused) when the chosen learned predictor
    // does not fit the cluster, model or setup.
    void runSearch();
    SearchController* controller() const { return controller_; }
    JobTracker* jobs() const { return jobs_; }
    BandwidthWhatIfPanel* whatIfPanel() const { return whatIf_; }
    NodeLossPanel* nodeLossPanel() const { return nodeLoss_; }
    NodeChoicePanel* nodeChoicePanel() const { return nodeChoice_; }
    const SearchResult* result() const;
    void selectPlan(quint64 key);
    quint64 selectedPlan() const { return selectedKey_; }
    const Plan* planByKey(quint64 key) const;
    // What changed since the shown result was computed ("cluster", "model",
    // "setup", "objective", "predictor"); empty when it is current or absent.
    const std::vector<std::string>& staleChanges() const { return staleChanges_; }

    QWidget* viewWidget(View view);
    void showView(View view);
    static bool parseView(const QString& name, View& out);

    ParetoPlot* paretoPlot() const { return pareto_; }
    MemoryBars* memoryBars() const { return bars_; }
    PredictorPanel* predictorPanel() const { return predictorPanel_; }
    // The status bar's line about the selected plan: provenance and
    // +-uncertainty of its time and memory.
    QString planSummary() const;
    ObjectivePanel* objectivePanel() const { return objectivePanel_; }
    ClusterDocument* document() const { return document_; }
    bool isDirty() const;
    // Launch files for the selected plan (or the best one) of the last result,
    // as `memx-cli export` writes them: Megatron-LM and FlagScale into the
    // folder `destination`, the memx-plan/2 document into the file
    // `destination`. No dialogs: the menu actions show the outcome.
    using ExportTarget = memx::ExportTarget;
    using ExportOutcome = PlanExporter::Outcome;
    ExportOutcome exportPlan(ExportTarget target, const QString& destination);

    // The project as a file: path, unsaved changes, recent files and the
    // crash-recovery autosave (every 30 s while modified; main() offers back
    // the ones crashed instances left). A failed autosave (a full disk) shows
    // a warning in the status bar until one succeeds.
    ProjectSession* session() const { return session_; }
    // Opens a crashed instance's autosave as the project it was: its own
    // name and path, marked modified, no search started. The orphan's files
    // go once its content is safe in this instance's autosave.
    bool recoverProject(const AutosaveSlot::Orphan& orphan, QString* error = nullptr);

signals:
    // A search was not started; the reason is also in the status bar.
    void searchRefused(const QString& reason);
    // A finished search's result is fully shown: plot, plan table and the best
    // plan selected in every view (a few event-loop turns after
    // SearchController::finished).
    void resultShown();

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void createViews();
    void connectSearch();
    void createActions();
    void createMenus();
    void createFileMenu();
    void createEditMenu();
    void createViewMenu();
    void createToolBar();
    void createDocks();
    void createScoringDocks();
    void createPlanDocks();
    QDockWidget* dock(QWidget* w, const QString& title, const char* name, Qt::DockWidgetArea area);
    QScrollArea* scrolling(QWidget* panel, int minimumWidth = 0);
    void createStatusBar();
    QString exportRefusal() const;
    void showSavedResult(const QString& file);
    void showUserGuide();
    void loadProject(const Project& project, const QString& file);
    void updateTitle();
    void rebuildRecentMenu();
    bool maybeSave();
    void markDirty();
    void onSearchStarted();
    void onSearchProgress(const SearchProgress& p);
    void onSearchFinished();
    void showFinishedLine(const SearchResult& r);
    void showNotices(const SearchResult& r);
    // The plan table, then the chosen plan's views, each on a later turn of the event loop.
    void showResultSteps();
    void runWhatIf();
    void runNodeLoss();
    void runNodeChoice();
    void onSearchFailed(const QString& reason);
    void startAblation(const Plan& plan);
    void startSimplex();
    void announceWhenSettled(quint64 generation);
    void newProject();
    void openDialog();
    bool save();
    bool saveAs();
    void importCluster();
    void exportCluster();
    void exportPlot();
    void exportCandidates();
    void exportPlanDialog(ExportTarget target);
    void updateExportActions();
    void updatePredictorContext();
    // The cluster, model and setup as the panels hold them now; throws when
    // one of them is invalid.
    Problem currentProblem() const;
    // Compares the inputs the panels hold with the shown result's request and
    // shows the banner and dims the result views when they differ.
    void updateStaleness();
    // "project p.memx as it was when searched on <time>, with unsaved changes
    // (cluster ..., model ...)": the header line of exported files.
    QString originOfResult() const;
    // The plans of the last result ranked under `objective`, when it differs
    // from the searched one only in a profile the search also ranked; null
    // otherwise. showRanking() puts them in the Plans table.
    const std::vector<Plan>* rankingFor(const ObjectiveSpec& objective) const;
    void showRanking(const ObjectiveSpec& objective);
    void addRecentPredictor(const QString& file);
    QString predictorLabel(const std::shared_ptr<const Predictor>& predictor, const std::string& name) const;
    void about();

    Options options_;
    ClusterDocument* document_ = nullptr;
    ProjectSession* session_ = nullptr;  // file, unsaved changes, recent files, autosave
    JobTracker* jobs_ = nullptr;  // search, what-if, node loss and choice, ablation, simplex
    SearchController* controller_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    ClusterCanvas* canvas_ = nullptr;
    ParetoPlot* pareto_ = nullptr;
    MemoryBars* bars_ = nullptr;
    PipelineView* pipeline_ = nullptr;
    ProfileComparisonView* compare_ = nullptr;
    SimplexMapView* simplex_ = nullptr;  // which plan wins at each weighting
    BaselinesView* baselines_ = nullptr;  // the baseline planners' picks beside MemX's
    BandwidthWhatIfPanel* whatIf_ = nullptr;  // bandwidth sliders per link kind, plans re-ranked
    QDockWidget* whatIfDock_ = nullptr;
    NodeLossPanel* nodeLoss_ = nullptr;  // the last search re-planned without each node
    NodeChoicePanel* nodeChoice_ = nullptr;  // the last search's cluster with some GPU types' nodes left out
    QDockWidget* setupDock_ = nullptr;
    GpuPalette* palette_ = nullptr;
    PropertyPanel* properties_ = nullptr;
    SetupPanel* setupPanel_ = nullptr;
    ObjectivePanel* objectivePanel_ = nullptr;
    PredictorPanel* predictorPanel_ = nullptr;
    QDockWidget* predictorDock_ = nullptr;
    PlanTableModel* planModel_ = nullptr;
    PlanFilterProxy* planProxy_ = nullptr;
    StaleBanner* staleBanner_ = nullptr;
    NoticeBanner* noticeBanner_ = nullptr;  // valid but likely not meant (PlanPlausibility)
    QTableView* planTable_ = nullptr;
    QLineEdit* planFilter_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* statusLabel_ = nullptr;
    QDialog* guide_ = nullptr;  // the user guide, made on first use
    QLabel* planInfo_ = nullptr;
    QLabel* autosaveWarning_ = nullptr;  // shown while autosaves fail
    const std::vector<Plan>* tableRanking_ = nullptr;  // what the Plans table shows (in the last result)
    std::vector<Plan> kneeRanking_;  // the balanced profile's ranking of the last result (KneeRanking)
    QLabel* whyLabel_ = nullptr;  // "Why this plan?" of the selected plan
    QDockWidget* whyDock_ = nullptr;
    WhyNotShapePanel* whyNot_ = nullptr;  // why no plan has a shape
    QPushButton* cancelButton_ = nullptr;
    QPushButton* keepButton_ = nullptr;  // stop early, keep the best so far
    QMenu* recentMenu_ = nullptr;

    QAction* newAct_ = nullptr;
    QAction* openAct_ = nullptr;
    QAction* saveAct_ = nullptr;
    QAction* saveAsAct_ = nullptr;
    QAction* runAct_ = nullptr;
    QAction* cancelAct_ = nullptr;
    QAction* undoAct_ = nullptr;
    QAction* redoAct_ = nullptr;
    QAction* exportMegatronAct_ = nullptr;
    QAction* exportFlagScaleAct_ = nullptr;
    QAction* exportJsonAct_ = nullptr;

    quint64 selectedKey_ = 0;
    std::vector<std::string> staleChanges_;  // what changed since the shown result was computed (RequestChanges)
    bool shownFirstResult_ = false;
    QDateTime resultTime_;  // when the shown result arrived
    bool resultHadUnsavedChanges_ = false;
    quint64 showGeneration_ = 0;  // steps of showing a result; bumped to drop pending ones
    nlohmann::json lastResultSummary_;
    // The learned predictor of the last started search and its file, so that
    // exports name the file even after the panel's choice changed.
    std::shared_ptr<const Predictor> searchPredictor_;
    QString searchPredictorFile_;
};

}  // namespace memx
