// The Weights view (issue #13, item 3): after a search it maps which plan
// wins at each of the 231 weightings; the requested weights' cell holds the
// search's own pick, and clicking a cell selects its plan everywhere.
#include "TestWindow.h"

#include "SimplexMapView.h"

#include "TestMain.h"

namespace tst_simplex_map {

using namespace memx;
using namespace memx::test;

class TestSimplexMap : public QObject {
    Q_OBJECT
private slots:
    void mapFollowsTheSearchAndSelects();
    void headingWrapsAboveTheMap();
};

void TestSimplexMap::mapFollowsTheSearchAndSelects()
{
    MainWindow w(quietOptions());
    w.resize(1400, 900);
    w.openSampleProject();
    auto* view = w.findChild<SimplexMapView*>();
    QVERIFY(view);
    QVERIFY(view->map() == nullptr);
    QVERIFY(runAndWait(w));
    w.showView(MainWindow::View::Weights);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const SearchResult* r = w.result();
    const SimplexMap* map = view->map();
    QVERIFY(map);
    QCOMPARE(map->points.size(), std::size_t(231));
    std::size_t sum = 0;
    for (std::size_t n : map->regionSize)
        sum += n;
    QCOMPARE(sum, std::size_t(231));
    // The sample project asks for the default profile: its cell is the search's best plan.
    QCOMPARE(r->profileUsed, WeightProfile::Default);
    QCOMPARE(map->plans[map->at(weightsOf(WeightProfile::Default)).winner].key, r->best.front().key);
    // Click the safety-first weighting: its winner becomes the selected plan.
    const Weights safety = weightsOf(WeightProfile::SafetyFirst);
    const quint64 expected = map->plans[map->at(safety).winner].key;
    QSignalSpy activated(view, &SimplexMapView::planActivated);
    const QPoint at = view->positionOf(safety).toPoint();
    QCOMPARE(view->pointAt(at), static_cast<int>(&map->at(safety) - map->points.data()));
    QTest::mouseClick(view, Qt::LeftButton, {}, at);
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.front().front().toULongLong(), expected);
    QCOMPARE(w.selectedPlan(), expected);
    // Outside the triangle nothing is hit.
    QCOMPARE(view->pointAt(QPointF(2, 2)), -1);
    // A winner's description states its tokens per second (128 x 4096 / T)
    // and, the sample's GPU types having no price, an unknown cost.
    const Plan& p1 = map->plans.front();
    const QString d = view->describe(0);
    QVERIFY2(d.contains(QString::number(128.0 * 4096 / (p1.iterationMs / 1000), 'f', 0)
                        + QStringLiteral(" tokens/s, cost unknown")),
             qPrintable(d));
}

// Issue #35 item 8: the subtitle ran past the right edge at 1600 px windows.
// At any width its wrapped text fits above the triangle and the legend.
void TestSimplexMap::headingWrapsAboveTheMap()
{
    MainWindow w(quietOptions());
    w.openSampleProject();
    QVERIFY(runAndWait(w));
    // A view of its own, sized here rather than by the window's layout.
    SimplexMapView own;
    own.setResult(*w.result());
    QVERIFY(own.map());
    SimplexMapView* view = &own;
    for (int width : {500, 800, 1400}) {
        view->resize(width, 700);
        const QFontMetrics fm(view->font());
        QFont bold = view->font();
        bold.setBold(true);
        const int textWidth = width - 2 * 12;
        const int needed
            = QFontMetrics(bold).boundingRect(QRect(0, 0, textWidth, 1000), Qt::TextWordWrap, view->title()).height()
            + fm.boundingRect(QRect(0, 0, textWidth, 1000), Qt::TextWordWrap, view->subtitle()).height();
        QVERIFY2(
            view->headingBottom() >= needed,
            qPrintable(
                QString("width %1: heading ends at %2, needs %3").arg(width).arg(view->headingBottom()).arg(needed)));
        // The top corner (time) lies below the heading.
        QVERIFY(view->positionOf(Weights{1, 0, 0}).y() > view->headingBottom());
    }
}

MEMX_TEST_MAIN(TestSimplexMap)
}  // namespace tst_simplex_map

#include "tst_simplex_map.moc"
