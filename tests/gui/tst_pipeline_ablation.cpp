// The Pipeline view of the selected plan carries the recomputation ablation
// (issue #13, item 5): under the stage table, the same plan with one level on
// every stage, as the CLI report prints it, and it follows the selection.
#include "TestWindow.h"

#include "PipelineView.h"
#include "SearchController.h"
#include "search/RecomputeAblation.h"

#include "TestMain.h"

namespace tst_pipeline_ablation {

using namespace memx;
using namespace memx::test;

class TestPipelineAblation : public QObject {
    Q_OBJECT
private slots:
    void followsTheSelectedPlan();
};

void TestPipelineAblation::followsTheSelectedPlan()
{
    MainWindow w(quietOptions());
    w.openSampleProject();
    QVERIFY(runAndWait(w));
    auto* view = w.findChild<PipelineView*>();
    QVERIFY(view);
    const SearchResult* r = w.result();
    QVERIFY(r && r->best.size() >= 2);
    for (std::size_t i : {std::size_t(0), std::size_t(1)}) {
        const Plan& plan = r->best[i];
        w.selectPlan(plan.key);
        // Worked out off the GUI thread (the ablation job), then shown.
        const QString heading = QStringLiteral("Recomputation per stage (%1) against one level on every stage:")
                                    .arg(QString::fromStdString(plan.recomputeString()));
        QTRY_VERIFY_WITH_TIMEOUT(!view->ablation().isEmpty() && view->ablation().front() == heading, 20000);
        const QStringList lines = view->ablation();
        QCOMPARE(lines.size(), 4);
        QVERIFY(lines[1].trimmed().startsWith("none: "));
        QVERIFY(lines[2].trimmed().startsWith("selective: "));
        QVERIFY(lines[3].trimmed().startsWith("full: "));
        // The same lines the CLI prints for this plan.
        const auto variants = RecomputeAblation::uniform(w.controller()->lastRequest().problem, plan,
                                                         w.controller()->lastRequest().predictor, r->varianceMode);
        QCOMPARE(lines.join('\n') + '\n',
                 QString::fromStdString(RecomputeAblation::line(plan, variants, r->varianceMode)));
    }
}

MEMX_TEST_MAIN(TestPipelineAblation)
}  // namespace tst_pipeline_ablation

#include "tst_pipeline_ablation.moc"
