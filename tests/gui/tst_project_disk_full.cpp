// The workbench's project save and autosave on a full disk (issue #37, item
// 9): the earlier file stays byte for byte, no temporary file is left, the
// window keeps the edits (still modified, the save refused with the file and
// the reason), and a failing autosave is shown until one succeeds.
//
// The disk is full in one of two ways. With MEMX_FULL_DIR naming a folder on
// a small file system of its own (scripts/reliability-probe mounts a tmpfs
// there), the test fills that file system with a filler file: the writers
// meet ENOSPC. Without it the process's file-size limit is set to 0
// (RLIMIT_FSIZE, SIGXFSZ ignored): every write to a regular file fails with
// EFBIG, on the same path through writeFileAtomically.
#include "AutosaveSlot.h"
#include "MainWindow.h"
#include "ProjectSession.h"
#include "ProjectFile.h"
#include "TestPaths.h"
#include "TestProjectVersions.h"

#include "hardware/Cluster.h"
#include "model/ModelSpec.h"
#include "ObjectivePanel.h"

#include <QDir>
#include <QFile>
#include <QLabel>
#include <QStandardPaths>
#include <QTemporaryDir>
#include "TestMain.h"

#include <csignal>
#include <fcntl.h>
#include <string>
#include <sys/resource.h>
#include <unistd.h>

namespace tst_project_disk_full {

using namespace memx;
using memx::test::temporaries;

namespace {

// While it lives, writes to `dir` fail as on a full disk (see the top).
class FullDisk {
public:
    explicit FullDisk(const QString& dir)
    {
        if (qEnvironmentVariableIsSet("MEMX_FULL_DIR")) {
            filler_ = dir + QStringLiteral("/filler");
            fill();
            return;
        }
        ::getrlimit(RLIMIT_FSIZE, &saved_);
        oldHandler_ = std::signal(SIGXFSZ, SIG_IGN);
        rlimit none = saved_;
        none.rlim_cur = 0;
        ::setrlimit(RLIMIT_FSIZE, &none);
        limited_ = true;
    }
    ~FullDisk()
    {
        if (limited_) {
            ::setrlimit(RLIMIT_FSIZE, &saved_);
            std::signal(SIGXFSZ, oldHandler_);
        }
        if (!filler_.isEmpty())
            QFile::remove(filler_);
    }
    FullDisk(const FullDisk&) = delete;
    FullDisk& operator=(const FullDisk&) = delete;

    // What a failed write says on this kind of full disk.
    static QString reason()
    {
        return qEnvironmentVariableIsSet("MEMX_FULL_DIR") ? QStringLiteral("No space left on device")
                                                          : QStringLiteral("File too large");
    }

private:
    // Writes the filler until not one byte more fits.
    void fill()
    {
        const int fd = ::open(filler_.toLocal8Bit().constData(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        QVERIFY(fd >= 0);
        std::string block(1 << 20, 'f');
        for (size_t size = block.size(); size > 0; size /= 2)
            while (::write(fd, block.data(), size) == static_cast<ssize_t>(size)) { }
        ::fsync(fd);
        ::close(fd);
    }

    QString filler_;
    rlimit saved_{};
    void (*oldHandler_)(int) = nullptr;
    bool limited_ = false;
};

QByteArray bytesOf(const QString& file)
{
    QFile f(file);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

MainWindow::Options quietOptions()
{
    MainWindow::Options o;
    o.restoreState = false;
    o.offerRecovery = false;
    o.autosave = false;  // the test calls writeAutosave itself
    return o;
}

}  // namespace

class TestProjectDiskFull : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void projectSaveKeepsTheEarlierFile();
    void autosaveKeepsTheEarlierAutosave();
    void windowSaveKeepsTheEditsAndSaysWhy();
    void windowShowsAFailingAutosaveUntilOneSucceeds();

private:
    QString dir_;  // on the full disk: the project and the autosaves
    std::unique_ptr<QTemporaryDir> own_;
};

void TestProjectDiskFull::initTestCase() { QStandardPaths::setTestModeEnabled(true); }

void TestProjectDiskFull::init()
{
    if (qEnvironmentVariableIsSet("MEMX_FULL_DIR")) {
        dir_ = qEnvironmentVariable("MEMX_FULL_DIR") + QStringLiteral("/") + QTest::currentTestFunction();
        QVERIFY(QDir().mkpath(dir_));
    } else {
        own_ = std::make_unique<QTemporaryDir>();
        QVERIFY(own_->isValid());
        dir_ = own_->path();
    }
    qputenv("MEMX_AUTOSAVE_DIR", QString(dir_ + QStringLiteral("/autosave")).toLocal8Bit());
}

void TestProjectDiskFull::cleanup()
{
    qunsetenv("MEMX_AUTOSAVE_DIR");
    own_.reset();
}

void TestProjectDiskFull::projectSaveKeepsTheEarlierFile()
{
    const QString file = dir_ + QStringLiteral("/p.memx");
    test::projectVersion(0, false).save(file.toStdString());
    const QByteArray earlier = bytesOf(file);
    QVERIFY(!earlier.isEmpty());
    QString message;
    {
        FullDisk full(dir_);
        try {
            test::projectVersion(1, true).save(file.toStdString());
        } catch (const std::exception& e) {
            message = QString::fromUtf8(e.what());
        }
    }
    qInfo().noquote() << "message:" << message;  // for scripts/reliability-probe's table
    QVERIFY2(message.contains(file), qPrintable(message));
    QVERIFY2(message.contains(FullDisk::reason()), qPrintable(message));
    QCOMPARE(bytesOf(file), earlier);
    QCOMPARE(temporaries(dir_), QStringList());
    QCOMPARE(Project::load(file.toStdString()).setup.globalBatch, 8);
}

void TestProjectDiskFull::autosaveKeepsTheEarlierAutosave()
{
    const QString autosaves = dir_ + QStringLiteral("/autosave");
    QVERIFY(QDir().mkpath(autosaves));
    AutosaveSlot slot(autosaves);
    slot.write(test::projectVersion(0, false), QStringLiteral("/projects/p.memx"));
    const QByteArray earlier = bytesOf(slot.file());
    QVERIFY(!earlier.isEmpty());
    QString message;
    {
        FullDisk full(dir_);
        try {
            slot.write(test::projectVersion(1, true), QStringLiteral("/projects/p.memx"));
        } catch (const std::exception& e) {
            message = QString::fromUtf8(e.what());
        }
    }
    qInfo().noquote() << "message:" << message;
    QVERIFY2(message.contains(FullDisk::reason()), qPrintable(message));
    QCOMPARE(bytesOf(slot.file()), earlier);
    QCOMPARE(temporaries(autosaves), QStringList());
    // Still what a restart would offer back: the earlier version, whole.
    QCOMPARE(Project::load(slot.file().toStdString()).setup.globalBatch, 8);
    slot.write(test::projectVersion(2, false), QStringLiteral("/projects/p.memx"));  // room again: it saves
    QCOMPARE(Project::load(slot.file().toStdString()).setup.globalBatch, 24);
}

void TestProjectDiskFull::windowSaveKeepsTheEditsAndSaysWhy()
{
    const QString file = dir_ + QStringLiteral("/p.memx");
    test::projectVersion(0, false).save(file.toStdString());
    const QByteArray earlier = bytesOf(file);
    MainWindow w(quietOptions());
    QString error;
    QVERIFY2(w.openProject(file, &error), qPrintable(error));
    ObjectiveSpec o = w.objectivePanel()->objective();
    o.profile = WeightProfile::ThroughputFirst;
    w.objectivePanel()->setObjective(o);  // an unsaved change
    QVERIFY(w.isDirty());
    {
        FullDisk full(dir_);
        QVERIFY(!w.saveProject(file, &error));
    }
    qInfo().noquote() << "message:" << error;
    QVERIFY2(error.contains(file) && error.contains(FullDisk::reason()), qPrintable(error));
    QVERIFY(w.isDirty());
    QVERIFY2(w.windowTitle().startsWith(QStringLiteral("p.memx *")), qPrintable(w.windowTitle()));
    QCOMPARE(w.objectivePanel()->objective().profile, WeightProfile::ThroughputFirst);
    QCOMPARE(bytesOf(file), earlier);
    QCOMPARE(temporaries(dir_), QStringList());
    // With room again the same save goes through and holds the edit.
    QVERIFY2(w.saveProject(file, &error), qPrintable(error));
    QVERIFY(!w.isDirty());
    QCOMPARE(Project::load(file.toStdString()).objective.profile, WeightProfile::ThroughputFirst);
}

void TestProjectDiskFull::windowShowsAFailingAutosaveUntilOneSucceeds()
{
    MainWindow w(quietOptions());
    w.openSampleProject();
    QCOMPARE(QFileInfo(w.session()->autosavePath()).absolutePath(),
             QFileInfo(dir_ + QStringLiteral("/autosave")).absoluteFilePath());
    ObjectiveSpec o = w.objectivePanel()->objective();
    o.profile = WeightProfile::ThroughputFirst;
    w.objectivePanel()->setObjective(o);
    QVERIFY(w.isDirty());
    auto* warning = w.findChild<QLabel*>(QStringLiteral("autosaveWarning"));
    QVERIFY(warning);
    QVERIFY(w.session()->autosaveProblem().isEmpty());
    {
        FullDisk full(dir_);
        w.session()->writeAutosave();
    }
    qInfo().noquote() << "message:" << w.session()->autosaveProblem().replace(QLatin1Char('\n'), QLatin1Char(' '));
    QVERIFY2(w.session()->autosaveProblem().contains(FullDisk::reason()), qPrintable(w.session()->autosaveProblem()));
    QVERIFY(warning->isVisibleTo(&w));
    QVERIFY2(warning->text().contains(QStringLiteral("only in this window")), qPrintable(warning->text()));
    QVERIFY(w.isDirty());
    QCOMPARE(temporaries(QFileInfo(w.session()->autosavePath()).absolutePath()), QStringList());
    // The next autosave with room again succeeds and the warning goes.
    w.session()->writeAutosave();
    QVERIFY(w.session()->autosaveProblem().isEmpty());
    QVERIFY(!warning->isVisibleTo(&w));
    QCOMPARE(Project::load(w.session()->autosavePath().toStdString()).objective.profile,
             WeightProfile::ThroughputFirst);
}

MEMX_TEST_MAIN(TestProjectDiskFull)
}  // namespace tst_project_disk_full

#include "tst_project_disk_full.moc"
