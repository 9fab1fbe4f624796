#pragma once

#include "ProjectFile.h"
#include "search/SearchResult.h"

#include <QMainWindow>

#include <optional>

class QAction;
class QLabel;
class QLineEdit;
class QMenu;
class QProgressBar;
class QPushButton;
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
class PlanTableModel;
class ProfileComparisonView;
class PropertyPanel;
class SearchController;
class SetupPanel;

// The workbench window: thin glue between the document (cluster + setup +
// objective), the search controller and the views. No engine logic here.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    enum class View { Window, Cluster, Pareto, Memory, Pipeline, Compare };

    struct Options {
        bool restoreState = true;      // QSettings geometry and dock layout
        bool offerRecovery = true;     // ask about an autosaved copy after a crash
        bool autosave = true;
    };

    explicit MainWindow(Options options, QWidget* parent = nullptr);
    ~MainWindow() override;

    bool openProject(const QString& file, QString* error = nullptr);
    void openSampleProject();
    bool saveProject(const QString& file, QString* error = nullptr);
    Project currentProject() const;

    void runSearch();
    SearchController* controller() const { return controller_; }
    const SearchResult* result() const;
    void selectPlan(quint64 key);
    quint64 selectedPlan() const { return selectedKey_; }
    const Plan* planByKey(quint64 key) const;

    QWidget* viewWidget(View view);
    void showView(View view);
    static bool parseView(const QString& name, View& out);

    ParetoPlot* paretoPlot() const { return pareto_; }
    MemoryBars* memoryBars() const { return bars_; }
    ObjectivePanel* objectivePanel() const { return objectivePanel_; }
    ClusterDocument* document() const { return document_; }
    bool isDirty() const;
    // Crash recovery: while the project has unsaved changes it is written here
    // every 30 s; main() offers it back after a crash. Public for tests.
    void writeAutosave();
    QString autosavePath() const;

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void createActions();
    void createMenus();
    void createDocks();
    void createStatusBar();
    void loadProject(const Project& project, const QString& file);
    void setCurrentFile(const QString& file);
    void updateTitle();
    void addRecentFile(const QString& file);
    void rebuildRecentMenu();
    bool maybeSave();
    void markDirty();
    void onSearchStarted();
    void onSearchProgress(const SearchProgress& p);
    void onSearchFinished();
    void onSearchFailed(const QString& reason);
    void newProject();
    void openDialog();
    bool save();
    bool saveAs();
    void importCluster();
    void exportCluster();
    void exportPlot();
    void exportCandidates();
    void exportSelectedPlan();
    void about();

    Options options_;
    ClusterDocument* document_ = nullptr;
    SearchController* controller_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    ClusterCanvas* canvas_ = nullptr;
    ParetoPlot* pareto_ = nullptr;
    MemoryBars* bars_ = nullptr;
    PipelineView* pipeline_ = nullptr;
    ProfileComparisonView* compare_ = nullptr;
    GpuPalette* palette_ = nullptr;
    PropertyPanel* properties_ = nullptr;
    SetupPanel* setupPanel_ = nullptr;
    ObjectivePanel* objectivePanel_ = nullptr;
    PlanTableModel* planModel_ = nullptr;
    PlanFilterProxy* planProxy_ = nullptr;
    QTableView* planTable_ = nullptr;
    QLineEdit* planFilter_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* statusLabel_ = nullptr;
    QPushButton* cancelButton_ = nullptr;
    QTimer* autosaveTimer_ = nullptr;
    QMenu* recentMenu_ = nullptr;

    QAction* newAct_ = nullptr;
    QAction* openAct_ = nullptr;
    QAction* saveAct_ = nullptr;
    QAction* saveAsAct_ = nullptr;
    QAction* runAct_ = nullptr;
    QAction* cancelAct_ = nullptr;
    QAction* undoAct_ = nullptr;
    QAction* redoAct_ = nullptr;

    QString currentFile_;
    bool settingsDirty_ = false;
    quint64 selectedKey_ = 0;
    bool resultsStale_ = false;
    bool shownFirstResult_ = false;
    nlohmann::json lastResultSummary_;
};

}  // namespace memx
