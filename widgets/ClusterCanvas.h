#pragma once

#include <QGraphicsView>
#include <QHash>
#include <QMetaType>
#include <QString>
#include <QVector>

class QGraphicsItem;
class QGraphicsLineItem;
class QGraphicsScene;

namespace memx {

class ClusterDocument;
class CanvasItem;

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
// Edits go through the document: drop a palette GPU type on a node, drag with
// the right button (or Shift+left) from one GPU/node to another to add a link,
// Del removes the selection. Ctrl+wheel zooms.
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

    // The edits behind the mouse gestures (public so tests and menus can use them).
    bool dropGpuType(const QString& node, const QString& type, QString* error = nullptr);
    // Default kind from the pair: same node -> PCIe 16 GB/s, different nodes -> InfiniBand 25 GB/s.
    bool createLink(const CanvasSelection& from, const CanvasSelection& to, QString* error = nullptr,
                    QString* createdName = nullptr);
    bool deleteSelection(QString* error = nullptr);

public slots:
    void rebuild();
    void fitAll();
    void zoomBy(double factor);

signals:
    void selectionChanged(const memx::CanvasSelection& selection);
    // An edit made on the canvas was refused by the validator (reason to show in a status bar).
    void editRefused(const QString& reason);

protected:
    void changeEvent(QEvent* event) override;
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
    void onSceneSelectionChanged();
    CanvasSelection selectionAt(const QPoint& viewPos, bool nodesAndGpusOnly) const;
    static CanvasSelection selectionOf(const QGraphicsItem* item);
    void refuse(const QString& reason);

    ClusterDocument* document_;
    QGraphicsScene* scene_;
    QHash<QString, CanvasItem*> nodeItems_;
    QHash<QString, QVector<CanvasItem*>> tileItems_;
    QHash<QString, CanvasItem*> linkItems_;
    CanvasSelection selection_;
    bool rebuilding_ = false;
    bool autoFit_ = true;
    // Link drag in progress.
    CanvasSelection dragFrom_;
    QGraphicsLineItem* dragLine_ = nullptr;
};

}  // namespace memx

Q_DECLARE_METATYPE(memx::CanvasSelection)
