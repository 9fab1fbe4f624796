// Regression rows for issue #14 (plans: tst_plan_json_reader; projects:
// tests/gui/tst_project_file): every bad input is refused with the file,
// the field (JSON path, or CSV line and column) and the reason; nothing
// overflows, nothing crashes, nothing absurd is accepted in silence. Each
// range has a row showing that "allow_outside_range" admits a real outlier.
#include "TestInputErrors.h"

#include "hardware/Cluster.h"
#include "hardware/GpuCatalog.h"
#include "io/InputError.h"
#include "io/JsonReader.h"
#include "model/ModelSpec.h"
#include "predict/PredictorFile.h"
#include "predict/StageFeatures.h"
#include "measure/MeasurementCsv.h"

#include "TestMain.h"

namespace tst_bad_inputs {

using namespace memx;

namespace {

const nlohmann::json& clusterDoc()
{
    static const nlohmann::json doc = nlohmann::json::parse(R"({
      "format": "memx-cluster/1", "name": "t",
      "gpu_types": { "A100-80GB": { "calibration": { "efficiency_multiplier": 0.9 } } },
      "nodes": [ { "name": "a", "gpus": [ { "type": "A100-80GB", "count": 4 } ] },
                 { "name": "b", "gpus": [ { "type": "A100-80GB", "count": 4 } ] } ],
      "links": [ { "name": "nvl-a", "kind": "NVLink", "within": "a", "bandwidth_gbps": 240 },
                 { "name": "nvl-b", "kind": "NVLink", "within": "b", "bandwidth_gbps": 240 },
                 { "name": "ib", "kind": "InfiniBand", "between": ["a", "b"], "bandwidth_gbps": 25,
                   "latency_us": 5 } ] })");
    return doc;
}

const nlohmann::json& modelDoc()
{
    static const nlohmann::json doc = nlohmann::json::parse(
        R"({ "format": "memx-model/1", "name": "m", "num_layers": 4, "hidden": 4096, "heads": 16, "vocab": 32000 })");
    return doc;
}

const nlohmann::json& predictorDoc()
{
    // Enough of a memx-predictor/1 file to reach the checks under test.
    static const nlohmann::json doc = {{"format", PredictorFile::kFormat},
                                       {"feature_schema", StageFeatures::kSchema},
                                       {"feature_names", StageFeatures::names()}};
    return doc;
}

// Reads `doc` with the reader named `kind`; throws what the reader throws.
void readAs(const QString& kind, const nlohmann::json& doc)
{
    const std::string file = "bad.json";
    if (kind == "cluster")
        Cluster::fromJson(doc, file, GpuCatalog::builtin());
    else if (kind == "model")
        ModelSpec::fromJson(JsonReader(doc, file));
    else if (kind == "predictor")
        PredictorFile::fromJson(doc, file);
    else
        QFAIL("unknown reader");
}

nlohmann::json baseOf(const QString& kind)
{
    if (kind == "cluster")
        return clusterDoc();
    if (kind == "model")
        return modelDoc();
    return predictorDoc();
}

nlohmann::json edited(const QString& kind, const QString& edit, const QString& value)
{
    nlohmann::json doc = baseOf(kind);
    doc[nlohmann::json::json_pointer(edit.toStdString())] = nlohmann::json::parse(value.toStdString());
    return doc;
}

const char* const kCsvHeader = "run_id,gpu_type,num_gpus,tp,pp,dp,mbs,gbs,seq_len,num_layers,hidden,heads,vocab,"
                               "iteration_time_ms\n";
const char* const kStageHeader = "run_id,gpu_type,num_gpus,tp,pp,dp,mbs,gbs,seq_len,num_layers,hidden,heads,vocab,"
                                 "stage,stage_layers,stage_time_ms,peak_mem_mib\n";

}  // namespace

class TestBadInputs : public QObject {
    Q_OBJECT
private slots:
    void jsonDocument_data();
    void jsonDocument();
    void rangeOverride_data();
    void rangeOverride();
    void overrideSurvivesWriting();
    void clusterTotalOverride();
    void jsonText_data();
    void jsonText();
    void measurementCsv_data();
    void measurementCsv();
    void defaultFfnIn64Bits();
};

void TestBadInputs::jsonDocument_data()
{
    QTest::addColumn<QString>("reader");
    QTest::addColumn<QString>("edit");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("reason");
    // Absurd but positive values.
    QTest::newRow("bandwidth 1e-300") << "cluster"
                                      << "/links/2/bandwidth_gbps"
                                      << "1e-300"
                                      << "/links/2/bandwidth_gbps"
                                      << "outside the plausible range 0.01-10000 GB/s";
    QTest::newRow("latency 1e308") << "cluster"
                                   << "/links/2/latency_us"
                                   << "1e308"
                                   << "/links/2/latency_us"
                                   << "outside the plausible range 0-10000 us";
    QTest::newRow("negative latency") << "cluster"
                                      << "/links/2/latency_us"
                                      << "-1"
                                      << "/links/2/latency_us"
                                      << "must not be negative (got -1 us)";
    QTest::newRow("efficiency multiplier 1e-300") << "cluster"
                                                  << "/gpu_types/A100-80GB/calibration/efficiency_multiplier"
                                                  << "1e-300"
                                                  << "/gpu_types/A100-80GB/calibration/efficiency_multiplier"
                                                  << "outside the plausible range 0.05-5";
    QTest::newRow("memory multiplier 9") << "cluster"
                                         << "/gpu_types/A100-80GB/calibration/memory_multiplier"
                                         << "9"
                                         << "/gpu_types/A100-80GB/calibration/memory_multiplier"
                                         << "outside the plausible range 0.05-5";
    QTest::newRow("calibration not an object") << "cluster"
                                               << "/gpu_types/A100-80GB/calibration"
                                               << "1"
                                               << "/gpu_types/A100-80GB/calibration"
                                               << "expected an object";
    QTest::newRow("memory 4096 GiB") << "cluster"
                                     << "/gpu_types/A100-80GB/memory_gib"
                                     << "4096"
                                     << "/gpu_types/A100-80GB/memory_gib"
                                     << "outside the plausible range 1-1024 GiB";
    QTest::newRow("5000 GPUs in a node") << "cluster"
                                         << "/nodes/0/gpus/0/count"
                                         << "5000"
                                         << "/nodes/0/gpus/0/count"
                                         << "outside the plausible range 1-4096";
    QTest::newRow("count 2^32") << "cluster"
                                << "/nodes/0/gpus/0/count"
                                << "4294967296"
                                << "/nodes/0/gpus/0/count"
                                << "too large";
    QTest::newRow("count 2^64-1") << "cluster"
                                  << "/nodes/0/gpus/0/count"
                                  << "18446744073709551615"
                                  << "/nodes/0/gpus/0/count"
                                  << "too large";
    QTest::newRow("layers 2000") << "model"
                                 << "/num_layers"
                                 << "2000"
                                 << "/num_layers"
                                 << "outside the plausible range 1-1000";
    QTest::newRow("hidden 1e9") << "model"
                                << "/hidden"
                                << "1000000000"
                                << "/hidden"
                                << "outside the plausible range 1-65536";
    QTest::newRow("heads 2048") << "model"
                                << "/heads"
                                << "2048"
                                << "/heads"
                                << "outside the plausible range 1-1024";
    QTest::newRow("vocab 2e7") << "model"
                               << "/vocab"
                               << "20000000"
                               << "/vocab"
                               << "outside the plausible range 1-10000000";
    QTest::newRow("seq_len 2e7") << "model"
                                 << "/seq_len"
                                 << "20000000"
                                 << "/seq_len"
                                 << "outside the plausible range 1-10000000 tokens";
    QTest::newRow("peak 1e9 TFLOP/s") << "cluster"
                                      << "/gpu_types/A100-80GB/peak_tflops_bf16"
                                      << "1e9"
                                      << "/gpu_types/A100-80GB/peak_tflops_bf16"
                                      << "outside the plausible range 0.1-100000 TFLOP/s";
    QTest::newRow("memory bandwidth 0.001") << "cluster"
                                            << "/gpu_types/A100-80GB/memory_bandwidth_gbps"
                                            << "0.001"
                                            << "/gpu_types/A100-80GB/memory_bandwidth_gbps"
                                            << "outside the plausible range 1-100000 GB/s";
    QTest::newRow("launch overhead 1e300") << "cluster"
                                           << "/gpu_types/A100-80GB/launch_overhead_us_per_layer"
                                           << "1e300"
                                           << "/gpu_types/A100-80GB/launch_overhead_us_per_layer"
                                           << "outside the plausible range 0-10000 us per layer";
    QTest::newRow("host time per kernel 5000 us") << "cluster"
                                                  << "/gpu_types/A100-80GB/launch_overhead_us"
                                                  << "5000"
                                                  << "/gpu_types/A100-80GB/launch_overhead_us"
                                                  << "outside the plausible range 0-2000 us";
    QTest::newRow("schedule step 2e5 us") << "cluster"
                                          << "/gpu_types/A100-80GB/step_overhead_us"
                                          << "200000"
                                          << "/gpu_types/A100-80GB/step_overhead_us"
                                          << "outside the plausible range 0-100000 us";
    QTest::newRow("iteration overhead -1 ms") << "cluster"
                                              << "/gpu_types/A100-80GB/iteration_overhead_ms"
                                              << "-1"
                                              << "/gpu_types/A100-80GB/iteration_overhead_ms"
                                              << "";
    QTest::newRow("SM count 2.5") << "cluster"
                                  << "/gpu_types/A100-80GB/sm_count"
                                  << "2.5"
                                  << "/gpu_types/A100-80GB/sm_count"
                                  << "expected an integer";
    QTest::newRow("ffn_hidden 2e6") << "model"
                                    << "/ffn_hidden"
                                    << "2000000"
                                    << "/ffn_hidden"
                                    << "outside the plausible range 1-1048576";
    QTest::newRow("head_dim 2048") << "model"
                                   << "/head_dim"
                                   << "2048"
                                   << "/head_dim"
                                   << "outside the plausible range 1-1024";
    QTest::newRow("layers 1.5") << "model"
                                << "/num_layers"
                                << "1.5"
                                << "/num_layers"
                                << "expected an integer";
    QTest::newRow("mlp relu") << "model"
                              << "/mlp"
                              << R"("relu")"
                              << "/mlp"
                              << "mlp must be swiglu or gelu, got \"relu\"";
    QTest::newRow("mlp 1") << "model"
                           << "/mlp"
                           << "1"
                           << "/mlp"
                           << "expected a string";
    // Wrong JSON types name the path.
    QTest::newRow("trained_on GPU type 7") << "predictor"
                                           << "/trained_on"
                                           << R"({"gpu_types": [7]})"
                                           << "/trained_on/gpu_types/0"
                                           << "expected a string";
    QTest::newRow("feature name 7") << "predictor"
                                    << "/feature_names/3"
                                    << "7"
                                    << "/feature_names/3"
                                    << "expected a string";
}

void TestBadInputs::jsonDocument()
{
    QFETCH(QString, reader);
    QFETCH(QString, edit);
    QFETCH(QString, value);
    QFETCH(QString, field);
    QFETCH(QString, reason);
    const nlohmann::json doc = edited(reader, edit, value);
    test::expectInputError([&] { readAs(reader, doc); }, "bad.json", field, reason);
}

void TestBadInputs::rangeOverride_data()
{
    QTest::addColumn<QString>("reader");
    QTest::addColumn<QString>("edit");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("object");  // where "allow_outside_range" goes
    QTest::newRow("bandwidth") << "cluster"
                               << "/links/2/bandwidth_gbps"
                               << "0.001"
                               << "/links/2";
    QTest::newRow("latency") << "cluster"
                             << "/links/2/latency_us"
                             << "20000"
                             << "/links/2";
    QTest::newRow("efficiency multiplier") << "cluster"
                                           << "/gpu_types/A100-80GB/calibration/efficiency_multiplier"
                                           << "0.01"
                                           << "/gpu_types/A100-80GB/calibration";
    QTest::newRow("memory multiplier") << "cluster"
                                       << "/gpu_types/A100-80GB/calibration/memory_multiplier"
                                       << "6"
                                       << "/gpu_types/A100-80GB/calibration";
    QTest::newRow("GPU memory") << "cluster"
                                << "/gpu_types/A100-80GB/memory_gib"
                                << "2048"
                                << "/gpu_types/A100-80GB";
    QTest::newRow("GPUs per node") << "cluster"
                                   << "/nodes/0/gpus/0/count"
                                   << "5000"
                                   << "/nodes/0/gpus/0";
    QTest::newRow("peak throughput") << "cluster"
                                     << "/gpu_types/A100-80GB/peak_tflops_bf16"
                                     << "200000"
                                     << "/gpu_types/A100-80GB";
    QTest::newRow("memory bandwidth") << "cluster"
                                      << "/gpu_types/A100-80GB/memory_bandwidth_gbps"
                                      << "200000"
                                      << "/gpu_types/A100-80GB";
    QTest::newRow("launch overhead") << "cluster"
                                     << "/gpu_types/A100-80GB/launch_overhead_us_per_layer"
                                     << "20000"
                                     << "/gpu_types/A100-80GB";
    QTest::newRow("ffn_hidden") << "model"
                                << "/ffn_hidden"
                                << "2000000"
                                << "";
    QTest::newRow("head_dim") << "model"
                              << "/head_dim"
                              << "2048"
                              << "";
    QTest::newRow("layers") << "model"
                            << "/num_layers"
                            << "2000"
                            << "";
    QTest::newRow("hidden") << "model"
                            << "/hidden"
                            << "131072"
                            << "";
    QTest::newRow("heads") << "model"
                           << "/heads"
                           << "2048"
                           << "";
    QTest::newRow("vocab") << "model"
                           << "/vocab"
                           << "20000000"
                           << "";
    QTest::newRow("seq_len") << "model"
                             << "/seq_len"
                             << "20000000"
                             << "";
}

void TestBadInputs::rangeOverride()
{
    QFETCH(QString, reader);
    QFETCH(QString, edit);
    QFETCH(QString, value);
    QFETCH(QString, object);
    nlohmann::json doc = edited(reader, edit, value);
    test::expectInputError([&] { readAs(reader, doc); }, "bad.json", edit, "allow_outside_range");
    doc[nlohmann::json::json_pointer(object.toStdString())]["allow_outside_range"] = true;
    try {
        readAs(reader, doc);
    } catch (const InputError& e) {
        QFAIL(e.what());
    }
}

void TestBadInputs::overrideSurvivesWriting()
{
    // A cluster and a model read with the override are written with it, so
    // that a plan or project embedding them reads back.
    nlohmann::json cluster = clusterDoc();
    cluster["links"][2]["bandwidth_gbps"] = 0.001;
    cluster["links"][2]["allow_outside_range"] = true;
    cluster["nodes"][0]["gpus"][0]["count"] = 5000;
    cluster["nodes"][0]["gpus"][0]["allow_outside_range"] = true;
    const Cluster c = Cluster::fromJson(cluster, "c.json", GpuCatalog::builtin());
    const Cluster back = Cluster::fromJson(c.toJson(), "written.json", GpuCatalog::builtin());
    QCOMPARE(back.deviceCount(), 5004);
    nlohmann::json model = modelDoc();
    model["num_layers"] = 2000;
    model["allow_outside_range"] = true;
    const ModelSpec m = ModelSpec::fromJson(JsonReader(model, "m.json"));
    QCOMPARE(ModelSpec::fromJson(JsonReader(m.toJson(), "written.json")).numLayers, 2000);
    // Values inside every range are written without the flag.
    QVERIFY(!ModelSpec::resolve("llama2-7b").toJson().contains("allow_outside_range"));
}

void TestBadInputs::clusterTotalOverride()
{
    // 100,001 GPUs in one node: the node's count is overridden on its gpus
    // entry, the cluster's total (1-100,000) on the cluster's top level.
    nlohmann::json doc = nlohmann::json::parse(R"({ "format": "memx-cluster/1", "name": "big",
        "nodes": [ { "name": "n", "gpus": [ { "type": "A100-80GB", "count": 100001, "allow_outside_range": true } ] } ],
        "links": [] })");
    test::expectInputError([&] { Cluster::fromJson(doc, "big.json", GpuCatalog::builtin()); }, "big.json",
                           "/nodes/0/gpus/0/count",
                           "GPUs in a cluster 100001 is outside the plausible range 1-100000; if it is real, set "
                           "\"allow_outside_range\": true on the cluster's top level");
    doc["allow_outside_range"] = true;
    const Cluster c = Cluster::fromJson(doc, "big.json", GpuCatalog::builtin());
    QCOMPARE(c.deviceCount(), 100001);
    QCOMPARE(Cluster::fromJson(c.toJson(), "written.json", GpuCatalog::builtin()).deviceCount(), 100001);
}

void TestBadInputs::jsonText_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("reason");
    QTest::newRow("1e400") << "{\n  \"a\": 1,\n  \"b\": 1e400\n}"
                           << "line 3 column 8"
                           << "1e400 does not fit in a double";
    QTest::newRow("-1e400 in an array") << "[1, -1e400]"
                                        << "line 1 column 5"
                                        << "-1e400 does not fit";
    QTest::newRow("syntax error") << "{\n \"a\": ,\n}"
                                  << "line 2 column 7"
                                  << "malformed JSON";
    // Strict JSON: what nlohmann's parser would accept silently.
    QTest::newRow("NUL after the document") << QString::fromLatin1("{\"a\": 1}\n\0{\"b\": 2}", 19) << "line 2 column 1"
                                            << "a NUL byte";
    QTest::newRow("a key twice") << "{\"links\": [{\"bandwidth_gbps\": 16, \"bandwidth_gbps\": 1600}]}"
                                 << "/links/0/bandwidth_gbps"
                                 << "given twice in one object";
    QTest::newRow("a second nodes array") << "{\"nodes\": [1], \"x\": {}, \"nodes\": [2]}"
                                          << "/nodes"
                                          << "given twice";
    // 65 nested arrays: one past the limit, under key "k".
    QTest::newRow("65 levels") << "{\"k\": " + QString(64, '[') + QString(64, ']') + "}"
                               << "/k" + QString("/0").repeated(63) << "nests deeper than 64 levels";
}

void TestBadInputs::jsonText()
{
    // Exactly the limit reads: an object holding 63 nested arrays is 64 levels.
    QVERIFY(
        JsonReader::parseText("{\"k\": " + std::string(63, '[') + std::string(63, ']') + "}", "ok.json").is_object());
    QFETCH(QString, text);
    QFETCH(QString, field);
    QFETCH(QString, reason);
    test::expectInputError([&] { JsonReader::parseText(text.toStdString(), "bad.json"); }, "bad.json", field, reason);
}

void TestBadInputs::measurementCsv_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("reason");
    const QByteArray run = kCsvHeader;
    const QByteArray stage = kStageHeader;
    // tp * pp * dp = 1024 * 1000 * 100000 overflows int; in 64 bits it is 102,400,000,000.
    QTest::newRow("tp*pp*dp beyond int") << run
            + "r1,A100-80GB,100000,1024,1000,100000,1,100000,2048,1000,65536,1024,32000,1000\n"
                                         << "line 2, column num_gpus"
                                         << "tp * pp * dp (102400000000)";
    QTest::newRow("num_gpus 4e9") << run + "r1,A100-80GB,4000000000,2,2,2,1,8,2048,32,4096,32,32000,1000\n"
                                  << "line 2, column num_gpus"
                                  << "outside the plausible range 1-100000";
    QTest::newRow("num_gpus 2^64") << run + "r1,A100-80GB,18446744073709551616,2,2,2,1,8,2048,32,4096,32,32000,1000\n"
                                   << "line 2, column num_gpus"
                                   << "must be a positive integer";
    QTest::newRow("tp 8192") << run + "r1,A100-80GB,8,8192,1,1,1,8,2048,32,8192,64,32000,1000\n"
                             << "line 2, column tp"
                             << "outside the plausible range 1-4096";
    QTest::newRow("dp 200000") << run + "r1,A100-80GB,8,1,1,200000,1,200000,2048,32,4096,32,32000,1000\n"
                               << "line 2, column dp"
                               << "outside the plausible range 1-100000";
    QTest::newRow("gbs 2e7") << run + "r1,A100-80GB,8,2,2,2,1,20000000,2048,32,4096,32,32000,1000\n"
                             << "line 2, column gbs"
                             << "outside the plausible range 1-10000000 sequences";
    QTest::newRow("seq_len 2e7") << run + "r1,A100-80GB,8,2,2,2,1,8,20000000,32,4096,32,32000,1000\n"
                                 << "line 2, column seq_len"
                                 << "outside the plausible range 1-10000000 tokens";
    QTest::newRow("vocab 2e7") << run + "r1,A100-80GB,8,2,2,2,1,8,2048,32,4096,32,20000000,1000\n"
                               << "line 2, column vocab"
                               << "outside the plausible range 1-10000000";
    QTest::newRow("layers 2000") << run + "r1,A100-80GB,8,2,2,2,1,8,2048,2000,4096,32,32000,1000\n"
                                 << "line 2, column num_layers"
                                 << "outside the plausible range 1-1000";
    QTest::newRow("heads 2048") << run + "r1,A100-80GB,8,2,2,2,1,8,2048,32,4096,2048,32000,1000\n"
                                << "line 2, column heads"
                                << "outside the plausible range 1-1024";
    QTest::newRow("hidden 1e9 without ffn_hidden")
        << run + "r1,A100-80GB,8,2,2,2,1,8,2048,32,1000000000,32,32000,1000\n"
        << "line 2, column hidden"
        << "outside the plausible range 1-65536";
    QTest::newRow("iteration 1e300 ms") << run + "r1,A100-80GB,8,2,2,2,1,8,2048,32,4096,32,32000,1e300\n"
                                        << "line 2, column iteration_time_ms"
                                        << "outside the plausible range";
    QTest::newRow("denormal stage time") << stage + "r1,A100-80GB,8,2,2,2,1,8,2048,32,4096,32,32000,0,16,5e-324,100\n"
                                         << "line 2, column stage_time_ms"
                                         << "stage_time_ms";
    QTest::newRow("stage time 1e-6 ms") << stage + "r1,A100-80GB,8,2,2,2,1,8,2048,32,4096,32,32000,0,16,1e-6,100\n"
                                        << "line 2, column stage_time_ms"
                                        << "outside the plausible range 0.001-1000000000 ms";
    QTest::newRow("huge pp on a stage row")
        << stage + "r1,A100-80GB,8,2,100000000,2,1,8,2048,32,4096,32,32000,0,16,10,100\n"
        << "line 2, column pp"
        << "outside the plausible range 1-1000";
    QTest::newRow("peak memory 1e12 MiB") << stage + "r1,A100-80GB,8,2,2,2,1,8,2048,32,4096,32,32000,0,16,10,1e12\n"
                                          << "line 2, column peak_mem_mib"
                                          << "outside the plausible range";
    QTest::newRow("invalid UTF-8 in gpu_type") << run + "r1,A100\xff,8,2,2,2,1,8,2048,32,4096,32,32000,1000\n"
                                               << "line 2, column gpu_type"
                                               << "invalid UTF-8: byte 0xFF at character 5";
    QTest::newRow("truncated UTF-8 in run_id") << run + "r\xc3,A100-80GB,8,2,2,2,1,8,2048,32,4096,32,32000,1000\n"
                                               << "line 2, column run_id"
                                               << "invalid UTF-8: byte 0xC3 at character 2";
    QTest::newRow("UTF-8 surrogate") << run + "r1,A\xed\xa0\x80,8,2,2,2,1,8,2048,32,4096,32,32000,1000\n"
                                     << "line 2, column gpu_type"
                                     << "invalid UTF-8";
}

void TestBadInputs::measurementCsv()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, field);
    QFETCH(QString, reason);
    test::expectInputError([&] { MeasurementCsv::parse(text.toStdString(), "bad.csv"); }, "bad.csv", field, reason);
}

void TestBadInputs::defaultFfnIn64Bits()
{
    // 8 * 1e9 overflows int; LLaMA's rule gives 8e9 / 3 rounded up to 256,
    // which does not fit in an int either: it saturates.
    QCOMPARE(ModelSpec::defaultFfn(1000000000), 2147483647);
    // 8 * 4096 / 3 = 10922 -> 11008 (LLaMA2-7B).
    QCOMPARE(ModelSpec::defaultFfn(4096), 11008);
    // Well-formed UTF-8 passes the check.
    const std::string ok = std::string(kCsvHeader) + "r1,\xc3\xa9t\xc3\xa9,8,2,2,2,1,8,2048,32,4096,32,32000,1000\n";
    QCOMPARE(MeasurementCsv::parse(ok, "ok.csv").rows.at(0).gpuType, std::string("\xc3\xa9t\xc3\xa9"));
}

MEMX_TEST_APPLESS_MAIN(TestBadInputs)
}  // namespace tst_bad_inputs

#include "tst_bad_inputs.moc"
