// A new user's path, offscreen: File > New gives an empty cluster with a hint
// and a search on it is refused with a reason; a two-node cluster built
// through the canvas, the property panel and document commands (no JSON)
// plans exactly like the same cluster written as a file by hand.
#include "ClusterCanvas.h"
#include "ClusterDocument.h"
#include "GpuPalette.h"
#include "MainWindow.h"
#include "TestWindow.h"
#include "PropertyPanel.h"
#include "SearchController.h"

#include "io/AtomicFile.h"

#include <QAction>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QUndoStack>
#include "TestMain.h"

namespace tst_cluster_from_scratch {

using namespace memx;
using memx::test::action;
using memx::test::darkPalette;
using memx::test::quietOptions;
using memx::test::runAndWait;
using memx::test::status;

namespace {

struct Best {
    int tp = 0, pp = 0, dp = 0;
    std::vector<int> layers;
    std::vector<std::string> types;
    double iterationMs = 0;
};

bool runAndTakeBest(MainWindow& w, Best* best)
{
    QSignalSpy shown(&w, &MainWindow::resultShown);
    w.runSearch();
    if (!shown.wait(120000) || !w.result() || w.result()->best.empty())
        return false;
    const Plan& p = w.result()->best.front();
    best->tp = p.tp;
    best->pp = p.pp;
    best->dp = p.dp;
    for (const auto& s : p.stages) {
        best->layers.push_back(s.layers);
        best->types.push_back(s.gpuType);
    }
    best->iterationMs = p.iterationMs;
    return true;
}

}  // namespace

class TestClusterFromScratch : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void newProjectIsEmptyAndRefusesASearch()
    {
        MainWindow w(quietOptions());
        w.openSampleProject();
        w.resize(1400, 900);
        QAction* newAct = action(w, QStringLiteral("&New Project"));
        QVERIFY(newAct);
        QCOMPARE(newAct->shortcut(), QKeySequence(QKeySequence::New));
        newAct->trigger();
        QVERIFY(w.document()->isEmpty());
        QVERIFY2(w.windowTitle().startsWith("Untitled"), qPrintable(w.windowTitle()));
        auto* canvas = qobject_cast<ClusterCanvas*>(w.viewWidget(MainWindow::View::Cluster));
        QVERIFY(canvas);
        QVERIFY(canvas->emptyHint().contains("Add Node"));
        w.runSearch();
        QVERIFY2(status(w).contains("the cluster has no GPUs: add a node"), qPrintable(status(w)));
        QVERIFY(!w.controller()->isRunning());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.grab().save("/tmp/ed-empty.png"));
        // Saved and reopened, the empty project stays a project.
        QTemporaryDir dir;
        const QString file = dir.filePath("empty.memx");
        QString error;
        QVERIFY2(w.saveProject(file, &error), qPrintable(error));
        QVERIFY2(w.openProject(file, &error), qPrintable(error));
        QVERIFY(w.document()->isEmpty());
    }

    void builtByHandPlansLikeTheFile()
    {
        MainWindow w(quietOptions());
        w.openSampleProject();
        w.resize(1400, 900);
        action(w, QStringLiteral("&New Project"))->trigger();
        auto* canvas = qobject_cast<ClusterCanvas*>(w.viewWidget(MainWindow::View::Cluster));
        auto* panel = w.findChild<PropertyPanel*>();
        QVERIFY(canvas && panel);
        ClusterDocument* doc = w.document();

        // Node a100: a palette type dropped on the empty canvas (8 GPUs with
        // their NVLink fabric), renamed in the property panel.
        QVERIFY(canvas->dropGpuType(QString(), "A100-80GB"));
        QVERIFY2(status(w).startsWith("added node n0: 8 x A100-80GB with NVLink 300 GB/s"), qPrintable(status(w)));
        canvas->setSelection({CanvasSelection::Node, "n0", -1, {}, {}});
        auto* name = qobject_cast<QLineEdit*>(panel->field("name"));
        QVERIFY(name);
        name->setText("a100");
        emit name->editingFinished();
        QCOMPARE(doc->cluster().nodes().front().name, std::string("a100"));

        // Node h20: a node command (linked to a100 by InfiniBand in the same
        // step), its count set in the panel, its NVLink fabric drawn from GPU
        // 0 to GPU 7.
        QVERIFY(doc->addNodeLinked("h20", "H20", 4));
        canvas->setSelection({CanvasSelection::Node, "h20", -1, {}, {}});
        auto* count = qobject_cast<QSpinBox*>(panel->field("count/H20"));
        QVERIFY(count);
        count->setValue(8);
        QCOMPARE(doc->gpuCount("h20", "H20"), 8);
        QVERIFY(canvas->createLink({CanvasSelection::Gpu, "h20", 0, "H20", {}},
                                   {CanvasSelection::Gpu, "h20", 7, "H20", {}}));
        QVERIFY2(status(w).contains("NVLink 450 GB/s fabric within h20"), qPrintable(status(w)));

        // The cluster's name, with nothing selected.
        canvas->setSelection({});
        auto* clusterName = qobject_cast<QLineEdit*>(panel->field("cluster_name"));
        QVERIFY(clusterName);
        clusterName->setText("from-scratch");
        emit clusterName->editingFinished();

        QCOMPARE(doc->cluster().deviceCount(), 16);
        QCOMPARE(doc->cluster().links().size(), std::size_t(3));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        canvas->fitAll();
        QVERIFY(canvas->grab().save("/tmp/ed-from-scratch.png"));
        canvas->setSelection({CanvasSelection::Node, "h20", -1, {}, {}});
        QCoreApplication::processEvents();  // the rebuilt form is shown by a queued call
        QVERIFY(panel->grab().save("/tmp/ed-properties-node.png"));
        QVERIFY(w.grab().save("/tmp/ed-window-node.png"));

        Best built;
        QVERIFY(runAndTakeBest(w, &built));

        // The same cluster written by hand.
        QTemporaryDir dir;
        const QString file = dir.filePath("by-hand.json");
        writeFileAtomically(file.toStdString(), R"({
  "format": "memx-cluster/1",
  "name": "from-scratch",
  "nodes": [ { "name": "a100", "gpus": [ { "type": "A100-80GB", "count": 8 } ] },
             { "name": "h20", "gpus": [ { "type": "H20", "count": 8 } ] } ],
  "links": [
    { "name": "a100-nvlink", "kind": "NVLink", "within": "a100", "bandwidth_gbps": 300, "latency_us": 3 },
    { "name": "ib", "kind": "InfiniBand", "between": ["a100", "h20"], "bandwidth_gbps": 25, "latency_us": 5 },
    { "name": "h20-nvlink", "kind": "NVLink", "within": "h20", "bandwidth_gbps": 450, "latency_us": 3 } ] }
)");
        QString error;
        QVERIFY2(doc->load(file, &error), qPrintable(error));
        Best fromFile;
        QVERIFY(runAndTakeBest(w, &fromFile));

        QCOMPARE(built.tp, fromFile.tp);
        QCOMPARE(built.pp, fromFile.pp);
        QCOMPARE(built.dp, fromFile.dp);
        QCOMPARE(built.layers, fromFile.layers);
        QCOMPARE(built.types, fromFile.types);
        QCOMPARE(built.iterationMs, fromFile.iterationMs);
        qInfo("best plan on both: tp %d pp %d dp %d, %.3f ms", fromFile.tp, fromFile.pp, fromFile.dp,
              fromFile.iterationMs);
    }

    void menusAddNodesAndAnnounceTheirLinks()
    {
        MainWindow w(quietOptions());
        w.openSampleProject();
        w.resize(1400, 900);
        action(w, QStringLiteral("&New Project"))->trigger();
        auto* palette = w.findChild<GpuPalette*>();
        QVERIFY(palette);
        for (int row = 0; row < palette->count(); ++row)
            if (palette->typeNameAt(row) == "T4")
                palette->setCurrentRow(row);
        // The template menu names the palette's type.
        QAction* pairs = action(w, QStringLiteral("8 x T4 with PCIe pairs + cross-NUMA"));
        QVERIFY(pairs);
        pairs->trigger();
        QCOMPARE(w.document()->gpuCount("n0", "T4"), 8);
        QVERIFY2(status(w).startsWith("added node n0: 8 x T4, a PCIe switch per GPU pair"), qPrintable(status(w)));
        for (int row = 0; row < palette->count(); ++row)
            if (palette->typeNameAt(row) == "H20")
                palette->setCurrentRow(row);
        QAction* nvswitch = action(w, QStringLiteral("8 x H20 with NVSwitch"));
        QVERIFY(nvswitch);
        nvswitch->trigger();
        QCOMPARE(status(w), QString("added node n1: 8 x H20 with NVLink 450 GB/s, linked to n0 by InfiniBand 25 GB/s"));
        action(w, QStringLiteral("Add &Node"))->trigger();
        QCOMPARE(status(w),
                 QString("added node n2: 8 x H20 with NVLink 450 GB/s, linked to n0, n1 by InfiniBand 25 GB/s"));
        // The automatic links are links like any other: drawn and editable.
        auto* canvas = qobject_cast<ClusterCanvas*>(w.viewWidget(MainWindow::View::Cluster));
        QVERIFY(canvas->linkItem("ib-n1-n2"));
        QVERIFY(w.document()->editLink("ib-n1-n2", "bandwidth_gbps", 50.0));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        canvas->fitAll();
        QVERIFY(canvas->grab().save("/tmp/ed-templates.png"));
        // Three undo steps back to the empty cluster (plus the edit).
        for (int i = 0; i < 4; ++i)
            w.document()->undoStack()->undo();
        QVERIFY(w.document()->isEmpty());
    }

    void importIsUndoneInOneStep()
    {
        MainWindow w(quietOptions());
        w.openSampleProject();
        ClusterDocument* doc = w.document();
        const nlohmann::json sample = doc->json();
        QTemporaryDir dir;
        const QString file = dir.filePath("two.json");
        writeFileAtomically(file.toStdString(), R"({"format": "memx-cluster/1", "name": "two",
  "nodes": [ { "name": "n0", "gpus": [ { "type": "T4", "count": 2 } ] } ],
  "links": [ { "kind": "PCIe", "within": "n0", "bandwidth_gbps": 12 } ] })");
        QVERIFY(doc->importFile(file));
        QCOMPARE(doc->cluster().deviceCount(), 2);
        doc->undoStack()->undo();
        QVERIFY(doc->json() == sample);
    }
};

MEMX_TEST_MAIN(TestClusterFromScratch)
}  // namespace tst_cluster_from_scratch

#include "tst_cluster_from_scratch.moc"
