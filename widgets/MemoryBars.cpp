#include "MemoryBars.h"

#include "NumberText.h"
#include "PlotExport.h"

#include "PlanColors.h"
#include "hardware/Cluster.h"
#include "space/Plan.h"

#include <qcustomplot.h>

#include <QFileInfo>
#include <QVBoxLayout>

#include <algorithm>

namespace memx {

namespace {

constexpr double kStageGap = 0.8;  // extra space between stages, in bar widths
constexpr double kBarWidth = 0.72;
const QColor kOverColor(0xd6, 0x27, 0x28);

constexpr colors::MemoryTerm kTerms[5]
    = {colors::MemoryTerm::Weights, colors::MemoryTerm::Gradients, colors::MemoryTerm::Optimizer,
       colors::MemoryTerm::Activations, colors::MemoryTerm::Reserve};

}  // namespace

MemoryBars::MemoryBars(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    // Legend and margin line fit themselves to the width (fitToWidth), so the
    // plot never asks for more than this.
    plot_->setMinimumSize(240, 200);
    rebuild();
}

MemoryBars::~MemoryBars() = default;

void MemoryBars::setPlan(const Plan& p, const Cluster& c)
{
    bars_.clear();
    stages_.clear();
    uncertainty_ = std::max(0.0, p.uncertainty);
    provenance_ = QString::fromLatin1(toString(p.provenance));
    double x = 0;
    for (int s = 0; s < static_cast<int>(p.stages.size()); ++s) {
        const StagePlan& st = p.stages[s];
        const double first = x;
        for (int dev : st.devices) {
            Bar b;
            b.stage = s;
            b.device = dev;
            b.label = dev >= 0 && dev < c.deviceCount() ? QString::fromStdString(c.deviceLabel(dev))
                                                        : QStringLiteral("#%1").arg(dev);
            b.x = x;
            const MemoryBreakdown& m = st.memory;
            const double terms[5] = {m.weightsMiB, m.gradientsMiB, m.optimizerMiB, m.activationsMiB, m.runtimeMiB()};
            std::copy(std::begin(terms), std::end(terms), b.termsMiB);
            b.totalMiB = m.totalMiB();
            b.capacityMiB
                = st.capacityMiB > 0 || dev < 0 || dev >= c.deviceCount() ? st.capacityMiB : c.typeOf(dev).memoryMiB();
            bars_.push_back(b);
            x += 1;
        }
        // A per-mesh plan's stages differ in shape: each says its own.
        const StageShape shape = p.shapeOf(s);
        const QString head = p.perMesh() ? QStringLiteral("stage %1 · TP %2 DP %3 mbs %4")
                                               .arg(s + 1)
                                               .arg(shape.tp)
                                               .arg(shape.dp)
                                               .arg(shape.microBatch)
                                         : QStringLiteral("stage %1").arg(s + 1);
        stages_.push_back({QStringLiteral("%1\n%2 · %3")
                               .arg(head, QString::fromStdString(st.label()), QString::fromStdString(st.gpuType)),
                           (first + x - 1) / 2, static_cast<int>(st.devices.size())});
        x += kStageGap;
    }
    rebuild();
}

QString MemoryBars::stageLabel(int stage) const
{
    return stage >= 0 && stage < static_cast<int>(stages_.size()) ? stages_[static_cast<std::size_t>(stage)].label
                                                                  : QString();
}

void MemoryBars::clear()
{
    bars_.clear();
    stages_.clear();
    uncertainty_ = 0;
    provenance_.clear();
    rebuild();
}

double MemoryBars::barTotalMiB(int i) const { return bars_.at(i).totalMiB; }
double MemoryBars::barCapacityMiB(int i) const { return bars_.at(i).capacityMiB; }
QString MemoryBars::barLabel(int i) const { return bars_.at(i).label; }
int MemoryBars::barStage(int i) const { return bars_.at(i).stage; }
bool MemoryBars::barOverCapacity(int i) const
{
    const Bar& b = bars_.at(i);
    return b.capacityMiB > 0 && b.totalMiB > b.capacityMiB;
}

double MemoryBars::barUpperMiB(int i) const { return bars_.at(i).totalMiB * (1.0 + uncertainty_); }

int MemoryBars::tightestBar() const
{
    int worst = -1;
    double worstRatio = -1;
    for (int i = 0; i < barCount(); ++i) {
        const Bar& b = bars_[i];
        const double ratio = b.capacityMiB > 0 ? barUpperMiB(i) / b.capacityMiB : 0;
        if (ratio > worstRatio) {
            worstRatio = ratio;
            worst = i;
        }
    }
    return worst;
}

bool MemoryBars::fitsAtUpperBound() const
{
    for (int i = 0; i < barCount(); ++i)
        if (bars_[i].capacityMiB > 0 && barUpperMiB(i) > bars_[i].capacityMiB)
            return false;
    return true;
}

QString MemoryBars::marginText() const
{
    const int i = tightestBar();
    if (i < 0)
        return {};
    const Bar& b = bars_[i];
    const double total = b.totalMiB / kMiBPerGiB;
    const double cap = b.capacityMiB / kMiBPerGiB;
    const QString tight = cap > 0 ? tr("Tightest GPU %1: %2 of %3 GiB (%4% free)")
                                        .arg(b.label)
                                        .arg(total, 0, 'f', 1)
                                        .arg(cap, 0, 'f', 1)
                                        .arg(qRound(100.0 * (1.0 - total / cap)))
                                  : tr("Peak %1 GiB on %2").arg(total, 0, 'f', 1).arg(b.label);
    const int pct = qRound(100 * uncertainty_);
    const QString source = provenance_.isEmpty() ? QString() : tr(" (%1 prediction)").arg(provenance_);
    if (barOverCapacity(i))
        return tr("%1 · over capacity%2").arg(tight, source);
    if (uncertainty_ <= 0)
        return tr("%1 · fits; the prediction gives no uncertainty%2").arg(tight, source);
    const double upper = barUpperMiB(i) / kMiBPerGiB;
    if (fitsAtUpperBound())
        return tr("%1 · fits with margin even at +%2% (%3 GiB)%4")
            .arg(tight)
            .arg(pct)
            .arg(upper, 0, 'f', 1)
            .arg(source);
    return tr("%1 · may not fit at +%2% (%3 GiB > %4 GiB)%5")
        .arg(tight)
        .arg(pct)
        .arg(upper, 0, 'f', 1)
        .arg(cap, 0, 'f', 1)
        .arg(source);
}

void MemoryBars::rebuild()
{
    plot_->clearPlottables();
    plot_->clearItems();
    headroomLabels_.clear();
    const QColor base = palette().color(QPalette::Base);
    plot_->setBackground(base);
    plot_->axisRect()->setBackground(base);
    layOutRows();
    QVector<double> keys;
    for (const Bar& b : bars_)
        keys.push_back(b.x);
    addTermBars(keys);
    const double top = addCapacities();
    if (hasWhiskers())
        addWhiskers(keys);
    styleAxes();
    const bool many = bars_.size() > 12;
    const double right = bars_.empty() ? 1 : bars_.back().x;
    plot_->xAxis->setRange(-0.7, right + 0.7);
    plot_->xAxis2->setRange(plot_->xAxis->range());
    plot_->yAxis->setRange(0, top * (many ? 1.2 : 1.15));
    updateLabelRotation();
    updateHeadroomLabels();
    fitToWidth();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

// The legend in its own row under the plot, so it never covers a bar, and
// the margin line in its own row above it.
void MemoryBars::layOutRows()
{
    const QColor text = palette().color(QPalette::Text);
    const QColor base = palette().color(QPalette::Base);
    if (plot_->plotLayout()->rowCount() == 1) {
        plot_->axisRect()->insetLayout()->take(plot_->legend);
        plot_->plotLayout()->addElement(1, 0, plot_->legend);
        plot_->plotLayout()->setRowStretchFactor(1, 0.001);
        plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
        plot_->legend->setVisible(true);
        plot_->legend->setMargins(QMargins(6, 3, 6, 3));
    }
    // The margin line in its own row above the plot.
    if (!margin_) {
        plot_->plotLayout()->insertRow(0);
        margin_ = new QCPTextElement(plot_, QString(), font());
        plot_->plotLayout()->addElement(0, 0, margin_);
        plot_->plotLayout()->setRowStretchFactor(0, 0.001);
    }
    {
        const bool dark = palette().color(QPalette::Window).lightness() < 128;
        const QColor amber = dark ? QColor(0xff, 0xb7, 0x4d) : QColor(0xa1, 0x5c, 0x00);
        const int i = tightestBar();
        QFont f = font();
        f.setBold(i >= 0 && (!fitsAtUpperBound() || barOverCapacity(i)));
        margin_->setFont(f);
        margin_->setText(marginText());
        margin_->setTextColor(i >= 0 && barOverCapacity(i) ? kOverColor : !fitsAtUpperBound() ? amber : text);
    }
    plot_->legend->setBrush(base);
    plot_->legend->setBorderPen(Qt::NoPen);
    plot_->legend->setTextColor(text);
}

// One stacked bar per GPU, a layer per memory term.
void MemoryBars::addTermBars(const QVector<double>& keys)
{
    const QColor base = palette().color(QPalette::Base);
    QCPBars* below = nullptr;
    for (int t = 0; t < 5; ++t) {
        auto* bars = new QCPBars(plot_->xAxis, plot_->yAxis);
        bars->setName(colors::memoryTermName(kTerms[t]));
        bars->setWidth(kBarWidth);
        bars->setBrush(colors::memoryTerm(kTerms[t]));
        bars->setPen(QPen(base, 0.6));
        bars->setStackingGap(0);
        QVector<double> values;
        for (const Bar& b : bars_)
            values.push_back(b.termsMiB[t] / kMiBPerGiB);
        bars->setData(keys, values, true);
        if (below)
            bars->moveAbove(below);
        below = bars;
    }
}

// Capacity: a line over each bar (a legend entry through a dummy graph),
// the bars over it hatched, and each GPU's free headroom as a label.
// Returns the top the values reach, in GiB.
double MemoryBars::addCapacities()
{
    const QColor text = palette().color(QPalette::Text);
    QCPGraph* capLegend = plot_->addGraph();
    capLegend->setName(tr("GPU capacity (label: free headroom)"));
    capLegend->setPen(QPen(text, 2.5));
    const bool many = bars_.size() > 12;
    double top = 1;
    for (const Bar& b : bars_) {
        const double total = b.totalMiB / kMiBPerGiB;
        const double cap = b.capacityMiB / kMiBPerGiB;
        const bool over = cap > 0 && total > cap;
        const double upper = total * (1.0 + uncertainty_);
        top = std::max({top, upper, cap});
        if (cap > 0) {
            auto* line = new QCPItemLine(plot_);
            line->start->setCoords(b.x - 0.45, cap);
            line->end->setCoords(b.x + 0.45, cap);
            line->setPen(QPen(over ? kOverColor : text, 2.5));
        }
        if (over) {
            auto* rect = new QCPItemRect(plot_);
            rect->topLeft->setCoords(b.x - kBarWidth / 2, total);
            rect->bottomRight->setCoords(b.x + kBarWidth / 2, 0);
            rect->setPen(QPen(kOverColor, 2.5));
            rect->setBrush(QBrush(colors::withAlpha(kOverColor, 200), Qt::BDiagPattern));
        }
        headroomLabels_.push_back(nullptr);
        if (cap > 0) {
            auto* label = new QCPItemText(plot_);
            headroomLabels_.back() = label;
            label->position->setCoords(b.x, std::max(upper, cap));
            label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
            label->setPadding(QMargins(0, 0, 0, 3));
            QFont f = font();
            f.setPointSizeF(f.pointSizeF() * (many ? 0.8 : 0.9));
            if (over) {
                f.setBold(true);
                label->setColor(kOverColor);
                label->setText(QStringLiteral("OVER\n%1 GiB").arg(total - cap, 0, 'f', 1));
            } else {
                label->setColor(text);
                label->setText(QStringLiteral("%1%").arg(qRound(100.0 * (1.0 - total / cap))));
            }
            label->setFont(f);
        }
    }

    return top;
}

// Whiskers: +-uncertainty around each GPU's total, through an invisible graph
// of the totals that the error bars hang on.
void MemoryBars::addWhiskers(const QVector<double>& keys)
{
    const QColor text = palette().color(QPalette::Text);
    const bool many = bars_.size() > 12;
    QCPGraph* totals = plot_->addGraph();
    totals->setLineStyle(QCPGraph::lsNone);
    totals->setScatterStyle(QCPScatterStyle::ssNone);
    totals->removeFromLegend();
    QVector<double> values, errors;
    for (const Bar& b : bars_) {
        values.push_back(b.totalMiB / kMiBPerGiB);
        errors.push_back(b.totalMiB * uncertainty_ / kMiBPerGiB);
    }
    totals->setData(keys, values, true);
    auto* whiskers = new QCPErrorBars(plot_->xAxis, plot_->yAxis);
    whiskers->setName(tr("±%1% uncertainty (%2)").arg(qRound(100 * uncertainty_)).arg(provenance_));
    whiskers->setDataPlottable(totals);
    whiskers->setData(errors);
    whiskers->setWhiskerWidth(many ? 6 : 10);
    whiskers->setPen(QPen(text, 1.4));
}

// Bottom: GPU labels; top: one label per stage; the palette's text colour.
void MemoryBars::styleAxes()
{
    const QColor text = palette().color(QPalette::Text);
    auto gpuTicker = QSharedPointer<QCPAxisTickerText>::create();
    for (const Bar& b : bars_)
        gpuTicker->addTick(b.x, b.label);
    plot_->xAxis->setTicker(gpuTicker);
    plot_->xAxis->setSubTicks(false);
    plot_->xAxis->setTickLength(0, 3);
    plot_->xAxis->setLabel(bars_.empty() ? QString() : tr("GPU (node:index), grouped by pipeline stage"));
    plot_->xAxis->grid()->setVisible(false);

    auto stageTicker = QSharedPointer<QCPAxisTickerText>::create();
    for (const StageInfo& s : stages_)
        stageTicker->addTick(s.x, s.label);
    plot_->xAxis2->setVisible(!stages_.empty());
    plot_->xAxis2->setTicker(stageTicker);
    plot_->xAxis2->setTickLength(0, 0);
    plot_->xAxis2->setSubTicks(false);
    plot_->xAxis2->grid()->setVisible(false);

    plot_->yAxis->setLabel(tr("Peak memory per GPU (GiB)"));
    for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis, plot_->xAxis2}) {
        axis->setBasePen(QPen(text, 1));
        axis->setTickPen(QPen(text, 1));
        axis->setSubTickPen(QPen(text, 1));
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
    }
    plot_->yAxis->grid()->setPen(QPen(colors::withAlpha(text, 45), 1, Qt::DotLine));
    plot_->yAxis->grid()->setZeroLinePen(Qt::NoPen);
}

void MemoryBars::updateLabelRotation()
{
    // Rotate the GPU labels only when they would not fit side by side.
    int widest = 0;
    const QFontMetrics fm(plot_->xAxis->tickLabelFont());
    for (const Bar& b : bars_)
        widest = std::max(widest, fm.horizontalAdvance(b.label));
    const double perBar = plot_->xAxis->range().size() > 0 ? (plot_->width() - 90)
            / plot_->xAxis->range().size()  // the axis rect is laid out only at replot; ~90 px of y axis
                                                           : 0;
    const double rotation = widest + 6 > perBar ? -60 : 0;
    if (plot_->xAxis->tickLabelRotation() != rotation)
        plot_->xAxis->setTickLabelRotation(rotation);
}

void MemoryBars::fitToWidth()
{
    // The legend wraps onto as many rows as it needs rather than being cut
    // ("Weigl", "Gradie") or asking for a wider window.
    QCPLegend* legend = plot_->legend;
    const int room = plot_->width() - legend->margins().left() - legend->margins().right() - 8;
    const int n = legend->elementCount();
    std::vector<int> widths;
    for (int i = 0; i < n; ++i)
        if (QCPLayoutElement* e = legend->elementAt(i))
            widths.push_back(e->minimumOuterSizeHint().width());
    int columns = std::max(1, static_cast<int>(widths.size()));
    for (; columns > 1; --columns) {
        int total = legend->columnSpacing() * (columns - 1);
        for (int c = 0; c < columns; ++c) {
            int widest = 0;
            for (std::size_t i = c; i < widths.size(); i += columns)
                widest = std::max(widest, widths[i]);
            total += widest;
        }
        if (total <= room)
            break;
    }
    if (legend->wrap() != columns) {
        legend->setWrap(columns);
        legend->setFillOrder(QCPLegend::foColumnsFirst, true);
    }
    // A stage label too wide for its bars puts the GPU type on a line of its own
    // (otherwise the plot drops the last stage's label at the right edge).
    const double perBar = plot_->xAxis->range().size() > 0 ? (plot_->width() - 90) / plot_->xAxis->range().size() : 0;
    const QFontMetrics stageFont(plot_->xAxis2->tickLabelFont());
    auto stageTicker = QSharedPointer<QCPAxisTickerText>::create();
    for (const StageInfo& s : stages_) {
        QString label = s.label;
        if (stageFont.horizontalAdvance(label.section(QLatin1Char('\n'), 1)) > s.bars * perBar)
            label.replace(QStringLiteral(" · "), QStringLiteral("\n"));
        stageTicker->addTick(s.x, label);
    }
    plot_->xAxis2->setTicker(stageTicker);

    // The margin line breaks before its verdict when it is too long for one line.
    QString text = marginText();
    if (QFontMetrics(margin_->font()).horizontalAdvance(text) > plot_->width() - 16)
        text.replace(QStringLiteral(" · "), QStringLiteral("\n"));
    if (margin_->text() != text)
        margin_->setText(text);
}

void MemoryBars::updateHeadroomLabels()
{
    // Labels side by side need their width per bar: "36%" labels run
    // together ("36%36%36%") on narrow plots, and "OVER 14.2 GiB" is wider
    // than a bar even on wide ones. Labels are placed in order of what they
    // tell (the largest excess over capacity first, then the tightest GPU,
    // then the rest) and one that would touch a label already placed stays
    // hidden; the hatched bar and the line above say the rest.
    const double perBar = plot_->xAxis->range().size() > 0
        ? (plot_->width() - 90) / plot_->xAxis->range().size()  // as in updateLabelRotation
        : 0;
    auto textWidth = [](const QCPItemText* l) {
        int w = 0;
        for (const QString& line : l->text().split(QLatin1Char('\n')))
            w = std::max(w, QFontMetrics(l->font()).horizontalAdvance(line));
        return w;
    };
    const int tightest = tightestBar();
    std::vector<int> order;
    for (std::size_t i = 0; i < headroomLabels_.size(); ++i)
        if (headroomLabels_[i])
            order.push_back(static_cast<int>(i));
    auto rank = [&](int i) {
        if (barOverCapacity(i))
            return 2.0 + (bars_[i].totalMiB - bars_[i].capacityMiB) / std::max(1.0, bars_[i].capacityMiB);
        return i == tightest ? 1.0 : 0.0;
    };
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return rank(a) > rank(b); });
    std::vector<int> placed;
    for (int i : order) {
        QCPItemText* l = headroomLabels_[i];
        const double half = textWidth(l) / 2.0;
        bool clear = true;
        for (int j : placed) {
            const double apart = std::abs(bars_[i].x - bars_[j].x) * perBar;
            clear = clear && apart >= half + textWidth(headroomLabels_[j]) / 2.0 + 4;
        }
        l->setVisible(clear);
        if (clear)
            placed.push_back(i);
    }
}

int MemoryBars::visibleHeadroomLabels() const
{
    int n = 0;
    for (const QCPItemText* l : headroomLabels_)
        n += l && l->visible();
    return n;
}

void MemoryBars::resizeEvent(QResizeEvent* e)
{
    QWidget::resizeEvent(e);
    updateLabelRotation();
    updateHeadroomLabels();
    fitToWidth();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void MemoryBars::changeEvent(QEvent* e)
{
    QWidget::changeEvent(e);
    if (e->type() == QEvent::PaletteChange || e->type() == QEvent::FontChange)
        rebuild();
}

bool MemoryBars::exportImage(const QString& file, int width, int height)
{
    return exportPlot(plot_, file, width, height);
}

}  // namespace memx
