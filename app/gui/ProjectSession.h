#pragma once

#include "AutosaveSlot.h"
#include "ProjectFile.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>

class QTimer;
class QUndoStack;

namespace memx {

// The open project as a file, without a widget: its path (or the name it
// shows without one), whether it holds unsaved changes, open and save, the
// recent files, the last project for the next start, and the crash-recovery
// autosave with its failures. The window hands it a way to read the project
// as the panels hold it (snapshot) and the cluster's undo stack, shows what it
// signals, and keeps the dialogs.
class ProjectSession : public QObject {
    Q_OBJECT
public:
    using Snapshot = std::function<Project()>;
    static constexpr int kMaxRecent = 8;

    // `undo`: its clean state is the cluster's share of "unsaved"; may be
    // null. `autosave`: write every autosaveIntervalMs() while modified.
    ProjectSession(Snapshot snapshot, QUndoStack* undo, bool autosave, QObject* parent = nullptr);
    ~ProjectSession() override;

    // The file, or empty while untitled; the name a title shows.
    QString file() const { return file_; }
    QString displayName() const;
    // "name * - MemX Workbench" style title text: the name and a star when modified.
    QString title() const;
    bool isModified() const;
    // A setting outside the undo stack changed (setup, objective, predictor).
    void markModified();

    // A project not from a file (new, the sample): `untitledName` is its name.
    void startUntitled(const QString& untitledName);
    // Reads `path`; throws InputError naming the file and field. On success
    // the window shows it and calls opened().
    static Project read(const QString& path);
    // `path` is now the open, unmodified project: recent files, last project.
    void opened(const QString& path);
    // Writes the snapshot to `path` atomically; on success the project is
    // unmodified, titled by `path`, in the recent files, and its autosave
    // goes. On failure the file on disk and the edits are as they were.
    bool save(const QString& path, QString* error = nullptr);
    // A crashed instance's autosave: read, to be shown by the window, then
    // adopted(): named as the project it was, modified, safe in this
    // instance's autosave, and the orphan's files gone.
    static Project read(const AutosaveSlot::Orphan& orphan);
    void adopted(const AutosaveSlot::Orphan& orphan);

    QStringList recentFiles() const;
    // The project opened or saved last (empty: none, or it is gone).
    static QString lastProject();

    // Writes the autosave now when modified (the timer's tick; tests).
    void writeAutosave();
    // Why the last autosave failed (with what to do), empty while they succeed.
    QString autosaveProblem() const { return autosaveProblem_; }
    QString autosavePath() const;
    // MEMX_AUTOSAVE_DIR, or the application data folder's autosave/.
    static QString autosaveDir();
    int autosaveIntervalMs() const;
    // The window closes with its edits saved or given up.
    void discardAutosave();

signals:
    // The title's name or the modified state changed.
    void titleChanged(const QString& title);
    void recentFilesChanged(const QStringList& files);
    // An autosave failed (problem says why) or succeeded again (empty).
    void autosaveProblemChanged(const QString& problem);

private:
    void addRecent(const QString& path);
    void setFile(const QString& path);
    void setAutosaveProblem(const QString& problem);
    AutosaveSlot& slot() const;

    Snapshot snapshot_;
    QUndoStack* undo_ = nullptr;
    QTimer* timer_ = nullptr;
    QString file_;
    QString untitledName_;
    bool settingsModified_ = false;
    QString autosaveProblem_;
    mutable std::unique_ptr<AutosaveSlot> slot_;  // made on first use
};

}  // namespace memx
