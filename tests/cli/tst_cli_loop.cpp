// The learned prediction loop through memx-cli, as a user runs it (issue #3):
// profile-plan -> simulate (with logs) -> import-logs -> train -> predict ->
// evaluate -> search --predictor, plus the refusals and bad-input paths.
// Every step runs the real executable.
#include "CliRunner.h"

#include "measure/MeasuredRun.h"
#include "measure/MeasurementCsv.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonArray>
#include <QTemporaryDir>
#include "TestMain.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace tst_cli_loop {

using memx::MeasuredRun;
using memx::Measurement;
using memx::MeasurementCsv;

namespace {

QString sample(const char* name) { return QString::fromStdString(memx::test::sampleCluster(name)); }

QJsonObject readJson(const QString& file)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

}  // namespace

class TestCliLoop : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString path(const QString& name) const { return m_dir.filePath(name); }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // Run in order: each step consumes the previous one's files.
    void profilePlan();
    void simulate();
    void importLogs();
    void train();
    void trainOnInterpolatedRowsOfUnknownOrigin();
    void trainWarnsAboutConstantMeasurements();
    void predict();
    void searchRunsPredictToTheirIterationTime();
    void evaluate();
    void searchWithPredictor();
    void searchRefusesModelOfOtherGpus();
    void badInput_data();
    void badInput();
    void profilePlanOfUnfusedAttentionWithDropout();
};

void TestCliLoop::profilePlan()
{
    const QStringList args{"profile-plan",   "--cluster", sample("homogeneous-8xa100.json"),
                           "--model",        "llama2-7b", "--out",
                           path("runs.csv"), "--scripts", path("scripts")};
    RUN_EXPECT(r, args, 0);
    // The key-parameter table and the sampling summary against exhaustive profiling.
    QVERIFY2(r.out.contains("impact (threshold 10%)"), qPrintable(r.out));
    QVERIFY(r.out.contains("three-point sampling"));
    QVERIFY(r.out.contains("exhaustive"));
    QVERIFY(r.out.contains("GPU-hours"));
    const auto set = MeasurementCsv::read(path("runs.csv").toStdString(), MeasurementCsv::Kind::RunList);
    QVERIFY(set.rows.size() > 10);
    // Three-point sampling of 6 axes is at most 3^6 = 729 runs (before dropping invalid and OOM ones).
    QVERIFY(set.rows.size() <= 729);
    for (const Measurement& m : set.rows) {
        QVERIFY(!m.hasTarget());
        QVERIFY(m.estimatedGpuHours && *m.estimatedGpuHours > 0);
        QCOMPARE(m.pp, 1);  // profiling runs are single-stage
        QCOMPARE(m.numGpus, m.tp);
        QCOMPARE(m.gpuType, std::string("A100-80GB"));
    }
    // One executable Megatron-LM launch script per run.
    const QStringList scripts = QDir(path("scripts")).entryList({"*.sh"}, QDir::Files);
    QCOMPARE(scripts.size(), static_cast<qsizetype>(set.rows.size()));
    QFile f(QDir(path("scripts")).filePath(scripts.first()));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(f.readAll());
    QVERIFY(text.startsWith("#!/bin/bash"));
    QVERIFY(text.contains("--tensor-model-parallel-size"));
    QVERIFY(text.contains("--timing-log-option all"));
    QVERIFY(f.permissions() & QFileDevice::ExeOwner);
}

void TestCliLoop::simulate()
{
    const QStringList args{"simulate",
                           "--cluster",
                           sample("homogeneous-8xa100.json"),
                           "--model",
                           "llama2-7b",
                           "--runs",
                           path("runs.csv"),
                           "--out",
                           path("sim.csv"),
                           "--logs",
                           path("logs"),
                           "--seed",
                           "7"};
    RUN_EXPECT(r, args, 0);
    const auto set = MeasurementCsv::read(path("sim.csv").toStdString());
    QVERIFY(!set.rows.empty());
    std::size_t runRows = 0;
    for (const Measurement& m : set.rows) {
        QCOMPARE(m.source, memx::MeasurementSource::Simulated);
        if (!m.isStageRow()) {
            ++runRows;
            QVERIFY(m.iterationTimeMs && m.peakMemMiB);
        } else {
            QVERIFY(m.stageTimeMs && m.peakMemMiB);
        }
    }
    QCOMPARE(QDir(path("logs")).entryList({"*.log"}, QDir::Files).size(), static_cast<qsizetype>(runRows));
}

void TestCliLoop::importLogs()
{
    QStringList args{"import-logs", "--runs", path("runs.csv"), "--out", path("imported.csv")};
    for (const QString& log : QDir(path("logs")).entryList({"*.log"}, QDir::Files))
        args << QDir(path("logs")).filePath(log);
    RUN_EXPECT(r, args, 0);
    // The logs the simulator wrote give back the simulator's numbers: the
    // stage peaks to the printed precision (MB with two decimals) and the
    // median iteration time to its printed precision (ms with one decimal).
    const auto sim = MeasurementCsv::read(path("sim.csv").toStdString());
    const auto imported = MeasurementCsv::read(path("imported.csv").toStdString());
    std::map<std::pair<std::string, int>, const Measurement*> byKey;
    for (const Measurement& m : sim.rows)
        byKey[{m.runId, m.stage.value_or(-1)}] = &m;
    QCOMPARE(imported.rows.size(), sim.rows.size());
    for (const Measurement& m : imported.rows) {
        const Measurement* s = byKey.at({m.runId, m.stage.value_or(-1)});
        QCOMPARE(m.source, memx::MeasurementSource::Measured);
        if (m.isStageRow()) {
            QVERIFY2(std::abs(*m.peakMemMiB - *s->peakMemMiB) <= 0.006, m.runId.c_str());
        } else {
            QVERIFY2(std::abs(*m.iterationTimeMs - *s->iterationTimeMs) <= 0.05 + 1e-9, m.runId.c_str());
        }
    }
}

void TestCliLoop::train()
{
    const QStringList args{"train",    "--measurements",   path("sim.csv"), "--out", path("model.json"),
                           "--report", path("train.json"), "--trials",      "3",     "--folds",
                           "3"};
    RUN_EXPECT(r, args, 0);
    QVERIFY(r.out.contains("cross-validation by run"));
    const QJsonObject model = readJson(path("model.json"));
    QCOMPARE(model["format"].toString(), QString("memx-predictor/1"));
    QCOMPARE(model["feature_schema"].toString(), QString("memx-stage-features/3"));
    const QJsonObject trained = model["trained_on"].toObject();
    QCOMPARE(trained["gpu_types"].toArray(), QJsonArray({"A100-80GB"}));
    const QJsonObject shape = trained["models"].toArray().at(0).toObject();
    QCOMPARE(shape["hidden"].toInt(), 4096);  // LLaMA2-7B
    QCOMPARE(shape["heads"].toInt(), 32);
    QCOMPARE(trained["data_hash"].toString().size(), 16);
    // Three trials of the Bayesian optimiser, each scored by cross-validation.
    const QJsonObject report = readJson(path("train.json"));
    QCOMPARE(report["trials"].toArray().size(), 3);
    QVERIFY(report["cross_validation"].toObject()["time_mape_pct"].toDouble() > 0);
    QVERIFY(report["importance_gain"].toObject().contains("tp"));
}

// A file that already holds interpolated rows (written by another tool, or
// by an earlier --augment) does not say which runs they were made from:
// train says so, still trains on them, and keeps them out of every
// cross-validation fold, so the folds score the measured runs alone.
void TestCliLoop::trainOnInterpolatedRowsOfUnknownOrigin()
{
    auto set = MeasurementCsv::read(path("sim.csv").toStdString());
    std::vector<std::string> ids;
    for (const Measurement& m : set.rows)
        if (std::find(ids.begin(), ids.end(), m.runId) == ids.end())
            ids.push_back(m.runId);
    QVERIFY(ids.size() >= 5);
    std::vector<Measurement> measuredOnly;
    for (Measurement& m : set.rows) {
        if (m.runId == ids[0] || m.runId == ids[1])
            m.source = memx::MeasurementSource::Interpolated;
        else
            measuredOnly.push_back(m);
    }
    auto write = [&](const QString& name, const std::vector<Measurement>& rows) {
        QFile f(path(name));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(MeasurementCsv::write(rows)));
    };
    write("sim_interp.csv", set.rows);
    write("sim_measured.csv", measuredOnly);
    const QStringList args{"train",
                           "--measurements",
                           path("sim_interp.csv"),
                           "--out",
                           path("model_interp.json"),
                           "--no-tune",
                           "--folds",
                           "3"};
    RUN_EXPECT(r, args, 0);
    QVERIFY2(r.err.contains("2 interpolated run(s) read from the file do not say which runs they were made from"),
             qPrintable(describe(args, r)));
    QVERIFY2(r.out.contains(QString("trained on %1 runs").arg(ids.size())), qPrintable(describe(args, r)));
    QVERIFY2(r.out.contains("read from the file"), qPrintable(describe(args, r)));
    // The folds score and train on the measured runs alone: the same
    // figures as training on the file without the interpolated runs.
    const QStringList alone{"train",
                            "--measurements",
                            path("sim_measured.csv"),
                            "--out",
                            path("model_measured.json"),
                            "--no-tune",
                            "--folds",
                            "3"};
    RUN_EXPECT(m, alone, 0);
    auto cvLine = [](const QString& out) {
        for (const QString& line : out.split('\n'))
            if (line.contains("cross-validation by run"))
                return line;
        return QString();
    };
    QVERIFY2(!cvLine(m.out).isEmpty(), qPrintable(describe(alone, m)));
    QCOMPARE(cvLine(r.out), cvLine(m.out));
}

// One value in every run's iteration time although the configurations
// differ: almost surely a mistake in the file (a column filled from one run),
// and train says so, naming the file.
void TestCliLoop::trainWarnsAboutConstantMeasurements()
{
    auto set = MeasurementCsv::read(path("sim.csv").toStdString());
    for (Measurement& m : set.rows)
        if (!m.isStageRow())
            m.iterationTimeMs = 1234.0;
    QFile f(path("constant.csv"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QByteArray::fromStdString(MeasurementCsv::write(set.rows)));
    f.close();
    const QStringList args{"train", "--measurements",      path("constant.csv"),
                           "--out", path("constant.json"), "--no-tune"};
    RUN_EXPECT(r, args, 0);
    QVERIFY2(r.err.contains("constant.csv: warning: every measured iteration time (ms) is 1234 across"),
             qPrintable(describe(args, r)));
    // The file as simulated varies: no warning.
    const QStringList plain{"train", "--measurements", path("sim.csv"), "--out", path("plain.json"), "--no-tune"};
    RUN_EXPECT(p, plain, 0);
    QVERIFY2(!p.err.contains("warning: every measured"), qPrintable(describe(plain, p)));
}

void TestCliLoop::predict()
{
    const QStringList args{"predict",        "--model", path("model.json"), "--queries",
                           path("runs.csv"), "--out",   path("pred.csv")};
    RUN_EXPECT(r, args, 0);
    const auto runs = MeasurementCsv::read(path("runs.csv").toStdString(), MeasurementCsv::Kind::RunList);
    const auto pred = MeasurementCsv::read(path("pred.csv").toStdString(), MeasurementCsv::Kind::RunList);
    QCOMPARE(pred.rows.size(), runs.rows.size());
    for (std::size_t i = 0; i < pred.rows.size(); ++i) {
        QCOMPARE(pred.rows[i].runId, runs.rows[i].runId);  // rows written back in order, keyed by run_id
        QVERIFY(pred.rows[i].iterationTimeMs && *pred.rows[i].iterationTimeMs > 0);
        QVERIFY(pred.rows[i].peakMemMiB && *pred.rows[i].peakMemMiB > 0);
        QCOMPARE(pred.rows[i].provenance, std::string("learned"));
        QVERIFY(pred.rows[i].uncertainty && *pred.rows[i].uncertainty > 0);
    }
    // --model analytic answers the same rows with the analytic model.
    const QStringList a{"predict", "--model", "analytic", "--queries", path("runs.csv"), "--out", path("pa.csv")};
    RUN_EXPECT(ra, a, 0);
    const auto pa = MeasurementCsv::read(path("pa.csv").toStdString(), MeasurementCsv::Kind::RunList);
    QCOMPARE(pa.rows.front().provenance, std::string("analytic"));
}

// search --runs-out writes each plan as a run row and its stage rows;
// predict on the same cluster then answers every plan with the iteration
// time the search gave it (one composition), including a mixed A100 + V100
// plan whose V100 stage runs unfused attention.
void TestCliLoop::searchRunsPredictToTheirIterationTime()
{
    const QString cluster = path("mix.json");
    {
        QFile f(cluster);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"format":"memx-cluster/1","name":"mix","nodes":[
            {"name":"a","gpus":[{"type":"A100-80GB","count":4}]},{"name":"v","gpus":[{"type":"V100-32GB","count":4}]}],
            "links":[{"name":"nva","kind":"NVLink","within":"a","bandwidth_gbps":300,"latency_us":3},
                     {"name":"nvv","kind":"NVLink","within":"v","bandwidth_gbps":150,"latency_us":3},
                     {"name":"ib","kind":"InfiniBand","between":["a","v"],"bandwidth_gbps":25,"latency_us":5}]})");
    }
    // A run list holds plans with one TP and DP per stage: per GPU type (the
    // default) the per-mesh plans are left out and counted on stderr, and the
    // plans written are uniform ones.
    const QStringList perType{"search", "--cluster", cluster, "--model",    "llama2-7b",          "--gbs",
                              "32",     "--top",     "3",     "--runs-out", path("per-type.csv"), "--runs-count",
                              "40"};
    RUN_EXPECT(rt, perType, 0);
    QVERIFY2(rt.err.contains(QStringLiteral("per-mesh plan(s) left out")), qPrintable(rt.err));
    const auto written = MeasurementCsv::read(path("per-type.csv").toStdString(), MeasurementCsv::Kind::RunList);
    // Every run reads back (the reader refuses a run whose stages differ in TP).
    QVERIFY(!MeasuredRun::group(written.rows, "per-type.csv").empty());
    // Uniform: plan001 is the first best plan, and so on.
    const QStringList search{"search",          "--cluster",    cluster, "--model", "llama2-7b",
                             "--gbs",           "32",           "--top", "3",       "--runs-out",
                             path("plans.csv"), "--runs-count", "3",     "--json",  path("plans.json"),
                             "--meshes",        "uniform"};
    RUN_EXPECT(rs, search, 0);
    const QStringList predict{"predict",   "--queries", path("plans.csv"), "--out", path("plans-pred.csv"),
                              "--cluster", cluster};
    RUN_EXPECT(rp, predict, 0);
    const auto pred = MeasurementCsv::read(path("plans-pred.csv").toStdString(), MeasurementCsv::Kind::RunList);
    const QJsonArray best = readJson(path("plans.json"))["best"].toArray();
    QVERIFY(best.size() >= 3);
    int runRows = 0;
    for (const Measurement& m : pred.rows) {
        if (m.stage)
            continue;
        const int k = QString::fromStdString(m.runId).mid(4).toInt() - 1;  // plan001 is the first best plan
        QVERIFY(k >= 0 && k < best.size());
        QVERIFY2(m.iterationTimeMs, m.runId.c_str());
        const double searched = best[k].toObject()["iteration_ms"].toDouble();
        QVERIFY2(std::abs(*m.iterationTimeMs - searched) < 1e-6 * searched,
                 qPrintable(QString("%1: predict %2 ms, search %3 ms")
                                .arg(QString::fromStdString(m.runId))
                                .arg(*m.iterationTimeMs)
                                .arg(searched)));
        ++runRows;
    }
    QCOMPARE(runRows, 3);
}

void TestCliLoop::evaluate()
{
    // On its own training data the learned model must be far closer than the
    // analytic one (the simulator has behaviour the analytic model lacks).
    const QStringList learned{"evaluate",      "--model", path("model.json"), "--truth",
                              path("sim.csv"), "--json",  path("el.json")};
    RUN_EXPECT(rl, learned, 0);
    const QStringList analytic{"evaluate",      "--model", "analytic",     "--truth",
                               path("sim.csv"), "--json",  path("ea.json")};
    RUN_EXPECT(ra, analytic, 0);
    QVERIFY(rl.out.contains("MAPE"));
    const double lt = readJson(path("el.json"))["iteration_time"].toObject()["mape_pct"].toDouble();
    const double at = readJson(path("ea.json"))["iteration_time"].toObject()["mape_pct"].toDouble();
    const double lm = readJson(path("el.json"))["memory"].toObject()["mape_pct"].toDouble();
    const double am = readJson(path("ea.json"))["memory"].toObject()["mape_pct"].toDouble();
    QVERIFY2(lt < 5 && lt < at / 2, qPrintable(QString("time MAPE learned %1 analytic %2").arg(lt).arg(at)));
    QVERIFY2(lm < 5 && lm < am, qPrintable(QString("memory MAPE learned %1 analytic %2").arg(lm).arg(am)));
    // The ranking decisions are in both the text and the JSON.
    const QJsonObject dec = readJson(path("el.json"))["decisions"].toObject();
    QVERIFY(dec.contains("groups") && dec.contains("single_run_groups") && dec.contains("regret_median_pct"));
    QVERIFY(dec["groups"].toInt() + dec["single_run_groups"].toInt() > 0);
    QVERIFY2(rl.out.contains("ranking decisions"), qPrintable(rl.out));
}

void TestCliLoop::searchWithPredictor()
{
    const QStringList args{"search",
                           "--cluster",
                           sample("homogeneous-8xa100.json"),
                           "--gbs",
                           "64",
                           "--predictor",
                           path("model.json"),
                           "--stats",
                           "--top",
                           "3"};
    RUN_EXPECT(r, args, 0);
    QVERIFY2(r.out.contains("learned prediction"), qPrintable(r.out.left(3000)));
    QVERIFY(r.out.contains("prediction cache"));
}

void TestCliLoop::searchRefusesModelOfOtherGpus()
{
    // The model knows A100-80GB only; this cluster has V100 and T4.
    const QStringList args{"search",      "--cluster",       sample("paper-6gpu-v100-t4.json"), "--gbs", "32",
                           "--predictor", path("model.json")};
    RUN_EXPECT(r, args, 2);
    QVERIFY2(r.err.contains(path("model.json")), qPrintable(r.err));
    QVERIFY(r.err.contains("no measurement of"));
    QVERIFY(r.err.contains("V100-32GB"));
    // Another model structure is refused too.
    const QStringList other{"search",          "--cluster",  sample("homogeneous-8xa100.json"),
                            "--model",         "llama2-13b", "--predictor",
                            path("model.json")};
    RUN_EXPECT(r2, other, 2);
    QVERIFY2(r2.err.contains("not a structure the predictor was trained on"), qPrintable(r2.err));
}

void TestCliLoop::badInput_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("fileContent");  // written to bad.* first when not empty
    QTest::addColumn<QString>("expected");  // in stderr

    const QString bad = path("bad.csv");
    QTest::newRow("measurements: bad number")
        << QStringList{"train", "--measurements", bad, "--out", path("x.json")}
        << "run_id,gpu_type,num_gpus,tp,pp,dp,mbs,gbs,seq_len,num_layers,hidden,heads,vocab,iteration_time_ms\n"
           "r1,A100-80GB,1,1,1,1,1,4,2048,4,4096,32,32000,fast\n"
        << "line 2, column iteration_time_ms";
    QTest::newRow("measurements: unknown gpu only")
        << QStringList{"train", "--measurements", bad, "--out", path("x.json")}
        << "run_id,gpu_type,num_gpus,tp,pp,dp,mbs,gbs,seq_len,num_layers,hidden,heads,vocab,iteration_time_ms\n"
           "r1,NoSuchGPU,1,1,1,1,1,4,2048,4,4096,32,32000,100\n"
        << "unknown GPU type \"NoSuchGPU\"";
    QTest::newRow("model file missing") << QStringList{"predict",        "--model", path("nope.json"), "--queries",
                                                       path("runs.csv"), "--out",   path("y.csv")}
                                        << QString() << "nope.json";
    QTest::newRow("model file corrupt")
        << QStringList{"evaluate", "--model", path("bad.csv"), "--truth", path("sim.csv")}
        << "{\"format\": \"memx-predictor/1\", \"feature_schema\": \"memx-stage-features/0\"}"
        << "feature_schema";
    QTest::newRow("log named after no run")
        << QStringList{"import-logs", "--runs", path("runs.csv"), "--out", path("z.csv"), bad}
        << "iteration 1/ 10 | elapsed time per iteration (ms): 100.0 |\n"
        << "no run \"bad\"";
    // Every run of the file in a precision its GPUs lack: nothing can be
    // scored or predicted, and the tools say so instead of a perfect score
    // or an empty file.
    const QString fp8Runs = "run_id,gpu_type,num_gpus,tp,pp,dp,mbs,gbs,seq_len,num_layers,hidden,heads,vocab,"
                            "iteration_time_ms,precision\n"
                            "f1,A100-80GB,8,1,1,8,1,32,2048,4,4096,32,32000,100,fp8\n";
    QTest::newRow("evaluate: nothing scored")
        << QStringList{"evaluate", "--truth", bad} << fp8Runs << "no run could be scored";
    QTest::newRow("predict: nothing predicted")
        << QStringList{"predict", "--queries", bad, "--out", path("p.csv")} << fp8Runs
        << "run f1 not predicted: every GPU of a job trains in one precision, and fp8 is not available on A100-80GB";
    QTest::newRow("evaluate: header only")
        << QStringList{"evaluate", "--truth", bad}
        << "run_id,gpu_type,num_gpus,tp,pp,dp,mbs,gbs,seq_len,num_layers,hidden,heads,vocab,iteration_time_ms\n"
        << "holds no run (a header and no rows)";
    QTest::newRow("train: header only")
        << QStringList{"train", "--measurements", bad, "--out", path("x.json")}
        << "run_id,gpu_type,num_gpus,tp,pp,dp,mbs,gbs,seq_len,num_layers,hidden,heads,vocab,iteration_time_ms\n"
        << "the file holds no run to train on";
    QTest::newRow("profile-plan: dropout rate of 1")
        << QStringList{"profile-plan",     "--cluster", sample("homogeneous-8xa100.json"), "--out", path("r.csv"),
                       "--hidden-dropout", "1"}
        << QString() << "--hidden-dropout: 1: a dropout rate must be in [0, 1)";
}

void TestCliLoop::badInput()
{
    QFETCH(QStringList, args);
    QFETCH(QString, fileContent);
    QFETCH(QString, expected);
    if (!fileContent.isEmpty()) {
        QFile f(path("bad.csv"));
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(fileContent.toUtf8());
    }
    RUN_EXPECT(r, args, 2);
    QVERIFY2(r.err.contains(expected), qPrintable(r.err));
}

// The runs measure the training to be predicted: a user who trains without
// FlashAttention and with dropout gets runs (and launch scripts) of that
// training, not of Megatron's defaults.
void TestCliLoop::profilePlanOfUnfusedAttentionWithDropout()
{
    const QStringList args{"profile-plan",
                           "--cluster",
                           sample("homogeneous-8xa100.json"),
                           "--model",
                           "llama2-7b",
                           "--out",
                           path("unfused.csv"),
                           "--scripts",
                           path("unfused"),
                           "--no-flash-attention",
                           "--attention-dropout",
                           "0.1",
                           "--hidden-dropout",
                           "0.05",
                           "--no-sequence-parallel"};
    RUN_EXPECT(r, args, 0);
    const auto set = MeasurementCsv::read(path("unfused.csv").toStdString(), MeasurementCsv::Kind::RunList);
    QVERIFY(!set.rows.empty());
    for (const Measurement& m : set.rows) {
        QVERIFY(!m.flashAttention);
        QCOMPARE(m.attentionDropout, 0.1);
        QCOMPARE(m.hiddenDropout, 0.05);
        QVERIFY(!m.sequenceParallel);
    }
    const QStringList scripts = QDir(path("unfused")).entryList({"*.sh"}, QDir::Files);
    QCOMPARE(scripts.size(), static_cast<qsizetype>(set.rows.size()));
    for (const QString& name : scripts) {
        QFile f(QDir(path("unfused")).filePath(name));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(f.readAll());
        QVERIFY2(text.contains("--attention-backend unfused"), qPrintable(name));
        QVERIFY2(text.contains("--attention-dropout 0.1 "), qPrintable(name));
        QVERIFY2(text.contains("--hidden-dropout 0.05 "), qPrintable(name));
        QVERIFY2(!text.contains("--sequence-parallel"), qPrintable(name));
    }
    // The runs of TP > 1 are the ones sequence parallelism tells apart; the
    // FlashAttention plan (profilePlan above) runs them with it.
    QVERIFY(std::any_of(set.rows.begin(), set.rows.end(), [](const Measurement& m) { return m.tp > 1; }));
    QVERIFY(QString::fromUtf8([&] {
                QFile f(path("runs.csv"));
                return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
            }())
                .contains("sequence_parallel")
            == false);
    // Unfused attention keeps the s x s scores: fewer runs fit than with
    // FlashAttention, whose plan (profilePlan above) left out fewer.
    const auto flash = MeasurementCsv::read(path("runs.csv").toStdString(), MeasurementCsv::Kind::RunList);
    QVERIFY2(set.rows.size() < flash.rows.size(), qPrintable(r.out));
}

MEMX_TEST_GUILESS_MAIN(TestCliLoop)
}  // namespace tst_cli_loop

#include "tst_cli_loop.moc"
