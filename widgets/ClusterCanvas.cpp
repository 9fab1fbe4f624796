// Over 600 lines: the canvas's scene items, hit-testing, drag and drop and editing gestures; its geometry is
// ClusterLayout (tested without a scene).
#include "ClusterCanvas.h"

#include "ClusterDocument.h"
#include "ClusterLayout.h"
#include "GpuTypeColors.h"
#include "PlanColors.h"

#include "hardware/Cluster.h"
#include "io/Text.h"
#include "hardware/ClusterGenerator.h"

#include <QAction>
#include <QContextMenuEvent>
#include <QCoreApplication>
#include <QDragEnterEvent>
#include <QFontMetricsF>
#include <QGraphicsItem>
#include <QGraphicsLineItem>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QKeyEvent>
#include <QMenu>
#include <QMimeData>
#include <QPainter>
#include <QPainterPathStroker>
#include <QScrollBar>
#include <QStyleOptionGraphicsItem>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace memx {

using namespace layout;

namespace {

// Between the nodes' curves, in scene units (pixels at zoom 1); the rest of
// the geometry is ClusterLayout's.
constexpr double kMultiEdgeSpacing = 46;

enum DataKey { KeyKind = 0, KeyNode = 1, KeyGpu = 2, KeyLink = 3, KeyType = 4 };

QColor linkColor(LinkKind kind)
{
    switch (kind) {
    case LinkKind::NVLink: return QColor(0x2e, 0x7d, 0x32);
    case LinkKind::PCIe: return QColor(0x45, 0x5a, 0x64);
    case LinkKind::xGMI: return QColor(0xad, 0x14, 0x57);
    case LinkKind::HCCS: return QColor(0x6a, 0x1b, 0x9a);
    case LinkKind::CrossNUMA: return QColor(0xc6, 0x28, 0x28);
    case LinkKind::InfiniBand: return QColor(0xd8, 0x5c, 0x00);
    case LinkKind::RoCE: return QColor(0x15, 0x65, 0xc0);
    case LinkKind::Ethernet: return QColor(0x5d, 0x40, 0x37);
    }
    return Qt::darkGray;
}

QFont labelFont()
{
    QFont f;
    f.setPointSizeF(8.5);
    return f;
}

// Where the ray from `from` toward `to` leaves `r`.
QPointF exitPoint(const QRectF& r, QPointF from, QPointF to)
{
    QPointF d = to - from;
    double tx = 1e9, ty = 1e9;
    if (d.x() > 1e-9)
        tx = (r.right() - from.x()) / d.x();
    else if (d.x() < -1e-9)
        tx = (r.left() - from.x()) / d.x();
    if (d.y() > 1e-9)
        ty = (r.bottom() - from.y()) / d.y();
    else if (d.y() < -1e-9)
        ty = (r.top() - from.y()) / d.y();
    double t = std::min({tx, ty, 1.0});
    return from + d * t;
}

QString emptyHintText()
{
    return QCoreApplication::translate(
        "ClusterCanvas",
        "This cluster has no GPUs yet.\n\n"
        "\u2022 Drag a GPU type from the GPU Types palette onto this canvas: a node of 8 with its "
        "fabric (drop more types on a node to fill it).\n"
        "\u2022 Or Edit > Add Node (Ctrl+Shift+N), or Edit > Add Node From Template for NVSwitch "
        "or PCIe-pair nodes (also on a right click here).\n"
        "\u2022 Or File > Import Cluster... to load a memx-cluster/1 file.\n\n"
        "New nodes are linked to every other node by InfiniBand; drag from one GPU to another "
        "(right button or Shift) to add a link.");
}

}  // namespace

// One drawable: a path with pen and brush, an optional label in a box and an
// optional corner text. Everything is in item coordinates.
class CanvasItem : public QGraphicsItem {
public:
    QPainterPath path;
    QPen pen = QPen(Qt::black, 1);
    QBrush brush = Qt::NoBrush;
    QPainterPath dots;  // filled with the pen colour (link ends)
    QString label;
    QRectF labelRect;
    QFont font = labelFont();
    QColor textColor = Qt::black;
    QColor labelBackground;  // invalid: no box
    QColor labelBorder;  // invalid: no border
    int labelFlags = Qt::AlignCenter;
    QString corner;  // small text in the top-right corner of the path's bounds
    bool pickByStroke = false;  // hit area is a widened stroke (lines), not the fill

    QRectF boundingRect() const override
    {
        double m = pen.widthF() + 6;
        QRectF r = path.boundingRect().united(dots.boundingRect()).adjusted(-m, -m, m, m);
        if (!label.isEmpty())
            r = r.united(labelRect.adjusted(-2, -2, 2, 2));
        return r;
    }

    QPainterPath shape() const override
    {
        QPainterPath s;
        if (pickByStroke) {
            QPainterPathStroker stroker;
            stroker.setWidth(std::max(12.0, pen.widthF() + 8));
            s = stroker.createStroke(path);
        } else {
            s = path;
        }
        if (!label.isEmpty()) {
            // A union, not addRect: a tile's label box is its path's own
            // rectangle, and under the odd-even rule a rectangle added over a
            // path cuts it out, so a click on a tile fell through to its node.
            QPainterPath box;
            box.addRect(labelRect);
            s = s.united(box);
        }
        return s;
    }

    void paint(QPainter* p, const QStyleOptionGraphicsItem*, QWidget*) override
    {
        p->setRenderHint(QPainter::Antialiasing);
        if (isSelected()) {
            QPen halo(QColor(0x1e, 0x88, 0xe5, 150), pen.widthF() + 6, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin);
            p->setPen(halo);
            p->setBrush(Qt::NoBrush);
            p->drawPath(path);
        }
        p->setPen(pen);
        p->setBrush(brush);
        p->drawPath(path);
        if (!dots.isEmpty()) {
            p->setPen(Qt::NoPen);
            p->setBrush(pen.color());
            p->drawPath(dots);
        }
        if (!label.isEmpty()) {
            if (labelBackground.isValid()) {
                p->setPen(labelBorder.isValid()
                              ? QPen(isSelected() ? QColor(0x1e, 0x88, 0xe5) : labelBorder, isSelected() ? 2.0 : 1.0)
                              : QPen(Qt::NoPen));
                p->setBrush(labelBackground);
                p->drawRoundedRect(labelRect, 4, 4);
            }
            p->setPen(textColor);
            p->setFont(font);
            p->drawText(labelFlags & (Qt::AlignLeft | Qt::AlignTop) ? labelRect.adjusted(5, 2, -5, -2) : labelRect,
                        labelFlags, label);
        }
        if (!corner.isEmpty()) {
            QFont f = font;
            f.setPointSizeF(font.pointSizeF() - 1.5);
            f.setBold(false);
            p->setFont(f);
            p->setPen(textColor);
            p->drawText(path.boundingRect().adjusted(4, 2, -5, -2), Qt::AlignRight | Qt::AlignTop, corner);
        }
    }
};

ClusterCanvas::ClusterCanvas(ClusterDocument* document, QWidget* parent)
    : QGraphicsView(parent)
    , document_(document)
    , scene_(new QGraphicsScene(this))
{
    setScene(scene_);
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setAcceptDrops(true);
    setDragMode(QGraphicsView::RubberBandDrag);
    // A band selects the GPU tiles it holds, not the node box it starts in.
    setRubberBandSelectionMode(Qt::ContainsItemShape);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setBackgroundBrush(palette().color(QPalette::Base));
    setFocusPolicy(Qt::StrongFocus);
    connect(scene_, &QGraphicsScene::selectionChanged, this, &ClusterCanvas::onSceneSelectionChanged);
    connect(document_, &ClusterDocument::changed, this, &ClusterCanvas::rebuild);
    connect(document_, &ClusterDocument::reset, this, [this] {
        autoFit_ = true;
        fitAll();
    });
    CanvasSelection::followRenames(document_, this, &selection_);
    rebuild();
}

ClusterCanvas::~ClusterCanvas()
{
    // QWidget's destructor deletes children after our members are gone; the
    // scene would then report its cleared selection to a half-destroyed view.
    scene_->disconnect(this);
    setScene(nullptr);
    delete scene_;
}

int ClusterCanvas::gpuTileCount() const
{
    int total = 0;
    for (const auto& tiles : tileItems_)
        total += static_cast<int>(tiles.size());
    return total;
}

QGraphicsItem* ClusterCanvas::nodeItem(const QString& node) const { return nodeItems_.value(node, nullptr); }

QGraphicsItem* ClusterCanvas::gpuItem(const QString& node, int gpuIndex) const
{
    auto it = tileItems_.find(node);
    if (it == tileItems_.end() || gpuIndex < 0 || gpuIndex >= it->size())
        return nullptr;
    return (*it)[gpuIndex];
}

QGraphicsItem* ClusterCanvas::linkItem(const QString& link) const { return linkItems_.value(link, nullptr); }

void ClusterCanvas::rebuild()
{
    rebuilding_ = true;
    dragLine_ = nullptr;
    scene_->clear();
    nodeItems_.clear();
    tileItems_.clear();
    linkItems_.clear();
    hintItem_ = nullptr;

    const Cluster& c = document_->cluster();
    const QFont font = labelFont();

    const ClusterLayout layout = ClusterLayout::of(c, font);

    addNodeItems(c, layout, font);
    addLinkItems(c, layout, font);
    addHintOrLegend(c, font);
    scene_->setSceneRect(scene_->itemsBoundingRect().adjusted(-30, -30, 30, 30));

    restoreSelection();
    if (autoFit_)
        fitAll();
}

// Nodes as boxes, each GPU a tile in its type's colour.
void ClusterCanvas::addNodeItems(const Cluster& c, const ClusterLayout& layout, const QFont& font)
{
    const std::vector<ClusterLayout::NodePlan>& plans = layout.nodes;
    const std::vector<QPointF>& origin = layout.origin;
    const int nodeCount = static_cast<int>(c.nodes().size());
    const GpuTypeColors gpuColors = GpuTypeColors::of(c);
    QFont titleFont = font;
    titleFont.setPointSizeF(10);
    titleFont.setBold(true);
    for (int i = 0; i < nodeCount; ++i) {
        const Node& node = c.nodes()[i];
        const QString name = QString::fromStdString(node.name);
        auto* box = new CanvasItem;
        box->path.addRoundedRect(QRectF(QPointF(0, 0), plans[i].size), 10, 10);
        // Node boxes follow the palette (light and dark desktops alike).
        box->pen = QPen(palette().color(QPalette::Mid), 1.2);
        box->brush = palette().color(QPalette::AlternateBase);
        box->label = QStringLiteral("%1  ·  %2 GPU%3")
                         .arg(name)
                         .arg(node.devices.size())
                         .arg(node.devices.size() == 1 ? "" : "s");
        box->font = titleFont;
        box->labelRect = QRectF(ClusterLayout::kPad - 4, 3, plans[i].size.width() - 2 * ClusterLayout::kPad,
                                ClusterLayout::kTitleH - 4);
        box->labelFlags = Qt::AlignLeft | Qt::AlignVCenter;
        box->textColor = palette().color(QPalette::Text);
        box->setPos(origin[i]);
        box->setZValue(0);
        box->setFlag(QGraphicsItem::ItemIsSelectable);
        box->setData(KeyKind, CanvasSelection::Node);
        box->setData(KeyNode, name);
        box->setToolTip(
            tr("Node %1: drop a GPU type here to add one; right-drag to another node to link them").arg(name));
        scene_->addItem(box);
        nodeItems_.insert(name, box);

        QVector<CanvasItem*>& tiles = tileItems_[name];
        for (int k = 0; k < static_cast<int>(node.devices.size()); ++k) {
            const GpuType& type = c.typeOf(node.devices[k]);
            const QString typeName = QString::fromStdString(type.name);
            const QColor colour = gpuColors.color(typeName);
            auto* tile = new CanvasItem;
            tile->path.addRoundedRect(plans[i].tiles[k], 5, 5);
            tile->pen = QPen(colour.darker(140), 1);
            tile->brush = colour;
            tile->label = QStringLiteral("%1\n%2 GiB").arg(typeName, number(type.memoryGiB));
            tile->labelRect = plans[i].tiles[k];
            QFont tf = font;
            tf.setPointSizeF(8.5);
            tf.setBold(true);
            tile->font = tf;
            tile->textColor = GpuTypeColors::textOn(colour);
            tile->corner = QString::number(k);
            tile->setPos(origin[i]);
            tile->setZValue(2);
            tile->setFlag(QGraphicsItem::ItemIsSelectable);
            tile->setData(KeyKind, CanvasSelection::Gpu);
            tile->setData(KeyNode, name);
            tile->setData(KeyGpu, k);
            tile->setData(KeyType, typeName);
            tile->setToolTip(QStringLiteral("%1:%2  %3\n%4 TFLOP/s bf16, %5 GiB, %6 GB/s HBM")
                                 .arg(name)
                                 .arg(k)
                                 .arg(typeName, number(type.peakTflopsBf16), number(type.memoryGiB),
                                      number(type.memoryBandwidthGBps)));
            scene_->addItem(tile);
            tiles.push_back(tile);
        }
    }
}

// Links inside a node as bars under its tiles; links between two nodes as
// curves (several between one pair fan out).
void ClusterCanvas::addLinkItems(const Cluster& c, const ClusterLayout& layout, const QFont& font)
{
    addLinksInNodes(c, layout);
    addLinksBetweenNodes(c, layout, font);
}

// A link's pen, label box, selection data and tooltip; added to the scene.
void ClusterCanvas::styleLinkItem(CanvasItem* item, const Link& l)
{
    const QColor colour = linkColor(l.kind);
    QPen pen(colour, l.kind == LinkKind::NVLink || l.kind == LinkKind::HCCS || l.kind == LinkKind::xGMI ? 3.0 : 2.2);
    pen.setCapStyle(Qt::FlatCap);
    if (isShared(l))
        pen.setDashPattern({4, 2.5});
    item->pen = pen;
    const bool dark = palette().color(QPalette::Base).lightness() < 128;
    item->textColor = dark ? colour.lighter(150) : colour.darker(130);
    item->labelBackground = colors::withAlpha(palette().color(QPalette::Base), 235);
    item->labelBorder = colour;
    item->pickByStroke = true;
    item->setFlag(QGraphicsItem::ItemIsSelectable);
    item->setData(KeyKind, CanvasSelection::Link);
    item->setData(KeyLink, QString::fromStdString(l.name));
    QString tip
        = QStringLiteral("%1: %2, %3 us").arg(QString::fromStdString(l.name), bandwidthText(l), number(l.latencyUs));
    tip += l.within ? QStringLiteral("\nwithin %1").arg(QString::fromStdString(l.aSelector))
                    : QStringLiteral("\nbetween %1 and %2")
                          .arg(QString::fromStdString(l.aSelector), QString::fromStdString(l.bSelector));
    if (isShared(l))
        tip += QLatin1Char('\n') + sharingText(l);
    item->setToolTip(tip);
    linkItems_.insert(QString::fromStdString(l.name), item);
    scene_->addItem(item);
}

// Links inside a node: the bars and brackets its plan laid out.
void ClusterCanvas::addLinksInNodes(const Cluster& c, const ClusterLayout& layout)
{
    const std::vector<ClusterLayout::NodePlan>& plans = layout.nodes;
    const std::vector<QPointF>& origin = layout.origin;
    const int nodeCount = static_cast<int>(c.nodes().size());
    for (int i = 0; i < nodeCount; ++i) {
        for (const auto& d : plans[i].links) {
            const Link& l = c.links()[d.link];
            auto* item = new CanvasItem;
            item->path = d.path;
            item->dots = d.dots;
            item->label = d.label;
            item->labelRect = d.labelRect;
            item->labelFlags = d.flags;
            item->setPos(origin[i]);
            item->setZValue(3);
            styleLinkItem(item, l);
        }
    }
}

void ClusterCanvas::addLinksBetweenNodes(const Cluster& c, const ClusterLayout& layout, const QFont& font)
{
    const std::vector<ClusterLayout::NodePlan>& plans = layout.nodes;
    const std::vector<QPointF>& origin = layout.origin;
    // Links between nodes: centre of set A to centre of set B; several links
    // between one pair of nodes fan out as curves.
    auto setRect = [&](const std::vector<int>& devices) {
        const int node = c.devices()[devices.front()].node;
        if (devices.size() == c.nodes()[node].devices.size())
            return QRectF(origin[node], plans[node].size).adjusted(-2, -2, 2, 2);
        QRectF r;
        for (int d : devices) {
            const Device& dev = c.devices()[d];
            QRectF t = plans[dev.node].tiles[dev.indexInNode].translated(origin[dev.node]);
            r = r.isNull() ? t : r.united(t);
        }
        return r;
    };
    std::map<std::pair<int, int>, std::vector<int>> pairs;
    for (int li = 0; li < static_cast<int>(c.links().size()); ++li) {
        const Link& l = c.links()[li];
        if (l.within || l.across)
            continue;
        int na = c.devices()[l.a.front()].node, nb = c.devices()[l.b.front()].node;
        if (na != nb)
            pairs[{std::min(na, nb), std::max(na, nb)}].push_back(li);
    }
    for (const auto& [pair, links] : pairs) {
        const int m = static_cast<int>(links.size());
        for (int k = 0; k < m; ++k) {
            const Link& l = c.links()[links[k]];
            // Orient every curve of the pair the same way so offsets fan out.
            bool flip = c.devices()[l.a.front()].node != pair.first;
            QRectF ra = setRect(flip ? l.b : l.a), rb = setRect(flip ? l.a : l.b);
            QPointF ca = ra.center(), cb = rb.center();
            QPointF pa = exitPoint(ra.adjusted(-4, -4, 4, 4), ca, cb);
            QPointF pb = exitPoint(rb.adjusted(-4, -4, 4, 4), cb, ca);
            QPointF dir = pb - pa;
            double len = std::hypot(dir.x(), dir.y());
            QPointF normal = len > 0 ? QPointF(-dir.y() / len, dir.x() / len) : QPointF(0, 1);
            double offset = (k - (m - 1) / 2.0) * kMultiEdgeSpacing;
            QPointF mid = (pa + pb) / 2;
            QPointF control = mid + normal * (2 * offset);
            auto* item = new CanvasItem;
            item->path.moveTo(pa);
            item->path.quadTo(control, pb);
            item->dots.addEllipse(pa, 3.5, 3.5);
            item->dots.addEllipse(pb, 3.5, 3.5);
            QString text = bandwidthText(l);
            if (isShared(l))
                text += QLatin1Char('\n') + sharingText(l);
            item->label = text;
            QPointF apex = mid + normal * offset;
            item->labelRect = centredRect(apex, textSize(text, font));
            item->setZValue(4);
            styleLinkItem(item, l);
        }
    }
}

// An empty cluster's first-run hint, or the legend under the nodes.
void ClusterCanvas::addHintOrLegend(const Cluster& c, const QFont& font)
{
    if (c.nodes().empty())
        addHint(font);
    else
        addLegend(c, font);
}

void ClusterCanvas::addHint(const QFont& font)
{
    // First run (File > New) or every node deleted: say how to start.
    QFont hf = font;
    hf.setPointSizeF(11);
    auto* hint = scene_->addText(emptyHintText(), hf);
    hint->setDefaultTextColor(palette().color(QPalette::PlaceholderText));
    hint->setTextWidth(520);
    hintItem_ = hint;
}

// GPU types with counts, link kinds present, line styles, fabrics across nodes.
void ClusterCanvas::addLegend(const Cluster& c, const QFont& font)
{
    const GpuTypeColors gpuColors = GpuTypeColors::of(c);
    QRectF content = scene_->itemsBoundingRect();
    double x = content.left(), y = content.bottom() + 30;
    QFont lf = font;
    lf.setPointSizeF(9);
    QFont bold = lf;
    bold.setBold(true);
    const QColor legendText = palette().color(QPalette::Text);
    auto addText = [&](const QString& text, const QFont& f, QPointF at, QColor colour = QColor()) {
        if (!colour.isValid())
            colour = legendText;
        auto* t = scene_->addSimpleText(text, f);
        t->setBrush(colour);
        t->setPos(at);
        t->setZValue(5);
        return t->boundingRect().width();
    };
    x += addText(tr("GPU types"), bold, QPointF(x, y)) + 14;
    std::map<std::string, int> counts;
    for (int d = 0; d < c.deviceCount(); ++d)
        counts[c.typeOf(d).name]++;
    for (const auto& t : c.types()) {
        const QString name = QString::fromStdString(t.name);
        auto* sw
            = scene_->addRect(QRectF(x, y + 1, 16, 14), QPen(gpuColors.color(name).darker(140)), gpuColors.color(name));
        sw->setZValue(5);
        x += 22;
        x += addText(QStringLiteral("%1 ×%2  (%3 TFLOP/s, %4 GiB)")
                         .arg(name)
                         .arg(counts[t.name])
                         .arg(number(t.peakTflopsBf16), number(t.memoryGiB)),
                     lf, QPointF(x, y))
            + 22;
    }
    x = content.left();
    y += 26;
    x += addText(tr("Links"), bold, QPointF(x, y)) + 14;
    std::set<int> kinds;
    for (const auto& l : c.links())
        kinds.insert(static_cast<int>(l.kind));
    for (int k : kinds) {
        const QColor colour = linkColor(static_cast<LinkKind>(k));
        auto* line = scene_->addLine(QLineF(x, y + 8, x + 26, y + 8), QPen(colour, 3));
        line->setZValue(5);
        x += 32;
        x += addText(QString::fromLatin1(toString(static_cast<LinkKind>(k))), lf, QPointF(x, y), colour.darker(130))
            + 20;
    }
    auto* solid = scene_->addLine(QLineF(x, y + 8, x + 26, y + 8), QPen(QColor(0x55, 0x55, 0x55), 2));
    solid->setZValue(5);
    x += 32;
    x += addText(tr("switched (full bandwidth per transfer)"), lf, QPointF(x, y)) + 20;
    QPen dashed(QColor(0x55, 0x55, 0x55), 2);
    dashed.setDashPattern({4, 2.5});
    auto* dash = scene_->addLine(QLineF(x, y + 8, x + 26, y + 8), dashed);
    dash->setZValue(5);
    x += 32;
    addText(tr("shared (concurrent transfers split it)"), lf, QPointF(x, y));
    // Fabrics across many nodes are not drawn as curves between every pair.
    for (const auto& l : c.links()) {
        if (!l.across)
            continue;
        y += 22;
        x = content.left();
        const QColor colour = linkColor(l.kind);
        auto* line = scene_->addLine(QLineF(x, y + 8, x + 26, y + 8), QPen(colour, 3));
        line->setZValue(5);
        x += 32;
        const QString over = l.acrossSelectors == std::vector<std::string>{"*"}
            ? tr("every node")
            : QString::fromStdString(Text::join(l.acrossSelectors));
        addText(tr("%1: %2, %3 us, joins the GPUs of different nodes across %4")
                    .arg(QString::fromStdString(l.name), bandwidthText(l), number(l.latencyUs), over),
                lf, QPointF(x, y), colour.darker(130));
    }
}

// What was selected before a rebuild, if it still exists; selectionChanged
// either way, so property panels refresh their values.
void ClusterCanvas::restoreSelection()
{
    // Restore the selection if what was selected still exists.
    CanvasSelection previous = selection_;
    QGraphicsItem* restore = nullptr;
    switch (previous.kind) {
    case CanvasSelection::Node: restore = nodeItem(previous.node); break;
    case CanvasSelection::Gpu: restore = gpuItem(previous.node, previous.gpuIndex); break;
    case CanvasSelection::Link: restore = linkItem(previous.link); break;
    case CanvasSelection::None: break;
    }
    if (restore)
        restore->setSelected(true);
    rebuilding_ = false;
    CanvasSelection now = restore ? selectionOf(restore) : CanvasSelection{};
    if (!(now == previous) || previous.kind != CanvasSelection::None) {
        selection_ = now;
        // Emitted after every rebuild with a selection so property panels refresh their values.
        emit selectionChanged(selection_);
    }
}

void ClusterCanvas::fitAll()
{
    if (scene_->sceneRect().isEmpty())
        return;
    fitInView(scene_->sceneRect(), Qt::KeepAspectRatio);
    // Never blow small clusters up beyond 1.4x: labels would look oversized.
    if (transform().m11() > 1.4) {
        setTransform(QTransform::fromScale(1.4, 1.4));
        centerOn(scene_->sceneRect().center());
    }
}

void ClusterCanvas::zoomBy(double factor)
{
    autoFit_ = false;
    scale(factor, factor);
}

CanvasSelection ClusterCanvas::selectionOf(const QGraphicsItem* item)
{
    CanvasSelection s;
    if (!item || !item->data(KeyKind).isValid())
        return s;
    s.kind = static_cast<CanvasSelection::Kind>(item->data(KeyKind).toInt());
    s.node = item->data(KeyNode).toString();
    s.gpuIndex = item->data(KeyGpu).isValid() ? item->data(KeyGpu).toInt() : -1;
    s.gpuType = item->data(KeyType).toString();
    s.link = item->data(KeyLink).toString();
    return s;
}

void ClusterCanvas::setSelection(const CanvasSelection& selection)
{
    QGraphicsItem* item = nullptr;
    switch (selection.kind) {
    case CanvasSelection::Node: item = nodeItem(selection.node); break;
    case CanvasSelection::Gpu: item = gpuItem(selection.node, selection.gpuIndex); break;
    case CanvasSelection::Link: item = linkItem(selection.link); break;
    case CanvasSelection::None: break;
    }
    scene_->clearSelection();
    if (item)
        item->setSelected(true);
}

void ClusterCanvas::onSceneSelectionChanged()
{
    if (rebuilding_)
        return;
    const auto items = scene_->selectedItems();
    CanvasSelection now = items.isEmpty() ? CanvasSelection{} : selectionOf(items.front());
    if (now == selection_)
        return;
    selection_ = now;
    emit selectionChanged(selection_);
}

CanvasSelection ClusterCanvas::selectionAt(const QPoint& viewPos, bool nodesAndGpusOnly) const
{
    for (QGraphicsItem* item : items(viewPos)) {
        CanvasSelection s = selectionOf(item);
        if (s.kind == CanvasSelection::None)
            continue;
        if (nodesAndGpusOnly && s.kind == CanvasSelection::Link)
            continue;
        return s;
    }
    return {};
}

void ClusterCanvas::refuse(const QString& reason) { emit editRefused(reason); }

void ClusterCanvas::say(const QString& message) { emit feedback(message); }

QString ClusterCanvas::emptyHint() const
{
    return hintItem_ ? static_cast<QGraphicsTextItem*>(hintItem_)->toPlainText() : QString();
}

bool ClusterCanvas::addNode(const QString& type, NodeTemplate::Kind kind, QString* error, QString* createdNode)
{
    const QString name = document_->nextNodeName();
    const NodeTemplate t = NodeTemplate::make(kind, name, type, kFullNode);
    QString reason;
    QStringList linked;
    if (!document_->addNodeWithLinks(t.node, t.links, &reason, &linked)) {
        if (error)
            *error = reason;
        refuse(tr("cannot add a node of %1: %2").arg(type, reason));
        return false;
    }
    if (createdNode)
        *createdNode = name;
    QString message = tr("added node %1: %2").arg(name, t.description);
    if (!linked.isEmpty())
        message += tr(", linked to %1 by InfiniBand 25 GB/s").arg(linked.join(QStringLiteral(", ")));
    say(message);
    return true;
}

bool ClusterCanvas::dropGpuType(const QString& node, const QString& type, QString* error)
{
    if (node.isEmpty())
        return addNode(type, NodeTemplate::Kind::Fabric, error);
    const auto& nodes = document_->cluster().nodes();
    auto it = std::find_if(nodes.begin(), nodes.end(),
                           [&](const Node& n) { return QString::fromStdString(n.name) == node; });
    const int inNode = it == nodes.end() ? 0 : static_cast<int>(it->devices.size());
    const int add = inNode < kFullNode ? kFullNode - inNode : kFullNode;
    QString reason;
    bool ok = document_->addGpus(node, type, add, &reason);
    if (!ok) {
        if (error)
            *error = reason;
        refuse(reason);
        return false;
    }
    say(tr("added %1 x %2 to node %3 (now %4 GPUs)").arg(add).arg(type, node).arg(inNode + add));
    return true;
}

namespace {

QString selectorOf(const CanvasSelection& s)
{
    return s.kind == CanvasSelection::Gpu ? QStringLiteral("%1:%2").arg(s.node).arg(s.gpuIndex) : s.node;
}

// A fabric inside one node between two of its GPUs: over the GPUs of their
// type, or the whole node on PCIe when the two types differ. False (with
// the reason) when such a fabric is there already or the document refuses it.
bool addFabric(ClusterDocument& doc, const CanvasSelection& from, const CanvasSelection& to, QString& reason,
               QString& message, QString* createdName)
{
    bool ok = false;
    // A fabric inside the node: over the GPUs of the type (both ends'
    // type), or the whole node on PCIe when the two types differ.
    const Cluster& c = doc.cluster();
    int lo = -1, hi = -1, count = 0;
    for (const Node& n : c.nodes()) {
        if (QString::fromStdString(n.name) != from.node)
            continue;
        count = static_cast<int>(n.devices.size());
        for (int k = 0; k < count; ++k)
            if (QString::fromStdString(c.typeOf(n.devices[k]).name) == from.gpuType) {
                if (lo < 0)
                    lo = k;
                hi = k;
            }
    }
    const bool sameType = from.gpuType == to.gpuType;
    QString within = from.node;
    QString fabricType = from.gpuType;
    if (!sameType) {
        fabricType = QStringLiteral("PCIe");  // what intraNodeFabric gives PCIe cards
    } else if (lo > 0 || hi < count - 1) {
        within = QStringLiteral("%1:%2-%3").arg(from.node).arg(lo).arg(hi);
    }
    nlohmann::json link = NodeTemplate::fabricLink(QString(), within, fabricType);
    const QString kind = QString::fromStdString(link["kind"].get<std::string>());
    QString existing;
    for (const Link& l : c.links())
        if (l.within && QString::fromStdString(l.aSelector) == within && QString::fromLatin1(toString(l.kind)) == kind)
            existing = QString::fromStdString(l.name);
    if (!existing.isEmpty()) {
        reason = ClusterCanvas::tr("%1 and %2 are already joined by the %3 fabric %4 within %5; select it to edit it")
                     .arg(selectorOf(from), selectorOf(to), kind, existing, within);
    } else {
        LinkSpec spec;
        spec.kind = kind;
        spec.a = within;
        spec.bandwidthGBps = link["bandwidth_gbps"].get<double>();
        spec.latencyUs = link["latency_us"].get<double>();
        spec.shared = link.value("shared", false);
        spec.name = doc.uniqueLinkName(QStringLiteral("%1-%2").arg(from.node, kind));
        ok = doc.addLink(spec, &reason, createdName);
        message = ClusterCanvas::tr("added %1 %2 GB/s %3 within %4 (%5)")
                      .arg(kind)
                      .arg(spec.bandwidthGBps)
                      .arg(spec.shared ? ClusterCanvas::tr("shared fabric") : ClusterCanvas::tr("fabric"), within,
                           sameType ? ClusterCanvas::tr("every %1 of the node").arg(from.gpuType)
                                    : ClusterCanvas::tr("two GPU types: joined over PCIe"));
    }
    return ok;
}

}  // namespace

bool ClusterCanvas::createLink(const CanvasSelection& from, const CanvasSelection& to, QString* error,
                               QString* createdName)
{
    const auto selector = selectorOf;
    QString reason;
    QString message;
    bool ok = false;
    if ((from.kind != CanvasSelection::Node && from.kind != CanvasSelection::Gpu)
        || (to.kind != CanvasSelection::Node && to.kind != CanvasSelection::Gpu)) {
        reason = tr("drag from a GPU or node to another GPU or node");
    } else if (selector(from) == selector(to)) {
        reason = tr("a link needs two different ends");
    } else if (from.node == to.node && (from.kind != CanvasSelection::Gpu || to.kind != CanvasSelection::Gpu)) {
        reason = tr("a node and its own GPU cannot be linked: drag from one GPU of %1 to another for its fabric, or to "
                    "another node")
                     .arg(from.node);
    } else if (from.node == to.node) {
        ok = addFabric(*document_, from, to, reason, message, createdName);
    } else {
        LinkSpec spec;
        spec.a = selector(from);
        spec.b = selector(to);
        spec.kind = QStringLiteral("InfiniBand");
        spec.bandwidthGBps = 25;
        QString name;
        ok = document_->addLink(spec, &reason, &name);
        if (createdName)
            *createdName = name;
        message = tr("added InfiniBand 25 GB/s link %1 between %2 and %3").arg(name, spec.a, spec.b);
    }
    if (!ok) {
        if (error)
            *error = reason;
        refuse(tr("cannot link %1 and %2: %3").arg(selector(from), selector(to), reason));
        return false;
    }
    say(message);
    return true;
}

QList<CanvasSelection> ClusterCanvas::selectedGpus() const
{
    QList<CanvasSelection> out;
    for (QGraphicsItem* item : scene_->selectedItems()) {
        CanvasSelection s = selectionOf(item);
        if (s.kind == CanvasSelection::Gpu)
            out << s;
    }
    std::sort(out.begin(), out.end(), [](const CanvasSelection& a, const CanvasSelection& b) {
        return a.node != b.node ? a.node < b.node : a.gpuIndex < b.gpuIndex;
    });
    return out;
}

void ClusterCanvas::selectGpuRange(const QString& node, int from, int to)
{
    scene_->clearSelection();
    for (int k = std::min(from, to); k <= std::max(from, to); ++k)
        if (QGraphicsItem* tile = gpuItem(node, k))
            tile->setSelected(true);
}

QString ClusterCanvas::deleteText() const
{
    const QList<CanvasSelection> gpus = selectedGpus();
    if (!gpus.isEmpty()) {
        const QString node = gpus.front().node;
        if (std::any_of(gpus.begin(), gpus.end(), [&](const CanvasSelection& g) { return g.node != node; }))
            return tr("Delete %n GPUs (in several nodes)", nullptr, int(gpus.size()));
        int inNode = 0;
        const Cluster& c = document_->cluster();
        for (const auto& g : c.groups())
            if (QString::fromStdString(c.nodes()[g.node].name) == node)
                inNode += static_cast<int>(g.devices.size());
        if (gpus.size() >= inNode)
            return tr("Delete Node %1 and Its Links (all its GPUs are selected)").arg(node);
        if (gpus.size() == 1)
            return tr("Delete GPU %1:%2").arg(node).arg(gpus.front().gpuIndex);
        return tr("Delete %n GPUs of %1", nullptr, int(gpus.size())).arg(node);
    }
    switch (selection_.kind) {
    case CanvasSelection::Node: return tr("Delete Node %1 and Its Links").arg(selection_.node);
    case CanvasSelection::Link: return tr("Delete Link %1").arg(selection_.link);
    case CanvasSelection::Gpu:
    case CanvasSelection::None: break;
    }
    return {};
}

bool ClusterCanvas::deleteSelection(QString* error)
{
    QString reason;
    QString message;
    bool ok = false;
    const QList<CanvasSelection> gpus = selectedGpus();
    if (!gpus.isEmpty()) {
        QList<int> indices;
        for (const auto& g : gpus)
            indices << g.gpuIndex;
        if (std::any_of(gpus.begin(), gpus.end(),
                        [&](const CanvasSelection& g) { return g.node != gpus.front().node; })) {
            reason = tr("the selected GPUs are in several nodes: delete them node by node");
        } else {
            // The GPUs are gone afterwards: select nothing rather than whatever moves into their place.
            scene_->clearSelection();
            ok = document_->removeGpus(gpus.front().node, indices, &reason, &message);
            if (!ok)
                for (const auto& g : gpus)
                    if (QGraphicsItem* tile = gpuItem(g.node, g.gpuIndex))
                        tile->setSelected(true);
        }
    } else {
        // The names first: the edit rebuilds the canvas, which clears the selection.
        const CanvasSelection was = selection_;
        switch (was.kind) {
        case CanvasSelection::Node:
            ok = document_->removeNode(was.node, &reason);
            message = tr("removed node %1 and its links").arg(was.node);
            break;
        case CanvasSelection::Link:
            ok = document_->removeLink(was.link, &reason);
            message = tr("removed link %1").arg(was.link);
            break;
        case CanvasSelection::Gpu: break;  // handled above
        case CanvasSelection::None: reason = tr("nothing selected"); break;
        }
    }
    if (!ok) {
        if (error)
            *error = reason;
        if (selection_.kind != CanvasSelection::None)
            refuse(reason);
        return false;
    }
    say(message);
    return true;
}

void ClusterCanvas::contextMenuEvent(QContextMenuEvent* event)
{
    // On a node or GPU the right button draws links; elsewhere it offers the menu.
    if (contextActions_.isEmpty() || selectionAt(event->pos(), true).kind != CanvasSelection::None) {
        event->ignore();
        return;
    }
    QMenu menu(this);
    menu.addActions(contextActions_);
    menu.exec(event->globalPos());
    event->accept();
}

void ClusterCanvas::dragEnterEvent(QDragEnterEvent* event)
{
    if (event->mimeData()->hasFormat(QString::fromLatin1(kGpuTypeMime)))
        event->acceptProposedAction();
    else
        event->ignore();
}

void ClusterCanvas::dragMoveEvent(QDragMoveEvent* event)
{
    if (event->mimeData()->hasFormat(QString::fromLatin1(kGpuTypeMime)))
        event->acceptProposedAction();  // on a node: add to it; elsewhere: a new node
    else
        event->ignore();
}

void ClusterCanvas::dropEvent(QDropEvent* event)
{
    const QString type = QString::fromUtf8(event->mimeData()->data(QString::fromLatin1(kGpuTypeMime)));
    CanvasSelection target = selectionAt(event->position().toPoint(), true);
    if (type.isEmpty()) {
        event->ignore();
        return;
    }
    dropGpuType(target.node, type);  // no node there: a new one
    event->acceptProposedAction();
}

void ClusterCanvas::mousePressEvent(QMouseEvent* event)
{
    const bool linkGesture = event->button() == Qt::RightButton
        || (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ShiftModifier));
    if (linkGesture) {
        CanvasSelection from = selectionAt(event->position().toPoint(), true);
        if (from.kind != CanvasSelection::None) {
            dragFrom_ = from;
            QPointF p = mapToScene(event->position().toPoint());
            QPen pen(QColor(0x1e, 0x88, 0xe5), 2, Qt::DashLine);
            pen.setCosmetic(true);
            dragLine_ = scene_->addLine(QLineF(p, p), pen);
            dragLine_->setZValue(10);
            event->accept();
            return;
        }
    }
    QGraphicsView::mousePressEvent(event);
    if (event->button() == Qt::LeftButton) {
        CanvasSelection at = selectionAt(event->position().toPoint(), true);
        if (at.kind == CanvasSelection::Gpu)
            rangeAnchor_ = at;
    }
}

void ClusterCanvas::mouseMoveEvent(QMouseEvent* event)
{
    if (dragLine_) {
        QLineF line = dragLine_->line();
        line.setP2(mapToScene(event->position().toPoint()));
        dragLine_->setLine(line);
        event->accept();
        return;
    }
    QGraphicsView::mouseMoveEvent(event);
}

void ClusterCanvas::mouseReleaseEvent(QMouseEvent* event)
{
    if (dragLine_) {
        delete dragLine_;
        dragLine_ = nullptr;
        CanvasSelection to = selectionAt(event->position().toPoint(), true);
        CanvasSelection from = dragFrom_;
        dragFrom_ = {};
        if (to.kind != CanvasSelection::None && !(to == from)) {
            createLink(from, to);
        } else if (to == from && to.kind == CanvasSelection::Gpu && event->button() == Qt::LeftButton) {
            // Shift+click without a drag: the GPUs from the last one clicked to this one.
            if (rangeAnchor_.kind == CanvasSelection::Gpu && rangeAnchor_.node == to.node
                && gpuItem(to.node, rangeAnchor_.gpuIndex))
                selectGpuRange(to.node, rangeAnchor_.gpuIndex, to.gpuIndex);
            else
                selectGpuRange(to.node, to.gpuIndex, to.gpuIndex);
            rangeAnchor_
                = rangeAnchor_.kind == CanvasSelection::Gpu && rangeAnchor_.node == to.node ? rangeAnchor_ : to;
        }
        event->accept();
        return;
    }
    QGraphicsView::mouseReleaseEvent(event);
}

void CanvasSelection::followRenames(ClusterDocument* document, QObject* owner, CanvasSelection* selection)
{
    QObject::connect(document, &ClusterDocument::nodeRenamed, owner,
                     [selection](const QString& from, const QString& to) {
                         if (selection->node == from)
                             selection->node = to;
                     });
    QObject::connect(document, &ClusterDocument::linkRenamed, owner,
                     [selection](const QString& from, const QString& to) {
                         if (selection->link == from)
                             selection->link = to;
                     });
}

void ClusterCanvas::changeEvent(QEvent* event)
{
    QGraphicsView::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        setBackgroundBrush(palette().color(QPalette::Base));
        rebuild();
    }
}

void ClusterCanvas::keyPressEvent(QKeyEvent* event)
{
    if (event->key() == Qt::Key_Delete || event->key() == Qt::Key_Backspace) {
        deleteSelection();
        event->accept();
        return;
    }
    QGraphicsView::keyPressEvent(event);
}

void ClusterCanvas::wheelEvent(QWheelEvent* event)
{
    if (event->modifiers() & Qt::ControlModifier) {
        zoomBy(std::pow(1.15, event->angleDelta().y() / 120.0));
        event->accept();
        return;
    }
    QGraphicsView::wheelEvent(event);
}

void ClusterCanvas::resizeEvent(QResizeEvent* event)
{
    QGraphicsView::resizeEvent(event);
    if (autoFit_)
        fitAll();
}

}  // namespace memx
