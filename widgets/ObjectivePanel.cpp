#include "ObjectivePanel.h"

#include "PlanColors.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QRadioButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace memx {

namespace {
constexpr std::array<WeightProfile, 6> kProfiles{WeightProfile::Default,         WeightProfile::SafetyFirst,
                                                 WeightProfile::ThroughputFirst, WeightProfile::Balanced,
                                                 WeightProfile::Custom,          WeightProfile::Auto};

double& at(Weights& w, int i) { return i == 0 ? w.time : i == 1 ? w.memory : w.variance; }
double at(const Weights& w, int i) { return i == 0 ? w.time : i == 1 ? w.memory : w.variance; }

QString weightText(double v) { return QString::number(v, 'f', 2); }

QString profileTitle(WeightProfile p)
{
    switch (p) {
    case WeightProfile::Default: return ObjectivePanel::tr("Default");
    case WeightProfile::SafetyFirst: return ObjectivePanel::tr("Safety-first");
    case WeightProfile::ThroughputFirst: return ObjectivePanel::tr("Throughput-first");
    case WeightProfile::Custom: return ObjectivePanel::tr("Custom");
    case WeightProfile::Auto: return ObjectivePanel::tr("Auto");
    case WeightProfile::Balanced: return ObjectivePanel::tr("Balanced");
    }
    return {};
}

QString profileHint(WeightProfile p)
{
    if (p == WeightProfile::Custom)
        return ObjectivePanel::tr("your own weights, below");
    if (p == WeightProfile::Auto)
        return ObjectivePanel::tr("chosen when the search runs");
    if (p == WeightProfile::Balanced)
        return ObjectivePanel::tr("knee of the time-variance front");
    const Weights w = weightsOf(p);
    return QStringLiteral("T %1 · M %2 · V %3").arg(weightText(w.time), weightText(w.memory), weightText(w.variance));
}

// A square of a profile's colour, so the panel matches the comparison view.
QLabel* swatch(WeightProfile p, QWidget* parent)
{
    auto* l = new QLabel(parent);
    const QColor c = p == WeightProfile::Auto ? QColor(Qt::gray) : colors::profile(static_cast<int>(p));
    l->setFixedSize(10, 10);
    l->setStyleSheet(QStringLiteral("background:%1; border-radius:2px;").arg(c.name()));
    return l;
}
}  // namespace

Weights ObjectivePanel::redistribute(const Weights& w, WeightIndex which, double value)
{
    value = std::clamp(value, 0.0, 1.0);
    const int a = (which + 1) % 3;
    const int b = (which + 2) % 3;
    const double wa = std::max(0.0, at(w, a));
    const double wb = std::max(0.0, at(w, b));
    const double rest = 1.0 - value;
    Weights out;
    at(out, which) = value;
    if (wa + wb > 0) {
        at(out, a) = rest * wa / (wa + wb);
        at(out, b) = rest - at(out, a);  // exact complement: the sum stays 1
    } else {
        at(out, a) = rest / 2;
        at(out, b) = rest - at(out, a);
    }
    at(out, b) = std::max(0.0, at(out, b));
    return out;
}

ObjectivePanel::ObjectivePanel(QWidget* parent) : QWidget(parent)
{
    auto* root = new QVBoxLayout(this);
    root->addWidget(buildProfiles());
    root->addWidget(buildWeights());
    root->addWidget(buildVariance());
    root->addWidget(buildTasks());
    root->addWidget(buildConstraints());
    root->addStretch(1);
    connectInputs();
    setObjective(ObjectiveSpec{});
}

// Profiles: one radio a row, with its weights spelled out beside it.
QGroupBox* ObjectivePanel::buildProfiles()
{
    auto* profileBox = new QGroupBox(tr("Weight profile"), this);
    auto* grid = new QGridLayout(profileBox);
    grid->setColumnStretch(2, 1);
    grid->setHorizontalSpacing(8);
    profiles_ = new QButtonGroup(this);
    int row = 0;
    for (WeightProfile p : kProfiles) {
        auto* radio = new QRadioButton(profileTitle(p), profileBox);
        radio->setObjectName(QStringLiteral("profile-%1").arg(QLatin1String(toString(p))));
        profiles_->addButton(radio, static_cast<int>(p));
        auto* hint = new QLabel(profileHint(p), profileBox);
        const QColor t = palette().color(QPalette::WindowText);  // faded: secondary text
        hint->setStyleSheet(
            QStringLiteral("QLabel { color: rgba(%1, %2, %3, 60%); }").arg(t.red()).arg(t.green()).arg(t.blue()));
        grid->addWidget(swatch(p, profileBox), row, 0, Qt::AlignVCenter);
        grid->addWidget(radio, row, 1);
        grid->addWidget(hint, row, 2);
        ++row;
    }
    autoLabel_ = new QLabel(profileBox);
    autoLabel_->setObjectName(QStringLiteral("autoExplanation"));
    autoLabel_->setWordWrap(true);
    autoLabel_->setStyleSheet(QStringLiteral("QLabel { color: palette(highlight); margin-left: 18px; }"));
    grid->addWidget(autoLabel_, row, 1, 1, 2);
    return profileBox;
}

// Custom weights: three linked sliders.
QGroupBox* ObjectivePanel::buildWeights()
{
    weightsBox_ = new QGroupBox(tr("Weights (sum to 1)"), this);
    auto* wgrid = new QGridLayout(weightsBox_);
    wgrid->setColumnStretch(1, 1);
    const std::array<QString, 3> names{tr("Time"), tr("Memory"), tr("Variance")};
    const std::array<QString, 3> ids{QStringLiteral("time"), QStringLiteral("memory"), QStringLiteral("variance")};
    const std::array<QString, 3> tips{tr("wT: exponent of the iteration time"), tr("wM: exponent of the peak memory"),
                                      tr("wV: exponent of the memory variance across GPUs")};
    for (int i = 0; i < 3; ++i) {
        auto* name = new QLabel(names[i], weightsBox_);
        sliders_[i] = new QSlider(Qt::Horizontal, weightsBox_);
        sliders_[i]->setObjectName(QStringLiteral("weight-%1").arg(ids[i]));
        sliders_[i]->setRange(0, kSliderSteps);
        sliders_[i]->setPageStep(kSliderSteps / 10);
        sliders_[i]->setToolTip(tips[i]);
        values_[i] = new QLabel(weightsBox_);
        values_[i]->setObjectName(QStringLiteral("weight-%1-value").arg(ids[i]));
        values_[i]->setMinimumWidth(values_[i]->fontMetrics().horizontalAdvance(QStringLiteral("0.000")));
        values_[i]->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
        wgrid->addWidget(name, i, 0);
        wgrid->addWidget(sliders_[i], i, 1);
        wgrid->addWidget(values_[i], i, 2);
        const auto which = static_cast<WeightIndex>(i);
        connect(sliders_[i], &QSlider::valueChanged, this, [this, which](int pos) { onSliderMoved(which, pos); });
    }
    return weightsBox_;
}

QGroupBox* ObjectivePanel::buildVariance()
{
    auto* varianceBox = new QGroupBox(tr("Memory variance over"), this);
    auto* vcol = new QVBoxLayout(varianceBox);
    auto* vrow = new QHBoxLayout;
    vcol->addLayout(vrow);
    varianceMiB_ = new QRadioButton(tr("absolute peak (MiB²)"), varianceBox);
    varianceMiB_->setObjectName(QStringLiteral("variance-mib"));
    varianceMiB_->setToolTip(tr("The paper's V: variance of the per-GPU peaks in MiB"));
    varianceUtil_ = new QRadioButton(tr("utilisation (peak / capacity)"), varianceBox);
    varianceUtil_->setObjectName(QStringLiteral("variance-utilisation"));
    varianceUtil_->setToolTip(tr("Better when the GPUs have very different memory sizes"));
    vrow->addWidget(varianceMiB_);
    vrow->addWidget(varianceUtil_);
    vrow->addStretch(1);
    auto* erow = new QHBoxLayout;
    auto* elabel = new QLabel(tr("Floor under V (eV)"), varianceBox);
    epsilon_ = new QComboBox(varianceBox);
    epsilon_->setObjectName(QStringLiteral("epsilon-rule"));
    elabel->setBuddy(epsilon_);
    epsilon_->addItem(tr("the memory prediction's uncertainty"), static_cast<int>(EpsilonRule::Uncertainty));
    epsilon_->addItem(tr("the paper's: 0.01 × median V"), static_cast<int>(EpsilonRule::Fraction));
    epsilon_->setToolTip(tr("Plans whose per-GPU peaks differ by less than the prediction's ± are not told apart by "
                            "V under the first; the second is MemX's constant (docs/ARCHITECTURE.md)"));
    erow->addWidget(elabel);
    erow->addWidget(epsilon_, 1);
    vcol->addLayout(erow);
    return varianceBox;
}

QGroupBox* ObjectivePanel::buildTasks()
{
    auto* tasksBox = new QGroupBox(tr("Several sequence lengths or query groups"), this);
    auto* trow = new QHBoxLayout(tasksBox);
    compareTasks_ = new QComboBox(tasksBox);
    compareTasks_->setObjectName(QStringLiteral("compare-tasks"));
    compareTasks_->addItem(tr("each its own task: best plans side by side"), static_cast<int>(TaskCompare::PerTask));
    compareTasks_->addItem(tr("one ranking by time per token"), static_cast<int>(TaskCompare::PerToken));
    compareTasks_->setToolTip(tr("A sequence length or a number of query groups is part of the training task: an "
                                 "iteration at 2048 tokens does not do the work of one at 8192. The first ranks each "
                                 "task on its own; the second counts every plan's time per token"));
    trow->addWidget(compareTasks_, 1);
    return tasksBox;
}

QGroupBox* ObjectivePanel::buildConstraints()
{
    auto* constraints = new QGroupBox(tr("Constraints (before Phi ranks)"), this);
    auto* cform = new QFormLayout(constraints);
    minHeadroom_ = new QDoubleSpinBox(constraints);
    minHeadroom_->setObjectName(QStringLiteral("min-headroom"));
    minHeadroom_->setRange(0, 90);
    minHeadroom_->setDecimals(0);
    minHeadroom_->setSuffix(QStringLiteral(" %"));
    minHeadroom_->setSpecialValueText(tr("off"));
    minHeadroom_->setToolTip(tr("Only plans where every GPU keeps at least this share of its memory free"));
    atUpper_ = new QCheckBox(tr("at the prediction's upper bound"), constraints);
    atUpper_->setObjectName(QStringLiteral("headroom-at-upper"));
    atUpper_->setToolTip(tr("Count the headroom with each peak at peak x (1 + uncertainty)"));
    maxSlowdown_ = new QDoubleSpinBox(constraints);
    maxSlowdown_->setObjectName(QStringLiteral("max-slowdown"));
    maxSlowdown_->setRange(-1, 500);
    maxSlowdown_->setDecimals(0);
    maxSlowdown_->setSuffix(QStringLiteral(" %"));
    maxSlowdown_->setSpecialValueText(tr("off"));
    maxSlowdown_->setToolTip(
        tr("Only plans at most this much slower than the fastest feasible plan (0 %: the fastest)"));
    cform->addRow(tr("Min. headroom per GPU"), minHeadroom_);
    cform->addRow(QString(), atUpper_);
    cform->addRow(tr("Max. slowdown vs fastest"), maxSlowdown_);
    return constraints;
}

void ObjectivePanel::connectInputs()
{
    for (QDoubleSpinBox* box : {minHeadroom_, maxSlowdown_})
        connect(box, &QDoubleSpinBox::valueChanged, this, [this] {
            updateEnabledState();
            emit changed();
        });
    connect(atUpper_, &QCheckBox::toggled, this, [this] { emit changed(); });

    connect(profiles_, &QButtonGroup::idToggled, this, [this](int, bool on) {
        if (!on)
            return;
        updateEnabledState();
        emit changed();
    });
    connect(varianceUtil_, &QRadioButton::toggled, this, [this] { emit changed(); });
    connect(epsilon_, &QComboBox::currentIndexChanged, this, [this] { emit changed(); });
    connect(compareTasks_, &QComboBox::currentIndexChanged, this, [this] { emit changed(); });
}

QAbstractButton* ObjectivePanel::profileButton(WeightProfile kind) const
{
    return profiles_->button(static_cast<int>(kind));
}

WeightProfile ObjectivePanel::currentProfile() const
{
    const int id = profiles_->checkedId();
    return id < 0 ? WeightProfile::Default : static_cast<WeightProfile>(id);
}

ObjectiveSpec ObjectivePanel::objective() const
{
    ObjectiveSpec out = spec_;
    out.profile = currentProfile();
    out.custom = custom_;
    out.variance = varianceUtil_->isChecked() ? VarianceMode::Utilisation : VarianceMode::AbsoluteMiB;
    out.minHeadroom = minHeadroom_->value() / 100;
    out.headroomAtUpper = out.minHeadroom > 0 && atUpper_->isChecked();
    out.maxSlowdown = maxSlowdown_->value() < 0 ? -1 : maxSlowdown_->value() / 100;
    out.compareTasks = static_cast<TaskCompare>(compareTasks_->currentData().toInt());
    // The third entry, when there is one, keeps the project file's own eV.
    if (epsilon_->currentIndex() == 0) {
        out.epsilonRule = EpsilonRule::Uncertainty;
    } else if (epsilon_->currentIndex() == 1) {
        out.epsilonRule = EpsilonRule::Fraction;
        out.epsilonFraction = 0.01;
    }
    return out;
}

void ObjectivePanel::setObjective(const ObjectiveSpec& spec)
{
    spec_ = spec;
    try {
        custom_ = Objective::normalised(spec.custom);
    } catch (const std::invalid_argument&) {
        custom_ = weightsOf(WeightProfile::Default);  // all zero or negative: nothing to keep
    }
    {
        const QSignalBlocker block(profiles_);
        profileButton(spec.profile)->setChecked(true);
    }
    {
        const QSignalBlocker blockA(varianceMiB_);
        const QSignalBlocker blockB(varianceUtil_);
        (spec.variance == VarianceMode::Utilisation ? varianceUtil_ : varianceMiB_)->setChecked(true);
    }
    {
        const QSignalBlocker block(epsilon_);
        while (epsilon_->count() > 2)
            epsilon_->removeItem(2);
        const bool paper = spec.epsilonRule == EpsilonRule::Fraction && spec.epsilonFraction == 0.01;
        if (spec.epsilonRule == EpsilonRule::Uncertainty) {
            epsilon_->setCurrentIndex(0);
        } else if (paper) {
            epsilon_->setCurrentIndex(1);
        } else {
            epsilon_->addItem(spec.epsilonRule == EpsilonRule::Fraction
                                  ? tr("the project's: %1 × median V").arg(spec.epsilonFraction)
                                  : tr("the project's: %1").arg(spec.epsilonValue),
                              static_cast<int>(spec.epsilonRule));
            epsilon_->setCurrentIndex(2);
        }
    }
    {
        const QSignalBlocker block(compareTasks_);
        compareTasks_->setCurrentIndex(compareTasks_->findData(static_cast<int>(spec.compareTasks)));
    }
    {
        const QSignalBlocker a(minHeadroom_), b(atUpper_), c(maxSlowdown_);
        minHeadroom_->setValue(100 * spec.minHeadroom);
        atUpper_->setChecked(spec.headroomAtUpper);
        maxSlowdown_->setValue(spec.maxSlowdown < 0 ? -1 : 100 * spec.maxSlowdown);
    }
    updateEnabledState();
    emit changed();
}

void ObjectivePanel::setAutoExplanation(const QString& text)
{
    autoText_ = text;
    updateEnabledState();
}

QString ObjectivePanel::autoExplanation() const { return autoText_; }

void ObjectivePanel::onSliderMoved(WeightIndex which, int position)
{
    if (currentProfile() != WeightProfile::Custom)
        return;  // sliders are disabled then; a programmatic move must not change the weights
    custom_ = redistribute(custom_, which, static_cast<double>(position) / kSliderSteps);
    showWeights(custom_);
    emit changed();
}

void ObjectivePanel::showWeights(const Weights& w)
{
    for (int i = 0; i < 3; ++i) {
        const QSignalBlocker block(sliders_[i]);  // no feedback into onSliderMoved
        sliders_[i]->setValue(static_cast<int>(std::lround(at(w, i) * kSliderSteps)));
        values_[i]->setText(weightText(at(w, i)));
    }
}

void ObjectivePanel::updateEnabledState()
{
    const WeightProfile p = currentProfile();
    const bool custom = p == WeightProfile::Custom;
    weightsBox_->setEnabled(custom);
    if (custom)
        weightsBox_->setTitle(tr("Weights (sum to 1)"));
    else if (p == WeightProfile::Auto)
        weightsBox_->setTitle(tr("Weights (chosen by auto when the search runs)"));
    else if (p == WeightProfile::Balanced)
        weightsBox_->setTitle(tr("Weights for Phi values (balanced picks the knee, not by Phi)"));
    else
        weightsBox_->setTitle(tr("Weights of %1 (choose Custom to change)").arg(profileTitle(p).toLower()));
    showWeights(custom ? custom_ : weightsOf(p));

    const bool showAuto = p == WeightProfile::Auto;
    autoLabel_->setText(
        autoText_.isEmpty()
            ? tr("Safety-first when the fastest plan leaves under %1% memory headroom, throughput-first "
                 "when the GPUs' compute varies by at most %2% (CV), default otherwise.")
                  .arg(100 * spec_.safetyMarginThreshold)
                  .arg(100 * spec_.weakHeterogeneityThreshold)
            : autoText_);
    autoLabel_->setVisible(showAuto);
    atUpper_->setEnabled(minHeadroom_->value() > 0);
}

}  // namespace memx
