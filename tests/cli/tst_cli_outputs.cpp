// No command overwrites its own input or writes two outputs to one file: an
// output path that is an input (by any spelling: ./x, a symbolic link, a hard
// link), or another output of the same command, is refused before any work
// with exit 2 naming both options, and the input is left as it was; an empty
// path and "-" are refused naming the option.
#include "CliRunner.h"
#include "TestPaths.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QScopeGuard>
#include <QTemporaryDir>
#include "TestMain.h"

#include <unistd.h>

namespace tst_cli_outputs {

namespace {

QByteArray digest(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}

}  // namespace

class TestCliOutputs : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_tmp;
    QString m_search;  // a search result, for export

private slots:
    void initTestCase();
    void refusedBeforeAnyWork_data();
    void refusedBeforeAnyWork();
    void distinctOutputsStillWrite();
    void killedWritersLeftoversGoAtStart();
    void aFullDiskIsRefusedBeforeTheWork();
};

void TestCliOutputs::initTestCase()
{
    QVERIFY(m_tmp.isValid());
    QVERIFY(QFile::copy(QString::fromStdString(memx::test::sampleCluster("paper-6gpu-v100-t4.json")),
                        m_tmp.filePath("cluster.json")));
    QVERIFY(QFile::link(m_tmp.filePath("cluster.json"), m_tmp.filePath("cluster-link.json")));
    QVERIFY(::link(qPrintable(m_tmp.filePath("cluster.json")), qPrintable(m_tmp.filePath("cluster-hard.json"))) == 0);
    m_search = m_tmp.filePath("search.json");
    const QStringList args{"search", "--cluster", m_tmp.filePath("cluster.json"), "--gbs", "32", "--json",
                           m_search, "-q"};
    RUN_EXPECT(r, args, 0);
    const QStringList pargs{"profile-plan", "--cluster", m_tmp.filePath("cluster.json"), "--out",
                            m_tmp.filePath("runs.csv")};
    RUN_EXPECT(p, pargs, 0);
}

void TestCliOutputs::refusedBeforeAnyWork_data()
{
    QTest::addColumn<QStringList>("args");  // @ = the temporary folder
    QTest::addColumn<QString>("untouched");  // a file that must keep its bytes (relative to @)
    QTest::addColumn<QStringList>("message");  // what the error names
    QTest::newRow("search --json is the cluster")
        << QStringList{"search", "--cluster", "@/cluster.json", "--gbs", "32", "--json", "@/cluster.json"}
        << "cluster.json" << QStringList{"--json", "--cluster", "replace that input"};
    QTest::newRow("the same file spelt another way")
        << QStringList{"search", "--cluster", "@/cluster.json", "--gbs", "32", "--csv", "@/./sub/../cluster.json"}
        << "cluster.json" << QStringList{"--csv", "--cluster"};
    QTest::newRow("through a symbolic link")
        << QStringList{"search", "--cluster", "@/cluster.json", "--gbs", "32", "--report", "@/cluster-link.json"}
        << "cluster.json" << QStringList{"--report", "--cluster"};
    QTest::newRow("through a hard link") << QStringList{"search", "--cluster", "@/cluster.json",     "--gbs",
                                                        "32",     "--json",    "@/cluster-hard.json"}
                                         << "cluster.json" << QStringList{"--json", "--cluster"};
    QTest::newRow("--json and --csv one file")
        << QStringList{"search", "--cluster", "@/cluster.json", "--gbs", "32", "--json", "@/x", "--csv", "@/x"}
        << "cluster.json" << QStringList{"--csv", "--json", "its own path"};
    QTest::newRow("empty --json") << QStringList{"search", "--cluster", "@/cluster.json", "--gbs", "32", "--json", ""}
                                  << "cluster.json" << QStringList{"--json", "empty path"};
    QTest::newRow("--json -") << QStringList{"search", "--cluster", "@/cluster.json", "--gbs", "32", "--json", "-"}
                              << "cluster.json" << QStringList{"--json", "standard output"};
    QTest::newRow("export --out is the plan file")
        << QStringList{"export", "--plan", "@/search.json", "--target", "json", "--out", "@/search.json"}
        << "search.json" << QStringList{"--out", "--plan"};
    QTest::newRow("predict --out is the queries")
        << QStringList{"predict", "--queries", "@/runs.csv", "--out", "@/runs.csv"} << "runs.csv"
        << QStringList{"--out", "--queries"};
    QTest::newRow("simulate --out is the run list")
        << QStringList{"simulate", "--cluster", "@/cluster.json", "--runs", "@/runs.csv", "--out", "@/runs.csv"}
        << "runs.csv" << QStringList{"--out", "--runs"};
    QTest::newRow("train --out is the measurements")
        << QStringList{"train", "--measurements", "@/runs.csv", "--out", "@/runs.csv"} << "runs.csv"
        << QStringList{"--out", "--measurements"};
    QTest::newRow("profile-plan --out is the cluster")
        << QStringList{"profile-plan", "--cluster", "@/cluster.json", "--out", "@/cluster.json"} << "cluster.json"
        << QStringList{"--out", "--cluster"};
    // Places that cannot be written, refused before the work, naming the option
    // (a search ran to its end first; profile-plan wrote its run list before
    // failing on --scripts with a raw filesystem error).
    QTest::newRow("search --json under a file")
        << QStringList{"search", "--cluster", "@/cluster.json", "--gbs", "32", "--json", "@/cluster.json/s.json"}
        << "cluster.json" << QStringList{"--json", "cluster.json is a file, so no folder can be made there"};
    QTest::newRow("search --csv is a folder")
        << QStringList{"search", "--cluster", "@/cluster.json", "--gbs", "32", "--csv", "@"} << "cluster.json"
        << QStringList{"--csv", "is a folder; give the path of a file"};
    QTest::newRow("profile-plan --scripts is a file")
        << QStringList{"profile-plan", "--cluster", "@/cluster.json", "--out", "@/x", "--scripts", "@/runs.csv"}
        << "runs.csv" << QStringList{"--scripts", "is a file; give a folder"};
    QTest::newRow("simulate --logs under a file")
        << QStringList{"simulate", "--cluster", "@/cluster.json", "--runs",         "@/runs.csv",
                       "--out",    "@/x",       "--logs",         "@/runs.csv/logs"}
        << "runs.csv" << QStringList{"--logs", "runs.csv is a file"};
    QTest::newRow("generate-cluster --out empty")
        << QStringList{"generate-cluster", "--nodes", "2", "--types", "A100-80GB", "--out", ""} << "cluster.json"
        << QStringList{"--out", "empty path"};
}

void TestCliOutputs::refusedBeforeAnyWork()
{
    QFETCH(QStringList, args);
    QFETCH(QString, untouched);
    QFETCH(QStringList, message);
    for (QString& a : args)
        a.replace(QLatin1String("@"), m_tmp.path());
    const QByteArray before = digest(m_tmp.filePath(untouched));
    QVERIFY(!before.isEmpty());
    RUN_EXPECT(r, args, 2);
    for (const QString& m : message)
        QVERIFY2(r.err.contains(m), qPrintable(memx::test::describe(args, r)));
    QCOMPARE(digest(m_tmp.filePath(untouched)), before);
    QVERIFY2(!QFile::exists(m_tmp.filePath("x")), "an output was written");
}

// Issue #37 item 7: a writer killed with kill -9 leaves its temporary file;
// the next command that names an output in that folder removes it as it
// starts, even when it then fails before writing anything (here: an unknown
// model). A live writer's temporary file stays.
void TestCliOutputs::killedWritersLeftoversGoAtStart()
{
    QDir dir(m_tmp.filePath("leftovers"));
    QVERIFY(dir.mkpath("."));
    const QString dead = dir.filePath(".s.json.memx-tmp-2147483646-AbC123");  // no such pid
    const QString live = dir.filePath(QStringLiteral(".s.json.memx-tmp-%1-XyZ789").arg(::getpid()));
    for (const QString& f : {dead, live}) {
        QFile file(f);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("half a file");
    }
    const QStringList args{"search",        "--cluster", m_tmp.filePath("cluster.json"), "--model",
                           "no-such-model", "--json",    dir.filePath("s.json"),         "-q"};
    RUN_EXPECT(r, args, 2);
    QVERIFY(!QFile::exists(dead));
    QVERIFY(QFile::exists(live));
    QVERIFY(!QFile::exists(dir.filePath("s.json")));
}

// Issue #37 item 6: a disk with not one block free is found before the
// search, not after it (the write would fail with nothing lost but the
// time). Needs a file system of its own to fill: a 64 KiB tmpfs, mounted
// where root may mount (CI runs as root); skipped elsewhere.
void TestCliOutputs::aFullDiskIsRefusedBeforeTheWork()
{
    const QString full = m_tmp.filePath("full");
    QVERIFY(QDir().mkpath(full));
    if (::geteuid() != 0 || QProcess::execute("mount", {"-t", "tmpfs", "-o", "size=64k", "tmpfs", full}) != 0)
        QSKIP("mounting a small tmpfs needs root (and a container that allows it)");
    const auto unmount = qScopeGuard([&] { QProcess::execute("umount", {full}); });
    {
        QFile filler(full + "/filler");
        QVERIFY(filler.open(QIODevice::WriteOnly));
        const QByteArray block(4096, 'f');
        while (filler.write(block) == block.size() && filler.flush()) { }
    }
    const QStringList search{"search",         "--cluster", m_tmp.filePath("cluster.json"), "--gbs", "32", "--json",
                             full + "/s.json", "-q"};
    RUN_EXPECT(r, search, 2);
    QVERIFY2(r.err.contains("--json") && r.err.contains("is full") && !r.err.contains("write failed"),
             qPrintable(memx::test::describe(search, r)));
    const QStringList exportArgs{"export", "--plan", m_search, "--target", "megatron", "--out", full + "/exp", "-q"};
    RUN_EXPECT(e, exportArgs, 2);
    QVERIFY2(e.err.contains("--out") && e.err.contains("is full"), qPrintable(memx::test::describe(exportArgs, e)));
    QCOMPARE(QDir(full).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), QStringList{"filler"});
}

void TestCliOutputs::distinctOutputsStillWrite()
{
    // Outputs of their own, and an input read from the folder written to, work as before.
    const QStringList args{"search",
                           "--cluster",
                           m_tmp.filePath("cluster.json"),
                           "--gbs",
                           "32",
                           "--json",
                           m_tmp.filePath("a.json"),
                           "--csv",
                           m_tmp.filePath("a.csv"),
                           "--report",
                           m_tmp.filePath("a.txt"),
                           "-q"};
    RUN_EXPECT(r, args, 0);
    for (const char* f : {"a.json", "a.csv", "a.txt"})
        QVERIFY2(QFile::exists(m_tmp.filePath(f)), f);
}

MEMX_TEST_GUILESS_MAIN(TestCliOutputs)
}  // namespace tst_cli_outputs

#include "tst_cli_outputs.moc"
