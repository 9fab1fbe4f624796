// SIGINT and SIGTERM during long commands (issue #14, item 5): memx-cli stops,
// exits 128 + signal (130, 143), leaves the previous output file as it was
// and no temporary file beside it. The time from signal to exit is measured
// and printed (not asserted: speed belongs in benchmarks), and bounded only
// loosely, so that a hang fails.
#include "CliRunner.h"
#include "TestPaths.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

using namespace memx::test;

class TestCliInterrupt : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void stopsCleanly_data();
    void stopsCleanly();

private:
    QTemporaryDir dir_;
};

void TestCliInterrupt::initTestCase()
{
    QVERIFY(dir_.isValid());
    // 64 nodes of four types: a search of several seconds on this machine.
    const CliResult r = runCli({"generate-cluster", "--nodes", "64", "--types", "A100-80GB,H20,Ascend-910B,H100-SXM",
                                "--out", dir_.filePath("c64.json")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
}

void TestCliInterrupt::stopsCleanly_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("output");
    QTest::addColumn<int>("signal");
    QTest::addColumn<int>("exitCode");
    const QString c64 = dir_.filePath("c64.json");
    const QString sailor = QString::fromStdString(dataFile("measurements/sailor_layers.csv"));
    const QStringList search = {"search", "--cluster", c64, "--model", "llama3-70b", "--gbs", "2048", "--max-pp",
                                "16", "-q", "--json"};
    const QStringList train = {"train", "--measurements", sailor, "--trials", "60", "--out"};
    QTest::newRow("search, SIGINT") << search << "search.json" << SIGINT << 130;
    QTest::newRow("search, SIGTERM") << search << "search.json" << SIGTERM << 143;
    QTest::newRow("train, SIGINT") << train << "model.json" << SIGINT << 130;
    QTest::newRow("train, SIGTERM") << train << "model.json" << SIGTERM << 143;
}

void TestCliInterrupt::stopsCleanly()
{
    QFETCH(QStringList, args);
    QFETCH(QString, output);
    QFETCH(int, signal);
    QFETCH(int, exitCode);
    QTemporaryDir out;
    const QString target = out.filePath(output);
    {
        QFile f(target);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("previous content\n");
    }
    QProcess p;
    p.start(cli(), args << target);
    QVERIFY(p.waitForStarted(30000));
    QTest::qWait(800);  // well into the work (both take seconds)
    QCOMPARE(p.state(), QProcess::Running);
    QElapsedTimer clock;
    clock.start();
    ::kill(static_cast<pid_t>(p.processId()), signal);
    QVERIFY2(p.waitForFinished(10000), "did not stop");
    qInfo("stopped %lld ms after the signal", static_cast<long long>(clock.elapsed()));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), exitCode);
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QVERIFY2(err.contains(signal == SIGINT ? "interrupted (SIGINT)" : "terminated (SIGTERM)"), qPrintable(err));
    QFile f(target);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), QByteArray("previous content\n"));
    QCOMPARE(QDir(out.path()).entryList(QDir::Files | QDir::Hidden), QStringList{output});  // no temporary file
}

QTEST_GUILESS_MAIN(TestCliInterrupt)
#include "tst_cli_interrupt.moc"
