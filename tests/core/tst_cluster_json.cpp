// ClusterJson: the one spelling of memx-cluster/1 for every writer. What it
// writes is what docs/FILE_FORMATS.md documents (written out by hand here),
// Cluster::fromJson reads it, and Cluster::toJson writes it back the same.
#include "hardware/Cluster.h"
#include "hardware/ClusterJson.h"
#include "hardware/GpuCatalog.h"

#include "TestMain.h"

namespace tst_cluster_json {

using namespace memx;
using nlohmann::json;

class TestClusterJson : public QObject {
    Q_OBJECT
private slots:
    void linksAsDocumented_data()
    {
        QTest::addColumn<QString>("written");
        QTest::addColumn<QString>("expected");
        QTest::newRow("within")
            << QString::fromStdString(
                   ClusterJson::link(ClusterJson::withinLink("n0-nvl", "NVLink", "n0", 300, 3)).dump())
            << R"({"bandwidth_gbps":300.0,"kind":"NVLink","latency_us":3.0,"name":"n0-nvl","within":"n0"})";
        QTest::newRow("between")
            << QString::fromStdString(
                   ClusterJson::link(ClusterJson::betweenLink("ib-0-1", "InfiniBand", "n0", "n1", 25, 5)).dump())
            << R"({"bandwidth_gbps":25.0,"between":["n0","n1"],"kind":"InfiniBand","latency_us":5.0,"name":"ib-0-1"})";
        QTest::newRow("across every node")
            << QString::fromStdString(
                   ClusterJson::link(ClusterJson::acrossLink("ib", "InfiniBand", {"*"}, 50, 5)).dump())
            << R"({"across":"*","bandwidth_gbps":50.0,"kind":"InfiniBand","latency_us":5.0,"name":"ib"})";
        ClusterJson::Link shared = ClusterJson::withinLink("pcie", "PCIe", "n0:0-3", 16, 10);
        shared.shared = true;
        shared.medium = "socket0";
        QTest::newRow("shared, on a medium")
            << QString::fromStdString(ClusterJson::link(shared).dump())
            << R"({"bandwidth_gbps":16.0,"kind":"PCIe","latency_us":10.0,"medium":"socket0","name":"pcie","shared":true,"within":"n0:0-3"})";
    }
    void linksAsDocumented()
    {
        QFETCH(QString, written);
        QFETCH(QString, expected);
        QCOMPARE(written, expected);
    }

    void documentReadsAndWritesBack()
    {
        json doc = ClusterJson::document("two nodes", "an A100 and an H100 node");
        doc["nodes"].push_back(ClusterJson::node("a", {{"A100-80GB", 8}}));
        doc["nodes"].push_back(ClusterJson::node("h", {{"H100-SXM", 4}, {"A100-80GB", 4}}));
        doc["links"].push_back(ClusterJson::link(ClusterJson::withinLink("a-nvl", "NVLink", "a", 300, 3)));
        doc["links"].push_back(ClusterJson::link(ClusterJson::withinLink("h-pcie", "PCIe", "h", 32, 10)));
        doc["links"].push_back(ClusterJson::link(ClusterJson::acrossLink("ib", "InfiniBand", {"*"}, 25, 5)));
        QCOMPARE(QString::fromStdString(doc["format"].get<std::string>()), QString("memx-cluster/1"));
        const Cluster c = Cluster::fromJson(doc, "test", GpuCatalog::builtin());
        QCOMPARE(c.deviceCount(), 16);
        QCOMPARE(int(c.links().size()), 3);
        QCOMPARE(c.toJson(), doc);
    }
};

MEMX_TEST_MAIN(TestClusterJson)
}  // namespace tst_cluster_json

#include "tst_cluster_json.moc"
