// Atomic writes under SIGKILL (issue #14, item 6): a child process writes a
// file over and over and is killed at a random moment, 60 times. After each
// kill the file is whole (the previous version or one of the new ones, never
// a mix or a stub), and the next write in that folder, by another process,
// leaves no temporary file behind. A live writer's temporary file is not
// touched.
#include "io/AtomicFile.h"
#include "io/InputError.h"

#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include "TestMain.h"

#include <csignal>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

namespace tst_atomic_file {

using namespace memx;

namespace {

// Version k: 2 MiB of lines that all name k, so any mix of two versions or
// a cut file is seen.
std::string version(int k)
{
    const std::string line = "version " + std::to_string(k) + " of the file, every line the same\n";
    std::string s;
    while (s.size() < 2 * 1024 * 1024)
        s += line;
    return s + "end of version " + std::to_string(k) + "\n";
}

// The version a file holds, or -1 when it is not exactly one of them.
int versionOf(const QByteArray& content)
{
    const int space = content.indexOf(' ', 8);
    if (!content.startsWith("version ") || space < 0)
        return -1;
    bool ok = false;
    const int k = content.mid(8, space - 8).toInt(&ok);
    return ok && content == QByteArray::fromStdString(version(k)) ? k : -1;
}

QStringList filesIn(const QString& dir)
{
    return QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::System, QDir::Name);
}

}  // namespace

class TestAtomicFile : public QObject {
    Q_OBJECT
private slots:
    void killedWriterLeavesOldOrNew();
    void liveWritersTemporaryIsKept();
    void aFailedFileLeavesTheWholeSetAsItWas();
    void aSetCutBetweenRenamesIsFinishedNextTime_data();
    void aSetCutBetweenRenamesIsFinishedNextTime();
};

void TestAtomicFile::killedWriterLeavesOldOrNew()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string target = dir.filePath("plan.json").toStdString();
    writeFileAtomically(target, version(0));
    int kills = 0, midWrite = 0;
    for (int trial = 0; trial < 60; ++trial) {
        const pid_t child = ::fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            try {
                for (int k = 1;; ++k)
                    writeFileAtomically(target, version(k));
            } catch (...) {
                ::_exit(1);
            }
        }
        // Wait until the child writes (its first temporary file or version),
        // so that a slow start (sanitizers, a loaded machine) cannot make
        // every kill land before the first write; then a write of 2 MiB
        // takes milliseconds and 0-20 ms lands inside one or between two.
        for (int waited = 0; waited < 10000; ++waited) {
            if (filesIn(dir.path()).size() > 1)
                break;
            QFile now(QString::fromStdString(target));
            if (now.open(QIODevice::ReadOnly) && versionOf(now.readAll()) > 0)
                break;
            ::usleep(1000);
        }
        ::usleep(static_cast<useconds_t>(QRandomGenerator::global()->bounded(20000)));
        ::kill(child, SIGKILL);
        int status = 0;
        QCOMPARE(::waitpid(child, &status, 0), child);
        QVERIFY(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        ++kills;
        QFile f(QString::fromStdString(target));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const int k = versionOf(f.readAll());
        QVERIFY2(k >= 0, qPrintable(QStringLiteral("trial %1: the file is not a whole version").arg(trial)));
        const QStringList left = filesIn(dir.path());
        midWrite += left.size() > 1;  // killed between a temporary file and its rename
        // The next write (this process) clears what the killed one left.
        writeFileAtomically(target, version(0));
        QCOMPARE(filesIn(dir.path()), QStringList{"plan.json"});
    }
    qInfo("%d kills, %d of them left a temporary file that the next write removed", kills, midWrite);
    QVERIFY(midWrite > 0);  // the kills did land inside writes
}

void TestAtomicFile::liveWritersTemporaryIsKept()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const pid_t sleeper = ::fork();
    QVERIFY(sleeper >= 0);
    if (sleeper == 0) {
        ::pause();
        ::_exit(0);
    }
    // As a writer that is still running would have it, and one of a process
    // that is gone (pid 0x7ffffffe is above any pid Linux hands out).
    const QString live = QStringLiteral(".plan.json.memx-tmp-%1-AbC123").arg(sleeper);
    const QString dead = QStringLiteral(".plan.json.memx-tmp-2147483646-XyZ789");
    for (const QString& name : {live, dead}) {
        QFile f(dir.filePath(name));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("half");
    }
    writeFileAtomically(dir.filePath("other.json").toStdString(), "{}\n");
    ::kill(sleeper, SIGKILL);
    ::waitpid(sleeper, nullptr, 0);
    QCOMPARE(filesIn(dir.path()), (QStringList{live, "other.json"}));
}

// Issue #37 item 7: the outputs of one command are one set. The last file
// cannot be written (its folder is a regular file, as a full disk or a bad
// path would stop it): the first two keep their previous content, and no
// temporary file is left beside them.
void TestAtomicFile::aFailedFileLeavesTheWholeSetAsItWas()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string json = dir.filePath("s.json").toStdString(), csv = dir.filePath("s.csv").toStdString();
    writeFilesAtomically({{json, "old json\n"}, {csv, "old csv\n"}});
    {
        QFile blocker(dir.filePath("not-a-folder"));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
    }
    const std::string bad = dir.filePath("not-a-folder/s.txt").toStdString();
    try {
        writeFilesAtomically({{json, "new json\n"}, {csv, "new csv\n"}, {bad, "report\n"}});
        QFAIL("a file that cannot be written was accepted");
    } catch (const InputError& e) {
        QCOMPARE(e.file(), bad);  // the message names the file that failed, not a temporary one
    }
    const auto read = [](const std::string& file) {
        QFile f(QString::fromStdString(file));
        return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
    };
    QCOMPARE(read(json), QStringLiteral("old json\n"));
    QCOMPARE(read(csv), QStringLiteral("old csv\n"));
    QCOMPARE(filesIn(dir.path()), (QStringList{"not-a-folder", "s.csv", "s.json"}));
    // And when every file can be written, all of them are.
    writeFilesAtomically({{json, "new json\n"}, {csv, "new csv\n"}});
    QCOMPARE(read(json), QStringLiteral("new json\n"));
    QCOMPARE(read(csv), QStringLiteral("new csv\n"));
}

void TestAtomicFile::aSetCutBetweenRenamesIsFinishedNextTime_data()
{
    QTest::addColumn<bool>("twoFolders");
    QTest::newRow("one folder") << false;
    QTest::newRow("two folders") << true;  // the next command names only the second output
}

void TestAtomicFile::aSetCutBetweenRenamesIsFinishedNextTime()
{
    // A child process writes a new JSON and CSV as one set and dies right
    // after the first rename (a kill between the two): the folder holds the
    // new JSON beside the old CSV. The next command that names either output
    // finishes the set before anything else, so the pair is the new one, and
    // nothing of the dead writer is left.
    QFETCH(bool, twoFolders);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(QDir(dir.path()).mkdir("b"));
    const QString second = twoFolders ? dir.filePath("b") : dir.path();
    const std::string json = dir.filePath("s.json").toStdString();
    const std::string csv = (second + "/s.csv").toStdString();
    writeFilesAtomically({{json, "old json\n"}, {csv, "old csv\n"}});
    const auto read = [](const std::string& file) {
        QFile f(QString::fromStdString(file));
        return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
    };
    const pid_t child = ::fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        AtomicWrites::setRenameHook([](std::size_t renamed) {
            if (renamed == 1)
                ::_exit(0);
        });
        writeFilesAtomically({{json, "new json\n"}, {csv, "new csv\n"}});
        ::_exit(1);  // not reached
    }
    int status = 0;
    QCOMPARE(::waitpid(child, &status, 0), child);
    QVERIFY(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    QCOMPARE(read(json), QStringLiteral("new json\n"));
    QCOMPARE(read(csv), QStringLiteral("old csv\n"));  // the mixed pair a kill leaves
    QVERIFY(filesIn(dir.path()).join(' ').contains(".memx-set"));

    AtomicWrites::clearAbandoned(csv);  // what the next command does for its outputs first
    QCOMPARE(read(json), QStringLiteral("new json\n"));
    QCOMPARE(read(csv), QStringLiteral("new csv\n"));
    QCOMPARE(filesIn(dir.path()), twoFolders ? QStringList{"s.json"} : (QStringList{"s.csv", "s.json"}));
    QCOMPARE(filesIn(second), QStringList{"s.csv"} + (twoFolders ? QStringList{} : QStringList{"s.json"}));
}

MEMX_TEST_GUILESS_MAIN(TestAtomicFile)
}  // namespace tst_atomic_file

#include "tst_atomic_file.moc"
