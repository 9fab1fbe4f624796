#pragma once

#include "hardware/Cluster.h"

#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

class QUndoStack;

namespace memx {

class ClusterEditCommand;

// A link to add. `b` empty makes a `within` link over `a`; otherwise a
// `between` link joining every device of `a` with every device of `b`.
struct LinkSpec {
    QString name;  // empty: generated from kind and ends, made unique
    QString kind = QStringLiteral("PCIe");
    QString a;  // device selector: node, node:i or node:i-j
    QString b;  // second selector; empty for a `within` link
    double bandwidthGBps = 16;  // per direction, GB/s
    double latencyUs = 5;  // per hop, microseconds
    bool shared = false;  // one physical medium: concurrent transfers split it
    QString medium;  // named medium shared with other links; empty: none
};

// The cluster being edited. The single source of truth is the memx-cluster/1
// JSON document (exactly what memx-cli reads); cluster() is its parsed form and
// is always valid. One state is legal here but not in a cluster file: no nodes
// at all (File > New starts there, and deleting the last node returns there).
// cluster() is then an empty Cluster; a search on it is refused by the window. Every edit goes through the undo stack, and an edit whose
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
    // Writes exportJson(): atomic, pretty-printed (2 spaces); marks the undo stack clean.
    bool save(const QString& file, QString* error = nullptr);

    // A document with no nodes (and so no links), named `name`.
    static nlohmann::json emptyDocument(const QString& name = QStringLiteral("Untitled"));
    static bool isEmptyDocument(const nlohmann::json& doc);
    bool isEmpty() const { return cluster_.nodes().empty(); }

    // Replaces the cluster with the file's as one undoable edit (File > Import
    // Cluster); the file name of the document is not changed.
    bool importFile(const QString& file, QString* error = nullptr);
    // The document as a cluster file holds it: `gpu_types` keeps only the
    // entries of types some node still uses. Empty documents are refused
    // (*error says why): a cluster file needs GPUs.
    bool exportJson(nlohmann::json* out, QString* error = nullptr) const;

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
    // Appends `node` (a nodes[] entry) with `links` (links inside it) and an
    // InfiniBand 25 GB/s link to every other node, as one undo step.
    // *linkedTo: the nodes it was linked to.
    bool addNodeWithLinks(const nlohmann::json& node, const nlohmann::json& links, QString* error = nullptr,
                          QStringList* linkedTo = nullptr);
    bool removeNode(const QString& name, QString* error = nullptr);  // and links touching it (the last one too)
    // Removes exactly the GPUs at `indices` (positions in the node), as one
    // undo step: later GPUs move down, link selectors follow them, a link
    // left without an end (or a fabric over fewer than two GPUs) is removed;
    // removing every GPU removes the node. *summary says what was done.
    bool removeGpus(const QString& node, QList<int> indices, QString* error = nullptr, QString* summary = nullptr);
    bool renameNode(const QString& from, const QString& to, QString* error = nullptr);  // and selectors
    // Total GPUs of `type` in `node`; 0 removes the type, a new type is appended.
    bool setGpuCount(const QString& node, const QString& type, int count, QString* error = nullptr,
                     bool mergeTyping = true);
    int gpuCount(const QString& node, const QString& type) const;
    // `count` more GPUs of `type` in `node`: its own undo step (setGpuCount
    // merges consecutive edits of one count, as typing in a spin box does).
    bool addGpus(const QString& node, const QString& type, int count, QString* error = nullptr);
    bool addLink(const LinkSpec& spec, QString* error = nullptr, QString* createdName = nullptr);
    bool removeLink(const QString& name, QString* error = nullptr);
    // `field` is a link key (kind, bandwidth_gbps, latency_us, shared, medium,
    // within, between, name); a null value removes an optional key.
    bool editLink(const QString& name, const QString& field, const nlohmann::json& value, QString* error = nullptr);
    // `field` is a catalog key (memory_gib, peak_tflops_bf16, ...) or
    // calibration.efficiency_multiplier / memory_multiplier / runtime_reserve_gib.
    // A null value removes the override.
    bool setTypeOverride(const QString& type, const QString& field, const nlohmann::json& value,
                         QString* error = nullptr);

    // `field` is "name" or "description" of the cluster; typing merges.
    bool setClusterInfo(const QString& field, const QString& value, QString* error = nullptr);

    QString uniqueLinkName(const QString& base) const;
    QString nextNodeName() const;  // n0, n1, ...: the first one not taken
    QString uniqueNodeName(const QString& base) const;

signals:
    void changed();  // after every edit, undo, redo, load
    void reset();  // the whole document was replaced (load, setJson)
    void nodeRenamed(const QString& from, const QString& to);  // before changed()
    void linkRenamed(const QString& from, const QString& to);  // before changed()
    void fileNameChanged(const QString& file);

private:
    friend class ClusterEditCommand;
    // Validates `after` and pushes a command; false with *error if invalid or unchanged.
    bool commit(const QString& text, nlohmann::json after, QString* error, const QString& mergeKey = {},
                int renameKind = 0, const QString& renameFrom = {}, const QString& renameTo = {});
    void apply(const nlohmann::json& doc);  // used by commands; doc is known valid
    // Cluster::fromJson, except that a document without nodes gives an empty
    // Cluster (its other fields are still checked). Throws InputError.
    static Cluster parse(const nlohmann::json& doc, const std::string& file);

    nlohmann::json json_;
    Cluster cluster_;
    QUndoStack* undo_ = nullptr;
    QString fileName_;
};

}  // namespace memx
