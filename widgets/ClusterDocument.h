#pragma once

#include "hardware/Cluster.h"

#include <QObject>
#include <QString>

#include <nlohmann/json.hpp>

class QUndoStack;

namespace memx {

class ClusterEditCommand;

// A link to add. `b` empty makes a `within` link over `a`; otherwise a
// `between` link joining every device of `a` with every device of `b`.
struct LinkSpec {
    QString name;                // empty: generated from kind and ends, made unique
    QString kind = QStringLiteral("PCIe");
    QString a;                   // device selector: node, node:i or node:i-j
    QString b;                   // second selector; empty for a `within` link
    double bandwidthGBps = 16;   // per direction, GB/s
    double latencyUs = 5;        // per hop, microseconds
    bool shared = false;         // one physical medium: concurrent transfers split it
    QString medium;              // named medium shared with other links; empty: none
};

// The cluster being edited. The single source of truth is the memx-cluster/1
// JSON document (exactly what memx-cli reads); cluster() is its parsed form and
// is always valid. Every edit goes through the undo stack, and an edit whose
// result does not validate is refused: nothing is pushed, the method returns
// false and *error holds the validator's "field: reason".
class ClusterDocument : public QObject {
    Q_OBJECT
public:
    explicit ClusterDocument(QObject* parent = nullptr);
    ~ClusterDocument() override;

    // Replaces the document (clears undo history). Invalid input leaves the
    // current document untouched.
    bool load(const QString& file, QString* error = nullptr);
    bool setJson(const nlohmann::json& doc, QString* error = nullptr);
    // Atomic, pretty-printed (2 spaces); marks the undo stack clean.
    bool save(const QString& file, QString* error = nullptr);

    const nlohmann::json& json() const { return json_; }
    const Cluster& cluster() const { return cluster_; }
    QUndoStack* undoStack() const { return undo_; }
    QString fileName() const { return fileName_; }
    bool isModified() const;

    // Validation without side effects: empty string when `doc` is a valid cluster.
    QString validate(const nlohmann::json& doc) const;

    // --- edits (each one undoable command) ---------------------------------
    bool addNode(const QString& name, const QString& type, int count, QString* error = nullptr);
    // Adding to a cluster with nodes needs a link to each (validation rule), so
    // addNodeLinked() also adds an InfiniBand 25 GB/s link to every other node.
    bool addNodeLinked(const QString& name, const QString& type, int count, QString* error = nullptr);
    bool removeNode(const QString& name, QString* error = nullptr);  // and links touching it
    bool renameNode(const QString& from, const QString& to, QString* error = nullptr);  // and selectors
    // Total GPUs of `type` in `node`; 0 removes the type, a new type is appended.
    bool setGpuCount(const QString& node, const QString& type, int count, QString* error = nullptr);
    int gpuCount(const QString& node, const QString& type) const;
    bool addLink(const LinkSpec& spec, QString* error = nullptr, QString* createdName = nullptr);
    bool removeLink(const QString& name, QString* error = nullptr);
    // `field` is a link key (kind, bandwidth_gbps, latency_us, shared, medium,
    // within, between, name); a null value removes an optional key.
    bool editLink(const QString& name, const QString& field, const nlohmann::json& value,
                  QString* error = nullptr);
    // `field` is a catalog key (memory_gib, peak_tflops_bf16, ...) or
    // calibration.efficiency_multiplier / memory_multiplier / runtime_reserve_gib.
    // A null value removes the override.
    bool setTypeOverride(const QString& type, const QString& field, const nlohmann::json& value,
                         QString* error = nullptr);

    QString uniqueLinkName(const QString& base) const;
    QString uniqueNodeName(const QString& base) const;

signals:
    void changed();                                   // after every edit, undo, redo, load
    void reset();                                     // the whole document was replaced (load, setJson)
    void nodeRenamed(const QString& from, const QString& to);  // before changed()
    void linkRenamed(const QString& from, const QString& to);  // before changed()
    void fileNameChanged(const QString& file);

private:
    friend class ClusterEditCommand;
    // Validates `after` and pushes a command; false with *error if invalid or unchanged.
    bool commit(const QString& text, nlohmann::json after, QString* error, const QString& mergeKey = {},
                int renameKind = 0, const QString& renameFrom = {}, const QString& renameTo = {});
    void apply(const nlohmann::json& doc);  // used by commands; doc is known valid

    nlohmann::json json_;
    Cluster cluster_;
    QUndoStack* undo_ = nullptr;
    QString fileName_;
};

}  // namespace memx
