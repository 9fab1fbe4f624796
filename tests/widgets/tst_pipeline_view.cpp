#include "PipelineSchedule.h"
#include "PipelineView.h"
#include "TestPaths.h"
#include "search/SearchEngine.h"

#include <QFileInfo>
#include <QTemporaryDir>
#include "TestMain.h"

namespace tst_pipeline_view {

using namespace memx;

namespace {
using Ops = std::vector<PipelineOp>;
PipelineOp F(int m, double s, double e) { return {PipelineOp::Kind::Forward, m, s, e}; }
PipelineOp B(int m, double s, double e) { return {PipelineOp::Kind::Backward, m, s, e}; }
QString show(const Ops& ops)
{
    QStringList out;
    for (const auto& o : ops)
        out << QStringLiteral("%1%2[%3,%4]")
                   .arg(o.kind == PipelineOp::Kind::Forward ? 'F' : 'B')
                   .arg(o.microBatch)
                   .arg(o.startMs)
                   .arg(o.endMs);
    return out.join(' ');
}
}  // namespace

class TestPipelineView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void handComputed_data();
    void handComputed();
    void invariants_data();
    void invariants();
    void eq3Relation_data();
    void eq3Relation();
    void viewFollowsPlan();
    void headersFitTheirCells_data();
    void titleFitsItsRect_data();
    void titleFitsItsRect();
    void headersFitTheirCells();

private:
    SearchResult result_;
};

void TestPipelineView::initTestCase()
{
    SearchRequest req;
    req.problem.cluster = Cluster::fromFile(test::sampleCluster("paper-20gpu-3vendor.json"));
    req.problem.model = ModelSpec::resolve("llama2-7b");
    req.problem.setup.globalBatch = 128;
    req.problem.setup.microBatchSizes = {1, 2};
    result_ = SearchEngine::run(req);
    QVERIFY2(result_.error.empty(), result_.error.c_str());
}

// Worked by hand with t = 3 ms per stage (F = 1, B = 2).
void TestPipelineView::handComputed_data()
{
    QTest::addColumn<std::vector<double>>("t");
    QTest::addColumn<std::vector<double>>("hops");
    QTest::addColumn<int>("g");
    QTest::addColumn<std::vector<Ops>>("expected");
    QTest::addColumn<double>("makespan");

    // Stage 0 warms up with one forward, then F1 B0 F2 B1, then drains B2.
    // Stage 1 (last) alternates from the start. B0 on stage 0 waits for B0 on stage 1 (ends at 4).
    QTest::newRow("P2 equal G3 no hops")
        << std::vector<double>{3, 3} << std::vector<double>{} << 3
        << std::vector<Ops>{{F(0, 0, 1), F(1, 1, 2), B(0, 4, 6), F(2, 6, 7), B(1, 7, 9), B(2, 10, 12)},
                            {F(0, 1, 2), B(0, 2, 4), F(1, 4, 5), B(1, 5, 7), F(2, 7, 8), B(2, 8, 10)}}
        << 12.0;
    // Hop 0.5 ms: F0 reaches stage 1 at 1.5; B0 returns at 4.5 + 0.5 = 5; B1 returns at 7.5 + 0.5 = 8.
    QTest::newRow("P2 equal G2 hop 0.5") << std::vector<double>{3, 3} << std::vector<double>{0.5} << 2
                                         << std::vector<Ops>{{F(0, 0, 1), F(1, 1, 2), B(0, 5, 7), B(1, 8, 10)},
                                                             {F(0, 1.5, 2.5), B(0, 2.5, 4.5), F(1, 4.5, 5.5),
                                                              B(1, 5.5, 7.5)}}
                                         << 10.0;
    // G = 1: one micro-batch goes down and back: sum of forwards + sum of backwards.
    QTest::newRow("P3 unequal G1") << std::vector<double>{3, 6, 3} << std::vector<double>{} << 1
                                   << std::vector<Ops>{{F(0, 0, 1), B(0, 10, 12)},
                                                       {F(0, 1, 3), B(0, 6, 10)},
                                                       {F(0, 3, 4), B(0, 4, 6)}}
                                   << 12.0;
    // One stage: no pipeline, no bubble.
    QTest::newRow("P1 G3") << std::vector<double>{3} << std::vector<double>{} << 3
                           << std::vector<Ops>{{F(0, 0, 1), B(0, 1, 3), F(1, 3, 4), B(1, 4, 6), F(2, 6, 7), B(2, 7, 9)}}
                           << 9.0;
}

void TestPipelineView::handComputed()
{
    QFETCH(std::vector<double>, t);
    QFETCH(std::vector<double>, hops);
    QFETCH(int, g);
    QFETCH(std::vector<Ops>, expected);
    QFETCH(double, makespan);
    const auto s = PipelineSchedule::oneFOneB(t, hops, g);
    QCOMPARE(s.stageCount(), static_cast<int>(t.size()));
    for (int i = 0; i < s.stageCount(); ++i)
        QCOMPARE(show(s.ops(i)), show(expected[i]));
    QCOMPARE(s.makespanMs(), makespan);
    for (int i = 0; i < s.stageCount(); ++i) {
        QCOMPARE(s.busyMs(i), g * t[i]);
        QCOMPARE(s.idleMs(i), makespan - g * t[i]);
    }
}

void TestPipelineView::invariants_data()
{
    QTest::addColumn<std::vector<double>>("t");
    QTest::addColumn<std::vector<double>>("hops");
    QTest::addColumn<int>("g");
    QTest::newRow("P4 G8") << std::vector<double>{3, 4, 5, 2} << std::vector<double>{0.1, 0.2, 0.3} << 8;
    QTest::newRow("P5 G2 (G < P)") << std::vector<double>{21, 35, 18, 25, 40} << std::vector<double>{1, 1, 1, 1} << 2;
    QTest::newRow("P8 G64") << std::vector<double>{10, 12, 9, 11, 10, 13, 8, 10} << std::vector<double>(7, 0.5) << 64;
}

// Every op once, stages never overlap, dependencies honoured, 1F1B warm-up.
void TestPipelineView::invariants()
{
    QFETCH(std::vector<double>, t);
    QFETCH(std::vector<double>, hops);
    QFETCH(int, g);
    const auto s = PipelineSchedule::oneFOneB(t, hops, g);
    const int p = static_cast<int>(t.size());
    auto find = [&](int stage, PipelineOp::Kind k, int m) {
        for (const auto& op : s.ops(stage))
            if (op.kind == k && op.microBatch == m)
                return op;
        return PipelineOp{k, -1, -1, -1};
    };
    for (int i = 0; i < p; ++i) {
        const auto& ops = s.ops(i);
        QCOMPARE(static_cast<int>(ops.size()), 2 * g);
        const int warmup = std::min(p - i - 1, g);
        // Warm-up forwards plus the first steady-state forward (when G > warm-up), then a backward.
        const int leadingForwards = std::min(warmup + 1, g);
        for (int k = 0; k <= leadingForwards; ++k)
            QCOMPARE(ops[k].kind, k < leadingForwards ? PipelineOp::Kind::Forward : PipelineOp::Kind::Backward);
        for (std::size_t k = 1; k < ops.size(); ++k)
            QVERIFY(ops[k].startMs >= ops[k - 1].endMs - 1e-9);
        for (int m = 0; m < g; ++m) {
            const auto f = find(i, PipelineOp::Kind::Forward, m);
            const auto b = find(i, PipelineOp::Kind::Backward, m);
            QVERIFY(f.microBatch == m && b.microBatch == m);
            QVERIFY(qFuzzyCompare(f.endMs - f.startMs, t[i] / 3));
            QVERIFY(qFuzzyCompare(b.endMs - b.startMs, 2 * t[i] / 3));
            if (i > 0)
                QVERIFY(f.startMs >= find(i - 1, PipelineOp::Kind::Forward, m).endMs + hops[i - 1] - 1e-9);
            if (i < p - 1)
                QVERIFY(b.startMs >= find(i + 1, PipelineOp::Kind::Backward, m).endMs + hops[i] - 1e-9);
            else
                QVERIFY(b.startMs >= f.endMs - 1e-9);
        }
        QVERIFY(s.bubbleFraction(i) >= 0 && s.bubbleFraction(i) < 1);
    }
}

// Eq. (3), (G-1) * max + sum (+ 2 * sum hops), against the simulation.
void TestPipelineView::eq3Relation_data()
{
    QTest::addColumn<std::vector<double>>("t");
    QTest::addColumn<int>("g");
    QTest::addColumn<bool>("exact");
    QTest::newRow("equal P2 G3") << std::vector<double>{3, 3} << 3 << true;
    QTest::newRow("equal P4 G8") << std::vector<double>{3, 3, 3, 3} << 8 << true;
    QTest::newRow("equal P5 G16") << std::vector<double>{7.5, 7.5, 7.5, 7.5, 7.5} << 16 << true;
    QTest::newRow("increasing P4 G8") << std::vector<double>{1, 2, 3, 4} << 8 << false;
    QTest::newRow("decreasing P4 G8") << std::vector<double>{4, 3, 2, 1} << 8 << false;
    QTest::newRow("middle bottleneck G16") << std::vector<double>{2, 5, 2, 2} << 16 << false;
    QTest::newRow("paper-like P5 G16") << std::vector<double>{1100, 1200, 1010, 1150, 1300} << 16 << false;
    QTest::newRow("P5 G2") << std::vector<double>{21, 35, 18, 25, 40} << 2 << false;
}

void TestPipelineView::eq3Relation()
{
    QFETCH(std::vector<double>, t);
    QFETCH(int, g);
    QFETCH(bool, exact);
    const auto s = PipelineSchedule::oneFOneB(t, {}, g);
    const double eq3 = PipelineSchedule::eq3Ms(t, {}, g);
    qInfo().noquote() << QStringLiteral("simulated %1 ms, Eq. (3) %2 ms (%3%)")
                             .arg(s.makespanMs())
                             .arg(eq3)
                             .arg(100.0 * (s.makespanMs() / eq3 - 1), 0, 'f', 2);
    if (exact)
        QCOMPARE(s.makespanMs(), eq3);
    QVERIFY(s.makespanMs() <= eq3 * (1 + 1e-12));
    QVERIFY(s.makespanMs() >= 0.9 * eq3);
}

void TestPipelineView::viewFollowsPlan()
{
    const Plan& plan = result_.best.front();
    PipelineView w;
    QVERIFY(!w.hasPlan());
    w.setPlan(plan);
    QVERIFY(w.hasPlan());
    QCOMPARE(w.schedule().stageCount(), static_cast<int>(plan.stages.size()));
    QCOMPARE(w.schedule().microBatchCount(), plan.microBatchCount);
    std::vector<double> t;
    for (const auto& st : plan.stages)
        t.push_back(st.timeMs);
    QCOMPARE(w.schedule().makespanMs(), PipelineSchedule::oneFOneB(t, plan.hopMs, plan.microBatchCount).makespanMs());
    QTemporaryDir dir;
    const QString png = dir.filePath(QStringLiteral("v.png"));
    QVERIFY(w.exportImage(png, 1000, 500));
    QCOMPARE(QImage(png).size(), QSize(1000, 500));
    QVERIFY(w.exportImage(dir.filePath(QStringLiteral("v.pdf")), 1000, 500));
    QVERIFY(QFileInfo(dir.filePath(QStringLiteral("v.pdf"))).size() > 1000);
    w.clear();
    QVERIFY(!w.hasPlan());
    QCOMPARE(w.schedule().stageCount(), 0);
}

void TestPipelineView::headersFitTheirCells_data()
{
    QTest::addColumn<int>("width");
    QTest::newRow("600 px (a docked view)") << 600;
    QTest::newRow("800 px") << 800;
    QTest::newRow("1200 px") << 1200;
}

// Issue #35 item 8: the schedule's title ended in "..." at 1600 px windows.
// It wraps instead: all of it fits the rect it is drawn in, at any width.
void TestPipelineView::titleFitsItsRect_data()
{
    QTest::addColumn<int>("width");
    for (int width : {520, 700, 900, 1400})
        QTest::newRow(qPrintable(QString::number(width))) << width;
}

void TestPipelineView::titleFitsItsRect()
{
    QFETCH(int, width);
    PipelineView w;
    w.setPlan(result_.best.front());
    const QRect target(0, 0, width, 600);
    const QRect title = w.titleRect(target);
    QFont bold = w.font();
    bold.setBold(true);
    const QRect need = QFontMetrics(bold).boundingRect(title, Qt::AlignLeft | Qt::TextWordWrap, w.scheduleTitle());
    QVERIFY2(w.scheduleTitle().contains(QStringLiteral("DP sync")), qPrintable(w.scheduleTitle()));
    QVERIFY2(title.contains(need),
             qPrintable(QStringLiteral("needs %1x%2, has %3x%4")
                            .arg(need.width())
                            .arg(need.height())
                            .arg(title.width())
                            .arg(title.height())));
}

void TestPipelineView::headersFitTheirCells()
{
    // Headers wrap onto two lines rather than run into each other or get cut.
    QFETCH(int, width);
    PipelineView w;
    w.setPlan(result_.best.front());
    const QRect target(0, 0, width, 600);
    const QList<QRect> cells = w.headerCells(target);
    const QStringList headers = PipelineView::tableHeaders();
    QCOMPARE(cells.size(), headers.size());
    QFont bold = w.font();
    bold.setBold(true);
    const QFontMetrics bm(bold);
    for (int c = 0; c < cells.size(); ++c) {
        const QRect need = bm.boundingRect(cells[c], Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, headers[c]);
        QVERIFY2(cells[c].contains(need),
                 qPrintable(QStringLiteral("'%1' needs %2x%3 in a %4x%5 cell")
                                .arg(headers[c])
                                .arg(need.width())
                                .arg(need.height())
                                .arg(cells[c].width())
                                .arg(cells[c].height())));
        if (c > 0)
            QVERIFY(cells[c].left() > cells[c - 1].right());
    }
    QVERIFY(cells.back().right() <= target.right());
}

MEMX_TEST_MAIN(TestPipelineView)
}  // namespace tst_pipeline_view

#include "tst_pipeline_view.moc"
