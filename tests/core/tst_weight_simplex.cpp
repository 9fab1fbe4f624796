// The weight-simplex map (issue #13, item 3) on a toy set whose regions follow
// by hand: with every reference 1 and no epsilon, log2 Phi is linear in the
// weights. Plans A (T 1, M 4, V 4), B (T 2, M 1, V 2), C (T 4, M 2, V 1):
//   log2 Phi(A) = 2 wM + 2 wV,  log2 Phi(B) = wT + wV,  log2 Phi(C) = 2 wT + wM.
// At grid point (i, j, k)/20 these are (2j + 2k, i + k, 2i + j)/20: integers
// decide the winner, and equal integers are ties (either plan may win).
#include "search/WeightSimplex.h"
#include "export/SimplexReport.h"
#include "hardware/GpuCatalog.h"

#include "TestPaths.h"

#include <fstream>

#include "TestMain.h"

namespace tst_weight_simplex {

using namespace memx;

namespace {

Plan toy(std::uint64_t key, double t, double m, double v)
{
    Plan p;
    p.key = key;
    p.iterationMs = t;
    p.maxMemMiB = m;
    p.varMem = v;
    return p;
}

}  // namespace

class TestWeightSimplex : public QObject {
    Q_OBJECT
private slots:
    void toyRegionsFollowTheHandRule();
    void profilesAndCorners();
    void csvHasOneRowPerWeighting();
    void refusesNothingToMap();
};

void TestWeightSimplex::toyRegionsFollowTheHandRule()
{
    const std::vector<Plan> plans = {toy(3, 4, 2, 1), toy(1, 1, 4, 4), toy(2, 2, 1, 2), toy(1, 1, 4, 4)};
    References ref;  // 1, 1, 0, 0: Phi = T^wT M^wM V^wV
    ref.variance = 1;
    const SimplexMap map = WeightSimplex::map(plans, ref);
    QCOMPARE(map.points.size(), std::size_t(231));
    QCOMPARE(map.candidates, std::size_t(3));  // the duplicate key counted once
    QCOMPARE(map.plans.size(), std::size_t(3));
    // Fastest first: A (1 ms), B (2 ms), C (4 ms).
    QCOMPARE(map.plans[0].key, std::uint64_t(1));
    QCOMPARE(map.plans[1].key, std::uint64_t(2));
    QCOMPARE(map.plans[2].key, std::uint64_t(3));
    std::vector<std::size_t> expected(3, 0);
    std::size_t ties = 0;
    for (const auto& pt : map.points) {
        const int i = static_cast<int>(std::lround(pt.weights.time * 20));
        const int j = static_cast<int>(std::lround(pt.weights.memory * 20));
        const int k = 20 - i - j;
        QCOMPARE(pt.weights.variance, k / 20.0);
        const int score[3] = {2 * j + 2 * k, i + k, 2 * i + j};
        const int best = *std::min_element(score, score + 3);
        QVERIFY2(score[pt.winner] == best,
                 qPrintable(QStringLiteral("(%1, %2, %3): P%4").arg(i).arg(j).arg(k).arg(pt.winner + 1)));
        if (std::count(score, score + 3, best) > 1)
            ++ties;
        else
            ++expected[pt.winner];
    }
    std::size_t counted = 0;
    for (std::size_t r = 0; r < 3; ++r) {
        QVERIFY(map.regionSize[r] >= expected[r]);
        counted += map.regionSize[r];
    }
    QCOMPARE(counted, std::size_t(231));
    qInfo("untied points won: A %zu, B %zu, C %zu; %zu ties", expected[0], expected[1], expected[2], ties);
}

void TestWeightSimplex::profilesAndCorners()
{
    const std::vector<Plan> plans = {toy(1, 1, 4, 4), toy(2, 2, 1, 2), toy(3, 4, 2, 1)};
    References ref;
    ref.variance = 1;
    const SimplexMap map = WeightSimplex::map(plans, ref);
    QCOMPARE(map.at({1, 0, 0}).winner, std::size_t(0));  // time alone: A
    QCOMPARE(map.at({0, 1, 0}).winner, std::size_t(1));  // memory alone: B
    QCOMPARE(map.at({0, 0, 1}).winner, std::size_t(2));  // variance alone: C
    // Default (0.4, 0.2, 0.4): scores (24, 16, 20) -> B, Phi = 2^(16/20).
    const auto& d = map.at(weightsOf(WeightProfile::Default));
    QCOMPARE(d.weights, (Weights{0.4, 0.2, 0.4}));
    QCOMPARE(d.winner, std::size_t(1));
    QCOMPARE(d.phi, std::pow(2.0, 16 / 20.0));
    // Safety-first (0.3, 0.5, 0.2): scores (28, 10, 22) -> B.
    QCOMPARE(map.at(weightsOf(WeightProfile::SafetyFirst)).winner, std::size_t(1));
    // Throughput-first (0.7, 0.2, 0.1): scores (12, 16, 32) -> A.
    QCOMPARE(map.at(weightsOf(WeightProfile::ThroughputFirst)).winner, std::size_t(0));
    const QString summary = QString::fromStdString(SimplexReport::summary(map, Cluster{}));
    QVERIFY2(summary.contains("over 3 kept plans: 3 distinct winners"), qPrintable(summary));
    QVERIFY2(summary.contains("safety-first (0.3, 0.5, 0.2) lies in the region of P2"), qPrintable(summary));
    QVERIFY2(summary.contains("cost unknown"), qPrintable(summary));  // the toy plans run on no priced GPU
}

// Each winner's tokens per second and cost, by hand: global batch 8 x 1000
// tokens in 1 ms is 8,000,000 tokens/s; one DGX of 8 A100 at 2.00 per GPU-hour
// costs 16 per hour, 16 / (8e6 x 3600) x 1e6 = 0.000555556 per million tokens.
void TestWeightSimplex::csvHasOneRowPerWeighting()
{
    Plan a = toy(1, 1, 4, 4);
    a.globalBatch = 8;
    a.seqLen = 1000;
    a.stages.resize(2);
    a.stages[0].layers = 3;
    a.stages[0].devices = {0, 1, 2, 3};
    a.stages[1].layers = 5;
    a.stages[1].devices = {4, 5, 6, 7};
    References ref;
    ref.variance = 1;
    const SimplexMap map = WeightSimplex::map({a}, ref);
    std::ifstream in(test::sampleCluster("homogeneous-8xa100.json"));
    nlohmann::json doc = nlohmann::json::parse(in);
    doc["gpu_types"]["A100-80GB"]["price_per_gpu_hour"] = 2.0;
    const Cluster priced = Cluster::fromJson(doc, "priced.json", GpuCatalog::builtin());
    const QStringList lines = QString::fromStdString(SimplexReport::csv(map, priced)).split('\n', Qt::SkipEmptyParts);
    QVERIFY2(lines.front().endsWith(",tokens_per_s,cost_per_hour,cost_per_million_tokens"), qPrintable(lines.front()));
    QVERIFY2(lines[1].endsWith(",8000000.0,16,0.000555556"), qPrintable(lines[1]));
    const QString summary = QString::fromStdString(SimplexReport::summary(map, priced));
    QVERIFY2(summary.contains("8000000 tokens/s, 16.00 per hour, 0.000556 per million tokens"), qPrintable(summary));
    QCOMPARE(lines.size(), 232);
    const int columns = lines.front().count(',');
    for (const QString& line : lines)
        QCOMPARE(line.count(','), columns);  // the layer list does not add columns
    QVERIFY2(lines[1].startsWith("1.00,0.00,0.00,P1,1,"), qPrintable(lines[1]));
    QVERIFY2(lines[1].contains(",3;5,"), qPrintable(lines[1]));
}

void TestWeightSimplex::refusesNothingToMap()
{
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, WeightSimplex::map({}, References{}));
}

MEMX_TEST_GUILESS_MAIN(TestWeightSimplex)
}  // namespace tst_weight_simplex

#include "tst_weight_simplex.moc"
