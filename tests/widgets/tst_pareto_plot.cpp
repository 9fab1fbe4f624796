#include "ParetoPlot.h"
#include "TestRequests.h"
#include "search/SearchEngine.h"

#include <qcustomplot.h>

#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include "TestMain.h"

namespace tst_pareto_plot {

using namespace memx;

class TestParetoPlot : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void candidatesDrawn();
    void everyPickHasAVisibleMarker();
    void thinsLargeSamples();
    void perMeshPlansApart();
    void selectionRing();
    void clickEmitsPlanClicked();
    void hoverEmitsSummary();
    void yAxisSwitchesFront();
    void liveFront();
    void exportImage();
    void screenshots();

private:
    static QCPGraph* graphNamed(ParetoPlot& w, const QString& name);
    static QPoint pixelOf(ParetoPlot& w, const Plan& p);
    // The plot keeps the result it is shown; each test hands it a copy.
    static std::shared_ptr<const SearchResult> shared(const SearchResult& r)
    {
        return std::make_shared<const SearchResult>(r);
    }
    SearchResult result_;
};

void TestParetoPlot::initTestCase()
{
    SearchRequest req = test::paperRequest();
    result_ = SearchEngine::run(req);
    QVERIFY2(result_.error.empty(), result_.error.c_str());
    QVERIFY(!result_.plotSample.empty());
    QVERIFY(!result_.profilePicks.empty());
}

QCPGraph* TestParetoPlot::graphNamed(ParetoPlot& w, const QString& name)
{
    for (int i = 0; i < w.plot()->graphCount(); ++i)
        if (w.plot()->graph(i)->name() == name)
            return w.plot()->graph(i);
    return nullptr;
}

// Per-mesh candidates get a graph of their own, beside the uniform ones,
// and the front's per-mesh plans are marked: together they are every
// candidate and every front plan, each once.
void TestParetoPlot::perMeshPlansApart()
{
    const SearchResult r = SearchEngine::run(test::perMeshRequest());
    QVERIFY2(r.error.empty(), r.error.c_str());
    int mesh = 0, uniform = 0;
    for (const Plan& p : r.plotSample)
        (p.perMesh() ? mesh : uniform)++;
    QVERIFY(mesh > 0 && uniform > 0);
    ParetoPlot w;
    w.setResult(shared(r));
    QCPGraph* u = graphNamed(w, QStringLiteral("uniform candidates (%1)").arg(uniform));
    QCPGraph* m = graphNamed(w, QStringLiteral("per-mesh candidates (%1)").arg(mesh));
    QVERIFY(u && m);
    QCOMPARE(u->dataCount(), uniform);
    QCOMPARE(m->dataCount(), mesh);
    int frontMesh = 0;
    for (const auto& pt : r.paretoTimeVariance.points())
        frontMesh += pt.plan.perMesh() ? 1 : 0;
    QCPGraph* marked = graphNamed(w, QStringLiteral("front: per-mesh plan"));
    QCOMPARE(marked ? marked->dataCount() : 0, frontMesh);
    // The uniform paper search keeps the one "candidates" graph.
    ParetoPlot plain;
    plain.setResult(shared(result_));
    QVERIFY(!graphNamed(plain, QStringLiteral("per-mesh candidates (0)")));
    QVERIFY(!graphNamed(plain, QStringLiteral("front: per-mesh plan")));
}

QPoint TestParetoPlot::pixelOf(ParetoPlot& w, const Plan& p)
{
    const double x = w.plot()->xAxis->coordToPixel(p.iterationMs / 1000.0);
    const double y = w.plot()->yAxis->coordToPixel(
        w.yAxis() == ParetoPlot::YAxis::Variance ? p.varMem / (1024.0 * 1024.0) : p.maxMemMiB / 1024.0);
    return QPoint(qRound(x), qRound(y));
}

void TestParetoPlot::candidatesDrawn()
{
    ParetoPlot w;
    w.setResult(shared(result_));
    QVERIFY(result_.plotSample.size() <= ParetoPlot::kMaxCandidatePoints);
    QCOMPARE(w.candidatePointCount(), static_cast<int>(result_.plotSample.size()));
    QCPGraph* g = graphNamed(w, QStringLiteral("candidates (%1)").arg(result_.plotSample.size()));
    QVERIFY(g);
    QCOMPARE(g->dataCount(), w.candidatePointCount());
    for (const auto& pb : result_.profilePicks)
        QVERIFY2(graphNamed(w, QStringLiteral("best: %1").arg(toString(pb.kind))), toString(pb.kind));
    // The fastest feasible plan is marked: the reference every pick is priced against.
    QCPGraph* fastest = graphNamed(w, QStringLiteral("fastest feasible plan"));
    QVERIFY(fastest);
    QCOMPARE(fastest->dataCount(), 1);
    QCOMPARE(fastest->data()->begin()->key, result_.fastest.front().iterationMs / 1000.0);
    w.clear();
    QVERIFY(!graphNamed(w, QStringLiteral("fastest feasible plan")));
    QCOMPARE(w.candidatePointCount(), 0);
}

// Issue #35 item 8: "best: custom" had a legend entry with no marker (a star,
// which QCustomPlot draws with the pen only, in the background's colour).
// Every profile's marker, drawn on the plot's background, must change pixels.
void TestParetoPlot::everyPickHasAVisibleMarker()
{
    SearchResult r = result_;
    const Plan pick = r.profilePicks.front().plan;
    r.profilePicks.clear();
    for (WeightProfile k : {WeightProfile::Default, WeightProfile::SafetyFirst, WeightProfile::ThroughputFirst,
                            WeightProfile::Balanced, WeightProfile::Custom, WeightProfile::Auto}) {
        SearchResult::ProfilePick pb;
        pb.kind = k;
        pb.plan = pick;
        r.profilePicks.push_back(pb);
    }
    ParetoPlot w;
    w.setResult(shared(r));
    for (const auto& pb : r.profilePicks) {
        QCPGraph* g = graphNamed(w, QStringLiteral("best: %1").arg(toString(pb.kind)));
        QVERIFY2(g, toString(pb.kind));
        QImage img(40, 40, QImage::Format_ARGB32);
        img.fill(w.palette().color(QPalette::Base));
        {
            QCPPainter painter(&img);
            g->scatterStyle().applyTo(&painter, g->pen());
            g->scatterStyle().drawShape(&painter, QPointF(20, 20));
        }
        int changed = 0;
        for (int y = 0; y < img.height(); ++y)
            for (int x = 0; x < img.width(); ++x)
                changed += img.pixelColor(x, y) != w.palette().color(QPalette::Base);
        QVERIFY2(changed >= 20, qPrintable(QStringLiteral("%1: %2 pixels drawn").arg(toString(pb.kind)).arg(changed)));
    }
}

void TestParetoPlot::thinsLargeSamples()
{
    SearchResult big;
    for (int i = 0; i < 12000; ++i) {
        Plan p;
        p.key = static_cast<std::uint64_t>(i + 1);
        p.iterationMs = 1000 + i;
        p.varMem = 1e6 * (i % 97);
        p.maxMemMiB = 1000 + i % 13;
        big.plotSample.push_back(p);
    }
    ParetoPlot w;
    w.setResult(shared(big));
    QCOMPARE(w.candidatePointCount(), ParetoPlot::kMaxCandidatePoints);
    ParetoPlot again;
    again.setResult(shared(big));
    QCOMPARE(graphNamed(again, QStringLiteral("candidates (5000)"))->data()->at(1234)->key,
             graphNamed(w, QStringLiteral("candidates (5000)"))->data()->at(1234)->key);
}

void TestParetoPlot::selectionRing()
{
    ParetoPlot w;
    w.setResult(shared(result_));
    QCPGraph* ring = graphNamed(w, QStringLiteral("selection"));
    QVERIFY(ring);
    QCOMPARE(ring->dataCount(), 0);
    const Plan& p = result_.best.front();
    w.setSelectedPlan(p.key);
    QCOMPARE(w.selectedPlan(), static_cast<quint64>(p.key));
    ring = graphNamed(w, QStringLiteral("selection"));
    QCOMPARE(ring->dataCount(), 1);
    QCOMPARE(ring->data()->at(0)->key, p.iterationMs / 1000.0);
    QCOMPARE(ring->data()->at(0)->value, p.varMem / (1024.0 * 1024.0));
    w.setYAxis(ParetoPlot::YAxis::PeakMemory);  // the ring follows the axis
    ring = graphNamed(w, QStringLiteral("selection"));
    QCOMPARE(ring->data()->at(0)->value, p.maxMemMiB / 1024.0);
    w.setSelectedPlan(0);
    QCOMPARE(graphNamed(w, QStringLiteral("selection"))->dataCount(), 0);
}

void TestParetoPlot::clickEmitsPlanClicked()
{
    ParetoPlot w;
    w.resize(1200, 700);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setResult(shared(result_));
    QCoreApplication::processEvents();  // the plot is laid out and drawn on the next turn, as a user sees it
    QSignalSpy spy(&w, &ParetoPlot::planClicked);
    for (const auto& pb : result_.profilePicks) {
        spy.clear();
        const QPoint px = pixelOf(w, pb.plan);
        QVERIFY(w.plot()->axisRect()->rect().contains(px));
        QTest::mouseClick(w.plot(), Qt::LeftButton, {}, px);
        QCOMPARE(spy.count(), 1);
        const quint64 clicked = spy.at(0).at(0).value<quint64>();
        QCOMPARE(w.selectedPlan(), clicked);
        if (clicked != static_cast<quint64>(pb.plan.key)) {
            // Another plan drawn on the same pixel is an equally right answer.
            const Plan* other = nullptr;
            for (const Plan& q : result_.plotSample)
                if (static_cast<quint64>(q.key) == clicked)
                    other = &q;
            for (const auto& pt : result_.paretoTimeVariance.points())
                if (static_cast<quint64>(pt.plan.key) == clicked)
                    other = &pt.plan;
            for (const auto& ob : result_.profilePicks)  // another profile's pick drawn on top
                if (static_cast<quint64>(ob.plan.key) == clicked)
                    other = &ob.plan;
            QVERIFY2(other, "the clicked key is no plan of the plot");
            QVERIFY((pixelOf(w, *other) - px).manhattanLength() <= 2);
        }
    }
    // Far from every point: nothing is clicked.
    spy.clear();
    QTest::mouseClick(w.plot(), Qt::LeftButton, {}, QPoint(2, 2));
    QCOMPARE(spy.count(), 0);
}

void TestParetoPlot::hoverEmitsSummary()
{
    ParetoPlot w;
    w.resize(1200, 700);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setResult(shared(result_));
    QCoreApplication::processEvents();  // the plot is laid out and drawn on the next turn, as a user sees it
    QSignalSpy spy(&w, &ParetoPlot::planHovered);
    const Plan& p = result_.profilePicks.front().plan;
    QTest::mouseMove(w.plot(), pixelOf(w, p));
    QTRY_VERIFY(spy.count() >= 1);
    QCOMPARE(spy.last().at(0).value<quint64>(), static_cast<quint64>(p.key));
    const QString summary = spy.last().at(1).toString();
    QCOMPARE(summary, ParetoPlot::planSummary(p, result_.varianceMode));
    QVERIFY(summary.startsWith(
        QStringLiteral("TP %1 PP %2 DP %3 mbs %4 | ").arg(p.tp).arg(p.pp).arg(p.dp).arg(p.microBatch)));
    QVERIFY(summary.contains(QStringLiteral(" | T ")) && summary.contains(QStringLiteral(" GiB | V ")));
    QVERIFY(summary.contains(QStringLiteral("| Phi ")));
    qInfo().noquote() << "summary:" << summary;
}

void TestParetoPlot::yAxisSwitchesFront()
{
    ParetoPlot w;
    w.setResult(shared(result_));
    auto check = [&](const ParetoFront& front, double yScale) {
        QCPGraph* g = graphNamed(w, QStringLiteral("Pareto front"));
        QVERIFY(g);
        QCOMPARE(g->dataCount(), static_cast<int>(front.points().size()));
        for (int i = 0; i < g->dataCount(); ++i) {
            QCOMPARE(g->data()->at(i)->key, front.points()[i].x / 1000.0);
            QCOMPARE(g->data()->at(i)->value, front.points()[i].y / yScale);
        }
    };
    QCOMPARE(w.yAxis(), ParetoPlot::YAxis::Variance);
    check(result_.paretoTimeVariance, 1024.0 * 1024.0);
    w.setYAxis(ParetoPlot::YAxis::PeakMemory);
    QCOMPARE(w.yAxis(), ParetoPlot::YAxis::PeakMemory);
    check(result_.paretoTimeMemory, 1024.0);
    QVERIFY(w.plot()->yAxis->label().contains(QStringLiteral("GiB")));
    w.setLogAxes(true);
    QVERIFY(w.logAxes());
    QCOMPARE(w.plot()->xAxis->scaleType(), QCPAxis::stLogarithmic);
    w.setLogAxes(false);
    QCOMPARE(w.plot()->yAxis->scaleType(), QCPAxis::stLinear);
}

void TestParetoPlot::liveFront()
{
    ParetoPlot w;
    w.setLiveFront({{30000, 4e6}, {25000, 8e6}, {20000, 2e7}});
    QCPGraph* g = graphNamed(w, QStringLiteral("live front"));
    QVERIFY(g && g->visible());
    QCOMPARE(g->dataCount(), 3);
    w.setLiveFront({{21000, 1e7}});
    QCOMPARE(graphNamed(w, QStringLiteral("live front"))->dataCount(), 1);
}

void TestParetoPlot::exportImage()
{
    QTemporaryDir dir;
    ParetoPlot w;
    w.setResult(shared(result_));
    const QString png = dir.filePath(QStringLiteral("p.png"));
    QVERIFY(w.exportImage(png, 800, 500));
    QVERIFY(QFileInfo(png).size() > 1000);
    QImage img(png);
    QCOMPARE(img.size(), QSize(800, 500));
    const QString pdf = dir.filePath(QStringLiteral("p.pdf"));
    QVERIFY(w.exportImage(pdf, 800, 500));
    QVERIFY(QFileInfo(pdf).size() > 1000);
    QVERIFY(!w.exportImage(dir.filePath(QStringLiteral("p.xyz")), 800, 500));
}

void TestParetoPlot::screenshots()
{
    ParetoPlot w;
    w.resize(1200, 700);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setResult(shared(result_));
    w.setSelectedPlan(result_.best.front().key);
    w.plot()->replot();
    QVERIFY(w.grab().save(QStringLiteral("/tmp/plots-pareto-variance.png")));
    w.setYAxis(ParetoPlot::YAxis::PeakMemory);
    w.plot()->replot();
    QVERIFY(w.grab().save(QStringLiteral("/tmp/plots-pareto-memory.png")));
    w.setYAxis(ParetoPlot::YAxis::Variance);
    w.setLogAxes(true);
    w.plot()->replot();
    QVERIFY(w.grab().save(QStringLiteral("/tmp/plots-pareto-log.png")));
    QPalette dark;
    dark.setColor(QPalette::Base, QColor(0x23, 0x26, 0x29));
    dark.setColor(QPalette::Window, QColor(0x31, 0x36, 0x3b));
    dark.setColor(QPalette::Text, QColor(0xef, 0xf0, 0xf1));
    dark.setColor(QPalette::WindowText, QColor(0xef, 0xf0, 0xf1));
    w.setLogAxes(false);
    w.setPalette(dark);
    w.plot()->replot();
    QVERIFY(w.grab().save(QStringLiteral("/tmp/plots-pareto-dark.png")));
}

MEMX_TEST_MAIN(TestParetoPlot)
}  // namespace tst_pareto_plot

#include "tst_pareto_plot.moc"
