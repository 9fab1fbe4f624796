#include "ParetoPlot.h"

#include "NumberText.h"
#include "PlotExport.h"

#include "PlanColors.h"
#include "search/PlanCost.h"
#include "search/SearchResult.h"

#include <qcustomplot.h>

#include <QFileInfo>
#include <QPainter>
#include <QPixmap>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace memx {

namespace {

constexpr double kHitRadiusPx = 8.0;
// Per-mesh plans: a purple apart from the front's orange and the profiles' colours.
const QColor kMeshColor(0x6a, 0x3d, 0x9a);

QCPScatterStyle::ScatterShape bestShape(WeightProfile k)
{
    switch (k) {
    case WeightProfile::Default: return QCPScatterStyle::ssDiamond;
    case WeightProfile::SafetyFirst: return QCPScatterStyle::ssSquare;
    case WeightProfile::ThroughputFirst: return QCPScatterStyle::ssTriangle;
    // Shapes QCustomPlot fills with the brush: a star is drawn with the pen
    // alone, here the background's colour, and showed nothing.
    case WeightProfile::Custom: return QCPScatterStyle::ssTriangleInverted;
    case WeightProfile::Auto: return QCPScatterStyle::ssCrossCircle;
    case WeightProfile::Balanced: return QCPScatterStyle::ssCircle;
    }
    return QCPScatterStyle::ssDiamond;
}

// Log ticks at 1, 2, 5 x 10^k (all of 1..9 when the range is under a decade),
// so that a range like 13..400 s is labelled at 20, 50, 100, 200.
class LogTicker125 : public QCPAxisTickerLog {
protected:
    QVector<double> createTickVector(double, const QCPRange& range) override
    {
        QVector<double> ticks;
        if (range.lower <= 0 || range.upper <= range.lower)
            return ticks;
        const bool narrow = range.upper / range.lower < 10;
        const int k0 = static_cast<int>(std::floor(std::log10(range.lower)));
        const int k1 = static_cast<int>(std::ceil(std::log10(range.upper)));
        for (int k = k0; k <= k1; ++k)
            for (int m = 1; m <= 9; ++m) {
                if (!narrow && m != 1 && m != 2 && m != 5)
                    continue;
                ticks.push_back(m * std::pow(10.0, k));
            }
        return ticks;
    }
};

// A filled, antialiased disc of `diameter` logical pixels for a pixmap scatter.
QPixmap discPixmap(const QColor& color, double diameter, qreal dpr)
{
    const int side = static_cast<int>(std::ceil((diameter + 2) * dpr));
    QPixmap pm(side, side);
    pm.setDevicePixelRatio(dpr);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(Qt::NoPen);
    p.setBrush(color);
    const double c = side / dpr / 2.0;
    p.drawEllipse(QPointF(c, c), diameter / 2, diameter / 2);
    return pm;
}

}  // namespace

ParetoPlot::ParetoPlot(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->setMouseTracking(true);
    plot_->legend->setVisible(true);
    plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    connect(plot_, &QCustomPlot::mouseMove, this, &ParetoPlot::onMouseMove);
    connect(plot_, &QCustomPlot::mousePress, this, &ParetoPlot::onMousePress);
    connect(plot_, &QCustomPlot::mouseRelease, this, &ParetoPlot::onMouseRelease);
    connect(plot_, &QCustomPlot::afterReplot, this, [this] { replotPending_ = false; });
    plot_->addLayer(QStringLiteral("selection"), plot_->layer(QStringLiteral("main")), QCustomPlot::limAbove);
    plot_->layer(QStringLiteral("selection"))->setMode(QCPLayer::lmBuffered);
    emptyNote_ = runNote();
    rebuild();
}

ParetoPlot::~ParetoPlot() = default;

QString ParetoPlot::planSummary(const Plan& p, VarianceMode mode)
{
    const QString v = mode == VarianceMode::AbsoluteMiB
        ? QStringLiteral("V %1 GiB^2").arg(p.varMem / (kMiBPerGiB * kMiBPerGiB), 0, 'g', 3)
        : QStringLiteral("V %1 util^2").arg(p.varMem, 0, 'g', 3);
    return QStringLiteral(
               "TP %1 PP %2 DP %3 mbs %4 | %5 | layers %6 | recompute %7 | T %8 s, %12 tokens/s | M %9 GiB | "
               "%10 | Phi %11")
        .arg(p.tp)
        .arg(p.pp)
        .arg(p.dp)
        .arg(p.microBatch)
        .arg(QString::fromStdString(p.orderString()), QString::fromStdString(p.layersString()),
             QString::fromStdString(p.recomputeString()))
        .arg(p.iterationMs / 1000.0, 0, 'f', 1)
        .arg(p.maxMemMiB / kMiBPerGiB, 0, 'f', 1)
        .arg(v)
        .arg(p.phi, 0, 'g', 3)
        .arg(PlanCost::tokensPerSecond(p), 0, 'f', 0);
}

void ParetoPlot::setResult(std::shared_ptr<const SearchResult> result)
{
    result_ = std::move(result);
    const SearchResult& r = *result_;
    plans_.clear();
    candidateKeys_.clear();
    frontVarKeys_.clear();
    frontMemKeys_.clear();
    bests_.clear();
    liveFront_.clear();
    hovered_ = 0;
    mode_ = r.varianceMode;
    perTokenSeq_ = r.perTokenSeqLen;
    updateAxisLabels();
    auto remember = [this](const Plan& p) {
        // Per token (--compare-tasks per-token) the fronts are over time per
        // token: the x axis follows what the search ranked by.
        plans_.try_emplace(p.key, Entry{p.rankMs(), p.maxMemMiB, p.varMem, &p});
        return static_cast<quint64>(p.key);
    };
    // Thin deterministically (evenly spaced indices) so huge samples stay interactive.
    const std::size_t n = r.plotSample.size();
    const std::size_t keep = std::min<std::size_t>(n, kMaxCandidatePoints);
    candidateKeys_.reserve(keep);
    for (std::size_t i = 0; i < keep; ++i)
        candidateKeys_.push_back(remember(r.plotSample[i * n / keep]));
    for (const auto& pt : r.paretoTimeVariance.points())
        frontVarKeys_.push_back(remember(pt.plan));
    for (const auto& pt : r.paretoTimeMemory.points())
        frontMemKeys_.push_back(remember(pt.plan));
    for (const auto& pb : r.profilePicks)
        bests_.emplace_back(pb.kind, remember(pb.plan));
    fastestKey_ = r.fastest.empty() ? 0 : remember(r.fastest.front());
    rebuild();
    resetView();
}

void ParetoPlot::setLiveFront(const std::vector<std::pair<double, double>>& front)
{
    liveFront_ = front;
    QVector<double> xs, ys;
    for (const auto& [t, v] : liveFront_) {
        xs.push_back(t / 1000.0);
        ys.push_back(yOfVariance(v));
    }
    live_->setData(xs, ys, true);
    const bool show = yAxis_ == YAxis::Variance && !liveFront_.empty();
    live_->setVisible(show);
    if (show)
        live_->addToLegend();
    else
        live_->removeFromLegend();
    if (plans_.empty())
        resetView();
    requestReplot();
}

QString ParetoPlot::runNote()
{
    return tr("Run a search (F5):\nevery candidate plan is plotted here, its time against its memory.");
}

void ParetoPlot::setEmptyNote(const QString& note)
{
    emptyNote_ = note;
    rebuild();
}

void ParetoPlot::clear()
{
    emptyNote_ = runNote();
    plans_.clear();
    result_.reset();
    candidateKeys_.clear();
    frontVarKeys_.clear();
    frontMemKeys_.clear();
    bests_.clear();
    fastestKey_ = 0;
    liveFront_.clear();
    selected_ = 0;
    hovered_ = 0;
    rebuild();
    resetView();
}

void ParetoPlot::setYAxis(YAxis a)
{
    if (a == yAxis_)
        return;
    yAxis_ = a;
    rebuild();
    resetView();
}

void ParetoPlot::setLogAxes(bool on)
{
    if (on == log_)
        return;
    log_ = on;
    for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) {
        axis->setScaleType(on ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
        axis->setSubTicks(!on);
        if (on)
            axis->setTicker(QSharedPointer<LogTicker125>::create());
        else
            axis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    }
    resetView();
}

void ParetoPlot::resetView()
{
    bool any = false;
    for (int i = 0; i < plot_->graphCount(); ++i) {
        QCPGraph* g = plot_->graph(i);
        if (g == ring_ || !g->visible() || g->dataCount() == 0)
            continue;
        g->rescaleAxes(any);
        any = true;
    }
    if (!any) {
        plot_->xAxis->setRange(log_ ? 1 : 0, 10);
        plot_->yAxis->setRange(log_ ? 0.01 : 0, 1);
    } else {
        for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) {
            QCPRange r = axis->range();
            if (r.size() <= 0 || (log_ && r.lower <= 0))
                axis->setRange(r.lower * 0.9, r.upper * 1.1 + (log_ ? 0 : 1e-9));
            else
                axis->scaleRange(1.1, log_ ? std::sqrt(r.lower * r.upper) : r.center());
        }
        // Variance and memory are never negative: keep the linear axis at 0 when the margin crossed it.
        if (!log_ && plot_->yAxis->range().lower < 0 && plot_->yAxis->range().upper > 0)
            plot_->yAxis->setRangeLower(std::min(0.0, plot_->yAxis->range().lower));
    }
    requestReplot();
}

void ParetoPlot::requestReplot()
{
    // Drawn on the next event-loop turn, never inside setResult; and not at
    // all while hidden (a plot of thousands of plans takes tens of ms): the
    // replot then happens when it is shown.
    if (!isVisible()) {
        replotPending_ = true;
        return;
    }
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void ParetoPlot::showEvent(QShowEvent* e)
{
    QWidget::showEvent(e);
    // A plot whose size changed on show was redrawn by its resize already.
    if (replotPending_)
        plot_->replot(QCustomPlot::rpQueuedReplot);
}

void ParetoPlot::setSelectedPlan(quint64 key)
{
    selected_ = key;
    updateSelectionRing();
    // The ring has a buffered layer of its own: moving it redraws only that.
    if (isVisible() && !replotPending_)
        plot_->layer(QStringLiteral("selection"))->replot();
    else
        requestReplot();
}

int ParetoPlot::candidatePointCount() const { return static_cast<int>(candidateKeys_.size()); }

double ParetoPlot::yOfVariance(double v) const
{
    return mode_ == VarianceMode::AbsoluteMiB ? v / (kMiBPerGiB * kMiBPerGiB) : v;
}

double ParetoPlot::yOf(const Entry& e) const
{
    return yAxis_ == YAxis::Variance ? yOfVariance(e.var) : e.mMiB / kMiBPerGiB;
}

void ParetoPlot::rebuild()
{
    plot_->clearGraphs();
    plot_->clearItems();
    bestGraphs_.clear();
    const QColor text = palette().color(QPalette::Text);
    if (plans_.empty() && !emptyNote_.isEmpty()) {
        auto* note = new QCPItemText(plot_);
        note->position->setType(QCPItemPosition::ptAxisRectRatio);
        note->position->setCoords(0.5, 0.5);
        note->setPositionAlignment(Qt::AlignCenter);
        note->setTextAlignment(Qt::AlignCenter);
        note->setColor(text);
        note->setText(emptyNote_);
    }

    addCandidates();
    addFront();
    addLiveFront();
    addBests();
    ring_ = plot_->addGraph();
    ring_->setLayer(QStringLiteral("selection"));
    ring_->setName(QStringLiteral("selection"));
    ring_->setLineStyle(QCPGraph::lsNone);
    ring_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(text, 2.5), Qt::NoBrush, 32));
    ring_->removeFromLegend();
    updateSelectionRing();
    applyPalette();
    updateAxisLabels();
}

void ParetoPlot::fill(QCPGraph* g, const std::vector<quint64>& keys) const
{
    QVector<double> xs, ys;
    xs.reserve(static_cast<int>(keys.size()));
    ys.reserve(static_cast<int>(keys.size()));
    for (quint64 k : keys) {
        const Entry& e = plans_.at(k);
        xs.push_back(e.tMs / 1000.0);
        ys.push_back(yOf(e));
    }
    g->setData(xs, ys);
}

bool ParetoPlot::isPerMesh(quint64 key) const { return plans_.at(key).plan->perMesh(); }

// Per-mesh plans (each GPU type's stages with their own TP and DP) apart
// from uniform ones, so that what the per-type space adds shows.
void ParetoPlot::addCandidates()
{
    const QColor text = palette().color(QPalette::Text);
    std::vector<quint64> uniformKeys, meshKeys;
    for (quint64 k : candidateKeys_)
        (isPerMesh(k) ? meshKeys : uniformKeys).push_back(k);
    // One antialiased disc, drawn once and blitted per plan: thousands of
    // ellipses cost a replot tens of ms, a pixmap blit a fraction of that.
    auto scatter = [&](const QString& name, const QColor& color, const std::vector<quint64>& keys) {
        QCPGraph* g = plot_->addGraph();
        g->setName(name);
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(QCPScatterStyle(discPixmap(color, 4, devicePixelRatioF())));
        g->setAdaptiveSampling(false);  // thinning is ours; keep every point hittable and visible
        fill(g, keys);
        return g;
    };
    candidates_ = scatter(meshKeys.empty() ? QStringLiteral("candidates (%1)").arg(uniformKeys.size())
                                           : QStringLiteral("uniform candidates (%1)").arg(uniformKeys.size()),
                          colors::withAlpha(text, 80), uniformKeys);
    if (!meshKeys.empty())
        scatter(QStringLiteral("per-mesh candidates (%1)").arg(meshKeys.size()), colors::withAlpha(kMeshColor, 110),
                meshKeys);
}

void ParetoPlot::addFront()
{
    const QColor base = palette().color(QPalette::Base);
    const auto& frontKeys = yAxis_ == YAxis::Variance ? frontVarKeys_ : frontMemKeys_;
    front_ = plot_->addGraph();
    front_->setName(QStringLiteral("Pareto front"));
    const QColor frontColor(0xf2, 0x8e, 0x2b);
    front_->setPen(QPen(frontColor, 2));
    front_->setLineStyle(QCPGraph::lsStepLeft);  // minimised pair: the staircase bounds the dominated region
    front_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(frontColor, 1.5), QBrush(base), 6));
    fill(front_, frontKeys);
    std::vector<quint64> meshFront;
    std::copy_if(frontKeys.begin(), frontKeys.end(), std::back_inserter(meshFront),
                 [this](quint64 k) { return isPerMesh(k); });
    if (!meshFront.empty()) {
        QCPGraph* g = plot_->addGraph();
        g->setName(QStringLiteral("front: per-mesh plan"));
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(frontColor, 1.5), QBrush(kMeshColor), 7));
        fill(g, meshFront);
    }
}

void ParetoPlot::addLiveFront()
{
    const QColor text = palette().color(QPalette::Text);
    live_ = plot_->addGraph();
    live_->setName(QStringLiteral("live front"));
    live_->setPen(QPen(colors::withAlpha(text, 170), 1.5, Qt::DashLine));
    live_->setLineStyle(QCPGraph::lsStepLeft);
    {
        QVector<double> xs, ys;
        for (const auto& [t, v] : liveFront_) {
            xs.push_back(t / 1000.0);
            ys.push_back(yOfVariance(v));
        }
        live_->setData(xs, ys, true);
    }
    const bool showLive = yAxis_ == YAxis::Variance && !liveFront_.empty();
    live_->setVisible(showLive);
    if (!showLive)
        live_->removeFromLegend();
}

// Each profile's best plan (larger markers first, so that profiles sharing
// one plan all stay visible) with one label per plan, and the fastest.
void ParetoPlot::addBests()
{
    const QColor text = palette().color(QPalette::Text);
    const QColor base = palette().color(QPalette::Base);
    double size = 22;
    std::map<quint64, QStringList> names;  // profiles that share a plan get one label
    for (const auto& [kind, key] : bests_)
        names[key] << QString::fromLatin1(toString(kind));
    if (fastestKey_)
        names[fastestKey_].prepend(QStringLiteral("fastest"));
    bool above = true;  // alternate above/below so that neighbouring labels do not collide
    for (const auto& [key, list] : names) {
        const Entry& e = plans_.at(key);
        auto* anchor = new QCPItemTracer(plot_);  // invisible: carries the plot coordinate
        anchor->setStyle(QCPItemTracer::tsNone);
        anchor->position->setCoords(e.tMs / 1000.0, yOf(e));
        auto* label = new QCPItemText(plot_);
        label->position->setType(QCPItemPosition::ptAbsolute);
        label->position->setParentAnchor(anchor->position);
        label->position->setCoords(12, above ? -10 : 10);  // pixels from the marker
        label->setPositionAlignment(Qt::AlignLeft | (above ? Qt::AlignBottom : Qt::AlignTop));
        label->setPadding(QMargins(3, 1, 3, 1));
        label->setBrush(colors::withAlpha(base, 210));
        label->setColor(text);
        above = !above;
        label->setText(list.join(QStringLiteral(" / ")));
    }
    for (const auto& [kind, key] : bests_) {
        QCPGraph* g = plot_->addGraph();
        g->setName(QStringLiteral("best: %1").arg(QString::fromLatin1(toString(kind))));
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(
            QCPScatterStyle(bestShape(kind), QPen(base, 1.5), QBrush(colors::profile(static_cast<int>(kind))), size));
        fill(g, {key});
        bestGraphs_.push_back(g);
        size = std::max(10.0, size - 5);
    }

    if (fastestKey_) {
        // The reference every pick is priced against.
        QCPGraph* g = plot_->addGraph();
        g->setName(QStringLiteral("fastest feasible plan"));
        g->setLineStyle(QCPGraph::lsNone);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssStar, QPen(text, 2), Qt::NoBrush, 16));
        fill(g, {fastestKey_});
        bestGraphs_.push_back(g);
    }
}

void ParetoPlot::updateSelectionRing()
{
    auto it = selected_ ? plans_.find(selected_) : plans_.end();
    if (it == plans_.end())
        ring_->data()->clear();
    else
        ring_->setData({it->second.tMs / 1000.0}, {yOf(it->second)});
}

void ParetoPlot::updateAxisLabels()
{
    plot_->xAxis->setLabel(perTokenSeq_ > 0
                               ? tr("Time per token: T × %1 / the plan's sequence length (s)").arg(perTokenSeq_)
                               : tr("Iteration time T (s)"));
    if (yAxis_ == YAxis::PeakMemory)
        plot_->yAxis->setLabel(tr("Peak memory M, most loaded GPU (GiB)"));
    else if (mode_ == VarianceMode::AbsoluteMiB)
        plot_->yAxis->setLabel(tr("Memory variance V across GPUs (GiB²)"));
    else
        plot_->yAxis->setLabel(tr("Memory variance V of utilisation (utilisation²)"));
}

void ParetoPlot::applyPalette()
{
    const QColor text = palette().color(QPalette::Text);
    const QColor base = palette().color(QPalette::Base);
    plot_->setBackground(base);
    plot_->axisRect()->setBackground(base);
    for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) {
        axis->setBasePen(QPen(text, 1));
        axis->setTickPen(QPen(text, 1));
        axis->setSubTickPen(QPen(text, 1));
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        axis->grid()->setPen(QPen(colors::withAlpha(text, 45), 1, Qt::DotLine));
        axis->grid()->setZeroLinePen(Qt::NoPen);
        axis->setNumberFormat(QStringLiteral("gb"));
    }
    plot_->legend->setBrush(colors::withAlpha(base, 220));
    plot_->legend->setBorderPen(QPen(colors::withAlpha(text, 120)));
    plot_->legend->setTextColor(text);
}

void ParetoPlot::changeEvent(QEvent* e)
{
    QWidget::changeEvent(e);
    if (e->type() == QEvent::PaletteChange) {
        rebuild();
        requestReplot();
    }
}

quint64 ParetoPlot::planAt(const QPointF& px) const
{
    quint64 bestKey = 0;
    double bestD2 = kHitRadiusPx * kHitRadiusPx;
    auto consider = [&](quint64 key) {
        const Entry& e = plans_.at(key);
        const double dx = plot_->xAxis->coordToPixel(e.tMs / 1000.0) - px.x();
        const double dy = plot_->yAxis->coordToPixel(yOf(e)) - px.y();
        const double d2 = dx * dx + dy * dy;
        if (std::isfinite(d2) && d2 <= bestD2) {
            bestD2 = d2;
            bestKey = key;
        }
    };
    // Later groups win ties: a profile best sits on top of the candidate it also is.
    for (quint64 k : candidateKeys_)
        consider(k);
    for (quint64 k : yAxis_ == YAxis::Variance ? frontVarKeys_ : frontMemKeys_)
        consider(k);
    for (const auto& b : bests_)
        consider(b.second);
    return bestKey;
}

void ParetoPlot::onMouseMove(QMouseEvent* e)
{
    if (e->buttons() != Qt::NoButton)
        return;  // dragging
    const quint64 key = planAt(e->position());
    if (key == hovered_)
        return;
    hovered_ = key;
    if (key == 0) {
        QToolTip::hideText();
        emit planHovered(0, {});
        return;
    }
    const QString summary = planSummary(*plans_.at(key).plan, mode_);
    QToolTip::showText(e->globalPosition().toPoint(), summary, plot_);
    emit planHovered(key, summary);
}

void ParetoPlot::onMousePress(QMouseEvent* e) { pressPos_ = e->position(); }

void ParetoPlot::onMouseRelease(QMouseEvent* e)
{
    if (e->button() != Qt::LeftButton || (e->position() - pressPos_).manhattanLength() > 4)
        return;  // a drag, not a click
    const quint64 key = planAt(e->position());
    if (key == 0)
        return;
    setSelectedPlan(key);
    emit planClicked(key);
}

bool ParetoPlot::exportImage(const QString& file, int width, int height)
{
    return exportPlot(plot_, file, width, height);
}

}  // namespace memx
