// The fabric generate-cluster and a measured run's synthetic node put
// between the GPUs of one node (ClusterGenerator::intraNodeFabric). GeForce
// and Titan boards have no PCIe peer-to-peer, so NCCL stages their traffic
// through host memory: Sailor measured 1.3-11.3 GB/s per pair on its
// RTX-3090, RTX-2080 and Titan-RTX machines (median 6.1), against about
// 25 GB/s for a PCIe 4.0 x16 switch with P2P; the workstation boards
// (RTX-A, Quadro, RTX 6000 Ada) keep P2P.
#include "hardware/ClusterGenerator.h"
#include "hardware/Cluster.h"
#include "hardware/GpuCatalog.h"
#include "hardware/Topology.h"

#include "TestMain.h"

namespace tst_intra_node_fabric {

using namespace memx;

class TestIntraNodeFabric : public QObject {
    Q_OBJECT
private slots:
    void fabricOfTheType_data();
    void fabricOfTheType();
    void generatedNodesUseIt();
};

void TestIntraNodeFabric::fabricOfTheType_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<double>("gbps");
    QTest::newRow("RTX-3090 (GeForce)") << "RTX-3090"
                                        << "PCIe" << 6.0;
    QTest::newRow("RTX-3090-Ti (GeForce)") << "RTX-3090-Ti"
                                           << "PCIe" << 6.0;
    QTest::newRow("RTX-2080-Ti (GeForce)") << "RTX-2080-Ti"
                                           << "PCIe" << 6.0;
    QTest::newRow("RTX-4090 (GeForce)") << "RTX-4090"
                                        << "PCIe" << 6.0;
    QTest::newRow("Titan-RTX") << "Titan-RTX"
                               << "PCIe" << 6.0;
    QTest::newRow("RTX-A6000 (workstation, P2P)") << "RTX-A6000"
                                                  << "PCIe" << 25.0;
    QTest::newRow("RTX-6000-Ada (workstation, P2P)") << "RTX-6000-Ada"
                                                     << "PCIe" << 25.0;
    QTest::newRow("RTX-4000-Ada (workstation, P2P)") << "RTX-4000-Ada"
                                                     << "PCIe" << 25.0;
    QTest::newRow("Quadro-RTX-8000") << "Quadro-RTX-8000"
                                     << "PCIe" << 25.0;
    QTest::newRow("A10G") << "A10G"
                          << "PCIe" << 25.0;
    QTest::newRow("A100-80GB") << "A100-80GB"
                               << "NVLink" << 300.0;
    QTest::newRow("H100-SXM") << "H100-SXM"
                              << "NVLink" << 450.0;
}

void TestIntraNodeFabric::fabricOfTheType()
{
    QFETCH(QString, type);
    QFETCH(QString, kind);
    QFETCH(double, gbps);
    const ClusterGenerator::Fabric f = ClusterGenerator::intraNodeFabric(type.toStdString());
    QCOMPARE(QString::fromStdString(f.kind), kind);
    QCOMPARE(f.bandwidthGBps, gbps);
}

// A generated node of RTX-3090: a TP ring over its 8 GPUs runs at the
// host-staged 6 GB/s, not the P2P switch's 25.
void TestIntraNodeFabric::generatedNodesUseIt()
{
    ClusterGenerator::Spec spec;
    spec.nodes = 2;
    spec.gpusPerNode = 8;
    spec.types = {"RTX-3090"};
    const Cluster c = Cluster::fromJson(ClusterGenerator::generate(spec), "g.json", GpuCatalog::builtin());
    const Topology t(c);
    QCOMPARE(t.rates({{0, 7}}).front().bandwidthGBps, 6.0);
}

MEMX_TEST_APPLESS_MAIN(TestIntraNodeFabric)
}  // namespace tst_intra_node_fabric

#include "tst_intra_node_fabric.moc"
