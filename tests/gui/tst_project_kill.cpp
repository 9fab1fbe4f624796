// The workbench's project save and autosave killed with SIGKILL at random
// moments (issue #14, item 6), 50 times each: a child process saves over and
// over and is killed. The project file is always a whole project (the
// previous one or a new one); the autosave a killed instance leaves is found
// by the next instance, loads, and the next instance's own save leaves no
// temporary file in the folder.
#include "AutosaveSlot.h"
#include "ProjectFile.h"
#include "TestPaths.h"
#include "TestProjectVersions.h"

#include "hardware/Cluster.h"
#include "model/ModelSpec.h"

#include <QDir>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include "TestMain.h"

#include <csignal>

#include <sys/wait.h>
#include <unistd.h>

namespace tst_project_kill {

using namespace memx;
using memx::test::temporaries;

namespace {

// Global batch 8(k + 1) and the summary of the same k: a whole version.
bool whole(const Project& p)
{
    const int k = p.setup.globalBatch / 8 - 1;
    return p.setup.globalBatch % 8 == 0 && p.lastResult.value("version", -1) == k
        && p.lastResult["front"].size() == 40000 && p.lastResult["front"].back()[1] == k + 39999 * 0.25;
}

// Forks a child that runs `body` until it is killed at a random moment
// within `windowUs`; the child's pid.
template <typename Body> pid_t runAndKill(Body body, int windowUs)
{
    const pid_t child = ::fork();
    if (child == 0) {
        try {
            body();
        } catch (...) {
        }
        ::_exit(1);
    }
    if (child > 0) {
        ::usleep(static_cast<useconds_t>(QRandomGenerator::global()->bounded(windowUs)));
        ::kill(child, SIGKILL);
        ::waitpid(child, nullptr, 0);
    }
    return child;
}

}  // namespace

class TestProjectKill : public QObject {
    Q_OBJECT
private slots:
    void projectSave();
    void autosave();
};

void TestProjectKill::projectSave()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string file = dir.filePath("plan.memx").toStdString();
    test::projectVersion(0).save(file);
    int replaced = 0;
    for (int trial = 0; trial < 50; ++trial) {
        const int before = Project::load(file).setup.globalBatch;
        const pid_t child = runAndKill(
            [&] {
                for (int k = 1;; ++k)
                    test::projectVersion(k).save(file);
            },
            400000);
        QVERIFY(child > 0);
        const Project p = Project::load(file);  // throws (and fails) on a cut file
        QVERIFY2(whole(p), qPrintable(QStringLiteral("trial %1").arg(trial)));
        replaced += p.setup.globalBatch != before;
        test::projectVersion(0).save(file);  // the next save
        QCOMPARE(temporaries(dir.path()), QStringList());
    }
    qInfo("50 kills, %d after at least one whole save", replaced);
}

void TestProjectKill::autosave()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString projectFile = QStringLiteral("/projects/cluster-a.memx");
    int found = 0;
    for (int trial = 0; trial < 50; ++trial) {
        const pid_t child = runAndKill(
            [&] {
                AutosaveSlot slot(dir.path());
                for (int k = 1;; ++k)
                    slot.write(test::projectVersion(k), projectFile);
            },
            400000);
        QVERIFY(child > 0);
        // The next instance: it finds what the killed one left, whole.
        const auto orphans = AutosaveSlot::orphans(dir.path());
        QVERIFY(orphans.size() <= 1);
        for (const auto& o : orphans) {
            QVERIFY(o.file.contains(QStringLiteral("autosave-%1-").arg(child)));
            QVERIFY(whole(Project::load(o.file.toStdString())));
            QCOMPARE(o.projectFile, projectFile);  // never found without where it belongs
            ++found;
            AutosaveSlot::remove(o);
        }
        AutosaveSlot own(dir.path());
        own.write(test::projectVersion(0), projectFile);
        QCOMPARE(temporaries(dir.path()), QStringList());
        own.discard();
        // Nothing else is left: no origin without its autosave.
        QCOMPARE(QDir(dir.path()).entryList({QStringLiteral("*.origin")}, QDir::Files), QStringList());
    }
    qInfo("50 kills: %d autosaves recovered whole, the rest killed before the first write", found);
    QVERIFY(found > 0);
}

MEMX_TEST_GUILESS_MAIN(TestProjectKill)
}  // namespace tst_project_kill

#include "tst_project_kill.moc"
