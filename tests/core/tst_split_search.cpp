// The split search's two cheap answers about a skeleton, checked against
// enumeration on the random small cases of tst_search_exactness (uniform and
// per-type skeletons): the feasible count (a run of prefix sums over the
// stages' option counts) equals the number of (split, level) assignments
// that fit, counted here from the tables directly; and the quick root bound
// is below every feasible candidate's T and M, so a skeleton it shows
// hopeless holds nothing the search would keep.
// SplitSearch.h before Qt: it has a member named emit, which Qt defines away.
#include "TestMain.h"
#include "search/SplitSearch.h"

#include "RandomSearchCases.h"

#include "hardware/Topology.h"
#include "predict/AnalyticPredictor.h"
#include "predict/PredictionCache.h"
#include "search/Skeleton.h"
#include "search/SkeletonTables.h"
#include "space/Problem.h"

#include <algorithm>
#include <functional>
#include <limits>

namespace tst_split_search {

using namespace memx;

namespace {

// Visits every feasible leaf; keeps the least T and M.
class Extremes final : public LeafSink {
public:
    void onLeaf(const Leaf& leaf) override
    {
        ++leaves;
        minT = std::min(minT, leaf.timeMs);
        minM = std::min(minM, leaf.maxMemMiB);
    }
    std::uint64_t leaves = 0;
    double minT = std::numeric_limits<double>::infinity();
    double minM = std::numeric_limits<double>::infinity();
};

// Feasible assignments from the tables alone: every composition of the
// layers into stages of whole units, times each stage's fitting levels (or
// the policy's one level).
std::uint64_t countByHand(const SkeletonTables& t, const Skeleton& sk, bool enumerateLevels)
{
    const int step = sk.unitLayers();
    const int P = t.stages;
    std::uint64_t total = 0;
    std::function<void(int, int, std::uint64_t)> go = [&](int stage, int layersLeft, std::uint64_t ways) {
        if (stage == P) {
            total += layersLeft == 0 ? ways : 0;
            return;
        }
        for (int n = step; n <= layersLeft - (P - 1 - stage) * step; n += step) {
            if (n > t.maxLayers)
                break;
            std::uint64_t here = 0;
            if (enumerateLevels) {
                for (int lv = 0; lv < kRecomputeLevels; ++lv)
                    here += t.feasible(stage, n, lv);
            } else {
                here = t.row(stage).policyLevel[static_cast<std::size_t>(n)] >= 0;
            }
            if (here)
                go(stage + 1, layersLeft - n, ways * here);
        }
    };
    go(0, t.layers, 1);
    return total;
}

}  // namespace

class TestSplitSearch : public QObject {
    Q_OBJECT
private slots:
    void countsAndQuickBoundMatchEnumeration_data()
    {
        QTest::addColumn<unsigned>("seed");
        for (unsigned seed = 1; seed <= 40; ++seed)
            QTest::newRow(test::randomCase(seed).label.toUtf8().constData()) << seed;
    }
    void countsAndQuickBoundMatchEnumeration()
    {
        QFETCH(unsigned, seed);
        test::Case c = test::randomCase(seed);
        Problem& problem = c.request.problem;
        problem.setup.meshes = MeshMode::PerType;
        const bool levels = problem.setup.recompute == RecomputeMode::Enumerate;
        const SkeletonList list = SkeletonEnumerator::enumerate(problem);
        QVERIFY(!list.skeletons.empty());
        AnalyticPredictor predictor;
        PredictionCache cache(predictor);
        const Topology topo(problem.cluster);
        int checked = 0, withPlans = 0;
        // Every third skeleton: all kinds of them, in a second or two.
        for (std::size_t i = 0; i < list.skeletons.size(); i += 3) {
            const Skeleton& sk = list.skeletons[i];
            SkeletonTables tables;
            std::string why;
            if (!SkeletonTables::build(problem, sk, topo, cache, tables, why))
                continue;
            SplitSearch search(tables, sk, levels, c.request.objective.variance, i);
            const std::uint64_t expected = countByHand(tables, sk, levels);
            QCOMPARE(static_cast<std::uint64_t>(search.feasibleCount()), expected);
            Extremes all;
            search.run(all, false);
            QCOMPARE(all.leaves, expected);
            ++checked;
            if (expected == 0)
                continue;
            ++withPlans;
            const LeafBound quick = search.quickRootBound();
            QVERIFY2(quick.timeMs <= all.minT,
                     qPrintable(QString("skeleton %1: bound %2 ms above the fastest %3 ms")
                                    .arg(i)
                                    .arg(quick.timeMs)
                                    .arg(all.minT)));
            QVERIFY2(quick.maxMemMiB <= all.minM,
                     qPrintable(QString("skeleton %1: bound %2 MiB above the least peak %3 MiB")
                                    .arg(i)
                                    .arg(quick.maxMemMiB)
                                    .arg(all.minM)));
            // Not vacuous: the bound is a real time and a real peak.
            QVERIFY(quick.timeMs > 0);
            QVERIFY(quick.maxMemMiB > 0);
        }
        QVERIFY(checked > 0);
        if (withPlans == 0)
            QSKIP("no skeleton of this case has a feasible plan");
    }
};

MEMX_TEST_APPLESS_MAIN(TestSplitSearch)
}  // namespace tst_split_search

#include "tst_split_search.moc"
