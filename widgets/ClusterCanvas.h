#pragma once

#include "NodeTemplate.h"

#include <QGraphicsView>
#include <QHash>
#include <QMetaType>
#include <QString>
#include <QVector>

class QAction;
class QGraphicsItem;
class QGraphicsLineItem;
class QGraphicsScene;

namespace memx {

class Cluster;
struct Link;
class ClusterDocument;
class CanvasItem;
struct ClusterLayout;

// What is selected on the canvas. gpuIndex is the GPU's position in its node
// (the i of the selector "node:i"); gpuType its type name.
struct CanvasSelection {
    enum Kind { None, Node, Gpu, Link };
    Kind kind = None;
    QString node;
    int gpuIndex = -1;
    QString gpuType;
    QString link;

    bool operator==(const CanvasSelection& other) const = default;

    // Keeps *selection pointing at the same node or link when the document
    // renames it (for as long as `owner` lives). Shared by every view that
    // holds a selection.
    static void followRenames(ClusterDocument* document, QObject* owner, CanvasSelection* selection);
};

// Draws the document's cluster: nodes as rounded boxes holding one tile per GPU
// (coloured by type), in-node fabrics as brackets under the tiles they cover,
// links between nodes as lines (several links between one pair are drawn as
// separate curves), shared links dashed and marked, and a legend.
// An empty cluster shows a first-run hint instead.
// Edits go through the document: drop a palette GPU type on empty canvas (a
// new node of 8 with its type's fabric, linked to every other node) or on a
// node (fills it to 8 GPUs, or adds 8); drag with the right button (or
// Shift+left) from one GPU/node to another to add a link (two GPUs of one
// node: the node's fabric); click a GPU to select it, Ctrl+click to add one,
// Shift+click for the range from the last one clicked, or drag a band around
// tiles; Del removes the selection. Ctrl+wheel zooms. What an edit did is
// announced with feedback(), a refusal with editRefused().
class ClusterCanvas : public QGraphicsView {
    Q_OBJECT
public:
    static constexpr const char* kGpuTypeMime = "application/x-memx-gputype";

    explicit ClusterCanvas(ClusterDocument* document, QWidget* parent = nullptr);
    ~ClusterCanvas() override;

    ClusterDocument* document() const { return document_; }

    int nodeItemCount() const { return static_cast<int>(nodeItems_.size()); }
    int gpuTileCount() const;
    int linkItemCount() const { return static_cast<int>(linkItems_.size()); }
    QGraphicsItem* nodeItem(const QString& node) const;
    QGraphicsItem* gpuItem(const QString& node, int gpuIndex) const;
    QGraphicsItem* linkItem(const QString& link) const;

    CanvasSelection selection() const { return selection_; }
    void setSelection(const CanvasSelection& selection);

    static constexpr int kFullNode = 8;  // GPUs in a node made from a palette type

    // The edits behind the mouse gestures (public so tests and menus can use them).
    // `node` empty: a new node (NodeTemplate::Kind::Fabric) of kFullNode GPUs.
    // Otherwise the node is filled to kFullNode GPUs with `type`, or gets
    // kFullNode more when it is full already.
    bool dropGpuType(const QString& node, const QString& type, QString* error = nullptr);
    // A new node n<k> of `count` GPUs of `type` built by `kind`, with an
    // InfiniBand 25 GB/s link to every other node (announced).
    bool addNode(const QString& type, NodeTemplate::Kind kind = NodeTemplate::Kind::Fabric, QString* error = nullptr,
                 QString* createdNode = nullptr);
    // Two GPUs of one type in one node: that type's fabric `within` the GPUs
    // of the type in the node (NVLink, xGMI, HCCS or PCIe;
    // ClusterGenerator::intraNodeFabric); two GPUs of different types in one
    // node: a shared PCIe fabric within the node; ends in different nodes:
    // InfiniBand 25 GB/s between them.
    bool createLink(const CanvasSelection& from, const CanvasSelection& to, QString* error = nullptr,
                    QString* createdName = nullptr);
    // Selected GPUs (exactly those, however many) or else the node or link.
    bool deleteSelection(QString* error = nullptr);
    // What deleteSelection() would remove, as the Delete action reads:
    // "Delete GPU vb:3", "Delete 2 GPUs of vb", "Delete Node vb and Its Links"
    // (also when the GPUs selected are all of a node's: the node goes with
    // them), "Delete Link ib-a100-vb"; empty when nothing is selected.
    QString deleteText() const;

    // Every selected GPU tile, in node order.
    QList<CanvasSelection> selectedGpus() const;
    // Selects GPUs `from`..`to` (either order) of `node`, and nothing else.
    void selectGpuRange(const QString& node, int from, int to);
    // The first-run hint shown on an empty cluster; empty when not shown.
    QString emptyHint() const;
    // Shown by a right click on empty canvas (e.g. the node templates).
    void setContextActions(const QList<QAction*>& actions) { contextActions_ = actions; }

public slots:
    void rebuild();
    void fitAll();
    void zoomBy(double factor);

signals:
    void selectionChanged(const memx::CanvasSelection& selection);
    // An edit made on the canvas was refused by the validator (reason to show in a status bar).
    void editRefused(const QString& reason);
    // What an edit made on the canvas did ("added node n2: 8 x H20 ...").
    void feedback(const QString& message);

protected:
    void changeEvent(QEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dragMoveEvent(QDragMoveEvent* event) override;
    void dropEvent(QDropEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void addNodeItems(const Cluster& c, const ClusterLayout& layout, const QFont& font);
    void addLinkItems(const Cluster& c, const ClusterLayout& layout, const QFont& font);
    void addHintOrLegend(const Cluster& c, const QFont& font);
    void addHint(const QFont& font);
    void addLegend(const Cluster& c, const QFont& font);
    void addLinksInNodes(const Cluster& c, const ClusterLayout& layout);
    void addLinksBetweenNodes(const Cluster& c, const ClusterLayout& layout, const QFont& font);
    void styleLinkItem(CanvasItem* item, const Link& l);
    void restoreSelection();
    void onSceneSelectionChanged();
    CanvasSelection selectionAt(const QPoint& viewPos, bool nodesAndGpusOnly) const;
    static CanvasSelection selectionOf(const QGraphicsItem* item);
    void refuse(const QString& reason);
    void say(const QString& message);

    ClusterDocument* document_;
    QGraphicsScene* scene_;
    QHash<QString, CanvasItem*> nodeItems_;
    QHash<QString, QVector<CanvasItem*>> tileItems_;
    QHash<QString, CanvasItem*> linkItems_;
    QGraphicsItem* hintItem_ = nullptr;
    QList<QAction*> contextActions_;
    CanvasSelection rangeAnchor_;  // the GPU a Shift+click range starts from
    CanvasSelection selection_;
    bool rebuilding_ = false;
    bool autoFit_ = true;
    // Link drag in progress.
    CanvasSelection dragFrom_;
    QGraphicsLineItem* dragLine_ = nullptr;
};

}  // namespace memx

Q_DECLARE_METATYPE(memx::CanvasSelection)
