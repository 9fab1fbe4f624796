// The workbench's layout at the sizes people use (1280x800, 1920x1080), light
// and dark, after a search on the sample project: no view makes the window
// wider than it is, no visible widget is drawn outside its parent (only the
// contents of scroll areas may be larger than their viewport), the Profiles
// cards and the memory legend are shown whole, the Plans dock shows at least
// ten rows and the toolbar does not move as the Undo text changes.
// The renders go to /tmp/layout-*.png to be looked at.
#include "ClusterCanvas.h"
#include "ClusterDocument.h"
#include "MainWindow.h"
#include "TestWindow.h"
#include "ProfileComparisonView.h"
#include "PropertyPanel.h"

#include <qcustomplot.h>

#include <QAbstractScrollArea>
#include <QDockWidget>
#include <QStyle>
#include <QLabel>
#include <QDoubleSpinBox>
#include <QHeaderView>
#include <QMainWindow>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QToolBar>
#include <QToolButton>
#include <QUndoStack>
#include "TestMain.h"

namespace tst_layout {

using namespace memx;
using memx::test::darkPalette;
using memx::test::quietOptions;
using memx::test::runAndWait;

namespace {

QString describe(const QWidget* w)
{
    QString name = QString::fromLatin1(w->metaObject()->className());
    if (!w->objectName().isEmpty())
        name += QLatin1Char('#') + w->objectName();
    return name;
}

QString path(const QWidget* w)
{
    QStringList parts;
    for (const QWidget* p = w; p; p = p->parentWidget())
        parts.prepend(describe(p));
    return parts.join(QStringLiteral(" > "));
}

// Visible widgets that reach outside their parent. A scroll area's viewport
// may hold a larger widget (that is what scrolling is for).
QStringList clippedWidgets(const QWidget* root)
{
    QStringList out;
    for (const QWidget* w : root->findChildren<QWidget*>()) {
        if (!w->isVisible() || w->isWindow())
            continue;
        const QWidget* parent = w->parentWidget();
        if (const auto* area = qobject_cast<const QAbstractScrollArea*>(parent ? parent->parentWidget() : nullptr);
            area && area->viewport() == parent)
            continue;
        // QMainWindow parks the docks behind another dock's tab outside the window.
        if (const auto* dock = qobject_cast<const QDockWidget*>(w)) {
            const auto* window = qobject_cast<const QMainWindow*>(parent);
            if (window && !window->tabifiedDockWidgets(const_cast<QDockWidget*>(dock)).isEmpty()
                && !parent->rect().intersects(w->geometry()))
                continue;
        }
        if (!parent->rect().contains(w->geometry()))
            out << QStringLiteral("%1: %2,%3 %4x%5 in %6x%7")
                       .arg(path(w))
                       .arg(w->x())
                       .arg(w->y())
                       .arg(w->width())
                       .arg(w->height())
                       .arg(parent->width())
                       .arg(parent->height());
    }
    return out;
}

// The widgets that ask for the most width, to say which one widened the window.
QString widestMinimums(const QWidget* root)
{
    QList<QPair<int, QString>> all;
    for (const QWidget* w : root->findChildren<QWidget*>())
        if (w->isVisible())
            all.append({std::max(w->minimumWidth(), w->minimumSizeHint().width()), path(w)});
    std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    QStringList out;
    for (int i = 0; i < std::min<int>(12, all.size()); ++i)
        out << QStringLiteral("%1 px: %2").arg(all[i].first).arg(all[i].second);
    return out.join(QLatin1Char('\n'));
}

// Until the layout stops moving: every widget's geometry the same over three
// turns of the event loop (posted layout requests and zero timers run in
// between), at most 5 s. A condition, not a fixed wait.
void settle(QWidget& top)
{
    auto snapshot = [&] {
        QList<QRect> g{top.geometry()};
        for (const QWidget* child : top.findChildren<QWidget*>())
            g << child->geometry();
        return g;
    };
    QList<QRect> last = snapshot();
    int still = 0;
    QVERIFY(QTest::qWaitFor(
        [&] {
            QCoreApplication::sendPostedEvents();
            const QList<QRect> now = snapshot();
            still = now == last ? still + 1 : 0;
            last = now;
            return still >= 3;
        },
        5000));
}
}  // namespace

class TestLayout : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void viewsFitTheWindow_data();
    void viewsFitTheWindow();
    void toolbarKeepsItsPlaceAsUndoTextGrows();
    void leftDockKeepsItsWidthAcrossSelections();
    void refusalNeverSquashesTheProperties();
};

void TestLayout::initTestCase() { QStandardPaths::setTestModeEnabled(true); }

void TestLayout::viewsFitTheWindow_data()
{
    QTest::addColumn<QSize>("size");
    QTest::addColumn<bool>("dark");
    QTest::newRow("1280x800") << QSize(1280, 800) << false;
    QTest::newRow("1280x800-dark") << QSize(1280, 800) << true;
    QTest::newRow("1920x1080") << QSize(1920, 1080) << false;
    QTest::newRow("1920x1080-dark") << QSize(1920, 1080) << true;
}

void TestLayout::viewsFitTheWindow()
{
    QFETCH(QSize, size);
    QFETCH(bool, dark);
    MainWindow w(quietOptions());
    if (dark)
        w.setPalette(darkPalette());
    w.resize(size);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.openSampleProject();
    QVERIFY(runAndWait(w));
    settle(w);
    const QString tag = QString::fromLatin1(QTest::currentDataTag());

    auto check = [&](const QString& step) {
        settle(w);
        QVERIFY(w.grab().save(QStringLiteral("/tmp/layout-%1-%2.png").arg(tag, step)));
        QVERIFY(w.findChild<QTabWidget*>()->currentWidget()->grab().save(
            QStringLiteral("/tmp/layout-%1-%2-view.png").arg(tag, step)));
        QVERIFY2(w.width() <= size.width(),
                 qPrintable(QStringLiteral("%1: the window grew to %2 px (minimum %3)\n%4")
                                .arg(step)
                                .arg(w.width())
                                .arg(w.minimumSizeHint().width())
                                .arg(widestMinimums(&w))));
        QVERIFY2(w.height() <= size.height(),
                 qPrintable(QStringLiteral("%1: the window grew to %2 px high").arg(step).arg(w.height())));
        QVERIFY2(w.minimumSizeHint().width() <= size.width(),
                 qPrintable(QStringLiteral("%1: minimum width %2").arg(step).arg(w.minimumSizeHint().width())));
        const QStringList clipped = clippedWidgets(&w);
        QVERIFY2(clipped.isEmpty(), qPrintable(step + QStringLiteral(": ") + clipped.join(QStringLiteral("\n"))));
    };

    // The Plans dock: ten rows or more without scrolling.
    auto* table = w.findChild<QTableView*>(QStringLiteral("planTable"));
    QVERIFY(table);
    QVERIFY(table->model()->rowCount() >= 10);
    const int rowHeight = table->verticalHeader()->sectionSize(0);
    QVERIFY2(table->viewport()->height() >= 10 * rowHeight,
             qPrintable(QStringLiteral("viewport %1 px, rows %2 px").arg(table->viewport()->height()).arg(rowHeight)));

    // Profiles: every card whole, side by side, with no horizontal scrolling.
    w.showView(MainWindow::View::Compare);
    check(QStringLiteral("profiles"));
    auto* compare = qobject_cast<ProfileComparisonView*>(w.viewWidget(MainWindow::View::Compare));
    QVERIFY(compare && compare->columnCount() >= 3);
    auto* scroll = compare->findChild<QAbstractScrollArea*>();
    QVERIFY(scroll);
    for (int i = 0; i < compare->columnCount(); ++i) {
        const QWidget* card = compare->cardAt(i);
        const QRect inViewport(card->mapTo(scroll->viewport(), QPoint(0, 0)), card->size());
        QVERIFY2(inViewport.left() >= 0 && inViewport.right() < scroll->viewport()->width(),
                 qPrintable(QStringLiteral("card %1 at x %2..%3 of %4")
                                .arg(i)
                                .arg(inViewport.left())
                                .arg(inViewport.right())
                                .arg(scroll->viewport()->width())));
    }

    // Memory: every legend entry inside the plot.
    w.showView(MainWindow::View::Memory);
    check(QStringLiteral("memory"));
    auto* plot = w.viewWidget(MainWindow::View::Memory)->findChild<QCustomPlot*>();
    QVERIFY(plot);
    plot->replot();
    QVERIFY(plot->legend->itemCount() >= 5);
    for (int i = 0; i < plot->legend->itemCount(); ++i) {
        if (!plot->legend->item(i))
            continue;  // an empty cell of the last legend row
        const QRect item = plot->legend->item(i)->outerRect();
        QVERIFY2(plot->rect().contains(item),
                 qPrintable(QStringLiteral("legend item %1 at %2,%3 %4x%5 in a %6 px plot")
                                .arg(i)
                                .arg(item.x())
                                .arg(item.y())
                                .arg(item.width())
                                .arg(item.height())
                                .arg(plot->width())));
    }

    // Pipeline.
    w.showView(MainWindow::View::Pipeline);
    check(QStringLiteral("pipeline"));

    // Baselines: one row per planner, none clipped.
    w.showView(MainWindow::View::Baselines);
    check(QStringLiteral("baselines"));
    auto* baselines = w.viewWidget(MainWindow::View::Baselines)->findChild<QTableView*>();
    QVERIFY(baselines);
    QCOMPARE(baselines->model()->rowCount(), kBaselineKinds);

    // Cluster, with a link selected: the Properties panel shows the link's fields.
    w.showView(MainWindow::View::Cluster);
    auto* canvas = qobject_cast<ClusterCanvas*>(w.viewWidget(MainWindow::View::Cluster));
    QVERIFY(canvas);
    const auto& links = w.document()->cluster().links();
    QVERIFY(!links.empty());
    CanvasSelection link;
    link.kind = CanvasSelection::Link;
    link.link = QString::fromStdString(links.back().name);
    canvas->setSelection(link);
    check(QStringLiteral("cluster-link"));
    // Its fields and labels wrap or shrink rather than widen the dock.
    auto* properties = w.findChild<QDockWidget*>(QStringLiteral("propertiesDock"));
    QVERIFY(properties);
    // The form's width and the scroll bar of the scroll area that holds it.
    QVERIFY2(properties->minimumSizeHint().width()
                 <= PropertyPanel::kFormWidth + w.style()->pixelMetric(QStyle::PM_ScrollBarExtent),
             qPrintable(QStringLiteral("%1 px\n%2")
                            .arg(properties->minimumSizeHint().width())
                            .arg(widestMinimums(properties))));
}

// Issue #35 item 8: the left dock changed width with each selection (the
// Properties form of a node, a GPU and a link ask for different widths), so
// the canvas jumped under the mouse.
void TestLayout::leftDockKeepsItsWidthAcrossSelections()
{
    MainWindow w(quietOptions());
    w.resize(1600, 1000);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.openSampleProject();
    w.showView(MainWindow::View::Cluster);
    auto* canvas = qobject_cast<ClusterCanvas*>(w.viewWidget(MainWindow::View::Cluster));
    QVERIFY(canvas);
    auto* properties = w.findChild<QDockWidget*>(QStringLiteral("propertiesDock"));
    QVERIFY(properties);
    const Cluster& c = w.document()->cluster();
    const QString node = QString::fromStdString(c.nodes().front().name);
    const QString type = QString::fromStdString(c.typeOf(c.nodes().front().devices.front()).name);
    const QList<CanvasSelection>
        selections{{CanvasSelection::None, {}, -1, {}, {}},
                   {CanvasSelection::Node, node, -1, {}, {}},
                   {CanvasSelection::Gpu, node, 0, type, {}},
                   {CanvasSelection::Link, {}, -1, {}, QString::fromStdString(c.links().back().name)},
                   {CanvasSelection::Link, {}, -1, {}, QString::fromStdString(c.links().front().name)},
                   {CanvasSelection::None, {}, -1, {}, {}}};
    settle(w);
    const int width = properties->width();
    const int canvasLeft = canvas->mapTo(&w, QPoint(0, 0)).x();
    for (const CanvasSelection& sel : selections) {
        canvas->setSelection(sel);
        settle(w);
        QVERIFY2(properties->width() == width,
                 qPrintable(QStringLiteral("selecting %1 %2%3: the dock went from %4 to %5 px")
                                .arg(int(sel.kind))
                                .arg(sel.node, sel.link)
                                .arg(width)
                                .arg(properties->width())
                            + "\n" + widestMinimums(properties)));
        QCOMPARE(canvas->mapTo(&w, QPoint(0, 0)).x(), canvasLeft);
    }
}

// Issue #35 item 6: the link form squashed its fields when a refusal showed
// under it (a spin box 17 px of 22). At the smallest window the layout tests
// use, the Properties dock scrolls rather than squashing a field or cutting
// the refusal.
void TestLayout::refusalNeverSquashesTheProperties()
{
    MainWindow w(quietOptions());
    w.resize(1280, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.openSampleProject();
    w.showView(MainWindow::View::Cluster);
    auto* canvas = qobject_cast<ClusterCanvas*>(w.viewWidget(MainWindow::View::Cluster));
    QVERIFY(canvas);
    canvas->setSelection({CanvasSelection::Link, {}, -1, {}, QStringLiteral("ib-vb-vc")});
    settle(w);
    auto* panel = w.findChild<PropertyPanel*>();
    QVERIFY(panel);
    auto* bw = qobject_cast<QDoubleSpinBox*>(panel->field(QStringLiteral("bandwidth_gbps")));
    QVERIFY(bw);
    bw->setFocus();
    bw->selectAll();
    QTest::keyClicks(bw, QStringLiteral("99999999"));
    QTest::keyClick(bw, Qt::Key_Enter);
    QVERIFY(!panel->errorText().isEmpty());
    settle(w);
    for (QAbstractSpinBox* spin : panel->findChildren<QAbstractSpinBox*>())
        if (spin->isVisible())
            QVERIFY2(spin->height() >= spin->sizeHint().height(),
                     qPrintable(QStringLiteral("a field squashed to %1 px of %2")
                                    .arg(spin->height())
                                    .arg(spin->sizeHint().height())));
    auto* error = panel->findChild<QLabel*>(QStringLiteral("propertyError"));
    QVERIFY(error);
    QVERIFY2(error->height() >= error->heightForWidth(error->width()),
             qPrintable(QStringLiteral("the refusal cut to %1 px of %2")
                            .arg(error->height())
                            .arg(error->heightForWidth(error->width()))));
}

void TestLayout::toolbarKeepsItsPlaceAsUndoTextGrows()
{
    MainWindow w(quietOptions());
    w.resize(1600, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.openSampleProject();
    settle(w);
    auto* tools = w.findChild<QToolBar*>(QStringLiteral("mainToolBar"));
    QVERIFY(tools);
    QAction* undo = nullptr;
    QAction* run = nullptr;
    for (QAction* a : tools->actions()) {
        if (a->text() == QLatin1String("Undo"))
            undo = a;
        if (a->text().remove(QLatin1Char('&')).startsWith(QLatin1String("Run")))
            run = a;
    }
    QVERIFY(undo && run);
    QVERIFY(!undo->isEnabled());
    const QRect runBefore = tools->widgetForAction(run)->geometry();

    const QString node = QString::fromStdString(w.document()->cluster().nodes().front().name);
    QVERIFY(w.document()->renameNode(node, QStringLiteral("renamed")));
    settle(w);
    QVERIFY(undo->isEnabled());
    QCOMPARE(undo->text(), QStringLiteral("Undo"));
    QVERIFY2(undo->toolTip().contains(QStringLiteral("renamed")), qPrintable(undo->toolTip()));
    QCOMPARE(qobject_cast<QToolButton*>(tools->widgetForAction(undo))->text(), QStringLiteral("Undo"));
    QCOMPARE(tools->widgetForAction(run)->geometry(), runBefore);
    // The Edit menu keeps the full text.
    bool fullText = false;
    for (QAction* a : w.findChildren<QAction*>())
        fullText = fullText || a->text().contains(QStringLiteral("renamed"));
    QVERIFY(fullText);

    // The toolbar button undoes.
    undo->trigger();
    QCOMPARE(QString::fromStdString(w.document()->cluster().nodes().front().name), node);
    QVERIFY(!undo->isEnabled());
}

MEMX_TEST_MAIN(TestLayout)
}  // namespace tst_layout

#include "tst_layout.moc"
