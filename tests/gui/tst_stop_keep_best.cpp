// "Stop, Keep Best" in the workbench (issue #14, item 5): pressed while the
// search explores, the search ends with the best plans found so far; they
// are shown like any result, and the status bar and the notice strip above
// the views say they are incomplete.
#include "TestWindow.h"

#include "NoticeBanner.h"
#include "SearchController.h"

#include <QPushButton>
#include "TestMain.h"

namespace tst_stop_keep_best {

using namespace memx;
using namespace memx::test;

class TestStopKeepBest : public QObject {
    Q_OBJECT
private slots:
    void keepsTheBestSoFar();
};

void TestStopKeepBest::keepsTheBestSoFar()
{
    MainWindow w(quietOptions());
    w.openSampleProject();
    auto* keep = w.findChild<QPushButton*>(QStringLiteral("stopKeepBest"));
    QVERIFY(keep);
    QVERIFY(!keep->isVisible());
    w.show();
    bool pressed = false;
    // Pressed once the explore pass is reported (past the count pass's 10%).
    connect(w.controller(), &SearchController::progress, &w, [&](const SearchProgress& p) {
        if (!pressed && p.phase == 1 && p.permille > 100) {
            QVERIFY(keep->isVisible());
            pressed = true;
            keep->click();
        }
    });
    QVERIFY(runAndWait(w));
    QVERIFY(pressed);
    QVERIFY(!keep->isVisible());
    const SearchResult* r = w.result();
    QVERIFY(r != nullptr);
    const QString why = QString::fromStdString(r->incomplete);
    QVERIFY2(why.startsWith("a request to stop early came in the "), qPrintable(why));
    QVERIFY(!r->best.empty());
    QCOMPARE(w.selectedPlan(), r->best.front().key);
    QVERIFY2(status(w).startsWith("Incomplete: the best plans found so far"), qPrintable(status(w)));
    // And above the views, where it is not clipped (issue #35 item 5).
    auto* banner = w.findChild<NoticeBanner*>(QStringLiteral("noticeBanner"));
    QVERIFY(banner);
    QVERIFY(banner->isVisible());
    QVERIFY2(banner->text().startsWith("Incomplete search: these are the best plans found before it stopped (" + why),
             qPrintable(banner->text()));
    // A search run to the end clears it.
    QVERIFY(runAndWait(w));
    QVERIFY(w.result()->incomplete.empty());
    QVERIFY2(!banner->text().contains("Incomplete"), qPrintable(banner->text()));
}

MEMX_TEST_MAIN(TestStopKeepBest)
}  // namespace tst_stop_keep_best

#include "tst_stop_keep_best.moc"
