#pragma once

#include <QDateTime>
#include <QLockFile>
#include <QString>

#include <memory>
#include <vector>

namespace memx {

struct Project;

// Crash recovery, one instance at a time: each running workbench writes its
// unsaved work to a file of its own in `dir` (autosave-<pid>-<n>.memx, with
// the path of the project it belongs to beside it in .origin) and holds a
// lock on it for as long as it runs. An autosave whose lock no live process
// holds was left by a crash; one that a running instance holds is not.
class AutosaveSlot {
public:
    explicit AutosaveSlot(QString dir);
    ~AutosaveSlot();
    AutosaveSlot(const AutosaveSlot&) = delete;
    AutosaveSlot& operator=(const AutosaveSlot&) = delete;

    QString file() const { return file_; }
    // Atomic; `projectFile` is where the project lives (empty: never saved).
    // Throws, saying why, when `dir` cannot hold the slot (not a folder,
    // not writable): the constructor found no lock it could take.
    void write(const Project& project, const QString& projectFile);
    void discard();  // nothing unsaved any more: the files go

    // An autosave of a crashed instance, claimed (locked) by this one until
    // it is recovered or discarded, so that two new instances never both
    // offer it.
    struct Orphan {
        QString file;
        QString projectFile;  // empty: an untitled project
        QDateTime saved;
        std::shared_ptr<QLockFile> claim;
    };
    static std::vector<Orphan> orphans(const QString& dir);
    static void remove(const Orphan& orphan);

private:
    QString dir_;
    QString file_;
    std::unique_ptr<QLockFile> lock_;  // null: the folder cannot hold one (unusable_ says why)
    QString unusable_;
    QString origin_;  // the origin last written
    bool originWritten_ = false;
};

}  // namespace memx
