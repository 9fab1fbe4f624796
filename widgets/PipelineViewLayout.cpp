#include "PipelineViewLayout.h"

#include <QFontMetrics>

#include <algorithm>
#include <cmath>

namespace memx {

namespace {

// 1-2-5 tick step giving about `target` ticks over `span`.
double niceStep(double span, int target)
{
    if (span <= 0)
        return 1;
    const double raw = span / std::max(1, target);
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (raw <= m * mag)
            return m * mag;
    return 10 * mag;
}

// Columns as wide as their widest cell; headers on one line when they all
// fit, else wrapped at spaces onto two; any width left over is shared out.
void placeColumns(const PipelineViewLayout::Input& in, int width, int lineHeight, PipelineViewLayout& g)
{
    const QFontMetrics fm(in.font);
    QFont bold = in.font;
    bold.setBold(true);
    const QFontMetrics bm(bold);
    const int n = static_cast<int>(in.headers.size());
    std::vector<int> cell(n, 0), header(n, 0), word(n, 0);
    for (int c = 0; c < n; ++c) {
        // The wider of the advance and the ink, and a pixel: a bold glyph can
        // overhang its advance, and the header is drawn in its bounding rect.
        const auto need
            = [&bm](const QString& t) { return std::max(bm.horizontalAdvance(t), bm.boundingRect(t).width()) + 1; };
        header[c] = need(in.headers[c]) + 8;
        for (const QString& w : in.headers[c].split(QLatin1Char(' ')))
            word[c] = std::max(word[c], need(w) + 8);
        if (c == PipelineViewLayout::kSwatchColumn)
            cell[c] = 16;  // colour swatch
    }
    for (const QStringList& cells : in.rows)
        for (int c = 0; c < n && c < cells.size(); ++c)
            cell[c] = std::max(cell[c],
                               fm.horizontalAdvance(cells[c]) + 8 + (c == PipelineViewLayout::kSwatchColumn ? 16 : 0));
    int oneLine = 0, twoLines = 0;
    for (int c = 0; c < n; ++c) {
        oneLine += std::max(cell[c], header[c]);
        twoLines += std::max(cell[c], std::max(word[c], (header[c] + 1) / 2 + 8));
    }
    const bool wrap = oneLine > width;
    std::vector<int> want(n);
    for (int c = 0; c < n; ++c)
        want[c] = wrap ? std::max(cell[c], std::max(word[c], (header[c] + 1) / 2 + 8)) : std::max(cell[c], header[c]);
    const int total = wrap ? twoLines : oneLine;
    g.headerHeight = (wrap ? 2 * lineHeight : lineHeight) + 6;
    // Squeezed, a column keeps what its header needs and gives up only the
    // width of its cells beyond that (they elide): a per-mesh plan's shapes
    // made a 600 px view cut "Stage" to "Stag".
    std::vector<int> floor(n);
    int floors = 0;
    for (int c = 0; c < n; ++c) {
        floor[c] = std::min(want[c], wrap ? std::max(word[c], (header[c] + 1) / 2 + 8) : header[c]);
        floors += floor[c];
    }
    const bool keepHeaders = total > width && floors <= width && total > floors;
    const int left = in.target.left() + PipelineViewLayout::kPad;
    g.columnX.assign(1, left);
    double acc = left;
    for (int c = 0; c < n; ++c) {
        if (keepHeaders)  // whole pixels, so that rounding never takes one from a header
            acc += floor[c] + std::floor(double(want[c] - floor[c]) * (width - floors) / (total - floors));
        else
            acc += total > 0 ? double(want[c]) * width / total : double(width) / n;  // stretched or squeezed alike
        g.columnX.push_back(static_cast<int>(std::lround(acc)));
    }
}

}  // namespace

PipelineViewLayout PipelineViewLayout::of(const Input& in)
{
    PipelineViewLayout g;
    const QRect& r = in.target;
    const QFontMetrics fm(in.font);
    const int lh = fm.height();
    const int rows = static_cast<int>(in.rows.size());
    const int width = r.width() - 2 * kPad;
    placeColumns(in, width, lh, g);
    g.rowHeight = lh + 6;
    const int tableH = g.headerHeight + rows * g.rowHeight + (in.ablationLines > 0 ? 4 + in.ablationLines * lh : 0);
    g.table = QRect(r.left() + kPad, r.top() + kPad, width, tableH);
    g.labelWidth = fm.horizontalAdvance(QStringLiteral("S00 ")) + 4;
    // The title on one line when it fits, else wrapped onto as many as it needs.
    QFont bold = in.font;
    bold.setBold(true);
    const QFontMetrics bm(bold);
    g.titleLines = std::max(
        1,
        (bm.boundingRect(QRect(0, 0, std::max(1, width), 100 * lh), Qt::AlignLeft | Qt::TextWordWrap, in.title).height()
         + lh - 1)
            / lh);
    g.title = QRect(r.left() + kPad, g.table.bottom() + kPad, width, g.titleLines * lh);
    const int tlTop = g.table.bottom() + 2 * kPad + (g.titleLines + 1) * lh;  // title + legend lines
    const int tlBottom = r.bottom() - kPad - 2 * lh;  // axis ticks + axis label
    g.trackHeight = rows > 0 ? std::clamp((tlBottom - tlTop) / rows, 8, 60) : 0;
    g.timeline = QRect(r.left() + kPad + g.labelWidth, tlTop, std::max(50, width - g.labelWidth - kBubbleColumn),
                       g.trackHeight * rows);
    return g;
}

QRect PipelineViewLayout::track(int stage) const
{
    return {timeline.left(), timeline.top() + stage * trackHeight + 3, timeline.width(), trackHeight - 6};
}

QRectF PipelineViewLayout::opRect(int stage, const PipelineOp& op, double makespanMs) const
{
    const double span = std::max(1e-9, makespanMs);
    const double x0 = timeline.left() + op.startMs / span * timeline.width();
    const double x1 = timeline.left() + op.endMs / span * timeline.width();
    const QRect row = track(stage);
    return {x0, double(row.top()), std::max(1.0, x1 - x0), double(row.height())};
}

std::vector<double> PipelineViewLayout::ticksMs(double makespanMs, double unitMs) const
{
    const double span = std::max(1e-9, makespanMs);
    double step = niceStep(span / unitMs, std::max(2, timeline.width() / 110));
    // Never an axis of "0" alone: the next smaller 1-2-5 step when the
    // chosen one passes the makespan (5000 ms on a 4986 ms timeline).
    if (step > span / unitMs) {
        const double mag = std::pow(10.0, std::floor(std::log10(step) + 1e-9));
        const double lead = step / mag;
        step = lead > 4.5 ? 2 * mag : lead > 1.5 ? mag : 0.5 * mag;
    }
    std::vector<double> out;
    for (double t = 0; t <= span / unitMs + 1e-9; t += step)
        out.push_back(t * unitMs);
    return out;
}

int PipelineViewLayout::tickX(double ms, double makespanMs) const
{
    return timeline.left() + static_cast<int>(std::lround(ms / std::max(1e-9, makespanMs) * timeline.width()));
}

}  // namespace memx
