#pragma once

#include "hardware/Cluster.h"

#include <QFont>
#include <QPainterPath>
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QString>
#include <QVector>

#include <vector>

namespace memx {

// Where the cluster canvas draws each node, GPU tile and in-node link, from
// the cluster and a font alone: plain geometry, no scene, so it is testable
// without one (tst_cluster_layout). Scene units are pixels at zoom 1.
struct ClusterLayout {
    static constexpr double kTileW = 112;
    static constexpr double kTileH = 50;
    static constexpr double kTileGap = 8;
    static constexpr double kPad = 14;
    static constexpr double kTitleH = 28;
    static constexpr double kLaneH = 22;
    static constexpr double kNodeGapX = 210;
    static constexpr double kNodeGapY = 130;

    // A link drawn inside one node, in node-local coordinates.
    struct InNodeDrawing {
        int link = -1;
        QPainterPath path;
        QPainterPath dots;
        QRectF labelRect;
        QString label;
        int flags = Qt::AlignCenter;
    };

    struct NodePlan {
        QSizeF size;
        QVector<QRectF> tiles;  // per GPU in the node, local coordinates
        QVector<InNodeDrawing> links;
    };

    std::vector<NodePlan> nodes;  // each node's plan, in node-local coordinates
    std::vector<QPointF> origin;  // each node's top-left corner in the scene

    // A grid of nodes, rows centred so three nodes form a triangle and no
    // line between two nodes runs through a third.
    static ClusterLayout of(const Cluster& c, const QFont& font);
    // One node: its tiles in rows, its in-node links as bars in lanes below.
    static NodePlan planNode(const Cluster& c, int nodeIdx, const QFont& font);
};

// Texts and sizes the layout and the canvas share.
namespace layout {
QString number(double v);
QString bandwidthText(const Link& l);  // "InfiniBand 25 GB/s"
QString sharingText(const Link& l);  // "shared", "shared medium \"x\"", or empty
bool isShared(const Link& l);
QSizeF textSize(const QString& text, const QFont& font);  // with a margin for a label box
QRectF centredRect(QPointF c, QSizeF s);
}  // namespace layout

}  // namespace memx
