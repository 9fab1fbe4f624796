// One topology for training and prediction, through memx-cli (issue #12,
// item 4): `train --cluster` places the runs as `predict --cluster` does, the
// model file records where, predict and search warn (one line naming the
// model file, what it was trained on and what it is used on) when the
// topology differs, and a mixed set names a cluster per run.
// Data: tests/data/topology/ (seven Megatron-LM CI runs; a DGX A100, a DGX
// H100 and a cluster holding one of each).
#include "CliRunner.h"

#include "measure/MeasurementCsv.h"

#include <nlohmann/json.hpp>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include "TestMain.h"

#include <fstream>

namespace tst_cli_topology {

namespace {

QString data(const char* rel) { return QString::fromStdString(memx::test::dataFile(std::string("topology/") + rel)); }

QJsonObject readJson(const QString& file)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

bool writeJson(const QString& file, const QJsonObject& o)
{
    QFile f(file);
    return f.open(QIODevice::WriteOnly) && f.write(QJsonDocument(o).toJson()) > 0;
}

// Lines of stderr that are the topology warning.
QStringList topologyWarnings(const QString& err)
{
    QStringList out;
    for (const QString& l : err.split('\n'))
        if (l.startsWith("warning: ") && l.contains(" was trained on runs placed on "))
            out << l;
    return out;
}

}  // namespace

class TestCliTopology : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString path(const QString& name) const { return m_dir.filePath(name); }
    void train(const QString& out, const QString& measurements, const QString& cluster);

private slots:
    void initTestCase();
    void trainRecordsTheTopology();
    void predictWarnsWhenTopologiesDiffer_data();
    void predictWarnsWhenTopologiesDiffer();
    void searchCarriesTheWarning_data();
    void searchCarriesTheWarning();
    void oldModelFileLoads();
    void missingClusterIsAnError();
};

void TestCliTopology::train(const QString& out, const QString& measurements, const QString& cluster)
{
    QStringList args{"train", "--measurements", measurements, "--out", out, "--no-tune", "--folds", "3"};
    if (!cluster.isEmpty())
        args << "--cluster" << cluster;
    RUN_EXPECT(r, args, 0);
}

void TestCliTopology::initTestCase()
{
    QVERIFY(m_dir.isValid());
    train(path("synthetic.json"), data("megatron_ci_small.csv"), "");
    train(path("dgx.json"), data("megatron_ci_small.csv"), data("dgx-a100-h100.json"));
    train(path("mixed.json"), data("megatron_ci_small_mixed.csv"), "");
}

void TestCliTopology::trainRecordsTheTopology()
{
    const QStringList args{"train",
                           "--measurements",
                           data("megatron_ci_small_mixed.csv"),
                           "--out",
                           path("m.json"),
                           "--no-tune",
                           "--folds",
                           "3"};
    RUN_EXPECT(r, args, 0);
    QVERIFY2(r.out.contains("runs placed on cluster dgx-a100 (fingerprint "), qPrintable(r.out));
    QVERIFY2(r.out.contains("for 4 run(s) and cluster dgx-h100 (fingerprint "), qPrintable(r.out));

    const QJsonObject synth = readJson(path("synthetic.json"))["trained_on"].toObject()["topology"].toObject();
    QCOMPARE(synth["synthetic_runs"].toInt(), 7);
    QVERIFY(synth["clusters"].toArray().isEmpty());
    const QJsonArray dgx
        = readJson(path("dgx.json"))["trained_on"].toObject()["topology"].toObject()["clusters"].toArray();
    QCOMPARE(dgx.size(), 1);
    QCOMPARE(dgx[0].toObject()["name"].toString(), QString("dgx-a100-and-h100"));
    QCOMPARE(dgx[0].toObject()["runs"].toInt(), 7);
    QCOMPARE(dgx[0].toObject()["fingerprint"].toString().size(), 16);
}

void TestCliTopology::predictWarnsWhenTopologiesDiffer_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("cluster");  // "" = synthetic placement
    QTest::addColumn<bool>("warns");
    QTest::newRow("synthetic model, synthetic placement") << "synthetic.json"
                                                          << "" << false;
    QTest::newRow("synthetic model on the DGX cluster") << "synthetic.json"
                                                        << "dgx-a100-h100.json" << true;
    QTest::newRow("DGX model on the DGX cluster") << "dgx.json"
                                                  << "dgx-a100-h100.json" << false;
    QTest::newRow("DGX model, synthetic placement") << "dgx.json"
                                                    << "" << true;
    QTest::newRow("DGX model on a DGX A100 alone") << "dgx.json"
                                                   << "dgx-a100.json" << true;
}

void TestCliTopology::predictWarnsWhenTopologiesDiffer()
{
    QFETCH(QString, model);
    QFETCH(QString, cluster);
    QFETCH(bool, warns);
    // Queries: the A100 runs only, so that a DGX A100 alone can host them.
    const auto all = memx::MeasurementCsv::read(data("megatron_ci_small.csv").toStdString()).rows;
    std::vector<memx::Measurement> a100;
    for (memx::Measurement m : all)
        if (m.gpuType == "A100-80GB") {
            m.iterationTimeMs.reset();
            m.stageTimeMs.reset();
            m.peakMemMiB.reset();
            a100.push_back(m);
        }
    memx::MeasurementCsv::save(path("queries.csv").toStdString(), a100, memx::MeasurementCsv::Kind::RunList);
    QStringList args{"predict", "--model", path(model), "--queries", path("queries.csv"), "--out", path("p.csv")};
    if (!cluster.isEmpty())
        args << "--cluster" << data(cluster.toUtf8().constData());
    RUN_EXPECT(r, args, 0);
    const QStringList w = topologyWarnings(r.err);
    QCOMPARE(w.size(), warns ? 1 : 0);
    if (warns) {
        QVERIFY2(w[0].startsWith("warning: " + path(model) + " was trained on runs placed on "), qPrintable(w[0]));
        QVERIFY2(w[0].contains(cluster.isEmpty() ? QString("now used on the synthetic cluster")
                                                 : "now used on cluster "
                                       + readJson(data(cluster.toUtf8().constData()))["name"].toString()),
                 qPrintable(w[0]));
    }
}

void TestCliTopology::searchCarriesTheWarning_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<bool>("warns");
    QTest::newRow("trained on the synthetic placement") << "synthetic.json" << true;
    QTest::newRow("trained on a DGX A100 and a DGX H100 (mixed set)") << "mixed.json" << false;
}

// Search a DGX A100 with the model of the first A100 run (its structure is one the predictors saw).
void TestCliTopology::searchCarriesTheWarning()
{
    QFETCH(QString, model);
    QFETCH(bool, warns);
    const auto rows = memx::MeasurementCsv::read(data("megatron_ci_small.csv").toStdString()).rows;
    const memx::Measurement& m = rows.front();
    QCOMPARE(m.gpuType, std::string("A100-80GB"));
    const QJsonObject spec{{"format", "memx-model/1"},  {"name", "ci-model"},
                           {"num_layers", m.numLayers}, {"hidden", m.hidden},
                           {"heads", m.heads},          {"query_groups", m.queryGroups},
                           {"ffn_hidden", m.ffnHidden}, {"vocab", m.vocab},
                           {"seq_len", m.seqLen},       {"mlp", QString::fromLatin1(memx::toString(m.mlp))}};
    QVERIFY(writeJson(path("model.json"), spec));
    const QStringList args{"search",
                           "--cluster",
                           data("dgx-a100.json"),
                           "--model",
                           path("model.json"),
                           "--gbs",
                           QString::number(m.gbs),
                           "--mbs",
                           QString::number(m.mbs),
                           "--predictor",
                           path(model),
                           "--json",
                           path("search.json")};
    RUN_EXPECT(r, args, 0);
    const QStringList w = topologyWarnings(r.err);
    QCOMPARE(w.size(), warns ? 1 : 0);
    bool inJson = false;
    for (const auto& n : readJson(path("search.json"))["notes"].toArray())
        inJson = inJson || n.toString().contains(" was trained on runs placed on ");
    QCOMPARE(inJson, warns);
    QCOMPARE(r.out.contains("note: " + path(model) + " was trained on runs placed on the synthetic cluster"), warns);
}

void TestCliTopology::oldModelFileLoads()
{
    // nlohmann, not QJson: the booster's floats must stay floats (1.0 is not 1 to XGBoost).
    nlohmann::json doc = nlohmann::json::parse(std::ifstream(path("synthetic.json").toStdString()));
    QVERIFY(doc["trained_on"].erase("topology") == 1);  // as written before topologies were recorded
    std::ofstream(path("old.json").toStdString()) << doc.dump(1);
    const QStringList plain{"predict", "--model",        path("old.json"), "--queries", data("megatron_ci_small.csv"),
                            "--out",   path("old-p.csv")};
    RUN_EXPECT(r, plain, 0);
    QVERIFY2(topologyWarnings(r.err).isEmpty(), qPrintable(r.err));
    QStringList onCluster = plain;
    onCluster << "--cluster" << data("dgx-a100-h100.json");
    RUN_EXPECT(c, onCluster, 0);
    const QStringList w = topologyWarnings(c.err);
    QCOMPARE(w.size(), 1);
    QVERIFY2(w[0].contains("records no topology"), qPrintable(w[0]));
}

void TestCliTopology::missingClusterIsAnError()
{
    // The mixed set copied away from its cluster files.
    const QString copy = path("alone.csv");
    QVERIFY(QFile::copy(data("megatron_ci_small_mixed.csv"), copy));
    const QStringList args{"train", "--measurements", copy, "--out", path("never.json"), "--no-tune"};
    RUN_EXPECT(r, args, 2);
    QVERIFY2(r.err.contains(copy + ": run "), qPrintable(r.err));
    QVERIFY2(r.err.contains(", column cluster: cluster file \"dgx-a100.json\" not found"), qPrintable(r.err));
    QVERIFY(!QFile::exists(path("never.json")));
}

MEMX_TEST_GUILESS_MAIN(TestCliTopology)
}  // namespace tst_cli_topology

#include "tst_cli_topology.moc"
