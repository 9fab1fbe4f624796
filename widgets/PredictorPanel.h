#pragma once

#include "predict/PredictorFile.h"

#include <QStringList>
#include <QWidget>

#include <memory>

class QComboBox;
class QFormLayout;
class QGridLayout;
class QHBoxLayout;
class QLabel;
class QMenu;
class QToolButton;

namespace memx {

class Predictor;
struct Problem;
struct GpuParamsFit;

// Which predictor a search uses: the analytic model, or a learned one loaded
// from a memx-predictor/1 file. Shows what a loaded file was trained on (GPU
// types, model shapes, runs and rows, cross-validated MAPE, data hash, the
// most important features, each GPU type's calibrated physical parameters,
// whether the trees correct time and memory) and whether it fits the
// cluster, model and setup at hand (PredictorFile::checkFits): problems in
// red, warnings in amber.
// A learned choice with problems is refused (refusal() says why); the panel
// never falls back to analytic on its own, the user picks.
//
// A file that cannot be read leaves the previous choice and file as they were
// and errorText() names the file, the field and the reason.
class PredictorPanel : public QWidget {
    Q_OBJECT
public:
    enum class Choice { Analytic, Learned };

    explicit PredictorPanel(QWidget* parent = nullptr);
    ~PredictorPanel() override;

    Choice choice() const { return choice_; }
    // Learned is ignored while no file is loaded.
    void setChoice(Choice choice);
    // Loads a memx-predictor/1 file and selects it. On failure the previous
    // choice stays, errorText() says why and loadFailed() is emitted.
    bool loadFile(const QString& path);
    bool hasFile() const { return loaded_ != nullptr; }
    QString filePath() const { return path_; }  // absolute; empty when none loaded

    // The predictor for SearchRequest::predictor: null for analytic.
    std::shared_ptr<const Predictor> predictor() const;
    // Of the loaded file; null when none is loaded.
    const PredictorMetadata* metadata() const;

    // What the search would run on; re-checks the fit of the loaded file.
    void setContext(const Problem& problem);
    QStringList problems() const { return problems_; }
    QStringList warnings() const { return warnings_; }
    // Non-empty when the learned choice must not be used for this search.
    QString refusal() const;

    QString errorText() const { return error_; }
    // The "trained on" block as plain text, one line per row ("GPU types: A100-80GB, Vendor-B").
    QString trainedOnText() const;

    // Files offered under the Load button (most recent first).
    void setRecentFiles(const QStringList& files);

    // The per-GPU-type calibration of the loaded file as plain text, one line
    // per type ("A100-80GB: 4 runs, efficiency x0.93, ..."), or the reason
    // there is none; empty while no file is loaded.
    QString calibrationText() const;
    // `text` with a zero-width space after each '_' and '/', so that word
    // wrapping can break run ids and paths (display only: copied, the
    // invisible characters would come along).
    static QString breakable(QString text);
    // Whether the trees correct time and memory, one line per target; empty
    // while no file is loaded.
    QString correctionsText() const;

    // A learned file's whole summary as one line ("learned (model.json): 36 runs, CV time 0.4 %, ...").
    QString summaryLine() const;

signals:
    void changed();  // the choice or the loaded file changed
    void fileLoaded(const QString& path);  // for the recent-files list
    void loadFailed(const QString& message);

protected:
    void changeEvent(QEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;

private:
    void onComboChosen(int index);
    void openDialog();
    void refresh();
    void checkFit();
    void syncCombo();
    void holdNeededHeight();
    void fillCalibration(const QColor& muted);
    int addCalibrationBlock(const GpuParamsFit& f, int row, const QColor& muted);
    QString correctionsText(bool uncalibrated) const;
    QHBoxLayout* buildChoiceRow();
    void buildInfo();
    void buildVerdictLabels();
    void describeChoice();
    void fillTrainedOn();
    void fillFeatures();
    QStringList fitVerdict() const;

    std::unique_ptr<PredictorFile::Loaded> loaded_;
    std::unique_ptr<Problem> context_;
    QString path_;
    Choice choice_ = Choice::Analytic;
    QStringList problems_, warnings_;
    QString error_;
    QStringList recent_;

    QComboBox* combo_ = nullptr;
    QToolButton* loadButton_ = nullptr;
    QMenu* recentMenu_ = nullptr;
    QLabel* description_ = nullptr;
    QWidget* info_ = nullptr;
    QFormLayout* infoForm_ = nullptr;
    QLabel* fileLabel_ = nullptr;
    QLabel* gpuLabel_ = nullptr;
    QLabel* modelsLabel_ = nullptr;
    QLabel* dataLabel_ = nullptr;
    QLabel* mapeLabel_ = nullptr;
    QWidget* features_ = nullptr;
    QGridLayout* featureGrid_ = nullptr;
    QLabel* calibrationTitle_ = nullptr;
    QWidget* calibration_ = nullptr;
    QGridLayout* calibrationGrid_ = nullptr;
    QLabel* correctionsLabel_ = nullptr;
    QLabel* fitLabel_ = nullptr;
    QLabel* errorLabel_ = nullptr;
};

}  // namespace memx
