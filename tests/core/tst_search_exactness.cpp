// The branch and bound (bound programmes, classes, shared incumbents) must
// return exactly what visiting every candidate returns: the same best plans
// under Phi, the same fastest plans, the same two Pareto fronts, the same
// feasible count and references, for any thread count. Checked on many
// random small clusters and models, where brute force is quick.
#include "TestPaths.h"
#include "TestPlanKeys.h"
#include "RandomSearchCases.h"

#include "hardware/GpuCatalog.h"
#include "search/SearchEngine.h"

#include "TestMain.h"

#include <random>
#include <set>

namespace tst_search_exactness {

using namespace memx;
using memx::test::Case;
using memx::test::compareWithBruteForce;
using memx::test::randomCase;

class TestSearchExactness : public QObject {
    Q_OBJECT
private slots:
    void prunedEqualsBruteForce_data();
    void prunedEqualsBruteForce();
    void sampledReferencesAreCloseToExact();
    void randomCasesCoverTheSpace();
};

void TestSearchExactness::prunedEqualsBruteForce_data()
{
    QTest::addColumn<unsigned>("seed");
    for (unsigned seed = 1; seed <= 40; ++seed)
        QTest::newRow(randomCase(seed).label.toUtf8().constData()) << seed;
}

void TestSearchExactness::prunedEqualsBruteForce()
{
    QFETCH(unsigned, seed);
    Case c = randomCase(seed);
    compareWithBruteForce(c.request);
}

void TestSearchExactness::sampledReferencesAreCloseToExact()
{
    // With a sample budget below the space, the medians come from a
    // stratified sample: close to the exact ones, and flagged.
    SearchRequest req;
    req.problem.cluster = Cluster::fromFile(test::sampleCluster("paper-20gpu-3vendor.json"));
    req.problem.model = ModelSpec::resolve("llama2-7b");
    req.problem.setup.globalBatch = 128;
    req.problem.setup.microBatchSizes = {1, 2};
    req.problem.setup.meshes = MeshMode::Uniform;  // 1.9 million candidates: under the sample budget
    const SearchResult exact = SearchEngine::run(req);
    QCOMPARE(exact.stats.sampleFraction, 1.0);
    req.options.sampleBudget = 10'000;
    req.options.estimateSamples = 20'000;
    const SearchResult sampled = SearchEngine::run(req);
    QVERIFY(sampled.stats.sampleFraction < 0.05);
    QVERIFY(sampled.best.front().ranksApproximate);
    QVERIFY(std::abs(sampled.references.time / exact.references.time - 1) < 0.02);
    QVERIFY(std::abs(sampled.references.memory / exact.references.memory - 1) < 0.02);
    QVERIFY(std::abs(sampled.references.variance / exact.references.variance - 1) < 0.10);
    // The Phi ranking itself is exact under the references it is given; the
    // fastest plans and fronts do not depend on the references at all.
    QCOMPARE(test::keysOf(sampled.fastest), test::keysOf(exact.fastest));
    QCOMPARE(test::frontKeys(sampled.paretoTimeVariance), test::frontKeys(exact.paretoTimeVariance));
}

void TestSearchExactness::randomCasesCoverTheSpace()
{
    // The comparison above is only as good as its cases: most must have
    // feasible plans, several must rank plans whose stages span nodes, and
    // several must have more than one pipeline depth to choose from.
    int feasible = 0, spanning = 0, deep = 0;
    for (unsigned seed = 1; seed <= 40; ++seed) {
        const SearchResult r = SearchEngine::run(randomCase(seed).request);
        if (!r.error.empty())
            continue;
        ++feasible;
        bool spans = false;
        std::set<int> depths;
        for (const auto& pt : r.paretoTimeVariance.points()) {
            depths.insert(pt.plan.pp);
            for (const auto& s : pt.plan.stages)
                spans = spans || s.spansGroups();
        }
        spanning += spans;
        deep += depths.size() > 1;
    }
    QVERIFY2(feasible >= 30, qPrintable(QString::number(feasible)));
    QVERIFY2(spanning >= 5, qPrintable(QString::number(spanning)));
    QVERIFY2(deep >= 10, qPrintable(QString::number(deep)));
}

MEMX_TEST_APPLESS_MAIN(TestSearchExactness)
}  // namespace tst_search_exactness

#include "tst_search_exactness.moc"
