// Per-stage against uniform recomputation (issue #13, item 5): the same plan
// with one level on every stage, predicted as the search predicts. Physics a
// user relies on: recomputing more never costs memory and never saves time;
// the plan's own uniform level gives the plan back exactly; what does not fit
// says so with the numbers.
#include "TestPaths.h"

#include "search/RecomputeAblation.h"
#include "search/SearchEngine.h"

#include "TestMain.h"

namespace tst_recompute_ablation {

using namespace memx;

class TestRecomputeAblation : public QObject {
    Q_OBJECT
private slots:
    void mixedPlanAgainstUniform();
    void uniformPlanComesBack();
};

namespace {
SearchRequest request(const char* cluster, int gbs)
{
    SearchRequest req;
    req.problem.cluster = Cluster::fromFile(test::sampleCluster(cluster));
    req.problem.model = ModelSpec::resolve("llama2-7b");
    req.problem.setup.globalBatch = gbs;
    return req;
}
}  // namespace

void TestRecomputeAblation::mixedPlanAgainstUniform()
{
    SearchRequest req = request("paper-20gpu-3vendor.json", 128);
    req.objective.epsilonRule = EpsilonRule::Fraction;  // the paper's eV, whose pick mixes full and none
    const SearchResult r = SearchEngine::run(req);
    QVERIFY2(r.error.empty(), r.error.c_str());
    const Plan& plan = r.best.front();
    QVERIFY2(plan.recomputeString().find('F') != std::string::npos
                 && plan.recomputeString().find('N') != std::string::npos,
             plan.recomputeString().c_str());  // the default pick mixes full and none
    const auto v = RecomputeAblation::uniform(req.problem, plan);
    QCOMPARE(v.size(), std::size_t(3));
    const auto& none = v[0];
    const auto& full = v[2];
    QCOMPARE(full.level, Recompute::Full);
    QVERIFY(full.feasible);
    QVERIFY(full.iterationMs >= plan.iterationMs);  // recomputing more never saves time
    QVERIFY(full.maxMemMiB <= plan.maxMemMiB);  // ... and never costs memory
    if (none.feasible) {
        QVERIFY(none.iterationMs <= plan.iterationMs);
        QVERIFY(none.maxMemMiB >= plan.maxMemMiB);
    } else {
        QVERIFY2(none.whyInfeasible.find("GiB") != std::string::npos, none.whyInfeasible.c_str());
    }
    const std::string line = RecomputeAblation::line(plan, v, r.varianceMode);
    QVERIFY2(line.find("the best uniform level") != std::string::npos, line.c_str());
    QVERIFY2(line.find("full: +") != std::string::npos, line.c_str());
}

void TestRecomputeAblation::uniformPlanComesBack()
{
    // On 8 A100 the best plan recomputes nothing: "none on every stage" is the plan itself.
    const SearchRequest req = request("homogeneous-8xa100.json", 64);
    const SearchResult r = SearchEngine::run(req);
    QVERIFY2(r.error.empty(), r.error.c_str());
    const Plan& plan = r.best.front();
    Recompute level = plan.stages.front().recompute;
    for (const auto& s : plan.stages)
        if (s.recompute != level)
            QSKIP("the best plan mixes levels here");
    const auto v = RecomputeAblation::uniform(req.problem, plan);
    const auto& same = v[static_cast<std::size_t>(level)];
    QVERIFY(same.feasible);
    QCOMPARE(same.iterationMs, plan.iterationMs);
    QCOMPARE(same.maxMemMiB, plan.maxMemMiB);
}

MEMX_TEST_GUILESS_MAIN(TestRecomputeAblation)
}  // namespace tst_recompute_ablation

#include "tst_recompute_ablation.moc"
