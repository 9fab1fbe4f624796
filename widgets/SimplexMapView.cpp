#include "SimplexMapView.h"

#include "PlanColors.h"
#include "export/SearchReport.h"
#include "search/SearchResult.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace memx {

namespace {
constexpr double kPad = 12;
const double kSqrt3 = std::sqrt(3.0);

QColor blend(const QColor& a, const QColor& b, double t)
{
    return QColor::fromRgbF(a.redF() + (b.redF() - a.redF()) * t, a.greenF() + (b.greenF() - a.greenF()) * t,
                            a.blueF() + (b.blueF() - a.blueF()) * t);
}
}  // namespace

SimplexMapView::SimplexMapView(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    note_ = tr("Run a search (F5): the map shows which plan wins at every weighting of Phi.");
}

QColor SimplexMapView::planColour(std::size_t index)
{
    // A qualitative palette that reads on light and dark backgrounds; past
    // twelve plans the hues repeat lighter.
    static const QColor base[]
        = {QColor(0x4e, 0x79, 0xa7), QColor(0xf2, 0x8e, 0x2b), QColor(0x59, 0xa1, 0x4f), QColor(0xe1, 0x57, 0x59),
           QColor(0x76, 0xb7, 0xb2), QColor(0xed, 0xc9, 0x48), QColor(0xb0, 0x7a, 0xa1), QColor(0xff, 0x9d, 0xa7),
           QColor(0x9c, 0x75, 0x5f), QColor(0x86, 0xbc, 0xb6), QColor(0xd3, 0x72, 0x95), QColor(0x8c, 0xd1, 0x7d)};
    const QColor c = base[index % 12];
    return index < 12 ? c : blend(c, Qt::white, 0.35 * double(index / 12 % 3));
}

SimplexMapView::Mapped SimplexMapView::mapOf(const SearchResult& r)
{
    Mapped out;
    try {
        SearchFollowUps asked;
        asked.simplex = true;
        out.map = SearchReport::of({}, r, asked).simplex;
        if (!out.map)
            out.whyNone = r.error.empty() ? "the search kept no plan" : r.error;
    } catch (const std::invalid_argument& e) {
        out.whyNone = e.what();
    }
    return out;
}

void SimplexMapView::setResult(const SearchResult& r, const Cluster* cluster) { setMapped(r, mapOf(r), cluster); }

void SimplexMapView::setMapped(const SearchResult& r, Mapped mapped, const Cluster* cluster)
{
    map_ = std::move(mapped.map);
    costs_.clear();
    hovered_ = -1;
    requested_ = r.weights;
    hasRequested_ = r.profileUsed != WeightProfile::Balanced;
    if (map_) {
        for (const Plan& p : map_->plans)
            costs_.push_back(PlanCost::of(cluster, p));
        note_.clear();
    } else {
        note_ = tr("No map: %1").arg(QString::fromStdString(mapped.whyNone));
    }
    update();
}

void SimplexMapView::setBusy()
{
    map_.reset();
    hovered_ = -1;
    note_ = tr("Mapping which plan wins at every weighting…");
    update();
}

void SimplexMapView::clear()
{
    map_.reset();
    hovered_ = -1;
    note_ = tr("Run a search (F5): the map shows which plan wins at every weighting of Phi.");
    update();
}

void SimplexMapView::setSelectedPlan(quint64 key)
{
    selected_ = key;
    update();
}

SimplexMapView::Frame SimplexMapView::frame() const
{
    Frame f;
    const QRectF all = QRectF(rect()).adjusted(kPad, kPad, -kPad, -kPad);
    const double lh = fontMetrics().height();
    // Title and subtitle over the whole width, wrapped where it is narrow.
    QFont bold = font();
    bold.setBold(true);
    const int wrapWidth = std::max(1, static_cast<int>(all.width()));
    const auto height = [&](const QFont& font, const QString& text) {
        return static_cast<double>(QFontMetrics(font)
                                       .boundingRect(QRect(0, 0, wrapWidth, 100 * static_cast<int>(lh)),
                                                     Qt::AlignLeft | Qt::TextWordWrap, text)
                                       .height());
    };
    f.title = QRectF(all.left(), all.top(), all.width(), std::max(lh, height(bold, title())));
    f.subtitle = QRectF(all.left(), f.title.bottom(), all.width(), std::max(lh, height(font(), subtitle())));
    const double head = f.subtitle.bottom() - all.top();  // 2 lines when neither wraps
    const double legendW = std::min(340.0, all.width() * 0.4);
    f.legend = QRectF(all.right() - legendW, all.top() + head, legendW, all.height() - head);
    // The triangle: room above for the title and the time label, below for
    // the corner labels and the hover line.
    const QRectF area(all.left() + 3 * lh, all.top() + head + 1.5 * lh, all.width() - legendW - 6 * lh,
                      all.height() - head - 5 * lh);
    const double side = std::max(10.0, std::min(area.width(), area.height() * 2 / kSqrt3));
    const double cx = area.center().x();
    const double top = area.top() + (area.height() - side * kSqrt3 / 2) / 2;
    f.time = QPointF(cx, top);
    f.memory = QPointF(cx - side / 2, top + side * kSqrt3 / 2);
    f.variance = QPointF(cx + side / 2, top + side * kSqrt3 / 2);
    f.cell = side / (map_ ? map_->steps : 20);
    return f;
}

double SimplexMapView::headingBottom() const { return frame().subtitle.bottom(); }

QString SimplexMapView::title() const
{
    if (!map_)
        return {};
    return tr("Which plan wins at each weighting of Phi: %1 weightings (step %2) over %3 kept plans, %4 winners")
        .arg(map_->points.size())
        .arg(1.0 / map_->steps)
        .arg(map_->candidates)
        .arg(map_->plans.size());
}

QString SimplexMapView::subtitle() const
{
    return tr("Re-ranked from the plans the search kept (fronts, top lists, plot sample); click a cell to select its "
              "plan (dots mark the selected plan's region).");
}

QPointF SimplexMapView::positionOf(const Weights& w) const
{
    const Frame f = frame();
    return w.time * f.time + w.memory * f.memory + w.variance * f.variance;
}

int SimplexMapView::pointAt(const QPointF& pos) const
{
    if (!map_)
        return -1;
    const Frame f = frame();
    int best = -1;
    double bestD = f.cell * 0.6;
    for (std::size_t i = 0; i < map_->points.size(); ++i) {
        const QPointF d = positionOf(map_->points[i].weights) - pos;
        const double dist = std::hypot(d.x(), d.y());
        if (dist < bestD) {
            bestD = dist;
            best = static_cast<int>(i);
        }
    }
    return best;
}

QString SimplexMapView::describe(std::size_t k) const
{
    const Plan& p = map_->plans[k];
    return tr("P%1: %2 ms, %3 GiB, TP %4 PP %5 DP %6, layers %7, recompute %8; wins %9 of %10 weightings")
               .arg(k + 1)
               .arg(p.iterationMs, 0, 'f', 1)
               .arg(p.maxMemMiB / 1024, 0, 'f', 2)
               .arg(p.tp)
               .arg(p.pp)
               .arg(p.dp)
               .arg(QString::fromStdString(p.layersString()), QString::fromStdString(p.recomputeString()))
               .arg(map_->regionSize[k])
               .arg(map_->points.size())
        + QStringLiteral("; ") + QString::fromStdString(costs_[k].brief());
}

void SimplexMapView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const QColor text = palette().color(QPalette::Text);
    const QColor base = palette().color(QPalette::Base);
    const QColor dim = blend(base, text, 0.55);
    p.fillRect(rect(), base);
    if (!map_) {
        p.setPen(dim);
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, note_);
        return;
    }
    const Frame f = frame();
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(text);
    p.drawText(f.title, Qt::AlignLeft | Qt::TextWordWrap, title());
    p.setFont(font());
    p.setPen(dim);
    p.drawText(f.subtitle, Qt::AlignLeft | Qt::TextWordWrap, subtitle());

    paintCells(p, f);
    paintMarks(p, f);
    paintHoverLine(p, f);
    paintLegend(p, f);
}

// Cells: hexagons of the triangular grid, clipped to the triangle, with a
// dot in each cell of the selected plan's region; then the triangle.
void SimplexMapView::paintCells(QPainter& p, const Frame& f) const
{
    const QColor text = palette().color(QPalette::Text);
    QPainterPath triangle;
    triangle.moveTo(f.time);
    triangle.lineTo(f.memory);
    triangle.lineTo(f.variance);
    triangle.closeSubpath();
    p.setRenderHint(QPainter::Antialiasing, true);
    p.save();
    p.setClipPath(triangle);
    const double r = f.cell / kSqrt3 + 0.5;
    auto hexagon = [&](const QPointF& c) {
        QPolygonF h;
        for (int k = 0; k < 6; ++k) {
            const double a = M_PI / 2 + k * M_PI / 3;
            h << c + QPointF(r * std::cos(a), r * std::sin(a));
        }
        return h;
    };
    for (std::size_t i = 0; i < map_->points.size(); ++i) {
        const auto& pt = map_->points[i];
        QColor c = planColour(pt.winner);
        if (static_cast<int>(i) == hovered_)
            c = c.lighter(125);
        p.setPen(Qt::NoPen);
        p.setBrush(c);
        p.drawPolygon(hexagon(positionOf(pt.weights)));
    }
    // The selected plan's region: a dot in each of its cells.
    if (selected_ != 0) {
        p.setPen(Qt::NoPen);
        p.setBrush(text);
        const double dot = std::max(1.5, f.cell * 0.09);
        for (const auto& pt : map_->points)
            if (map_->plans[pt.winner].key == selected_)
                p.drawEllipse(positionOf(pt.weights), dot, dot);
    }
    p.restore();
    p.setPen(QPen(text, 1.5));
    p.setBrush(Qt::NoBrush);
    p.drawPath(triangle);
}

// Corner labels, the paper's profiles and the requested weights.
void SimplexMapView::paintMarks(QPainter& p, const Frame& f) const
{
    const QColor text = palette().color(QPalette::Text);
    const QColor base = palette().color(QPalette::Base);
    const QColor dim = blend(base, text, 0.55);
    const QFontMetrics fm(font());
    const double lh = fm.height();
    (void)dim;
    p.setPen(text);
    auto label = [&](const QPointF& at, const QString& t, double dy) {
        const double w = fm.horizontalAdvance(t) + 4;
        const double x = std::clamp(at.x() - w / 2, kPad, width() - kPad - w);
        p.drawText(QRectF(x, at.y() + dy, w, lh), Qt::AlignCenter, t);
    };
    label(f.time, tr("time (wT = 1)"), -1.4 * lh);
    label(f.memory, tr("memory (wM = 1)"), 0.3 * lh);
    label(f.variance, tr("variance (wV = 1)"), 0.3 * lh);

    // The paper's profiles, and the requested weights.
    struct Mark {
        WeightProfile kind;
        QString name;
    };
    for (const Mark& m :
         {Mark{WeightProfile::Default, tr("default")}, Mark{WeightProfile::SafetyFirst, tr("safety-first")},
          Mark{WeightProfile::ThroughputFirst, tr("throughput-first")}}) {
        const QPointF c = positionOf(weightsOf(m.kind));
        const QColor colour = colors::profile(static_cast<int>(m.kind));
        p.setPen(QPen(base, 3));
        p.setBrush(colour);
        p.drawEllipse(c, 5, 5);
        p.setPen(QPen(colour.darker(115), 1.5));
        p.drawEllipse(c, 5, 5);
        const QRectF box(c.x() + 8, c.y() - lh / 2, fm.horizontalAdvance(m.name) + 8, lh);
        p.setPen(Qt::NoPen);
        p.setBrush(colors::withAlpha(base, 210));
        p.drawRoundedRect(box, 3, 3);
        p.setPen(text);
        p.drawText(box.adjusted(4, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, m.name);
    }
    if (hasRequested_) {
        p.setPen(QPen(text, 2));
        p.setBrush(Qt::NoBrush);
        p.drawEllipse(positionOf(requested_), 9, 9);
    }
}

void SimplexMapView::paintHoverLine(QPainter& p, const Frame& f) const
{
    const QColor text = palette().color(QPalette::Text);
    const QColor base = palette().color(QPalette::Base);
    const QColor dim = blend(base, text, 0.55);
    const QFontMetrics fm(font());
    const double lh = fm.height();
    const QRectF hoverLine(kPad, height() - kPad - lh, f.legend.left() - 2 * kPad, lh);
    p.setPen(hovered_ >= 0 ? text : dim);
    QString line = tr("Hover a cell for its plan; the ring marks the weights of this search.");
    if (hovered_ >= 0) {
        const auto& pt = map_->points[static_cast<std::size_t>(hovered_)];
        line = tr("(%1, %2, %3): ").arg(pt.weights.time).arg(pt.weights.memory).arg(pt.weights.variance)
            + describe(pt.winner);
    }
    p.drawText(hoverLine, Qt::AlignLeft | Qt::AlignVCenter,
               fm.elidedText(line, Qt::ElideRight, int(hoverLine.width())));
}

// Legend: the winners, fastest first.
void SimplexMapView::paintLegend(QPainter& p, const Frame& f) const
{
    const QColor text = palette().color(QPalette::Text);
    const QFontMetrics fm(font());
    const double lh = fm.height();
    QFont bold = font();
    bold.setBold(true);
    p.setRenderHint(QPainter::Antialiasing, false);
    double y = f.legend.top();
    p.setFont(bold);
    p.setPen(text);
    p.drawText(QRectF(f.legend.left(), y, f.legend.width(), lh), Qt::AlignLeft, tr("Winners, fastest first"));
    p.setFont(font());
    y += lh * 1.3;
    const double fastest = map_->plans.front().iterationMs;
    for (std::size_t k = 0; k < map_->plans.size() && y + lh <= f.legend.bottom(); ++k, y += lh * 1.15) {
        const Plan& plan = map_->plans[k];
        p.fillRect(QRectF(f.legend.left(), y + 2, 12, lh - 4), planColour(k));
        if (plan.key == selected_)
            p.setFont(bold);
        const QString line = tr("P%1  %2 s (+%3%)  %4 GiB  %5 pts")
                                 .arg(k + 1)
                                 .arg(plan.iterationMs / 1000, 0, 'f', 1)
                                 .arg(100 * (plan.iterationMs / fastest - 1), 0, 'f', 0)
                                 .arg(plan.maxMemMiB / 1024, 0, 'f', 1)
                                 .arg(map_->regionSize[k]);
        p.drawText(QRectF(f.legend.left() + 18, y, f.legend.width() - 18, lh), Qt::AlignLeft | Qt::AlignVCenter,
                   fm.elidedText(line, Qt::ElideRight, int(f.legend.width() - 18)));
        p.setFont(font());
    }
}

void SimplexMapView::mouseMoveEvent(QMouseEvent* e)
{
    const int now = pointAt(e->position());
    if (now != hovered_) {
        hovered_ = now;
        update();
    }
}

void SimplexMapView::mousePressEvent(QMouseEvent* e)
{
    const int i = pointAt(e->position());
    if (i >= 0 && e->button() == Qt::LeftButton) {
        const quint64 key = map_->plans[map_->points[static_cast<std::size_t>(i)].winner].key;
        setSelectedPlan(key);
        emit planActivated(key);
    }
}

void SimplexMapView::leaveEvent(QEvent*)
{
    if (hovered_ != -1) {
        hovered_ = -1;
        update();
    }
}

}  // namespace memx
