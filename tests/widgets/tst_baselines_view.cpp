// The Baselines tab (issue #13, item 4): one row per planner, MemX last; a
// pick that exceeds some GPU's memory is marked OOM and opens in the memory
// bars with its over-capacity GPUs; ranks of such a pick are not given.
// Checked on MemX Table 1's pair, where splitting by compute runs the 32 GB
// card out of memory (tests/core/tst_baselines.cpp checks the picks).
#include "BaselinesView.h"
#include "MemoryBars.h"
#include "TestPaths.h"
#include "search/SearchEngine.h"

#include <QLocale>
#include "TestMain.h"

namespace tst_baselines_view {

using namespace memx;

class TestBaselinesView : public QObject {
    Q_OBJECT
private:
    SearchRequest request_;
    SearchResult result_;

private slots:
    void initTestCase()
    {
        request_.problem.cluster = Cluster::fromFile(test::sampleCluster("paper-table1-xy.json"));
        request_.problem.model = ModelSpec::resolve("llama2-7b");
        request_.problem.setup.globalBatch = 64;
        request_.problem.setup.recompute = RecomputeMode::Enumerate;
        request_.options.baselines = true;
        result_ = SearchEngine::run(request_);
        QVERIFY2(result_.error.empty(), result_.error.c_str());
        QCOMPARE(result_.baselines.size(), std::size_t(kBaselineKinds));
    }

    void emptyUntilASearch()
    {
        BaselinesView view;
        QCOMPARE(view.rowCount(), 0);
        SearchResult none = result_;
        none.baselines.clear();  // a search run without baselines
        view.setResult(none, request_.problem.cluster);
        QCOMPARE(view.rowCount(), 0);
    }

    void oneRowPerPlanner()
    {
        BaselinesView view;
        view.setResult(result_, request_.problem.cluster);
        QCOMPARE(view.rowCount(), kBaselineKinds);
        QCOMPARE(view.cellText(0, BaselinesView::Planner), QStringLiteral("Compute-proportional (AMP/HexiScale)"));
        QCOMPARE(view.cellText(kBaselineKinds - 1, BaselinesView::Planner), QStringLiteral("MemX"));
        QVERIFY(view.cellText(kBaselineKinds - 1, BaselinesView::VsMemX).isEmpty());
        for (int row = 0; row < view.rowCount(); ++row) {
            const Plan& p = result_.baselines[static_cast<std::size_t>(row)].plan;
            QCOMPARE(view.cellText(row, BaselinesView::Layers), QString::fromStdString(p.layersString()));
            // gbs x seq / T.
            const double tps = double(p.globalBatch) * p.seqLen / (p.iterationMs / 1000);
            QCOMPARE(view.cellText(row, BaselinesView::TokensPerS), QLocale().toString(tps, 'f', 0));
            QCOMPARE(view.cellText(row, BaselinesView::Fits).startsWith(QStringLiteral("OOM")),
                     !result_.baselines[static_cast<std::size_t>(row)].fits);
            QCOMPARE(view.rowMarkedOom(row), !result_.baselines[static_cast<std::size_t>(row)].fits);
        }
        // Slower than MemX's pick reads +, faster reads -.
        const double ratio = result_.baselines[1].plan.iterationMs / result_.baselines.back().plan.iterationMs;
        QCOMPARE(view.cellText(1, BaselinesView::VsMemX).startsWith(QLatin1Char('+')), ratio >= 1);
    }

    // The first pick that does not fit opens, with its GPUs over capacity.
    void opensTheOutOfMemoryPick()
    {
        QVERIFY(!result_.baselines.front().fits);  // by compute, the 32 GB card overflows
        BaselinesView view;
        view.setResult(result_, request_.problem.cluster);
        QCOMPARE(view.selectedRow(), 0);
        QCOMPARE(view.cellText(0, BaselinesView::RankT), QStringLiteral("–"));
        const MemoryBars* bars = view.detailBars();
        QVERIFY(bars->barCount() > 0);
        bool over = false;
        for (int i = 0; i < bars->barCount(); ++i)
            over = over || bars->barOverCapacity(i);
        QVERIFY(over);
        // Selecting MemX's row shows a plan that fits everywhere.
        view.selectRow(kBaselineKinds - 1);
        for (int i = 0; i < bars->barCount(); ++i)
            QVERIFY(!bars->barOverCapacity(i));
        view.clear();
        QCOMPARE(view.rowCount(), 0);
    }
};

MEMX_TEST_MAIN(TestBaselinesView)
}  // namespace tst_baselines_view

#include "tst_baselines_view.moc"
