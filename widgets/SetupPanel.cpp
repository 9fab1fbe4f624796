#include "SetupPanel.h"

#include "FileDialogs.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <exception>

namespace memx {

namespace {
bool sameModel(const ModelSpec& a, const ModelSpec& b)
{
    return a.name == b.name && a.numLayers == b.numLayers && a.hidden == b.hidden && a.heads == b.heads
        && a.headDim == b.headDim && a.queryGroups == b.queryGroups && a.ffnHidden == b.ffnHidden && a.mlp == b.mlp
        && a.vocab == b.vocab && a.seqLen == b.seqLen && a.tiedEmbeddings == b.tiedEmbeddings && a.style == b.style;
}

const QString kReasonStyle = QStringLiteral("QLabel { color: #c62828; }");

// A field with a line under it (a summary or the reason a value is refused).
QWidget* stacked(QWidget* top, QWidget* below)
{
    auto* w = new QWidget(top->parentWidget());
    auto* v = new QVBoxLayout(w);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(2);
    v->addWidget(top);
    v->addWidget(below);
    return w;
}

// Marks a refused field through its palette: no style sheet, so its size and frame stay.
void markInvalid(QLineEdit* edit, bool invalid)
{
    edit->setProperty("invalid", invalid);
    QPalette pal;  // resolves nothing: the edit inherits every other colour
    if (invalid) {
        pal.setColor(QPalette::Base, QColor(0xfd, 0xe2, 0xe2));
        pal.setColor(QPalette::Text, QColor(0x8b, 0x1a, 0x1a));
    }
    edit->setPalette(pal);
}
}  // namespace

std::optional<std::vector<int>> SetupPanel::parseList(const QString& text, int minimum, bool allowDefault,
                                                      QString* reason)
{
    auto fail = [&](const QString& why) -> std::optional<std::vector<int>> {
        if (reason)
            *reason = why;
        return std::nullopt;
    };
    const QString t = text.trimmed();
    if (allowDefault && (t.isEmpty() || t.compare(QLatin1String("default"), Qt::CaseInsensitive) == 0))
        return std::vector<int>{};
    static const QRegularExpression separators(QStringLiteral("[,\\s]+"));
    const QStringList parts = t.split(separators, Qt::SkipEmptyParts);
    if (parts.isEmpty())
        return fail(tr("give at least one value, e.g. 1,2,4"));
    std::vector<int> out;
    for (const QString& part : parts) {
        bool ok = false;
        const int v = part.toInt(&ok);
        if (!ok)
            return fail(tr("\"%1\" is not a whole number").arg(part));
        if (v < minimum)
            return fail(tr("%1 is below the minimum %2").arg(v).arg(minimum));
        if (std::find(out.begin(), out.end(), v) == out.end())
            out.push_back(v);
    }
    return out;
}

QString SetupPanel::formatList(const std::vector<int>& values, bool allowDefault)
{
    if (values.empty())
        return allowDefault ? QStringLiteral("default") : QString();
    QStringList parts;
    for (int v : values)
        parts << QString::number(v);
    return parts.join(QLatin1Char(','));
}

SetupPanel::SetupPanel(QWidget* parent) : QWidget(parent)
{
    auto* root = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
    root->addLayout(form);
    addModelRows(form);
    addBatchRows(form);
    addChoiceRows(form);
    addOptionRows(form);
    root->addStretch(1);
    connectInputs();
    setModel(ModelSpec::presets().front());
    setSetup(TrainingSetup{});
}

// The model, its summary and why a model file was refused.
void SetupPanel::addModelRows(QFormLayout* form)
{
    buildModelRow();
    form->addRow(tr("Model"), modelCombo_);
    errorLabel_ = new QLabel(this);
    errorLabel_->setObjectName(QStringLiteral("modelError"));
    errorLabel_->setWordWrap(true);
    errorLabel_->setStyleSheet(kReasonStyle);
    errorLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    errorLabel_->hide();
    form->addRow(QString(), stacked(modelSummary_, errorLabel_));
}

// Global batch, micro-batch sizes, sequence lengths, query groups, pipeline depth.
void SetupPanel::addBatchRows(QFormLayout* form)
{
    globalBatch_.name = tr("Global batch");
    globalBatch_.unit = tr("sequences");
    QWidget* globalBatchRow = addSpinField(globalBatch_, QStringLiteral("globalBatch"), 1, 1'000'000);
    globalBatch_.spin->setSuffix(tr(" sequences"));
    globalBatch_.spin->setToolTip(tr("Sequences per iteration, over all data-parallel replicas"));
    form->addRow(globalBatch_.name, globalBatchRow);

    microBatchSizes_.name = tr("Micro-batch sizes");
    microBatchSizes_.minimum = 1;
    form->addRow(microBatchSizes_.name,
                 addListField(microBatchSizes_, QStringLiteral("microBatches"), QStringLiteral("1,2,4"),
                              tr("Micro-batch sizes to try, e.g. 1,2,4")));
    seqLens_.name = tr("Sequence lengths");
    seqLens_.minimum = 16;
    seqLens_.allowDefault = true;
    form->addRow(seqLens_.name,
                 addListField(seqLens_, QStringLiteral("seqLens"), tr("default (the model's)"),
                              tr("Sequence lengths in tokens, e.g. 2048,4096; \"default\": the model's")));
    queryGroups_.name = tr("Query groups");
    queryGroups_.minimum = 1;
    queryGroups_.allowDefault = true;
    form->addRow(queryGroups_.name,
                 addListField(queryGroups_, QStringLiteral("queryGroups"), tr("default (the model's)"),
                              tr("KV head counts (GQA) to try, e.g. 8,32; \"default\": the model's")));

    maxPipeline_.name = tr("Max pipeline stages");
    QWidget* maxPipelineRow = addSpinField(maxPipeline_, QStringLiteral("maxPipelineStages"), 1, 128);
    maxPipeline_.spin->setToolTip(tr("Most pipeline stages (PP) the search may use"));
    form->addRow(maxPipeline_.name, maxPipelineRow);
}

// Schedule, meshes, recomputation and precision.
void SetupPanel::addChoiceRows(QFormLayout* form)
{
    schedule_ = new QComboBox(this);
    schedule_->setObjectName(QStringLiteral("schedule"));
    schedule_->addItem(tr("auto"), int(ScheduleMode::Auto));
    schedule_->setItemData(0, tr("Interleaved when memory headroom and GPU balance allow it, else 1F1B"),
                           Qt::ToolTipRole);
    schedule_->addItem(tr("1F1B"), int(ScheduleMode::OneF1B));
    schedule_->addItem(tr("interleaved"), int(ScheduleMode::Interleaved));
    schedule_->addItem(tr("both"), int(ScheduleMode::Both));
    schedule_->setItemData(3, tr("Search 1F1B and interleaved plans"), Qt::ToolTipRole);
    form->addRow(tr("Schedule"), schedule_);

    meshes_ = new QComboBox(this);
    meshes_->setObjectName(QStringLiteral("meshes"));
    meshes_->addItem(tr("uniform (Megatron-LM)"), int(MeshMode::Uniform));
    meshes_->setItemData(0, tr("Every pipeline stage has one TP x DP"), Qt::ToolTipRole);
    meshes_->addItem(tr("per GPU type (FlagScale)"), int(MeshMode::PerType));
    meshes_->setItemData(1,
                         tr("Also plans where each GPU type's stages form a process mesh with its own TP and DP; "
                            "they export to FlagScale only. Slower on large mixed clusters."),
                         Qt::ToolTipRole);
    form->addRow(tr("Meshes"), meshes_);

    recompute_ = new QComboBox(this);
    recompute_->setObjectName(QStringLiteral("recompute"));
    recompute_->addItem(tr("policy (per stage)"), int(RecomputeMode::Policy));
    recompute_->setItemData(0, tr("MemX's two-level choice of none/selective/full for each stage"), Qt::ToolTipRole);
    recompute_->addItem(tr("enumerate"), int(RecomputeMode::Enumerate));
    recompute_->setItemData(1, tr("Every per-stage combination (slow for many stages)"), Qt::ToolTipRole);
    recompute_->addItem(tr("none"), int(RecomputeMode::UniformNone));
    recompute_->addItem(tr("selective"), int(RecomputeMode::UniformSelective));
    recompute_->addItem(tr("full"), int(RecomputeMode::UniformFull));
    for (int i = 2; i < 5; ++i)
        recompute_->setItemData(i, tr("The same level on every stage"), Qt::ToolTipRole);
    form->addRow(tr("Recomputation"), recompute_);

    precision_ = new QComboBox(this);
    precision_->setObjectName(QStringLiteral("precision"));
    const std::pair<const char*, QString> precisions[]
        = {{"auto", tr("bf16 where every GPU type has it, else fp16 (V100, T4, Turing), else fp32")},
           {"bf16", tr("bf16 weights, fp32 main gradients and optimizer state (--bf16)")},
           {"fp16", tr("fp16 weights and gradients with dynamic loss scaling (--fp16)")},
           {"fp8", tr("bf16 training with Transformer Engine fp8 GEMMs (Ada, Hopper, Blackwell)")},
           {"tf32", tr("fp32 storage, GEMMs on TF32 tensor cores (Ampere and later)")},
           {"fp32", tr("fp32 storage and math on the CUDA cores; no FlashAttention")}};
    for (const auto& [name, tip] : precisions) {
        precision_->addItem(QString::fromLatin1(name), QString::fromLatin1(name));
        precision_->setItemData(precision_->count() - 1, tip, Qt::ToolTipRole);
    }
    precision_->setToolTip(
        tr("One precision for every GPU of the job; a type without it is named when the search starts"));
    form->addRow(tr("Precision"), precision_);
}

// The Megatron options and the dropout rates.
void SetupPanel::addOptionRows(QFormLayout* form)
{
    distributedOptimizer_ = new QCheckBox(tr("Distributed optimizer"), this);
    distributedOptimizer_->setObjectName(QStringLiteral("distributedOptimizer"));
    distributedOptimizer_->setToolTip(tr("Shard the optimizer state over the data-parallel replicas"));
    sequenceParallel_ = new QCheckBox(tr("Sequence parallel"), this);
    sequenceParallel_->setObjectName(QStringLiteral("sequenceParallel"));
    sequenceParallel_->setToolTip(tr("Megatron --sequence-parallel; applies when TP > 1"));
    flashAttention_ = new QCheckBox(tr("Flash attention"), this);
    flashAttention_->setObjectName(QStringLiteral("flashAttention"));
    flashAttention_->setToolTip(tr("Attention without materialising the score matrix"));
    overlapGradReduce_ = new QCheckBox(tr("Overlap gradient reduction"), this);
    overlapGradReduce_->setObjectName(QStringLiteral("overlapGradReduce"));
    overlapGradReduce_->setToolTip(tr("Megatron --overlap-grad-reduce: reduce gradients bucket by bucket during the "
                                      "last micro-batch's backward (Megatron's default is off)"));
    overlapParamGather_ = new QCheckBox(tr("Overlap weight gather"), this);
    overlapParamGather_->setObjectName(QStringLiteral("overlapParamGather"));
    overlapParamGather_->setToolTip(tr("Megatron --overlap-param-gather: gather the updated weights during the next "
                                       "forward; needs the distributed optimizer and the gradient overlap"));
    auto* checks = new QVBoxLayout;
    checks->setSpacing(2);
    checks->addWidget(distributedOptimizer_);
    checks->addWidget(overlapGradReduce_);
    checks->addWidget(overlapParamGather_);
    checks->addWidget(sequenceParallel_);
    checks->addWidget(flashAttention_);
    form->addRow(tr("Options"), checks);

    // Megatron's default is 0.1 on both; the planner's 0 (LLaMA-style).
    const auto rateBox = [this](const char* name, const QString& tip) {
        auto* box = new QDoubleSpinBox(this);
        box->setObjectName(QString::fromLatin1(name));
        box->setRange(0.0, 0.999);
        box->setDecimals(3);
        box->setSingleStep(0.05);
        box->setToolTip(tip);
        return box;
    };
    attentionDropout_ = rateBox("attentionDropout",
                                tr("--attention-dropout: above 0, unfused attention keeps a mask and the "
                                   "dropped-out scores (3 bytes per score); FlashAttention keeps nothing more"));
    hiddenDropout_ = rateBox("hiddenDropout",
                             tr("--hidden-dropout: above 0, every layer keeps two 1-byte masks of "
                                "sequence x batch x hidden"));
    auto* dropout = new QHBoxLayout;
    dropout->addWidget(new QLabel(tr("attention"), this));
    dropout->addWidget(attentionDropout_);
    dropout->addSpacing(8);
    dropout->addWidget(new QLabel(tr("hidden"), this));
    dropout->addWidget(hiddenDropout_);
    dropout->addStretch(1);
    form->addRow(tr("Dropout"), dropout);
}

void SetupPanel::connectInputs()
{
    auto notify = [this] { emit changed(); };
    connect(globalBatch_.spin, &QSpinBox::valueChanged, this, notify);
    connect(maxPipeline_.spin, &QSpinBox::valueChanged, this, notify);
    connect(schedule_, &QComboBox::currentIndexChanged, this, notify);
    connect(meshes_, &QComboBox::currentIndexChanged, this, notify);
    connect(recompute_, &QComboBox::currentIndexChanged, this, notify);
    connect(precision_, &QComboBox::currentIndexChanged, this, notify);
    for (QCheckBox* box :
         {distributedOptimizer_, overlapGradReduce_, overlapParamGather_, sequenceParallel_, flashAttention_})
        connect(box, &QCheckBox::toggled, this, notify);
    // Megatron refuses the weight-gather overlap without the other two.
    auto gatherAllowed = [this] {
        overlapParamGather_->setEnabled(distributedOptimizer_->isChecked() && overlapGradReduce_->isChecked());
    };
    connect(distributedOptimizer_, &QCheckBox::toggled, this, gatherAllowed);
    connect(overlapGradReduce_, &QCheckBox::toggled, this, gatherAllowed);
    for (QDoubleSpinBox* box : {attentionDropout_, hiddenDropout_})
        connect(box, &QDoubleSpinBox::valueChanged, this, notify);
}

void SetupPanel::buildModelRow()
{
    modelCombo_ = new QComboBox(this);
    modelCombo_->setObjectName(QStringLiteral("model"));
    modelSummary_ = new QLabel(this);
    modelSummary_->setObjectName(QStringLiteral("modelSummary"));
    modelSummary_->setWordWrap(true);
    const QColor t = palette().color(QPalette::WindowText);  // faded: secondary text
    modelSummary_->setStyleSheet(
        QStringLiteral("QLabel { color: rgba(%1, %2, %3, 60%); }").arg(t.red()).arg(t.green()).arg(t.blue()));
    rebuildModelCombo();
    connect(modelCombo_, &QComboBox::activated, this, &SetupPanel::onModelChosen);
}

void SetupPanel::rebuildModelCombo()
{
    const QSignalBlocker block(modelCombo_);
    modelCombo_->clear();
    for (const auto& m : ModelSpec::presets())
        modelCombo_->addItem(QString::fromStdString(m.name));
    for (const auto& c : customModels_)
        modelCombo_->addItem(c.label);
    modelCombo_->insertSeparator(modelCombo_->count());
    modelCombo_->addItem(tr("Custom model file…"));
    modelCombo_->setItemData(modelCombo_->count() - 1, tr("Load a memx-model/1 JSON file"), Qt::ToolTipRole);
}

void SetupPanel::selectModelIndex(int index)
{
    const int presets = static_cast<int>(ModelSpec::presets().size());
    modelIndex_ = index;
    model_ = index < presets ? ModelSpec::presets()[index] : customModels_[index - presets].spec;
    const QSignalBlocker block(modelCombo_);
    modelCombo_->setCurrentIndex(index);
    showModelSummary();
}

void SetupPanel::onModelChosen(int index)
{
    if (index == modelCombo_->count() - 1) {  // "Custom model file…"
        const QString path = FileDialogs::openFile(this, tr("Open model"), tr("MemX model (*.json);;All files (*)"),
                                                   QStringLiteral("model"));
        if (path.isEmpty() || !loadModelFile(path)) {
            const QSignalBlocker block(modelCombo_);
            modelCombo_->setCurrentIndex(modelIndex_);
        }
        return;
    }
    if (index == modelIndex_)
        return;
    modelError_.clear();
    selectModelIndex(index);
    refreshErrors();
    emit changed();
}

bool SetupPanel::loadModelFile(const QString& path)
{
    ModelSpec loaded;
    try {
        loaded = ModelSpec::resolve(path.toStdString());
    } catch (const std::exception& e) {
        modelError_ = tr("Model not loaded: %1").arg(QString::fromStdString(e.what()));
        refreshErrors();
        return false;
    }
    modelError_.clear();
    customModels_.push_back(
        {loaded, QStringLiteral("%1 (%2)").arg(QString::fromStdString(loaded.name), QFileInfo(path).fileName())});
    rebuildModelCombo();
    selectModelIndex(static_cast<int>(ModelSpec::presets().size() + customModels_.size()) - 1);
    refreshErrors();
    emit changed();
    return true;
}

void SetupPanel::showModelSummary()
{
    const ModelSpec& m = model_;
    QString text = tr("%1 layers · hidden %2 · %3 heads (%4 KV) · FFN %5 %6 · vocab %7 · seq %8")
                       .arg(m.numLayers)
                       .arg(m.hidden)
                       .arg(m.heads)
                       .arg(m.queryGroups)
                       .arg(m.ffnHidden)
                       .arg(m.mlp == MlpKind::Gelu ? tr("GeLU") : tr("SwiGLU"))
                       .arg(m.vocab)
                       .arg(m.seqLen);
    modelSummary_->setText(text);
    modelSummary_->setToolTip(QString::fromStdString(m.source));
}

ModelSpec SetupPanel::model() const { return model_; }

void SetupPanel::setModel(const ModelSpec& model)
{
    const auto& presets = ModelSpec::presets();
    int index = -1;
    for (int i = 0; i < static_cast<int>(presets.size()) && index < 0; ++i)
        if (sameModel(presets[i], model))
            index = i;
    for (int i = 0; i < static_cast<int>(customModels_.size()) && index < 0; ++i)
        if (sameModel(customModels_[i].spec, model))
            index = static_cast<int>(presets.size()) + i;
    if (index < 0) {
        customModels_.push_back({model, tr("%1 (custom)").arg(QString::fromStdString(model.name))});
        rebuildModelCombo();
        index = static_cast<int>(presets.size() + customModels_.size()) - 1;
    }
    modelError_.clear();
    selectModelIndex(index);
    model_ = model;  // keeps fields the match ignores (source)
    refreshErrors();
    emit changed();
}

QWidget* SetupPanel::addListField(ListField& field, const QString& objectName, const QString& placeholder,
                                  const QString& toolTip)
{
    field.edit = new QLineEdit(this);
    field.edit->setObjectName(objectName);
    field.edit->setPlaceholderText(placeholder);
    field.edit->setToolTip(toolTip);
    connect(field.edit, &QLineEdit::textEdited, this, [this, &field] { onListEdited(field); });
    field.reason = new QLabel(this);
    field.reason->setObjectName(objectName + QStringLiteral("Reason"));
    field.reason->setWordWrap(true);
    field.reason->setStyleSheet(kReasonStyle);
    field.reason->hide();
    return stacked(field.edit, field.reason);
}

QWidget* SetupPanel::addSpinField(SpinField& field, const QString& objectName, int minimum, int maximum)
{
    field.spin = new QSpinBox(this);
    field.spin->setObjectName(objectName);
    field.spin->setRange(minimum, maximum);
    field.reason = new QLabel(this);
    field.reason->setObjectName(objectName + QStringLiteral("Reason"));
    field.reason->setWordWrap(true);
    field.reason->setStyleSheet(kReasonStyle);
    field.reason->hide();
    if (auto* edit = field.spin->findChild<QLineEdit*>())
        connect(edit, &QLineEdit::textEdited, this, [this, &field] { onSpinEdited(field); });
    connect(field.spin, &QSpinBox::editingFinished, this, [this, &field] { onSpinFinished(field); });
    return stacked(field.spin, field.reason);
}

QString SetupPanel::rangeInWords(const SpinField& field) const
{
    const QLocale locale;
    return tr("%1 to %2%3")
        .arg(locale.toString(field.spin->minimum()), locale.toString(field.spin->maximum()),
             field.unit.isEmpty() ? QString() : QStringLiteral(" ") + field.unit);
}

// Text the box cannot take (0 for a global batch): said at once, and the
// search is refused while it stands (errorText, focusFirstInvalid).
void SetupPanel::onSpinEdited(SpinField& field)
{
    const bool ok = field.spin->hasAcceptableInput();
    field.typed = ok ? QString() : field.spin->cleanText();
    field.error = ok ? QString() : tr("%1: %2").arg(field.name, rangeInWords(field));
    field.reason->setText(ok ? QString() : rangeInWords(field));
    field.reason->setVisible(!ok);
    if (auto* edit = field.spin->findChild<QLineEdit*>())
        markInvalid(edit, !ok);
}

// Leaving the field puts the last value back (QSpinBox's fixup): no longer
// blocking, but not silent either.
void SetupPanel::onSpinFinished(SpinField& field)
{
    if (field.error.isEmpty())
        return;
    field.error.clear();
    if (auto* edit = field.spin->findChild<QLineEdit*>())
        markInvalid(edit, false);
    field.reason->setText(tr("%1 was not applied (%2); it stays %3")
                              .arg(field.typed.isEmpty() ? tr("An empty field") : field.typed, rangeInWords(field),
                                   QLocale().toString(field.spin->value())));
    field.reason->setVisible(true);
}

void SetupPanel::onListEdited(ListField& field)
{
    QString reason;
    const auto parsed = parseList(field.edit->text(), field.minimum, field.allowDefault, &reason);
    field.error = parsed ? QString() : QStringLiteral("%1: %2").arg(field.name, reason);
    markInvalid(field.edit, !parsed);
    field.reason->setText(reason);
    field.reason->setVisible(!parsed);
    refreshErrors();
    if (parsed && *parsed != field.value) {
        field.value = *parsed;
        emit changed();
    }
}

void SetupPanel::setListText(ListField& field, const std::vector<int>& values)
{
    field.value = values;
    field.error.clear();
    field.edit->setText(formatList(values, field.allowDefault));
    markInvalid(field.edit, false);
    field.reason->hide();
}

void SetupPanel::refreshErrors()
{
    errorLabel_->setText(modelError_);
    errorLabel_->setVisible(!modelError_.isEmpty());
}

QString SetupPanel::errorText() const
{
    QStringList errors;
    if (!modelError_.isEmpty())
        errors << modelError_;
    for (const SpinField* f : {&globalBatch_, &maxPipeline_})
        if (!f->error.isEmpty())
            errors << f->error;
    for (const ListField* f : {&microBatchSizes_, &seqLens_, &queryGroups_})
        if (!f->error.isEmpty())
            errors << f->error;
    return errors.join(QLatin1Char('\n'));
}

bool SetupPanel::focusFirstInvalid()
{
    for (SpinField* f : {&globalBatch_, &maxPipeline_})
        if (!f->error.isEmpty()) {
            f->spin->setFocus(Qt::OtherFocusReason);
            f->spin->selectAll();
            return true;
        }
    for (ListField* f : {&microBatchSizes_, &seqLens_, &queryGroups_})
        if (!f->error.isEmpty()) {
            f->edit->setFocus(Qt::OtherFocusReason);
            f->edit->selectAll();
            return true;
        }
    return false;
}

TrainingSetup SetupPanel::setup() const
{
    TrainingSetup s = base_;
    s.globalBatch = globalBatch_.spin->value();
    s.microBatchSizes = microBatchSizes_.value;
    s.seqLens = seqLens_.value;
    s.queryGroups = queryGroups_.value;
    s.maxPipelineStages = maxPipeline_.spin->value();
    s.schedule = static_cast<ScheduleMode>(schedule_->currentData().toInt());
    s.meshes = static_cast<MeshMode>(meshes_->currentData().toInt());
    s.recompute = static_cast<RecomputeMode>(recompute_->currentData().toInt());
    s.precision = precision_->currentData().toString().toStdString();
    s.distributedOptimizer = distributedOptimizer_->isChecked();
    s.overlapGradReduce = overlapGradReduce_->isChecked();
    s.overlapParamGather = overlapParamGather_->isChecked() && s.overlapGradReduce && s.distributedOptimizer;
    s.sequenceParallel = sequenceParallel_->isChecked();
    s.flashAttention = flashAttention_->isChecked();
    // A rate the boxes cannot show (0.0004, 0.9995) stays as set until edited.
    if (attentionDropout_->value() != shownAttentionDropout_)
        s.attentionDropout = attentionDropout_->value();
    if (hiddenDropout_->value() != shownHiddenDropout_)
        s.hiddenDropout = hiddenDropout_->value();
    return s;
}

void SetupPanel::setSetup(const TrainingSetup& s)
{
    base_ = s;
    {
        const QSignalBlocker b1(globalBatch_.spin), b2(maxPipeline_.spin), b3(schedule_), b4(recompute_);
        const QSignalBlocker b5(distributedOptimizer_), b6(sequenceParallel_), b7(flashAttention_), b8(precision_);
        const QSignalBlocker b9(attentionDropout_), b10(hiddenDropout_), b11(overlapGradReduce_),
            b12(overlapParamGather_), b13(meshes_);
        globalBatch_.spin->setValue(s.globalBatch);
        maxPipeline_.spin->setValue(s.maxPipelineStages);
        schedule_->setCurrentIndex(schedule_->findData(int(s.schedule)));
        meshes_->setCurrentIndex(meshes_->findData(int(s.meshes)));
        recompute_->setCurrentIndex(recompute_->findData(int(s.recompute)));
        const int precisionIndex = precision_->findData(QString::fromStdString(s.precision));
        precision_->setCurrentIndex(precisionIndex >= 0 ? precisionIndex : 0);
        distributedOptimizer_->setChecked(s.distributedOptimizer);
        overlapGradReduce_->setChecked(s.overlapGradReduce);
        overlapParamGather_->setChecked(s.overlapParamGather);
        overlapParamGather_->setEnabled(s.distributedOptimizer && s.overlapGradReduce);
        sequenceParallel_->setChecked(s.sequenceParallel);
        flashAttention_->setChecked(s.flashAttention);
        attentionDropout_->setValue(s.attentionDropout);
        hiddenDropout_->setValue(s.hiddenDropout);
        shownAttentionDropout_ = attentionDropout_->value();
        shownHiddenDropout_ = hiddenDropout_->value();
        setListText(microBatchSizes_, s.microBatchSizes);
        setListText(seqLens_, s.seqLens);
        setListText(queryGroups_, s.queryGroups);
    }
    refreshErrors();
    emit changed();
}

}  // namespace memx
