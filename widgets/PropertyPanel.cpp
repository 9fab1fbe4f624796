#include "PropertyPanel.h"

#include "ClusterDocument.h"

#include "hardware/Cluster.h"
#include "io/Ranges.h"
#include "io/Text.h"
#include "hardware/GpuCatalog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

namespace memx {

namespace {

const char* const kKinds[] = {"NVLink", "PCIe", "xGMI", "HCCS", "cross-NUMA", "InfiniBand", "RoCE", "Ethernet"};

struct TypeField {
    const char* key;
    const char* label;
    double min, max, step;
    int decimals;
    const char* suffix;
};
const TypeField kTypeFields[] = {
    {"peak_tflops_bf16", "Peak bf16", 0, 100000, 1, 1, " TFLOP/s"},
    {"memory_gib", "Memory", 0, 100000, 1, 1, " GiB"},
    {"memory_bandwidth_gbps", "Memory bandwidth", 0, 1e6, 10, 0, " GB/s"},
    {"default_efficiency", "Efficiency", 0, 1, 0.01, 3, ""},
    {"calibration.efficiency_multiplier", "Efficiency ×", 0, 10, 0.01, 3, ""},
    {"calibration.memory_multiplier", "Memory ×", 0, 10, 0.01, 3, ""},
    {"calibration.runtime_reserve_gib", "Runtime reserve", -1, 1000, 0.1, 2, " GiB"},
    // Below zero: unknown (no cost figures for plans that use the type).
    {"price_per_gpu_hour", "Price per GPU-hour", -0.01, 10000, 0.05, 2, ""},
};

const GpuType* findType(const Cluster& c, const QString& name)
{
    for (const auto& t : c.types())
        if (QString::fromStdString(t.name) == name)
            return &t;
    return nullptr;
}

const Link* findLink(const Cluster& c, const QString& name)
{
    for (const auto& l : c.links())
        if (QString::fromStdString(l.name) == name)
            return &l;
    return nullptr;
}

double typeValue(const GpuType& t, const QString& key)
{
    if (key == "peak_tflops_bf16")
        return t.peakTflopsBf16;
    if (key == "memory_gib")
        return t.memoryGiB;
    if (key == "memory_bandwidth_gbps")
        return t.memoryBandwidthGBps;
    if (key == "default_efficiency")
        return t.defaultEfficiency;
    if (key == "calibration.efficiency_multiplier")
        return t.calibration.efficiencyMultiplier;
    if (key == "calibration.memory_multiplier")
        return t.calibration.memoryMultiplier;
    if (key == "calibration.runtime_reserve_gib")
        return t.calibration.runtimeReserveGiB;
    if (key == "price_per_gpu_hour")
        return t.pricePerHour;
    return 0;
}

QString endsText(const Link& l)
{
    if (l.across)
        return QString::fromStdString(Text::join(l.acrossSelectors));
    return l.within ? QString::fromStdString(l.aSelector)
                    : QString::fromStdString(l.aSelector) + QStringLiteral(", ") + QString::fromStdString(l.bSelector);
}

}  // namespace

PropertyPanel::PropertyPanel(ClusterDocument* document, QWidget* parent)
    : QWidget(parent)
    , document_(document)
    , title_(new QLabel(this))
    , error_(new QLabel(this))
{
    auto* layout = new QVBoxLayout(this);
    // One width for every form (cluster, node, GPU, link): the dock sized
    // itself to each form's minimum, and the canvas beside it jumped under
    // the mouse at every selection. The widest form fits in this.
    setMinimumWidth(kFormWidth);
    QFont f = title_->font();
    f.setBold(true);
    title_->setFont(f);
    title_->setWordWrap(true);  // a long type or node name must not widen the dock
    error_->setObjectName(QStringLiteral("propertyError"));
    error_->setWordWrap(true);
    error_->setStyleSheet(QStringLiteral("color: #c62828;"));
    error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(title_);
    layout->addStretch(0);
    layout->addWidget(error_);
    layout->addStretch(1);
    connect(document_, &ClusterDocument::changed, this, &PropertyPanel::refresh);
    CanvasSelection::followRenames(document_, this, &selection_);
    rebuildForm();
}

QString PropertyPanel::errorText() const { return error_->text(); }

bool PropertyPanel::isRefused(const QString& key) const { return !refusedKey_.isEmpty() && refusedKey_ == key; }

QStringList PropertyPanel::typesInNode() const
{
    QStringList out;
    const Cluster& c = document_->cluster();
    for (const auto& g : c.groups())
        if (QString::fromStdString(c.nodes()[g.node].name) == selection_.node)
            out << QString::fromStdString(c.types()[g.type].name);
    return out;
}

bool PropertyPanel::targetExists() const
{
    const Cluster& c = document_->cluster();
    switch (selection_.kind) {
    case CanvasSelection::Node:
        return std::any_of(c.nodes().begin(), c.nodes().end(),
                           [&](const Node& n) { return QString::fromStdString(n.name) == selection_.node; });
    case CanvasSelection::Gpu: return document_->gpuCount(selection_.node, selection_.gpuType) > 0;
    case CanvasSelection::Link: return findLink(c, selection_.link) != nullptr;
    case CanvasSelection::None: return true;
    }
    return false;
}

void PropertyPanel::setSelection(const CanvasSelection& selection)
{
    const bool sameForm = selection.kind == selection_.kind && selection.node == selection_.node
        && selection.gpuType == selection_.gpuType && selection.link == selection_.link;
    selection_ = selection;
    if (sameForm && form_)
        refresh();
    else
        rebuildForm();
}

void PropertyPanel::report(const QString& key, bool ok, const QString& reason)
{
    if (QWidget* w = field(key))
        w->setStyleSheet(ok ? QString() : QStringLiteral("background: #ffd6d6;"));
    refusedKey_ = ok ? QString() : key;
    error_->setText(ok ? QString() : inWords(key, reason));
}

// A refusal as the form's user reads it: for a field with a plausible range,
// the field's name and its range (the file's JSON path and its override are
// the CLI's words, and no control here sets the override).
QString PropertyPanel::inWords(const QString& key, const QString& reason) const
{
    struct Named {
        const char* key;
        const char* label;  // as the form labels the field
        const Range* range;
    };
    static const Named named[] = {
        {"bandwidth_gbps", QT_TR_NOOP("Bandwidth"), &ranges::bandwidthGBps},
        {"latency_us", QT_TR_NOOP("Latency"), &ranges::latencyUs},
        {"peak_tflops_bf16", QT_TR_NOOP("Peak bf16"), &ranges::peakTflops},
        {"memory_gib", QT_TR_NOOP("Memory"), &ranges::gpuMemoryGiB},
        {"memory_bandwidth_gbps", QT_TR_NOOP("Memory bandwidth"), &ranges::memoryBandwidthGBps},
        {"calibration.efficiency_multiplier", QT_TR_NOOP("Efficiency ×"), &ranges::efficiencyMultiplier},
        {"calibration.memory_multiplier", QT_TR_NOOP("Memory ×"), &ranges::memoryMultiplier},
        {"price_per_gpu_hour", QT_TR_NOOP("Price per GPU-hour"), &ranges::pricePerGpuHour},
    };
    for (const Named& n : named) {
        if (key != QLatin1String(n.key))
            continue;
        auto* spin = qobject_cast<QDoubleSpinBox*>(field(key));
        if (spin && spin->value() >= n.range->min && spin->value() <= n.range->max)
            return reason;  // refused for another rule than the range: its own words
        const QLocale locale;
        const QString unit = QString::fromLatin1(n.range->unit);
        const QString withUnit = unit.isEmpty() ? QString() : QStringLiteral(" ") + unit;
        QString text = tr("%1: %2 to %3%4")
                           .arg(tr(n.label), locale.toString(n.range->min, 'g', 6),
                                locale.toString(n.range->max, 'f', 0), withUnit);
        if (spin)
            text += tr("; %1%2 was not applied").arg(locale.toString(spin->value(), 'g', 10), withUnit);
        return text;
    }
    return reason;
}

void PropertyPanel::rebuildForm()
{
    if (form_) {
        // Deferred: the form may be rebuilt from one of its own fields' signals
        // (a count set to 0 removes the type whose spin box is emitting).
        form_->hide();
        form_->deleteLater();
    }
    form_ = new QWidget(this);
    formLayout_ = new QFormLayout(form_);
    formLayout_->setContentsMargins(0, 0, 0, 0);
    formLayout_->setRowWrapPolicy(QFormLayout::WrapLongRows);  // a narrow dock puts fields under their labels
    static_cast<QVBoxLayout*>(layout())->insertWidget(1, form_);
    fields_.clear();
    refusedKey_.clear();
    error_->clear();
    if (!targetExists())
        selection_ = {};

    switch (selection_.kind) {
    case CanvasSelection::None: buildClusterForm(); break;
    case CanvasSelection::Node: buildNodeForm(); break;
    case CanvasSelection::Gpu: buildGpuForm(); break;
    case CanvasSelection::Link: buildLinkForm(); break;
    }
    // Fields keep the height they ask for (a spin box's minimum is a few
    // pixels less): the panel's minimum is then honest and its scroll area
    // scrolls rather than squashing them.
    for (QWidget* w : form_->findChildren<QWidget*>(Qt::FindDirectChildrenOnly))
        if (qobject_cast<QAbstractSpinBox*>(w) || qobject_cast<QLineEdit*>(w) || qobject_cast<QComboBox*>(w)) {
            QSizePolicy policy = w->sizePolicy();
            policy.setVerticalPolicy(QSizePolicy::Fixed);
            w->setSizePolicy(policy);
        }
    refresh();
}

QDoubleSpinBox* PropertyPanel::addDouble(const QString& key, const QString& label, double min, double max, double step,
                                         int decimals, const QString& suffix)
{
    auto* spin = new QDoubleSpinBox(form_);
    spin->setRange(min, max);
    spin->setSingleStep(step);
    spin->setDecimals(decimals);
    spin->setSuffix(suffix);
    // Commit when the field is finished (Enter, leaving it, an arrow
    // step), never a prefix typed on the way to the value meant.
    spin->setKeyboardTracking(false);
    formLayout_->addRow(label, spin);
    fields_.insert(key, spin);
    return spin;
}

// Nothing selected: the cluster's name and description.
void PropertyPanel::buildClusterForm()
{
    title_->setText(tr("Cluster"));
    for (const QString& key : {QStringLiteral("name"), QStringLiteral("description")}) {
        auto* edit = new QLineEdit(form_);
        formLayout_->addRow(key == QLatin1String("name") ? tr("Name") : tr("Description"), edit);
        const QString fieldKey = key == QLatin1String("name") ? QStringLiteral("cluster_name") : key;
        fields_.insert(fieldKey, edit);
        connect(edit, &QLineEdit::editingFinished, this, [this, edit, key, fieldKey] {
            QString reason;
            bool ok = document_->setClusterInfo(key, edit->text(), &reason);
            report(fieldKey, ok, reason);
        });
    }
    auto* hint = new QLabel(tr("Select a node, GPU or link on the canvas to edit it."), form_);
    hint->setWordWrap(true);
    formLayout_->addRow(hint);
}

// A node: its name, its GPUs by type, adding a type.
void PropertyPanel::buildNodeForm()
{
    title_->setText(tr("Node"));
    auto* name = new QLineEdit(form_);
    formLayout_->addRow(tr("Name"), name);
    fields_.insert(QStringLiteral("name"), name);
    auto* gpus = new QLabel(form_);
    gpus->setObjectName(QStringLiteral("gpus"));
    formLayout_->addRow(tr("GPUs"), gpus);
    connect(name, &QLineEdit::editingFinished, this, [this, name] {
        if (name->text() == selection_.node)
            return;
        QString reason;
        bool ok = document_->renameNode(selection_.node, name->text(), &reason);
        report(QStringLiteral("name"), ok, reason);
    });
    // One count per type in the node; 0 removes the type.
    nodeTypes_ = typesInNode();
    for (const QString& type : nodeTypes_) {
        const QString key = QStringLiteral("count/") + type;
        auto* count = new QSpinBox(form_);
        count->setRange(0, 4096);
        count->setKeyboardTracking(false);  // typing 16 must not pass through 1 (and drop links)
        count->setToolTip(tr("GPUs of %1 in this node; 0 removes the type").arg(type));
        formLayout_->addRow(tr("%1 ×").arg(type), count);
        fields_.insert(key, count);
        connect(count, &QSpinBox::valueChanged, this, [this, type, key](int value) {
            QString reason;
            bool ok = document_->setGpuCount(selection_.node, type, value, &reason);
            report(key, ok, reason);
        });
    }
    auto* addRow = new QWidget(form_);
    auto* addLayout = new QHBoxLayout(addRow);
    addLayout->setContentsMargins(0, 0, 0, 0);
    auto* addType = new QComboBox(addRow);
    for (const auto& typeName : GpuCatalog::builtin().names())
        if (!nodeTypes_.contains(QString::fromStdString(typeName)))
            addType->addItem(QString::fromStdString(typeName));
    auto* addCount = new QSpinBox(addRow);
    addCount->setRange(1, 4096);
    addCount->setValue(8);
    auto* addButton = new QPushButton(tr("Add"), addRow);
    addLayout->addWidget(addType, 1);
    addLayout->addWidget(addCount);
    addLayout->addWidget(addButton);
    formLayout_->addRow(tr("Add type"), addRow);
    fields_.insert(QStringLiteral("add_type"), addType);
    fields_.insert(QStringLiteral("add_count"), addCount);
    fields_.insert(QStringLiteral("add"), addButton);
    connect(addButton, &QPushButton::clicked, this, [this, addType, addCount] {
        const QString type = addType->currentText();
        QString reason;
        bool ok = document_->addGpus(selection_.node, type, addCount->value(), &reason);
        report(QStringLiteral("add_type"), ok, reason);
    });
}

// One GPU: its count in the node and its type's fields (overrides in the cluster).
void PropertyPanel::buildGpuForm()
{
    title_->setText(tr("%1 in node %2").arg(selection_.gpuType, selection_.node));
    auto* count = new QSpinBox(form_);
    count->setRange(0, 4096);
    count->setKeyboardTracking(false);  // typing 16 must not pass through 1 (and drop links)
    formLayout_->addRow(tr("Count in node"), count);
    fields_.insert(QStringLiteral("count"), count);
    connect(count, &QSpinBox::valueChanged, this, [this](int value) {
        QString reason;
        bool ok = document_->setGpuCount(selection_.node, selection_.gpuType, value, &reason);
        report(QStringLiteral("count"), ok, reason);
    });
    auto* note
        = new QLabel(tr("Type fields apply to every %1 in the cluster (overrides).").arg(selection_.gpuType), form_);
    note->setWordWrap(true);
    formLayout_->addRow(note);
    for (const auto& tf : kTypeFields) {
        const QString key = QString::fromLatin1(tf.key);
        auto* spin = addDouble(key, tr(tf.label), tf.min, tf.max, tf.step, tf.decimals, QString::fromUtf8(tf.suffix));
        if (key == "calibration.runtime_reserve_gib")
            spin->setSpecialValueText(tr("catalog"));
        if (key == "price_per_gpu_hour") {
            spin->setSpecialValueText(tr("unknown"));
            spin->setToolTip(tr("What one GPU of this type costs per hour, in any currency used for every "
                                "type: plans then show cost per hour and per million tokens"));
        }
        connect(spin, &QDoubleSpinBox::valueChanged, this, [this, key](double value) {
            nlohmann::json v = value;
            if ((key == "calibration.runtime_reserve_gib" || key == "price_per_gpu_hour") && value < 0)
                v = nullptr;  // back to the catalog's reserve / price
            QString reason;
            bool ok = document_->setTypeOverride(selection_.gpuType, key, v, &reason);
            report(key, ok, reason);
        });
    }
}

// A link: name, kind, ends, bandwidth and latency, sharing.
void PropertyPanel::buildLinkForm()
{
    title_->setText(tr("Link"));
    auto* name = new QLineEdit(form_);
    formLayout_->addRow(tr("Name"), name);
    fields_.insert(QStringLiteral("name"), name);
    connect(name, &QLineEdit::editingFinished, this, [this, name] {
        if (name->text() == selection_.link)
            return;
        QString reason;
        bool ok = document_->editLink(selection_.link, QStringLiteral("name"), name->text().toStdString(), &reason);
        report(QStringLiteral("name"), ok, reason);
    });
    auto* kind = new QComboBox(form_);
    for (const char* k : kKinds)
        kind->addItem(QString::fromLatin1(k));
    formLayout_->addRow(tr("Kind"), kind);
    fields_.insert(QStringLiteral("kind"), kind);
    connect(kind, &QComboBox::currentTextChanged, this, [this](const QString& text) {
        QString reason;
        bool ok = document_->editLink(selection_.link, QStringLiteral("kind"), text.toStdString(), &reason);
        report(QStringLiteral("kind"), ok, reason);
    });
    auto* ends = new QLineEdit(form_);
    ends->setToolTip(tr("One selector (a fabric within it) or two separated by a comma (every device of the first "
                        "with every device of the second). Selectors: node, node:i, node:i-j."));
    formLayout_->addRow(tr("Ends"), ends);
    fields_.insert(QStringLiteral("ends"), ends);
    connect(ends, &QLineEdit::editingFinished, this, [this, ends] {
        const Link* l = findLink(document_->cluster(), selection_.link);
        if (!l || ends->text() == endsText(*l))
            return;
        const QStringList parts = ends->text().split(QLatin1Char(','), Qt::SkipEmptyParts);
        QString reason;
        bool ok = false;
        if (parts.size() == 1)
            ok = document_->editLink(selection_.link, QStringLiteral("within"), parts[0].trimmed().toStdString(),
                                     &reason);
        else if (parts.size() == 2)
            ok = document_->editLink(selection_.link, QStringLiteral("between"),
                                     nlohmann::json::array(
                                         {parts[0].trimmed().toStdString(), parts[1].trimmed().toStdString()}),
                                     &reason);
        else
            reason = tr("ends: give one selector or two separated by a comma");
        report(QStringLiteral("ends"), ok, reason);
    });
    auto* bandwidth = addDouble(QStringLiteral("bandwidth_gbps"), tr("Bandwidth"), -1e6, 1e6, 1, 2, tr(" GB/s"));
    connect(bandwidth, &QDoubleSpinBox::valueChanged, this, [this](double value) {
        QString reason;
        bool ok = document_->editLink(selection_.link, QStringLiteral("bandwidth_gbps"), value, &reason);
        report(QStringLiteral("bandwidth_gbps"), ok, reason);
    });
    auto* latency = addDouble(QStringLiteral("latency_us"), tr("Latency"), -1e6, 1e6, 0.5, 2, tr(" µs"));
    connect(latency, &QDoubleSpinBox::valueChanged, this, [this](double value) {
        QString reason;
        bool ok = document_->editLink(selection_.link, QStringLiteral("latency_us"), value, &reason);
        report(QStringLiteral("latency_us"), ok, reason);
    });
    auto* shared = new QCheckBox(tr("one physical medium (transfers split it)"), form_);
    formLayout_->addRow(tr("Shared"), shared);
    fields_.insert(QStringLiteral("shared"), shared);
    connect(shared, &QCheckBox::toggled, this, [this](bool on) {
        QString reason;
        bool ok = document_->editLink(selection_.link, QStringLiteral("shared"),
                                      on ? nlohmann::json(true) : nlohmann::json(nullptr), &reason);
        report(QStringLiteral("shared"), ok, reason);
    });
    auto* medium = new QLineEdit(form_);
    medium->setPlaceholderText(tr("none"));
    formLayout_->addRow(tr("Medium"), medium);
    fields_.insert(QStringLiteral("medium"), medium);
    connect(medium, &QLineEdit::editingFinished, this, [this, medium] {
        const QString text = medium->text().trimmed();
        QString reason;
        bool ok = document_->editLink(selection_.link, QStringLiteral("medium"),
                                      text.isEmpty() ? nlohmann::json(nullptr) : nlohmann::json(text.toStdString()),
                                      &reason);
        report(QStringLiteral("medium"), ok, reason);
    });
}

void PropertyPanel::refresh()
{
    if (!targetExists()) {
        if (selection_.kind != CanvasSelection::None) {
            selection_ = {};
            rebuildForm();
        }
        return;
    }
    // Values now come from the document: any earlier refusal is moot.
    for (auto* w : fields_)
        w->setStyleSheet(QString());
    refusedKey_.clear();
    error_->clear();
    switch (selection_.kind) {
    case CanvasSelection::None: {
        const auto& doc = document_->json();
        setText(QStringLiteral("cluster_name"), QString::fromStdString(doc.value("name", std::string())));
        setText(QStringLiteral("description"), QString::fromStdString(doc.value("description", std::string())));
        break;
    }
    case CanvasSelection::Node: refreshNode(); break;
    case CanvasSelection::Gpu: refreshGpu(); break;
    case CanvasSelection::Link: refreshLink(); break;
    }
}

// The text of a line edit the user is not typing in.
void PropertyPanel::setText(const QString& key, const QString& text)
{
    if (auto* e = qobject_cast<QLineEdit*>(field(key)); e && !e->hasFocus()) {
        QSignalBlocker block(e);
        e->setText(text);
    }
}

void PropertyPanel::setDouble(const QString& key, double v)
{
    if (auto* s = qobject_cast<QDoubleSpinBox*>(field(key)); s && s->value() != v) {
        QSignalBlocker block(s);
        s->setValue(v);
    }
}

void PropertyPanel::refreshNode()
{
    const Cluster& c = document_->cluster();
    if (typesInNode() != nodeTypes_) {
        rebuildForm();  // a type came or went: one count field per type
        return;
    }
    for (const QString& type : nodeTypes_)
        if (auto* count = qobject_cast<QSpinBox*>(field(QStringLiteral("count/") + type));
            count && count->value() != document_->gpuCount(selection_.node, type)) {
            QSignalBlocker block(count);
            count->setValue(document_->gpuCount(selection_.node, type));
        }
    setText(QStringLiteral("name"), selection_.node);
    QStringList parts;
    for (const auto& g : c.groups())
        if (QString::fromStdString(c.nodes()[g.node].name) == selection_.node)
            parts
                << QStringLiteral("%1 × %2").arg(g.devices.size()).arg(QString::fromStdString(c.types()[g.type].name));
    if (auto* gpus = form_->findChild<QLabel*>(QStringLiteral("gpus")))
        gpus->setText(parts.join(QStringLiteral(", ")));
}

void PropertyPanel::refreshGpu()
{
    const Cluster& c = document_->cluster();
    if (auto* count = qobject_cast<QSpinBox*>(field(QStringLiteral("count")))) {
        QSignalBlocker block(count);
        count->setValue(document_->gpuCount(selection_.node, selection_.gpuType));
    }
    if (const GpuType* t = findType(c, selection_.gpuType))
        for (const auto& tf : kTypeFields)
            setDouble(QString::fromLatin1(tf.key), typeValue(*t, QString::fromLatin1(tf.key)));
}

void PropertyPanel::refreshLink()
{
    const Cluster& c = document_->cluster();
    const Link* l = findLink(c, selection_.link);
    if (!l)
        return;
    setText(QStringLiteral("name"), selection_.link);
    if (auto* kind = qobject_cast<QComboBox*>(field(QStringLiteral("kind")))) {
        QSignalBlocker block(kind);
        kind->setCurrentText(QString::fromLatin1(toString(l->kind)));
    }
    setText(QStringLiteral("ends"), endsText(*l));
    setDouble(QStringLiteral("bandwidth_gbps"), l->bandwidthGBps);
    setDouble(QStringLiteral("latency_us"), l->latencyUs);
    if (auto* shared = qobject_cast<QCheckBox*>(field(QStringLiteral("shared")))) {
        QSignalBlocker block(shared);
        shared->setChecked(l->sharedFlag);
    }
    setText(QStringLiteral("medium"), QString::fromStdString(l->mediumName));
}

}  // namespace memx
