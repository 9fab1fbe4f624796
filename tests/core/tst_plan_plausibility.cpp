// Valid but implausible: a best plan slower than an hour per iteration is
// named, with the global batch that made it so.
#include "search/PlanPlausibility.h"

#include "TestClusters.h"

#include "TestMain.h"

namespace tst_plan_plausibility {

using namespace memx;

class TestPlanPlausibility : public QObject {
    Q_OBJECT
private slots:
    void longIterations_data()
    {
        QTest::addColumn<double>("ms");
        QTest::addColumn<QString>("warning");  // empty: none
        QTest::newRow("ten seconds") << 10'000.0 << QString();
        QTest::newRow("exactly an hour") << 3'600'000.0 << QString();
        QTest::newRow("90 minutes") << 5'400'000.0 << "The best plan takes 90 minutes per iteration";
        // 36 hours: 36 x 3600 x 1000 ms.
        QTest::newRow("36 hours") << 129'600'000.0 << "The best plan takes 36.0 hours per iteration";
    }
    void longIterations()
    {
        QFETCH(double, ms);
        QFETCH(QString, warning);
        Problem problem;
        problem.cluster = test::uniformNodes(1, 8, "A100-80GB");
        problem.setup.globalBatch = 999999;
        Plan best;
        best.iterationMs = ms;
        best.seqLen = 4096;
        const auto w = PlanPlausibility::warnings(problem, best);
        if (warning.isEmpty()) {
            QVERIFY(w.empty());
            return;
        }
        QCOMPARE(w.size(), std::size_t(1));
        const QString text = QString::fromStdString(w.front());
        QVERIFY2(text.startsWith(warning), qPrintable(text));
        QVERIFY2(text.contains("global batch 999999 sequences of 4096 tokens on 8 GPUs"), qPrintable(text));
    }
};

MEMX_TEST_GUILESS_MAIN(TestPlanPlausibility)
}  // namespace tst_plan_plausibility

#include "tst_plan_plausibility.moc"
