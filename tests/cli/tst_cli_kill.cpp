// memx-cli killed with SIGKILL at random moments (issue #14, item 6): up to
// 50 times each for `search --json` and `train --out`, at least 10, as many
// as fit in 40 s of trials (a slow or busy machine runs fewer, never times
// out). After every kill the
// output is the previous file, byte for byte, or a whole new one (when the
// kill came after the rename); the next complete run leaves no temporary
// file beside it.
#include "CliRunner.h"
#include "TestPaths.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include "TestMain.h"

#include <sys/stat.h>

namespace tst_cli_kill {

using namespace memx::test;

class TestCliKill : public QObject {
    Q_OBJECT
private slots:
    void killedOutputIsWhole_data();
    void killedOutputIsWhole();
};

void TestCliKill::killedOutputIsWhole_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("output");
    QTest::addColumn<QString>("format");
    QTest::newRow("search --json")
        << QStringList{"search", "--cluster", QString::fromStdString(sampleCluster("homogeneous-8xa100.json")),
                       "--mbs",  "1",         "-q",
                       "--json"}
        << "search.json"
        << "memx-search/2";
    QTest::newRow("train --out") << QStringList{"train", "--measurements",
                                                QString::fromStdString(
                                                    dataFile("measurements/stage_level_example.csv")),
                                                "--no-tune", "--out"}
                                 << "model.json"
                                 << "memx-predictor/1";
}

void TestCliKill::killedOutputIsWhole()
{
    QFETCH(QStringList, args);
    QFETCH(QString, output);
    QFETCH(QString, format);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString target = dir.filePath(output);
    args << target;
    auto whole = [&](const QByteArray& content) {
        return QJsonDocument::fromJson(content).object().value("format").toString() == format;
    };
    // A finished write replaces the file (a new inode), even with the same bytes.
    auto inode = [&] {
        struct stat st { };
        return ::stat(target.toLocal8Bit().constData(), &st) == 0 ? st.st_ino : ino_t(0);
    };
    auto read = [&] {
        QFile f(target);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    };
    // Complete runs: the previous file of the first trial, and how long a
    // run takes (the shortest of three: the machine may be busy).
    qint64 runMs = std::numeric_limits<qint64>::max();
    for (int i = 0; i < 3; ++i) {
        QElapsedTimer clock;
        clock.start();
        const CliResult r = runCli(args);
        runMs = std::min(runMs, clock.elapsed());
        QVERIFY2(r.exitCode == 0, qPrintable(describe(args, r)));
        QVERIFY(whole(read()));
    }
    int before = 0, after = 0, trials = 0;
    QElapsedTimer budget;
    budget.start();
    for (; trials < 50 && (trials < 10 || budget.elapsed() < 40'000); ++trials) {
        const int trial = trials;
        const QByteArray previous = read();
        const ino_t previousInode = inode();
        QProcess p;
        p.start(cli(), args);
        QVERIFY(p.waitForStarted(30000));
        // Anywhere from the start to a little past a whole run.
        QTest::qSleep(QRandomGenerator::global()->bounded(static_cast<int>(runMs * 6 / 5) + 1));
        p.kill();  // SIGKILL
        QVERIFY(p.waitForFinished(30000));
        const QByteArray now = read();
        if (inode() == previousInode) {
            QVERIFY(now == previous);
            ++before;
        } else {
            QVERIFY2(whole(now),
                     qPrintable(QStringLiteral("trial %1: %2 is neither the previous file nor a whole one")
                                    .arg(trial)
                                    .arg(output)));
            ++after;
        }
        // The next run finishes and clears whatever the killed one left.
        const CliResult next = runCli(args);
        QVERIFY2(next.exitCode == 0, qPrintable(describe(args, next)));
        QVERIFY(whole(read()));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden | QDir::System), QStringList{output});
    }
    qInfo("a run takes %lld ms; of %d kills, %d left the previous file and %d a new whole one",
          static_cast<long long>(runMs), trials, before, after);
}

MEMX_TEST_GUILESS_MAIN(TestCliKill)
}  // namespace tst_cli_kill

#include "tst_cli_kill.moc"
