#pragma once

#include "ClusterCanvas.h"

#include <QHash>
#include <QStringList>
#include <QWidget>

class QFormLayout;
class QLabel;

class QDoubleSpinBox;

namespace memx {

class ClusterDocument;

// Edits what is selected on the canvas through the document (so every change
// is undoable): with nothing selected, the cluster's name and description; a
// node's name, its GPU count per type and another type to add; a GPU type in a node (count, catalog fields and
// calibration as per-type overrides); a link (name, kind, ends, bandwidth,
// latency, shared, medium). A value the validator refuses is not applied: the
// field turns red and the label under the form gives the reason.
class PropertyPanel : public QWidget {
    Q_OBJECT
public:
    // The panel's width whatever is selected (the widest form's minimum).
    static constexpr int kFormWidth = 300;
    explicit PropertyPanel(ClusterDocument* document, QWidget* parent = nullptr);

    CanvasSelection selection() const { return selection_; }
    // The editor of one field, by its JSON key ("cluster_name", "description"
    // with nothing selected; "count/<type>", "add_type", "add_count", "add" for
    // a node; "name", "count", "memory_gib",
    // "calibration.memory_multiplier", "kind", "ends", "bandwidth_gbps", "latency_us",
    // "shared", "medium"); nullptr when the current selection has no such field.
    QWidget* field(const QString& key) const { return fields_.value(key, nullptr); }
    QString errorText() const;
    bool isRefused(const QString& key) const;

public slots:
    void setSelection(const memx::CanvasSelection& selection);
    void refresh();  // reload the values shown from the document

private:
    void setText(const QString& key, const QString& text);
    void setDouble(const QString& key, double v);
    void refreshNode();
    void refreshGpu();
    void refreshLink();
    void rebuildForm();
    void buildClusterForm();
    void buildNodeForm();
    void buildGpuForm();
    void buildLinkForm();
    QDoubleSpinBox* addDouble(const QString& key, const QString& label, double min, double max, double step,
                              int decimals, const QString& suffix);
    void report(const QString& key, bool ok, const QString& reason);
    bool targetExists() const;
    QStringList typesInNode() const;  // of the selected node, in listing order
    QString inWords(const QString& key, const QString& reason) const;  // a refusal in the form's words

    ClusterDocument* document_;
    CanvasSelection selection_;
    QLabel* title_;
    QWidget* form_ = nullptr;
    QFormLayout* formLayout_ = nullptr;
    QLabel* error_;
    QHash<QString, QWidget*> fields_;
    QString refusedKey_;
    QStringList nodeTypes_;  // the types the node form has count fields for
};

}  // namespace memx
