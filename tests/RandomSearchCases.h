#pragma once
// Random small search problems where brute force is quick, and the check that
// the pruned search returns exactly what brute force does (tst_search_exactness,
// tst_per_type_exactness).

#include "TestPlanKeys.h"

#include "hardware/GpuCatalog.h"
#include "search/SearchEngine.h"

#include <QtTest>

#include <random>

namespace memx::test {

struct Case {
    SearchRequest request;
    QString label;
};

// A random cluster of 2-4 nodes with 1-2 GPU types each, NVLink or PCIe
// inside, InfiniBand or Ethernet between; a random small LLaMA-shaped model;
// random setup and objective. Sizes are chosen so brute force stays quick.
inline Case randomCase(unsigned seed)
{
    std::mt19937 rng(seed);
    auto pick
        = [&](auto const& list) { return list[std::uniform_int_distribution<std::size_t>(0, list.size() - 1)(rng)]; };
    auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const std::vector<std::string> types{"A100-80GB", "H20", "Ascend-910B", "V100-32GB", "T4", "H100-SXM", "A10G"};
    nlohmann::json doc{{"format", "memx-cluster/1"}, {"name", "random-" + std::to_string(seed)}};
    doc["nodes"] = nlohmann::json::array();
    doc["links"] = nlohmann::json::array();
    const int nodes = uniform(2, 4);
    const std::string shared = pick(types);  // some nodes share a type, so stages can span nodes
    for (int n = 0; n < nodes; ++n) {
        const std::string name = "n" + std::to_string(n);
        const int count = pick(std::vector<int>{2, 4, 4});
        nlohmann::json gpus = nlohmann::json::array();
        gpus.push_back({{"type", uniform(0, 2) ? shared : pick(types)}, {"count", count}});
        if (uniform(0, 4) == 0)
            gpus.push_back({{"type", pick(types)}, {"count", 2}});
        doc["nodes"].push_back({{"name", name}, {"gpus", gpus}});
        const bool nvlink = uniform(0, 1);
        doc["links"].push_back({{"name", name + "-fabric"},
                                {"kind", nvlink ? "NVLink" : "PCIe"},
                                {"within", name},
                                {"bandwidth_gbps", nvlink ? 200 : 16},
                                {"shared", !nvlink}});
        for (int m = 0; m < n; ++m)
            doc["links"].push_back({{"name", "net" + std::to_string(m) + name},
                                    {"kind", uniform(0, 1) ? "InfiniBand" : "Ethernet"},
                                    {"between", {"n" + std::to_string(m), name}},
                                    {"bandwidth_gbps", pick(std::vector<int>{12, 25, 50})},
                                    {"medium", uniform(0, 1) ? "fabric" : "net" + std::to_string(m) + name}});
    }
    Case c;
    SearchRequest& req = c.request;
    req.problem.cluster = Cluster::fromJson(doc, "random", GpuCatalog::builtin());
    ModelSpec m = ModelSpec::resolve("llama2-7b");
    m.name = "random-model";
    m.numLayers = pick(std::vector<int>{6, 8, 10, 12});
    m.hidden = pick(std::vector<int>{1024, 2048, 4096});
    m.heads = 16;
    m.headDim = m.hidden / m.heads;
    m.queryGroups = pick(std::vector<int>{4, 16});
    m.ffnHidden = m.hidden * 8 / 3 / 256 * 256 + 256;
    m.seqLen = pick(std::vector<int>{2048, 4096});
    req.problem.model = m;
    req.problem.setup.globalBatch = pick(std::vector<int>{16, 32, 64});
    req.problem.setup.microBatchSizes = {1, 2};
    req.problem.setup.maxPipelineStages = uniform(2, 6);
    req.problem.setup.schedule
        = pick(std::vector<ScheduleMode>{ScheduleMode::Auto, ScheduleMode::Both, ScheduleMode::OneF1B});
    req.problem.setup.recompute
        = pick(std::vector<RecomputeMode>{RecomputeMode::Policy, RecomputeMode::Policy, RecomputeMode::Enumerate,
                                          RecomputeMode::UniformFull});
    req.problem.setup.placement = uniform(0, 3) ? PlacementMode::Contiguous : PlacementMode::All;
    req.problem.setup.distributedOptimizer = uniform(0, 3) != 0;
    // Uniform meshes, as these cases were drawn for; tst_per_type_exactness
    // sets per-type on the same cases.
    req.problem.setup.meshes = MeshMode::Uniform;
    req.objective.profile = pick(std::vector<WeightProfile>{WeightProfile::Default, WeightProfile::SafetyFirst,
                                                            WeightProfile::ThroughputFirst, WeightProfile::Auto});
    req.objective.variance = uniform(0, 2) ? VarianceMode::AbsoluteMiB : VarianceMode::Utilisation;
    req.compareProfiles = {WeightProfile::Default, WeightProfile::SafetyFirst, WeightProfile::ThroughputFirst};
    req.options.topK = 10;
    // Odd seeds take the path of large spaces: fronts from the branch and
    // bound, references from a stratified sample (a budget of 0 forces it).
    if (seed % 2 == 1) {
        req.options.sampleBudget = 0;
        req.options.estimateSamples = 500;
    }
    c.label = QString("seed %1: %2 nodes, %3 layers, max-pp %4, %5, %6%7")
                  .arg(seed)
                  .arg(nodes)
                  .arg(m.numLayers)
                  .arg(req.problem.setup.maxPipelineStages)
                  .arg(toString(req.problem.setup.recompute))
                  .arg(toString(req.problem.setup.placement))
                  .arg(seed % 2 == 1 ? ", sampled" : "");
    return c;
}

inline QStringList profileKeys(const SearchResult& r)
{
    QStringList out;
    for (const auto& pb : r.profilePicks)
        out << QString(toString(pb.kind)) + ":" + QString::number(pb.plan.key);
    return out;
}

// Brute force on one thread, then the pruned search on 1 and 3 threads:
// the same best plans, fastest plans, fronts, feasible count and references.
inline void compareWithBruteForce(SearchRequest req)
{
    req.options.threads = 1;
    req.options.prune = false;
    const SearchResult brute = SearchEngine::run(req);
    if (!brute.error.empty()) {
        // Then the pruned search must fail the same way.
        req.options.prune = true;
        QCOMPARE(QString::fromStdString(SearchEngine::run(req).error), QString::fromStdString(brute.error));
        return;
    }
    for (int threads : {1, 3}) {
        req.options.prune = true;
        req.options.threads = threads;
        const SearchResult pruned = SearchEngine::run(req);
        QVERIFY2(pruned.error.empty(), pruned.error.c_str());
        QCOMPARE(pruned.stats.feasible, brute.stats.feasible);
        QCOMPARE(pruned.references.time, brute.references.time);
        QCOMPARE(pruned.references.variance, brute.references.variance);
        QCOMPARE(keysWithPhi(pruned.best), keysWithPhi(brute.best));
        QCOMPARE(keysWithPhi(pruned.fastest), keysWithPhi(brute.fastest));
        QCOMPARE(profileKeys(pruned), profileKeys(brute));
        QCOMPARE(frontKeys(pruned.paretoTimeVariance), frontKeys(brute.paretoTimeVariance));
        QCOMPARE(frontKeys(pruned.paretoTimeMemory), frontKeys(brute.paretoTimeMemory));
        // Pruning did cut something, or the space was tiny.
        QVERIFY(pruned.stats.phase2Evaluated <= brute.stats.phase2Evaluated);
    }
}

}  // namespace memx::test
