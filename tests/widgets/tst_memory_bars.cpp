#include "MemoryBars.h"
#include "TestRequests.h"
#include "search/SearchEngine.h"

#include <qcustomplot.h>

#include <QFileInfo>
#include <QTemporaryDir>
#include "TestMain.h"

namespace tst_memory_bars {

using namespace memx;

namespace {
// Where the plot drew its visible headroom and OVER labels (after a replot),
// in pixels, with their texts.
QList<QPair<QRectF, QString>> shownLabels(MemoryBars& w)
{
    w.plot()->replot();
    QList<QPair<QRectF, QString>> out;
    for (int i = 0; i < w.plot()->itemCount(); ++i) {
        auto* t = qobject_cast<QCPItemText*>(w.plot()->item(i));
        if (!t || !t->visible() || !(t->text().startsWith(QLatin1String("OVER")) || t->text().endsWith('%')))
            continue;
        out.append({QRectF(t->topLeft->pixelPosition(), t->bottomRight->pixelPosition()).normalized(), t->text()});
    }
    return out;
}

bool anyOverlap(const QList<QPair<QRectF, QString>>& labels, QString* which)
{
    for (int i = 0; i < labels.size(); ++i)
        for (int j = i + 1; j < labels.size(); ++j)
            if (labels[i].first.intersects(labels[j].first)) {
                *which = labels[i].second + QStringLiteral(" / ") + labels[j].second;
                return true;
            }
    return false;
}
}  // namespace

class TestMemoryBars : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void oneBarPerGpu_data();
    void oneBarPerGpu();
    void overCapacityIsFlagged();
    void perMeshStagesSayTheirShape();
    void clearAndExport();
    void headroomLabelsDoNotRunTogether();
    void overCapacityLabelsDoNotOverlap_data();
    void overCapacityLabelsDoNotOverlap();

private:
    Cluster cluster_;
    SearchResult result_;
};

void TestMemoryBars::initTestCase()
{
    SearchRequest req = test::paperRequest();
    cluster_ = req.problem.cluster;
    result_ = SearchEngine::run(req);
    QVERIFY2(result_.error.empty(), result_.error.c_str());
    QVERIFY(!result_.best.empty());
}

void TestMemoryBars::oneBarPerGpu_data()
{
    QTest::addColumn<int>("which");  // index into best, then fastest
    for (int i = 0; i < 3; ++i)
        QTest::addRow("best #%d", i + 1) << i;
    QTest::addRow("fastest #1") << 100;
}

void TestMemoryBars::oneBarPerGpu()
{
    QFETCH(int, which);
    const Plan& plan = which >= 100 ? result_.fastest.at(which - 100) : result_.best.at(which);
    MemoryBars w;
    w.setPlan(plan, cluster_);
    int expected = 0;
    for (const auto& s : plan.stages)
        expected += static_cast<int>(s.devices.size());
    QCOMPARE(expected, plan.pp * plan.tp * plan.dp);
    QCOMPARE(w.barCount(), expected);
    int bar = 0;
    for (int s = 0; s < static_cast<int>(plan.stages.size()); ++s) {
        const StagePlan& st = plan.stages[s];
        QCOMPARE(static_cast<int>(st.devices.size()), plan.tp * plan.dp);
        for (int dev : st.devices) {
            QCOMPARE(w.barStage(bar), s);
            QCOMPARE(w.barTotalMiB(bar), st.memory.totalMiB());
            QCOMPARE(w.barCapacityMiB(bar), st.capacityMiB);
            QCOMPARE(w.barLabel(bar), QString::fromStdString(cluster_.deviceLabel(dev)));
            QVERIFY(!w.barOverCapacity(bar));  // engine plans are feasible
            ++bar;
        }
    }
    // The stacked bars carry the five terms in GiB.
    QCOMPARE(w.plot()->plottableCount() >= 5, true);
    auto* weights = qobject_cast<QCPBars*>(w.plot()->plottable(0));
    QVERIFY(weights);
    QCOMPARE(weights->dataCount(), expected);
    QCOMPARE(weights->data()->at(0)->value, plan.stages[0].memory.weightsMiB / 1024.0);
}

void TestMemoryBars::headroomLabelsDoNotRunTogether()
{
    // The paper cluster's best plan has 20 GPUs: wide, every GPU gets its
    // "36%"; at 420 px (about 16 px per bar, "100%" needs ~30) the labels
    // that would touch another are left out.
    const Plan& plan = result_.best.front();
    MemoryBars w;
    w.setPlan(plan, cluster_);
    w.resize(2000, 600);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QCOMPARE(w.visibleHeadroomLabels(), w.barCount());
    w.resize(420, 600);
    QCoreApplication::processEvents();
    QVERIFY(w.visibleHeadroomLabels() < w.barCount());
    QString which;
    QVERIFY2(!anyOverlap(shownLabels(w), &which), qPrintable(which));
    w.resize(2000, 600);
    QCoreApplication::processEvents();
    QCOMPARE(w.visibleHeadroomLabels(), w.barCount());
}

// In a per-mesh plan each GPU type's stages have their own TP, DP and
// micro-batch: each stage's caption says them, and its bar count is its own
// TP x DP, not the plan's.
void TestMemoryBars::perMeshStagesSayTheirShape()
{
    const SearchResult r = SearchEngine::run(test::perMeshRequest());
    QVERIFY2(r.error.empty(), r.error.c_str());
    const Plan* mesh = nullptr;
    for (const Plan& p : r.best)
        if (!mesh && p.perMesh())
            mesh = &p;
    QVERIFY2(mesh, "no per-mesh plan among the best");
    MemoryBars w;
    w.setPlan(*mesh, test::perMeshRequest().problem.cluster);
    int bar = 0;
    for (int s = 0; s < static_cast<int>(mesh->stages.size()); ++s) {
        const StageShape sh = mesh->shapeOf(static_cast<std::size_t>(s));
        QVERIFY2(
            w.stageLabel(s).startsWith(
                QStringLiteral("stage %1 · TP %2 DP %3 mbs %4\n").arg(s + 1).arg(sh.tp).arg(sh.dp).arg(sh.microBatch)),
            qPrintable(w.stageLabel(s)));
        for (int k = 0; k < sh.tp * sh.dp; ++k)
            QCOMPARE(w.barStage(bar++), s);
    }
    QCOMPARE(w.barCount(), bar);
    // A uniform plan's captions stay short: its shape is the plan's.
    const Plan* uniform = nullptr;
    for (const Plan& p : r.fastest)
        if (!uniform && !p.perMesh())
            uniform = &p;
    if (uniform) {
        w.setPlan(*uniform, test::perMeshRequest().problem.cluster);
        QVERIFY(w.stageLabel(0).startsWith(QStringLiteral("stage 1\n")));
    }
}

void TestMemoryBars::overCapacityIsFlagged()
{
    Plan plan = result_.best.front();
    StagePlan& st = plan.stages[1];
    st.memory.activationsMiB += st.capacityMiB - st.memory.totalMiB() + 1.2 * 1024;  // 1.2 GiB over
    MemoryBars w;
    w.setPlan(plan, cluster_);
    int over = 0;
    for (int i = 0; i < w.barCount(); ++i) {
        QCOMPARE(w.barOverCapacity(i), w.barStage(i) == 1);
        over += w.barOverCapacity(i);
    }
    QCOMPARE(over, plan.tp * plan.dp);
    int outlines = 0;
    QStringList texts;
    for (int i = 0; i < w.plot()->itemCount(); ++i) {
        if (auto* r = qobject_cast<QCPItemRect*>(w.plot()->item(i)))
            outlines += r->pen().color() == QColor(0xd6, 0x27, 0x28);
        if (auto* t = qobject_cast<QCPItemText*>(w.plot()->item(i)))
            texts << t->text();
    }
    QCOMPARE(outlines, over);
    QCOMPARE(texts.filter(QStringLiteral("OVER\n1.2 GiB")).size(), over);
}

void TestMemoryBars::overCapacityLabelsDoNotOverlap_data()
{
    QTest::addColumn<int>("width");
    QTest::newRow("1100 px, the Baselines view at 1600") << 1100;
    QTest::newRow("700 px") << 700;
    QTest::newRow("2000 px") << 2000;
}

void TestMemoryBars::overCapacityLabelsDoNotOverlap()
{
    // Issue #35 item 8: the Baselines view's over-capacity pick drew
    // "OVER 14.2 GiB" over each of a stage's four bars, each label wider
    // than a bar: "14.2 Gi14.2 Gi14.2 GiB". Two stages over, by 14.2 and
    // 8.1 GiB as there.
    Plan plan = result_.best.front();
    for (auto [stage, overGiB] : {std::pair{1, 14.2}, std::pair{2, 8.1}}) {
        StagePlan& st = plan.stages[stage];
        st.memory.activationsMiB += st.capacityMiB - st.memory.totalMiB() + overGiB * 1024;
    }
    MemoryBars w;
    w.setPlan(plan, cluster_);
    QFETCH(int, width);
    w.resize(width, 500);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QCoreApplication::processEvents();
    const auto labels = shownLabels(w);
    QString which;
    QVERIFY2(!anyOverlap(labels, &which), qPrintable(which));
    // Each stage over capacity keeps at least one label saying by how much.
    QStringList texts;
    for (const auto& l : labels)
        texts << l.second;
    QVERIFY2(!texts.filter(QStringLiteral("OVER\n14.2 GiB")).isEmpty(), qPrintable(texts.join('|')));
    QVERIFY2(!texts.filter(QStringLiteral("OVER\n8.1 GiB")).isEmpty(), qPrintable(texts.join('|')));
}

void TestMemoryBars::clearAndExport()
{
    QTemporaryDir dir;
    MemoryBars w;
    w.setPlan(result_.best.front(), cluster_);
    const QString png = dir.filePath(QStringLiteral("m.png"));
    QVERIFY(w.exportImage(png, 900, 500));
    QCOMPARE(QImage(png).size(), QSize(900, 500));
    QVERIFY(w.exportImage(dir.filePath(QStringLiteral("m.pdf")), 900, 500));
    QVERIFY(QFileInfo(dir.filePath(QStringLiteral("m.pdf"))).size() > 1000);
    w.clear();
    QCOMPARE(w.barCount(), 0);
}

MEMX_TEST_MAIN(TestMemoryBars)
}  // namespace tst_memory_bars

#include "tst_memory_bars.moc"
