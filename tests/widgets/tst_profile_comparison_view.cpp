#include "ProfileComparisonView.h"
#include "TestRequests.h"
#include "search/ProfileComparison.h"
#include "search/SearchEngine.h"

#include <QLabel>
#include <QSignalSpy>
#include <QTest>

using namespace memx;

namespace {
SearchResult runPaperSearch()
{
    return test::runPaperSearch();
}
}  // namespace

class TestProfileComparisonView : public QObject {
    Q_OBJECT
private:
    SearchResult result_;

private slots:
    void initTestCase()
    {
        result_ = runPaperSearch();
        QVERIFY2(result_.error.empty(), result_.error.c_str());
        QCOMPARE(result_.profileBests.size(), std::size_t(3));
    }

    void oneColumnPerProfile()
    {
        ProfileComparisonView view;
        QCOMPARE(view.columnCount(), 0);
        view.setResult(result_);
        // One card per profile, then the fastest feasible plan as the reference.
        const int profiles = int(result_.profileBests.size());
        QCOMPARE(view.columnCount(), profiles + 1);
        for (int i = 0; i < profiles; ++i) {
            QVERIFY(view.cardAt(i));
            QCOMPARE(view.keyAt(i), quint64(result_.profileBests[i].best.key));
        }
        QCOMPARE(view.keyAt(profiles), quint64(result_.fastest.front().key));
        QCOMPARE(view.cardAt(profiles)->objectName(), QStringLiteral("fastest-card"));
        QCOMPARE(view.cardAt(view.columnCount()), nullptr);
        view.setResult(result_);  // replaces, does not add
        QCOMPARE(view.columnCount(), profiles + 1);
        const SearchResult none;
        view.setResult(none);
        QCOMPARE(view.columnCount(), 0);
    }

    void differencesSpelledOut()
    {
        ProfileComparisonView view;
        view.setResult(result_);
        const Plan& base = result_.profileBests.front().best;
        QVERIFY(view.differencesAt(0).isEmpty());
        const Plan& fastest = result_.fastest.front();
        for (int i = 0; i < int(result_.profileBests.size()); ++i) {
            const Plan& p = result_.profileBests[i].best;
            if (i > 0) {
                const QString expected = QString::fromStdString(ProfileComparison::differences(base, p, result_.varianceMode));
                QCOMPARE(view.differencesAt(i), expected);
                auto* label = view.cardAt(i)->findChild<QLabel*>("differences");
                QVERIFY(label);
                QVERIFY2(label->text().contains(expected.toHtmlEscaped()), qPrintable(label->text()));
            }
            // Every pick's price against the fastest feasible plan.
            auto* price = view.cardAt(i)->findChild<QLabel*>("vs-fastest");
            QVERIFY(price);
            const QString cost = p.key == fastest.key
                ? QStringLiteral("it is the fastest feasible plan")
                : QString::fromStdString(ProfileComparison::differences(fastest, p, result_.varianceMode)).toHtmlEscaped();
            QVERIFY2(price->text().contains(cost), qPrintable(price->text()));
        }
    }

    void clickingCardActivatesPlan_data()
    {
        QTest::addColumn<int>("column");
        for (int i = 0; i < 3; ++i)
            QTest::newRow(qPrintable(QString("card %1").arg(i))) << i;
    }
    void clickingCardActivatesPlan()
    {
        QFETCH(int, column);
        ProfileComparisonView view;
        view.resize(1200, 400);
        view.setResult(result_);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy spy(&view, &ProfileComparisonView::planActivated);
        QWidget* card = view.cardAt(column);
        QTest::mouseClick(card, Qt::LeftButton, {}, QPoint(card->width() / 2, card->height() - 5));
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy.at(0).at(0).value<quint64>(), quint64(result_.profileBests[column].best.key));
    }

    void resultReplacedFromItsOwnClick()
    {
        ProfileComparisonView view;
        view.setResult(result_);
        int activations = 0;
        connect(&view, &ProfileComparisonView::planActivated, &view, [&] {
            ++activations;
            view.setResult(result_);  // the clicked card goes away while it handles the click
        });
        QTest::mouseClick(view.cardAt(1), Qt::LeftButton);
        QCOMPARE(activations, 1);
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
        QCOMPARE(view.columnCount(), int(result_.profileBests.size()) + 1);
    }

    // Renders the view for a person to look at: MEMX_SCREENSHOT_DIR=/tmp.
    void screenshot()
    {
        const QString dir = qEnvironmentVariable("MEMX_SCREENSHOT_DIR");
        if (dir.isEmpty())
            QSKIP("set MEMX_SCREENSHOT_DIR to save a screenshot");
        ProfileComparisonView view;
        view.resize(1200, 400);
        view.setResult(result_);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(view.grab().save(dir + "/panels-profile-comparison.png"));
    }
};

QTEST_MAIN(TestProfileComparisonView)
#include "tst_profile_comparison_view.moc"
