// The branch and bound stays exact with per-type meshes (FlagScale's process
// meshes: every GPU type's stages with their own TP and DP): on the random
// small cases of tst_search_exactness, the pruned search on 1 and 3 threads
// returns what brute force returns. Its own executable so that the sanitizer
// stage can leave it out (tests/CMakeLists.txt: slow-under-asan).
#include "TestMain.h"
#include "RandomSearchCases.h"

namespace tst_per_type_exactness {

using namespace memx;

class TestPerTypeExactness : public QObject {
    Q_OBJECT
private slots:
    void prunedEqualsBruteForce_data()
    {
        QTest::addColumn<unsigned>("seed");
        for (unsigned seed = 1; seed <= 40; ++seed)
            QTest::newRow(test::randomCase(seed).label.toUtf8().constData()) << seed;
    }
    void prunedEqualsBruteForce()
    {
        QFETCH(unsigned, seed);
        test::Case c = test::randomCase(seed);
        c.request.problem.setup.meshes = MeshMode::PerType;
        test::compareWithBruteForce(c.request);
    }
    void randomCasesHoldPerMeshPlans()
    {
        // The comparison is only as good as its per-mesh plans: several cases
        // must rank some among their best or on their fronts (25 of 40 when
        // this was written).
        int perMesh = 0;
        for (unsigned seed = 1; seed <= 40; ++seed) {
            test::Case c = test::randomCase(seed);
            c.request.problem.setup.meshes = MeshMode::PerType;
            const SearchResult r = SearchEngine::run(c.request);
            bool any = false;
            for (const auto& p : r.best)
                any = any || p.perMesh();
            for (const auto& pt : r.paretoTimeVariance.points())
                any = any || pt.plan.perMesh();
            perMesh += any;
        }
        QVERIFY2(perMesh >= 8, qPrintable(QString::number(perMesh)));
    }
};

MEMX_TEST_APPLESS_MAIN(TestPerTypeExactness)
}  // namespace tst_per_type_exactness

#include "tst_per_type_exactness.moc"
