#include "ClusterCommands.h"

#include "ClusterDocument.h"

namespace memx {

ClusterEditCommand::ClusterEditCommand(ClusterDocument* document, const QString& text, nlohmann::json before,
                                       nlohmann::json after, QString mergeKey, int renameKind, QString renameFrom,
                                       QString renameTo)
    : QUndoCommand(text)
    , document_(document)
    , before_(std::move(before))
    , after_(std::move(after))
    , mergeKey_(std::move(mergeKey))
    , renameKind_(renameKind)
    , renameFrom_(std::move(renameFrom))
    , renameTo_(std::move(renameTo))
{
}

void ClusterEditCommand::undo()
{
    if (renameKind_ == RenameNode)
        emit document_->nodeRenamed(renameTo_, renameFrom_);
    else if (renameKind_ == RenameLink)
        emit document_->linkRenamed(renameTo_, renameFrom_);
    document_->apply(before_);
}

void ClusterEditCommand::redo()
{
    if (renameKind_ == RenameNode)
        emit document_->nodeRenamed(renameFrom_, renameTo_);
    else if (renameKind_ == RenameLink)
        emit document_->linkRenamed(renameFrom_, renameTo_);
    document_->apply(after_);
}

int ClusterEditCommand::id() const { return mergeKey_.isEmpty() ? -1 : kMergeableId; }

bool ClusterEditCommand::mergeWith(const QUndoCommand* other)
{
    auto* next = dynamic_cast<const ClusterEditCommand*>(other);
    if (!next || next->mergeKey_ != mergeKey_ || mergeKey_.isEmpty() || next->renameKind_ != NoRename
        || renameKind_ != NoRename)
        return false;
    after_ = next->after_;
    // Typing back to the starting value leaves nothing to undo.
    setObsolete(after_ == before_);
    return true;
}

}  // namespace memx
