// Topology: bandwidth of concurrent flows over the multi-edge device graph,
// on small inline clusters whose answers can be worked out by hand.
#include "hardware/Cluster.h"
#include "hardware/ClusterGenerator.h"
#include "hardware/GpuCatalog.h"
#include "hardware/Topology.h"

#include "TestMain.h"

#include <cmath>

namespace tst_topology {

using memx::Cluster;
using memx::PathRate;
using memx::Topology;

namespace {

Cluster make(const char* nodes, const char* links)
{
    const std::string text = std::string(R"({"format": "memx-cluster/1", "name": "t", "nodes": )") + nodes
        + R"(, "links": )" + links + "}";
    return Cluster::fromJson(nlohmann::json::parse(text), "t.json", memx::GpuCatalog::builtin());
}

const char* kOneNode4 = R"([{"name": "n", "gpus": [{"type": "A100-80GB", "count": 4}]}])";
const char* kOneNode2 = R"([{"name": "n", "gpus": [{"type": "A100-80GB", "count": 2}]}])";
// Two nodes a (devices 0,1) and b (devices 2,3).
const char* kTwoNodes = R"([{"name": "a", "gpus": [{"type": "A100-80GB", "count": 2}]},
                            {"name": "b", "gpus": [{"type": "A100-80GB", "count": 2}]}])";

}  // namespace

class TestTopology : public QObject {
    Q_OBJECT

private slots:
    void generatedNodeFabric_data();
    void generatedNodeFabric();
    void unsharedFabricGivesEveryFlowFullBandwidth();
    void sharedMediumIsSplitAmongConcurrentFlows_data();
    void sharedMediumIsSplitAmongConcurrentFlows();
    void parallelLinksAddUp_data();
    void parallelLinksAddUp();
    void ringBottleneckIsSlowestHop();
    void stageHopsShareInterNodeMedium_data();
    void stageHopsShareInterNodeMedium();
    void unlinkedDevicesAreNotConnected();
    void ringOfOneDeviceIsFree();
    void allReduceAndTransferTimes_data();
    void allReduceAndTransferTimes();
};

void TestTopology::unsharedFabricGivesEveryFlowFullBandwidth()
{
    // NVSwitch-style within link, no "shared": each pair gets all 240 GB/s.
    const Cluster c = make(kOneNode4, R"([{"kind": "NVLink", "within": "n", "bandwidth_gbps": 240, "latency_us": 3}])");
    const Topology topo(c);
    const PathRate r = topo.ring({{0, 1, 2, 3}});
    QCOMPARE(r.bandwidthGBps, 240.0);
    QCOMPARE(r.latencyUs, 3.0);
    // Two TP rings at once still do not slow each other down.
    QCOMPARE(topo.ring({{0, 1}, {2, 3}}).bandwidthGBps, 240.0);
    const auto rates = topo.rates({{0, 1}, {1, 2}, {2, 3}, {3, 0}});
    QCOMPARE(rates.size(), std::size_t(4));
    for (const auto& f : rates)
        QCOMPARE(f.bandwidthGBps, 240.0);
}

void TestTopology::sharedMediumIsSplitAmongConcurrentFlows_data()
{
    QTest::addColumn<int>("flows");  // how many ring hops 0->1->...->0 run at once
    QTest::addColumn<double>("expected");
    // One PCIe switch, shared: 17 GB/s split evenly among the flows crossing it.
    QTest::newRow("single transfer gets all 17") << 1 << 17.0;
    QTest::newRow("4-GPU ring: 4 flows -> 17/4") << 4 << 4.25;
    QTest::newRow("3-GPU ring: 3 flows -> 17/3") << 3 << 17.0 / 3.0;
}

void TestTopology::sharedMediumIsSplitAmongConcurrentFlows()
{
    QFETCH(int, flows);
    const Cluster c
        = make(kOneNode4,
               R"([{"kind": "PCIe", "within": "n", "bandwidth_gbps": 17, "latency_us": 6, "shared": true}])");
    const Topology topo(c);
    PathRate r;
    if (flows == 1) {
        r = topo.pairwise({0}, {1});
    } else {
        std::vector<int> ring;
        for (int i = 0; i < flows; ++i)
            ring.push_back(i);
        r = topo.ring({ring});
    }
    QTEST(r.bandwidthGBps, "expected");
    QCOMPARE(r.latencyUs, 6.0);
}

void TestTopology::parallelLinksAddUp_data()
{
    QTest::addColumn<QString>("links");
    QTest::addColumn<double>("expected");
    // Multi-edges between devices 0 and 1 of one node.
    QTest::newRow("NVLink + PCIe, both unshared: 100 + 20")
        << R"([{"name": "nv", "kind": "NVLink", "within": "n", "bandwidth_gbps": 100},
               {"name": "pcie", "kind": "PCIe", "within": "n", "bandwidth_gbps": 20}])"
        << 120.0;
    QTest::newRow("two different shared media: 30 + 20")
        << R"([{"name": "p0", "kind": "PCIe", "within": "n", "bandwidth_gbps": 30, "shared": true},
               {"name": "p1", "kind": "PCIe", "within": "n", "bandwidth_gbps": 20, "shared": true}])"
        << 50.0;
    QTest::newRow("named media differ: 30 + 20")
        << R"([{"name": "p0", "kind": "PCIe", "within": "n", "bandwidth_gbps": 30, "medium": "x"},
               {"name": "p1", "kind": "PCIe", "within": "n", "bandwidth_gbps": 20, "medium": "y"}])"
        << 50.0;
    // Same physical medium listed twice: counts once, the faster entry.
    QTest::newRow("same medium name counts once (faster)")
        << R"([{"name": "p0", "kind": "PCIe", "within": "n", "bandwidth_gbps": 20, "medium": "bus"},
               {"name": "p1", "kind": "PCIe", "within": "n", "bandwidth_gbps": 30, "medium": "bus"}])"
        << 30.0;
    QTest::newRow("unshared + shared medium: 100 + 17")
        << R"([{"name": "nv", "kind": "NVLink", "within": "n", "bandwidth_gbps": 100},
               {"name": "sw", "kind": "PCIe", "within": "n", "bandwidth_gbps": 17, "shared": true}])"
        << 117.0;
}

void TestTopology::parallelLinksAddUp()
{
    QFETCH(QString, links);
    const Cluster c = make(kOneNode2, links.toStdString().c_str());
    const Topology topo(c);
    QTEST(topo.pairwise({0}, {1}).bandwidthGBps, "expected");
    QTEST(topo.rates({{1, 0}})[0].bandwidthGBps, "expected");  // either direction
}

void TestTopology::ringBottleneckIsSlowestHop()
{
    // a:0,a:1 on NVLink 200 (3 us); b:0,b:1 on NVLink 200; a<->b InfiniBand 25 GB/s
    // (12 us), unshared (one NIC rail per GPU).
    const Cluster c = make(kTwoNodes, R"([{"kind": "NVLink", "within": "a", "bandwidth_gbps": 200, "latency_us": 3},
                                          {"kind": "NVLink", "within": "b", "bandwidth_gbps": 200, "latency_us": 3},
                                          {"kind": "InfiniBand", "between": ["a", "b"], "bandwidth_gbps": 25,
                                           "latency_us": 12}])");
    const Topology topo(c);
    // Ring inside a node: 200.
    QCOMPARE(topo.ring({{0, 1}}).bandwidthGBps, 200.0);
    // Ring a0 -> a1 -> b0 -> b1 -> a0: hops a1->b0 and b1->a0 use the 25 GB/s link,
    // so the ring runs at 25, with the worst hop latency 12 us.
    const PathRate r = topo.ring({{0, 1, 2, 3}});
    QCOMPARE(r.bandwidthGBps, 25.0);
    QCOMPARE(r.latencyUs, 12.0);
}

void TestTopology::stageHopsShareInterNodeMedium_data()
{
    QTest::addColumn<QString>("sharing");  // JSON fragment for the inter-node link
    QTest::addColumn<int>("pairs");  // concurrent a[k] -> b[k] transfers
    QTest::addColumn<double>("expected");
    // Pipeline stage on node a sends to the next stage on node b, one flow per TP rank.
    QTest::newRow("shared NIC, 1 flow: 28") << R"("shared": true)" << 1 << 28.0;
    QTest::newRow("shared NIC, 2 flows: 28/2") << R"("shared": true)" << 2 << 14.0;
    QTest::newRow("named medium, 2 flows: 28/2") << R"("medium": "net")" << 2 << 14.0;
    QTest::newRow("unshared rails, 2 flows: 28 each") << R"("shared": false)" << 2 << 28.0;
}

void TestTopology::stageHopsShareInterNodeMedium()
{
    QFETCH(QString, sharing);
    QFETCH(int, pairs);
    const std::string links = R"([{"kind": "NVLink", "within": "a", "bandwidth_gbps": 200},
                                  {"kind": "NVLink", "within": "b", "bandwidth_gbps": 200},
                                  {"kind": "InfiniBand", "between": ["a", "b"], "bandwidth_gbps": 28, "latency_us": 12, )"
        + sharing.toStdString() + "}]";
    const Cluster c = make(kTwoNodes, links.c_str());
    const Topology topo(c);
    std::vector<int> from = {0, 1}, to = {2, 3};
    from.resize(pairs);
    to.resize(pairs);
    const PathRate r = topo.pairwise(from, to);
    QTEST(r.bandwidthGBps, "expected");
    QCOMPARE(r.latencyUs, 12.0);
    QVERIFY(r.connected());
}

void TestTopology::unlinkedDevicesAreNotConnected()
{
    // One node of two GPUs and no link at all: nothing joins 0 and 1.
    const Cluster c = make(kOneNode2, "[]");
    const Topology topo(c);
    const PathRate r = topo.pairwise({0}, {1});
    QCOMPARE(r.bandwidthGBps, 0.0);
    QVERIFY(!r.connected());
    QCOMPARE(topo.rates({{0, 1}})[0].bandwidthGBps, 0.0);
    QVERIFY(!topo.ring({{0, 1}}).connected());

    // A link covering only devices 0-1 of a 4-GPU node leaves 2 unreachable from 0.
    const Cluster partial = make(kOneNode4, R"([{"kind": "NVLink", "within": "n:0-1", "bandwidth_gbps": 50}])");
    const Topology t2(partial);
    QCOMPARE(t2.pairwise({0}, {1}).bandwidthGBps, 50.0);
    QVERIFY(!t2.pairwise({0}, {2}).connected());
}

void TestTopology::ringOfOneDeviceIsFree()
{
    const Cluster c = make(kOneNode2, "[]");
    const Topology topo(c);
    const PathRate r = topo.ring({{1}});
    QVERIFY(r.connected());  // no transfer, so no bottleneck
    QCOMPARE(Topology::allReduceMs(1e9, 1, r), 0.0);
}

// Ring all-reduce (Patarasuk & Yuan): 2(k-1)/k * bytes / B + 2(k-1) * latency;
// GB/s = 1e6 bytes per ms, us = 1e-3 ms.
void TestTopology::allReduceAndTransferTimes_data()
{
    QTest::addColumn<bool>("allReduce");
    QTest::addColumn<double>("bytes");
    QTest::addColumn<int>("k");
    QTest::addColumn<double>("GBps");
    QTest::addColumn<double>("latencyUs");
    QTest::addColumn<double>("expected");
    // 2*3/4 * 1e9 / 1e8 = 15 ms + 6 * 5 us = 0.03 ms
    QTest::newRow("all-reduce 1 GB over 4 at 100 GB/s") << true << 1e9 << 4 << 100.0 << 5.0 << 15.03;
    // 2*1/2 * 4e8 / 2e7 = 20 ms + 2 * 10 us = 0.02 ms
    QTest::newRow("all-reduce 400 MB over 2 at 20 GB/s") << true << 4e8 << 2 << 20.0 << 10.0 << 20.02;
    // 2*7/8 * 8e8 / 2.4e8 = 5.8333 ms, no latency
    QTest::newRow("all-reduce 800 MB over 8 at 240 GB/s") << true << 8e8 << 8 << 240.0 << 0.0 << 1.4e9 / 2.4e8;
    QTest::newRow("all-reduce of nothing") << true << 0.0 << 4 << 100.0 << 5.0 << 0.0;
    // 1e8 / 2.5e7 = 4 ms + 10 us = 0.01 ms
    QTest::newRow("transfer 100 MB at 25 GB/s") << false << 1e8 << 2 << 25.0 << 10.0 << 4.01;
    // 64 MiB = 67,108,864 B / 1.2e7 B/ms = 5.5924 ms + 0.006 ms
    QTest::newRow("transfer 64 MiB at 12 GB/s")
        << false << 67108864.0 << 2 << 12.0 << 6.0 << 67108864.0 / 1.2e7 + 0.006;
    QTest::newRow("transfer of nothing") << false << 0.0 << 2 << 25.0 << 10.0 << 0.0;
}

void TestTopology::allReduceAndTransferTimes()
{
    QFETCH(bool, allReduce);
    QFETCH(double, bytes);
    QFETCH(int, k);
    QFETCH(double, GBps);
    QFETCH(double, latencyUs);
    QFETCH(double, expected);
    const PathRate rate{GBps, latencyUs};
    const double got = allReduce ? Topology::allReduceMs(bytes, k, rate) : Topology::transferMs(bytes, rate);
    QVERIFY2(std::fabs(got - expected) < 1e-9, qPrintable(QString::number(got, 'g', 12)));
}

// The fabric a generated node gets: SXM boards an NVLink switch, PCIe
// cards (consumer, workstation, A10/A30/A40, whose bridges join pairs at most)
// a shared PCIe switch, since eight of them cannot all talk over NVLink.
void TestTopology::generatedNodeFabric_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<bool>("shared");
    QTest::newRow("A100-80GB") << "A100-80GB"
                               << "NVLink" << false;
    QTest::newRow("H100-SXM") << "H100-SXM"
                              << "NVLink" << false;
    QTest::newRow("A30") << "A30"
                         << "PCIe" << true;
    QTest::newRow("A40") << "A40"
                         << "PCIe" << true;
    QTest::newRow("A10") << "A10"
                         << "PCIe" << true;
    QTest::newRow("Quadro-RTX-6000") << "Quadro-RTX-6000"
                                     << "PCIe" << true;
    QTest::newRow("RTX-3060") << "RTX-3060"
                              << "PCIe" << true;
    QTest::newRow("RTX-A4000") << "RTX-A4000"
                               << "PCIe" << true;
    QTest::newRow("MI300X") << "MI300X"
                            << "xGMI" << false;
}

void TestTopology::generatedNodeFabric()
{
    QFETCH(QString, type);
    const auto f = memx::ClusterGenerator::intraNodeFabric(type.toStdString());
    QTEST(QString::fromStdString(f.kind), "kind");
    QTEST(f.shared, "shared");
}

MEMX_TEST_APPLESS_MAIN(TestTopology)
}  // namespace tst_topology

#include "tst_topology.moc"
