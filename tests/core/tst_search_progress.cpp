// Progress of a multi-second search as a front end sees it: reported from
// the calling thread, a bar that never goes back, phases in order,
// "estimating" (-1) before any estimate, then estimates that do not jump up.
#include "TestClusters.h"
#include "search/SearchEngine.h"

#include "TestMain.h"

#include <thread>

namespace tst_search_progress {

using namespace memx;

class TestSearchProgress : public QObject {
    Q_OBJECT
private slots:
    void progressOfA32GpuSearch();
};

void TestSearchProgress::progressOfA32GpuSearch()
{
    // 4 nodes of 8 GPUs, four types: LLaMA2-70B over up to 8 stages, about
    // a second or two on two cores (docs/SCALING.md: 1.2 s).
    SearchRequest req;
    req.problem.cluster = test::mixedNodes(4, "32gpu");
    req.problem.model = ModelSpec::resolve("llama2-70b");
    req.problem.setup.globalBatch = 512;
    req.problem.setup.maxPipelineStages = 8;
    std::vector<SearchProgress> reports;
    const auto caller = std::this_thread::get_id();
    bool offThread = false;
    const SearchResult r = SearchEngine::run(req, [&](const SearchProgress& p) {
        offThread = offThread || std::this_thread::get_id() != caller;
        reports.push_back(p);
    });
    QVERIFY2(r.error.empty(), r.error.c_str());
    QVERIFY(!offThread);
    QVERIFY2(reports.size() >= 5, qPrintable(QString::number(reports.size())));
    QCOMPARE(reports.front().remainingS, -1.0);  // estimating, not a guess from nothing
    bool estimated = false;
    for (std::size_t i = 1; i < reports.size(); ++i) {
        const SearchProgress& a = reports[i - 1];
        const SearchProgress& b = reports[i];
        QVERIFY2(b.permille >= a.permille, qPrintable(QStringLiteral("%1 -> %2").arg(a.permille).arg(b.permille)));
        QVERIFY(b.phase >= a.phase);
        QVERIFY(b.elapsedS >= a.elapsedS);
        if (b.remainingS >= 0) {
            estimated = true;
            // It may grow, but by at most 25% + 0.1 s per second.
            const double dt = b.elapsedS - a.elapsedS;
            if (a.remainingS >= 0)
                QVERIFY2(b.remainingS <= a.remainingS + (0.25 * a.remainingS + 0.1) * dt + 1e-6,
                         qPrintable(QStringLiteral("%1 s -> %2 s").arg(a.remainingS).arg(b.remainingS)));
        }
    }
    QVERIFY(reports.back().permille <= 1000);
    // A search of several seconds says how long it will take; a short one may
    // stay "estimating" (the count pass, then 1% of explore, then 0.5 s of
    // smoothing: tst_progress_estimate replays when the estimate appears).
    if (r.stats.wallS > 4.0)
        QVERIFY(estimated);
    qInfo("%zu reports over %.2f s, last at %d permille", reports.size(), r.stats.wallS, reports.back().permille);
}

MEMX_TEST_GUILESS_MAIN(TestSearchProgress)
}  // namespace tst_search_progress

#include "tst_search_progress.moc"
