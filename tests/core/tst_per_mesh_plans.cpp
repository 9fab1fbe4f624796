// Per-mesh plans (FlagScale's process meshes): each GPU type's stages with
// their own TP and DP, the micro-batch dp0 x mbs / dp. What a user relies on:
// the per-type space holds every uniform plan (so it never answers worse), a
// plan file states each mesh's shape and reads back, a file that breaks one
// of FlagScale's rules is refused naming it, ranks land on the devices
// FlagScale's RankMapper gives them, and the exports say what runs them.
#include "TestPaths.h"

#include "export/FlagScaleExport.h"
#include "export/LaunchFiles.h"
#include "export/MegatronExport.h"
#include "export/PlanJson.h"
#include "export/PlanJsonReader.h"
#include "export/TextReport.h"
#include "hardware/GpuCatalog.h"
#include "io/InputError.h"
#include "search/Objective.h"
#include "search/PlanEvaluator.h"
#include "search/SearchEngine.h"
#include "search/Skeleton.h"

#include "TestMain.h"

#include <limits>

namespace tst_per_mesh_plans {

using namespace memx;

namespace {

// One node of 4 V100-32GB and one of 2 T4, NVLink / PCIe inside, RoCE between
// (the paper's section 4.4 machine, as in sample_clusters/paper-6gpu-v100-t4).
Cluster v100t4() { return Cluster::fromFile(test::sampleCluster("paper-6gpu-v100-t4.json")); }

SearchRequest request(MeshMode meshes)
{
    SearchRequest req;
    req.problem.cluster = v100t4();
    req.problem.model = ModelSpec::resolve("llama2-7b");
    req.problem.setup.globalBatch = 32;
    req.problem.setup.microBatchSizes = {1, 2};
    req.problem.setup.meshes = meshes;
    req.options.topK = 50;
    return req;
}

// The hand-made per-mesh plan: stage 0 on the V100 node as TP 4 x DP 1 with
// micro-batch 2, stage 1 on the T4 node as TP 1 x DP 2 with micro-batch
// dp0 x mbs / dp = 1 x 2 / 2 = 1.
PlanSpec handSpec()
{
    PlanSpec spec;
    spec.tp = 4;
    spec.dp = 1;
    spec.microBatch = 2;
    spec.stageGroups = {"v100", "t4"};
    spec.layers = {26, 6};
    spec.recompute = {Recompute::Full, Recompute::Full};
    spec.shapes = {{4, 1, 2}, {1, 2, 1}};
    return spec;
}

Problem problemOf(const SearchRequest& r) { return r.problem; }

nlohmann::json handPlanJson()
{
    const SearchRequest req = request(MeshMode::PerType);
    const Evaluation ev = PlanEvaluator::evaluate(req.problem, handSpec());
    return PlanJson::planDocument(req.problem, "analytic", ev.plan);
}

}  // namespace

class TestPerMeshPlans : public QObject {
    Q_OBJECT
private slots:
    void perTypeHoldsEveryUniformPlan();
    void handPlanFollowsEachMeshShape();
    void planFileStatesMeshesAndReadsBack();
    void planFileBreakingFlagScaleRuleRefused_data();
    void planFileBreakingFlagScaleRuleRefused();
    void ranksFollowFlagScaleRankMapper();
    void exportsSayWhatRunsThePlan();
    void saturatedCountSaysSo();
    void cappedSpaceSaysWhatItLeftOut();
    void cappedSearchClaimsNoExactness();
    void everyMeshChoiceIsCountedOnce();
};

void TestPerMeshPlans::perTypeHoldsEveryUniformPlan()
{
    const SearchResult uni = SearchEngine::run(request(MeshMode::Uniform));
    const SearchResult per = SearchEngine::run(request(MeshMode::PerType));
    QVERIFY2(uni.error.empty() && per.error.empty(), (uni.error + per.error).c_str());
    // On this cluster, uniform TP x DP leaves either the T4s or the V100s
    // badly shaped: per-type finds more plans.
    QVERIFY2(per.stats.feasible > uni.stats.feasible,
             qPrintable(QString("%1 vs %2").arg(per.stats.feasible).arg(uni.stats.feasible)));
    QVERIFY(per.fastest.front().iterationMs <= uni.fastest.front().iterationMs);
    // Under one set of references and weights, the uniform answer is a
    // candidate of the per-type search, so its best Phi is no larger.
    const Plan& u = uni.best.front();
    const double uPhi = Objective::phi(u.iterationMs, u.maxMemMiB, u.varMem, per.references, per.weights);
    QVERIFY2(per.best.front().phi <= uPhi * (1 + 1e-12),
             qPrintable(QString("per-type %1 vs uniform %2").arg(per.best.front().phi).arg(uPhi)));
    // And some per-type candidates are per-mesh plans.
    bool anyPerMesh = false;
    for (const Plan& p : per.best)
        anyPerMesh = anyPerMesh || p.perMesh();
    QVERIFY(anyPerMesh);
    for (const Plan& p : uni.best)
        QVERIFY(!p.perMesh());
}

void TestPerMeshPlans::handPlanFollowsEachMeshShape()
{
    const SearchRequest req = request(MeshMode::PerType);
    const Evaluation ev = PlanEvaluator::evaluate(req.problem, handSpec());
    const Plan& p = ev.plan;
    QVERIFY(p.perMesh());
    QCOMPARE(p.tp, 4);
    QCOMPARE(p.dp, 1);
    QCOMPARE(p.microBatch, 2);
    QCOMPARE(p.microBatchCount, 32 / (1 * 2));  // G = gbs / (dp0 x mbs), the same in every mesh
    QCOMPARE(p.shapeOf(0), (StageShape{4, 1, 2}));
    QCOMPARE(p.shapeOf(1), (StageShape{1, 2, 1}));
    QCOMPARE(p.stages[0].devices.size(), std::size_t(4));
    QCOMPARE(p.stages[1].devices.size(), std::size_t(2));
    QCOMPARE(p.meshValues(&StageShape::tp), std::string("4|1"));
    QCOMPARE(p.shapeString(), std::string("V100-32GB TP 4 x DP 1, mbs 2 | T4 TP 1 x DP 2, mbs 1"));
    // Each mesh's weights are split by its own TP: a T4 (TP 1) holds its 6
    // layers whole, while a V100 (TP 4) holds a quarter of its 26. A LLaMA2-7B
    // layer has 4h^2 attention + 3 h ffn MLP weights = 4 x 4096^2 + 3 x 4096 x
    // 11008 = 202,375,168 parameters (norms add 8,192), fp16 = 2 bytes each.
    const double layerMiB = (4.0 * 4096 * 4096 + 3.0 * 4096 * 11008 + 2 * 4096) * 2 / (1 << 20);
    const double t4Layers = p.stages[1].memory.weightsMiB;
    QVERIFY2(t4Layers >= 6 * layerMiB, qPrintable(QString::number(t4Layers)));  // plus the output layer
    QVERIFY2(t4Layers <= 6 * layerMiB + 32000.0 * 4096 * 2 / (1 << 20) * 1.01, qPrintable(QString::number(t4Layers)));
    const double v100 = p.stages[0].memory.weightsMiB;
    QVERIFY2(v100 >= 26 * layerMiB / 4 * 0.99, qPrintable(QString::number(v100)));
    QVERIFY2(v100 <= (26 * layerMiB + 32000.0 * 4096 * 2 / (1 << 20)) / 4 * 1.02 + 26 * 4096 * 4.0 / (1 << 20),
             qPrintable(QString::number(v100)));
}

void TestPerMeshPlans::planFileStatesMeshesAndReadsBack()
{
    const nlohmann::json j = handPlanJson();
    QCOMPARE(j.at("meshes").get<std::string>(), std::string("per-type"));
    QCOMPARE(j.at("stages").at(1).at("tp").get<int>(), 1);
    QCOMPARE(j.at("stages").at(1).at("dp").get<int>(), 2);
    QCOMPARE(j.at("stages").at(1).at("micro_batch").get<int>(), 1);
    const PlanDocument back = PlanJsonReader::fromJson(j, "hand.json");
    QVERIFY(back.plan.perMesh());
    QCOMPARE(back.plan.shapeOf(0), (StageShape{4, 1, 2}));
    QCOMPARE(back.plan.shapeOf(1), (StageShape{1, 2, 1}));
    // A uniform plan's file has no per-stage shape and reads back uniform.
    const SearchResult uni = SearchEngine::run(request(MeshMode::Uniform));
    const nlohmann::json u
        = PlanJson::planDocument(problemOf(request(MeshMode::Uniform)), "analytic", uni.best.front());
    QVERIFY(!u.contains("meshes"));
    QVERIFY(!u.at("stages").at(0).contains("tp"));
    QVERIFY(!PlanJsonReader::fromJson(u, "uniform.json").plan.perMesh());
    QVERIFY(PlanJsonReader::fromJson(u, "uniform.json").plan == uni.best.front());
    // A searched per-mesh plan reads back as the search made it, field by field.
    const SearchResult per = SearchEngine::run(request(MeshMode::PerType));
    bool anyPerMesh = false;
    for (const Plan& p : per.best) {
        if (!p.perMesh())
            continue;
        anyPerMesh = true;
        const nlohmann::json pj = PlanJson::planDocument(problemOf(request(MeshMode::PerType)), "analytic", p);
        QVERIFY(PlanJsonReader::fromJson(pj, "per-mesh.json").plan == p);
    }
    QVERIFY(anyPerMesh);
}

void TestPerMeshPlans::planFileBreakingFlagScaleRuleRefused_data()
{
    QTest::addColumn<QString>("edit");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("why");
    QTest::newRow("mesh micro-batch not dp0 x mbs / dp") << "mbs"
                                                         << "/stages/1/micro_batch"
                                                         << "dp0 x mbs / dp";
    QTest::newRow("tied embeddings, first and last TP differ") << "tied"
                                                               << "/stages"
                                                               << "same TP";
    QTest::newRow("interleaved") << "interleaved"
                                 << "/schedule"
                                 << "cannot interleave";
    QTest::newRow("first stage is not the plan's shape") << "first"
                                                         << "/stages/0/tp"
                                                         << "first stage";
    QTest::newRow("devices not TP x DP") << "devices"
                                         << "/stages/1/devices"
                                         << "TP x DP = 2";
}

void TestPerMeshPlans::planFileBreakingFlagScaleRuleRefused()
{
    QFETCH(QString, edit);
    QFETCH(QString, field);
    QFETCH(QString, why);
    nlohmann::json j = handPlanJson();
    if (edit == "mbs")
        j["stages"][1]["micro_batch"] = 2;
    else if (edit == "tied")
        j["model"]["tied_embeddings"] = true;
    else if (edit == "interleaved") {
        j["schedule"] = "interleaved";
        j["virtual_stages"] = 2;
    } else if (edit == "first")
        j["stages"][0]["tp"] = 2;
    else if (edit == "devices")
        j["stages"][1]["devices"] = {4};
    try {
        PlanJsonReader::fromJson(j, "hand.json");
        QFAIL("accepted");
    } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).contains(field) && QString(e.what()).contains(why), e.what());
    }
}

void TestPerMeshPlans::ranksFollowFlagScaleRankMapper()
{
    // Mesh 0 (V100, TP 4 x DP 1) takes ranks 0-3 in tp order, mesh 1 (T4,
    // TP 1 x DP 2) ranks 4-5 in dp order: the V100 node's devices 0-3, then
    // the T4 node's devices 4 and 5 (cluster device ids).
    const PlanDocument doc = PlanJsonReader::fromJson(handPlanJson(), "hand.json");
    const LaunchLayout lay = LaunchFiles::layout(doc.problem.cluster, doc.plan);
    QCOMPARE(lay.deviceOfRank, (std::vector<int>{0, 1, 2, 3, 4, 5}));
    QCOMPARE(lay.stageOfRank, (std::vector<int>{0, 0, 0, 0, 1, 1}));
    QCOMPARE(lay.agents.size(), std::size_t(2));
    QCOMPARE(lay.agents[1].firstRank, 4);
}

void TestPerMeshPlans::exportsSayWhatRunsThePlan()
{
    const PlanDocument doc = PlanJsonReader::fromJson(handPlanJson(), "hand.json");
    try {
        MegatronExport::files(doc);
        QFAIL("Megatron-LM cannot run a per-mesh plan");
    } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).contains("--target flagscale"), e.what());
    }
    std::string train;
    for (const auto& f : FlagScaleExport::files(doc))
        if (f.name == "conf/train/memx_plan.yaml")
            train = f.content;
    // (tp cp ep dp pp) per mesh; the global micro-batch is mesh 0's.
    QVERIFY2(train.find("hetero_process_meshes: [4, 1, 1, 1, 1,  1, 1, 1, 2, 1]") != std::string::npos, train.c_str());
    QVERIFY2(train.find("hetero_device_types: [\"V100-32GB\", \"T4\"]") != std::string::npos, train.c_str());
    QVERIFY2(train.find("micro_batch_size: 2\n") != std::string::npos, train.c_str());
    QVERIFY2(train.find("hetero_pipeline_layer_split: [26, 6]") != std::string::npos, train.c_str());
    const auto problems = FlagScaleExport::validate(
        FlagScaleExport::configFor(doc, LaunchFiles::layout(doc.problem.cluster, doc.plan)));
    QVERIFY(problems.empty());
}

void TestPerMeshPlans::saturatedCountSaysSo()
{
    // Per-type spaces of 128+ GPUs hold more than 2^64 candidates: the
    // saturated count reads as a bound, not as 18446744073709551615.
    SearchResult r;
    r.stats.feasible = std::numeric_limits<std::uint64_t>::max();
    const std::string text = TextReport::stats(r);
    QVERIFY2(text.find("feasible candidates more than 1.8e19") != std::string::npos, text.c_str());
    QVERIFY(text.find("18446744073709551615") == std::string::npos);
    r.stats.feasible = 1234;
    QVERIFY(TextReport::stats(r).find("feasible candidates 1234") != std::string::npos);
    // The report's references line rounds what nobody reads digit by digit;
    // --stats keeps it exact.
    const Problem problem = problemOf(request(MeshMode::PerType));
    r.stats.feasible = 1000504951199858398ULL;
    const std::string table = TextReport::table(problem, r, 0);
    QVERIFY2(table.find("(medians of about 1.0e18 feasible plans)") != std::string::npos, table.c_str());
    QVERIFY(TextReport::stats(r).find("feasible candidates 1000504951199858398") != std::string::npos);
    r.stats.feasible = 9960000000000ULL;  // 9.96e12 rounds up to 1.0e13
    QVERIFY(TextReport::table(problem, r, 0).find("(medians of about 1.0e13 feasible plans)") != std::string::npos);
    r.stats.feasible = 9999999999ULL;
    QVERIFY(TextReport::table(problem, r, 0).find("(medians of 9999999999 feasible plans)") != std::string::npos);
    // Counts of pruned candidates and the rate saturate with it.
    r.stats.feasible = std::numeric_limits<std::uint64_t>::max();
    r.stats.prunedByRule["rule 2: memory (candidates that fit nowhere)"] = std::numeric_limits<std::uint64_t>::max();
    r.stats.candidatesPerS = 1.98e17;
    const std::string saturated = TextReport::stats(r);
    QVERIFY2(saturated.find("18446744073709551615") == std::string::npos, saturated.c_str());
    QVERIFY2(saturated.find("candidates/s") == std::string::npos, saturated.c_str());
}

void TestPerMeshPlans::cappedSpaceSaysWhatItLeftOut()
{
    // A cap on the per-type mesh skeletons builds as many as it allows and
    // counts the rest, so that the report can say how much was not searched;
    // the skeletons it builds are the first ones of the uncapped list.
    Problem problem = problemOf(request(MeshMode::PerType));
    problem.setup.microBatchSizes = {1};
    const SkeletonList all = SkeletonEnumerator::enumerate(problem);
    QVERIFY(all.spaceCut.empty());
    const auto perMesh = [](const SkeletonList& l) {
        return static_cast<std::size_t>(
            std::count_if(l.skeletons.begin(), l.skeletons.end(), [](const Skeleton& s) { return s.perMesh(); }));
    };
    const std::size_t n = perMesh(all);
    QVERIFY2(n > 5, qPrintable(QString::number(n)));
    SkeletonEnumerator::Limits limits;
    limits.perTypeMeshes = 5;
    const SkeletonList capped = SkeletonEnumerator::enumerate(problem, limits);
    QCOMPARE(perMesh(capped), std::size_t(5));
    QCOMPARE(capped.skeletons.size(), all.skeletons.size() - (n - 5));
    const std::string says = std::to_string(n - 5) + " more";
    QVERIFY2(capped.spaceCut.find(says) != std::string::npos, capped.spaceCut.c_str());
    // The rules' tallies cover the whole space either way.
    QVERIFY(capped.excluded == all.excluded);
}

void TestPerMeshPlans::cappedSearchClaimsNoExactness()
{
    // A search over part of the space says so where a user reads the result
    // and never calls its plans exact.
    const Problem problem = problemOf(request(MeshMode::PerType));
    SearchResult r = SearchEngine::run(request(MeshMode::PerType));
    QVERIFY(r.error.empty());
    QVERIFY(TextReport::table(problem, r, 3).find("PART OF THE SPACE") == std::string::npos);
    r.spaceCut = "per-type mesh skeletons capped at 200000: 7 more were not searched";
    r.stats.sampleFraction = 0.5;
    const std::string table = TextReport::table(problem, r, 3);
    QVERIFY2(table.find("PART OF THE SPACE: per-type mesh skeletons capped at 200000: 7 more") != std::string::npos,
             table.c_str());
    QVERIFY2(table.find("search more of it: --mesh-skeletons N") != std::string::npos, table.c_str());
    // A cut of the stage orders (uniform) is not helped by more skeletons.
    r.spaceCut = "stage orders capped at 1000 for TP=1 DP=1 (later orders were not searched)";
    QVERIFY(TextReport::table(problem, r, 3).find("--mesh-skeletons") == std::string::npos);
    r.spaceCut = "per-type mesh skeletons capped at 200000: 7 more were not searched";
    const std::string stats = TextReport::stats(r);
    QVERIFY2(stats.find("(the best plans and fronts are exact)") == std::string::npos, stats.c_str());
    QVERIFY2(stats.find("exact over the skeletons searched") != std::string::npos, stats.c_str());
    QCOMPARE(PlanJson::search(problem, r).at("space_cut").get<std::string>(), r.spaceCut);
}

void TestPerMeshPlans::everyMeshChoiceIsCountedOnce()
{
    // The enumerator counts whole subtrees a rule refuses by products instead
    // of visiting them (1.35 billion at 512 GPUs). Every (type order, mesh
    // choice, micro-batch) must still land exactly once: in a rule's tally,
    // among the skeletons, or as a uniform choice (enumerated already).
    // By hand: V100 node of 4: TP 1 x DP 1-4, TP 2 x DP 1-2, TP 4 x DP 1 =
    // 7 options; T4 node of 2: TP 1 x DP 1-2, TP 2 x DP 1 = 3 options;
    // 2 orders x 7 x 3 x 2 micro-batch sizes = 84, of which 2 x 3 x 2 = 12
    // share one TP and DP ((1,1), (1,2), (2,1)): 72 per-type triples.
    const Problem per = problemOf(request(MeshMode::PerType));
    const Problem uni = problemOf(request(MeshMode::Uniform));
    const SkeletonList a = SkeletonEnumerator::enumerate(per);
    const SkeletonList b = SkeletonEnumerator::enumerate(uni);
    std::uint64_t tallied = 0;
    for (const auto& [rule, n] : a.excluded) {
        const auto it = b.excluded.find(rule);
        tallied += n - (it == b.excluded.end() ? 0 : it->second);
    }
    const auto perMesh = static_cast<std::uint64_t>(
        std::count_if(a.skeletons.begin(), a.skeletons.end(), [](const Skeleton& s) { return s.perMesh(); }));
    QVERIFY(perMesh > 0);
    QCOMPARE(tallied + perMesh, std::uint64_t(72));
    // DP 3 divides no global batch of 32 x micro-batch: the V100 mesh first
    // as TP 1 x DP 3, with each of the 3 T4 options, at micro-batch 1 and 2.
    const auto gbs = [](const SkeletonList& l) {
        const auto it = l.excluded.find("global batch not divisible by DP x micro-batch");
        return it == l.excluded.end() ? std::uint64_t(0) : it->second;
    };
    QCOMPARE(gbs(a) - gbs(b), std::uint64_t(6));
}

MEMX_TEST_APPLESS_MAIN(TestPerMeshPlans)
}  // namespace tst_per_mesh_plans

#include "tst_per_mesh_plans.moc"
