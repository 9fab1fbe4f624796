#pragma once

#include <QString>
#include <QUndoCommand>

#include <nlohmann/json.hpp>

namespace memx {

class ClusterDocument;

// One edit of the cluster document, stored as the whole JSON before and after
// (documents are a few KiB, so snapshots keep undo exact and simple).
// Consecutive commands with the same non-empty merge key (e.g. "link/ib/bandwidth_gbps")
// merge into one undo step, so typing in a spin box is undone at once.
class ClusterEditCommand final : public QUndoCommand {
public:
    enum RenameKind { NoRename = 0, RenameNode = 1, RenameLink = 2 };

    ClusterEditCommand(ClusterDocument* document, const QString& text, nlohmann::json before, nlohmann::json after,
                       QString mergeKey = {}, int renameKind = NoRename, QString renameFrom = {},
                       QString renameTo = {});

    void undo() override;
    void redo() override;
    int id() const override;
    bool mergeWith(const QUndoCommand* other) override;

    const QString& mergeKey() const { return mergeKey_; }
    const nlohmann::json& before() const { return before_; }
    const nlohmann::json& after() const { return after_; }

    static constexpr int kMergeableId = 0x4d58;  // "MX"

private:
    ClusterDocument* document_;
    nlohmann::json before_;
    nlohmann::json after_;
    QString mergeKey_;
    int renameKind_;
    QString renameFrom_;
    QString renameTo_;
};

}  // namespace memx
