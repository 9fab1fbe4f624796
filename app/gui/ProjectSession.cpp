#include "ProjectSession.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>
#include <QTimer>
#include <QUndoStack>

namespace memx {

namespace {
const char* kRecentFilesKey = "recentFiles";
const char* kLastProjectKey = "lastProject";
}  // namespace

ProjectSession::ProjectSession(Snapshot snapshot, QUndoStack* undo, bool autosave, QObject* parent)
    : QObject(parent)
    , snapshot_(std::move(snapshot))
    , undo_(undo)
    , untitledName_(tr("Untitled"))
{
    timer_ = new QTimer(this);
    timer_->setInterval(autosaveIntervalMs());
    connect(timer_, &QTimer::timeout, this, &ProjectSession::writeAutosave);
    if (autosave)
        timer_->start();
    if (undo_)
        connect(undo_, &QUndoStack::cleanChanged, this, [this] { emit titleChanged(title()); });
}

ProjectSession::~ProjectSession() = default;

int ProjectSession::autosaveIntervalMs() const
{
    // Every 30 s; MEMX_AUTOSAVE_SECONDS (1 to 3600) changes it, as scripts/gui-walk does.
    const int s = qEnvironmentVariableIntValue("MEMX_AUTOSAVE_SECONDS");
    return s >= 1 && s <= 3600 ? s * 1000 : 30000;
}

QString ProjectSession::displayName() const { return file_.isEmpty() ? untitledName_ : QFileInfo(file_).fileName(); }

QString ProjectSession::title() const
{
    return QStringLiteral("%1%2 - MemX Workbench").arg(displayName(), isModified() ? QStringLiteral(" *") : QString());
}

bool ProjectSession::isModified() const { return settingsModified_ || (undo_ && !undo_->isClean()); }

void ProjectSession::markModified()
{
    settingsModified_ = true;
    emit titleChanged(title());
}

void ProjectSession::setFile(const QString& path)
{
    file_ = path;
    emit titleChanged(title());
}

void ProjectSession::startUntitled(const QString& untitledName)
{
    untitledName_ = untitledName;
    settingsModified_ = false;
    setFile(QString());
}

Project ProjectSession::read(const QString& path) { return Project::load(path.toStdString()); }

void ProjectSession::opened(const QString& path)
{
    settingsModified_ = false;
    setFile(path);
    addRecent(path);
}

bool ProjectSession::save(const QString& path, QString* error)
{
    try {
        snapshot_().save(path.toStdString());
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return false;
    }
    if (undo_)
        undo_->setClean();
    settingsModified_ = false;
    setFile(path);
    addRecent(path);
    discardAutosave();  // nothing unsaved is at stake any more
    return true;
}

Project ProjectSession::read(const AutosaveSlot::Orphan& orphan) { return Project::load(orphan.file.toStdString()); }

void ProjectSession::adopted(const AutosaveSlot::Orphan& orphan)
{
    untitledName_ = tr("Untitled");  // not the sample main() opened before asking
    file_ = orphan.projectFile;
    settingsModified_ = true;  // what was recovered is not what is on disk
    emit titleChanged(title());
    writeAutosave();
    AutosaveSlot::remove(orphan);
}

QStringList ProjectSession::recentFiles() const
{
    return QSettings().value(QLatin1String(kRecentFilesKey)).toStringList();
}

void ProjectSession::addRecent(const QString& path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QSettings settings;
    QStringList files = settings.value(QLatin1String(kRecentFilesKey)).toStringList();
    files.removeAll(path);
    files.removeAll(absolute);
    files.prepend(absolute);
    while (files.size() > kMaxRecent)
        files.removeLast();
    settings.setValue(QLatin1String(kRecentFilesKey), files);
    settings.setValue(QLatin1String(kLastProjectKey), absolute);
    emit recentFilesChanged(files);
}

QString ProjectSession::lastProject()
{
    const QString file = QSettings().value(QLatin1String(kLastProjectKey)).toString();
    return !file.isEmpty() && QFileInfo::exists(file) ? file : QString();
}

QString ProjectSession::autosaveDir()
{
    // MEMX_AUTOSAVE_DIR (memx.1): another disk than the data folder's, e.g.
    // where a home quota is small.
    if (QString dir = qEnvironmentVariable("MEMX_AUTOSAVE_DIR"); !dir.isEmpty())
        return dir;
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/autosave");
}

AutosaveSlot& ProjectSession::slot() const
{
    if (!slot_)
        slot_ = std::make_unique<AutosaveSlot>(autosaveDir());
    return *slot_;
}

QString ProjectSession::autosavePath() const { return slot().file(); }

void ProjectSession::writeAutosave()
{
    if (!isModified())
        return;
    try {
        slot().write(snapshot_(), file_);
        setAutosaveProblem(QString());
    } catch (const std::exception& e) {
        // The next tick tries again, but until one succeeds a crash would
        // lose the edits: the user must know (a full disk is the usual cause).
        setAutosaveProblem(tr("%1\nThe autosave is tried again every %2 s. Free space there, or save the project "
                              "elsewhere (File > Save As).")
                               .arg(QString::fromUtf8(e.what()))
                               .arg(timer_->interval() / 1000));
    }
}

void ProjectSession::discardAutosave()
{
    slot().discard();
    setAutosaveProblem(QString());
}

void ProjectSession::setAutosaveProblem(const QString& problem)
{
    if (problem == autosaveProblem_)
        return;
    autosaveProblem_ = problem;
    emit autosaveProblemChanged(problem);
}

}  // namespace memx
