// The project object without a window (issue #34 item 4): what "the open
// project" means to a user - its name in the title, unsaved changes, save and
// open, the recent files, the next start's project, the crash autosave and
// its failures - works on a ProjectSession and an undo stack alone.
#include "ProjectSession.h"
#include "TestProjectVersions.h"

#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QUndoStack>
#include "TestMain.h"

namespace tst_project_session {

using namespace memx;
using namespace memx::test;

namespace {

// An edit of the cluster as the canvas makes one: undoable.
void edit(QUndoStack& undo) { undo.push(new QUndoCommand(QStringLiteral("edit"))); }

}  // namespace

class TestProjectSession : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void titleFollowsTheFileAndUnsavedChanges();
    void saveWritesTheSnapshotAndClearsTheChanges();
    void failedSaveKeepsEditsAndFile();
    void recentFilesAreCappedAndUnique();
    void autosaveOnlyWhileModified();
    void failingAutosaveSaysSoUntilOneSucceeds();

private:
    QTemporaryDir dir_;
    Project content_ = projectVersion(1, false);
};

void TestProjectSession::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(dir_.isValid());
}

void TestProjectSession::init()
{
    QSettings().remove(QStringLiteral("recentFiles"));
    QSettings().remove(QStringLiteral("lastProject"));
    qputenv("MEMX_AUTOSAVE_DIR", dir_.filePath(QStringLiteral("autosave")).toUtf8());
}

void TestProjectSession::titleFollowsTheFileAndUnsavedChanges()
{
    QUndoStack undo;
    ProjectSession s([this] { return content_; }, &undo, false);
    QSignalSpy titles(&s, &ProjectSession::titleChanged);
    s.startUntitled(QStringLiteral("Sample project"));
    QCOMPARE(s.title(), QStringLiteral("Sample project - MemX Workbench"));
    QVERIFY(!s.isModified());
    edit(undo);  // a cluster edit
    QVERIFY(s.isModified());
    QCOMPARE(titles.last().first().toString(), QStringLiteral("Sample project * - MemX Workbench"));
    undo.undo();  // back to the state on disk
    QVERIFY(!s.isModified());
    s.markModified();  // a setting outside the undo stack (setup, objective)
    QVERIFY(s.isModified());
    QCOMPARE(titles.last().first().toString(), QStringLiteral("Sample project * - MemX Workbench"));
    const QString file = dir_.filePath(QStringLiteral("title.memx"));
    QVERIFY(s.save(file));
    QCOMPARE(s.title(), QStringLiteral("title.memx - MemX Workbench"));
    QCOMPARE(titles.last().first().toString(), s.title());
}

void TestProjectSession::saveWritesTheSnapshotAndClearsTheChanges()
{
    QUndoStack undo;
    ProjectSession s([this] { return content_; }, &undo, false);
    edit(undo);
    s.markModified();
    const QString file = dir_.filePath(QStringLiteral("saved.memx"));
    QString error;
    QVERIFY2(s.save(file, &error), qPrintable(error));
    QVERIFY(!s.isModified());
    QVERIFY(undo.isClean());
    QCOMPARE(s.file(), file);
    QVERIFY(ProjectSession::read(file) == content_);  // what the panels held, read back
    QCOMPARE(ProjectSession::lastProject(), QFileInfo(file).absoluteFilePath());  // the next start opens it

    ProjectSession other([this] { return content_; }, nullptr, false);
    other.opened(file);
    QCOMPARE(other.file(), file);
    QVERIFY(!other.isModified());
    QCOMPARE(other.recentFiles().front(), QFileInfo(file).absoluteFilePath());
}

void TestProjectSession::failedSaveKeepsEditsAndFile()
{
    QUndoStack undo;
    ProjectSession s([this] { return content_; }, &undo, false);
    const QString file = dir_.filePath(QStringLiteral("kept.memx"));
    QVERIFY(s.save(file));
    edit(undo);
    // Under a plain file: no folder can be made there.
    const QString plain = dir_.filePath(QStringLiteral("plain-file"));
    {
        QFile f(plain);
        QVERIFY(f.open(QIODevice::WriteOnly));
    }
    QString error;
    const QString nowhere = plain + QStringLiteral("/p.memx");
    QVERIFY(!s.save(nowhere, &error));
    QVERIFY2(error.contains(QStringLiteral("plain-file")), qPrintable(error));
    QVERIFY(s.isModified());  // the edits are still unsaved
    QCOMPARE(s.file(), file);  // and the project is still the one on disk
    QVERIFY(!QFileInfo::exists(nowhere));
}

void TestProjectSession::recentFilesAreCappedAndUnique()
{
    ProjectSession s([this] { return content_; }, nullptr, false);
    QSignalSpy changed(&s, &ProjectSession::recentFilesChanged);
    QStringList opened;
    for (int i = 0; i < ProjectSession::kMaxRecent + 3; ++i) {
        const QString f = dir_.filePath(QStringLiteral("p%1.memx").arg(i));
        QVERIFY(s.save(f));
        opened.prepend(QFileInfo(f).absoluteFilePath());
    }
    QCOMPARE(s.recentFiles(), opened.mid(0, ProjectSession::kMaxRecent));  // newest first, the oldest dropped
    s.opened(dir_.filePath(QStringLiteral("p3.memx")));  // again: moves to the front, not listed twice
    const QStringList files = s.recentFiles();
    QCOMPARE(files.front(), QFileInfo(dir_.filePath(QStringLiteral("p3.memx"))).absoluteFilePath());
    QCOMPARE(files.count(files.front()), 1);
    QCOMPARE(files.size(), ProjectSession::kMaxRecent);
    QCOMPARE(changed.last().first().toStringList(), files);
}

void TestProjectSession::autosaveOnlyWhileModified()
{
    QUndoStack undo;
    ProjectSession s([this] { return content_; }, &undo, false);
    s.writeAutosave();
    QVERIFY(!QFileInfo::exists(s.autosavePath()));  // nothing unsaved, nothing written
    edit(undo);
    s.writeAutosave();
    QVERIFY(QFileInfo::exists(s.autosavePath()));
    QVERIFY(Project::load(s.autosavePath().toStdString()) == content_);
    QVERIFY(s.save(dir_.filePath(QStringLiteral("a.memx"))));
    QVERIFY(!QFileInfo::exists(s.autosavePath()));  // saved: the autosave goes
}

void TestProjectSession::failingAutosaveSaysSoUntilOneSucceeds()
{
    // The autosave folder is a file: every write fails, as on a full disk
    // (the slot's lock loop once spun forever here).
    const QString blocked = dir_.filePath(QStringLiteral("blocked"));
    {
        QFile f(blocked);
        QVERIFY(f.open(QIODevice::WriteOnly));
    }
    qputenv("MEMX_AUTOSAVE_DIR", blocked.toUtf8());
    QUndoStack undo;
    ProjectSession s([this] { return content_; }, &undo, false);
    QSignalSpy problems(&s, &ProjectSession::autosaveProblemChanged);
    edit(undo);
    s.writeAutosave();
    QCOMPARE(problems.size(), 1);
    QVERIFY(!s.autosaveProblem().isEmpty());
    QVERIFY2(s.autosaveProblem().contains(QStringLiteral("is not a folder")), qPrintable(s.autosaveProblem()));
    QVERIFY2(s.autosaveProblem().contains(QStringLiteral("Save As")), qPrintable(s.autosaveProblem()));
    s.writeAutosave();  // still failing: said once, not again
    QCOMPARE(problems.size(), 1);
    // Saving elsewhere puts nothing at stake any more.
    QVERIFY(s.save(dir_.filePath(QStringLiteral("elsewhere.memx"))));
    QCOMPARE(problems.size(), 2);
    QVERIFY(problems.last().first().toString().isEmpty());
    QVERIFY(s.autosaveProblem().isEmpty());
}

MEMX_TEST_MAIN(TestProjectSession)
}  // namespace tst_project_session

#include "tst_project_session.moc"
