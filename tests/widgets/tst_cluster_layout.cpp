// The cluster canvas's geometry without a scene (ClusterLayout): nodes in a
// grid that never overlap, rows centred, tiles inside their node.
#include "ClusterLayout.h"

#include "hardware/ClusterGenerator.h"
#include "hardware/GpuCatalog.h"

#include "TestMain.h"

namespace tst_cluster_layout {

using namespace memx;

namespace {
Cluster generated(int nodes, int gpusPerNode)
{
    ClusterGenerator::Spec spec;
    spec.name = "t";
    spec.nodes = nodes;
    spec.gpusPerNode = gpusPerNode;
    spec.types = {"A100-80GB", "H100-SXM"};
    return Cluster::fromJson(ClusterGenerator::generate(spec), "test", GpuCatalog::builtin());
}
QRectF boxOf(const ClusterLayout& l, std::size_t i) { return QRectF(l.origin[i], l.nodes[i].size); }
}  // namespace

class TestClusterLayout : public QObject {
    Q_OBJECT
private slots:
    void nodesNeverOverlap_data()
    {
        QTest::addColumn<int>("nodes");
        QTest::addColumn<int>("gpus");
        for (int n : {1, 2, 3, 4, 5, 9, 16})
            QTest::addRow("%d nodes of 8", n) << n << 8;
        QTest::newRow("3 nodes of 2") << 3 << 2;
        QTest::newRow("2 nodes of 16") << 2 << 16;
    }
    void nodesNeverOverlap()
    {
        QFETCH(int, nodes);
        QFETCH(int, gpus);
        const Cluster c = generated(nodes, gpus);
        const ClusterLayout l = ClusterLayout::of(c, QFont());
        QCOMPARE(int(l.nodes.size()), nodes);
        QCOMPARE(int(l.origin.size()), nodes);
        for (std::size_t i = 0; i < l.nodes.size(); ++i) {
            QCOMPARE(int(l.nodes[i].tiles.size()), gpus);
            const QRectF box(QPointF(0, 0), l.nodes[i].size);
            for (int k = 0; k < gpus; ++k) {
                QVERIFY2(box.contains(l.nodes[i].tiles[k]),
                         qPrintable(QStringLiteral("node %1 tile %2").arg(i).arg(k)));
                for (int m = k + 1; m < gpus; ++m)
                    QVERIFY(!l.nodes[i].tiles[k].intersects(l.nodes[i].tiles[m]));
            }
            for (std::size_t j = i + 1; j < l.nodes.size(); ++j)
                QVERIFY2(!boxOf(l, i).intersects(boxOf(l, j)), qPrintable(QStringLiteral("%1 / %2").arg(i).arg(j)));
        }
    }

    void eightGpusMakeTwoRowsOfFour()
    {
        const ClusterLayout l = ClusterLayout::of(generated(1, 8), QFont());
        QSet<double> rows, columns;
        for (const QRectF& t : l.nodes[0].tiles) {
            rows.insert(t.top());
            columns.insert(t.left());
            QCOMPARE(t.size(), QSizeF(ClusterLayout::kTileW, ClusterLayout::kTileH));
        }
        QCOMPARE(rows.size(), 2);
        QCOMPARE(columns.size(), 4);
    }

    void threeNodesFormATriangle()
    {
        // Two columns for up to four nodes: two nodes on the first row, the
        // third centred under them, so no line between two runs through
        // the third.
        const ClusterLayout l = ClusterLayout::of(generated(3, 8), QFont());
        QCOMPARE(l.origin[0].y(), l.origin[1].y());
        QVERIFY(l.origin[2].y() > boxOf(l, 0).bottom());
        const double rowCentre = (boxOf(l, 0).left() + boxOf(l, 1).right()) / 2;
        QCOMPARE(boxOf(l, 2).center().x(), rowCentre);
        // and the gap between the first row's nodes is the layout's
        QCOMPARE(boxOf(l, 1).left() - boxOf(l, 0).right(), ClusterLayout::kNodeGapX);
    }
};

MEMX_TEST_MAIN(TestClusterLayout)
}  // namespace tst_cluster_layout

#include "tst_cluster_layout.moc"
