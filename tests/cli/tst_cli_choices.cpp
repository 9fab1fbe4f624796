// End-to-end tests of memx-cli's choices beyond the plan table (the rest:
// tst_cli): baselines, bandwidth and node-loss what-ifs, choosing nodes, why
// no plan has a shape, the epsilon rule, profile comparison and cost, the auto
// profile and time-only weights. Each runs the real executable with QProcess
// and checks its exit code, its output and the files it writes.
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

namespace tst_cli_choices {

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

class TestCliChoices : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_tmp;

    QString tmp(const QString& name) const { return m_tmp.filePath(name); }
    void writeFile(const QString& name, const QByteArray& content)
    {
        QFile f(tmp(name));
        QVERIFY2(f.open(QIODevice::WriteOnly | QIODevice::Truncate), qPrintable(tmp(name)));
        f.write(content);
    }

private slots:
    void initTestCase();
    void searchBaselines();
    void searchBandwidthScenarios();
    void searchNodeLoss();
    void searchChooseNodes();
    void searchWhyNot();
    void searchEpsilonRule_data();
    void searchEpsilonRule();
    void profileComparisonStatesCost();
    void searchProfileAuto_data();
    void searchProfileAuto();
    void searchTimeOnlyWeightsPutFastestFirst_data();
    void searchTimeOnlyWeightsPutFastestFirst();
};

void TestCliChoices::initTestCase()
{
    QVERIFY2(QFileInfo(cli()).isExecutable(), qPrintable(cli() + QStringLiteral(" is not an executable")));
    QVERIFY(m_tmp.isValid());
}

// --baselines: one row per planner beside MemX, the same in --json; on
// Table 1's pair the compute-proportional split runs the 32 GB card out of memory.
void TestCliChoices::searchBaselines()
{
    const QString json = tmp("baselines.json");
    const QStringList args = {"search",  "--cluster",   sample("paper-table1-xy.json"),
                              "--model", "llama2-7b",   "--gbs",
                              "64",      "--recompute", "enumerate",
                              "--top",   "1",           "--baselines",
                              "--json",  json};
    RUN_EXPECT(r, args, 0);
    for (const char* name :
         {"Compute-proportional (AMP/HexiScale)", "Memory-proportional (Table 1)", "Metis-style", "FaSOP-style"})
        QVERIFY2(r.out.contains(QString::fromLatin1(name)), qPrintable(r.out));
    QVERIFY2(r.out.contains(
                 QRegularExpression(R"(Compute-proportional \(AMP/HexiScale\) .* OOM: exceeds memory on stage \d)")),
             qPrintable(r.out));
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonArray picks = QJsonDocument::fromJson(f.readAll()).object()["baselines"].toArray();
    QCOMPARE(picks.size(), 5);
    QCOMPARE(picks[0].toObject()["planner"].toString(), QStringLiteral("compute-proportional"));
    QCOMPARE(picks[0].toObject()["fits"].toBool(true), false);
    QCOMPARE(picks[4].toObject()["planner"].toString(), QStringLiteral("memx"));
    QCOMPARE(picks[4].toObject()["plan"].toObject()["rank_phi"].toInt(), 1);
}

// --bandwidth-scenarios: plan 1 under each scenario, re-planned from the
// store; --robust ranks by the worst time; a bad file or --robust alone is
// refused before any search with exit 2.
void TestCliChoices::searchBandwidthScenarios()
{
    const QString scenarios = sample("scenarios/paper-20gpu-network.json");
    const QString json = tmp("what-if.json");
    // The what-if's behaviour, not the per-type space (tst_per_mesh_plans):
    // uniform meshes of at most 4 stages keep its searches quick under the
    // sanitizers (2 s there, against 25 s with any depth).
    const QStringList args = {"search",  "--cluster", sample("paper-20gpu-3vendor.json"),
                              "--gbs",   "128",       "--meshes",
                              "uniform", "--max-pp",  "4",
                              "--top",   "3",         "--bandwidth-scenarios",
                              scenarios, "--robust",  "worst",
                              "--json",  json};
    RUN_EXPECT(r, args, 0);
    QVERIFY2(r.out.contains("What-if bandwidth (" + scenarios + ", 3 scenarios):"), qPrintable(r.out));
    QVERIFY2(r.out.contains(QRegularExpression(R"(InfiniBand at 50%: plan 1 takes \d+\.\d ms \(\+\d+\.\d%\))")),
             qPrintable(r.out));
    QVERIFY2(r.out.contains("congested hour (time profile"), qPrintable(r.out));
    QVERIFY2(r.out.contains("Robust ranking by the worst time over the scenarios"), qPrintable(r.out));
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject w = QJsonDocument::fromJson(f.readAll()).object()["what_if"].toObject();
    QCOMPARE(w["scenarios"].toArray().size(), 3);
    QCOMPARE(w["robust"].toString(), QStringLiteral("worst"));
    QCOMPARE(w["robust_plans"].toArray().size(), 3);
    QCOMPARE(w["scenarios"].toArray()[2].toObject()["replanned"].toArray().size(), 3);

    writeFile("bad-scenarios.json",
              R"({"format": "memx-bandwidth-scenarios/1", "scenarios": [{"name": "a", "scale": {"link:nope": 0.5}}]})");
    RUN_EXPECT(bad,
               (QStringList{"search", "--cluster", sample("paper-20gpu-3vendor.json"), "--bandwidth-scenarios",
                            tmp("bad-scenarios.json")}),
               2);
    QVERIFY2(bad.err.contains(
                 tmp("bad-scenarios.json")
                 + ": /scenarios/0/scale/link:nope: cluster paper-20gpu-3vendor has no link named \"nope\""),
             qPrintable(bad.err));
    RUN_EXPECT(alone, (QStringList{"search", "--cluster", sample("paper-20gpu-3vendor.json"), "--robust", "worst"}), 2);
    QVERIFY2(alone.err.contains("--robust") && alone.err.contains("--bandwidth-scenarios"), qPrintable(alone.err));
}

// --node-loss: each node's loss re-planned (alike nodes once), in the report
// and in --json; --robust node-loss implies it and ranks by the worst case.
void TestCliChoices::searchNodeLoss()
{
    const QString json = tmp("node-loss.json");
    // paper-20gpu-3vendor: nodes a100 (4 x A100), vb (8 x Vendor-B), vc (8 x Vendor-C).
    // Uniform meshes of at most 4 stages, as above: the node-loss what-if is
    // what is tested here (1.7 s under the sanitizers, against 14 s).
    const QStringList args = {"search",    "--cluster", sample("paper-20gpu-3vendor.json"),
                              "--gbs",     "128",       "--meshes",
                              "uniform",   "--max-pp",  "4",
                              "--top",     "2",         "--robust",
                              "node-loss", "--json",    json};
    RUN_EXPECT(r, args, 0);
    QVERIFY2(r.out.contains("Node loss (3 scenarios, every node; alike nodes once):"), qPrintable(r.out));
    QVERIFY2(r.out.contains(
                 QRegularExpression(R"(without vb \(8 x Vendor-B\): best \d+\.\d ms \([+-]\d+\.\d%\), \d+ tokens/s)")),
             qPrintable(r.out));
    QVERIFY2(r.out.contains("Robust ranking by the worst time over the scenarios"), qPrintable(r.out));
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject w = QJsonDocument::fromJson(f.readAll()).object()["node_loss"].toObject();
    QCOMPARE(w["which"].toString(), QStringLiteral("each"));
    const QJsonArray scenarios = w["scenarios"].toArray();
    QCOMPARE(scenarios.size(), 3);
    QStringList nodes;
    for (const auto& s : scenarios)
        nodes << s.toObject()["node"].toString();
    QCOMPARE(nodes, (QStringList{"a100", "vb", "vc"}));
    QVERIFY(w["robust"].toBool());
    QVERIFY(w["robust_plans"].toArray().size() <= 2);
    for (const auto& p : w["robust_plans"].toArray())
        QCOMPARE(p.toObject()["scenarios"].toArray().size(), 3);

    RUN_EXPECT(perType,
               (QStringList{"search", "--cluster", sample("paper-20gpu-3vendor.json"), "--gbs", "128", "--meshes",
                            "uniform", "--max-pp", "4", "--node-loss", "per-type"}),
               0);
    QVERIFY2(perType.out.contains("Node loss (3 scenarios, each GPU type's first node):"), qPrintable(perType.out));
}

void TestCliChoices::searchChooseNodes()
{
    // Nodes h100 (8 x H100-SXM at 2.5 per GPU-hour), a100x4 (4 x A100-40GB)
    // and a100x2 (2 x A100-40GB), the A100s at 1.2.
    const QString cluster = sample("../docs/hetero_meshes/uneven-h100-a100-priced.json");
    const QString json = tmp("choose-nodes.json");
    RUN_EXPECT(r,
               (QStringList{"search", "--cluster", cluster, "--model", "llama2-7b", "--gbs", "64", "--choose-nodes",
                            "--objective", "cost", "--json", json}),
               0);
    QVERIFY2(r.out.contains("Choosing nodes (the cluster searched again with the nodes of some GPU types, or some "
                            "nodes of one type, left out; ranked by cost per million tokens):"),
             qPrintable(r.out));
    QVERIFY2(r.out.contains(QRegularExpression(R"(A100-40GB 1/2 nodes\+H100-SXM +12 .*; leaves out a100x2\n)")),
             qPrintable(r.out));
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject c = QJsonDocument::fromJson(f.readAll()).object()["node_choice"].toObject();
    QCOMPARE(c["not_searched"].toInt(), 0);
    // Both types, H100 only, A100 only, and one of the two A100 nodes (the
    // H100 type has one node, so no count of its own).
    const QJsonArray rows = c["rows"].toArray();
    QCOMPARE(rows.size(), 4);
    int partly = 0;
    double lastCost = 0;
    for (const auto& v : rows) {
        const QJsonObject row = v.toObject();
        QVERIFY(row["cost_per_million_tokens"].toDouble() >= lastCost);
        lastCost = row["cost_per_million_tokens"].toDouble();
        const QJsonArray part = row["partly_kept"].toArray();
        if (part.isEmpty())
            continue;
        ++partly;
        QCOMPARE(part.size(), 1);
        QCOMPARE(part[0].toObject()["type"].toString(), QStringLiteral("A100-40GB"));
        QCOMPARE(part[0].toObject()["nodes_kept"].toInt(), 1);
        QCOMPARE(part[0].toObject()["nodes_of_type"].toInt(), 2);
        QCOMPARE(row["nodes_left_out"].toArray(), QJsonArray{"a100x2"});
        QCOMPARE(row["gpus"].toInt(), 12);
    }
    QCOMPARE(partly, 1);
}

// eV (issue #33): by default it follows the memory predictions' uncertainty,
// (2 u X)^2 with u = 0.25 for the analytic model and X the median fullest
// GPU (the memory reference M); --ev paper is 0.01 x V; --eps F is F x V;
// --ev N is N GiB^2. The report says which, and the JSON carries the rule.
void TestCliChoices::searchEpsilonRule_data()
{
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("rule");
    QTest::addColumn<QString>("line");
    QTest::newRow("default") << QStringList{} << "uncertainty"
                             << "memory predictions +-25% on a fullest GPU of";
    QTest::newRow("--ev uncertainty") << QStringList{"--ev", "uncertainty"} << "uncertainty"
                                      << "per-GPU peaks within that of one another are not told apart by V";
    QTest::newRow("--ev paper") << QStringList{"--ev", "paper"} << "fraction"
                                << "0.01 x V (the paper's rule, --ev paper)";
    QTest::newRow("--eps 0.05") << QStringList{"--eps", "0.05"} << "fraction"
                                << "0.05 x V";
    QTest::newRow("--ev 4") << QStringList{"--ev", "4"} << "absolute"
                            << "eV=4.00 GiB^2: as given";
}

void TestCliChoices::searchEpsilonRule()
{
    QFETCH(QStringList, extra);
    QFETCH(QString, rule);
    QFETCH(QString, line);
    const QString json = tmp("epsilon.json");
    RUN_EXPECT(r,
               (QStringList{"search", "--cluster", sample("homogeneous-8xa100.json"), "--gbs", "32", "--json", json}
                + extra),
               0);
    QVERIFY2(r.out.contains(line), qPrintable(r.out.left(1200)));
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject ref
        = QJsonDocument::fromJson(f.readAll()).object()["objective"].toObject()["references"].toObject();
    QCOMPARE(ref["epsilon_rule"].toString(), rule);
    const double v = ref["variance"].toDouble();
    const double eps = ref["epsilon"].toDouble();
    double expected = 0;
    if (rule == "uncertainty") {
        const double spread = 2 * 0.25 * ref["memory_mib"].toDouble();
        expected = std::max(spread * spread, 0.01 * v);
        QCOMPARE(ref["epsilon_uncertainty"].toDouble(), 0.25);
    } else if (rule == "fraction") {
        expected = (extra.contains("--eps") ? 0.05 : 0.01) * v;
    } else {
        expected = 4.0 * 1024 * 1024;
    }
    QVERIFY2(std::abs(eps - expected) <= 1e-9 * std::max(expected, 1.0), qPrintable(QString::number(eps, 'g', 12)));
}

// --compare with prices: each profile's pick with its tokens per second and
// cost. One DGX of 8 A100 at 2.00 per GPU-hour is 16 per hour whatever the
// plan; tokens/s = 128 x 4096 / T; per million tokens 16 / (tokens/s x 3600) x 1e6.
void TestCliChoices::profileComparisonStatesCost()
{
    QFile in(sample("homogeneous-8xa100.json"));
    QVERIFY(in.open(QIODevice::ReadOnly));
    QJsonObject doc = QJsonDocument::fromJson(in.readAll()).object();
    QJsonObject types = doc["gpu_types"].toObject();
    QJsonObject a100 = types["A100-80GB"].toObject();
    a100["price_per_gpu_hour"] = 2.0;
    types["A100-80GB"] = a100;
    doc["gpu_types"] = types;
    writeFile("priced-dgx.json", QJsonDocument(doc).toJson());
    const QString json = tmp("priced-compare.json");
    RUN_EXPECT(r, (QStringList{"search", "--cluster", tmp("priced-dgx.json"), "--compare", "--json", json}), 0);
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonArray profiles
        = QJsonDocument::fromJson(f.readAll()).object()["objective"].toObject()["profiles"].toArray();
    QCOMPARE(profiles.size(), 3);
    for (const auto& v : profiles) {
        const QJsonObject p = v.toObject();
        const double tokens = 128.0 * 4096 / (p["iteration_ms"].toDouble() / 1000);
        QVERIFY(std::abs(p["tokens_per_s"].toDouble() - tokens) <= 1e-9 * tokens);
        QCOMPARE(p["cost_per_hour"].toDouble(), 16.0);
        const double perMillion = 16.0 / (tokens * 3600) * 1e6;
        QVERIFY(std::abs(p["cost_per_million_tokens"].toDouble() - perMillion) <= 1e-9 * perMillion);
        const QString line = QStringLiteral("; %1 tokens/s, 16.00 per hour, %2 per million tokens")
                                 .arg(QString::number(tokens, 'f', 0), QString::number(perMillion, 'g', 3));
        QVERIFY2(r.out.contains(line), qPrintable(line + "\n" + r.out));
    }
}

void TestCliChoices::searchProfileAuto_data()
{
    // Which profile auto picks depends on the predictor's numbers, so the rows do not fix it;
    // the test checks that the report names the profile and a reason that matches the rule:
    //   safety-first     <- "the fastest plan leaves only X% memory headroom ... (< T%)", X < T
    //   throughput-first <- "homogeneous or weakly heterogeneous (compute CV c <= t)", c <= t
    //   default          <- "heterogeneous cluster (compute CV c) with X% headroom"
    QTest::addColumn<QString>("cluster");
    QTest::addColumn<QString>("gbs");
    QTest::newRow("paper 20 GPUs 3 vendors") << QStringLiteral("paper-20gpu-3vendor.json") << QStringLiteral("128");
    QTest::newRow("paper 4xV100+2xT4") << QStringLiteral("paper-6gpu-v100-t4.json") << QStringLiteral("128");
    QTest::newRow("homogeneous 8xA100") << QStringLiteral("homogeneous-8xa100.json") << QStringLiteral("128");
    QTest::newRow("H100+H20+910B") << QStringLiteral("modern-h100-h20-910b.json") << QStringLiteral("128");
}

void TestCliChoices::searchProfileAuto()
{
    QFETCH(QString, cluster);
    QFETCH(QString, gbs);
    const QString json = tmp(QStringLiteral("auto-%1").arg(cluster));
    const QStringList args{QStringLiteral("search"), QStringLiteral("--cluster"), sample(cluster),
                           QStringLiteral("--gbs"), gbs, QStringLiteral("--profile"), QStringLiteral("auto"),
                           QStringLiteral("--top"), QStringLiteral("1"), QStringLiteral("--json"), json,
                           // The objective's choice is tested, not the mesh mode: uniform meshes keep
                           // the multi-type searches quick under the sanitizers (one took 64 s there).
                           QStringLiteral("--meshes"), QStringLiteral("uniform")};
    RUN_EXPECT(r, args, 0);
    static const QRegularExpression
        objRe(QStringLiteral("^Objective: (default|safety-first|throughput-first) \\(.*\\), chosen by auto: (.+)$"),
              QRegularExpression::MultilineOption);
    const auto m = objRe.match(r.out);
    QVERIFY2(m.hasMatch(),
             qPrintable(QStringLiteral("no 'Objective: <profile> ..., chosen by auto: <why>' line:\n") + r.out));
    const QString profile = m.captured(1);
    const QString reason = m.captured(2);
    if (profile == QStringLiteral("safety-first")) {
        static const QRegularExpression re(QStringLiteral("([0-9.]+)% memory headroom.*\\(< ([0-9.]+)%\\)"));
        const auto h = re.match(reason);
        QVERIFY2(h.hasMatch(), qPrintable(QStringLiteral("safety-first without a headroom reason: ") + reason));
        QVERIFY2(h.captured(1).toDouble() < h.captured(2).toDouble(), qPrintable(reason));
    } else if (profile == QStringLiteral("throughput-first")) {
        static const QRegularExpression re(QStringLiteral("homogeneous.*CV ([0-9.]+) <= ([0-9.]+)"));
        const auto h = re.match(reason);
        QVERIFY2(h.hasMatch(), qPrintable(QStringLiteral("throughput-first without a homogeneity reason: ") + reason));
        QVERIFY2(h.captured(1).toDouble() <= h.captured(2).toDouble(), qPrintable(reason));
    } else {
        static const QRegularExpression re(
            QStringLiteral("heterogeneous cluster \\(compute CV ([0-9.]+)\\).*headroom"));
        QVERIFY2(re.match(reason).hasMatch(), qPrintable(QStringLiteral("default without a reason: ") + reason));
    }
    if (cluster.startsWith(QStringLiteral("homogeneous")))
        QVERIFY2(profile != QStringLiteral("default"),
                 qPrintable(QStringLiteral("a homogeneous cluster got: ") + reason));

    QJsonObject d;
    QString why;
    QVERIFY2(readJson(json, d, why), qPrintable(why));
    const QJsonObject o = d.value(QStringLiteral("objective")).toObject();
    QCOMPARE(o.value(QStringLiteral("profile_requested")).toString(), QStringLiteral("auto"));
    QCOMPARE(o.value(QStringLiteral("profile_used")).toString(), profile);
    QCOMPARE(o.value(QStringLiteral("reason")).toString(), reason);
}

void TestCliChoices::searchTimeOnlyWeightsPutFastestFirst_data()
{
    QTest::addColumn<QString>("cluster");
    QTest::newRow("20 GPUs 3 vendors") << QStringLiteral("paper-20gpu-3vendor.json");
    QTest::newRow("Table 1 X+Y") << QStringLiteral("paper-table1-xy.json");
}

void TestCliChoices::searchTimeOnlyWeightsPutFastestFirst()
{
    QFETCH(QString, cluster);
    const QString json = tmp(QStringLiteral("weights-%1").arg(cluster));
    const QStringList args{QStringLiteral("search"),
                           QStringLiteral("--cluster"),
                           sample(cluster),
                           QStringLiteral("--gbs"),
                           QStringLiteral("32"),
                           QStringLiteral("--top"),
                           QStringLiteral("5"),
                           QStringLiteral("--weights"),
                           QStringLiteral("1,0,0"),
                           QStringLiteral("--json"),
                           json,
                           QStringLiteral("--meshes"),  // the ranking is tested, as above
                           QStringLiteral("uniform")};
    RUN_EXPECT(r, args, 0);
    QVERIFY2(r.out.contains(QStringLiteral("Objective: custom")), qPrintable(r.out));
    const PlanTable t = parseTable(r.out);
    QVERIFY2(!t.rows.isEmpty(), qPrintable(r.out));
    QCOMPARE(t.rows.first().value(cRankT), QStringLiteral("1"));
    for (int i = 1; i < t.rows.size(); ++i)
        QVERIFY2(t.rows[i][cT].toDouble() >= t.rows[i - 1][cT].toDouble(),
                 qPrintable(QStringLiteral("time-only ranking not ordered by T at row %1").arg(i + 1)));

    QJsonObject d;
    QString why;
    QVERIFY2(readJson(json, d, why), qPrintable(why));
    const QJsonObject best = d.value(QStringLiteral("best")).toArray().first().toObject();
    const QJsonObject fastest = d.value(QStringLiteral("fastest")).toArray().first().toObject();
    QCOMPARE(best.value(QStringLiteral("rank_time")).toInt(), 1);
    QCOMPARE(best.value(QStringLiteral("iteration_ms")).toDouble(),
             fastest.value(QStringLiteral("iteration_ms")).toDouble());
}

void TestCliChoices::searchWhyNot()
{
    // paper-20gpu-3vendor: a100 (4 x A100-80GB), vb (8 x Vendor-B), vc (8 x
    // Vendor-C). TP 4 x DP 1 = 4 GPUs cuts 1 + 2 + 2 = 5 stage slots, so a
    // uniform plan of TP 4 and DP 1 has PP 5: PP 1 is impossible.
    const QString json = tmp("why-not.json");
    RUN_EXPECT(r,
               (QStringList{"search", "--cluster", sample("paper-20gpu-3vendor.json"), "--gbs", "128", "--why-not",
                            "4,1,1", "--json", json, "--meshes", "uniform"}),
               0);
    QVERIFY2(r.out.contains("Why no plan has TP 4, PP 1, DP 1:"), qPrintable(r.out));
    QVERIFY2(r.out.contains("cuts the cluster into 5 stage slots (A100-80GB 1, Vendor-B 2, Vendor-C 2)"),
             qPrintable(r.out));
    QVERIFY2(r.out.contains("its PP is 5, not 1"), qPrintable(r.out));
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject w = QJsonDocument::fromJson(f.readAll()).object()["why_not"].toObject();
    QCOMPARE(w["tp"].toInt(), 4);
    QCOMPARE(w["pp"].toInt(), 1);
    QVERIFY(!w["fits"].toBool());
    QCOMPARE(w["reasons"].toArray().size(), 1);
    QVERIFY(!w["hints"].toArray().isEmpty());
}

MEMX_TEST_GUILESS_MAIN(TestCliChoices)
}  // namespace tst_cli_choices

#include "tst_cli_choices.moc"
