// End-to-end tests of memx-cli: every test runs the real executable with QProcess
// and checks its exit code, its stdout/stderr and the files it writes.
//
// Exit codes under test: 0 ok, 1 no feasible plan, 2 bad input.
#include "CliOutput.h"
#include "CliRunner.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QStringList>
#include <QTemporaryDir>
#include "TestMain.h"

#include <memory>

namespace tst_cli {

namespace {

using memx::test::cli;
using memx::test::CliResult;
using memx::test::describe;
using memx::test::runCli;

using memx::test::parseTable;
using memx::test::PlanTable;
using memx::test::readJson;
using memx::test::sample;
using namespace memx::test::columns;

}  // namespace

class TestCli : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    // One full search shared by several tests: paper-20gpu-3vendor, llama2-7b, gbs 128, top 5.
    QStringList m_mainArgs;
    CliResult m_main;
    QString m_mainJson, m_mainCsv;

    QString tmp(const QString& name) const { return m_tmp.filePath(name); }
    void writeFile(const QString& name, const QByteArray& content)
    {
        QFile f(tmp(name));
        QVERIFY2(f.open(QIODevice::WriteOnly | QIODevice::Truncate), qPrintable(tmp(name)));
        f.write(content);
    }
    // %TMP% -> the temp dir, %SAMPLES% -> sample_clusters.
    QStringList expand(QStringList args) const
    {
        const QString samples = QFileInfo(sample(QStringLiteral("x.json"))).absolutePath();
        for (auto& a : args) {
            a.replace(QStringLiteral("%TMP%"), m_tmp.path());
            a.replace(QStringLiteral("%SAMPLES%"), samples);
        }
        return args;
    }

private slots:
    void initTestCase();

    // search: the happy path
    void searchTableHeader_data();
    void searchTableHeader();
    void searchTableHasTopRows();
    void searchStatesThePriceAndConstraints();
    void searchJsonStructure();
    void searchJsonParetoTimeVariance();
    void searchCsv();
    void searchSimplex();
    void preAmpereGpusRunUnfusedAttention();
    void overlapHidesDataParallelSync();
    void searchRefusesBadEpsilon_data();
    void searchRefusesBadEpsilon();
    void searchCountsAttentionAndDropout_data();
    void searchCountsAttentionAndDropout();
    void searchStats_data();
    void searchStats();

    // bad input -> 2
    void badInput_data();
    void badInput();
    void tooLittleMemoryIsAnErrorNotAnAbort();

    // no feasible plan -> 1
    void noFeasiblePlan_data();
    void noFeasiblePlan();

    // catalog commands
    void validateSampleClusters_data();
    void validateSampleClusters();
    void gpusListsCatalog_data();
    void gpusListsCatalog();
    void modelsListsPresets_data();
    void modelsListsPresets();
    void versionFlag();
    void help_data();
    void help();

    // atomic output
    void jsonIntoMissingDirectoryIsCreated_data();
    void jsonIntoMissingDirectoryIsCreated();
    void secondRunOverwritesCleanly();
    void jsonOntoDirectoryIsBadInput();
    void keepIsCappedByItsMemory();
};

void TestCli::initTestCase()
{
    QVERIFY2(QFileInfo(cli()).isExecutable(), qPrintable(cli() + QStringLiteral(" is not an executable")));
    QVERIFY(m_tmp.isValid());

    // --- bad cluster / model files ---
    writeFile(QStringLiteral("malformed.json"),
              "{\n"
              "  \"format\": \"memx-cluster/1\",\n"
              "  \"name\": \"malformed\",\n"
              "  \"nodes\": [ {\"name\": \"n\", \"gpus\": [ {\"type\": \"A100-80GB\", \"count\": 2} ] } ]\n"
              "  \"links\": []\n"
              "}\n");
    writeFile(
        QStringLiteral("unknown-gpu.json"),
        R"({"format":"memx-cluster/1","name":"u","nodes":[{"name":"n","gpus":[{"type":"Quantum-9000","count":2}]}],"links":[]})");
    writeFile(QStringLiteral("link-bad-device.json"),
              R"({"format":"memx-cluster/1","name":"u","nodes":[{"name":"n","gpus":[{"type":"A100-80GB","count":2}]}],)"
              R"("links":[{"name":"l","kind":"PCIe","between":["n:0","n:7"],"bandwidth_gbps":16,"latency_us":5}]})");
    writeFile(QStringLiteral("link-bad-node.json"),
              R"({"format":"memx-cluster/1","name":"u","nodes":[{"name":"n","gpus":[{"type":"A100-80GB","count":2}]}],)"
              R"("links":[{"name":"l","kind":"PCIe","between":["n:0","zz:0"],"bandwidth_gbps":16,"latency_us":5}]})");
    writeFile(QStringLiteral("zero-bandwidth.json"),
              R"({"format":"memx-cluster/1","name":"u","nodes":[{"name":"n","gpus":[{"type":"A100-80GB","count":2}]}],)"
              R"("links":[{"name":"l","kind":"PCIe","within":"n","bandwidth_gbps":0,"latency_us":5}]})");
    writeFile(QStringLiteral("negative-bandwidth.json"),
              R"({"format":"memx-cluster/1","name":"u","nodes":[{"name":"n","gpus":[{"type":"A100-80GB","count":2}]}],)"
              R"("links":[{"name":"l","kind":"PCIe","within":"n","bandwidth_gbps":-5,"latency_us":5}]})");
    writeFile(
        QStringLiteral("ok-2xa100.json"),
        R"({"format":"memx-cluster/1","name":"two","nodes":[{"name":"n","gpus":[{"type":"A100-80GB","count":2}]}],)"
        R"("links":[{"name":"l","kind":"NVLink","within":"n","bandwidth_gbps":100,"latency_us":5}]})");
    // Two nodes joined by InfiniBand, nothing inside either node.
    writeFile(
        QStringLiteral("no-intra-links.json"),
        R"({"format":"memx-cluster/1","name":"bare","nodes":[{"name":"a","gpus":[{"type":"A100-80GB","count":8}]},)"
        R"({"name":"h","gpus":[{"type":"H20","count":8}]}],)"
        R"("links":[{"name":"ib","kind":"InfiniBand","between":["a","h"],"bandwidth_gbps":25,"latency_us":5}]})");
    writeFile(
        QStringLiteral("model-bad-groups.json"),
        R"({"format":"memx-model/1","name":"odd","num_layers":4,"hidden":1024,"heads":16,"query_groups":5,"vocab":32000})");

    // --- the shared main search ---
    m_mainJson = tmp(QStringLiteral("main/search.json"));
    m_mainCsv = tmp(QStringLiteral("main/search.csv"));
    m_mainArgs = {QStringLiteral("search"),
                  QStringLiteral("--cluster"),
                  sample(QStringLiteral("paper-20gpu-3vendor.json")),
                  QStringLiteral("--model"),
                  QStringLiteral("llama2-7b"),
                  QStringLiteral("--gbs"),
                  QStringLiteral("128"),
                  QStringLiteral("--top"),
                  QStringLiteral("5"),
                  QStringLiteral("--stats"),
                  QStringLiteral("--json"),
                  m_mainJson,
                  QStringLiteral("--csv"),
                  m_mainCsv};
    m_main = runCli(m_mainArgs);
    QVERIFY2(m_main.finished && m_main.exitStatus == QProcess::NormalExit && m_main.exitCode == 0,
             qPrintable(describe(m_mainArgs, m_main)));
}

// ---------------------------------------------------------------------------
// search: happy path
// ---------------------------------------------------------------------------

void TestCli::searchTableHeader_data()
{
    QTest::addColumn<QString>("column");
    for (const char* c : {"TP", "PP", "DP", "mbs", "seq", "sched", "stage order", "layers", "recomp", "T(ms)", "tok/s",
                          "M(GiB)", "V", "Phi", "rankT"})
        QTest::newRow(c) << QString::fromLatin1(c);
}

void TestCli::searchTableHeader()
{
    QFETCH(QString, column);
    QCOMPARE(m_main.exitCode, 0);
    const PlanTable t = parseTable(m_main.out);
    QVERIFY2(!t.header.isEmpty(), qPrintable(QStringLiteral("no table header in:\n") + m_main.out));
    // A whole column name: preceded by whitespace/start, followed by whitespace, '(' (units) or end.
    const QRegularExpression re(QStringLiteral("(^|\\s)") + QRegularExpression::escape(column)
                                + QStringLiteral("(\\s|\\(|$)"));
    QVERIFY2(re.match(t.header).hasMatch(),
             qPrintable(QStringLiteral("column '%1' missing from header: %2").arg(column, t.header)));
}

void TestCli::searchTableHasTopRows()
{
    const PlanTable t = parseTable(m_main.out);
    QVERIFY2(t.rows.size() == 5,
             qPrintable(
                 QStringLiteral("expected 5 plan rows (--top 5), got %1:\n%2").arg(t.rows.size()).arg(m_main.out)));
    double prevPhi = -1;
    for (int i = 0; i < t.rows.size(); ++i) {
        const QStringList& row = t.rows[i];
        QVERIFY2(row.size() > cRankT, qPrintable(row.join(QLatin1Char(' '))));
        QCOMPARE(row[cRank].toInt(), i + 1);
        // layers column sums to llama2-7b's 32 layers and has PP entries
        const QStringList layers = row[cLayers].split(QLatin1Char(','));
        QCOMPARE(layers.size(), row[cPP].toInt());
        int sum = 0;
        for (const auto& l : layers)
            sum += l.toInt();
        QCOMPARE(sum, 32);
        // TP x PP x DP never exceeds the 20 GPUs
        QVERIFY(row[cTP].toInt() * row[cPP].toInt() * row[cDP].toInt() <= 20);
        // rows are ranked by Phi
        bool ok = false;
        const double phi = row[cPhi].toDouble(&ok);
        QVERIFY2(ok, qPrintable(row[cPhi]));
        QVERIFY2(phi >= prevPhi, qPrintable(QStringLiteral("Phi not ascending at row %1").arg(i + 1)));
        prevPhi = phi;
        // Tokens per second beside the time: global batch 128 x seq / T.
        const double tokens = 128.0 * row[cSeq].toDouble() / (row[cT].toDouble() / 1000);
        QVERIFY2(std::abs(row[cTokens].toDouble() - tokens) <= 0.5 + 1e-4 * tokens,
                 qPrintable(row[cTokens] + QStringLiteral(" vs ") + QString::number(tokens)));
    }
}

void TestCli::searchJsonStructure()
{
    QJsonObject d;
    QString why;
    QVERIFY2(readJson(m_mainJson, d, why), qPrintable(why));
    QCOMPARE(d.value(QStringLiteral("format")).toString(), QStringLiteral("memx-search/2"));

    const QJsonArray best = d.value(QStringLiteral("best")).toArray();
    QVERIFY2(!best.isEmpty(), "\"best\" is empty");
    const QJsonObject first = best.first().toObject();
    QCOMPARE(first.value(QStringLiteral("rank_phi")).toInt(), 1);
    const QJsonArray stages = first.value(QStringLiteral("stages")).toArray();
    QVERIFY(!stages.isEmpty());
    QCOMPARE(stages.size(), first.value(QStringLiteral("pp")).toInt());
    int layers = 0;
    for (const auto& sv : stages) {
        const QJsonObject s = sv.toObject();
        layers += s.value(QStringLiteral("layers")).toInt();
        const double peak = s.value(QStringLiteral("peak_mib")).toDouble(-1);
        const double cap = s.value(QStringLiteral("capacity_mib")).toDouble(-1);
        QVERIFY2(peak > 0 && cap > 0, "stage without peak_mib / capacity_mib");
        QVERIFY2(peak <= cap,
                 qPrintable(QStringLiteral("stage %1 on %2: peak %3 MiB > capacity %4 MiB")
                                .arg(s.value(QStringLiteral("slice")).toInt())
                                .arg(s.value(QStringLiteral("gpu_type")).toString())
                                .arg(peak)
                                .arg(cap)));
    }
    QCOMPARE(layers, 32);

    // "best" is ranked by Phi; every plan carries tokens per second beside
    // its iteration time: global batch x sequence length / T.
    double prev = -1;
    for (const auto& pv : best) {
        const QJsonObject p = pv.toObject();
        const double phi = p.value(QStringLiteral("phi")).toDouble();
        QVERIFY(phi >= prev);
        prev = phi;
        const double tokens
            = p["global_batch"].toDouble() * p["seq_len"].toDouble() / (p["iteration_ms"].toDouble() / 1000);
        QVERIFY2(std::abs(p["tokens_per_s"].toDouble() - tokens) <= 1e-9 * tokens,
                 qPrintable(QString::number(p["tokens_per_s"].toDouble())));
    }

    const QJsonObject stats = d.value(QStringLiteral("stats")).toObject();
    QVERIFY2(stats.contains(QStringLiteral("explored")) && stats.contains(QStringLiteral("feasible")),
             "stats lacks explored/feasible");
    const double explored = stats.value(QStringLiteral("explored")).toDouble();
    const double feasible = stats.value(QStringLiteral("feasible")).toDouble();
    QVERIFY(explored > 0);
    QVERIFY(feasible > 0);
    // Feasible candidates are counted, not visited: the branch and bound
    // composes only the few it cannot rule out.
    QVERIFY2(explored <= feasible, "more candidates composed than there are feasible ones");

    const QJsonObject objective = d.value(QStringLiteral("objective")).toObject();
    QCOMPARE(objective.value(QStringLiteral("profile_used")).toString(), QStringLiteral("default"));
}

void TestCli::searchJsonParetoTimeVariance()
{
    QJsonObject d;
    QString why;
    QVERIFY2(readJson(m_mainJson, d, why), qPrintable(why));
    const QJsonArray pts = d.value(QStringLiteral("pareto_time_variance")).toArray();
    QVERIFY2(pts.size() >= 2, "pareto_time_variance has fewer than 2 points");
    double prevT = -1, prevV = 0;
    for (int i = 0; i < pts.size(); ++i) {
        const QJsonObject p = pts[i].toObject();
        QVERIFY2(p.contains(QStringLiteral("iteration_ms")) && p.contains(QStringLiteral("mem_variance")),
                 "pareto point without iteration_ms / mem_variance");
        const double t = p.value(QStringLiteral("iteration_ms")).toDouble();
        const double v = p.value(QStringLiteral("mem_variance")).toDouble();
        QVERIFY2(t >= prevT,
                 qPrintable(QStringLiteral("point %1: iteration_ms %2 < previous %3").arg(i).arg(t).arg(prevT)));
        if (i > 0)
            QVERIFY2(v < prevV,
                     qPrintable(
                         QStringLiteral("point %1: mem_variance %2 not below previous %3").arg(i).arg(v).arg(prevV)));
        prevT = t;
        prevV = v;
    }
}

void TestCli::searchCsv()
{
    QFile f(m_mainCsv);
    QVERIFY2(f.open(QIODevice::ReadOnly | QIODevice::Text), qPrintable(m_mainCsv));
    const QStringList lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QVERIFY2(lines.size() >= 2, "CSV has no data rows");
    const QStringList header = lines.first().split(QLatin1Char(','));
    for (const char* col : {"rank_phi", "iteration_ms", "tp", "pp", "dp", "layers"})
        QVERIFY2(header.contains(QString::fromLatin1(col)),
                 qPrintable(QStringLiteral("CSV header lacks %1: %2").arg(QLatin1String(col), lines.first())));
    // Every data row has as many fields as the header and is not another header.
    for (int i = 1; i < lines.size(); ++i) {
        QVERIFY2(lines[i].split(QLatin1Char(',')).size() == header.size(),
                 qPrintable(QStringLiteral("row %1 has a different field count: %2").arg(i).arg(lines[i])));
        QVERIFY(!lines[i].startsWith(QStringLiteral("rank_phi")));
    }
    // The first data row is the best plan of the table (Phi rank 1).
    QCOMPARE(lines[1].split(QLatin1Char(',')).at(header.indexOf(QStringLiteral("rank_phi"))), QStringLiteral("1"));
}

// --simplex on the 6-GPU V100+T4 sample: 231 weightings, each won by a
// plan; the winner at the requested (default) weights is the table's first plan.
void TestCli::searchSimplex()
{
    const QString csv = tmp("simplex.csv");
    const QStringList args = {"search",    "--cluster", sample("paper-6gpu-v100-t4.json"),
                              "--model",   "llama2-7b", "--gbs",
                              "32",        "--top",     "1",
                              "--simplex", csv};
    RUN_EXPECT(r, args, 0);
    QVERIFY2(r.out.contains(QRegularExpression(
                 R"(Weight simplex: 231 weightings \(step 0.05\) over \d+ kept plans: \d+ distinct winners)")),
             qPrintable(r.out));
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 232);
    const QStringList header = lines.front().split(',');
    QCOMPARE(header.mid(0, 4), (QStringList{"w_time", "w_memory", "w_variance", "plan"}));
    const int iter = header.indexOf("iteration_ms");
    // The default weights' row: its plan is the search's best (same T as the table's row 1).
    for (const QString& line : lines.mid(1)) {
        const QStringList cells = line.split(',');
        QCOMPARE(cells.size(), header.size());
        if (cells[0] == "0.40" && cells[1] == "0.20" && cells[2] == "0.40") {
            const QString t = QString::number(cells[iter].toDouble(), 'f', 1);
            QVERIFY2(r.out.contains(QRegularExpression("\n1 .* " + QRegularExpression::escape(t) + " ")),
                     qPrintable(t + "\n" + r.out));
        }
    }
}

// V100 and T4 have no FlashAttention (FlashAttention-2 and cuDNN's fused
// attention need Ampere or newer): on the V100 + T4 sample, asking for it
// must give the very plans asking for the unfused core gives, and the report
// says why. Planned with FlashAttention's memory, a plan would keep no s x s
// scores that these GPUs in fact hold.
void TestCli::preAmpereGpusRunUnfusedAttention()
{
    QJsonObject best[2];
    const QStringList flags[2] = {{}, {"--no-flash-attention"}};
    for (int i = 0; i < 2; ++i) {
        const QString json = tmp(QString("preampere%1.json").arg(i));
        const QStringList args = QStringList{"search",  "--cluster", sample("paper-6gpu-v100-t4.json"),
                                             "--model", "llama2-7b", "--gbs",
                                             "32",      "--top",     "1",
                                             "--json",  json}
            + flags[i];
        RUN_EXPECT(r, args, 0);
        QVERIFY2(r.out.contains("Attention: unfused (s x s scores kept, FlashAttention needs Ampere or newer: "
                                "V100-32GB, T4)")
                     || i == 1,
                 qPrintable(r.out));
        QJsonObject d;
        QString why;
        QVERIFY2(readJson(json, d, why), qPrintable(why));
        QVERIFY(d["best"].isArray() && !d["best"].toArray().isEmpty());
        best[i] = d["best"].toArray().first().toObject();
    }
    QCOMPARE(best[0], best[1]);
}

// --overlap-grad-reduce and --overlap-param-gather on one fixed configuration
// (llama2-7b, TP 2, PP 1, DP 4 on 8 A100s, so the one stage is the first):
// the gradient reduction hides behind the last backward except Megatron's last
// bucket, which holds the 65.5M-parameter embedding on each rank (32000 x 4096
// / 2, more than the 40M bucket), about 2 % of the stage's 3.4e9; the
// weight gather then hides behind the forward as well. Neither makes the
// iteration slower, and the report says what is left.
void TestCli::overlapHidesDataParallelSync()
{
    const QStringList base = {"search",  "--cluster", sample("homogeneous-8xa100.json"),
                              "--model", "llama2-7b", "--tp",
                              "2",       "--max-pp",  "1",
                              "--mbs",   "1",         "--gbs",
                              "64",      "--top",     "1"};
    const QStringList flags[3] = {{}, {"--overlap-grad-reduce"}, {"--overlap-param-gather"}};
    double syncMs[3], iterationMs[3];
    for (int i = 0; i < 3; ++i) {
        const QString json = tmp(QString("overlap%1.json").arg(i));
        const QStringList args = base + flags[i] + QStringList{"--json", json};
        RUN_EXPECT(r, args, 0);
        QCOMPARE(r.out.contains("not hidden by backward"), i > 0);
        QJsonObject d;
        QString why;
        QVERIFY2(readJson(json, d, why), qPrintable(why));
        const QJsonObject best = d["best"].toArray().first().toObject();
        QCOMPARE(best["dp"].toInt(), 4);
        syncMs[i] = best["dp_sync_ms"].toDouble();
        iterationMs[i] = best["iteration_ms"].toDouble();
        QCOMPARE(d["setup"].toObject()["overlap_grad_reduce"].toBool(), i > 0);
        QCOMPARE(d["setup"].toObject()["overlap_param_gather"].toBool(), i == 2);
    }
    // Without overlap: reduce-scatter of fp32 gradients (4 bytes) and
    // all-gather of bf16 weights (2 bytes), so the gather is a third.
    QVERIFY2(syncMs[1] < 0.4 * syncMs[0] && syncMs[1] > 0.3 * syncMs[0],
             qPrintable(QString("%1 vs %2").arg(syncMs[1]).arg(syncMs[0])));
    QVERIFY2(syncMs[2] < 0.05 * syncMs[0], qPrintable(QString("%1 vs %2").arg(syncMs[2]).arg(syncMs[0])));
    QVERIFY(iterationMs[2] < iterationMs[1] && iterationMs[1] < iterationMs[0]);
    QVERIFY(qAbs((iterationMs[0] - iterationMs[2]) - (syncMs[0] - syncMs[2])) < 1e-6);
}

void TestCli::searchRefusesBadEpsilon_data()
{
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("message");
    QTest::newRow("negative") << QStringList{"--ev", "-1"} << "--ev: -1: expected uncertainty, paper, or a number >= 0";
    QTest::newRow("not a number") << QStringList{"--ev", "abc"} << "--ev: abc: expected uncertainty, paper";
    QTest::newRow("nan") << QStringList{"--ev", "nan"} << "--ev: nan: expected";
    QTest::newRow("trailing text") << QStringList{"--ev", "4GiB"} << "--ev: 4GiB: expected";
    QTest::newRow("--eps 0") << QStringList{"--eps", "0"} << "--eps: 0: expected a small fraction in (0, 1)";
    QTest::newRow("--eps 1.5") << QStringList{"--eps", "1.5"} << "--eps: 1.5: expected a small fraction in (0, 1)";
    QTest::newRow("both") << QStringList{"--ev", "paper", "--eps", "0.1"} << "--eps: 0.1: give eV once";
}

void TestCli::searchRefusesBadEpsilon()
{
    QFETCH(QStringList, extra);
    QFETCH(QString, message);
    RUN_EXPECT(r, (QStringList{"search", "--cluster", sample("homogeneous-8xa100.json")} + extra), 2);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
}

// Megatron-LM CI's gpt3_mcore_te_tp1_pp1_dist_optimizer_fim_dataset (GPT
// 12 x 512, 8 heads, seq 1024, mbs 4, TP 1, PP 1): what each attention and
// dropout setting adds to the activations of the one stage, by hand from
// Korthikanti et al. 2022 (s = 1024, b = 4, a = 8, h = 512, 12 layers):
// unfused softmax output 2as^2b = 64 MiB per layer; attention dropout mask and
// output 3as^2b = 96 MiB; hidden-dropout masks 2sbh = 4 MiB.
void TestCli::searchCountsAttentionAndDropout_data()
{
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<double>("addedMiB");
    QTest::addColumn<QString>("line");
    QTest::newRow("FlashAttention, no dropout") << QStringList{} << 0.0 << "Attention: FlashAttention, no dropout";
    QTest::newRow("FlashAttention, both dropouts")
        << QStringList{"--attention-dropout", "0.1", "--hidden-dropout", "0.1"} << 12 * 4.0
        << "Attention: FlashAttention, dropout attention 0.1 / hidden 0.1 (keeps two hidden masks per layer)";
    QTest::newRow("unfused, no dropout") << QStringList{"--no-flash-attention"} << 12 * 64.0
                                         << "Attention: unfused (s x s scores kept), no dropout";
    QTest::newRow("unfused, Megatron's default dropout")
        << QStringList{"--no-flash-attention", "--attention-dropout", "0.1", "--hidden-dropout", "0.1"}
        << 12 * (64.0 + 96.0 + 4.0)
        << "Attention: unfused (s x s scores kept), dropout attention 0.1 / hidden 0.1 (keeps a mask of the "
           "attention scores and two hidden masks per layer)";
}

void TestCli::searchCountsAttentionAndDropout()
{
    QFETCH(QStringList, extra);
    QFETCH(double, addedMiB);
    QFETCH(QString, line);
    writeFile("ci-fim.json", R"({"format": "memx-model/1", "name": "ci-fim", "num_layers": 12, "hidden": 512,
        "heads": 8, "ffn_hidden": 2048, "mlp": "gelu", "vocab": 50257, "seq_len": 1024, "tied_embeddings": true})");
    const auto run = [&](const QStringList& more, const QString& json) {
        return runCli(QStringList{"search",
                                  "--cluster",
                                  sample("homogeneous-8xa100.json"),
                                  "--model",
                                  tmp("ci-fim.json"),
                                  "--gbs",
                                  "32",
                                  "--mbs",
                                  "4",
                                  "--tp",
                                  "1",
                                  "--max-pp",
                                  "1",
                                  "--recompute",
                                  "none",
                                  "--precision",
                                  "bf16",
                                  "--top",
                                  "1",
                                  "--json",
                                  json}
                      + more);
    };
    const auto activations = [](const QString& json) {
        QJsonObject obj;
        QString why;
        if (!readJson(json, obj, why))
            return -1.0;
        const QJsonObject stage = obj["best"].toArray()[0].toObject()["stages"].toArray()[0].toObject();
        return stage["memory_mib"].toObject()["activations"].toDouble();
    };
    const auto baseRun = run({}, tmp("flash.json"));
    const auto variant = run(extra, tmp("variant.json"));
    QCOMPARE(baseRun.exitCode, 0);
    QCOMPARE(variant.exitCode, 0);
    const QString out = variant.out;
    const double base = activations(tmp("flash.json"));
    const double got = activations(tmp("variant.json"));
    QVERIFY(base > 0);
    QVERIFY2(std::abs(got - base - addedMiB) < 1e-6, qPrintable(QString("added %1 MiB").arg(got - base)));
    QVERIFY2(out.contains(line + "\n"), qPrintable(out));
}

void TestCli::searchStats_data()
{
    QTest::addColumn<QString>("pattern");
    QTest::newRow("explored count") << QStringLiteral("composed while exploring \\d+");
    QTest::newRow("feasible count") << QStringLiteral("feasible candidates \\d+");
    QTest::newRow("search nodes") << QStringLiteral("branch-and-bound nodes \\d+");
    QTest::newRow("pruned count") << QStringLiteral("pruned.*: \\d+");
    QTest::newRow("candidates per second") << QStringLiteral("\\d+(\\.\\d+)? candidates/s");
}

void TestCli::searchStats()
{
    QFETCH(QString, pattern);
    const QRegularExpression re(pattern);
    QVERIFY2(re.match(m_main.out).hasMatch(),
             qPrintable(QStringLiteral("--stats output lacks /%1/:\n%2").arg(pattern, m_main.out)));
}

// ---------------------------------------------------------------------------
// bad input -> exit 2, a message naming file / field / reason
// ---------------------------------------------------------------------------

void TestCli::badInput_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QStringList>("mustContain");  // case-sensitive substrings of stderr

    const QString ok = QStringLiteral("%TMP%/ok-2xa100.json");
    auto search = [&](QStringList extra) {
        return QStringList{QStringLiteral("search"), QStringLiteral("--cluster"), ok} + extra;
    };
    auto searchCluster = [](const QString& file) {
        return QStringList{QStringLiteral("search"), QStringLiteral("--cluster"), file};
    };

    // Inputs must be regular files: a device or a folder would be read until memory ran out.
    QTest::newRow("cluster is /dev/zero")
        << searchCluster(QStringLiteral("/dev/zero"))
        << QStringList{QStringLiteral("/dev/zero"), QStringLiteral("not a regular file")};
    QTest::newRow("cluster is a folder") << searchCluster(QStringLiteral("%TMP%"))
                                         << QStringList{QStringLiteral("is a folder")};
    QTest::newRow("measurements are /dev/zero")
        << QStringList{QStringLiteral("train"), QStringLiteral("--measurements"), QStringLiteral("/dev/zero"),
                       QStringLiteral("--out"), QStringLiteral("%TMP%/never.json")}
        << QStringList{QStringLiteral("/dev/zero"), QStringLiteral("not a regular file")};
    // Counts are signed on the command line: -1 is refused, not read as 2^64 - 1.
    QTest::newRow("negative --top") << search({QStringLiteral("--top"), QStringLiteral("-1")})
                                    << QStringList{QStringLiteral("--top"), QStringLiteral("-1"),
                                                   QStringLiteral("at least one")};
    QTest::newRow("negative --keep") << search({QStringLiteral("--keep"), QStringLiteral("-1")})
                                     << QStringList{QStringLiteral("--keep"), QStringLiteral("-1")};
    QTest::newRow("--why-not of two numbers") << search({QStringLiteral("--why-not"), QStringLiteral("4,1")})
                                              << QStringList{QStringLiteral("--why-not"), QStringLiteral("TP,PP,DP")};
    QTest::newRow("zero --runs-count") << search({QStringLiteral("--runs-count"), QStringLiteral("0")})
                                       << QStringList{QStringLiteral("--runs-count")};
    QTest::newRow("missing cluster file")
        << searchCluster(QStringLiteral("%TMP%/does-not-exist.json"))
        << QStringList{QStringLiteral("%TMP%/does-not-exist.json"), QStringLiteral("cannot open")};
    QTest::newRow("malformed JSON cluster")
        << searchCluster(QStringLiteral("%TMP%/malformed.json"))
        << QStringList{QStringLiteral("%TMP%/malformed.json"), QStringLiteral("line 5"), QStringLiteral("JSON")};
    QTest::newRow("unknown GPU type") << searchCluster(QStringLiteral("%TMP%/unknown-gpu.json"))
                                      << QStringList{QStringLiteral("%TMP%/unknown-gpu.json"),
                                                     QStringLiteral("/nodes/0/gpus/0/type"), QStringLiteral("unknown"),
                                                     QStringLiteral("Quantum-9000")};
    QTest::newRow("link to a non-existent device")
        << searchCluster(QStringLiteral("%TMP%/link-bad-device.json"))
        << QStringList{QStringLiteral("%TMP%/link-bad-device.json"), QStringLiteral("/links/0/between/1"),
                       QStringLiteral("n:7"), QStringLiteral("does not exist")};
    QTest::newRow("link to a non-existent node")
        << searchCluster(QStringLiteral("%TMP%/link-bad-node.json"))
        << QStringList{QStringLiteral("%TMP%/link-bad-node.json"), QStringLiteral("/links/0/between/1"),
                       QStringLiteral("zz:0")};
    QTest::newRow("zero link bandwidth") << searchCluster(QStringLiteral("%TMP%/zero-bandwidth.json"))
                                         << QStringList{QStringLiteral("%TMP%/zero-bandwidth.json"),
                                                        QStringLiteral("/links/0/bandwidth_gbps"),
                                                        QStringLiteral("greater than 0")};
    QTest::newRow("negative link bandwidth")
        << searchCluster(QStringLiteral("%TMP%/negative-bandwidth.json"))
        << QStringList{QStringLiteral("%TMP%/negative-bandwidth.json"), QStringLiteral("/links/0/bandwidth_gbps"),
                       QStringLiteral("-5")};
    QTest::newRow("unknown model preset") << search({QStringLiteral("--model"), QStringLiteral("llama9-1t")})
                                          << QStringList{QStringLiteral("--model"), QStringLiteral("llama9-1t"),
                                                         QStringLiteral("llama2-7b"), QStringLiteral("llama3-70b")};
    QTest::newRow("model file: heads not divisible by query_groups")
        << search({QStringLiteral("--model"), QStringLiteral("%TMP%/model-bad-groups.json")})
        << QStringList{QStringLiteral("%TMP%/model-bad-groups.json"), QStringLiteral("query_groups"),
                       QStringLiteral("16")};
    QTest::newRow("--overlap-param-gather without the distributed optimizer")
        << search({QStringLiteral("--overlap-param-gather"), QStringLiteral("--no-distributed-optimizer")})
        << QStringList{QStringLiteral("--overlap-param-gather"), QStringLiteral("distributed optimizer")};
    QTest::newRow("--schedule bogus") << search({QStringLiteral("--schedule"), QStringLiteral("bogus")})
                                      << QStringList{QStringLiteral("--schedule"), QStringLiteral("bogus"),
                                                     QStringLiteral("1f1b")};
    QTest::newRow("--recompute bogus") << search({QStringLiteral("--recompute"), QStringLiteral("bogus")})
                                       << QStringList{QStringLiteral("--recompute"), QStringLiteral("bogus"),
                                                      QStringLiteral("selective")};
    QTest::newRow("--profile custom without --weights")
        << search({QStringLiteral("--profile"), QStringLiteral("custom")})
        << QStringList{QStringLiteral("--profile"), QStringLiteral("--weights")};
    QTest::newRow("--profile bogus") << search({QStringLiteral("--profile"), QStringLiteral("bogus")})
                                     << QStringList{QStringLiteral("--profile"), QStringLiteral("bogus"),
                                                    QStringLiteral("auto")};
    QTest::newRow("--weights with a negative")
        << search({QStringLiteral("--weights"), QStringLiteral("1,-1,0")})
        << QStringList{QStringLiteral("--weights"), QStringLiteral("1,-1,0"), QStringLiteral("negative")};
    QTest::newRow("--weights with two numbers")
        << search({QStringLiteral("--weights"), QStringLiteral("1,0")})
        << QStringList{QStringLiteral("--weights"), QStringLiteral("three numbers")};
    QTest::newRow("--weights all zero") << search({QStringLiteral("--weights"), QStringLiteral("0,0,0")})
                                        << QStringList{QStringLiteral("--weights"), QStringLiteral("positive")};
    QTest::newRow("--weights that do not sum to 1")
        << search({QStringLiteral("--weights"), QStringLiteral("1,1,1")})
        << QStringList{QStringLiteral("--weights: 1,1,1: the weights must sum to 1 (these sum to 3)")};
    QTest::newRow("--weights rounded too far")
        << search({QStringLiteral("--weights"), QStringLiteral("0.3,0.3,0.3")})
        << QStringList{QStringLiteral("--weights: 0.3,0.3,0.3: the weights must sum to 1 (these sum to 0.9)")};
    QTest::newRow("--weights with four numbers") << search({QStringLiteral("--weights"), QStringLiteral("1,0,0,5")})
                                                 << QStringList{QStringLiteral("--weights"), QStringLiteral("1,0,0,5")};
    QTest::newRow("--gbs 0") << search({QStringLiteral("--gbs"), QStringLiteral("0")})
                             << QStringList{QStringLiteral("--gbs"), QStringLiteral("at least 1")};
    QTest::newRow("--gbs not a number") << search({QStringLiteral("--gbs"), QStringLiteral("abc")})
                                        << QStringList{QStringLiteral("--gbs"), QStringLiteral("abc")};
    QTest::newRow("--mbs 0") << search({QStringLiteral("--mbs"), QStringLiteral("0")})
                             << QStringList{QStringLiteral("--mbs"), QStringLiteral("at least 1")};
    QTest::newRow("--mbs list with a negative") << search({QStringLiteral("--mbs"), QStringLiteral("1,-2")})
                                                << QStringList{QStringLiteral("--mbs"), QStringLiteral("-2")};
    QTest::newRow("--seq 8") << search({QStringLiteral("--seq"), QStringLiteral("8")})
                             << QStringList{QStringLiteral("--seq"), QStringLiteral("16")};
    QTest::newRow("--eps 0") << search({QStringLiteral("--eps"), QStringLiteral("0")})
                             << QStringList{QStringLiteral("--eps")};
    QTest::newRow("--variance bogus") << search({QStringLiteral("--variance"), QStringLiteral("bogus")})
                                      << QStringList{QStringLiteral("--variance"), QStringLiteral("mib")};
    QTest::newRow("--placement bogus") << search({QStringLiteral("--placement"), QStringLiteral("bogus")})
                                       << QStringList{QStringLiteral("--placement"), QStringLiteral("contiguous")};
    QTest::newRow("--tp 0") << search({QStringLiteral("--tp"), QStringLiteral("0")})
                            << QStringList{QStringLiteral("--tp")};
    QTest::newRow("--max-pp 0") << search({QStringLiteral("--max-pp"), QStringLiteral("0")})
                                << QStringList{QStringLiteral("--max-pp")};
    QTest::newRow("--min-pp above --max-pp")
        << search({QStringLiteral("--min-pp"), QStringLiteral("5"), QStringLiteral("--max-pp"), QStringLiteral("4")})
        << QStringList{QStringLiteral("--min-pp"), QStringLiteral("above --max-pp (4)")};
    QTest::newRow("--node-loss bogus") << search({QStringLiteral("--node-loss"), QStringLiteral("bogus")})
                                       << QStringList{QStringLiteral("--node-loss"),
                                                      QStringLiteral("expected each or per-type")};
    QTest::newRow("--objective bogus") << search({QStringLiteral("--objective"), QStringLiteral("bogus")})
                                       << QStringList{QStringLiteral("--objective"),
                                                      QStringLiteral("expected throughput or cost")};
    QTest::newRow("--objective cost without prices")
        << search({QStringLiteral("--objective"), QStringLiteral("cost")})
        << QStringList{QStringLiteral("--objective"), QStringLiteral("needs a price per GPU-hour for every GPU type")};
    QTest::newRow("--max-cost-per-hour -2")
        << search({QStringLiteral("--max-cost-per-hour"), QStringLiteral("-2")})
        << QStringList{QStringLiteral("--max-cost-per-hour"), QStringLiteral("at least 0")};
    QTest::newRow("--robust bogus") << search({QStringLiteral("--robust"), QStringLiteral("bogus")})
                                    << QStringList{QStringLiteral("--robust"), QStringLiteral("node-loss")};
    QTest::newRow("--vp 0") << search(
        {QStringLiteral("--vp"), QStringLiteral("0"), QStringLiteral("--schedule"), QStringLiteral("interleaved")})
                            << QStringList{QStringLiteral("--vp")};
    QTest::newRow("--query-groups 0") << search({QStringLiteral("--query-groups"), QStringLiteral("0")})
                                      << QStringList{QStringLiteral("--query-groups")};
    QTest::newRow("--attention-dropout 1")
        << search({QStringLiteral("--attention-dropout"), QStringLiteral("1")})
        << QStringList{QStringLiteral("--attention-dropout"), QStringLiteral("must be in [0, 1)")};
    QTest::newRow("--hidden-dropout -0.1")
        << search({QStringLiteral("--hidden-dropout=-0.1")})
        << QStringList{QStringLiteral("--hidden-dropout"), QStringLiteral("-0.1"), QStringLiteral("must be in [0, 1)")};
    QTest::newRow("missing --cluster") << QStringList{QStringLiteral("search"), QStringLiteral("--model"),
                                                      QStringLiteral("llama2-7b")}
                                       << QStringList{QStringLiteral("--cluster"), QStringLiteral("required")};
    QTest::newRow("unknown option") << search({QStringLiteral("--frobnicate")})
                                    << QStringList{QStringLiteral("--frobnicate")};
    QTest::newRow("no subcommand") << QStringList{} << QStringList{QStringLiteral("subcommand")};
    QTest::newRow("unknown subcommand") << QStringList{QStringLiteral("frobnicate")}
                                        << QStringList{QStringLiteral("frobnicate")};
    QTest::newRow("validate: missing file")
        << QStringList{QStringLiteral("validate"), QStringLiteral("%TMP%/does-not-exist.json")}
        << QStringList{QStringLiteral("%TMP%/does-not-exist.json")};
    QTest::newRow("validate: unknown GPU type")
        << QStringList{QStringLiteral("validate"), QStringLiteral("%TMP%/unknown-gpu.json")}
        << QStringList{QStringLiteral("/nodes/0/gpus/0/type"), QStringLiteral("unknown")};
    // Issue #14: bad inputs the readers used to crash on, overflow with or accept.
    const auto bad = [](const char* name) {
        return QString::fromStdString(memx::test::dataFile(std::string("bad_inputs/") + name));
    };
    const auto train = [&](const char* name) {
        return QStringList{QStringLiteral("train"), QStringLiteral("--measurements"), bad(name),
                           QStringLiteral("--out"), QStringLiteral("%TMP%/never-written.json")};
    };
    QTest::newRow("train: tp*pp*dp beyond int")
        << train("measurements-gpu-product.csv")
        << QStringList{bad("measurements-gpu-product.csv"), QStringLiteral("line 2, column num_gpus"),
                       QStringLiteral("102400000000")};
    QTest::newRow("train: hidden 1e9") << train("measurements-hidden-1e9.csv")
                                       << QStringList{bad("measurements-hidden-1e9.csv"),
                                                      QStringLiteral("line 2, column hidden"),
                                                      QStringLiteral("plausible range")};
    QTest::newRow("train: invalid UTF-8 gpu_type")
        << train("measurements-bad-utf8.csv")
        << QStringList{bad("measurements-bad-utf8.csv"), QStringLiteral("line 2, column gpu_type"),
                       QStringLiteral("invalid UTF-8")};
    QTest::newRow("train: denormal stage time")
        << train("measurements-denormal-time.csv")
        << QStringList{bad("measurements-denormal-time.csv"), QStringLiteral("line 2, column stage_time_ms")};
    QTest::newRow("train: huge pp") << train("measurements-huge-pp.csv")
                                    << QStringList{bad("measurements-huge-pp.csv"), QStringLiteral("line 2, column pp"),
                                                   QStringLiteral("plausible range 1-1000")};
    QTest::newRow("validate: 1e400") << QStringList{QStringLiteral("validate"), bad("cluster-number-1e400.json")}
                                     << QStringList{bad("cluster-number-1e400.json"), QStringLiteral("line 3 column"),
                                                    QStringLiteral("does not fit in a double")};
    QTest::newRow("validate: bandwidth 1e-300")
        << QStringList{QStringLiteral("validate"), bad("cluster-bandwidth-1e-300.json")}
        << QStringList{bad("cluster-bandwidth-1e-300.json"), QStringLiteral("/links/0/bandwidth_gbps"),
                       QStringLiteral("plausible range"), QStringLiteral("allow_outside_range")};
    QTest::newRow("validate: calibration 1")
        << QStringList{QStringLiteral("validate"), bad("cluster-calibration-number.json")}
        << QStringList{bad("cluster-calibration-number.json"), QStringLiteral("/gpu_types/A100-80GB/calibration"),
                       QStringLiteral("expected an object")};
    QTest::newRow("validate: no file given")
        << QStringList{QStringLiteral("validate")} << QStringList{QStringLiteral("cluster")};
}

void TestCli::badInput()
{
    QFETCH(QStringList, args);
    QFETCH(QStringList, mustContain);
    args = expand(args);
    mustContain = expand(mustContain);
    RUN_EXPECT(r, args, 2);
    QVERIFY2(!r.out.contains(QStringLiteral("MemX plan")), qPrintable(describe(args, r)));
    QVERIFY2(!r.err.trimmed().isEmpty(), "no message on stderr");
    for (const auto& s : mustContain)
        QVERIFY2(r.err.contains(s), qPrintable(QStringLiteral("stderr lacks \"%1\": ").arg(s) + describe(args, r)));
}

// Issue #37 item 6: an allocation that fails on a worker thread (a model of
// 100,000 layers, allowed outside the plausible range, under a 300 MB
// address-space limit) ends the search with a message naming the model and
// exit 2; it was SIGABRT (exit 134) before. prlimit (util-linux) sets the
// limit. ASan's shadow memory cannot live under one: the sanitizer build
// skips this.
void TestCli::tooLittleMemoryIsAnErrorNotAnAbort()
{
#if defined(__SANITIZE_ADDRESS__)
    QSKIP("AddressSanitizer reserves terabytes of address space; no RLIMIT_AS fits under it");
#endif
    if (QStandardPaths::findExecutable(QStringLiteral("prlimit")).isEmpty())
        QSKIP("prlimit (util-linux) is not installed");
    const QStringList args{QStringLiteral("--as=300000000"),
                           cli(),
                           QStringLiteral("search"),
                           QStringLiteral("--cluster"),
                           sample(QStringLiteral("paper-20gpu-3vendor.json")),
                           QStringLiteral("--model"),
                           QString::fromStdString(memx::test::dataFile("bad_inputs/model-100000-layers.json")),
                           QStringLiteral("--gbs"),
                           QStringLiteral("64"),
                           QStringLiteral("-q")};
    QProcess p;
    p.start(QStringLiteral("prlimit"), args);
    QVERIFY(p.waitForFinished(120000));
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QVERIFY2(p.exitCode() == 2, qPrintable(QStringLiteral("exit %1: %2").arg(p.exitCode()).arg(err)));
    QVERIFY2(err.contains(QStringLiteral("not enough memory")) && err.contains(QStringLiteral("100000")),
             qPrintable(err));
}

// ---------------------------------------------------------------------------
// no feasible plan -> exit 1 naming the binding constraint
// ---------------------------------------------------------------------------

void TestCli::searchStatesThePriceAndConstraints()
{
    // The report says what plan 1 costs against the fastest feasible plan,
    // and the constraints it meets; --json carries both.
    const QString json = tmp(QStringLiteral("price.json"));
    const QStringList args{QStringLiteral("search"), QStringLiteral("--cluster"),
                           sample(QStringLiteral("paper-20gpu-3vendor.json")), QStringLiteral("--gbs"),
                           QStringLiteral("128"), QStringLiteral("--max-slowdown"), QStringLiteral("10%"),
                           QStringLiteral("--json"), json,
                           // Uniform: the per-type space's pick on this cluster is its fastest plan.
                           QStringLiteral("--meshes"), QStringLiteral("uniform")};
    RUN_EXPECT(r, args, 0);
    QVERIFY2(r.out.contains(
                 QStringLiteral("Constraints (before Phi ranks): at most 10% slower than the fastest feasible plan")),
             qPrintable(r.out));
    QVERIFY2(QRegularExpression(QStringLiteral("Plan 1 against the fastest feasible plan \\(\\d+\\.\\d ms\\): \\+\\d"))
                 .match(r.out)
                 .hasMatch(),
             qPrintable(r.out));
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject doc = QJsonDocument::fromJson(f.readAll()).object();
    const double pct = doc[QStringLiteral("price_vs_fastest")].toObject()[QStringLiteral("time_pct")].toDouble(-1);
    QVERIFY2(pct >= 0 && pct <= 10 + 1e-6, qPrintable(QString::number(pct)));
    QCOMPARE(doc[QStringLiteral("objective")]
                 .toObject()[QStringLiteral("constraints")]
                 .toObject()[QStringLiteral("max_slowdown")]
                 .toObject()[QStringLiteral("fraction")]
                 .toDouble(),
             0.1);
    // Bad values name the option.
    RUN_EXPECT(bad,
               (QStringList{QStringLiteral("search"), QStringLiteral("--cluster"),
                            sample(QStringLiteral("paper-20gpu-3vendor.json")), QStringLiteral("--max-slowdown"),
                            QStringLiteral("-5%")}),
               2);
    QVERIFY2(bad.err.contains(QStringLiteral("--max-slowdown")), qPrintable(bad.err));
}

void TestCli::noFeasiblePlan_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QStringList>("patterns");  // regexes stderr must match

    // llama2-70b needs ~69e9 x 18 B = 1.24 TB of weights+grads+Adam state, the cluster has
    // 4 x 32 + 2 x 15 = 158 GiB in all: nothing can fit, whatever the split.
    QTest::newRow("memory: llama2-70b on 4xV100+2xT4")
        << QStringList{QStringLiteral("search"), QStringLiteral("--cluster"),
                       QStringLiteral("%SAMPLES%/paper-6gpu-v100-t4.json"), QStringLiteral("--model"),
                       QStringLiteral("llama2-70b")}
        << QStringList{QStringLiteral("no feasible plan"), QStringLiteral("no plan fits in memory"),
                       QStringLiteral("closest plan"), QStringLiteral("(V100-32GB|T4)"),
                       QStringLiteral("\\d+(\\.\\d+)? GiB")};
    QTest::newRow("memory: llama3-70b on 2xA100")
        << QStringList{QStringLiteral("search"), QStringLiteral("--cluster"), QStringLiteral("%TMP%/ok-2xa100.json"),
                       QStringLiteral("--model"), QStringLiteral("llama3-70b")}
        << QStringList{QStringLiteral("no plan fits in memory"), QStringLiteral("closest plan"),
                       QStringLiteral("A100-80GB"), QStringLiteral("\\d+(\\.\\d+)? GiB")};
    // gbs 3 is odd, mbs 2 does not divide it for any DP: no skeleton passes the divisibility rule.
    QTest::newRow("structural: gbs 3 mbs 2 on 2 GPUs (Table 1 X+Y)")
        << QStringList{QStringLiteral("search"),
                       QStringLiteral("--cluster"),
                       QStringLiteral("%SAMPLES%/paper-table1-xy.json"),
                       QStringLiteral("--gbs"),
                       QStringLiteral("3"),
                       QStringLiteral("--mbs"),
                       QStringLiteral("2")}
        << QStringList{QStringLiteral("no feasible plan"), QStringLiteral("structural rules"),
                       QStringLiteral("global batch not divisible by DP x micro-batch")};
    QTest::newRow("structural: gbs 3 mbs 2 on 2xA100")
        << QStringList{QStringLiteral("search"), QStringLiteral("--cluster"), QStringLiteral("%TMP%/ok-2xa100.json"),
                       QStringLiteral("--gbs"),  QStringLiteral("3"),         QStringLiteral("--mbs"),
                       QStringLiteral("2")}
        << QStringList{QStringLiteral("structural rules"), QStringLiteral("global batch not divisible")};
    // A constraint no plan meets: the reason names it, with the most headroom any plan keeps.
    QTest::newRow("constraints: 95% headroom on 4xV100+2xT4")
        << QStringList{QStringLiteral("search"),
                       QStringLiteral("--cluster"),
                       QStringLiteral("%SAMPLES%/paper-6gpu-v100-t4.json"),
                       QStringLiteral("--gbs"),
                       QStringLiteral("32"),
                       QStringLiteral("--min-headroom"),
                       QStringLiteral("95%")}
        << QStringList{QStringLiteral("nothing meets the constraints"),
                       QStringLiteral("every GPU keeps 95% of its memory free"),
                       QStringLiteral("the most any plan set aside keeps is \\d+(\\.\\d)?%")};
    // Any plan needs GPUs of one node to talk (TP, DP or two stages on one node).
    QTest::newRow("links: nodes without links inside")
        << QStringList{QStringLiteral("search"), QStringLiteral("--cluster"),
                       QStringLiteral("%TMP%/no-intra-links.json"), QStringLiteral("--gbs"), QStringLiteral("64")}
        << QStringList{QStringLiteral("no feasible plan: no plan can run"),
                       QStringLiteral("no link joins the GPUs inside a \\(A100-80GB\\): add a link within the node"),
                       QStringLiteral("no link joins the GPUs inside h \\(H20\\)")};
    QTest::newRow("structural: --tp 4 larger than the 2-GPU group")
        << QStringList{QStringLiteral("search"), QStringLiteral("--cluster"), QStringLiteral("%TMP%/ok-2xa100.json"),
                       QStringLiteral("--tp"), QStringLiteral("4")}
        << QStringList{QStringLiteral("structural rules"), QStringLiteral("TP larger than every device group")};
}

void TestCli::noFeasiblePlan()
{
    QFETCH(QStringList, args);
    QFETCH(QStringList, patterns);
    const QString json = tmp(QStringLiteral("nofeasible-%1.json")
                                 .arg(QString::fromLatin1(QTest::currentDataTag()))
                                 .replace(QLatin1Char(' '), QLatin1Char('_'))
                                 .replace(QLatin1Char('/'), QLatin1Char('_')));
    args = expand(args) + QStringList{QStringLiteral("--json"), json};
    RUN_EXPECT(r, args, 1);
    QVERIFY2(!r.out.contains(QStringLiteral("MemX plan")), qPrintable(describe(args, r)));
    for (const auto& p : patterns) {
        const QRegularExpression re(p);
        QVERIFY2(re.match(r.err).hasMatch(),
                 qPrintable(QStringLiteral("stderr lacks /%1/: ").arg(p) + describe(args, r)));
    }
    // --json still records the failed search, with the reason and no plans.
    QJsonObject d;
    QString why;
    QVERIFY2(readJson(json, d, why), qPrintable(why));
    QCOMPARE(d.value(QStringLiteral("format")).toString(), QStringLiteral("memx-search/2"));
    QVERIFY(!d.value(QStringLiteral("error")).toString().isEmpty());
    QVERIFY(d.value(QStringLiteral("best")).toArray().isEmpty());
}

// ---------------------------------------------------------------------------
// validate, gpus, models, --version, --help
// ---------------------------------------------------------------------------

void TestCli::validateSampleClusters_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("gpus");
    QTest::newRow("homogeneous 8xA100") << QStringLiteral("homogeneous-8xa100.json") << 8;
    QTest::newRow("H100+H20+910B") << QStringLiteral("modern-h100-h20-910b.json") << 24;
    QTest::newRow("paper 20 GPUs 3 vendors") << QStringLiteral("paper-20gpu-3vendor.json") << 20;
    QTest::newRow("paper 4xV100+2xT4") << QStringLiteral("paper-6gpu-v100-t4.json") << 6;
    QTest::newRow("paper Table 1 X+Y") << QStringLiteral("paper-table1-xy.json") << 2;
}

void TestCli::validateSampleClusters()
{
    QFETCH(QString, file);
    QFETCH(int, gpus);
    const QStringList args{QStringLiteral("validate"), sample(file)};
    RUN_EXPECT(r, args, 0);
    QVERIFY2(r.out.contains(QStringLiteral("%1 GPUs").arg(gpus)), qPrintable(describe(args, r)));
    // the per-group lines add up to the total
    static const QRegularExpression groupRe(QStringLiteral("group .*: (\\d+) x "));
    int sum = 0;
    for (auto it = groupRe.globalMatch(r.out); it.hasNext();)
        sum += it.next().captured(1).toInt();
    QCOMPARE(sum, gpus);
}

void TestCli::gpusListsCatalog_data()
{
    QTest::addColumn<QString>("type");
    for (const char* t : {"A100-80GB", "Vendor-B", "Vendor-C", "V100-32GB", "T4", "H100-SXM"})
        QTest::newRow(t) << QString::fromLatin1(t);
}

void TestCli::gpusListsCatalog()
{
    QFETCH(QString, type);
    const QStringList args{QStringLiteral("gpus")};
    RUN_EXPECT(r, args, 0);
    const QRegularExpression re(QStringLiteral("^") + QRegularExpression::escape(type) + QStringLiteral("\\s"),
                                QRegularExpression::MultilineOption);
    QVERIFY2(re.match(r.out).hasMatch(), qPrintable(describe(args, r)));
}

void TestCli::modelsListsPresets_data()
{
    QTest::addColumn<QString>("name");
    for (const char* m : {"llama2-7b", "llama2-13b", "llama2-70b", "llama3-8b", "llama3-70b", "gpt3-175b"})
        QTest::newRow(m) << QString::fromLatin1(m);
}

void TestCli::modelsListsPresets()
{
    QFETCH(QString, name);
    const QStringList args{QStringLiteral("models")};
    RUN_EXPECT(r, args, 0);
    const QRegularExpression re(QStringLiteral("^") + QRegularExpression::escape(name) + QStringLiteral("\\s"),
                                QRegularExpression::MultilineOption);
    QVERIFY2(re.match(r.out).hasMatch(), qPrintable(describe(args, r)));
}

void TestCli::versionFlag()
{
    const QStringList args{QStringLiteral("--version")};
    RUN_EXPECT(r, args, 0);
    const QRegularExpression re(QStringLiteral("memx-cli (\\d+\\.\\d+\\.\\d+)"));
    const auto m = re.match(r.out);
    QVERIFY2(m.hasMatch(), qPrintable(describe(args, r)));
    // the same version is stamped into the search JSON
    QJsonObject d;
    QString why;
    QVERIFY2(readJson(m_mainJson, d, why), qPrintable(why));
    QCOMPARE(d.value(QStringLiteral("tool_version")).toString(), m.captured(1));
}

void TestCli::help_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QStringList>("mustContain");
    QTest::newRow("search --help") << QStringList{QStringLiteral("search"), QStringLiteral("--help")}
                                   << QStringList{QStringLiteral("--cluster"), QStringLiteral("REQUIRED"),
                                                  QStringLiteral("--profile"), QStringLiteral("auto"),
                                                  QStringLiteral("--weights"), QStringLiteral("--json")};
    QTest::newRow("top-level --help") << QStringList{QStringLiteral("--help")}
                                      << QStringList{QStringLiteral("search"), QStringLiteral("gpus"),
                                                     QStringLiteral("models"), QStringLiteral("validate")};
    QTest::newRow("validate --help") << QStringList{QStringLiteral("validate"), QStringLiteral("--help")}
                                     << QStringList{QStringLiteral("cluster")};
}

void TestCli::help()
{
    QFETCH(QStringList, args);
    QFETCH(QStringList, mustContain);
    RUN_EXPECT(r, args, 0);
    for (const auto& s : mustContain)
        QVERIFY2(r.out.contains(s), qPrintable(QStringLiteral("help lacks \"%1\": ").arg(s) + describe(args, r)));
}

// ---------------------------------------------------------------------------
// atomic output
// ---------------------------------------------------------------------------

void TestCli::jsonIntoMissingDirectoryIsCreated_data()
{
    QTest::addColumn<QString>("option");
    QTest::addColumn<QString>("relPath");
    QTest::newRow("--json two levels deep") << QStringLiteral("--json") << QStringLiteral("new-a/deeper/out.json");
    QTest::newRow("--csv one level deep") << QStringLiteral("--csv") << QStringLiteral("new-b/out.csv");
    QTest::newRow("--report one level deep") << QStringLiteral("--report") << QStringLiteral("new-c/out.txt");
}

void TestCli::jsonIntoMissingDirectoryIsCreated()
{
    QFETCH(QString, option);
    QFETCH(QString, relPath);
    const QString path = tmp(relPath);
    QVERIFY(!QFileInfo::exists(QFileInfo(path).absolutePath()));
    const QStringList args{QStringLiteral("search"),
                           QStringLiteral("--cluster"),
                           sample(QStringLiteral("paper-table1-xy.json")),
                           QStringLiteral("--gbs"),
                           QStringLiteral("32"),
                           QStringLiteral("-q"),
                           option,
                           path};
    RUN_EXPECT(r, args, 0);
    QVERIFY2(QFileInfo(path).isFile(), qPrintable(path + QStringLiteral(" was not written")));
    QVERIFY(QFileInfo(path).size() > 0);
    if (option == QStringLiteral("--json")) {
        QJsonObject d;
        QString why;
        QVERIFY2(readJson(path, d, why), qPrintable(why));
        QCOMPARE(d.value(QStringLiteral("format")).toString(), QStringLiteral("memx-search/2"));
    }
    // nothing but the target in the new directory (no temporary left behind)
    const QStringList entries
        = QDir(QFileInfo(path).absolutePath()).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot);
    QCOMPARE(entries, QStringList{QFileInfo(path).fileName()});
}

void TestCli::secondRunOverwritesCleanly()
{
    const QString dir = tmp(QStringLiteral("overwrite"));
    const QString path = dir + QStringLiteral("/search.json");
    const QString cluster = sample(QStringLiteral("paper-table1-xy.json"));
    // First run keeps many plans (a long file), the second keeps one (a short file): a
    // non-truncating overwrite would leave trailing garbage and break the parse.
    const QStringList first{QStringLiteral("search"),
                            QStringLiteral("--cluster"),
                            cluster,
                            QStringLiteral("--gbs"),
                            QStringLiteral("32"),
                            QStringLiteral("--keep"),
                            QStringLiteral("200"),
                            QStringLiteral("-q"),
                            QStringLiteral("--json"),
                            path};
    RUN_EXPECT(r1, first, 0);
    const qint64 size1 = QFileInfo(path).size();
    QVERIFY(size1 > 0);

    const QStringList second{QStringLiteral("search"), QStringLiteral("--cluster"), cluster,
                             QStringLiteral("--gbs"),  QStringLiteral("64"),        QStringLiteral("--top"),
                             QStringLiteral("1"),      QStringLiteral("--keep"),    QStringLiteral("1"),
                             QStringLiteral("-q"),     QStringLiteral("--json"),    path};
    RUN_EXPECT(r2, second, 0);
    QVERIFY(r2.out.isEmpty());  // -q
    QJsonObject d;
    QString why;
    QVERIFY2(readJson(path, d, why), qPrintable(why));
    QCOMPARE(d.value(QStringLiteral("setup")).toObject().value(QStringLiteral("global_batch")).toInt(), 64);
    QVERIFY2(QFileInfo(path).size() < size1, "second (shorter) file is not shorter: stale content?");
    const QStringList entries = QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot);
    QCOMPARE(entries, QStringList{QStringLiteral("search.json")});
}

void TestCli::jsonOntoDirectoryIsBadInput()
{
    const QString dir = tmp(QStringLiteral("is-a-dir"));
    QVERIFY(QDir().mkpath(dir + QStringLiteral("/inner")));
    const QStringList args{QStringLiteral("search"),
                           QStringLiteral("--cluster"),
                           sample(QStringLiteral("paper-table1-xy.json")),
                           QStringLiteral("--gbs"),
                           QStringLiteral("32"),
                           QStringLiteral("--json"),
                           dir + QStringLiteral("/inner")};
    RUN_EXPECT(r, args, 2);
    QVERIFY2(r.err.contains(dir + QStringLiteral("/inner")), qPrintable(describe(args, r)));
    // no temporary file left next to the target
    const QStringList entries = QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
    QCOMPARE(entries, QStringList{QStringLiteral("inner")});
    QVERIFY(QDir(dir + QStringLiteral("/inner")).isEmpty());
}

void TestCli::keepIsCappedByItsMemory()
{
    // A plan kept costs about 1.5 KiB plus 1 KiB per stage, in four ranked
    // lists: with --max-pp 8 that is (1536 + 8 x 1024) x 4 = 38,912 bytes, so
    // 1 GiB holds 1,073,741,824 / 38,912 = 27,594 plans per ranking.
    const QString json = tmp(QStringLiteral("keep-capped.json"));
    const QStringList
        args{QStringLiteral("search"),    QStringLiteral("--cluster"), sample(QStringLiteral("paper-table1-xy.json")),
             QStringLiteral("--gbs"),     QStringLiteral("32"),        QStringLiteral("--keep"),
             QStringLiteral("100000000"), QStringLiteral("--json"),    json,
             QStringLiteral("-q")};
    RUN_EXPECT(r, args, 0);
    QVERIFY2(r.err.contains(QStringLiteral("--keep 100000000"))
                 && r.err.contains(QStringLiteral("keeping 27594 per ranking")),
             qPrintable(describe(args, r)));
    QVERIFY(QFileInfo::exists(json));
}

MEMX_TEST_GUILESS_MAIN(TestCli)
}  // namespace tst_cli

#include "tst_cli.moc"
