#include "AutosaveSlot.h"

#include "ProjectFile.h"

#include "io/AtomicFile.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <stdexcept>

namespace memx {

namespace {
QString originOf(const QString& file) { return file + QStringLiteral(".origin"); }
QString lockOf(const QString& file) { return file + QStringLiteral(".lock"); }
}  // namespace

AutosaveSlot::AutosaveSlot(QString dir) : dir_(std::move(dir))
{
    QDir().mkpath(dir_);
    // A name no other instance holds: this process's id, then a counter.
    const QString stem = QStringLiteral("autosave-%1").arg(QCoreApplication::applicationPid());
    for (int n = 0;; ++n) {
        file_ = QDir(dir_).filePath(QStringLiteral("%1-%2.memx").arg(stem).arg(n));
        auto lock = std::make_unique<QLockFile>(lockOf(file_));
        lock->setStaleLockTime(0);  // stale only when its process is gone
        if (lock->tryLock(0)) {
            lock_ = std::move(lock);
            return;
        }
        // Held by another instance: try the next name. Anything else (a file
        // where the folder should be, no write permission) holds for every
        // name: the slot is unusable, and each write says so.
        if (lock->error() != QLockFile::LockFailedError) {
            unusable_ = QFileInfo(dir_).isDir() ? QStringLiteral("the autosave folder %1 is not writable").arg(dir_)
                                                : QStringLiteral("the autosave folder %1 is not a folder").arg(dir_);
            return;
        }
    }
}

AutosaveSlot::~AutosaveSlot() = default;  // the lock goes; files stay unless discarded

void AutosaveSlot::write(const Project& project, const QString& projectFile)
{
    if (!lock_)
        throw std::runtime_error(unusable_.toStdString() + " (MEMX_AUTOSAVE_DIR chooses another)");
    // The origin first, and only when it changed: an autosave is never found
    // without the path it belongs to, even when the first write is cut short.
    if (!originWritten_ || projectFile != origin_) {
        writeFileAtomically(originOf(file_).toStdString(), projectFile.toStdString());
        origin_ = projectFile;
        originWritten_ = true;
    }
    project.save(file_.toStdString());
}

void AutosaveSlot::discard()
{
    QFile::remove(file_);
    QFile::remove(originOf(file_));
    originWritten_ = false;
}

std::vector<AutosaveSlot::Orphan> AutosaveSlot::orphans(const QString& dir)
{
    std::vector<Orphan> out;
    // An origin without its autosave: an instance killed before its first
    // autosave finished. Nothing to recover; it goes once no one holds it.
    for (const QString& name : QDir(dir).entryList({QStringLiteral("autosave*.memx.origin")}, QDir::Files)) {
        const QString file = QDir(dir).filePath(name.chopped(7));
        QLockFile claim(lockOf(file));
        claim.setStaleLockTime(0);
        if (!QFileInfo::exists(file) && claim.tryLock(0)) {
            QFile::remove(originOf(file));
            claim.unlock();
        }
    }
    const QStringList names = QDir(dir).entryList({QStringLiteral("autosave*.memx")}, QDir::Files, QDir::Time);
    for (const QString& name : names) {
        Orphan o;
        o.file = QDir(dir).filePath(name);
        o.claim = std::make_shared<QLockFile>(lockOf(o.file));
        o.claim->setStaleLockTime(0);
        if (!o.claim->tryLock(0))
            continue;  // a running instance's, or another new one claimed it first
        QFile origin(originOf(o.file));
        if (origin.open(QIODevice::ReadOnly))
            o.projectFile = QString::fromUtf8(origin.readAll());
        o.saved = QFileInfo(o.file).lastModified();
        out.push_back(std::move(o));
    }
    return out;
}

void AutosaveSlot::remove(const Orphan& orphan)
{
    QFile::remove(orphan.file);
    QFile::remove(originOf(orphan.file));
    if (orphan.claim)
        orphan.claim->unlock();
}

}  // namespace memx
