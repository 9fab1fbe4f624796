#include "ClusterCanvas.h"
#include "ClusterDocument.h"
#include "GpuPalette.h"
#include "PropertyPanel.h"

#include "TestPaths.h"

#include "hardware/ClusterGenerator.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QLineEdit>
#include <QSpinBox>
#include <QMimeData>
#include <QPushButton>
#include <QSignalSpy>
#include <QUndoStack>
#include "TestMain.h"

namespace tst_cluster_canvas {

using memx::CanvasSelection;
using memx::ClusterCanvas;
using memx::ClusterDocument;

namespace {
QString sample(const char* name) { return QString::fromStdString(memx::test::sampleCluster(name)); }
}  // namespace

class TestClusterCanvas : public QObject {
    Q_OBJECT

private slots:
    void oneItemPerNodeGpuAndLink_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("nodes");
        QTest::addColumn<int>("gpus");
        QTest::addColumn<int>("links");
        QTest::newRow("paper-20gpu-3vendor") << sample("paper-20gpu-3vendor.json") << 3 << 20 << 10;
        QTest::newRow("homogeneous-8xa100") << sample("homogeneous-8xa100.json") << 1 << 8 << 1;
        QTest::newRow("modern-h100-h20-910b") << sample("modern-h100-h20-910b.json") << 3 << 24 << 6;
        QTest::newRow("paper-6gpu-v100-t4") << sample("paper-6gpu-v100-t4.json") << 2 << 6 << 3;
        QTest::newRow("paper-table1-xy") << sample("paper-table1-xy.json") << 1 << 2 << 1;
    }
    void oneItemPerNodeGpuAndLink()
    {
        QFETCH(QString, file);
        QFETCH(int, nodes);
        QFETCH(int, gpus);
        QFETCH(int, links);
        ClusterDocument doc;
        ClusterCanvas canvas(&doc);
        QVERIFY(doc.load(file));
        QCOMPARE(canvas.nodeItemCount(), nodes);
        QCOMPARE(canvas.gpuTileCount(), gpus);
        QCOMPARE(canvas.linkItemCount(), links);
        for (const auto& l : doc.cluster().links())
            QVERIFY(canvas.linkItem(QString::fromStdString(l.name)));
    }

    // A fabric across many nodes is not a curve between every two of them:
    // the legend names it with its bandwidth and the nodes it spans.
    void fabricAcrossNodesIsNamedInTheLegend()
    {
        memx::ClusterGenerator::Spec spec;
        spec.nodes = 4;
        spec.types = {"A100-80GB", "H100-SXM"};
        ClusterDocument doc;
        ClusterCanvas canvas(&doc);
        QString error;
        QVERIFY2(doc.setJson(memx::ClusterGenerator::generate(spec), &error), qPrintable(error));
        QCOMPARE(canvas.nodeItemCount(), 4);
        QCOMPARE(canvas.gpuTileCount(), 32);
        QCOMPARE(canvas.linkItemCount(), 4);  // the NVLink fabric inside each node
        QVERIFY(!canvas.linkItem(QStringLiteral("ib")));
        QStringList texts;
        for (QGraphicsItem* item : canvas.scene()->items())
            if (auto* t = dynamic_cast<QGraphicsSimpleTextItem*>(item))
                texts << t->text();
        QVERIFY2(texts.filter(QStringLiteral("ib: InfiniBand 50 GB/s")).size() == 1, qPrintable(texts.join('\n')));
        QVERIFY(texts.filter(QStringLiteral("joins the GPUs of different nodes across every node")).size() == 1);
        if (const QString dir = qEnvironmentVariable("MEMX_SCREENSHOT_DIR"); !dir.isEmpty()) {
            canvas.resize(1400, 700);
            QVERIFY(canvas.grab().save(dir + "/canvas-fabric-across.png"));
        }
    }

    void followsDocumentEdits()
    {
        ClusterDocument doc;
        ClusterCanvas canvas(&doc);
        QVERIFY(doc.load(sample("paper-20gpu-3vendor.json")));
        QVERIFY(doc.removeNode("vb"));
        QCOMPARE(canvas.nodeItemCount(), 2);
        QCOMPARE(canvas.gpuTileCount(), 12);
        QCOMPARE(canvas.linkItemCount(), 5);
        QVERIFY(!canvas.nodeItem("vb"));
        doc.undoStack()->undo();
        QCOMPARE(canvas.nodeItemCount(), 3);
        QCOMPARE(canvas.gpuTileCount(), 20);
        QCOMPARE(canvas.linkItemCount(), 10);
    }

    void paletteDropAddsGpu()
    {
        ClusterDocument doc;
        ClusterCanvas canvas(&doc);
        QVERIFY(doc.load(sample("paper-20gpu-3vendor.json")));
        QSignalSpy said(&canvas, &ClusterCanvas::feedback);
        // a100 holds 4: a drop fills it to a full node of 8.
        QVERIFY(canvas.dropGpuType("a100", "A100-80GB"));
        QCOMPARE(doc.gpuCount("a100", "A100-80GB"), 8);
        QCOMPARE(canvas.gpuTileCount(), 24);
        QCOMPARE(said.count(), 1);
        QCOMPARE(said.last().at(0).toString(), QString("added 4 x A100-80GB to node a100 (now 8 GPUs)"));
        // A full node gets 8 more.
        QVERIFY(canvas.dropGpuType("a100", "H100-SXM"));
        QCOMPARE(doc.gpuCount("a100", "H100-SXM"), 8);
        QCOMPARE(canvas.gpuTileCount(), 32);
        doc.undoStack()->undo();
        doc.undoStack()->undo();
        QCOMPARE(doc.gpuCount("a100", "A100-80GB"), 4);
        QCOMPARE(canvas.gpuTileCount(), 20);

        QSignalSpy refused(&canvas, &ClusterCanvas::editRefused);
        QString error;
        QVERIFY(!canvas.dropGpuType("a100", "NoSuchGPU", &error));
        QVERIFY(error.contains("unknown GPU type"));
        QCOMPARE(refused.count(), 1);
    }

    void dropOnEmptyCanvasAddsALinkedNode()
    {
        ClusterDocument doc;
        ClusterCanvas canvas(&doc);
        QVERIFY(doc.load(sample("paper-20gpu-3vendor.json")));
        QSignalSpy said(&canvas, &ClusterCanvas::feedback);
        QVERIFY(canvas.dropGpuType(QString(), "H20"));
        QCOMPARE(canvas.nodeItemCount(), 4);
        QCOMPARE(doc.gpuCount("n0", "H20"), 8);
        QCOMPARE(said.last().at(0).toString(),
                 QString("added node n0: 8 x H20 with NVLink 450 GB/s, linked to a100, vb, vc by InfiniBand 25 GB/s"));
        // The automatic links are ordinary links: drawn, selectable, editable.
        QVERIFY(canvas.linkItem("ib-a100-n0"));
        QVERIFY(canvas.linkItem("n0-NVLink"));
        QVERIFY(doc.editLink("ib-a100-n0", "bandwidth_gbps", 50.0));
        doc.undoStack()->undo();
        doc.undoStack()->undo();  // one step removes the node and all its links
        QCOMPARE(canvas.nodeItemCount(), 3);
        QCOMPARE(canvas.linkItemCount(), 10);
    }

    void emptyClusterShowsAHint()
    {
        ClusterDocument doc;
        ClusterCanvas canvas(&doc);
        QVERIFY(doc.setJson(ClusterDocument::emptyDocument()));
        QVERIFY(doc.isEmpty());
        QCOMPARE(canvas.nodeItemCount(), 0);
        QVERIFY(canvas.emptyHint().contains("GPU Types palette"));
        QVERIFY(canvas.emptyHint().contains("Edit > Add Node"));
        QVERIFY(canvas.emptyHint().contains("File > Import Cluster"));
        QVERIFY(canvas.dropGpuType(QString(), "MI300X"));
        QVERIFY(canvas.emptyHint().isEmpty());
        QCOMPARE(QString::fromLatin1(memx::toString(doc.cluster().links().front().kind)), QString("xGMI"));
        // Deleting the last node gives the empty state back, and says which
        // node went (the message once read "removed node  and its links").
        canvas.setSelection({CanvasSelection::Node, "n0", -1, {}, {}});
        QSignalSpy said(&canvas, &ClusterCanvas::feedback);
        QVERIFY(canvas.deleteSelection());
        QCOMPARE(said.count(), 1);
        QCOMPARE(said.first().first().toString(), QStringLiteral("removed node n0 and its links"));
        QVERIFY(doc.isEmpty());
        QVERIFY(!canvas.emptyHint().isEmpty());
        doc.undoStack()->undo();
        QCOMPARE(canvas.nodeItemCount(), 1);
    }

    void templatesBuildValidNodes()
    {
        ClusterDocument doc;
        ClusterCanvas canvas(&doc);
        QVERIFY(doc.setJson(ClusterDocument::emptyDocument()));
        QString node;
        QVERIFY(canvas.addNode("H100-SXM", memx::NodeTemplate::Kind::Fabric, nullptr, &node));
        QCOMPARE(node, QString("n0"));
        QCOMPARE(doc.cluster().links().size(), std::size_t(1));
        QVERIFY(canvas.addNode("T4", memx::NodeTemplate::Kind::PciePairs, nullptr, &node));
        QCOMPARE(node, QString("n1"));
        // 4 switches, one root-complex link per socket, one cross-NUMA, one InfiniBand.
        int pcie = 0, numa = 0, ib = 0;
        for (const auto& l : doc.cluster().links()) {
            pcie += l.kind == memx::LinkKind::PCIe;
            numa += l.kind == memx::LinkKind::CrossNUMA;
            ib += l.kind == memx::LinkKind::InfiniBand;
        }
        QCOMPARE(pcie, 6);
        QCOMPARE(numa, 1);
        QCOMPARE(ib, 1);
        QCOMPARE(memx::NodeTemplate::menuText(memx::NodeTemplate::Kind::Fabric, "H20"),
                 QString("8 x H20 with NVSwitch"));
        QCOMPARE(memx::NodeTemplate::menuText(memx::NodeTemplate::Kind::PciePairs, "T4"),
                 QString("8 x T4 with PCIe pairs + cross-NUMA"));
    }

    void realDropEvent()
    {
        ClusterDocument doc;
        ClusterCanvas canvas(&doc);
        canvas.resize(1200, 800);
        canvas.show();
        QVERIFY(QTest::qWaitForWindowExposed(&canvas));
        QVERIFY(doc.load(sample("paper-20gpu-3vendor.json")));
        QGraphicsItem* tile = canvas.gpuItem("vc", 2);
        QVERIFY(tile);
        const QPoint at = canvas.mapFromScene(tile->sceneBoundingRect().center());
        QMimeData mime;
        mime.setData(ClusterCanvas::kGpuTypeMime, "T4");
        QDragEnterEvent enter(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(canvas.viewport(), &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(at), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(canvas.viewport(), &drop);
        QCOMPARE(doc.gpuCount("vc", "T4"), 8);  // vc was full: 8 more
        QCOMPARE(canvas.gpuTileCount(), 28);
    }

    void clickOnATileSelectsThatGpu()
    {
        // Issue #35: a click on one GPU tile selected its whole node, so
        // Del removed 8 GPUs and the property panel showed the node.
        ClusterDocument doc;
        ClusterCanvas canvas(&doc);
        canvas.resize(1000, 700);
        canvas.show();
        QVERIFY(QTest::qWaitForWindowExposed(&canvas));
        QVERIFY(doc.load(sample("paper-20gpu-3vendor.json")));
        QCoreApplication::processEvents();
        const QGraphicsItem* tile = canvas.gpuItem("vb", 5);
        QVERIFY(tile);
        const QPoint at = canvas.mapFromScene(tile->sceneBoundingRect().center());
        QTest::mouseClick(canvas.viewport(), Qt::LeftButton, Qt::NoModifier, at);
        QCOMPARE(canvas.selection().kind, CanvasSelection::Gpu);
        QCOMPARE(canvas.selection().node, QString("vb"));
        QCOMPARE(canvas.selection().gpuIndex, 5);
        // and a click on the node's title still selects the node
        const QGraphicsItem* box = canvas.nodeItem("vb");
        QTest::mouseClick(canvas.viewport(), Qt::LeftButton, Qt::NoModifier,
                          canvas.mapFromScene(box->sceneBoundingRect().topLeft() + QPointF(40, 14)));
        QCOMPARE(canvas.selection().kind, CanvasSelection::Node);
        QCOMPARE(canvas.selection().node, QString("vb"));
    }

    void linkGestureAndDelete()
    {
        ClusterDocument doc;
        ClusterCanvas canvas(&doc);
        QVERIFY(doc.load(sample("paper-20gpu-3vendor.json")));
        CanvasSelection g0{CanvasSelection::Gpu, "a100", 0, "A100-80GB", {}};
        CanvasSelection g1{CanvasSelection::Gpu, "a100", 1, "A100-80GB", {}};
        // a100 has its NVLink fabric already: refused, saying why.
        QSignalSpy refusedLink(&canvas, &ClusterCanvas::editRefused);
        QString why;
        QVERIFY(!canvas.createLink(g0, g1, &why));
        QVERIFY2(why.contains("already joined by the NVLink fabric a100-nvlink"), qPrintable(why));
        QCOMPARE(refusedLink.count(), 1);
        // Inside a node without a fabric over all its GPUs: the type's fabric within the node.
        QSignalSpy said(&canvas, &ClusterCanvas::feedback);
        CanvasSelection b0{CanvasSelection::Gpu, "vb", 0, "Vendor-B", {}};
        CanvasSelection b5{CanvasSelection::Gpu, "vb", 5, "Vendor-B", {}};
        QString name;
        QVERIFY(canvas.createLink(b0, b5, nullptr, &name));
        QCOMPARE(canvas.linkItemCount(), 11);
        const auto& added = doc.cluster().links().back();
        QVERIFY(added.within);
        QCOMPARE(QString::fromLatin1(memx::toString(added.kind)), QString("PCIe"));  // not an NVIDIA part
        QCOMPARE(QString::fromStdString(added.aSelector), QString("vb"));
        QCOMPARE(name, QString("vb-PCIe"));
        QCOMPARE(said.count(), 1);
        doc.undoStack()->undo();
        QCOMPARE(canvas.linkItemCount(), 10);
        // Two types in one node: over the GPUs of the type dragged from.
        QVERIFY(doc.setGpuCount("a100", "H100-SXM", 4));
        CanvasSelection h4{CanvasSelection::Gpu, "a100", 4, "H100-SXM", {}};
        CanvasSelection h7{CanvasSelection::Gpu, "a100", 7, "H100-SXM", {}};
        QVERIFY(canvas.createLink(h4, h7));
        QCOMPARE(QString::fromStdString(doc.cluster().links().back().aSelector), QString("a100:4-7"));
        QCOMPARE(QString::fromLatin1(memx::toString(doc.cluster().links().back().kind)), QString("NVLink"));
        QCOMPARE(doc.cluster().links().back().bandwidthGBps, 450.0);
        QVERIFY(canvas.createLink(g0, h4));  // mixed: PCIe within the node
        QCOMPARE(QString::fromStdString(doc.cluster().links().back().aSelector), QString("a100"));
        QCOMPARE(QString::fromLatin1(memx::toString(doc.cluster().links().back().kind)), QString("PCIe"));
        doc.undoStack()->undo();
        doc.undoStack()->undo();
        doc.undoStack()->undo();
        QCOMPARE(canvas.linkItemCount(), 10);

        CanvasSelection vb{CanvasSelection::Node, "vb", -1, {}, {}};
        CanvasSelection vc{CanvasSelection::Node, "vc", -1, {}, {}};
        QVERIFY(canvas.createLink(vb, vc));
        QCOMPARE(QString::fromLatin1(memx::toString(doc.cluster().links().back().kind)), QString("InfiniBand"));
        QCOMPARE(doc.cluster().links().back().bandwidthGBps, 25.0);
        QCOMPARE(canvas.linkItemCount(), 11);

        // Select the new link, press Del: removed through the document (undoable).
        QSignalSpy selected(&canvas, &ClusterCanvas::selectionChanged);
        const QString ib = QString::fromStdString(doc.cluster().links().back().name);
        canvas.setSelection({CanvasSelection::Link, {}, -1, {}, ib});
        QCOMPARE(canvas.selection().kind, CanvasSelection::Link);
        QCOMPARE(canvas.selection().link, ib);
        QVERIFY(selected.count() >= 1);
        QTest::keyClick(canvas.viewport(), Qt::Key_Delete);
        QCOMPARE(canvas.linkItemCount(), 10);
        QCOMPARE(canvas.selection().kind, CanvasSelection::None);

        // Deleting a node through the canvas.
        canvas.setSelection({CanvasSelection::Node, "vc", -1, {}, {}});
        QVERIFY(canvas.deleteSelection());
        QCOMPARE(canvas.nodeItemCount(), 2);
        doc.undoStack()->undo();
        QCOMPARE(canvas.nodeItemCount(), 3);

        // The only link joining two nodes cannot be deleted.
        canvas.setSelection({CanvasSelection::Link, {}, -1, {}, "ib-a100-vb"});
        QSignalSpy refused(&canvas, &ClusterCanvas::editRefused);
        QString error;
        QVERIFY(!canvas.deleteSelection(&error));
        QVERIFY2(error.contains("no link joins"), qPrintable(error));
        QCOMPARE(refused.count(), 1);
    }

    void deleteRemovesExactlyTheSelectedGpus()
    {
        ClusterDocument doc;
        ClusterCanvas canvas(&doc);
        QVERIFY(doc.load(sample("paper-20gpu-3vendor.json")));
        QSignalSpy said(&canvas, &ClusterCanvas::feedback);
        // One GPU: vb:5 goes, vb:6-7 move down, the switch over vb:4-7 follows.
        canvas.setSelection({CanvasSelection::Gpu, "vb", 5, "Vendor-B", {}});
        QCOMPARE(canvas.selectedGpus().size(), 1);
        QTest::keyClick(canvas.viewport(), Qt::Key_Delete);
        QCOMPARE(doc.gpuCount("vb", "Vendor-B"), 7);
        QCOMPARE(canvas.gpuTileCount(), 19);
        QCOMPARE(said.count(), 1);
        QVERIFY2(said.last().at(0).toString().startsWith("removed GPU vb:5 (Vendor-B); node vb now has 7 GPUs"),
                 qPrintable(said.last().at(0).toString()));
        QCOMPARE(doc.json()["links"][2]["within"].get<std::string>(), std::string("vb:4-6"));
        QCOMPARE(doc.json()["links"][3]["between"][1].get<std::string>(), std::string("vb:4-6"));
        QCOMPARE(canvas.selection().kind, CanvasSelection::None);
        doc.undoStack()->undo();
        QCOMPARE(doc.gpuCount("vb", "Vendor-B"), 8);

        // A range (Shift+click from the last clicked GPU): vb:1-3.
        canvas.selectGpuRange("vb", 3, 1);
        QCOMPARE(canvas.selectedGpus().size(), 3);
        QVERIFY(canvas.deleteSelection());
        QCOMPARE(doc.gpuCount("vb", "Vendor-B"), 5);
        // The switch over vb:0-3 keeps one GPU: no fabric left, removed and said so.
        QCOMPARE(doc.json()["links"][1]["name"].get<std::string>(), std::string("b-switch1"));
        QCOMPARE(doc.json()["links"][1]["within"].get<std::string>(), std::string("vb:1-4"));
        QVERIFY(said.last().at(0).toString().contains("removed link b-switch0"));
        QCOMPARE(doc.undoStack()->count(), 1);  // one step (the undone one was dropped)
        doc.undoStack()->undo();

        // The last GPUs of a node take the node with them.
        canvas.selectGpuRange("a100", 0, 3);
        QVERIFY(canvas.deleteSelection());
        QVERIFY(!canvas.nodeItem("a100"));
        QVERIFY(said.last().at(0).toString().contains("so the node and its links are gone"));
    }

    void selectionSurvivesRename()
    {
        ClusterDocument doc;
        ClusterCanvas canvas(&doc);
        QVERIFY(doc.load(sample("paper-20gpu-3vendor.json")));
        canvas.setSelection({CanvasSelection::Gpu, "vb", 3, "Vendor-B", {}});
        QCOMPARE(canvas.selection().gpuType, QString("Vendor-B"));
        QVERIFY(doc.renameNode("vb", "vendorb"));
        QCOMPARE(canvas.selection().kind, CanvasSelection::Gpu);
        QCOMPARE(canvas.selection().node, QString("vendorb"));
        QVERIFY(canvas.gpuItem("vendorb", 3)->isSelected());
    }

    void paletteListsCatalogWithMime()
    {
        memx::GpuPalette palette;
        QVERIFY(palette.count() >= 5);
        int row = -1;
        for (int i = 0; i < palette.count(); ++i)
            if (palette.typeNameAt(i) == "A100-80GB")
                row = i;
        QVERIFY(row >= 0);
        QVERIFY(palette.item(row)->text().contains("TFLOP/s"));
        QVERIFY(palette.item(row)->text().contains("80 GiB"));
        QVERIFY(!palette.item(row)->icon().isNull());
        QCOMPARE(palette.model()->mimeTypes(), QStringList{ClusterCanvas::kGpuTypeMime});
        std::unique_ptr<QMimeData> mime(palette.model()->mimeData({palette.model()->index(row, 0)}));
        QVERIFY(mime);
        QCOMPARE(mime->data(ClusterCanvas::kGpuTypeMime), QByteArray("A100-80GB"));
    }

    // Typing a number commits it when the field is finished (Enter or
    // leaving it), never a prefix on the way: 99999999 once left the link at
    // 9999 GB/s, the last in-range prefix. Out of range, nothing is applied
    // and the allowed range is said in words, not as a JSON path.
    void typedValueCommitsOnlyWhenFinished()
    {
        ClusterDocument doc;
        ClusterCanvas canvas(&doc);
        memx::PropertyPanel panel(&doc);
        connect(&canvas, &ClusterCanvas::selectionChanged, &panel, &memx::PropertyPanel::setSelection);
        QVERIFY(doc.load(sample("paper-20gpu-3vendor.json")));
        canvas.setSelection({CanvasSelection::Link, {}, -1, {}, "ib-vb-vc"});
        auto* bw = qobject_cast<QDoubleSpinBox*>(panel.field("bandwidth_gbps"));
        QVERIFY(bw);
        bw->selectAll();
        QTest::keyClicks(bw, "99999999");
        QCOMPARE(doc.cluster().links()[9].bandwidthGBps, 28.0);  // nothing while typing
        QCOMPARE(doc.undoStack()->count(), 0);
        QTest::keyClick(bw, Qt::Key_Enter);
        QCOMPARE(doc.cluster().links()[9].bandwidthGBps, 28.0);  // refused whole
        QVERIFY(panel.isRefused("bandwidth_gbps"));
        QVERIFY2(panel.errorText().contains("Bandwidth: 0.01 to 10,000 GB/s"), qPrintable(panel.errorText()));
        QVERIFY2(!panel.errorText().contains("/links") && !panel.errorText().contains("allow_outside_range"),
                 qPrintable(panel.errorText()));
        // A value in range, typed and finished, is one edit.
        bw->selectAll();
        QTest::keyClicks(bw, "45");
        QCOMPARE(doc.cluster().links()[9].bandwidthGBps, 28.0);
        QTest::keyClick(bw, Qt::Key_Enter);
        QCOMPARE(doc.cluster().links()[9].bandwidthGBps, 45.0);
        QCOMPARE(doc.undoStack()->count(), 1);
        QVERIFY(!panel.isRefused("bandwidth_gbps"));
    }

    // Issue #35 item 6: a GPU type field refused for its range said so with
    // the file's JSON path and "allow_outside_range", which no control sets.
    void typeFieldRefusalSaysTheRange_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("typed");
        QTest::addColumn<QString>("says");  // the field as labelled, the range of ranges:: in words
        QTest::newRow("memory") << "memory_gib"
                                << "2000"
                                << "Memory: 1 to 1,024 GiB; 2,000 GiB was not applied";
        QTest::newRow("peak") << "peak_tflops_bf16"
                              << "0"
                              << "Peak bf16: 0.1 to 100,000 TFLOP/s; 0 TFLOP/s";
        QTest::newRow("memory bandwidth") << "memory_bandwidth_gbps"
                                          << "0"
                                          << "Memory bandwidth: 1 to 100,000 GB/s";
        QTest::newRow("memory multiplier") << "calibration.memory_multiplier"
                                           << "7"
                                           << "Memory ×: 0.05 to 5; 7 was";
        QTest::newRow("price") << "price_per_gpu_hour"
                               << "5000"
                               << "Price per GPU-hour: 0 to 1,000 per GPU-hour";
    }

    void typeFieldRefusalSaysTheRange()
    {
        QFETCH(QString, key);
        QFETCH(QString, typed);
        QFETCH(QString, says);
        ClusterDocument doc;
        ClusterCanvas canvas(&doc);
        memx::PropertyPanel panel(&doc);
        connect(&canvas, &ClusterCanvas::selectionChanged, &panel, &memx::PropertyPanel::setSelection);
        QVERIFY(doc.load(sample("paper-20gpu-3vendor.json")));
        const nlohmann::json before = doc.json();
        canvas.setSelection({CanvasSelection::Gpu, "vb", 0, "Vendor-B", {}});
        auto* spin = qobject_cast<QDoubleSpinBox*>(panel.field(key));
        QVERIFY(spin);
        spin->selectAll();
        QTest::keyClicks(spin, typed);
        QTest::keyClick(spin, Qt::Key_Enter);
        QVERIFY(panel.isRefused(key));
        QCOMPARE(doc.json(), before);  // nothing applied
        QVERIFY2(panel.errorText().startsWith(says), qPrintable(panel.errorText()));
        QVERIFY2(!panel.errorText().contains("gpu_types") && !panel.errorText().contains(key)
                     && !panel.errorText().contains("allow_outside_range"),
                 qPrintable(panel.errorText()));
    }

    // Issue #35 items 4 and 5: Del on a tile took the whole node without a
    // word. The Delete action names what it removes; a node-sized delete
    // reads as a node action, also when the GPUs selected are all of a node's.
    void deleteNamesWhatGoes()
    {
        ClusterDocument doc;
        ClusterCanvas canvas(&doc);
        QVERIFY(doc.load(sample("paper-20gpu-3vendor.json")));
        QCOMPARE(canvas.deleteText(), QString());  // nothing selected
        canvas.setSelection({CanvasSelection::Node, "vb", -1, {}, {}});
        QCOMPARE(canvas.deleteText(), QStringLiteral("Delete Node vb and Its Links"));
        canvas.setSelection({CanvasSelection::Link, {}, -1, {}, "ib-a100-vb"});
        QCOMPARE(canvas.deleteText(), QStringLiteral("Delete Link ib-a100-vb"));
        canvas.setSelection({CanvasSelection::Gpu, "vb", 3, "Vendor-B", {}});
        QCOMPARE(canvas.deleteText(), QStringLiteral("Delete GPU vb:3"));
        canvas.selectGpuRange("vb", 2, 4);
        QCOMPARE(canvas.deleteText(), QStringLiteral("Delete 3 GPUs of vb"));
        canvas.selectGpuRange("vb", 0, 7);  // vb holds 8 GPUs: the node goes with them
        QCOMPARE(canvas.deleteText(), QStringLiteral("Delete Node vb and Its Links (all its GPUs are selected)"));
        QVERIFY(canvas.deleteSelection());
        QCOMPARE(doc.cluster().deviceCount(), 12);
    }

    // Typing a GPU count of 16 over 8 once set 1 first (dropping the links
    // into GPUs 1-7) and then 16: now the count changes once, links kept.
    void typedCountCommitsOnlyWhenFinished()
    {
        ClusterDocument doc;
        ClusterCanvas canvas(&doc);
        memx::PropertyPanel panel(&doc);
        connect(&canvas, &ClusterCanvas::selectionChanged, &panel, &memx::PropertyPanel::setSelection);
        QVERIFY(doc.load(sample("paper-20gpu-3vendor.json")));
        const std::size_t links = doc.cluster().links().size();
        canvas.setSelection({CanvasSelection::Node, "vb", -1, {}, {}});
        auto* count = qobject_cast<QSpinBox*>(panel.field("count/Vendor-B"));
        QVERIFY(count);
        QCOMPARE(count->value(), 8);
        count->selectAll();
        QTest::keyClicks(count, "16");
        QCOMPARE(doc.cluster().deviceCount(), 20);  // nothing while typing
        QTest::keyClick(count, Qt::Key_Enter);
        QCOMPARE(doc.cluster().deviceCount(), 28);
        QCOMPARE(doc.cluster().links().size(), links);
        QCOMPARE(doc.undoStack()->count(), 1);
    }

    void propertyPanelEditsAndRefuses()
    {
        ClusterDocument doc;
        ClusterCanvas canvas(&doc);
        memx::PropertyPanel panel(&doc);
        connect(&canvas, &ClusterCanvas::selectionChanged, &panel, &memx::PropertyPanel::setSelection);
        QVERIFY(doc.load(sample("paper-20gpu-3vendor.json")));

        canvas.setSelection({CanvasSelection::Link, {}, -1, {}, "ib-vb-vc"});
        QCOMPARE(panel.selection().link, QString("ib-vb-vc"));
        auto* bw = qobject_cast<QDoubleSpinBox*>(panel.field("bandwidth_gbps"));
        QVERIFY(bw);
        QCOMPARE(bw->value(), 28.0);
        bw->setValue(30);
        bw->setValue(32);
        QCOMPARE(doc.cluster().links()[9].bandwidthGBps, 32.0);
        QCOMPARE(doc.undoStack()->count(), 1);  // typing is one undo step
        QVERIFY(panel.errorText().isEmpty());

        // Refused in place: not applied, field red, reason shown.
        bw->setValue(0);
        QCOMPARE(doc.cluster().links()[9].bandwidthGBps, 32.0);
        QVERIFY(panel.isRefused("bandwidth_gbps"));
        QVERIFY2(panel.errorText().contains("Bandwidth: 0.01 to 10,000 GB/s; 0 GB/s was not applied"),
                 qPrintable(panel.errorText()));
        QVERIFY(bw->styleSheet().contains("background"));
        QCOMPARE(doc.undoStack()->count(), 1);

        auto* kind = qobject_cast<QComboBox*>(panel.field("kind"));
        kind->setCurrentText("RoCE");
        QCOMPARE(QString::fromLatin1(memx::toString(doc.cluster().links()[9].kind)), QString("RoCE"));
        QVERIFY(!panel.isRefused("bandwidth_gbps"));
        auto* shared = qobject_cast<QCheckBox*>(panel.field("shared"));
        shared->setChecked(true);
        QVERIFY(doc.cluster().links()[9].sharedFlag);

        // Undo shows in the panel.
        doc.undoStack()->undo();
        QVERIFY(!shared->isChecked());

        // GPU type fields become overrides.
        canvas.setSelection({CanvasSelection::Gpu, "vb", 0, "Vendor-B", {}});
        QCOMPARE(panel.selection().kind, CanvasSelection::Gpu);
        auto* mem = qobject_cast<QDoubleSpinBox*>(panel.field("calibration.memory_multiplier"));
        QVERIFY(mem);
        mem->setValue(1.2);
        QCOMPARE(doc.json()["gpu_types"]["Vendor-B"]["calibration"]["memory_multiplier"].get<double>(), 1.2);
        // A price per GPU-hour: unknown until set, back to unknown at the bottom.
        auto* price = qobject_cast<QDoubleSpinBox*>(panel.field("price_per_gpu_hour"));
        QVERIFY(price);
        QCOMPARE(price->text(), QString("unknown"));
        price->setValue(2.5);
        QCOMPARE(doc.json()["gpu_types"]["Vendor-B"]["price_per_gpu_hour"].get<double>(), 2.5);
        double priced = -1;
        for (const auto& t : doc.cluster().types())
            if (t.name == "Vendor-B")
                priced = t.pricePerHour;
        QCOMPARE(priced, 2.5);
        if (const QString dir = qEnvironmentVariable("MEMX_SCREENSHOT_DIR"); !dir.isEmpty()) {
            panel.resize(360, panel.sizeHint().height());
            panel.show();
            QVERIFY(QTest::qWaitForWindowExposed(&panel));
            QVERIFY(panel.grab().save(dir + "/panels-gpu-type-price.png"));
        }
        price->setValue(price->minimum());
        QVERIFY(!doc.json()["gpu_types"]["Vendor-B"].contains("price_per_gpu_hour"));
        auto* count = qobject_cast<QSpinBox*>(panel.field("count"));
        QCOMPARE(count->value(), 8);
        count->setValue(6);  // vb:4-7 would point past the end
        QVERIFY(panel.isRefused("count"));
        QVERIFY(panel.errorText().contains("does not exist"));
        QCOMPARE(doc.gpuCount("vb", "Vendor-B"), 8);

        // Node rename keeps the panel on the node.
        canvas.setSelection({CanvasSelection::Node, "vc", -1, {}, {}});
        auto* name = qobject_cast<QLineEdit*>(panel.field("name"));
        name->setText("vb");
        emit name->editingFinished();
        QVERIFY(panel.errorText().contains("duplicate node name"));
        name->setText("vendorc");
        emit name->editingFinished();
        QVERIFY(panel.errorText().isEmpty());
        QCOMPARE(panel.selection().node, QString("vendorc"));
        QCOMPARE(canvas.selection().node, QString("vendorc"));
    }

    void propertyPanelEditsNodeCountsAndCluster()
    {
        ClusterDocument doc;
        ClusterCanvas canvas(&doc);
        memx::PropertyPanel panel(&doc);
        connect(&canvas, &ClusterCanvas::selectionChanged, &panel, &memx::PropertyPanel::setSelection);
        QVERIFY(doc.setJson(ClusterDocument::emptyDocument()));
        // Nothing selected: the cluster's name and description.
        auto* clusterName = qobject_cast<QLineEdit*>(panel.field("cluster_name"));
        QVERIFY(clusterName);
        QCOMPARE(clusterName->text(), QString("Untitled"));
        clusterName->setText("lab");
        emit clusterName->editingFinished();
        QCOMPARE(doc.json()["name"].get<std::string>(), std::string("lab"));
        auto* description = qobject_cast<QLineEdit*>(panel.field("description"));
        description->setText("two boxes");
        emit description->editingFinished();
        QCOMPARE(doc.json()["description"].get<std::string>(), std::string("two boxes"));

        QVERIFY(canvas.dropGpuType(QString(), "A100-80GB"));
        canvas.setSelection({CanvasSelection::Node, "n0", -1, {}, {}});
        auto* a100 = qobject_cast<QSpinBox*>(panel.field("count/A100-80GB"));
        QVERIFY(a100);
        QCOMPARE(a100->value(), 8);
        // Another type: a count field appears for it.
        auto* addType = qobject_cast<QComboBox*>(panel.field("add_type"));
        auto* addCount = qobject_cast<QSpinBox*>(panel.field("add_count"));
        QVERIFY(addType && addCount);
        addType->setCurrentText("H100-SXM");
        addCount->setValue(4);
        qobject_cast<QPushButton*>(panel.field("add"))->click();
        QCOMPARE(doc.gpuCount("n0", "H100-SXM"), 4);
        auto* h100 = qobject_cast<QSpinBox*>(panel.field("count/H100-SXM"));
        QVERIFY(h100);
        QCOMPARE(h100->value(), 4);
        const int steps = doc.undoStack()->count();
        h100->setValue(2);
        h100->setValue(3);
        QCOMPARE(doc.gpuCount("n0", "H100-SXM"), 3);
        QCOMPARE(doc.undoStack()->count(), steps + 1);  // typing is one step
        // 0 removes the type (and its field) without deleting the editor under the signal.
        h100->setValue(0);
        QCOMPARE(doc.gpuCount("n0", "H100-SXM"), 0);
        QVERIFY(!panel.field("count/H100-SXM"));
        // A count the links cannot take is refused in place.
        a100 = qobject_cast<QSpinBox*>(panel.field("count/A100-80GB"));
        QVERIFY(a100);
        a100->setValue(1);  // the NVLink fabric needs two GPUs
        QVERIFY(panel.isRefused("count/A100-80GB"));
        QCOMPARE(doc.gpuCount("n0", "A100-80GB"), 8);
        doc.undoStack()->undo();  // the typed counts at once
        QCOMPARE(doc.gpuCount("n0", "H100-SXM"), 4);
        QVERIFY(panel.field("count/H100-SXM"));
    }

    void renders_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* s : {"paper-20gpu-3vendor", "homogeneous-8xa100", "modern-h100-h20-910b", "paper-6gpu-v100-t4",
                              "paper-table1-xy"})
            QTest::newRow(s) << QString(s);
        QTest::newRow("multi-edge") << QString("multi-edge");
    }
    void renders()
    {
        QFETCH(QString, name);
        ClusterDocument doc;
        ClusterCanvas canvas(&doc);
        canvas.resize(1200, 800);
        canvas.show();
        QVERIFY(QTest::qWaitForWindowExposed(&canvas));
        if (name == "multi-edge") {
            // Several links between the same sets: drawn apart, shared ones dashed.
            QVERIFY(doc.load(sample("paper-20gpu-3vendor.json")));
            memx::LinkSpec s;
            s.kind = "RoCE";
            s.a = "a100";
            s.b = "vb";
            s.bandwidthGBps = 12.5;
            QVERIFY(doc.addLink(s));
            s.kind = "Ethernet";
            s.bandwidthGBps = 3;
            s.shared = true;
            QVERIFY(doc.addLink(s));
            s = memx::LinkSpec();
            s.kind = "PCIe";
            s.a = "a100";
            s.bandwidthGBps = 32;
            s.shared = true;
            QVERIFY(doc.addLink(s));
            s.a = "vc:2-5";
            s.bandwidthGBps = 8;
            s.shared = false;
            QVERIFY(doc.addLink(s));
            s.a = "vb:1";
            s.b = "vb:2";
            s.bandwidthGBps = 4;
            QVERIFY(doc.addLink(s));
            canvas.setSelection({CanvasSelection::Link, {}, -1, {}, "ib-a100-vc"});
        } else {
            QVERIFY(doc.load(sample((name + ".json").toUtf8().constData())));
        }
        canvas.fitAll();
        QImage image = canvas.grab().toImage();
        QCOMPARE(image.size(), QSize(1200, 800));
        const QString out = QStringLiteral("/tmp/editor-%1.png").arg(name);
        QVERIFY(image.save(out));
        // Something other than the background was drawn.
        int drawn = 0;
        for (int y = 0; y < image.height(); y += 4)
            for (int x = 0; x < image.width(); x += 4)
                drawn += image.pixel(x, y) != image.pixel(600, 2);
        QVERIFY2(drawn > (1200 / 4) * (800 / 4) / 30, qPrintable(QString::number(drawn)));
    }
};

MEMX_TEST_MAIN(TestClusterCanvas)
}  // namespace tst_cluster_canvas

#include "tst_cluster_canvas.moc"
