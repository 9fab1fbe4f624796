#include "ClusterLayout.h"

#include <QFontMetricsF>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace memx {

namespace layout {

QString number(double v) { return QString::number(v, 'g', 6); }

QString bandwidthText(const Link& l)
{
    return QStringLiteral("%1 %2 GB/s").arg(QString::fromLatin1(toString(l.kind)), number(l.bandwidthGBps));
}

QString sharingText(const Link& l)
{
    if (!l.mediumName.empty())
        return QStringLiteral("shared medium \"%1\"").arg(QString::fromStdString(l.mediumName));
    if (l.sharedFlag)
        return QStringLiteral("shared");
    return {};
}

bool isShared(const Link& l) { return l.sharedFlag || !l.mediumName.empty(); }

QSizeF textSize(const QString& text, const QFont& font)
{
    QFontMetricsF fm(font);
    QRectF r = fm.boundingRect(QRectF(0, 0, 1000, 1000), Qt::AlignLeft | Qt::AlignTop, text);
    return QSizeF(std::ceil(r.width()) + 10, std::ceil(r.height()) + 4);
}

QRectF centredRect(QPointF c, QSizeF s)
{
    return QRectF(c.x() - s.width() / 2, c.y() - s.height() / 2, s.width(), s.height());
}

}  // namespace layout

using namespace layout;

namespace {
constexpr double kTileW = ClusterLayout::kTileW;
constexpr double kTileH = ClusterLayout::kTileH;
constexpr double kTileGap = ClusterLayout::kTileGap;
constexpr double kPad = ClusterLayout::kPad;
constexpr double kTitleH = ClusterLayout::kTitleH;
constexpr double kLaneH = ClusterLayout::kLaneH;
using InNodeDrawing = ClusterLayout::InNodeDrawing;
using NodePlan = ClusterLayout::NodePlan;

struct Run {
    int link;
    int row;
    double x0, x1;  // bar extent
    double tick0, tick1;  // where the end ticks are
    bool dots;  // between-link: dots at the ends
    bool labelled;
    QString label;
    QSizeF labelSize;
    int lane = 0;
};

// A link between tile sets in different rows: an arc on the node's right.
struct Arc {
    int link;
    QVector<int> a, b;
    QString label;
};

// The node's tiles: 1-4 in a row, then rows of 4 (up to 16), then of 8.
struct Grid {
    int n, cols, rows;
    explicit Grid(int tiles)
        : n(tiles)
        , cols(tiles <= 4 ? tiles : (tiles <= 16 ? 4 : 8))
        , rows((tiles + cols - 1) / cols)
    {
    }
    double colX(int col) const { return kPad + col * (kTileW + kTileGap); }
    double tilesRight() const { return colX(cols - 1) + kTileW; }
};

// A within-link: a bar under each row it touches, the widest labelled.
void addWithinRuns(const QVector<int>& idx, int li, const QString& text, const Grid& g, const QFont& font,
                   std::vector<Run>& runs)
{
    std::map<int, std::pair<int, int>> perRow;
    for (int i : idx) {
        auto [it, inserted] = perRow.emplace(i / g.cols, std::make_pair(i % g.cols, i % g.cols));
        if (!inserted) {
            it->second.first = std::min(it->second.first, i % g.cols);
            it->second.second = std::max(it->second.second, i % g.cols);
        }
    }
    // Label the widest run (first of equals).
    int widestRow = -1, widest = -1;
    for (const auto& [row, cr] : perRow)
        if (cr.second - cr.first > widest) {
            widest = cr.second - cr.first;
            widestRow = row;
        }
    for (const auto& [row, cr] : perRow) {
        Run r{li,
              row,
              g.colX(cr.first) + 4,
              g.colX(cr.second) + kTileW - 4,
              0,
              0,
              false,
              row == widestRow,
              text,
              textSize(text, font)};
        r.tick0 = r.x0;
        r.tick1 = r.x1;
        runs.push_back(r);
    }
}

// The node's own links: bars under rows (runs) and arcs between rows.
void collectLinks(const Cluster& c, int nodeIdx, const Grid& g, const QFont& font, std::vector<Run>& runs,
                  std::vector<Arc>& arcs)
{
    auto localIndices = [&](const std::vector<int>& devices) {
        QVector<int> out;
        for (int d : devices)
            out.push_back(c.devices()[d].indexInNode);
        std::sort(out.begin(), out.end());
        return out;
    };
    for (int li = 0; li < static_cast<int>(c.links().size()); ++li) {
        const Link& l = c.links()[li];
        if (l.across)
            continue;  // a fabric of many nodes: named in the legend, not drawn per node
        if (c.devices()[l.a.front()].node != nodeIdx)
            continue;
        if (!l.within && c.devices()[l.b.front()].node != nodeIdx)
            continue;
        QString text = bandwidthText(l);
        if (isShared(l))
            text += QStringLiteral(" · ") + sharingText(l);
        if (l.within) {
            addWithinRuns(localIndices(l.a), li, text, g, font, runs);
            continue;
        }
        QVector<int> a = localIndices(l.a), b = localIndices(l.b);
        const int rowA0 = a.front() / g.cols, rowA1 = a.back() / g.cols, rowB0 = b.front() / g.cols,
                  rowB1 = b.back() / g.cols;
        if (rowA0 == rowA1 && rowB0 == rowB1 && rowA0 == rowB0) {
            auto centre = [&](const QVector<int>& s) {
                return (g.colX(s.front() % g.cols) + g.colX(s.back() % g.cols) + kTileW) / 2;
            };
            const double ca = centre(a), cb = centre(b);
            Run r{li,   rowA0, std::min(ca, cb),    std::max(ca, cb), std::min(ca, cb), std::max(ca, cb), true,
                  true, text,  textSize(text, font)};
            runs.push_back(r);
        } else {
            QString two = bandwidthText(l);
            if (isShared(l))
                two += QLatin1Char('\n') + sharingText(l);
            arcs.push_back({li, a, b, two});
        }
    }
}

// Lanes: per row, the first lane where the run (with its label) overlaps
// nothing; returns the lanes each row needs.
std::vector<int> assignLanes(std::vector<Run>& runs, int rows)
{
    std::vector<int> lanesInRow(rows, 0);
    std::vector<std::vector<std::vector<std::pair<double, double>>>> used(rows);
    for (auto& r : runs) {
        const double cx = (r.x0 + r.x1) / 2;
        double lo = r.x0, hi = r.x1;
        if (r.labelled) {
            lo = std::min(lo, cx - r.labelSize.width() / 2);
            hi = std::max(hi, cx + r.labelSize.width() / 2);
        }
        auto& lanes = used[r.row];
        int lane = 0;
        for (;; ++lane) {
            if (lane >= static_cast<int>(lanes.size()))
                lanes.emplace_back();
            const bool clash = std::any_of(lanes[lane].begin(), lanes[lane].end(),
                                           [&](const auto& iv) { return lo < iv.second + 6 && iv.first < hi + 6; });
            if (!clash)
                break;
        }
        lanes[lane].push_back({lo, hi});
        r.lane = lane;
        lanesInRow[r.row] = std::max(lanesInRow[r.row], lane + 1);
    }
    return lanesInRow;
}

// Brackets and bars of the runs, one drawing per link.
void drawRuns(const std::vector<Run>& runs, const std::vector<double>& rowTop, NodePlan& plan)
{
    std::map<int, int> drawingOf;  // link -> index in plan.links
    for (const auto& r : runs) {
        auto [it, inserted] = drawingOf.emplace(r.link, static_cast<int>(plan.links.size()));
        if (inserted) {
            InNodeDrawing d;
            d.link = r.link;
            plan.links.push_back(d);
        }
        InNodeDrawing& d = plan.links[it->second];
        const double tileBottom = rowTop[r.row] + kTileH + 1;
        const double barY = tileBottom + 11 + r.lane * kLaneH;
        d.path.moveTo(r.tick0, tileBottom);
        d.path.lineTo(r.tick0, barY);
        d.path.lineTo(r.tick1, barY);
        d.path.lineTo(r.tick1, tileBottom);
        if (r.dots) {
            d.dots.addEllipse(QPointF(r.tick0, tileBottom + 2), 3, 3);
            d.dots.addEllipse(QPointF(r.tick1, tileBottom + 2), 3, 3);
        }
        if (r.labelled) {
            d.label = r.label;
            d.labelRect = centredRect(QPointF((r.x0 + r.x1) / 2, barY), QSizeF(r.labelSize.width(), 16));
        }
    }
}

// Arcs on the right for links between sets in different rows; returns how
// far their labels reach past the tiles.
double drawArcs(const std::vector<Arc>& arcs, const std::vector<double>& rowTop, const Grid& g, const QFont& font,
                NodePlan& plan)
{
    double rightExtra = 0;
    for (std::size_t k = 0; k < arcs.size(); ++k) {
        const Arc& arc = arcs[k];
        auto span = [&](const QVector<int>& s) {
            return std::make_pair(rowTop[s.front() / g.cols] + kTileH / 2, rowTop[s.back() / g.cols] + kTileH / 2);
        };
        auto [a0, a1] = span(arc.a);
        auto [b0, b1] = span(arc.b);
        const double ya = (a0 + a1) / 2, yb = (b0 + b1) / 2;
        const double x = g.tilesRight() + 3;
        const double bulge = 30 + 18 * static_cast<double>(k);
        InNodeDrawing d;
        d.link = arc.link;
        d.path.moveTo(x, ya);
        d.path.cubicTo(x + bulge, ya, x + bulge, yb, x, yb);
        d.dots.addEllipse(QPointF(x, ya), 3, 3);
        d.dots.addEllipse(QPointF(x, yb), 3, 3);
        const QSizeF s = textSize(arc.label, font);
        const double apexX = x + 0.75 * bulge;
        d.labelRect
            = QRectF(apexX + 6, (ya + yb) / 2 - s.height() / 2 + 22 * static_cast<double>(k), s.width(), s.height());
        d.label = arc.label;
        d.flags = Qt::AlignLeft | Qt::AlignVCenter;
        rightExtra = std::max(rightExtra, d.labelRect.right() - g.tilesRight());
        plan.links.push_back(d);
    }
    return rightExtra;
}

}  // namespace

ClusterLayout::NodePlan ClusterLayout::planNode(const Cluster& c, int nodeIdx, const QFont& font)
{
    NodePlan plan;
    const Grid g(static_cast<int>(c.nodes()[nodeIdx].devices.size()));
    std::vector<Run> runs;
    std::vector<Arc> arcs;
    collectLinks(c, nodeIdx, g, font, runs, arcs);
    const std::vector<int> lanesInRow = assignLanes(runs, g.rows);

    std::vector<double> rowTop(g.rows);
    double y = kTitleH;
    for (int r = 0; r < g.rows; ++r) {
        rowTop[r] = y;
        y += kTileH + (lanesInRow[r] > 0 ? lanesInRow[r] * kLaneH + 6 : 0) + (r + 1 < g.rows ? kTileGap : 0);
    }
    const double bottom = y + kPad;
    for (int i = 0; i < g.n; ++i)
        plan.tiles.push_back(QRectF(g.colX(i % g.cols), rowTop[i / g.cols], kTileW, kTileH));

    drawRuns(runs, rowTop, plan);
    const double rightExtra = drawArcs(arcs, rowTop, g, font, plan);
    plan.size = QSizeF(g.tilesRight() + rightExtra + kPad, bottom);
    return plan;
}

ClusterLayout ClusterLayout::of(const Cluster& c, const QFont& font)
{
    ClusterLayout out;
    const int nodeCount = static_cast<int>(c.nodes().size());
    for (int i = 0; i < nodeCount; ++i)
        out.nodes.push_back(planNode(c, i, font));
    const std::vector<NodePlan>& plans = out.nodes;
    const int columns = nodeCount <= 1 ? 1 : nodeCount <= 4 ? 2 : static_cast<int>(std::ceil(std::sqrt(nodeCount)));
    out.origin.resize(nodeCount);
    std::vector<double> rowWidth, rowHeight;
    for (int i = 0; i < nodeCount; ++i) {
        int row = i / columns;
        if (row >= static_cast<int>(rowWidth.size())) {
            rowWidth.push_back(-kNodeGapX);
            rowHeight.push_back(0);
        }
        rowWidth[row] += plans[i].size.width() + kNodeGapX;
        rowHeight[row] = std::max(rowHeight[row], plans[i].size.height());
    }
    const double maxWidth = rowWidth.empty() ? 0 : *std::max_element(rowWidth.begin(), rowWidth.end());
    double y = 0;
    for (std::size_t row = 0; row < rowWidth.size(); ++row) {
        double x = (maxWidth - rowWidth[row]) / 2;
        for (int i = static_cast<int>(row) * columns; i < std::min(nodeCount, (static_cast<int>(row) + 1) * columns);
             ++i) {
            out.origin[i] = QPointF(x, y + (rowHeight[row] - plans[i].size.height()) / 2);
            x += plans[i].size.width() + kNodeGapX;
        }
        y += rowHeight[row] + kNodeGapY;
    }
    return out;
}

}  // namespace memx
