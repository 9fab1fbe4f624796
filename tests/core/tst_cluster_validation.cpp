// Cluster::fromJson validation: every bad input must raise memx::InputError
// naming the file, the JSON path and the reason, so the user knows what to
// fix. Plus the sample clusters, gpu_types overrides and the toJson round trip.
#include "hardware/Cluster.h"
#include "hardware/ClusterGenerator.h"
#include "hardware/Topology.h"
#include "hardware/GpuCatalog.h"
#include "io/InputError.h"
#include "io/JsonReader.h"

#include "TestPaths.h"

#include "TestMain.h"

#include <string>

namespace tst_cluster_validation {

using memx::Cluster;
using memx::GpuCatalog;
using memx::InputError;

namespace {

// Two 4x A100-80GB nodes, NVLink inside each, InfiniBand between them.
const char* kNodes = R"([{"name": "n0", "gpus": [{"type": "A100-80GB", "count": 4}]},
                         {"name": "n1", "gpus": [{"type": "A100-80GB", "count": 4}]}])";
const char* kLinks = R"([{"name": "nv0", "kind": "NVLink", "within": "n0", "bandwidth_gbps": 240},
                         {"name": "nv1", "kind": "NVLink", "within": "n1", "bandwidth_gbps": 240},
                         {"name": "ib", "kind": "InfiniBand", "between": ["n0", "n1"], "bandwidth_gbps": 25}])";
const char* kFormat = R"("format": "memx-cluster/1",)";

QString doc(const QString& nodes, const QString& links, const QString& format = kFormat, const QString& extra = {})
{
    return QString(R"({ %1 "name": "t", %2 "nodes": %3, "links": %4 })").arg(format, extra, nodes, links);
}

Cluster load(const QString& text)
{
    return Cluster::fromJson(nlohmann::json::parse(text.toStdString()), "bad.json", GpuCatalog::builtin());
}

}  // namespace

class TestClusterValidation : public QObject {
    Q_OBJECT

private slots:
    void rejectsBadCluster_data();
    void rejectsBadCluster();
    void malformedJsonNamesLineAndColumn_data();
    void malformedJsonNamesLineAndColumn();
    void sampleClustersLoad_data();
    void sampleClustersLoad();
    void paperTwentyGpuCluster();
    void mixedNodeGetsOneGroupPerType();
    void gpuTypeOverrideIsApplied();
    void typeDefinedOnlyInFileWorks();
    void runtimeOfEachVendor_data();
    void runtimeOfEachVendor();
    void fileTypesTakeTheirVendorsRuntime();
    void toJsonRoundTrip_data();
    void toJsonRoundTrip();
    void fabricAcrossNodesJoinsWhatPairLinksJoin_data();
    void fabricAcrossNodesJoinsWhatPairLinksJoin();
    void fabricAcrossNodesLosesALostNode();
    void manyNodesShareOneFabric();
};

void TestClusterValidation::rejectsBadCluster_data()
{
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("reason");  // a fragment of the reason

    const QString N = kNodes, L = kLinks;
    QTest::newRow("unknown GPU type") << doc(QString(N).replace(R"("A100-80GB", "count": 4}]},)",
                                                                R"("Z100", "count": 4}]},)"),
                                             L)
                                      << "/nodes/0/gpus/0/type"
                                      << "unknown GPU type \"Z100\"";
    QTest::newRow("link endpoint names no node")
        << doc(N, QString(L).replace(R"(["n0", "n1"])", R"(["n0", "n9"])")) << "/links/2/between/1"
        << "\"n9\" names no node";
    QTest::newRow("device index out of range (n0:7 on 4 GPUs)")
        << doc(N, QString(L).replace(R"(["n0", "n1"])", R"(["n0:7", "n1"])")) << "/links/2/between/0"
        << "does not exist";
    QTest::newRow("reversed device range")
        << doc(N, QString(L).replace(R"("within": "n0")", R"("within": "n0:3-1")")) << "/links/0/within"
        << "does not exist";
    QTest::newRow("malformed device selector")
        << doc(N, QString(L).replace(R"("within": "n0")", R"("within": "n0:x")")) << "/links/0/within"
        << "bad device selector";
    QTest::newRow("zero bandwidth") << doc(N,
                                           QString(L).replace(R"("n0", "bandwidth_gbps": 240)",
                                                              R"("n0", "bandwidth_gbps": 0)"))
                                    << "/links/0/bandwidth_gbps"
                                    << "greater than 0";
    QTest::newRow("negative bandwidth") << doc(N,
                                               QString(L).replace(R"("bandwidth_gbps": 25)",
                                                                  R"("bandwidth_gbps": -25)"))
                                        << "/links/2/bandwidth_gbps"
                                        << "greater than 0";
    QTest::newRow("negative latency") << doc(N,
                                             QString(L).replace(R"("n0", "bandwidth_gbps": 240)",
                                                                R"("n0", "bandwidth_gbps": 240, "latency_us": -1)"))
                                      << "/links/0/latency_us"
                                      << "negative";
    QTest::newRow("duplicate node names") << doc(QString(N).replace(R"("n1")", R"("n0")"), L) << "/nodes/1/name"
                                          << "duplicate node name \"n0\"";
    QTest::newRow("duplicate link names") << doc(N, QString(L).replace(R"("nv1")", R"("nv0")")) << "/links/1/name"
                                          << "duplicate link name \"nv0\"";
    QTest::newRow("empty nodes list") << doc("[]", "[]") << "/nodes"
                                      << "no GPUs";
    QTest::newRow("node without GPUs") << doc(QString(N).replace(R"([{"type": "A100-80GB", "count": 4}]},)", "[]},"), L)
                                       << "/nodes/0/gpus"
                                       << "at least one GPU";
    QTest::newRow("zero GPU count") << doc(QString(N).replace(R"("count": 4}]},)", R"("count": 0}]},)"), L)
                                    << "/nodes/0/gpus/0/count"
                                    << "must be greater than 0 (got 0)";
    QTest::newRow("missing format") << doc(N, L, "") << "/format"
                                    << "expected \"memx-cluster/1\"";
    QTest::newRow("wrong format string") << doc(N, L, R"("format": "memx-cluster/2",)") << "/format"
                                         << "unsupported format \"memx-cluster/2\"";
    QTest::newRow("unknown link kind") << doc(N,
                                              QString(L).replace(R"("kind": "NVLink", "within": "n0")",
                                                                 R"("kind": "Pigeon", "within": "n0")"))
                                       << "/links/0/kind"
                                       << "unknown link kind \"Pigeon\"";
    QTest::newRow("both within and between")
        << doc(N, QString(L).replace(R"("within": "n0")", R"("within": "n0", "between": ["n0:0", "n1:0"])"))
        << "/links/0"
        << "exactly one of";
    QTest::newRow("neither within nor between") << doc(N, QString(L).replace(R"("within": "n0", )", "")) << "/links/0"
                                                << "exactly one of";
    QTest::newRow("within covers one device")
        << doc(N, QString(L).replace(R"("within": "n0")", R"("within": "n0:1")")) << "/links/0/within"
        << "at least two devices";
    QTest::newRow("between ends overlap")
        << doc(N, QString(L).replace(R"(["n0", "n1"])", R"(["n0:0-1", "n0:1-2"])")) << "/links/2/between"
        << "overlap";
    QTest::newRow("across with within") << doc(N,
                                               QString(L).replace(R"("between": ["n0", "n1"])",
                                                                  R"("between": ["n0", "n1"], "across": "*")"))
                                        << "/links/2"
                                        << "exactly one of";
    QTest::newRow("across one node only")
        << doc(N, QString(L).replace(R"("between": ["n0", "n1"])", R"("across": ["n0"])")) << "/links/2/across"
        << "at least two nodes";
    QTest::newRow("across names no node")
        << doc(N, QString(L).replace(R"("between": ["n0", "n1"])", R"("across": ["n0", "n7"])")) << "/links/2/across/1"
        << "\"n7\" names no node";
    QTest::newRow("across neither star nor list")
        << doc(N, QString(L).replace(R"("between": ["n0", "n1"])", R"("across": "n0")")) << "/links/2/across"
        << "expected \"*\" (every node) or a list";
    QTest::newRow("across lists a node twice")
        << doc(N, QString(L).replace(R"("between": ["n0", "n1"])", R"("across": ["n0", "n1", "n0:1"])"))
        << "/links/2/across"
        << "listed twice";
    QTest::newRow("two nodes with no link joining them")
        << doc(N, R"([{"name": "nv0", "kind": "NVLink", "within": "n0", "bandwidth_gbps": 240},
                      {"name": "nv1", "kind": "NVLink", "within": "n1", "bandwidth_gbps": 240}])")
        << "/links"
        << "no link joins node \"n0\" and node \"n1\"";
    // default_efficiency 0.6 (set here, independent of the catalog) * 2.0 = 1.2 > 1.
    QTest::newRow("calibration makes efficiency exceed 1")
        << doc(N, L, kFormat,
               R"("gpu_types": {"A100-80GB": {"default_efficiency": 0.6,
                                             "calibration": {"efficiency_multiplier": 2.0}}},)")
        << "/gpu_types/A100-80GB/calibration/efficiency_multiplier"
        << "exceeds 1";
    // Catalog runtime reserve 1.5 GiB does not fit in 1 GiB.
    QTest::newRow("override leaves no room for runtime reserve")
        << doc(N, L, kFormat, R"("gpu_types": {"A100-80GB": {"memory_gib": 1}},)")
        << "/gpu_types/A100-80GB/runtime_reserve_gib"
        << "between 0 and the memory size";
    QTest::newRow("unknown precision") << doc(N, L, kFormat,
                                              R"("gpu_types": {"A100-80GB": {"precisions": ["bf16", "fp4"]}},)")
                                       << "/gpu_types/A100-80GB/precisions/1"
                                       << "unknown precision \"fp4\"";
    QTest::newRow("precisions not a list")
        << doc(N, L, kFormat, R"("gpu_types": {"A100-80GB": {"precisions": "bf16"}},)")
        << "/gpu_types/A100-80GB/precisions"
        << "expected a list";
    QTest::newRow("visible-devices variable not a name")
        << doc(N, L, kFormat, R"("gpu_types": {"A100-80GB": {"visible_devices_env": "1 GPU"}},)")
        << "/gpu_types/A100-80GB/visible_devices_env"
        << "not an environment variable name";
    QTest::newRow("type only in file but incomplete")
        << doc(QString(N).replace("A100-80GB", "X-1"), L, kFormat, R"("gpu_types": {"X-1": {"memory_gib": 32}},)")
        << "/gpu_types/X-1/peak_tflops_bf16"
        << "missing required field";
}

void TestClusterValidation::rejectsBadCluster()
{
    QFETCH(QString, json);
    QFETCH(QString, path);
    QFETCH(QString, reason);
    try {
        load(json);
        QFAIL("no InputError for a bad cluster");
    } catch (const InputError& e) {
        const QString what = QString::fromStdString(e.what());
        QVERIFY2(what.contains("bad.json"), qPrintable(what));
        QVERIFY2(what.contains(path + ": "), qPrintable(what));
        QVERIFY2(what.contains(reason), qPrintable(what));
        QCOMPARE(QString::fromStdString(e.file()), QString("bad.json"));
        QCOMPARE(QString::fromStdString(e.field()), path);
    }
}

// Line and column of the first offending character, counted by hand (1-based).
void TestClusterValidation::malformedJsonNamesLineAndColumn_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("where");
    // line 3 is `  "b" 2`: the 2 where ':' belongs is column 7.
    QTest::newRow("missing colon") << "{\n  \"a\": 1,\n  \"b\" 2\n}"
                                   << "line 3 column 7";
    // `{"a": [1, 2}`: the '}' closing an open array is column 12.
    QTest::newRow("mismatched bracket") << "{\"a\": [1, 2}"
                                        << "line 1 column 12";
    // `{"nodes": [],` then `}` on line 2, column 1: a trailing comma is not JSON.
    QTest::newRow("trailing comma") << "{\"nodes\": [],\n}"
                                    << "line 2 column 1";
    QTest::newRow("empty text") << ""
                                << "line 1 column 1";
}

void TestClusterValidation::malformedJsonNamesLineAndColumn()
{
    QFETCH(QString, text);
    QFETCH(QString, where);
    try {
        memx::JsonReader::parseText(text.toStdString(), "bad.json");
        QFAIL("malformed JSON was accepted");
    } catch (const InputError& e) {
        const QString what = QString::fromStdString(e.what());
        QVERIFY2(what.contains("bad.json"), qPrintable(what));
        QVERIFY2(what.contains(where), qPrintable(what));
        QVERIFY2(what.contains("malformed JSON"), qPrintable(what));
    }
}

// Counts taken from the sample files' "nodes" (count fields summed by hand).
void TestClusterValidation::sampleClustersLoad_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("devices");
    QTest::addColumn<int>("nodes");
    QTest::addColumn<int>("groups");
    QTest::newRow("paper-20gpu-3vendor") << "paper-20gpu-3vendor.json" << 20 << 3 << 3;  // 4 + 8 + 8
    QTest::newRow("paper-6gpu-v100-t4") << "paper-6gpu-v100-t4.json" << 6 << 2 << 2;  // 4 + 2
    QTest::newRow("paper-table1-xy") << "paper-table1-xy.json" << 2 << 1 << 2;  // X and Y in one host
    QTest::newRow("homogeneous-8xa100") << "homogeneous-8xa100.json" << 8 << 1 << 1;
    QTest::newRow("modern-h100-h20-910b") << "modern-h100-h20-910b.json" << 24 << 3 << 3;  // 8 + 8 + 8
}

void TestClusterValidation::sampleClustersLoad()
{
    QFETCH(QString, file);
    const Cluster c = Cluster::fromFile(memx::test::sampleCluster(file.toStdString()));
    QTEST(c.deviceCount(), "devices");
    QTEST(int(c.nodes().size()), "nodes");
    QTEST(int(c.groups().size()), "groups");
    QVERIFY(!c.links().empty());
}

void TestClusterValidation::paperTwentyGpuCluster()
{
    const Cluster c = Cluster::fromFile(memx::test::sampleCluster("paper-20gpu-3vendor.json"));
    QCOMPARE(c.deviceCount(), 20);
    QCOMPARE(int(c.nodes().size()), 3);
    QCOMPARE(int(c.groups().size()), 3);
    const int sizes[] = {4, 8, 8};
    const char* names[] = {"a100", "vb", "vc"};
    const char* types[] = {"A100-80GB", "Vendor-B", "Vendor-C"};
    for (int g = 0; g < 3; ++g) {
        QCOMPARE(int(c.groups()[g].devices.size()), sizes[g]);
        QCOMPARE(QString::fromStdString(c.groups()[g].name), QString(names[g]));
        QCOMPARE(QString::fromStdString(c.types()[c.groups()[g].type].name), QString(types[g]));
    }
    QCOMPARE(QString::fromStdString(c.deviceLabel(4)), QString("vb:0"));  // devices numbered per node from 0
    QCOMPARE(QString::fromStdString(c.deviceLabel(19)), QString("vc:7"));
    QCOMPARE(c.links().size(), std::size_t(10));
    // Vendor-B calibration from the file: runtime_reserve_gib 2.0 replaces the catalog's.
    QCOMPARE(c.typeOf(4).reserveGiB(), 2.0);
}

void TestClusterValidation::mixedNodeGetsOneGroupPerType()
{
    const Cluster c = load(doc(R"([{"name": "m", "gpus": [{"type": "A100-80GB", "count": 2},
                                                          {"type": "H100-SXM", "count": 3}]}])",
                               R"([{"kind": "PCIe", "within": "m", "bandwidth_gbps": 16}])"));
    QCOMPARE(c.deviceCount(), 5);
    QCOMPARE(int(c.groups().size()), 2);
    QCOMPARE(QString::fromStdString(c.groups()[0].name), QString("m/A100-80GB"));
    QCOMPARE(QString::fromStdString(c.groups()[1].name), QString("m/H100-SXM"));
    QCOMPARE(c.groups()[1].devices, (std::vector<int>{2, 3, 4}));
    QCOMPARE(c.devices()[2].indexInNode, 2);  // numbering continues across the listing
}

void TestClusterValidation::gpuTypeOverrideIsApplied()
{
    const Cluster c = load(doc(kNodes, kLinks, kFormat, R"("gpu_types": {"A100-80GB": {"memory_gib": 30}},)"));
    const memx::GpuType& t = c.typeOf(0);
    QCOMPARE(t.memoryGiB, 30.0);
    QCOMPARE(t.memoryMiB(), 30720.0);  // 30 * 1024
    QCOMPARE(t.peakTflopsBf16, 312.0);  // other fields stay as in the catalog (A100 datasheet)
    QCOMPARE(GpuCatalog::builtin().find("A100-80GB")->memoryGiB, 80.0);  // the catalog itself is untouched
}

void TestClusterValidation::typeDefinedOnlyInFileWorks()
{
    const Cluster c = load(doc(QString(kNodes).replace("A100-80GB", "X-1"), kLinks, kFormat,
                               R"("gpu_types": {"X-1": {"vendor": "Acme", "peak_tflops_bf16": 200,
                                   "memory_gib": 48, "memory_bandwidth_gbps": 1200, "default_efficiency": 0.5,
                                   "launch_overhead_us_per_layer": 130, "runtime_reserve_gib": 2,
                                   "source": "test"}},)"));
    QCOMPARE(c.deviceCount(), 8);
    const memx::GpuType& t = c.typeOf(7);
    QCOMPARE(QString::fromStdString(t.name), QString("X-1"));
    QCOMPARE(QString::fromStdString(t.vendor), QString("Acme"));
    QCOMPARE(t.peakTflopsBf16, 200.0);
    QCOMPARE(t.memoryGiB, 48.0);
    QCOMPARE(t.reserveGiB(), 2.0);
}

void TestClusterValidation::runtimeOfEachVendor_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<QString>("variable");
    QTest::addColumn<bool>("verified");
    QTest::addColumn<bool>("bf16");
    QTest::newRow("A100") << "A100-80GB"
                          << "CUDA_VISIBLE_DEVICES" << true << true;
    QTest::newRow("V100: no bf16") << "V100-32GB"
                                   << "CUDA_VISIBLE_DEVICES" << true << false;
    QTest::newRow("T4: no bf16") << "T4"
                                 << "CUDA_VISIBLE_DEVICES" << true << false;
    QTest::newRow("Ascend") << "Ascend-910B"
                            << "ASCEND_RT_VISIBLE_DEVICES" << true << true;
    QTest::newRow("AMD") << "MI250X"
                         << "HIP_VISIBLE_DEVICES" << true << true;
    QTest::newRow("Gaudi") << "Gaudi3"
                           << "HABANA_VISIBLE_MODULES" << true << true;
    QTest::newRow("the paper's anonymous Vendor-B") << "Vendor-B"
                                                    << "CUDA_VISIBLE_DEVICES" << false << true;
}

void TestClusterValidation::runtimeOfEachVendor()
{
    QFETCH(QString, type);
    QFETCH(QString, variable);
    QFETCH(bool, verified);
    QFETCH(bool, bf16);
    const memx::GpuType* t = GpuCatalog::builtin().find(type.toStdString());
    QVERIFY(t);
    QCOMPARE(QString::fromStdString(t->visibleDevicesEnv), variable);
    QCOMPARE(t->visibleDevicesVerified, verified);
    QCOMPARE(t->hasPrecision("bf16"), bf16);
    QVERIFY(t->hasPrecision("fp16"));
}

void TestClusterValidation::fileTypesTakeTheirVendorsRuntime()
{
    // A type defined in the file by a vendor the catalog knows gets that
    // vendor's variable; one of an unknown vendor an unverified guess; the
    // file may also name it.
    const QString def = R"("vendor": "%1", "peak_tflops_bf16": 200, "memory_gib": 48, "memory_bandwidth_gbps": 1200,
                           "runtime_reserve_gib": 2 %2)";
    auto typeIn = [&](const QString& vendor, const QString& extra) {
        const Cluster c = load(doc(QString(kNodes).replace("A100-80GB", "X-1"), kLinks, kFormat,
                                   R"("gpu_types": {"X-1": {)" + def.arg(vendor, extra) + "}},"));
        return c.typeOf(0);
    };
    QCOMPARE(QString::fromStdString(typeIn("Cambricon", "").visibleDevicesEnv), QString("MLU_VISIBLE_DEVICES"));
    QVERIFY(typeIn("Cambricon", "").visibleDevicesVerified);
    QCOMPARE(QString::fromStdString(typeIn("Acme", "").visibleDevicesEnv), QString("CUDA_VISIBLE_DEVICES"));
    QVERIFY(!typeIn("Acme", "").visibleDevicesVerified);
    const memx::GpuType own
        = typeIn("Acme", R"(, "visible_devices_env": "ACME_VISIBLE_DEVICES", "precisions": ["fp16"])");
    QCOMPARE(QString::fromStdString(own.visibleDevicesEnv), QString("ACME_VISIBLE_DEVICES"));
    QVERIFY(own.visibleDevicesVerified);
    QVERIFY(!own.hasPrecision("bf16"));
}

void TestClusterValidation::toJsonRoundTrip_data()
{
    QTest::addColumn<QString>("file");
    QTest::newRow("paper-20gpu-3vendor (media, shared, calibration)") << "paper-20gpu-3vendor.json";
    QTest::newRow("paper-table1-xy (two types in one node)") << "paper-table1-xy.json";
    QTest::newRow("modern-h100-h20-910b") << "modern-h100-h20-910b.json";
}

void TestClusterValidation::toJsonRoundTrip()
{
    QFETCH(QString, file);
    const Cluster a = Cluster::fromFile(memx::test::sampleCluster(file.toStdString()));
    const Cluster b = Cluster::fromJson(a.toJson(), "roundtrip.json", GpuCatalog::builtin());
    QCOMPARE(b.name(), a.name());
    QCOMPARE(b.deviceCount(), a.deviceCount());
    for (int d = 0; d < a.deviceCount(); ++d) {
        QCOMPARE(b.devices()[d].node, a.devices()[d].node);
        QCOMPARE(b.devices()[d].indexInNode, a.devices()[d].indexInNode);
        QCOMPARE(b.devices()[d].group, a.devices()[d].group);
        QCOMPARE(b.typeOf(d).name, a.typeOf(d).name);
        QCOMPARE(b.typeOf(d).memoryGiB, a.typeOf(d).memoryGiB);
        QCOMPARE(b.typeOf(d).reserveGiB(), a.typeOf(d).reserveGiB());
        QCOMPARE(b.typeOf(d).calibration.efficiencyMultiplier, a.typeOf(d).calibration.efficiencyMultiplier);
    }
    QCOMPARE(b.groups().size(), a.groups().size());
    for (std::size_t g = 0; g < a.groups().size(); ++g) {
        QCOMPARE(b.groups()[g].name, a.groups()[g].name);
        QCOMPARE(b.groups()[g].devices, a.groups()[g].devices);
    }
    QCOMPARE(b.links().size(), a.links().size());
    QCOMPARE(b.mediumCount(), a.mediumCount());
    for (std::size_t l = 0; l < a.links().size(); ++l) {
        const memx::Link &x = a.links()[l], &y = b.links()[l];
        QCOMPARE(y.name, x.name);
        QCOMPARE(y.kind, x.kind);
        QCOMPARE(y.bandwidthGBps, x.bandwidthGBps);
        QCOMPARE(y.latencyUs, x.latencyUs);
        QCOMPARE(y.within, x.within);
        QCOMPARE(y.a, x.a);
        QCOMPARE(y.b, x.b);
        QCOMPARE(y.medium, x.medium);
    }
}

// A fabric across nodes joins exactly the pairs a link per node pair joins:
// two devices in different nodes, never two in one node.
void TestClusterValidation::fabricAcrossNodesJoinsWhatPairLinksJoin_data()
{
    QTest::addColumn<QString>("across");
    QTest::newRow("every node") << R"("*")";
    QTest::newRow("listed nodes") << R"(["n0", "n1", "n2"])";
}

void TestClusterValidation::fabricAcrossNodesJoinsWhatPairLinksJoin()
{
    QFETCH(QString, across);
    const QString nodes = R"([{"name": "n0", "gpus": [{"type": "A100-80GB", "count": 2}]},
                             {"name": "n1", "gpus": [{"type": "H100-SXM", "count": 2}]},
                             {"name": "n2", "gpus": [{"type": "A100-80GB", "count": 2}]}])";
    const QString inside = R"({"name": "nv0", "kind": "NVLink", "within": "n0", "bandwidth_gbps": 240},
                              {"name": "nv1", "kind": "NVLink", "within": "n1", "bandwidth_gbps": 240},
                              {"name": "nv2", "kind": "NVLink", "within": "n2", "bandwidth_gbps": 240})";
    const Cluster fabric = load(doc(nodes,
                                    "[" + inside + R"(, {"name": "ib", "kind": "InfiniBand", "across": )" + across
                                        + R"(, "bandwidth_gbps": 25, "latency_us": 2}])"));
    const Cluster pairs = load(doc(nodes, "[" + inside + R"(,
        {"name": "ib01", "kind": "InfiniBand", "between": ["n0", "n1"], "bandwidth_gbps": 25, "latency_us": 2},
        {"name": "ib02", "kind": "InfiniBand", "between": ["n0", "n2"], "bandwidth_gbps": 25, "latency_us": 2},
        {"name": "ib12", "kind": "InfiniBand", "between": ["n1", "n2"], "bandwidth_gbps": 25, "latency_us": 2}])"));
    const memx::Topology tf(fabric), tp(pairs);
    for (int x = 0; x < 6; ++x)
        for (int y = 0; y < 6; ++y) {
            if (x == y)
                continue;
            const auto rf = tf.rates({{x, y}}).front(), rp = tp.rates({{x, y}}).front();
            // Same node: NVLink only (240); different nodes: InfiniBand only (25).
            QCOMPARE(rf.bandwidthGBps, x / 2 == y / 2 ? 240.0 : 25.0);
            QCOMPARE(rf.bandwidthGBps, rp.bandwidthGBps);
            QCOMPARE(rf.latencyUs, rp.latencyUs);
        }
    // Written back as read.
    const Cluster again = Cluster::fromJson(fabric.toJson(), "again.json", GpuCatalog::builtin());
    QCOMPARE(again.toJson().dump(), fabric.toJson().dump());
    QCOMPARE(QString::fromStdString(fabric.toJson()["links"][3]["across"].dump()), QString(across).remove(' '));
}

void TestClusterValidation::fabricAcrossNodesLosesALostNode()
{
    const QString nodes = R"([{"name": "n0", "gpus": [{"type": "A100-80GB", "count": 2}]},
                             {"name": "n1", "gpus": [{"type": "A100-80GB", "count": 2}]},
                             {"name": "n2", "gpus": [{"type": "A100-80GB", "count": 2}]}])";
    const Cluster c = load(doc(nodes, R"([{"name": "ib", "kind": "InfiniBand", "across": ["n0", "n1", "n2"],
                                          "bandwidth_gbps": 25}])"));
    const Cluster two = c.withoutNodes({1});
    QCOMPARE(two.links().size(), std::size_t(1));
    QCOMPARE(two.toJson()["links"][0]["across"].dump(), std::string(R"(["n0","n2"])"));
    QVERIFY(two.links()[0].connects(0, 2));  // n0:0 - n2:0 (n2 is now the second node)
    QVERIFY(!two.links()[0].connects(0, 1));  // n0:0 - n0:1
    // Down to one node the fabric joins nothing and goes.
    QCOMPARE(c.withoutNodes({1, 2}).links().size(), std::size_t(0));
}

// The format can say that many nodes share one fabric: 512 nodes in one
// line, every pair of them joined (the check that every two nodes are joined
// marks the pairs each link covers, instead of asking every link about
// every pair).
void TestClusterValidation::manyNodesShareOneFabric()
{
    memx::ClusterGenerator::Spec spec;
    spec.nodes = 512;
    spec.gpusPerNode = 8;
    spec.types = {"A100-80GB", "H100-SXM"};
    const nlohmann::json doc = memx::ClusterGenerator::generate(spec);
    QCOMPARE(doc["links"].size(), std::size_t(513));  // one fabric inside each node, one across them all
    const Cluster c = Cluster::fromJson(doc, "c512.json", GpuCatalog::builtin());
    QCOMPARE(c.deviceCount(), 4096);
    const memx::Topology t(c);
    QCOMPARE(t.rates({{0, 4095}}).front().bandwidthGBps, spec.interNodeGBps);
    QCOMPARE(t.rates({{0, 7}}).front().bandwidthGBps,
             memx::ClusterGenerator::intraNodeFabric("A100-80GB").bandwidthGBps);
}

MEMX_TEST_APPLESS_MAIN(TestClusterValidation)
}  // namespace tst_cluster_validation

#include "tst_cluster_validation.moc"
