// Over 600 lines: the predictor dock's choice, fit check and its description of a learned predictor (calibration and
// corrections tables).
#include "PredictorPanel.h"

#include "StdText.h"
#include "FileDialogs.h"
#include "PlanColors.h"

#include "space/Problem.h"
#include "io/InputError.h"
#include "predict/AnalyticPredictor.h"
#include "predict/GpuParamsFit.h"
#include "predict/LearnedPredictor.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QEvent>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPainter>
#include <QResizeEvent>
#include <QSignalBlocker>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <exception>

namespace memx {

namespace {
constexpr int kCalibrationColumnsShown = 4;  // two name-value pairs a row
}  // namespace

namespace {

constexpr int kTopFeatures = 5;
constexpr int kHashChars = 8;

QString join(const std::vector<std::string>& items)
{
    QStringList out;
    for (const auto& s : items)
        out << qs(s);
    return out.join(QStringLiteral(", "));
}

// A feature's share of the total gain as a thin horizontal bar.
class ShareBar final : public QWidget {
public:
    ShareBar(double share, QWidget* parent) : QWidget(parent), share_(std::clamp(share, 0.0, 1.0))
    {
        setMinimumSize(40, 8);
        setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    }
    QSize sizeHint() const override { return {80, 10}; }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        const QRectF r = QRectF(rect()).adjusted(0, 1, 0, -1);
        QColor track = palette().color(QPalette::WindowText);
        track.setAlpha(35);
        p.fillRect(r, track);
        p.fillRect(QRectF(r.left(), r.top(), r.width() * share_, r.height()), palette().color(QPalette::Highlight));
    }

private:
    double share_;
};

// A section of the file's free-form "training" object; empty when absent.
nlohmann::json section(const PredictorMetadata& m, const char* key)
{
    if (!m.training.is_object() || !m.training.contains(key) || !m.training.at(key).is_object())
        return nlohmann::json::object();
    return m.training.at(key);
}

// The cross-validated error of what the model applies to one target: the
// trees' when their correction is on, the calibrated model's alone when the
// trainer turned it off (older files: the trees').
nlohmann::json inUseCv(const nlohmann::json& cv, const char* target, bool corrected)
{
    const std::string trees = std::string(target) + "_mape_pct", prior = std::string("prior_") + trees;
    if (!corrected && cv.contains(prior))
        return cv.value(prior, nlohmann::json());
    return cv.value(trees, nlohmann::json());
}

QString percent(const nlohmann::json& v)
{
    if (!v.is_number())
        return PredictorPanel::tr("n/a");
    return QStringLiteral("%1 %").arg(v.get<double>(), 0, 'f', v.get<double>() < 10 ? 2 : 1);
}

// A muted text colour: the text colour halfway to the background, opaque
// (the palette's placeholder colour may be the text colour with alpha, which
// a style sheet's name() would turn back into full text colour).
QColor mutedColor(const QPalette& pal)
{
    const QColor a = pal.color(QPalette::WindowText), b = pal.color(QPalette::Window);
    constexpr double k = 0.45;  // share of the background
    return QColor::fromRgbF(static_cast<float>(a.redF() * (1 - k) + b.redF() * k),
                            static_cast<float>(a.greenF() * (1 - k) + b.greenF() * k),
                            static_cast<float>(a.blueF() * (1 - k) + b.blueF() * k));
}

QString colorSheet(const QColor& c) { return QStringLiteral("QLabel { color: %1; }").arg(c.name()); }

// One fitted physical parameter of GpuParamsFit as a column of the table.
struct CalibrationColumn {
    const char* key;  // the file's field name, also what `fitted` lists
    const char* header;
    const char* tip;
    double GpuParamsFit::*field;
    int decimals;  // -1: one decimal below 100, none above
};

const CalibrationColumn kCalibrationColumns[] = {
    {"efficiency_multiplier", QT_TRANSLATE_NOOP("memx::PredictorPanel", "eff ×"),
     QT_TRANSLATE_NOOP("memx::PredictorPanel",
                       "Multiplier on the catalog's GEMM and attention efficiency (share of peak)"),
     &GpuParamsFit::efficiencyMultiplier, 2},
    {"bandwidth_multiplier", QT_TRANSLATE_NOOP("memx::PredictorPanel", "bw ×"),
     QT_TRANSLATE_NOOP("memx::PredictorPanel", "Multiplier on the achieved share of memory bandwidth"),
     &GpuParamsFit::bandwidthMultiplier, 2},
    {"launch_overhead_us", QT_TRANSLATE_NOOP("memx::PredictorPanel", "µs/op"),
     QT_TRANSLATE_NOOP("memx::PredictorPanel", "Host time per operator, µs"), &GpuParamsFit::launchOverheadUs, -1},
    {"step_overhead_us", QT_TRANSLATE_NOOP("memx::PredictorPanel", "µs/step"),
     QT_TRANSLATE_NOOP("memx::PredictorPanel",
                       "Host time per schedule step (Megatron's forward or backward step of one model chunk), µs"),
     &GpuParamsFit::stepOverheadUs, -1},
    {"comm_overhead_us", QT_TRANSLATE_NOOP("memx::PredictorPanel", "µs/coll"),
     QT_TRANSLATE_NOOP("memx::PredictorPanel", "Host time per collective or pipeline message, µs"),
     &GpuParamsFit::commOverheadUs, -1},
    {"iteration_overhead_ms", QT_TRANSLATE_NOOP("memx::PredictorPanel", "ms/iter"),
     QT_TRANSLATE_NOOP("memx::PredictorPanel", "Framework overhead per training iteration, ms"),
     &GpuParamsFit::iterationOverheadMs, 1},
};

bool isFitted(const GpuParamsFit& f, const char* key);

// The memory fit of one type in words: what is in use, and what it changed
// (or why the catalog's values stayed).
QString memoryText(const GpuParamsFit& f)
{
    const bool fitted = isFitted(f, "framework_mib") || isFitted(f, "memory_multiplier");
    QString text = QCoreApplication::translate("memx::PredictorPanel",
                                               "memory: ×%1 on the model's tensors, %2 MiB framework buffers")
                       .arg(QString::number(f.memoryMultiplier, 'f', 2), QString::number(f.frameworkMiB, 'f', 0));
    if (f.memoryRuns > 0)
        text += QCoreApplication::translate("memx::PredictorPanel", "; MAPE %1 → %2 % over %3 measured peaks")
                    .arg(QString::number(f.memoryMapeBefore, 'f', 1), QString::number(f.memoryMapeAfter, 'f', 1))
                    .arg(f.memoryRuns);
    if (!fitted)
        text += f.memoryNote.empty()
            ? QCoreApplication::translate("memx::PredictorPanel", " (catalog values: no measured peak)")
            : QStringLiteral(" (%1)").arg(QString::fromStdString(f.memoryNote));
    return text;
}

}  // namespace

// Run ids and paths are long words without spaces ("run gpt3_mcore_te_tp1_
// pp4_..._dgx_a100 left out of the time fit"): a word-wrapped label cannot
// break them and grows as wide as the longest, which pushed the panel past
// the dock's edge. A zero-width space after each '_' and '/' lets the line
// break there and shows nothing.
QString PredictorPanel::breakable(QString text)
{
    static const QChar zwsp(0x200B);
    for (int i = text.size() - 1; i >= 0; --i)
        if ((text[i] == QLatin1Char('_') || text[i] == QLatin1Char('/')) && i + 1 < text.size())
            text.insert(i + 1, zwsp);
    return text;
}

namespace {

QString fixed(double v, int decimals)
{
    if (decimals < 0)
        decimals = std::abs(v) < 100 ? 1 : 0;
    return QString::number(v, 'f', decimals);
}

bool isFitted(const GpuParamsFit& f, const char* key)
{
    return std::find(f.fitted.begin(), f.fitted.end(), std::string(key)) != f.fitted.end();
}

QString runsText(int n) { return n == 1 ? PredictorPanel::tr("1 run") : PredictorPanel::tr("%1 runs").arg(n); }

QString mapePair(const GpuParamsFit& f)
{
    return QStringLiteral("%1 → %2 %").arg(fixed(f.mapeBefore, 1), fixed(f.mapeAfter, 1));
}

// "12.3 %", or empty when the report has no such number.
QString cvPercent(const nlohmann::json& cv, const char* key)
{
    const nlohmann::json v = cv.value(key, nlohmann::json());
    return v.is_number() ? QStringLiteral("%1 %").arg(v.get<double>(), 0, 'f', 1) : QString();
}

}  // namespace

PredictorPanel::PredictorPanel(QWidget* parent) : QWidget(parent)
{
    auto* root = new QVBoxLayout(this);
    root->addLayout(buildChoiceRow());
    description_ = new QLabel(this);
    description_->setWordWrap(true);
    root->addWidget(description_);
    buildInfo();
    buildVerdictLabels();
    root->addWidget(fitLabel_);
    root->addWidget(errorLabel_);
    // The verdict (fit, load error) comes first; what the file was trained on below it.
    root->addWidget(info_);
    root->addStretch(1);
    setRecentFiles({});
    refresh();
}

// The predictor's choice and the Load button with its recent files.
QHBoxLayout* PredictorPanel::buildChoiceRow()
{
    auto* row = new QHBoxLayout;
    combo_ = new QComboBox(this);
    combo_->setObjectName(QStringLiteral("predictorChoice"));
    combo_->addItem(tr("Analytic"));
    combo_->addItem(tr("Learned (file…)"));
    combo_->setToolTip(tr("The model that predicts each stage's time and memory during the search"));
    connect(combo_, &QComboBox::activated, this, &PredictorPanel::onComboChosen);
    loadButton_ = new QToolButton(this);
    loadButton_->setObjectName(QStringLiteral("predictorLoad"));
    loadButton_->setText(tr("Load…"));
    loadButton_->setToolTip(tr("Open a learned predictor (memx-predictor/1, from memx-cli train)"));
    recentMenu_ = new QMenu(loadButton_);
    loadButton_->setMenu(recentMenu_);
    loadButton_->setPopupMode(QToolButton::MenuButtonPopup);
    connect(loadButton_, &QToolButton::clicked, this, &PredictorPanel::openDialog);
    row->addWidget(combo_, 1);
    row->addWidget(loadButton_);
    return row;
}

// What the loaded file was trained on: file, types, models, data, CV
// error, top features, calibration and corrections.
void PredictorPanel::buildInfo()
{
    info_ = new QWidget(this);
    infoForm_ = new QFormLayout(info_);
    infoForm_->setContentsMargins(0, 0, 0, 0);
    infoForm_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    infoForm_->setLabelAlignment(Qt::AlignRight | Qt::AlignTop);
    auto field = [this](const QString& label, const char* name) {
        auto* l = new QLabel(info_);
        l->setObjectName(QLatin1String(name));
        l->setWordWrap(true);
        l->setTextInteractionFlags(Qt::TextSelectableByMouse);
        infoForm_->addRow(label, l);
        return l;
    };
    fileLabel_ = field(tr("File"), "predictorFile");
    gpuLabel_ = field(tr("GPU types"), "predictorGpuTypes");
    modelsLabel_ = field(tr("Models"), "predictorModels");
    dataLabel_ = field(tr("Data"), "predictorData");
    mapeLabel_ = field(tr("CV MAPE"), "predictorMape");
    mapeLabel_->setToolTip(tr("Cross-validated mean absolute percentage error of stage time and memory, "
                              "by held-out run"));
    features_ = new QWidget(info_);
    featureGrid_ = new QGridLayout(features_);
    featureGrid_->setContentsMargins(0, 0, 0, 0);
    featureGrid_->setHorizontalSpacing(6);
    featureGrid_->setVerticalSpacing(1);
    infoForm_->addRow(tr("Top features"), features_);

    // Each GPU type's fitted physical parameters (spans both columns: the
    // table needs the width), then whether the trees correct each target.
    calibrationTitle_ = new QLabel(tr("Calibrated GPU parameters"), info_);
    calibrationTitle_->setObjectName(QStringLiteral("predictorCalibrationTitle"));
    QFont bold = calibrationTitle_->font();
    bold.setBold(true);
    calibrationTitle_->setFont(bold);
    calibrationTitle_->setContentsMargins(0, 6, 0, 0);  // a section of its own, below the features
    calibrationTitle_->setToolTip(tr("The analytic model's physical parameters per GPU type, fitted to the measured "
                                     "runs before the trees were trained (memx-cli train). Grey values are the "
                                     "catalog's: the runs could not determine them."));
    infoForm_->addRow(calibrationTitle_);
    calibration_ = new QWidget(info_);
    calibration_->setObjectName(QStringLiteral("predictorCalibration"));
    calibrationGrid_ = new QGridLayout(calibration_);
    calibrationGrid_->setContentsMargins(0, 0, 0, 0);
    calibrationGrid_->setHorizontalSpacing(8);
    calibrationGrid_->setVerticalSpacing(1);
    infoForm_->addRow(calibration_);
    correctionsLabel_ = new QLabel(info_);
    correctionsLabel_->setObjectName(QStringLiteral("predictorCorrections"));
    correctionsLabel_->setWordWrap(true);
    correctionsLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    correctionsLabel_->setContentsMargins(0, 4, 0, 0);
    correctionsLabel_->setToolTip(tr("Cross-validated by held-out run: the trees' correction of a target is switched "
                                     "off when the calibrated analytic model alone predicts the held-out runs "
                                     "better"));
    infoForm_->addRow(correctionsLabel_);
}

// The fit of the loaded file to the search at hand, and a load error.
void PredictorPanel::buildVerdictLabels()
{
    fitLabel_ = new QLabel(this);
    fitLabel_->setObjectName(QStringLiteral("predictorFit"));
    fitLabel_->setWordWrap(true);
    fitLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    fitLabel_->setTextFormat(Qt::RichText);
    errorLabel_ = new QLabel(this);
    errorLabel_->setObjectName(QStringLiteral("predictorError"));
    errorLabel_->setWordWrap(true);
    errorLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Selectable, so no invisible break characters: a path longer than the
    // dock is cut at its edge instead of widening the panel.
    QSizePolicy errorPolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    errorPolicy.setHeightForWidth(true);
    errorLabel_->setSizePolicy(errorPolicy);
}

PredictorPanel::~PredictorPanel() = default;

std::shared_ptr<const Predictor> PredictorPanel::predictor() const
{
    if (choice_ != Choice::Learned || !loaded_)
        return nullptr;
    return loaded_->predictor;
}

const PredictorMetadata* PredictorPanel::metadata() const { return loaded_ ? &loaded_->metadata : nullptr; }

void PredictorPanel::setChoice(Choice choice)
{
    if (choice == Choice::Learned && !loaded_)
        return;
    if (choice == choice_)
        return;
    choice_ = choice;
    refresh();
    emit changed();
}

bool PredictorPanel::loadFile(const QString& path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    error_.clear();
    PredictorFile::Loaded loaded;
    try {
        loaded = PredictorFile::load(path.toStdString());
    } catch (const InputError& e) {
        QString where = qs(e.file());
        if (!e.field().empty())
            where += QStringLiteral(", field %1").arg(qs(e.field()));
        error_ = tr("Cannot load predictor %1: %2").arg(where, qs(e.reason()));
    } catch (const std::exception& e) {
        // nlohmann's type errors do not know the file: name it here.
        error_ = tr("Cannot load predictor %1: %2").arg(path, QString::fromUtf8(e.what()));
    }
    if (!loaded.predictor) {
        if (error_.isEmpty())
            error_ = tr("Cannot load predictor %1: the file holds no predictor").arg(path);
        refresh();
        emit loadFailed(error_);
        return false;
    }
    error_.clear();
    loaded_ = std::make_unique<PredictorFile::Loaded>(std::move(loaded));
    path_ = absolute;
    choice_ = Choice::Learned;
    checkFit();
    refresh();
    emit fileLoaded(path_);
    emit changed();
    return true;
}

void PredictorPanel::setContext(const Problem& problem)
{
    context_ = std::make_unique<Problem>(problem);
    checkFit();
    refresh();
}

void PredictorPanel::checkFit()
{
    problems_.clear();
    warnings_.clear();
    if (!loaded_ || !context_)
        return;
    std::vector<std::string> problems, warnings;
    PredictorFile::checkFits(loaded_->metadata, *context_, problems, warnings);
    for (const auto& p : problems)
        problems_ << qs(p);
    for (const auto& w : warnings)
        warnings_ << qs(w);
}

QString PredictorPanel::refusal() const
{
    if (choice_ != Choice::Learned || problems_.isEmpty())
        return {};
    return tr("the learned predictor %1 does not fit this search: %2. Choose Analytic or another predictor file.")
        .arg(QFileInfo(path_).fileName(), problems_.join(QStringLiteral("; ")));
}

void PredictorPanel::setRecentFiles(const QStringList& files)
{
    recent_ = files;
    recentMenu_->clear();
    for (const QString& f : files)
        recentMenu_->addAction(QFileInfo(f).fileName(), this, [this, f] { loadFile(f); })->setToolTip(f);
    recentMenu_->setEnabled(!files.isEmpty());
    if (files.isEmpty())
        recentMenu_->addAction(tr("No recent predictor files"))->setEnabled(false);
}

void PredictorPanel::onComboChosen(int index)
{
    if (index == 0) {
        setChoice(Choice::Analytic);
        return;
    }
    if (loaded_) {
        setChoice(Choice::Learned);
        return;
    }
    openDialog();
    syncCombo();  // cancelled or failed: back to what is in use
}

void PredictorPanel::openDialog()
{
    const QString file
        = FileDialogs::openFile(this, tr("Open learned predictor"), tr("MemX predictor (*.json);;All files (*)"),
                                QStringLiteral("predictor"));
    if (!file.isEmpty())
        loadFile(file);
}

void PredictorPanel::syncCombo()
{
    const QSignalBlocker block(combo_);
    combo_->setItemText(1, loaded_ ? tr("Learned: %1").arg(QFileInfo(path_).fileName()) : tr("Learned (file…)"));
    combo_->setItemData(1, loaded_ ? path_ : QString(), Qt::ToolTipRole);
    combo_->setCurrentIndex(choice_ == Choice::Learned ? 1 : 0);
}

QString PredictorPanel::trainedOnText() const
{
    if (!loaded_)
        return {};
    QStringList lines;
    for (int r = 0; r < infoForm_->rowCount(); ++r) {
        auto* label = infoForm_->itemAt(r, QFormLayout::LabelRole);
        auto* value = infoForm_->itemAt(r, QFormLayout::FieldRole);
        auto* l = label ? qobject_cast<QLabel*>(label->widget()) : nullptr;
        auto* v = value ? qobject_cast<QLabel*>(value->widget()) : nullptr;
        if (l && v)
            lines << QStringLiteral("%1: %2").arg(l->text(), v->text());
    }
    QStringList features;
    for (int i = 0; i < featureGrid_->rowCount(); ++i)
        if (auto* item = featureGrid_->itemAtPosition(i, 0))
            if (auto* l = qobject_cast<QLabel*>(item->widget()))
                features << l->text();
    lines << tr("Top features: %1").arg(features.join(QStringLiteral(", ")));
    return lines.join(QLatin1Char('\n'));
}

QString PredictorPanel::summaryLine() const
{
    if (choice_ != Choice::Learned || !loaded_)
        return tr("analytic");
    const nlohmann::json cv = section(loaded_->metadata, "cross_validation");
    return tr("learned (%1): %2 runs, CV MAPE time %3, memory %4")
        .arg(QFileInfo(path_).fileName())
        .arg(loaded_->metadata.runs)
        .arg(percent(inUseCv(cv, "time", loaded_->predictor->params().timeCorrection)),
             percent(inUseCv(cv, "memory", loaded_->predictor->params().memoryCorrection)));
}

void PredictorPanel::refresh()
{
    syncCombo();
    describeChoice();
    info_->setVisible(loaded_ != nullptr);
    if (loaded_) {
        fillTrainedOn();
        fillFeatures();
        fillCalibration(mutedColor(palette()));
    }
    const colors::StatusColors status = colors::status(palette());
    const QStringList html = fitVerdict();
    fitLabel_->setText(html.join(QString()));
    fitLabel_->setVisible(!html.isEmpty());
    errorLabel_->setStyleSheet(QStringLiteral("QLabel { color: %1; }").arg(status.problem.name()));
    errorLabel_->setText(error_);
    errorLabel_->setVisible(!error_.isEmpty());
    holdNeededHeight();
}

void PredictorPanel::describeChoice()
{
    if (choice_ == Choice::Analytic)
        description_->setText(
            tr("Analytic: every kernel of a layer (GEMMs, attention, memory-bound kernels, TP collectives) timed "
               "from the GPU's peak, bandwidth and host overheads for time; model states plus activations in "
               "flight for memory. Needs no measurements; plans carry ±%1% uncertainty.")
                .arg(qRound(100 * AnalyticPredictor::Params().relativeUncertainty)));
    else if (loaded_ && !loaded_->predictor->analytic().calibration().empty())
        description_->setText(tr("Learned: the analytic model calibrated to measured runs, corrected by XGBoost "
                                 "where cross-validation trusts the trees."));
    else
        description_->setText(tr("Learned: the analytic model corrected by XGBoost trained on measured runs."));
}

// File, GPU types, models, data and cross-validated error of the loaded file.
void PredictorPanel::fillTrainedOn()
{
    const PredictorMetadata& m = loaded_->metadata;
    fileLabel_->setText(QFileInfo(path_).fileName()
                        + (choice_ == Choice::Analytic ? tr(" (loaded, not in use)") : QString()));
    fileLabel_->setToolTip(path_);
    gpuLabel_->setText(m.gpuTypes.empty() ? tr("none") : join(m.gpuTypes));
    QStringList models;
    for (const auto& s : m.models)
        models << qs(s.toString());
    modelsLabel_->setText(models.isEmpty() ? tr("any") : models.join(QLatin1Char('\n')));
    const QString hash = qs(m.dataHash).left(kHashChars);
    dataLabel_->setText(
        tr("%L1 runs · %L2 stage rows · hash %3").arg(m.runs).arg(m.rows).arg(hash.isEmpty() ? tr("none") : hash));
    dataLabel_->setToolTip(tr("Data hash %1\nSources: %2").arg(qs(m.dataHash), join(m.sources)));
    const nlohmann::json cv = section(m, "cross_validation");
    const int folds = cv.value("folds", nlohmann::json(0)).is_number() ? cv.value("folds", 0) : 0;
    const LearnedPredictorParams& use = loaded_->predictor->params();
    mapeLabel_->setText(folds >= 2 ? tr("time %1 · memory %2 (%3 folds)")
                                         .arg(percent(inUseCv(cv, "time", use.timeCorrection)),
                                              percent(inUseCv(cv, "memory", use.memoryCorrection)))
                                         .arg(folds)
                                   : tr("not cross-validated (too few runs)"));
}

// The top features by gain, each with its share as a bar.
void PredictorPanel::fillFeatures()
{
    const PredictorMetadata& m = loaded_->metadata;
    while (QLayoutItem* item = featureGrid_->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    std::vector<std::pair<double, std::string>> gains;
    double total = 0;
    const nlohmann::json imp = section(m, "importance_gain");
    for (auto it = imp.begin(); it != imp.end(); ++it)
        if (it->is_number() && it->get<double>() > 0) {
            gains.emplace_back(it->get<double>(), it.key());
            total += it->get<double>();
        }
    std::sort(gains.begin(), gains.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    const int shown = std::min<int>(kTopFeatures, static_cast<int>(gains.size()));
    for (int i = 0; i < shown; ++i) {
        const double share = gains[i].first / total;
        auto* name = new QLabel(qs(gains[i].second), features_);
        auto* bar = new ShareBar(share, features_);
        const QString shareText = share < 0.001 ? QStringLiteral("<0.1%")
                                                : QStringLiteral("%1%").arg(100 * share, 0, 'f', share < 0.1 ? 1 : 0);
        auto* value = new QLabel(shareText, features_);
        value->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
        const QString tip = tr("Gain %1 (%2% of the total)").arg(gains[i].first, 0, 'g', 3).arg(100 * share, 0, 'f', 1);
        for (QWidget* w : {static_cast<QWidget*>(name), static_cast<QWidget*>(bar), static_cast<QWidget*>(value)})
            w->setToolTip(tip);
        featureGrid_->addWidget(name, i, 0);
        featureGrid_->addWidget(bar, i, 1);
        featureGrid_->addWidget(value, i, 2);
    }
    if (shown == 0)
        featureGrid_->addWidget(new QLabel(tr("not recorded"), features_), 0, 0);
    featureGrid_->setColumnStretch(1, 1);
}

// Fit of the loaded file to the search at hand, as rich-text lines.
QStringList PredictorPanel::fitVerdict() const
{
    const colors::StatusColors status = colors::status(palette());
    QStringList html;
    if (loaded_ && context_) {
        for (const QString& p : problems_)
            html << QStringLiteral("<div style='color:%1'>✖ %2</div>").arg(status.problem.name(), p.toHtmlEscaped());
        for (const QString& w : warnings_)
            html << QStringLiteral("<div style='color:%1'>⚠ %2</div>").arg(status.warning.name(), w.toHtmlEscaped());
        if (problems_.isEmpty() && warnings_.isEmpty())
            html << QStringLiteral("<div style='color:%1'>✔ %2</div>")
                        .arg(status.ok.name(), tr("Fits this cluster, model and setup").toHtmlEscaped());
        if (!problems_.isEmpty() && choice_ == Choice::Learned)
            html << QStringLiteral("<div style='color:%1'><b>%2</b></div>")
                        .arg(status.problem.name(),
                             tr("A search with this predictor is refused: choose Analytic or another file.")
                                 .toHtmlEscaped());
    }
    return html;
}

void PredictorPanel::fillCalibration(const QColor& muted)
{
    while (QLayoutItem* item = calibrationGrid_->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    for (int c = 0; c < calibrationGrid_->columnCount(); ++c)
        calibrationGrid_->setColumnStretch(c, 0);
    const std::vector<GpuParamsFit>& fits = loaded_->predictor->analytic().calibration();
    if (fits.empty()) {
        auto* none
            = new QLabel(tr("no calibration (trained before calibration, or with --no-calibrate)"), calibration_);
        none->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        calibrationGrid_->addWidget(none, 0, 0);
        none->setObjectName(QStringLiteral("predictorNoCalibration"));
        none->setWordWrap(true);
        none->setStyleSheet(colorSheet(muted));
        none->setToolTip(tr("The trees correct the catalog's analytic model"));
    } else {
        // One block per type, narrow enough for the dock at any width: the
        // type and its runs, then its parameters as name-value pairs two to
        // a row (short names, the long ones in the tooltips), its time MAPE,
        // and the note and memory fit as wrapped lines. A table with a column
        // per parameter did not fit the dock and pushed the panel wider
        // than the screen shows.
        int row = 0;
        for (const GpuParamsFit& f : fits)
            row = addCalibrationBlock(f, row, muted);
        // The values keep their width; what is left goes to the right.
        calibrationGrid_->setColumnStretch(kCalibrationColumnsShown - 1, 1);
    }
    correctionsLabel_->setText(correctionsText(fits.empty()));
}

// One GPU type's block of the calibration grid from `row`; returns the row after it.
namespace {

// One GPU type's block of the calibration grid: its header (type and runs),
// its parameters as name-value pairs, its note and memory fit as lines.
struct CalibrationBlock {
    static constexpr int kPairs = 2;  // name-value pairs per row
    static constexpr int kColumns = 2 * kPairs;
    QWidget* parent;
    QGridLayout* grid;
    const GpuParamsFit& f;
    QColor muted;
    int row;

    QString name(const char* key) const
    {
        return QStringLiteral("calibration:%1:%2").arg(qs(f.type), QLatin1String(key));
    }

    // The type in bold and its runs; returns the labels (for the MAPE tooltip).
    QList<QLabel*> header()
    {
        auto* head = new QWidget(parent);
        auto* headRow = new QHBoxLayout(head);
        headRow->setContentsMargins(0, row == 0 ? 0 : 6, 0, 0);
        headRow->setSpacing(4);
        auto* t = new QLabel(qs(f.type), head);
        t->setObjectName(name("gpu_type"));
        QFont bold = t->font();
        bold.setBold(true);
        t->setFont(bold);
        auto* runs = new QLabel(QString::number(f.runs), head);
        runs->setObjectName(name("runs"));
        auto* runsWord = new QLabel(f.runs == 1 ? PredictorPanel::tr("run") : PredictorPanel::tr("runs"), head);
        for (QLabel* l : {runs, runsWord})
            l->setStyleSheet(colorSheet(muted));
        headRow->addWidget(t);
        headRow->addSpacing(4);
        headRow->addWidget(runs);
        headRow->addWidget(runsWord);
        headRow->addStretch(1);
        grid->addWidget(head, row++, 0, 1, kColumns);
        return {t, runs, runsWord};
    }

    // Name-value pair number `slot` (two to a row from `row`); returns the value's label.
    QLabel* pair(int slot, const QString& label, const QString& tip, const QString& value) const
    {
        auto* n = new QLabel(label, parent);
        n->setToolTip(tip);
        n->setStyleSheet(colorSheet(muted));
        n->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
        auto* v = new QLabel(value, parent);
        v->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        const int r = row + slot / kPairs, c = 2 * (slot % kPairs);
        grid->addWidget(n, r, c);
        grid->addWidget(v, r, c + 1);
        return v;
    }

    // The parameters, fitted ones plain and catalog ones muted, then the time MAPE.
    void parameters(const QList<QLabel*>& headLabels)
    {
        int slot = 0;
        for (const CalibrationColumn& c : kCalibrationColumns) {
            QLabel* v = pair(slot++, PredictorPanel::tr(c.header), PredictorPanel::tr(c.tip),
                             fixed(f.*(c.field), c.decimals));
            v->setObjectName(name(c.key));
            const bool fitted = isFitted(f, c.key);
            v->setProperty("fitted", fitted);
            if (fitted) {
                v->setToolTip(PredictorPanel::tr("%1: fitted to %2").arg(PredictorPanel::tr(c.tip), runsText(f.runs)));
            } else {
                v->setStyleSheet(colorSheet(muted));
                v->setToolTip(
                    PredictorPanel::tr("catalog value (not fitted: %1)")
                        .arg(f.note.empty() ? PredictorPanel::tr("the runs could not determine it") : qs(f.note)));
            }
        }
        const QString mapeTip
            = PredictorPanel::tr("Stage time MAPE of the %1: %2 % with the catalog's values, %3 % fitted")
                  .arg(runsText(f.runs))
                  .arg(f.mapeBefore, 0, 'f', 2)
                  .arg(f.mapeAfter, 0, 'f', 2);
        QLabel* mape = pair(slot++, PredictorPanel::tr("time MAPE"), mapeTip, mapePair(f));
        mape->setObjectName(name("time_mape"));
        for (QLabel* l : headLabels)
            l->setToolTip(mapeTip);
        row += (slot + kPairs - 1) / kPairs;
    }

    void line(QLabel* l)
    {
        l->setWordWrap(true);
        l->setIndent(12);
        l->setTextInteractionFlags(Qt::TextSelectableByMouse);
        grid->addWidget(l, row++, 0, 1, kColumns);
    }

    // The fit's note and the memory fit, each a wrapped line.
    void lines()
    {
        if (!f.note.empty()) {
            auto* note = new QLabel(PredictorPanel::breakable(qs(f.note)), parent);
            note->setObjectName(name("note"));
            note->setStyleSheet(colorSheet(muted));
            line(note);
            // Shown with break opportunities, so not for copying: the
            // exact text is in the tooltip (and calibrationText()).
            note->setTextInteractionFlags(Qt::NoTextInteraction);
            note->setToolTip(qs(f.note));
        }
        auto* memory = new QLabel(memoryText(f), parent);
        memory->setObjectName(name("memory"));
        memory->setProperty("fitted", isFitted(f, "framework_mib") || isFitted(f, "memory_multiplier"));
        if (!memory->property("fitted").toBool())
            memory->setStyleSheet(colorSheet(muted));
        memory->setToolTip(
            PredictorPanel::tr("Peak memory = (multiplier × weights, gradients, optimizer state and activations + "
                               "framework buffers), plus the allocator slack and runtime reserve where the measure "
                               "includes them"));
        line(memory);
    }
};

}  // namespace

int PredictorPanel::addCalibrationBlock(const GpuParamsFit& f, int row, const QColor& muted)
{
    CalibrationBlock block{calibration_, calibrationGrid_, f, muted, row};
    const QList<QLabel*> head = block.header();
    block.parameters(head);
    block.lines();
    return block.row;
}

// Whether the trees correct each target, and the run-level correction.
QString PredictorPanel::correctionsText(bool uncalibrated) const
{
    const auto& params = loaded_->predictor->params();
    const nlohmann::json cv = section(loaded_->metadata, "cross_validation");
    const QString base = uncalibrated ? tr("analytic model") : tr("calibrated model");
    auto line = [&](const QString& target, bool corrected, const char* withKey, const char* withoutKey) {
        const QString with = cvPercent(cv, withKey), without = cvPercent(cv, withoutKey);
        const bool numbers = !with.isEmpty() && !without.isEmpty();
        if (corrected)
            return numbers
                ? tr("%1: trees on top of the %2 (cross-validated %3 vs %4 without)").arg(target, base, with, without)
                : tr("%1: trees on top of the %2").arg(target, base);
        return numbers ? tr("%1: %2 alone — trees did not beat it in cross-validation (%3 with trees vs %4 alone)")
                             .arg(target, base, with, without)
                       : tr("%1: %2 alone — trees did not beat it in cross-validation").arg(target, base);
    };
    // The run-level correction (IterationTerms): scales on the iteration's own terms.
    const IterationTerms& it = params.iteration;
    const QString iteration = !it.identity()
        ? tr("iteration: pipeline ×%1, data-parallel ×%2, fixed ×%3 (leave one configuration out %4 % vs %5 % without)")
              .arg(it.pipeline, 0, 'f', 2)
              .arg(it.dataParallel, 0, 'f', 2)
              .arg(it.fixed, 0, 'f', 2)
              .arg(it.mapeAfter, 0, 'f', 1)
              .arg(it.mapeBefore, 0, 'f', 1)
        : it.note.empty() ? tr("iteration: terms as composed (no run-level correction in this file)")
                          : tr("iteration: terms as composed — %1").arg(qs(it.note));
    return line(tr("time"), params.timeCorrection, "time_mape_pct", "prior_time_mape_pct") + QLatin1Char('\n')
        + line(tr("memory"), params.memoryCorrection, "memory_mape_pct", "prior_memory_mape_pct") + QLatin1Char('\n')
        + iteration;
}

QString PredictorPanel::calibrationText() const
{
    if (!loaded_)
        return {};
    const std::vector<GpuParamsFit>& fits = loaded_->predictor->analytic().calibration();
    if (fits.empty())
        return tr("no calibration (trained before calibration, or with --no-calibrate)");
    QStringList lines;
    for (const GpuParamsFit& f : fits) {
        QStringList parts{runsText(f.runs)};
        for (const CalibrationColumn& c : kCalibrationColumns)
            parts << QStringLiteral("%1 %2%3").arg(tr(c.header), fixed(f.*(c.field), c.decimals),
                                                   isFitted(f, c.key) ? QString() : tr(" (catalog)"));
        parts << tr("time MAPE %1").arg(mapePair(f));
        QString text = QStringLiteral("%1: %2").arg(qs(f.type), parts.join(QStringLiteral(", ")));
        if (!f.note.empty())
            text += QStringLiteral(" (%1)").arg(qs(f.note));
        lines << text + QStringLiteral("; ") + memoryText(f);
    }
    return lines.join(QLatin1Char('\n'));
}

QString PredictorPanel::correctionsText() const { return loaded_ ? correctionsLabel_->text() : QString(); }

void PredictorPanel::resizeEvent(QResizeEvent* e)
{
    QWidget::resizeEvent(e);
    holdNeededHeight();
}

void PredictorPanel::holdNeededHeight()
{
    // Word-wrapped labels report no height for a width through minimumSizeHint,
    // so a short dock would squeeze the rows over each other: hold the height
    // the text needs at this width (a scroll area around the panel then scrolls).
    const int needed = layout()->totalHeightForWidth(width());
    if (needed > 0 && needed != minimumHeight())
        setMinimumHeight(needed);
}

void PredictorPanel::changeEvent(QEvent* e)
{
    QWidget::changeEvent(e);
    if (e->type() == QEvent::PaletteChange && combo_)
        refresh();
}

}  // namespace memx
