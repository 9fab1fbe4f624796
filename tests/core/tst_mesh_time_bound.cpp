// The iteration-time bound of a per-type mesh choice (issue #32,
// search/MeshTimeBound): no plan of the choice is faster than it, and a cap on
// the per-type skeletons keeps the choices of the lowest bounds, so that what
// it leaves out cannot hold a faster plan than the bound it reports.
#include "TestPaths.h"

#include "hardware/ClusterGenerator.h"
#include "hardware/GpuCatalog.h"
#include "hardware/Topology.h"
#include "model/ModelSpec.h"
#include "predict/AnalyticPredictor.h"
#include "search/MeshTimeBound.h"
#include "search/SearchEngine.h"
#include "search/Skeleton.h"
#include "space/Problem.h"

#include "TestMain.h"

#include <algorithm>
#include <numeric>
#include <limits>

namespace tst_mesh_time_bound {

using namespace memx;

namespace {

Problem problemOf(const Cluster& cluster, const char* model, int gbs)
{
    Problem p;
    p.cluster = cluster;
    p.model = ModelSpec::resolve(model);
    p.setup.globalBatch = gbs;
    p.setup.meshes = MeshMode::PerType;
    return p;
}

int typeIndex(const Cluster& c, const std::string& name)
{
    for (std::size_t t = 0; t < c.types().size(); ++t)
        if (c.types()[t].name == name)
            return static_cast<int>(t);
    return -1;
}

// Meshes: runs of neighbouring stages alike in type and shape.
template <class TypeOf, class ShapeOf> std::vector<MeshTimeBound::Mesh> meshes(int stages, TypeOf type, ShapeOf shape)
{
    std::vector<MeshTimeBound::Mesh> out;
    for (int i = 0; i < stages; ++i) {
        const StageShape sh = shape(i);
        const int t = type(i);
        if (!out.empty() && out.back().type == t && out.back().tp == sh.tp && out.back().dp == sh.dp
            && out.back().microBatch == sh.microBatch) {
            ++out.back().stages;
            continue;
        }
        out.push_back({t, sh.tp, sh.dp, sh.microBatch, 1});
    }
    return out;
}

std::vector<MeshTimeBound::Mesh> meshesOf(const Cluster& c, const Plan& plan)
{
    return meshes(
        static_cast<int>(plan.stages.size()),
        [&](int i) { return typeIndex(c, plan.stages[static_cast<std::size_t>(i)].gpuType); },
        [&](int i) { return plan.shapeOf(static_cast<std::size_t>(i)); });
}

std::vector<MeshTimeBound::Mesh> meshesOf(const Skeleton& sk)
{
    return meshes(
        sk.stages(), [&](int i) { return sk.slot(i).type; }, [&](int i) { return sk.shapeOf(i); });
}

// The analytic bound of each plan's mesh choice lies under the plan's own
// time; `perMesh` counts the per-mesh plans checked.
void boundIsBelowEachPlan(const Problem& problem, std::initializer_list<const std::vector<Plan>*> lists, int& perMesh)
{
    const AnalyticPredictor predictor;
    const Topology topo(problem.cluster);
    MeshTimeBound bound(problem, predictor, topo);
    for (const std::vector<Plan>* list : lists)
        for (const Plan& p : *list) {
            const double b
                = bound.iterationMs(meshesOf(problem.cluster, p), p.microBatchCount, p.seqLen, p.queryGroups);
            QVERIFY2(b > 0 && b <= p.iterationMs,
                     qPrintable(QStringLiteral("%1: bound %2 ms above the plan's %3 ms")
                                    .arg(QString::fromStdString(p.shapeString()))
                                    .arg(b)
                                    .arg(p.iterationMs)));
            perMesh += p.perMesh();
        }
}

Cluster generated(int nodes, int gpusPerNode, const std::vector<std::string>& types)
{
    ClusterGenerator::Spec spec;
    spec.nodes = nodes;
    spec.gpusPerNode = gpusPerNode;
    spec.types = types;
    return Cluster::fromJson(ClusterGenerator::generate(spec), "generated", GpuCatalog::builtin());
}

}  // namespace

class TestMeshTimeBound : public QObject {
    Q_OBJECT
private slots:
    void noPlanIsFasterThanItsBound_data();
    void noPlanIsFasterThanItsBound();
    void aCapKeepsTheLowestBounds();
    void deepModelsAreBoundedOnAGrid();
};

void TestMeshTimeBound::noPlanIsFasterThanItsBound_data()
{
    QTest::addColumn<QString>("cluster");
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("gbs");
    QTest::newRow("20-GPU sample, LLaMA2-7B") << "paper-20gpu-3vendor.json"
                                              << "llama2-7b" << 128;
    QTest::newRow("V100 and T4, LLaMA2-7B") << "paper-6gpu-v100-t4.json"
                                            << "llama2-7b" << 64;
    QTest::newRow("H100, H20, 910B, LLaMA2-13B") << "modern-h100-h20-910b.json"
                                                 << "llama2-13b" << 256;
}

void TestMeshTimeBound::noPlanIsFasterThanItsBound()
{
    QFETCH(QString, cluster);
    QFETCH(QString, model);
    QFETCH(int, gbs);
    SearchRequest req;
    req.problem
        = problemOf(Cluster::fromFile(test::sampleCluster(cluster.toStdString())), model.toStdString().c_str(), gbs);
    req.options.topK = 400;  // many plans of many mesh choices
    req.options.threads = 2;
    const SearchResult r = SearchEngine::run(req);
    QVERIFY2(r.error.empty(), r.error.c_str());
    int perMesh = 0;
    boundIsBelowEachPlan(req.problem, {&r.fastest, &r.best}, perMesh);
    if (QTest::currentTestFailed())
        return;
    QVERIFY2(perMesh > 0, "the per-type space of these clusters ranks per-mesh plans");
}

void TestMeshTimeBound::aCapKeepsTheLowestBounds()
{
    Problem problem = problemOf(generated(6, 4, {"A100-80GB", "V100-16GB", "H100-SXM"}), "llama2-7b", 96);
    problem.setup.microBatchSizes = {1, 2};
    const AnalyticPredictor predictor;
    const Topology topo(problem.cluster);
    MeshTimeBound bound(problem, predictor, topo);
    SkeletonEnumerator::Limits limits;
    limits.perTypeTimeBound = [&bound](const std::vector<MeshTimeBound::Mesh>& m, int G, int seq, int qg) {
        return bound.iterationMs(m, G, seq, qg);
    };
    const SkeletonList all = SkeletonEnumerator::enumerate(problem, limits);
    QVERIFY(all.spaceCut.empty());
    QCOMPARE(all.leftOutTimeBoundMs, std::numeric_limits<double>::infinity());
    // Uncapped, the list is the one an enumeration without a bound makes.
    const SkeletonList plain = SkeletonEnumerator::enumerate(problem);
    QCOMPARE(all.skeletons.size(), plain.skeletons.size());
    std::vector<double> bounds;  // of every per-mesh skeleton
    for (std::size_t i = 0; i < all.skeletons.size(); ++i) {
        const Skeleton& s = all.skeletons[i];
        QCOMPARE(meshesOf(s).size(), meshesOf(plain.skeletons[i]).size());
        if (s.perMesh())
            bounds.push_back(bound.iterationMs(meshesOf(s), s.microBatchCount, s.seq, s.queryGroups));
    }
    QVERIFY2(bounds.size() > 40, qPrintable(QString::number(bounds.size())));
    std::sort(bounds.begin(), bounds.end());

    const std::size_t keep = bounds.size() / 4;
    limits.perTypeMeshes = keep;
    const SkeletonList capped = SkeletonEnumerator::enumerate(problem, limits);
    std::vector<double> kept;
    for (const Skeleton& s : capped.skeletons)
        if (s.perMesh())
            kept.push_back(bound.iterationMs(meshesOf(s), s.microBatchCount, s.seq, s.queryGroups));
    QCOMPARE(kept.size(), keep);
    // The kept ones are the lowest bounds; the report's bound is the least of the rest.
    std::sort(kept.begin(), kept.end());
    QCOMPARE(kept.back(), bounds[keep - 1]);
    QCOMPARE(capped.leftOutTimeBoundMs, bounds[keep]);
    const std::string says = std::to_string(bounds.size() - keep) + " more";
    QVERIFY2(capped.spaceCut.find(says) != std::string::npos, capped.spaceCut.c_str());
    QVERIFY2(capped.spaceCut.find("cannot be faster than") != std::string::npos, capped.spaceCut.c_str());
    QVERIFY(capped.excluded == all.excluded);  // the rules' tallies cover the whole space either way
}

void TestMeshTimeBound::deepModelsAreBoundedOnAGrid()
{
    // Every layer count up to 256 (so every shipped model's rows are exact),
    // then a geometric grid: a 100,000-layer model asked 100,000 stage times
    // per row and spent 46 s in the bound before the search ran out of memory.
    std::vector<int> all(80);
    std::iota(all.begin(), all.end(), 1);
    QCOMPARE(MeshTimeBound::layerCounts(80), all);
    const std::vector<int> deep = MeshTimeBound::layerCounts(100000);
    QVERIFY2(deep.size() < 1500, qPrintable(QString::number(deep.size())));
    QCOMPARE(deep.front(), 1);
    QCOMPARE(deep.back(), 100000);
    QVERIFY(std::is_sorted(deep.begin(), deep.end()) && std::adjacent_find(deep.begin(), deep.end()) == deep.end());
    // On the grid the bound still lies under every plan: a 300-layer model
    // of LLaMA2-7B's shape, narrowed to fit, on the V100 + T4 sample.
    SearchRequest req;
    req.problem = problemOf(Cluster::fromFile(test::sampleCluster("paper-6gpu-v100-t4.json")), "llama2-7b", 32);
    req.problem.model.numLayers = 300;
    req.problem.model.hidden = 512;
    req.problem.model.ffnHidden = 1408;
    req.problem.model.heads = req.problem.model.queryGroups = 8;
    req.problem.setup.microBatchSizes = {1};
    req.problem.setup.maxPipelineStages = 4;
    req.options.topK = 100;
    const SearchResult r = SearchEngine::run(req);
    QVERIFY2(r.error.empty(), r.error.c_str());
    int perMesh = 0;
    boundIsBelowEachPlan(req.problem, {&r.fastest}, perMesh);
}

MEMX_TEST_GUILESS_MAIN(TestMeshTimeBound)
}  // namespace tst_mesh_time_bound

#include "tst_mesh_time_bound.moc"
