// One topology for training and prediction (issue #12, item 4): training runs
// are placed on the cluster given (`train --cluster`, or a run's own `cluster`
// column), the model file records where, and a use on another topology is
// named. The numbers checked come from the cluster files and the data: the
// NVLink bandwidth of a DGX A100 (300 GB/s per direction) and a DGX H100
// (450 GB/s) in tests/data/topology/, which RunScenario's synthetic cluster
// gives these types too (the fabric of a server of the type, documented in
// RunScenario.h), and the runs of megatron_ci_small.csv (4 on A100, 3 on H100).
#include "TestInputErrors.h"
#include "TestPaths.h"

#include "hardware/Cluster.h"
#include "hardware/GpuCatalog.h"
#include "io/JsonReader.h"
#include "predict/PredictorFile.h"
#include "measure/MeasuredRun.h"
#include "measure/MeasurementCsv.h"
#include "learn/PredictorTrainer.h"
#include "measure/RunPlacement.h"
#include "learn/TrainingSet.h"

#include <QTemporaryDir>
#include "TestMain.h"

#include <fstream>
#include <memory>

namespace tst_train_topology {

using namespace memx;

namespace {

const std::string kSmall = test::dataFile("topology/megatron_ci_small.csv");
const std::string kMixed = test::dataFile("topology/megatron_ci_small_mixed.csv");

nlohmann::json clusterDoc(const std::string& name) { return JsonReader::parseFile(test::dataFile("topology/" + name)); }

std::shared_ptr<const Cluster> cluster(const std::string& name)
{
    return std::make_shared<const Cluster>(Cluster::fromFile(test::dataFile("topology/" + name)));
}

Cluster fromDoc(const nlohmann::json& doc) { return Cluster::fromJson(doc, "t.json", GpuCatalog::builtin()); }

// The training set of `file`, placed on `clusterFile` ("" = synthetic).
TrainingSet buildSet(const std::string& file, const std::string& clusterFile)
{
    RunPlacement place(clusterFile.empty() ? nullptr : cluster(clusterFile));
    return TrainingSet::build(MeasurementCsv::read(file).rows, file, GpuCatalog::builtin(), &place);
}

LearnedPredictor trainQuick(const TrainingSet& set)
{
    PredictorTrainer::Options opt;
    opt.tune = false;
    opt.folds = 3;
    opt.params.rounds = 20;
    opt.params.maxDepth = 3;
    TrainReport report;
    return PredictorTrainer::train(set, opt, report);
}

}  // namespace

class TestTrainTopology : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void fingerprint_data();
    void fingerprint();
    void trainingSeesTheClusterLinks_data();
    void trainingSeesTheClusterLinks();
    void sailorRunsSeeTheirMachinesWiring_data();
    void sailorRunsSeeTheirMachinesWiring();
    void predictSeesWhatTrainingSaw();
    void modelFileRecordsTheTopology();
    void oldModelFileLoadsAsSynthetic();
    void mismatch_data();
    void mismatch();
    void mismatchPerGpuType();
    void clusterColumnRoundTrips();
    void rowsOfARunAgreeOnTheCluster();
    void missingClusterIsAnError_data();
    void missingClusterIsAnError();
};

void TestTrainTopology::fingerprint_data()
{
    QTest::addColumn<QString>("change");
    QTest::addColumn<bool>("same");
    QTest::newRow("cluster renamed") << "name" << true;
    QTest::newRow("description and link renamed") << "cosmetic" << true;
    QTest::newRow("NVLink 300 -> 200 GB/s") << "bandwidth" << false;
    QTest::newRow("latency 3 -> 5 us") << "latency" << false;
    QTest::newRow("A100 -> H100 GPUs") << "gpu" << false;
}

void TestTrainTopology::fingerprint()
{
    QFETCH(QString, change);
    QFETCH(bool, same);
    const nlohmann::json base = clusterDoc("dgx-a100.json");
    nlohmann::json doc = base;
    if (change == "name")
        doc["name"] = "another-name";
    if (change == "cosmetic") {
        doc["description"] = "something else";
        doc["links"][0]["name"] = "fabric";
    }
    if (change == "bandwidth")
        doc["links"][0]["bandwidth_gbps"] = 200;
    if (change == "latency")
        doc["links"][0]["latency_us"] = 5;
    if (change == "gpu")
        doc["nodes"][0]["gpus"][0]["type"] = "H100-SXM";
    const std::string a = TrainedTopology::fingerprint(fromDoc(base)), b = TrainedTopology::fingerprint(fromDoc(doc));
    QCOMPARE(a == b, same);
    QCOMPARE(a.size(), std::size_t(16));  // FNV-1a 64 in hex
}

void TestTrainTopology::trainingSeesTheClusterLinks_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("cluster");  // "" = synthetic
    QTest::addColumn<double>("a100Link");  // GB/s of the TP rings of A100 runs with TP > 1
    QTest::addColumn<double>("h100Link");
    QTest::addColumn<int>("syntheticRuns");
    QTest::addColumn<QStringList>("clusters");  // name:runs
    QTest::newRow("synthetic") << QString::fromStdString(kSmall) << "" << 300.0 << 450.0 << 7 << QStringList{};
    QTest::newRow("--cluster, both DGX nodes") << QString::fromStdString(kSmall) << "dgx-a100-h100.json" << 300.0
                                               << 450.0 << 0 << QStringList{"dgx-a100-and-h100:7"};
    QTest::newRow("mixed set: a cluster per run")
        << QString::fromStdString(kMixed) << "" << 300.0 << 450.0 << 0 << QStringList{"dgx-a100:4", "dgx-h100:3"};
    // A run's own cluster wins over --cluster.
    QTest::newRow("mixed set with --cluster") << QString::fromStdString(kMixed) << "dgx-a100-h100.json" << 300.0
                                              << 450.0 << 0 << QStringList{"dgx-a100:4", "dgx-h100:3"};
}

void TestTrainTopology::trainingSeesTheClusterLinks()
{
    QFETCH(QString, file);
    QFETCH(QString, cluster);
    QFETCH(double, a100Link);
    QFETCH(double, h100Link);
    QFETCH(int, syntheticRuns);
    QFETCH(QStringList, clusters);
    const TrainingSet set = buildSet(file.toStdString(), cluster.toStdString());
    QVERIFY2(set.skipped.empty(), set.skipped.empty() ? "" : set.skipped.front().c_str());
    QCOMPARE(set.runs.size(), std::size_t(7));
    int checked = 0;
    for (const TrainingRow& row : set.rows) {
        if (row.query.tp == 1)
            continue;
        const double expected = row.query.gpu->name == "H100-SXM" ? h100Link : a100Link;
        QCOMPARE(row.query.tpLinkGBps, expected);
        ++checked;
    }
    QVERIFY(checked >= 4);  // A100 TP 2 and 4, H100 TP 2 and 4
    QCOMPARE(set.topology.syntheticRuns, std::size_t(syntheticRuns));
    QStringList got;
    for (const auto& c : set.topology.clusters)
        got << QString("%1:%2").arg(QString::fromStdString(c.name)).arg(c.runs);
    QCOMPARE(got, clusters);
}

// Sailor's layer profiles name the clusters Sailor's own send/recv measurement
// of its machines gives (tests/data/datasets/sailor_intra_node_bandwidths.json:
// the largest aggregate bytes/s of W/2 concurrent pairs, divided by the pairs).
// The profiled layer is stage 1, so it runs on the second TP slice of a node:
// GPUs 2-3 at TP 2 (an RTX-3090 NVLink pair, 49769218367.6 B/s), 4-7 at TP 4
// (pairs 4-5 and 6-7 joined at 7861831446.0 / 2 B/s on the RTX-3090), a whole
// second node at TP 8 (halves joined at 5326931791.9 / 4 B/s). The ring's TP
// link is its slowest hop, to three significant figures as the converter writes it.
// V100 has no 8-GPU measurement and keeps the synthetic node's NVLink.
void TestTrainTopology::sailorRunsSeeTheirMachinesWiring_data()
{
    QTest::addColumn<QString>("runId");
    QTest::addColumn<double>("tpLinkGBps");
    QTest::newRow("RTX-3090 TP 2: its NVLink bridge") << "sailor__OPT-350__RTX-3090__mbs8_tp2" << 49.8;
    QTest::newRow("RTX-3090 TP 4: across pairs") << "sailor__OPT-350__RTX-3090__mbs8_tp4" << 3.93;
    QTest::newRow("RTX-3090 TP 8: across halves") << "sailor__OPT-350__RTX-3090__mbs8_tp8" << 1.33;
    QTest::newRow("Titan-RTX TP 8") << "sailor__OPT-350__Titan-RTX__mbs8_tp8" << 6.08;  // 24304314860.6 / 4
    // RTX-2080 TP 4: across pairs 22666820280.2 / 2 B/s, but its pairs are slower (10755624404.2).
    QTest::newRow("RTX-2080 TP 4: its pairs") << "sailor__OPT-350__RTX-2080__mbs4_tp4" << 10.8;
    QTest::newRow("GH200 TP 4") << "sailor__OPT-30__GH-96__mbs8_tp4" << 125.0;  // 250558342885.7 / 2
    QTest::newRow("A100-40GB TP 2") << "sailor__OPT-350__A100-40__mbs8_tp2" << 249.0;  // 248876169884.1
    QTest::newRow("V100-16GB TP 8: synthetic") << "sailor__OPT-350__V100-16__mbs1_tp8" << 300.0;
}

void TestTrainTopology::sailorRunsSeeTheirMachinesWiring()
{
    QFETCH(QString, runId);
    QFETCH(double, tpLinkGBps);
    static const TrainingSet set = buildSet(test::dataFile("measurements/sailor_layers.csv"), "");
    QVERIFY2(set.skipped.empty(), set.skipped.empty() ? "" : set.skipped.front().c_str());
    const TrainingRow* row = nullptr;
    for (const TrainingRow& r : set.rows)
        if (set.runs[static_cast<std::size_t>(r.run)].runId == runId.toStdString())
            row = &r;
    QVERIFY2(row, qPrintable(runId));
    QCOMPARE(row->query.tpLinkGBps, tpLinkGBps);
}

// The learned model sees in `predict --cluster C` exactly the stage features
// it was trained with on C, so the same run gets the answer training assumed.
void TestTrainTopology::predictSeesWhatTrainingSaw()
{
    const TrainingSet set = buildSet(kSmall, "dgx-a100-h100.json");
    auto model = std::make_shared<const LearnedPredictor>(trainQuick(set));
    // Another cluster of the same GPUs whose NVLink is 200 GB/s.
    nlohmann::json slowDoc = clusterDoc("dgx-a100-h100.json");
    for (auto& link : slowDoc["links"])
        if (link["kind"] == "NVLink")
            link["bandwidth_gbps"] = 200;
    RunPlacement onCluster(cluster("dgx-a100-h100.json")), elsewhere(std::make_shared<const Cluster>(fromDoc(slowDoc)));
    int differElsewhere = 0;
    for (std::size_t r = 0; r < set.runs.size(); ++r) {
        std::vector<std::string> skipped;
        const auto same = onCluster.predict(set.runs[r], kSmall, GpuCatalog::builtin(), model, skipped);
        const auto other = elsewhere.predict(set.runs[r], kSmall, GpuCatalog::builtin(), model, skipped);
        QVERIFY(same && other);
        // Every stage has a label (the runs all have an iteration time), so
        // the run's rows are its stages in pipeline order.
        std::size_t stage = 0;
        for (std::size_t i = 0; i < set.rows.size(); ++i) {
            const TrainingRow& row = set.rows[i];
            if (row.run != static_cast<int>(r))
                continue;
            QVERIFY(stage < same->queries.size());
            StageQuery q = same->queries[stage];
            QCOMPARE(q.gpu->name, row.query.gpu->name);
            q.gpu = row.query.gpu;
            QVERIFY2(q == row.query, set.runs[r].runId.c_str());
            StagePrediction trained;
            model->predict(std::span<const StageQuery>(&row.query, 1), std::span<StagePrediction>(&trained, 1));
            QCOMPARE(same->plan.stages[stage].timeMs, trained.timeMs);
            if (other->queries[stage].tpLinkGBps != row.query.tpLinkGBps)
                ++differElsewhere;
            ++stage;
        }
        QCOMPARE(stage, set.runs[r].stages.size());
    }
    QVERIFY(differElsewhere > 0);  // the other cluster would have shown other links
}

void TestTrainTopology::modelFileRecordsTheTopology()
{
    const TrainingSet set = buildSet(kMixed, "");
    const LearnedPredictor model = trainQuick(set);
    const std::string file = m_dir.filePath("mixed.json").toStdString();
    PredictorFile::save(file, model, set.metadata());
    const PredictorFile::Loaded loaded = PredictorFile::load(file);
    const TrainedTopology& t = loaded.metadata.topology;
    QVERIFY(t.recorded);
    QCOMPARE(t.syntheticRuns, std::size_t(0));
    QCOMPARE(t.clusters.size(), std::size_t(2));
    QCOMPARE(t.clusters[0].name, std::string("dgx-a100"));
    QCOMPARE(t.clusters[0].fingerprint, TrainedTopology::fingerprint(*cluster("dgx-a100.json")));
    QCOMPARE(t.clusters[1].runs, std::size_t(3));
    QVERIFY(t.clusters == set.topology.clusters);
}

void TestTrainTopology::oldModelFileLoadsAsSynthetic()
{
    const TrainingSet set = buildSet(kSmall, "");
    nlohmann::json doc = PredictorFile::toJson(trainQuick(set), set.metadata());
    doc["trained_on"].erase("topology");  // as written before topologies were recorded
    const PredictorFile::Loaded old = PredictorFile::fromJson(doc, "old.json");
    QVERIFY(old.predictor);
    QVERIFY(!old.metadata.topology.recorded);
    // Such a file was trained on the synthetic cluster as it was wired then
    // (every NVLink 200 GB/s): a synthetic use now says so.
    QCOMPARE(old.metadata.topology.syntheticWiring, 1);
    const std::string now = old.metadata.topology.mismatch(nullptr, "old.json");
    QVERIFY2(now.find("old.json was trained on the synthetic cluster as MemX wired it before 2026-12-03") == 0,
             now.c_str());
    // A file written now records the wiring and matches a synthetic use.
    nlohmann::json fresh = PredictorFile::toJson(trainQuick(set), set.metadata());
    QCOMPARE(fresh["trained_on"]["topology"]["synthetic_wiring"].get<int>(), TrainedTopology::kSyntheticWiring);
    QVERIFY(PredictorFile::fromJson(fresh, "new.json").metadata.topology.mismatch(nullptr, "new.json").empty());
    fresh["trained_on"]["topology"]["synthetic_wiring"] = 7;
    test::expectInputError([&] { PredictorFile::fromJson(fresh, "new.json"); }, "new.json",
                           "/trained_on/topology/synthetic_wiring", "must be 1 or 2 (got 7)");
    const Cluster dgx = fromDoc(clusterDoc("dgx-a100.json"));
    const std::string w = old.metadata.topology.mismatch(&dgx, "old.json");
    QVERIFY2(w.find("records no topology") != std::string::npos, w.c_str());
    QVERIFY2(w.find("synthetic") != std::string::npos, w.c_str());
}

void TestTrainTopology::mismatch_data()
{
    QTest::addColumn<QString>("trained");  // synthetic | a100 | mixed (A100 and H100 node files)
    QTest::addColumn<QString>("used");  // synthetic | a100 | a100-renamed | a100-slower | h100 | both
    QTest::addColumn<bool>("warns");
    QTest::newRow("synthetic on synthetic") << "synthetic"
                                            << "synthetic" << false;
    QTest::newRow("synthetic as wired before on synthetic") << "synthetic-1"
                                                            << "synthetic" << true;
    QTest::newRow("synthetic on DGX A100") << "synthetic"
                                           << "a100" << true;
    QTest::newRow("DGX A100 on DGX A100") << "a100"
                                          << "a100" << false;
    QTest::newRow("DGX A100 on the same, renamed") << "a100"
                                                   << "a100-renamed" << false;
    QTest::newRow("DGX A100 on slower NVLink") << "a100"
                                               << "a100-slower" << true;
    QTest::newRow("DGX A100 on synthetic") << "a100"
                                           << "synthetic" << true;
    QTest::newRow("DGX A100 on DGX H100") << "a100"
                                          << "h100" << true;
    QTest::newRow("mixed on DGX H100") << "mixed"
                                       << "h100" << false;
    QTest::newRow("mixed on both nodes in one cluster") << "mixed"
                                                        << "both" << true;
}

void TestTrainTopology::mismatch()
{
    QFETCH(QString, trained);
    QFETCH(QString, used);
    QFETCH(bool, warns);
    TrainedTopology t;
    if (trained == "synthetic" || trained == "synthetic-1")
        t.add(nullptr);
    if (trained == "synthetic-1")
        t.syntheticWiring = 1;
    if (trained == "a100" || trained == "mixed")
        t.add(cluster("dgx-a100.json").get());
    if (trained == "mixed")
        t.add(cluster("dgx-h100.json").get());
    nlohmann::json doc = clusterDoc(used == "h100"       ? "dgx-h100.json"
                                        : used == "both" ? "dgx-a100-h100.json"
                                                         : "dgx-a100.json");
    if (used == "a100-renamed")
        doc["name"] = "my-dgx";
    if (used == "a100-slower")
        doc["links"][0]["bandwidth_gbps"] = 150;
    const Cluster c = fromDoc(doc);
    const std::string w = t.mismatch(used == "synthetic" ? nullptr : &c, "model.json");
    QVERIFY2(w.empty() != warns, w.c_str());
    if (warns) {
        // One line naming the model file, what it was trained on and what it is used on.
        QVERIFY(w.find('\n') == std::string::npos);
        QVERIFY2(w.rfind("model.json was trained on ", 0) == 0, w.c_str());
        const std::string use = trained == "synthetic-1" ? "the synthetic cluster now wires each node"
            : used == "synthetic"                        ? "now used on the synthetic cluster"
                                                         : "now used on cluster " + c.name();
        QVERIFY2(w.find(use) != std::string::npos, w.c_str());
    }
}

// Sailor's V100 runs sit on the synthetic cluster, its A100-40GB runs on
// the machine Sailor measured: a model of both, used for A100-40GB on the
// synthetic cluster, warns although it saw the synthetic cluster (for the
// V100s); V100s there, A100-40GB on their own machine, and a type the model
// never saw (left to the callers' own warnings) do not.
void TestTrainTopology::mismatchPerGpuType()
{
    static const TrainingSet set = buildSet(test::dataFile("measurements/sailor_layers.csv"), "");
    const TrainedTopology& t = set.topology;
    QCOMPARE(t.syntheticGpuTypes, std::vector<std::string>{"V100-16GB"});
    const std::string w = t.mismatch(nullptr, "sailor.json", {"A100-40GB", "V100-16GB"});
    QVERIFY2(w.rfind("sailor.json learned A100-40GB on runs placed on other topologies than the synthetic cluster", 0)
                 == 0,
             w.c_str());
    QVERIFY2(t.mismatch(nullptr, "sailor.json", {"V100-16GB"}).empty(), "V100s trained on the synthetic cluster");
    QVERIFY2(t.mismatch(nullptr, "sailor.json", {"H100-SXM"}).empty(), "a type the model never saw");
    const auto a100 = Cluster::fromFile(test::dataFile("measurements/clusters/sailor-A100-40GB.json"));
    QVERIFY2(t.mismatch(&a100, "sailor.json", {"A100-40GB"}).empty(), "A100-40GB on its own machine");
    QVERIFY(!t.mismatch(&a100, "sailor.json", {"V100-16GB"}).empty());
    // The types survive the model file; a file without them (written before
    // 2026-12-04) skips the per-type check.
    nlohmann::json doc = PredictorFile::toJson(trainQuick(set), set.metadata());
    const TrainedTopology back = PredictorFile::fromJson(doc, "sailor.json").metadata.topology;
    QVERIFY(back.typesRecorded);
    QCOMPARE(back.syntheticGpuTypes, t.syntheticGpuTypes);
    QVERIFY(back.clusters == t.clusters);
    doc["trained_on"]["topology"].erase("synthetic_gpu_types");
    for (auto& c : doc["trained_on"]["topology"]["clusters"])
        c.erase("gpu_types");
    const TrainedTopology old = PredictorFile::fromJson(doc, "old.json").metadata.topology;
    QVERIFY(!old.typesRecorded);
    QVERIFY(old.mismatch(nullptr, "old.json", {"A100-40GB"}).empty());
}

void TestTrainTopology::clusterColumnRoundTrips()
{
    const MeasurementSet mixed = MeasurementCsv::read(kMixed);
    QCOMPARE(mixed.rows.front().cluster, std::string("dgx-a100.json"));
    const std::string text = MeasurementCsv::write(mixed.rows);
    // These GPT runs kept Megatron's dropout, the last optional columns, so
    // the writer gives every optional column up to them.
    QVERIFY(text.find(",cluster,precision,peak_mem_kind,mlp,tied_embeddings,attention,attention_dropout,"
                      "hidden_dropout\n")
            != std::string::npos);
    QCOMPARE(MeasurementCsv::parse(text, "again.csv").rows, mixed.rows);
    // A file that needs none of the optional columns is written without them.
    std::vector<Measurement> plainRows = MeasurementCsv::read(kSmall).rows;
    for (Measurement& m : plainRows) {
        m.mlp = MlpKind::SwiGlu;
        m.tiedEmbeddings = false;
        m.flashAttention = true;
        m.attentionDropout = m.hiddenDropout = 0;
    }
    const std::string plain = MeasurementCsv::write(plainRows);
    QVERIFY(plain.find("cluster") == std::string::npos);
}

void TestTrainTopology::rowsOfARunAgreeOnTheCluster()
{
    const std::string text = "run_id,gpu_type,num_gpus,tp,pp,dp,mbs,gbs,seq_len,num_layers,hidden,heads,vocab,stage,"
                             "stage_layers,iteration_time_ms,peak_mem_mib,cluster\n"
                             "r1,A100-80GB,8,8,1,1,1,8,2048,4,1024,8,32000,,,100,,a.json\n"
                             "r1,A100-80GB,8,8,1,1,1,8,2048,4,1024,8,32000,0,4,,2000,b.json\n";
    test::expectInputError([&] { MeasurementCsv::parse(text, "m.csv"); }, "m.csv", "line 3, column cluster",
                           "differs from \"a.json\" on line 2 of the same run \"r1\"");
}

void TestTrainTopology::missingClusterIsAnError_data()
{
    QTest::addColumn<QString>("cell");
    QTest::addColumn<QString>("reason");
    QTest::newRow("no such file") << "gone.json"
                                  << "cluster file \"gone.json\" not found";
    QTest::newRow("not a cluster") << "m.csv"
                                   << "cluster file \"m.csv\" is not a valid cluster";
}

void TestTrainTopology::missingClusterIsAnError()
{
    QFETCH(QString, cell);
    QFETCH(QString, reason);
    const std::string file = m_dir.filePath("m.csv").toStdString();
    std::ofstream(file) << "run_id,gpu_type,num_gpus,tp,pp,dp,mbs,gbs,seq_len,num_layers,hidden,heads,vocab,"
                           "iteration_time_ms,cluster\n"
                           "ok,A100-80GB,8,8,1,1,1,8,2048,4,1024,8,32000,100,\n"
                           "far,A100-80GB,8,8,1,1,1,8,2048,4,1024,8,32000,100,"
                        << cell.toStdString() << "\n";
    const std::vector<Measurement> rows = MeasurementCsv::read(file).rows;
    // Training stops (a skip would train a model on part of the set without saying where the rest went).
    test::expectInputError([&] { TrainingSet::build(rows, file, GpuCatalog::builtin()); }, file,
                           "run far, column cluster", reason);
}

MEMX_TEST_APPLESS_MAIN(TestTrainTopology)
}  // namespace tst_train_topology

#include "tst_train_topology.moc"
