#include "PipelineView.h"

#include <QFileInfo>
#include <QHelpEvent>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace memx {

namespace {

constexpr int kPad = PipelineViewLayout::kPad;
constexpr int kBubbleColumn = PipelineViewLayout::kBubbleColumn;
constexpr int kLabelMaxMicroBatches = 32;  // above this, blocks carry no numbers

QColor blend(const QColor& a, const QColor& b, double t)  // t = share of b
{
    return QColor::fromRgbF(a.redF() * (1 - t) + b.redF() * t, a.greenF() * (1 - t) + b.greenF() * t,
                            a.blueF() * (1 - t) + b.blueF() * t);
}

QString recomputeName(Recompute r) { return QString::fromLatin1(toString(r)); }

}  // namespace

// The palette's colours and the font's metrics every part of the view paints with.
struct PipelineView::Ink {
    explicit Ink(const QWidget& w)
        : text(w.palette().color(QPalette::Text))
        , base(w.palette().color(QPalette::Base))
        , dim(blend(base, text, 0.55))
        , fm(w.font())
        , lh(fm.height())
    {
    }
    QColor text, base, dim;
    QFontMetrics fm;
    int lh;
};

PipelineView::PipelineView(QWidget* parent) : QWidget(parent)
{
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMouseTracking(true);
}

PipelineView::~PipelineView() = default;

void PipelineView::setAblation(const QStringList& lines)
{
    ablation_ = lines;
    updateGeometry();
    update();
}

void PipelineView::setPlan(const Plan& p)
{
    plan_ = p;
    ablation_.clear();
    std::vector<double> t;
    for (const auto& s : p.stages)
        t.push_back(s.timeMs);
    schedule_ = PipelineSchedule::oneFOneB(t, p.hopMs, p.microBatchCount);
    updateGeometry();
    update();
}

void PipelineView::setGpuTypeColors(const GpuTypeColors& colours)
{
    gpuColors_ = colours;
    update();
}

void PipelineView::clear()
{
    plan_.reset();
    ablation_.clear();
    schedule_ = {};
    updateGeometry();
    update();
}

QSize PipelineView::sizeHint() const
{
    const int rows = plan_ ? static_cast<int>(plan_->stages.size()) : 2;
    const int lh = fontMetrics().height();
    return {900,
            kPad * 4 + (rows + 1) * (lh + 6) + static_cast<int>(ablation_.size()) * lh + lh + 3 * lh
                + rows * std::max(28, lh * 2) + 3 * lh};
}

QSize PipelineView::minimumSizeHint() const { return {400, 200}; }

QStringList PipelineView::tableHeaders()
{
    return {tr("Stage"),     tr("Stage slot"),           tr("GPU type"), tr("GPUs (TP×DP)"), tr("Layers (0-based)"),
            tr("Recompute"), tr("Micro-batch F+B (ms)"), tr("Bubble")};
}

QStringList PipelineView::tableRow(int i) const
{
    const Plan& plan = *plan_;
    const StagePlan& s = plan.stages[static_cast<std::size_t>(i)];
    return {QString::number(i + 1), QString::fromStdString(s.label()), QString::fromStdString(s.gpuType),
            // A per-mesh plan's meshes differ in micro-batch too (dp0 x mbs / dp).
            QStringLiteral("%1 (%2×%3)%4")
                .arg(s.devices.size())
                .arg(plan.shapeOf(static_cast<std::size_t>(i)).tp)
                .arg(plan.shapeOf(static_cast<std::size_t>(i)).dp)
                .arg(plan.perMesh() ? tr(", mbs %1").arg(plan.shapeOf(static_cast<std::size_t>(i)).microBatch)
                                    : QString()),
            QStringLiteral("%1–%2 (%3)").arg(s.firstLayer).arg(s.firstLayer + s.layers - 1).arg(s.layers),
            recomputeName(s.recompute), QString::number(s.timeMs, 'f', 1),
            QStringLiteral("%1%").arg(100.0 * schedule_.bubbleFraction(i), 0, 'f', 1)};
}

QList<QRect> PipelineView::headerCells(const QRect& target) const
{
    const PipelineViewLayout g = geometry(target);
    QList<QRect> cells;
    for (std::size_t c = 0; c + 1 < g.columnX.size(); ++c)
        cells.push_back(QRect(g.columnX[c] + 4, g.table.top(), g.columnX[c + 1] - g.columnX[c] - 8, g.headerHeight));
    return cells;
}

QRect PipelineView::titleRect(const QRect& target) const { return geometry(target).title; }

QString PipelineView::scheduleTitle() const
{
    if (!plan_)
        return {};
    const Plan& plan = *plan_;
    std::vector<double> stageMs;
    for (const auto& s : plan.stages)
        stageMs.push_back(s.timeMs);
    QString title = tr("1F1B schedule of one iteration: P = %1 stages, G = %2 micro-batches, pipeline %3 ms simulated "
                       "(Eq. 3: %4 ms)")
                        .arg(plan.stages.size())
                        .arg(schedule_.microBatchCount())
                        .arg(std::max(1e-9, schedule_.makespanMs()), 0, 'f', 0)
                        .arg(PipelineSchedule::eq3Ms(stageMs, plan.hopMs, plan.microBatchCount), 0, 'f', 0);
    if (plan.dpMs > 0 || plan.fixedMs > 0)
        title += tr(" (+ DP sync %1 ms + fixed %2 ms)").arg(plan.dpMs, 0, 'f', 0).arg(plan.fixedMs, 0, 'f', 0);
    return title;
}

PipelineViewLayout PipelineView::geometry(const QRect& target) const
{
    PipelineViewLayout::Input in;
    in.target = target;
    in.font = font();
    in.headers = tableHeaders();
    const int rows = plan_ ? static_cast<int>(plan_->stages.size()) : 0;
    for (int i = 0; i < rows; ++i)
        in.rows.push_back(tableRow(i));
    in.ablationLines = static_cast<int>(ablation_.size());
    in.title = scheduleTitle();
    return PipelineViewLayout::of(in);
}

void PipelineView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    paintTo(p, rect());
}

void PipelineView::paintTo(QPainter& p, const QRect& target) const
{
    const Ink ink(*this);
    p.save();
    p.setFont(font());
    p.fillRect(target, ink.base);
    p.setRenderHint(QPainter::Antialiasing, false);
    if (!plan_ || plan_->stages.empty()) {
        p.setPen(ink.dim);
        p.drawText(target, Qt::AlignCenter, tr("No plan selected"));
        p.restore();
        return;
    }
    const PipelineViewLayout g = geometry(target);
    paintTable(p, target, g, ink);
    paintTimeline(p, target, g, ink);
    p.restore();
}

// The stage table, and under it the same plan with one recomputation level everywhere.
void PipelineView::paintTable(QPainter& p, const QRect& target, const PipelineViewLayout& g, const Ink& ink) const
{
    const Plan& plan = *plan_;
    const int rows = static_cast<int>(plan.stages.size());
    const QStringList headers = tableHeaders();
    const auto& colX = g.columnX;
    const int rowH = g.rowHeight;
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(ink.text);
    const QFontMetrics bm(bold);
    const QList<QRect> headerCells = this->headerCells(target);
    for (int c = 0; c < headers.size(); ++c) {
        const QRect& cell = headerCells[c];
        const QString h = g.headerHeight > rowH ? headers[c] : bm.elidedText(headers[c], Qt::ElideRight, cell.width());
        p.drawText(cell, Qt::AlignVCenter | Qt::AlignLeft | Qt::TextWordWrap, h);
    }
    p.setFont(font());
    p.setPen(QPen(blend(ink.base, ink.text, 0.3), 1));
    const int firstRow = g.table.top() + g.headerHeight;
    p.drawLine(g.table.left(), firstRow, g.table.right(), firstRow);
    for (int i = 0; i < rows; ++i) {
        const StagePlan& s = plan.stages[i];
        const int y = firstRow + i * rowH;
        if (i % 2 == 1)
            p.fillRect(QRect(g.table.left(), y, g.table.width(), rowH), blend(ink.base, ink.text, 0.05));
        const QColor gpu = gpuColors_.color(QString::fromStdString(s.gpuType));
        const QStringList cells = tableRow(i);
        for (int c = 0; c < cells.size(); ++c) {
            QRect cell(colX[c] + 4, y, colX[c + 1] - colX[c] - 8, rowH);
            if (c == 2) {  // colour swatch of the GPU type
                p.fillRect(QRect(cell.left(), y + rowH / 2 - 5, 10, 10), gpu);
                cell.setLeft(cell.left() + 16);
            }
            p.setPen(ink.text);
            p.drawText(cell, Qt::AlignVCenter | Qt::AlignLeft,
                       ink.fm.elidedText(cells[c], Qt::ElideRight, cell.width()));
        }
    }

    // The same plan with one recomputation level everywhere.
    if (!ablation_.isEmpty()) {
        int ay = firstRow + rows * rowH + 4;
        for (int k = 0; k < ablation_.size(); ++k, ay += ink.lh) {
            p.setFont(k == 0 ? bold : font());
            p.setPen(k == 0 ? ink.text : ink.dim);
            const QFontMetrics m(k == 0 ? bold : font());
            p.drawText(QRect(g.table.left() + 4, ay, g.table.width() - 8, ink.lh), Qt::AlignLeft | Qt::AlignVCenter,
                       m.elidedText(ablation_[k], Qt::ElideRight, g.table.width() - 8));
        }
        p.setFont(font());
    }
}

// The timeline: its title and legend, the time grid, and per stage its
// forward and backward blocks with the bubble share.
void PipelineView::paintTimeline(QPainter& p, const QRect& target, const PipelineViewLayout& g, const Ink& ink) const
{
    const Plan& plan = *plan_;
    const int rows = static_cast<int>(plan.stages.size());
    QFont bold = font();
    bold.setBold(true);
    const double span = std::max(1e-9, schedule_.makespanMs());
    const bool seconds = span >= 10000;
    int y = g.table.bottom() + kPad;
    p.setFont(bold);
    p.setPen(ink.text);
    p.drawText(g.title, Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, scheduleTitle());
    p.setFont(font());
    y += g.titleLines * ink.lh;
    {
        QString note = tr("Forward blocks light, backward (2× forward) dark, colour = GPU type; gaps are bubbles "
                          "(bubble = idle share of the pipeline time).");
        if (plan.schedule == Schedule::Interleaved)
            note += tr(" Interleaved (v = %1) drawn as plain 1F1B.").arg(plan.virtualStages);
        if (schedule_.microBatchCount() > kLabelMaxMicroBatches)
            note += tr(" G > %1: micro-batch numbers omitted.").arg(kLabelMaxMicroBatches);
        p.setPen(ink.dim);
        p.drawText(QRect(target.left() + kPad, y, target.width() - 2 * kPad, ink.lh), Qt::AlignLeft | Qt::AlignVCenter,
                   ink.fm.elidedText(note, Qt::ElideRight, target.width() - 2 * kPad));
    }

    // Time grid.
    const double unit = seconds ? 1000.0 : 1.0;
    p.setPen(QPen(blend(ink.base, ink.text, 0.15), 1, Qt::DotLine));
    for (double ms : g.ticksMs(span, unit)) {
        const double t = ms / unit;
        const int x = g.tickX(ms, span);
        p.drawLine(x, g.timeline.top(), x, g.timeline.bottom() + 4);
        p.setPen(ink.text);
        p.drawText(QRect(x - 50, g.timeline.bottom() + 5, 100, ink.lh), Qt::AlignHCenter | Qt::AlignTop,
                   QString::number(t, 'g', 6));
        p.setPen(QPen(blend(ink.base, ink.text, 0.15), 1, Qt::DotLine));
    }
    p.setPen(ink.text);
    p.drawText(QRect(g.timeline.left(), g.timeline.bottom() + 5 + ink.lh, g.timeline.width(), ink.lh), Qt::AlignHCenter,
               seconds ? tr("time since iteration start (s)") : tr("time since iteration start (ms)"));

    // Rows: label, empty track (bubbles stay empty), blocks, bubble share.
    const bool numbers = schedule_.microBatchCount() <= kLabelMaxMicroBatches;
    for (int i = 0; i < rows; ++i) {
        const StagePlan& s = plan.stages[i];
        const QRect row = g.track(i);
        p.setPen(ink.text);
        p.drawText(QRect(target.left() + kPad, row.top(), g.labelWidth - 4, row.height()),
                   Qt::AlignVCenter | Qt::AlignLeft, QStringLiteral("S%1").arg(i + 1));
        p.setPen(QPen(blend(ink.base, ink.text, 0.35), 1, Qt::DashLine));
        p.setBrush(Qt::NoBrush);
        p.drawRect(row.adjusted(0, 0, -1, -1));
        const QColor gpu = gpuColors_.color(QString::fromStdString(s.gpuType));
        const QColor fwd = blend(gpu, QColor(Qt::white), 0.45);
        const QColor bwd = gpu.darker(135);
        for (const PipelineOp& op : schedule_.ops(i)) {
            const QRectF r = g.opRect(i, op, schedule_.makespanMs());
            const bool f = op.kind == PipelineOp::Kind::Forward;
            p.fillRect(r, f ? fwd : bwd);
            if (r.width() >= 3) {
                p.setPen(QPen(ink.base, 1));
                p.drawLine(r.topRight(), r.bottomRight());
            }
            if (numbers && r.width() >= ink.fm.horizontalAdvance(QStringLiteral("00")) + 2
                && r.height() >= ink.lh - 2) {
                p.setPen(GpuTypeColors::textOn(f ? fwd : bwd));
                p.drawText(r, Qt::AlignCenter, QString::number(op.microBatch + 1));
            }
        }
        p.setPen(ink.text);
        p.drawText(QRect(g.timeline.right() + 10, row.top(), kBubbleColumn - 10, row.height()),
                   Qt::AlignVCenter | Qt::AlignLeft,
                   tr("bubble %1% of S%2").arg(100.0 * schedule_.bubbleFraction(i), 0, 'f', 1).arg(i + 1));
    }
}

QString PipelineView::opToolTip(const QPoint& pos) const
{
    if (!plan_)
        return {};
    const PipelineViewLayout g = geometry(rect());
    for (int i = 0; i < schedule_.stageCount(); ++i)
        for (const PipelineOp& op : schedule_.ops(i))
            if (g.opRect(i, op, schedule_.makespanMs()).adjusted(-1, 0, 1, 0).contains(pos)) {
                const StagePlan& s = plan_->stages[i];
                return tr("Stage %1 (%2, %3): %4 of micro-batch %5, %6–%7 ms")
                    .arg(i + 1)
                    .arg(QString::fromStdString(s.label()))
                    .arg(QString::fromStdString(s.gpuType))
                    .arg(op.kind == PipelineOp::Kind::Forward ? tr("forward") : tr("backward"))
                    .arg(op.microBatch + 1)
                    .arg(op.startMs, 0, 'f', 1)
                    .arg(op.endMs, 0, 'f', 1);
            }
    return {};
}

bool PipelineView::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        auto* he = static_cast<QHelpEvent*>(e);
        const QString tip = opToolTip(he->pos());
        if (tip.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(he->globalPos(), tip, this);
        return true;
    }
    return QWidget::event(e);
}

bool PipelineView::exportImage(const QString& file, int width, int height)
{
    const QString suffix = QFileInfo(file).suffix().toLower();
    const QRect target(0, 0, width, height);
    if (suffix == QLatin1String("png")) {
        QImage img(width, height, QImage::Format_ARGB32_Premultiplied);
        img.fill(palette().color(QPalette::Base));
        QPainter p(&img);
        paintTo(p, target);
        p.end();
        return img.save(file, "PNG");
    }
    if (suffix == QLatin1String("pdf")) {
        QPdfWriter pdf(file);
        pdf.setResolution(72);  // one device pixel per point
        pdf.setPageSize(QPageSize(QSizeF(width, height), QPageSize::Point));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        QPainter p;
        if (!p.begin(&pdf))
            return false;
        paintTo(p, target);
        return p.end();
    }
    return false;
}

}  // namespace memx
