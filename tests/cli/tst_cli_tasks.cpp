// memx-cli search with several sequence lengths (issue #33, "tasks are not
// knobs"): per task (the default) the report sets each task's best side by
// side and the JSON holds them in `tasks` and at the head of `best`; per
// token, one ranking whose plans carry the time they were ranked by.
#include "CliRunner.h"
#include "TestPaths.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include "TestMain.h"

namespace tst_cli_tasks {

using namespace memx::test;

namespace {
QStringList searchArgs()
{
    return {"search", "--cluster", QString::fromStdString(sampleCluster("homogeneous-8xa100.json")), "--mbs", "1",
            "--seq",  "1024,4096"};
}
QJsonObject readJson(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}
}  // namespace

class TestCliTasks : public QObject {
    Q_OBJECT
private slots:
    void perTaskSetsBestsSideBySide();
    void perTokenIsOneRanking();
    void refusesAnUnknownComparison();
};

void TestCliTasks::perTaskSetsBestsSideBySide()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString json = dir.filePath("s.json");
    RUN_EXPECT(r, (searchArgs() << "--json" << json), 0);
    QVERIFY2(r.out.contains("Training tasks:"), qPrintable(r.out));
    QVERIFY2(r.out.contains("  seq 1024 ") && r.out.contains("  seq 4096 "), qPrintable(r.out));
    QVERIFY2(r.out.contains("Most tokens per second among the tasks' best plans: seq "), qPrintable(r.out));
    QVERIFY2(r.out.contains("feasible plans of seq 1024)"), qPrintable(r.out));  // whose references
    QVERIFY2(r.out.contains("Fastest plan of seq 1024: "), qPrintable(r.out));
    const QJsonObject doc = readJson(json);
    QCOMPARE(doc["objective"].toObject()["compare_tasks"].toString(), QStringLiteral("per-task"));
    const QJsonArray tasks = doc["tasks"].toArray();
    QCOMPARE(tasks.size(), 2);
    const QJsonArray best = doc["best"].toArray();
    for (int i = 0; i < 2; ++i) {
        const QJsonObject t = tasks[i].toObject();
        QCOMPARE(t["seq_len"].toInt(), i == 0 ? 1024 : 4096);
        QVERIFY(t["found"].toBool());
        QCOMPARE(t["best_index"].toInt(), i);
        const QJsonObject p = best[i].toObject();
        QCOMPARE(p["seq_len"].toInt(), t["seq_len"].toInt());
        QCOMPARE(p["iteration_ms"].toDouble(), t["iteration_ms"].toDouble());
        // gbs 128 x seq / T.
        QCOMPARE(t["tokens_per_s"].toDouble(), 128.0 * t["seq_len"].toInt() / (t["iteration_ms"].toDouble() / 1000));
        QVERIFY(!p.contains("per_token_ms"));
    }
}

void TestCliTasks::perTokenIsOneRanking()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString json = dir.filePath("s.json");
    RUN_EXPECT(r,
               (searchArgs() << "--compare-tasks"
                             << "per-token"
                             << "--json" << json),
               0);
    QVERIFY2(!r.out.contains("Training tasks:"), qPrintable(r.out));
    const QJsonObject doc = readJson(json);
    QCOMPARE(doc["objective"].toObject()["compare_tasks"].toString(), QStringLiteral("per-token"));
    QVERIFY(!doc.contains("tasks"));
    const QJsonArray fastest = doc["fastest"].toArray();
    QVERIFY(fastest.size() >= 2);
    double previous = 0;
    for (const auto& v : fastest) {
        const QJsonObject p = v.toObject();
        const double scale = 4096.0 / p["seq_len"].toInt();
        // A 4096-token plan counts its own time; a 1024-token one four times it.
        if (scale == 1)
            QVERIFY(!p.contains("per_token_ms"));
        else
            QCOMPARE(p["per_token_ms"].toDouble(), p["iteration_ms"].toDouble() * scale);
        const double perToken = p["iteration_ms"].toDouble() * scale;
        QVERIFY(perToken >= previous);
        previous = perToken;
    }
}

void TestCliTasks::refusesAnUnknownComparison()
{
    RUN_EXPECT(r,
               (searchArgs() << "--compare-tasks"
                             << "raw"),
               2);
    QVERIFY2(r.err.contains("--compare-tasks: raw: expected per-task or per-token"), qPrintable(r.err));
}

MEMX_TEST_GUILESS_MAIN(TestCliTasks)
}  // namespace tst_cli_tasks

#include "tst_cli_tasks.moc"
