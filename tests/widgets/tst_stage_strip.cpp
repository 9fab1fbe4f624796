// The Profiles cards' stage strips: block widths by layer share, never below
// a block's text (issue #35 item 8: "vc..." and "3..." at 1600 px).
#include "GpuTypeColors.h"
#include "StageStrip.h"

#include <QFontMetricsF>
#include "TestMain.h"

namespace tst_stage_strip {

using namespace memx;

namespace {
Plan planOf(const std::vector<int>& layers, const QString& group)
{
    Plan p;
    int first = 0;
    for (std::size_t i = 0; i < layers.size(); ++i) {
        StagePlan s;
        s.groupName = group.toStdString();
        s.slice = static_cast<int>(i);
        s.gpuType = "A100-80GB";
        s.firstLayer = first;
        s.layers = layers[i];
        first += layers[i];
        p.stages.push_back(s);
    }
    p.pp = static_cast<int>(layers.size());
    return p;
}
}  // namespace

class TestStageStrip : public QObject {
    Q_OBJECT
private slots:
    void rowWidths_data()
    {
        QTest::addColumn<std::vector<int>>("layers");
        QTest::addColumn<std::vector<double>>("mins");
        QTest::addColumn<double>("width");
        QTest::addColumn<std::vector<double>>("expected");
        // 252 px of room (260 less 4 gaps of 2): shares 31.5, 31.5, 55.1,
        // 63, 70.9; the two 4-layer stages are below 40 and take it; the
        // other 172 px go 7:8:9 over 24 layers.
        QTest::newRow("two narrow stages held at their text")
            << std::vector<int>{4, 4, 7, 8, 9} << std::vector<double>{40, 40, 40, 40, 40} << 260.0
            << std::vector<double>{40, 40, 172.0 * 7 / 24, 172.0 * 8 / 24, 172.0 * 9 / 24};
        // Every share above its minimum: plain proportions of 198 px.
        QTest::newRow("proportional") << std::vector<int>{1, 2} << std::vector<double>{10, 10} << 200.0
                                      << std::vector<double>{66, 132};
        // 100 px of room; shares 10, 10, 80: the first two take their 30
        // each, and the third the 40 left, above its 35.
        QTest::newRow("second round") << std::vector<int>{1, 1, 8} << std::vector<double>{30, 30, 35} << 104.0
                                      << std::vector<double>{30, 30, 40};
        // Minimums over the room: as they are (the caller wraps first).
        QTest::newRow("too narrow") << std::vector<int>{1, 1} << std::vector<double>{60, 60} << 100.0
                                    << std::vector<double>{60, 60};
    }
    void rowWidths()
    {
        QFETCH(std::vector<int>, layers);
        QFETCH(std::vector<double>, mins);
        QFETCH(double, width);
        QFETCH(std::vector<double>, expected);
        const std::vector<double> got = StageStrip::rowWidths(layers, mins, width, 2);
        QCOMPARE(got.size(), expected.size());
        for (std::size_t i = 0; i < got.size(); ++i)
            QVERIFY2(std::abs(got[i] - expected[i]) < 1e-9,
                     qPrintable(QStringLiteral("block %1: %2 vs %3").arg(i).arg(got[i]).arg(expected[i])));
    }

    void rows_data()
    {
        QTest::addColumn<int>("stages");
        QTest::addColumn<double>("width");
        QTest::addColumn<std::vector<int>>("expected");
        // Blocks of 40 with gaps of 2: k blocks need 42k - 2 px.
        QTest::newRow("one row") << 5 << 260.0 << std::vector<int>{5};
        QTest::newRow("16 stages in 260 px") << 16 << 260.0 << std::vector<int>{6, 6, 4};  // 6 x 42 - 2 = 250
        QTest::newRow("exactly full") << 6 << 250.0 << std::vector<int>{6};
        QTest::newRow("one block wider than the strip") << 2 << 30.0 << std::vector<int>{1, 1};
    }
    void rows()
    {
        QFETCH(int, stages);
        QFETCH(double, width);
        QFETCH(std::vector<int>, expected);
        QCOMPARE(StageStrip::rows(std::vector<double>(stages, 40.0), width, 2), expected);
    }

    void noBlockIsNarrowerThanItsText_data()
    {
        QTest::addColumn<std::vector<int>>("layers");
        QTest::addColumn<int>("width");
        QTest::newRow("the sample's default pick in a card") << std::vector<int>{4, 4, 7, 8, 9} << 246;
        QTest::newRow("the fastest plan's short last stages") << std::vector<int>{12, 7, 7, 3, 3} << 246;
        QTest::newRow("16 stages wrap") << std::vector<int>(16, 5) << 246;
    }
    void noBlockIsNarrowerThanItsText()
    {
        QFETCH(std::vector<int>, layers);
        QFETCH(int, width);
        const Plan plan = planOf(layers, QStringLiteral("vc"));
        GpuTypeColors colours;
        StageStrip strip(plan, &colours);
        strip.resize(width, strip.heightForWidth(width));
        const std::vector<QRectF> blocks = strip.blockRects();
        const std::vector<double> text = strip.textWidths();
        QCOMPARE(blocks.size(), layers.size());
        double rowsBottom = 0;
        for (std::size_t i = 0; i < blocks.size(); ++i) {
            QVERIFY2(blocks[i].width() >= text[i] - 1e-9, qPrintable(QString::number(i)));
            QVERIFY2(blocks[i].right() <= width + 1e-9, qPrintable(QString::number(i)));
            rowsBottom = std::max(rowsBottom, blocks[i].bottom());
        }
        QVERIFY(rowsBottom <= strip.height());  // the strip asked for the rows it drew
        // Blocks keep the stage order, row by row.
        for (std::size_t i = 1; i < blocks.size(); ++i)
            QVERIFY(blocks[i].top() > blocks[i - 1].top() || blocks[i].left() > blocks[i - 1].left());
    }
};

MEMX_TEST_MAIN(TestStageStrip)
}  // namespace tst_stage_strip

#include "tst_stage_strip.moc"
