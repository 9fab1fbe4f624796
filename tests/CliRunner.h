#pragma once
// Runs the real memx-cli executable for the CLI tests (QProcess, no shell).

#include "TestPaths.h"

#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTest>

namespace memx::test {

struct CliResult {
    bool started = false;
    bool finished = false;
    QProcess::ExitStatus exitStatus = QProcess::CrashExit;
    int exitCode = -1;
    QString out;
    QString err;
    bool crashed() const { return exitStatus != QProcess::NormalExit; }
};

inline QString cli() { return QString::fromStdString(cliPath()); }

inline CliResult runCli(const QStringList& args, const QString& workDir = QString(), int timeoutMs = 5 * 60 * 1000)
{
    CliResult r;
    QProcess p;
    if (!workDir.isEmpty())
        p.setWorkingDirectory(workDir);
    p.start(cli(), args);
    r.started = p.waitForStarted(30000);
    if (!r.started)
        return r;
    p.closeWriteChannel();
    r.finished = p.waitForFinished(timeoutMs);
    if (!r.finished) {
        p.kill();
        p.waitForFinished(5000);
    }
    r.exitStatus = p.exitStatus();
    r.exitCode = p.exitCode();
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

inline QString describe(const QStringList& args, const CliResult& r)
{
    return QStringLiteral("memx-cli %1\n  exit %2 (%3)\n  stdout: %4\n  stderr: %5")
        .arg(args.join(QLatin1Char(' ')))
        .arg(r.exitCode)
        .arg(r.exitStatus == QProcess::NormalExit ? QStringLiteral("normal") : QStringLiteral("CRASH"))
        .arg(r.out.left(1500), r.err.left(1500));
}

}  // namespace memx::test

// Run and check that the process finished normally (no crash, no hang) with `expectedExit`.
#define RUN_EXPECT(result, args, expectedExit)                                                                         \
    const memx::test::CliResult result = memx::test::runCli(args);                                                     \
    QVERIFY2(result.started, qPrintable(QStringLiteral("cannot start ") + memx::test::cli()));                         \
    QVERIFY2(result.finished, qPrintable(QStringLiteral("timed out: ") + memx::test::describe(args, result)));         \
    QVERIFY2(!result.crashed(), qPrintable(QStringLiteral("crashed: ") + memx::test::describe(args, result)));         \
    QVERIFY2(result.exitCode == (expectedExit),                                                                        \
             qPrintable(QStringLiteral("expected exit %1, got: ").arg(expectedExit)                                    \
                        + memx::test::describe(args, result)))
