// The Pipeline view's layout worked out without a widget or a painter
// (issue #34 item 4): for schedules of 1 to 12 stages and 1 to 24
// micro-batches at widths from 420 to 1800 px, every block sits on its
// stage's row inside the timeline, a stage's blocks never overlap, the rows
// are stacked without overlap, the table's columns run left to right inside
// the table, the title and timeline come below the table, the bubble column
// fits the target, and the time axis ticks start at 0 and end at or before
// the makespan. Expectations are the view's geometry rules, not the code's
// numbers.
#include "PipelineViewLayout.h"

#include <QApplication>
#include "TestMain.h"

namespace tst_pipeline_view_layout {

using namespace memx;

class TestPipelineViewLayout : public QObject {
    Q_OBJECT
private slots:
    void blocksStayOnTheirRows_data();
    void blocksStayOnTheirRows();
    void headersWrapWhenNarrow();
};

namespace {

PipelineViewLayout::Input input(int width, int height, int stages, const QString& title)
{
    PipelineViewLayout::Input in;
    in.target = QRect(0, 0, width, height);
    in.font = QApplication::font();
    in.headers = {"Stage",     "Stage slot",           "GPU type", "GPUs (TP×DP)", "Layers (0-based)",
                  "Recompute", "Micro-batch F+B (ms)", "Bubble"};
    for (int i = 0; i < stages; ++i)
        in.rows.push_back({QString::number(i + 1), QStringLiteral("g%1#0").arg(i), "A100-80GB", "8 (4×2)",
                           QStringLiteral("%1–%2 (4)").arg(4 * i).arg(4 * i + 3), "selective", "123.4", "12.5%"});
    in.ablationLines = 4;
    in.title = title;
    return in;
}

}  // namespace

void TestPipelineViewLayout::blocksStayOnTheirRows_data()
{
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("stages");
    QTest::addColumn<int>("microBatches");
    for (int width : {420, 900, 1800})
        for (auto [stages, g] : {std::pair{1, 1}, {2, 8}, {4, 4}, {8, 24}, {12, 16}})
            QTest::addRow("%d px, P %d, G %d", width, stages, g) << width << stages << g;
}

void TestPipelineViewLayout::blocksStayOnTheirRows()
{
    QFETCH(int, width);
    QFETCH(int, stages);
    QFETCH(int, microBatches);
    std::vector<double> stageMs;
    for (int i = 0; i < stages; ++i)
        stageMs.push_back(100 + 37 * (i % 3));  // unequal stages: bubbles
    const auto schedule = PipelineSchedule::oneFOneB(stageMs, std::vector<double>(stages, 2.0), microBatches);
    const PipelineViewLayout g = PipelineViewLayout::of(input(width, 900, stages,
                                                              QStringLiteral("1F1B schedule of one "
                                                                             "iteration: P stages")));
    const QRect target(0, 0, width, 900);
    // The table: columns left to right, inside it; the title and the timeline below it.
    QCOMPARE(g.columnX.size(), std::size_t(9));
    for (std::size_t c = 0; c + 1 < g.columnX.size(); ++c)
        QVERIFY2(g.columnX[c] < g.columnX[c + 1], qPrintable(QString::number(c)));
    QCOMPARE(g.columnX.front(), g.table.left());
    QVERIFY(std::abs(g.columnX.back() - g.table.right()) <= 1);
    QVERIFY(g.title.top() > g.table.bottom());
    QVERIFY(g.timeline.top() > g.title.bottom());
    // The bubble column right of the timeline fits the target.
    QVERIFY(g.timeline.right() + PipelineViewLayout::kBubbleColumn <= target.right());
    QVERIFY(g.timeline.left() >= target.left() + g.labelWidth);
    // Rows stacked, each inside the timeline; blocks on their row, in order.
    for (int i = 0; i < stages; ++i) {
        const QRect row = g.track(i);
        QVERIFY(g.timeline.contains(row));
        if (i > 0)
            QVERIFY(row.top() > g.track(i - 1).bottom());
        double lastRight = g.timeline.left();
        for (const PipelineOp& op : schedule.ops(i)) {
            const QRectF r = g.opRect(i, op, schedule.makespanMs());
            QVERIFY(r.top() >= row.top() && r.bottom() <= row.bottom() + 1);
            QVERIFY(r.left() >= g.timeline.left() - 1e-9);
            QVERIFY(r.left() + (op.endMs - op.startMs) / schedule.makespanMs() * g.timeline.width()
                    <= g.timeline.right() + 1 + 1e-9);
            QVERIFY2(r.left() >= lastRight - 1e-6, qPrintable(QStringLiteral("stage %1 overlaps").arg(i)));
            lastRight = r.left() + (op.endMs - op.startMs) / schedule.makespanMs() * g.timeline.width();
        }
    }
    // The axis: from 0, ascending, never past the makespan, inside the timeline.
    const auto ticks = g.ticksMs(schedule.makespanMs(), 1);
    QVERIFY2(ticks.size() >= 2,
             qPrintable(QStringLiteral("%1 ms on %2 px: %3 ticks")
                            .arg(schedule.makespanMs())
                            .arg(g.timeline.width())
                            .arg(ticks.size())));
    QCOMPARE(ticks.front(), 0.0);
    for (std::size_t k = 1; k < ticks.size(); ++k)
        QVERIFY(ticks[k] > ticks[k - 1]);
    QVERIFY(ticks.back() <= schedule.makespanMs() + 1e-6);
    QVERIFY(g.tickX(ticks.back(), schedule.makespanMs()) <= g.timeline.right() + 1);
}

void TestPipelineViewLayout::headersWrapWhenNarrow()
{
    // Wide: the headers on one line; narrow: on two, never cut.
    const int lineHeight = QFontMetrics(QApplication::font()).height();
    const PipelineViewLayout wide = PipelineViewLayout::of(input(1800, 900, 3, QStringLiteral("t")));
    const PipelineViewLayout narrow = PipelineViewLayout::of(input(420, 900, 3, QStringLiteral("t")));
    QCOMPARE(wide.headerHeight, lineHeight + 6);
    QCOMPARE(narrow.headerHeight, 2 * lineHeight + 6);
    // A title longer than the width wraps onto more lines.
    const QString longTitle = QString(QStringLiteral("word ")).repeated(80);
    QVERIFY(PipelineViewLayout::of(input(420, 900, 3, longTitle)).titleLines > 1);
    QCOMPARE(PipelineViewLayout::of(input(1800, 900, 3, QStringLiteral("short"))).titleLines, 1);
}

MEMX_TEST_MAIN(TestPipelineViewLayout)
}  // namespace tst_pipeline_view_layout

#include "tst_pipeline_view_layout.moc"
