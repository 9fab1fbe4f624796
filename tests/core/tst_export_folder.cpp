// An export is one set: a new export into a folder replaces the earlier
// set whole (no launch_node15.sh of a 16-node plan beside a 1-node set),
// a folder holding files the tool did not write is refused naming them, a
// second export into the folder while one runs is refused, a failed export
// leaves the folder as it was, and a killed export's leftovers go.
#include "export/ExportFolder.h"
#include "export/LaunchFiles.h"
#include "io/InputError.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include "TestMain.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace tst_export_folder {

using namespace memx;

namespace {

std::vector<ExportedFile> launchSet(int nodes, const std::string& tag)
{
    std::vector<ExportedFile> out;
    for (int r = 0; r < nodes; ++r)
        out.push_back({LaunchFiles::scriptName(r), "#!/bin/bash\necho " + tag + "\n", true});
    out.push_back({"hostfile", tag + "\n", false});
    out.push_back({"sbatch.sh", "#!/bin/bash\n# " + tag + "\n", true});
    return out;
}

QStringList files(const QString& dir)
{
    QStringList out;
    QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext())
        out << QDir(dir).relativeFilePath(it.next());
    out.sort();
    return out;
}

QString text(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

QString refusal(const std::string& dir, const std::vector<ExportedFile>& set)
{
    try {
        ExportFolder::write(dir, set);
    } catch (const InputError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

}  // namespace

class TestExportFolder : public QObject {
    Q_OBJECT
private slots:
    void newSetReplacesTheOldWhole();
    void foreignFilesRefused();
    void secondExportWhileOneRunsRefused();
    void failedExportLeavesFolderAsItWas();
    void killedExportLeftoversRemoved();
};

void TestExportFolder::newSetReplacesTheOldWhole()
{
    QTemporaryDir tmp;
    const QString out = tmp.filePath("plan");
    ExportFolder::write(out.toStdString(), launchSet(16, "A"));
    QCOMPARE(files(out).size(), 16 + 2 + 1);  // scripts, hostfile, sbatch.sh, the manifest
    QVERIFY(QFileInfo(out + "/launch_node7.sh").isExecutable());
    QVERIFY(!QFileInfo(out + "/hostfile").isExecutable());
    // A 1-node plan exported into the same folder (given with a trailing slash).
    ExportFolder::write((out + "/").toStdString(), launchSet(1, "B"));
    QCOMPARE(files(out), (QStringList{".memx-export", "hostfile", "launch_node0.sh", "sbatch.sh"}));
    QCOMPARE(text(out + "/hostfile"), QString("B\n"));
    QCOMPARE(text(out + "/launch_node0.sh"), QString("#!/bin/bash\necho B\n"));
    // Nothing is left beside it: no temporary folder, no lock.
    QCOMPARE(QDir(tmp.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), QStringList{"plan"});
}

void TestExportFolder::foreignFilesRefused()
{
    QTemporaryDir tmp;
    const QString out = tmp.filePath("plan");
    ExportFolder::write(out.toStdString(), launchSet(2, "A"));
    QFile notes(out + "/my-notes.txt");
    QVERIFY(notes.open(QIODevice::WriteOnly));
    notes.write("mine");
    notes.close();
    const QString why = refusal(out.toStdString(), launchSet(1, "B"));
    QVERIFY2(why.contains(out) && why.contains("my-notes.txt") && why.contains("did not write"), qPrintable(why));
    QCOMPARE(text(out + "/hostfile"), QString("A\n"));
    QVERIFY(QFile::exists(out + "/launch_node1.sh"));
    // A folder the user filled (no manifest) is refused the same way.
    const QString home = tmp.filePath("home");
    QVERIFY(QDir().mkpath(home + "/src"));
    QFile code(home + "/src/train.py");
    QVERIFY(code.open(QIODevice::WriteOnly));
    code.close();
    QVERIFY(refusal(home.toStdString(), launchSet(1, "B")).contains("src/train.py"));
    QVERIFY(QFile::exists(home + "/src/train.py"));
    // A file where the folder should be.
    QVERIFY(refusal((home + "/src/train.py").toStdString(), launchSet(1, "B")).contains("is a file"));
}

void TestExportFolder::secondExportWhileOneRunsRefused()
{
    QTemporaryDir tmp;
    const QString out = tmp.filePath("plan");
    ExportFolder::write(out.toStdString(), launchSet(2, "A"));
    // Another export holds the folder's lock (flock on its own descriptor).
    const QString lockFile = tmp.filePath(".plan.memx-export-lock");
    const int fd = ::open(qPrintable(lockFile), O_RDWR | O_CREAT, 0644);
    QVERIFY(fd >= 0);
    QCOMPARE(::flock(fd, LOCK_EX | LOCK_NB), 0);
    const QString why = refusal(out.toStdString(), launchSet(1, "B"));
    QVERIFY2(why.contains("another export into this folder is running"), qPrintable(why));
    QCOMPARE(text(out + "/hostfile"), QString("A\n"));
    ::close(fd);
    ExportFolder::write(out.toStdString(), launchSet(1, "B"));
    QCOMPARE(text(out + "/hostfile"), QString("B\n"));
}

void TestExportFolder::failedExportLeavesFolderAsItWas()
{
    QTemporaryDir tmp;
    const QString out = tmp.filePath("plan");
    ExportFolder::write(out.toStdString(), launchSet(3, "A"));
    const QStringList before = files(out);
    // The third file cannot be created (a name longer than NAME_MAX).
    std::vector<ExportedFile> bad = launchSet(1, "B");
    bad.insert(bad.begin() + 2, ExportedFile{std::string(300, 'x'), "y", false});
    const QString why = refusal(out.toStdString(), bad);
    QVERIFY2(why.contains("cannot write"), qPrintable(why));
    // The message names the file in the export folder the user gave, not in
    // the temporary folder the export was written to (and has removed).
    QVERIFY2(why.startsWith(QDir(out).absoluteFilePath(QString(300, 'x')) + ":"), qPrintable(why));
    QVERIFY2(!why.contains(".memx-export-"), qPrintable(why));
    QCOMPARE(files(out), before);
    QCOMPARE(text(out + "/hostfile"), QString("A\n"));
    QCOMPARE(QDir(tmp.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), QStringList{"plan"});
    // Names that would leave the folder are refused before anything is written.
    QVERIFY(refusal(out.toStdString(), {ExportedFile{"../escape.sh", "x", true}}).contains("not a file name"));
    QVERIFY(!QFile::exists(tmp.filePath("escape.sh")));
}

void TestExportFolder::killedExportLeftoversRemoved()
{
    QTemporaryDir tmp;
    const QString out = tmp.filePath("plan");
    // What a kill -9 between writing and the swap leaves: a temporary folder
    // and the lock file (its flock died with the process).
    QVERIFY(QDir().mkpath(tmp.filePath(".plan.memx-export-Ab12Cd")));
    QFile part(tmp.filePath(".plan.memx-export-Ab12Cd/launch_node0.sh"));
    QVERIFY(part.open(QIODevice::WriteOnly));
    part.write("#!/bin/bash\n# half");
    part.close();
    QFile lock(tmp.filePath(".plan.memx-export-lock"));
    QVERIFY(lock.open(QIODevice::WriteOnly));
    lock.close();
    ExportFolder::write(out.toStdString(), launchSet(1, "B"));
    QCOMPARE(QDir(tmp.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), QStringList{"plan"});
    QCOMPARE(text(out + "/hostfile"), QString("B\n"));
}

MEMX_TEST_APPLESS_MAIN(TestExportFolder)
}  // namespace tst_export_folder

#include "tst_export_folder.moc"
