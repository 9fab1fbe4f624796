// The pruning rules (memory, MemX rule 2; Phi lower bound, rule 3) must be
// exact for the rankings they serve: a pruned search returns the same winners
// as brute force. Results must also not depend on the number of threads.
#include "TestPaths.h"
#include "TestPlanKeys.h"

#include "search/PlanEvaluator.h"
#include "search/SearchEngine.h"
#include "space/Compositions.h"

#include "TestMain.h"

namespace tst_search_pruning {

using namespace memx;

namespace {

ModelSpec smallModel()
{
    // A 12-layer, 1.3B-parameter LLaMA-style model: small enough that the
    // brute-force search stays quick on the 6-GPU cluster.
    ModelSpec m = ModelSpec::resolve("llama2-7b");
    m.name = "tiny-12l";
    m.numLayers = 12;
    m.hidden = 2048;
    m.heads = 16;
    m.headDim = 128;
    m.queryGroups = 16;
    m.ffnHidden = 5504;
    m.seqLen = 2048;
    return m;
}

SearchRequest makeRequest(const QString& cluster, const QString& model, const QString& profile,
                          const QString& recompute, const QString& variance, const QString& schedule)
{
    SearchRequest req;
    req.problem.cluster = Cluster::fromFile(test::sampleCluster(cluster.toStdString()));
    req.problem.model = model == "tiny-12l" ? smallModel() : ModelSpec::resolve(model.toStdString());
    req.problem.setup.globalBatch = 32;
    req.problem.setup.microBatchSizes = {1, 2};
    parseRecomputeMode(recompute.toStdString(), req.problem.setup.recompute);
    parseScheduleMode(schedule.toStdString(), req.problem.setup.schedule);
    parseProfile(profile.toStdString(), req.objective.profile);
    req.objective.variance = variance == "util" ? VarianceMode::Utilisation : VarianceMode::AbsoluteMiB;
    req.options.topK = 10;
    req.options.threads = 2;
    return req;
}

}  // namespace

class TestSearchPruning : public QObject {
    Q_OBJECT
private slots:
    void prunedEqualsBruteForce_data();
    void prunedEqualsBruteForce();
    void threadCountDoesNotChangeResults();
    void fastestMatchesIndependentEnumeration();
};

void TestSearchPruning::prunedEqualsBruteForce_data()
{
    QTest::addColumn<QString>("cluster");
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("profile");
    QTest::addColumn<QString>("recompute");
    QTest::addColumn<QString>("variance");
    QTest::addColumn<QString>("schedule");
    const QString six = "paper-6gpu-v100-t4.json", xy = "paper-table1-xy.json", h8 = "homogeneous-8xa100.json";
    QTest::newRow("V100+T4, tiny, default, policy") << six << "tiny-12l"
                                                    << "default"
                                                    << "policy"
                                                    << "mib"
                                                    << "auto";
    QTest::newRow("V100+T4, tiny, safety-first, enumerate") << six << "tiny-12l"
                                                            << "safety-first"
                                                            << "enumerate"
                                                            << "mib"
                                                            << "auto";
    QTest::newRow("V100+T4, tiny, throughput-first, util variance") << six << "tiny-12l"
                                                                    << "throughput-first"
                                                                    << "policy"
                                                                    << "util"
                                                                    << "both";
    QTest::newRow("V100+T4, tiny, uniform full recompute") << six << "tiny-12l"
                                                           << "default"
                                                           << "full"
                                                           << "mib"
                                                           << "1f1b";
    QTest::newRow("Table 1 pair, llama2-7b, enumerate") << xy << "llama2-7b"
                                                        << "default"
                                                        << "enumerate"
                                                        << "mib"
                                                        << "auto";
    QTest::newRow("8xA100, llama2-7b, interleaved allowed") << h8 << "llama2-7b"
                                                            << "throughput-first"
                                                            << "policy"
                                                            << "mib"
                                                            << "both";
}

void TestSearchPruning::prunedEqualsBruteForce()
{
    QFETCH(QString, cluster);
    QFETCH(QString, model);
    QFETCH(QString, profile);
    QFETCH(QString, recompute);
    QFETCH(QString, variance);
    QFETCH(QString, schedule);
    auto req = makeRequest(cluster, model, profile, recompute, variance, schedule);
    auto pruned = SearchEngine::run(req);
    req.options.prune = false;
    auto brute = SearchEngine::run(req);
    QVERIFY2(pruned.error.empty(), pruned.error.c_str());
    QVERIFY(!pruned.best.empty());
    QCOMPARE(pruned.stats.feasible, brute.stats.feasible);
    QCOMPARE(test::keysWithPhi(pruned.best), test::keysWithPhi(brute.best));
    QCOMPARE(test::keysWithPhi(pruned.fastest), test::keysWithPhi(brute.fastest));
    QCOMPARE(test::frontKeys(pruned.paretoTimeVariance), test::frontKeys(brute.paretoTimeVariance));
    QCOMPARE(test::frontKeys(pruned.paretoTimeMemory), test::frontKeys(brute.paretoTimeMemory));
    // The pruned search did evaluate fewer candidates in the ranking phase
    // (or the space was too small to cut anything).
    QVERIFY(pruned.stats.phase2Evaluated <= brute.stats.phase2Evaluated);
}

void TestSearchPruning::threadCountDoesNotChangeResults()
{
    auto req = makeRequest("paper-20gpu-3vendor.json", "llama2-7b", "default", "policy", "mib", "auto");
    req.problem.setup.microBatchSizes = {2};
    req.options.threads = 1;
    auto one = SearchEngine::run(req);
    req.options.threads = 2;
    auto two = SearchEngine::run(req);
    req.options.threads = 5;
    auto five = SearchEngine::run(req);
    QVERIFY(!one.best.empty());
    QCOMPARE(test::keysWithPhi(one.best), test::keysWithPhi(two.best));
    QCOMPARE(test::keysWithPhi(one.best), test::keysWithPhi(five.best));
    QCOMPARE(test::keysWithPhi(one.fastest), test::keysWithPhi(five.fastest));
    QCOMPARE(test::frontKeys(one.paretoTimeVariance), test::frontKeys(five.paretoTimeVariance));
    QCOMPARE(one.references.time, five.references.time);
    QCOMPARE(one.references.variance, five.references.variance);
    QCOMPARE(one.plotSample.size(), five.plotSample.size());
}

void TestSearchPruning::fastestMatchesIndependentEnumeration()
{
    // Walk every layer split of both stage orders of the Table 1 pair with
    // PlanEvaluator (no split search involved) and compare the fastest
    // feasible plan and the feasible count with the engine's.
    auto req = makeRequest("paper-table1-xy.json", "llama2-7b", "default", "policy", "mib", "1f1b");
    req.problem.setup.microBatchSizes = {1};
    auto result = SearchEngine::run(req);
    QVERIFY(result.error.empty());
    double bestMs = std::numeric_limits<double>::infinity();
    std::uint64_t feasible = 0;
    for (auto order : {std::vector<std::string>{"xy/Vendor-X", "xy/Vendor-Y"},
                       std::vector<std::string>{"xy/Vendor-Y", "xy/Vendor-X"}}) {
        Compositions::forEach(32, 2, [&](const std::vector<int>& split) {
            PlanSpec spec;
            spec.stageGroups = order;
            spec.layers = split;
            auto ev = PlanEvaluator::evaluate(req.problem, spec, req.predictor, req.objective.variance);
            if (!ev.feasible)
                return;
            ++feasible;
            bestMs = std::min(bestMs, ev.plan.iterationMs);
        });
    }
    QCOMPARE(result.stats.feasible, feasible);
    QCOMPARE(result.fastest.front().iterationMs, bestMs);
}

MEMX_TEST_APPLESS_MAIN(TestSearchPruning)
}  // namespace tst_search_pruning

#include "tst_search_pruning.moc"
