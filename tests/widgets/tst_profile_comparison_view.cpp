#include "ProfileComparisonView.h"
#include "TestRequests.h"
#include "search/ProfileComparison.h"
#include "hardware/GpuCatalog.h"
#include "search/SearchEngine.h"

#include <QLabel>
#include <QLocale>
#include <QSignalSpy>
#include "TestMain.h"

namespace tst_profile_comparison_view {

using namespace memx;

namespace {
// Every label's text on a card, joined.
QString cardText(const QWidget* card)
{
    QStringList out;
    for (const QLabel* l : card->findChildren<QLabel*>())
        out << l->text();
    return out.join(QLatin1Char('\n'));
}

SearchResult runPaperSearch() { return test::runPaperSearch(); }
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
        QCOMPARE(result_.profilePicks.size(), std::size_t(3));
    }

    void oneColumnPerProfile()
    {
        ProfileComparisonView view;
        QCOMPARE(view.columnCount(), 0);
        view.setResult(result_);
        // One card per profile, then the fastest feasible plan as the reference.
        const int profiles = int(result_.profilePicks.size());
        QCOMPARE(view.columnCount(), profiles + 1);
        for (int i = 0; i < profiles; ++i) {
            QVERIFY(view.cardAt(i));
            QCOMPARE(view.keyAt(i), quint64(result_.profilePicks[i].plan.key));
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

    // Each card states tokens per second and, given the cluster's prices,
    // the cost per million tokens. By hand: A100-80GB at 3.00, Vendor-B and
    // Vendor-C at 1.00 per GPU-hour; a plan on all three nodes pays
    // 4 x 3 + 8 + 8 = 28 per hour and delivers 128 x 4096 / T tokens per
    // second, so 28 / (tokens/s x 3600) x 1e6 per million tokens.
    void costOnEveryCard()
    {
        nlohmann::json doc = test::paperRequest().problem.cluster.toJson();
        doc["gpu_types"]["A100-80GB"]["price_per_gpu_hour"] = 3.0;
        doc["gpu_types"]["Vendor-B"]["price_per_gpu_hour"] = 1.0;
        doc["gpu_types"]["Vendor-C"]["price_per_gpu_hour"] = 1.0;
        const Cluster priced = Cluster::fromJson(doc, "priced.json", GpuCatalog::builtin());
        ProfileComparisonView view;
        view.setResult(result_, &priced);
        int checked = 0;
        for (int i = 0; i < view.columnCount(); ++i) {
            const Plan& p = i < int(result_.profilePicks.size()) ? result_.profilePicks[std::size_t(i)].plan
                                                                 : result_.fastest.front();
            const QString text = cardText(view.cardAt(i));
            const double tokens = 128.0 * 4096 / (p.iterationMs / 1000);
            QVERIFY2(text.contains(QString::number(tokens, 'f', 0)), qPrintable(text));
            if (p.tp * p.pp * p.dp != 20)
                continue;  // leaves a node out: another price
            QVERIFY2(text.contains(QString::number(28.0 / (tokens * 3600) * 1e6, 'g', 3)), qPrintable(text));
            ++checked;
        }
        QVERIFY(checked > 0);
        view.setResult(result_);  // no cluster: no price
        QVERIFY(cardText(view.cardAt(0)).contains(QStringLiteral("unknown")));
    }

    // Several sequence lengths: one card per task's best plan, in task order,
    // each saying its tokens per second (gbs 128 x seq / T) and, after the
    // first, how many more or fewer than the first task's.
    void oneCardPerTask()
    {
        SearchRequest req = test::smallRequest();
        req.problem.setup.seqLens = {1024, 4096};
        const SearchResult r = SearchEngine::run(req);
        QVERIFY2(r.error.empty(), r.error.c_str());
        QCOMPARE(r.tasks.size(), std::size_t(2));
        ProfileComparisonView view;
        view.setResult(r);
        QCOMPARE(view.columnCount(), 2);
        for (int i = 0; i < 2; ++i) {
            QCOMPARE(view.cardAt(i)->objectName(), QStringLiteral("task-card"));
            QCOMPARE(view.keyAt(i), quint64(r.tasks[std::size_t(i)].plan.key));
            const Plan& p = r.tasks[std::size_t(i)].plan;
            const double tps = 32.0 * p.seqLen / (p.iterationMs / 1000);  // the small request's gbs is 32
            QVERIFY2(cardText(view.cardAt(i)).contains(QLocale().toString(tps, 'f', 0) + " tokens/s"),
                     qPrintable(cardText(view.cardAt(i))));
        }
        QVERIFY(cardText(view.cardAt(0)).contains("seq 1024"));
        QVERIFY(cardText(view.cardAt(1)).contains("vs seq 1024:"));
    }

    void differencesSpelledOut()
    {
        ProfileComparisonView view;
        view.setResult(result_);
        const Plan& base = result_.profilePicks.front().plan;
        QVERIFY(view.differencesAt(0).isEmpty());
        const Plan& fastest = result_.fastest.front();
        for (int i = 0; i < int(result_.profilePicks.size()); ++i) {
            const Plan& p = result_.profilePicks[i].plan;
            if (i > 0) {
                const QString expected
                    = QString::fromStdString(ProfileComparison::differences(base, p, result_.varianceMode));
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
                : QString::fromStdString(ProfileComparison::differences(fastest, p, result_.varianceMode))
                      .toHtmlEscaped();
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
        QCOMPARE(spy.at(0).at(0).value<quint64>(), quint64(result_.profilePicks[column].plan.key));
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
        QCOMPARE(view.columnCount(), int(result_.profilePicks.size()) + 1);
    }
};

MEMX_TEST_MAIN(TestProfileComparisonView)
}  // namespace tst_profile_comparison_view

#include "tst_profile_comparison_view.moc"
