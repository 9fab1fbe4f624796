// What a search too large to visit reports from its sample (issue #32 item
// 6). The plot's candidate sample holds every (TP, PP, DP) shape that has
// feasible plans, and a best plan's time rank is exact where the fastest
// list knows it. Before it was stratified, a 2 x 8 A100
// search's 4,000-plan sample held no PP = 1 plan though 303 M feasible ones
// existed: the sample was uniform over candidates, and pipelined splits
// outnumber unpipelined ones by orders of magnitude.
#include "TestClusters.h"
#include "search/SearchEngine.h"

#include "TestMain.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace tst_sample_and_ranks {

using namespace memx;

class TestSampleAndRanks : public QObject {
    Q_OBJECT
private slots:
    void everyShapeIsPlotted_data();
    void everyShapeIsPlotted();
    void perMeshShapesArePlotted();
    void timeRankExactWhereKnown();
};

namespace {

std::set<std::tuple<int, int, int>> uniformShapes(const std::vector<Plan>& plans)
{
    std::set<std::tuple<int, int, int>> out;
    for (const Plan& p : plans)
        out.insert({p.tp, p.pp, p.dp});
    return out;
}

}  // namespace

void TestSampleAndRanks::everyShapeIsPlotted_data()
{
    QTest::addColumn<int>("plotPoints");
    QTest::newRow("default 4000") << 4000;
    QTest::newRow("80 points") << 80;
}

// Two nodes of 8 A100-80GB, LLaMA2-13B, global batch 64: TP 1-8 times DP
// times PP 1-16 over 40 layers. PP = 1 fits (TP 8 x DP 2: 13e9 parameters /
// 8 is 1.6e9 per GPU, about 26 GiB of weights, gradients and optimizer
// shards with the distributed optimizer), with one split against millions.
void TestSampleAndRanks::everyShapeIsPlotted()
{
    QFETCH(int, plotPoints);
    SearchRequest req;
    req.problem.cluster = test::uniformNodes(2, 8, "A100-80GB");
    req.problem.model = ModelSpec::resolve("llama2-13b");
    req.problem.setup.globalBatch = 64;
    req.options.plotPoints = static_cast<std::size_t>(plotPoints);
    const SearchResult r = SearchEngine::run(req);
    QVERIFY2(r.error.empty(), r.error.c_str());
    QVERIFY(r.stats.sampleFraction < 1.0);  // a sample, not every candidate
    QVERIFY(r.plotSample.size() <= static_cast<std::size_t>(plotPoints));
    const auto plotted = uniformShapes(r.plotSample);
    QCOMPARE(r.stats.plotShapes, plotted.size());
    QVERIFY2(r.stats.feasibleShapes > 10, qPrintable(QString::number(r.stats.feasibleShapes)));
    QCOMPARE(r.stats.plotShapes, r.stats.feasibleShapes);
    QVERIFY(std::any_of(plotted.begin(), plotted.end(), [](const auto& s) { return std::get<1>(s) == 1; }));
    // Every shape of the best and fastest plans (feasible ones) is plotted.
    for (const auto& s : uniformShapes(r.best))
        QVERIFY(plotted.count(s));
    for (const auto& s : uniformShapes(r.fastest))
        QVERIFY(plotted.count(s));
    // The plot is no smaller than it was: the shapes take at most half of it.
    QVERIFY(r.plotSample.size() >= std::min<std::size_t>(static_cast<std::size_t>(plotPoints), 4000) / 2);
}

// Per-type meshes: each mesh's (TP, DP) is part of the shape; a mixed
// cluster's plot holds every one of them too.
void TestSampleAndRanks::perMeshShapesArePlotted()
{
    SearchRequest req;
    req.problem.cluster = test::uniformNodes(2, 8, "A100-80GB", "H100-SXM");
    req.problem.model = ModelSpec::resolve("llama2-13b");
    req.problem.setup.globalBatch = 64;
    req.problem.setup.meshes = MeshMode::PerType;
    const SearchResult r = SearchEngine::run(req);
    QVERIFY2(r.error.empty(), r.error.c_str());
    QVERIFY(r.stats.feasibleShapes > 0);
    QCOMPARE(r.stats.plotShapes, r.stats.feasibleShapes);
    QVERIFY(std::any_of(r.plotSample.begin(), r.plotSample.end(), [](const Plan& p) { return p.perMesh(); }));
    QVERIFY(std::any_of(r.plotSample.begin(), r.plotSample.end(), [](const Plan& p) { return !p.perMesh(); }));
}

// The fastest list is exact (the K fastest plans of the space, in order), so
// a best-by-Phi plan in it has its position as its time rank, not the
// sample's estimate, and says its ranks are exact; the others say theirs
// are estimates, and those estimates are past the fastest list. 32 GPUs of four types, LLaMA2-70B: a sampled space.
void TestSampleAndRanks::timeRankExactWhereKnown()
{
    SearchRequest req;
    req.problem.cluster = test::mixedNodes(4);
    req.problem.model = ModelSpec::resolve("llama2-70b");
    req.problem.setup.globalBatch = 512;
    req.problem.setup.maxPipelineStages = 8;
    req.options.topK = 40;
    // Time first: the 40 best plans are partly among the 40 fastest.
    req.objective.profile = WeightProfile::Custom;
    req.objective.custom = Weights{0.9, 0.05, 0.05};
    const SearchResult r = SearchEngine::run(req);
    QVERIFY2(r.error.empty(), r.error.c_str());
    QVERIFY(r.stats.sampleFraction < 1.0);
    std::size_t inFastest = 0, estimated = 0;
    for (const Plan& p : r.best) {
        const auto it = std::find_if(r.fastest.begin(), r.fastest.end(), [&](const Plan& f) { return f.key == p.key; });
        if (it != r.fastest.end()) {
            ++inFastest;
            QCOMPARE(p.rankTime, static_cast<std::uint64_t>(it - r.fastest.begin() + 1));
            QVERIFY(!p.ranksApproximate);
        } else {
            ++estimated;
            QVERIFY(p.ranksApproximate);
            // Not among the K fastest: its rank is past them, whatever the sample says.
            QVERIFY2(p.rankTime > r.fastest.size(), qPrintable(QString::number(p.rankTime)));
        }
    }
    QVERIFY(inFastest > 0);
    QVERIFY(estimated > 0);
}

MEMX_TEST_GUILESS_MAIN(TestSampleAndRanks)
}  // namespace tst_sample_and_ranks

#include "tst_sample_and_ranks.moc"
