// MemX section 4.3 / Table 9: search time as the space grows along the batch
// axis (micro-batch options) and the cluster axis (the 20-GPU cluster copied
// to 40 and 60 GPUs: more PP/DP combinations, same key parameters). One
// PredictionStore runs through each axis, as the paper's cache does, so the
// counters show which extension needs new predictor calls.
// Run: build/tests/bench/bench_paper_scaling --benchmark_counters_tabular=true
#include "hardware/GpuCatalog.h"
#include "predict/PredictionStore.h"
#include "search/SearchEngine.h"

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <memory>

namespace {

// The paper's 20-GPU cluster, `copies` times: each copy's nodes keep their
// own links; copies are joined by InfiniBand at the paper's 28 GB/s.
memx::Cluster paperCluster(int copies)
{
    std::ifstream in(std::string(MEMX_SAMPLE_CLUSTERS_DIR) + "/paper-20gpu-3vendor.json");
    const nlohmann::json base = nlohmann::json::parse(in);
    nlohmann::json doc = base;
    doc["name"] = "paper-" + std::to_string(20 * copies) + "gpu";
    doc["nodes"] = nlohmann::json::array();
    doc["links"] = nlohmann::json::array();
    auto rename = [](std::string sel, int k) {
        if (k == 0)
            return sel;
        const auto colon = sel.find(':');
        return colon == std::string::npos ? sel + "-" + std::to_string(k)
                                          : sel.substr(0, colon) + "-" + std::to_string(k) + sel.substr(colon);
    };
    std::vector<std::string> names;
    for (int k = 0; k < copies; ++k) {
        for (auto node : base["nodes"]) {
            node["name"] = rename(node["name"].get<std::string>(), k);
            names.push_back(node["name"]);
            doc["nodes"].push_back(node);
        }
        for (auto link : base["links"]) {
            link["name"] = rename(link["name"].get<std::string>(), k);
            if (link.contains("within"))
                link["within"] = rename(link["within"].get<std::string>(), k);
            else
                link["between"] = {rename(link["between"][0].get<std::string>(), k),
                                   rename(link["between"][1].get<std::string>(), k)};
            if (link.contains("medium"))
                link["medium"] = link["medium"].get<std::string>() + "-" + std::to_string(k);
            doc["links"].push_back(link);
        }
    }
    const std::size_t perCopy = base["nodes"].size();
    for (std::size_t a = 0; a < names.size(); ++a)
        for (std::size_t b = a + 1; b < names.size(); ++b)
            if (a / perCopy != b / perCopy)
                doc["links"].push_back({{"name", "x-" + names[a] + "-" + names[b]},
                                        {"kind", "InfiniBand"},
                                        {"between", {names[a], names[b]}},
                                        {"bandwidth_gbps", 28},
                                        {"latency_us", 12}});
    return memx::Cluster::fromJson(doc, doc["name"].get<std::string>(), memx::GpuCatalog::builtin());
}

memx::SearchRequest request(int copies, std::vector<int> mbs, std::shared_ptr<memx::PredictionStore> store)
{
    memx::SearchRequest req;
    req.problem.cluster = paperCluster(copies);
    req.problem.model = memx::ModelSpec::resolve("llama2-7b");
    req.problem.setup.globalBatch = 128;
    req.problem.setup.microBatchSizes = std::move(mbs);
    req.store = std::move(store);
    return req;
}

void report(benchmark::State& state, const memx::SearchResult& r)
{
    state.counters["skeletons"] = static_cast<double>(r.stats.skeletons);
    state.counters["feasible"] = static_cast<double>(r.stats.feasible);
    state.counters["predictor_calls"] = static_cast<double>(r.stats.cacheMisses);
    state.counters["store_hits"] = static_cast<double>(r.stats.storeHits);
    if (!r.error.empty())
        state.SkipWithError(r.error.c_str());
}

// Batch axis: micro-batch options {1,2} (base), {1,2,4}, {1,2,4,8}, each
// search after the previous one with the same store.
void BM_Table9MicroBatchOptions(benchmark::State& state)
{
    const std::vector<std::vector<int>> axis{{1, 2}, {1, 2, 4}, {1, 2, 4, 8}};
    const int step = static_cast<int>(state.range(0));
    memx::SearchResult r;
    for (auto _ : state) {
        state.PauseTiming();
        auto store = std::make_shared<memx::PredictionStore>();
        for (int k = 0; k < step; ++k)
            memx::SearchEngine::run(request(1, axis[static_cast<std::size_t>(k)], store));
        const auto req = request(1, axis[static_cast<std::size_t>(step)], store);
        state.ResumeTiming();
        r = memx::SearchEngine::run(req);
    }
    report(state, r);
}
BENCHMARK(BM_Table9MicroBatchOptions)->DenseRange(0, 2)->ArgName("step")->Unit(benchmark::kMillisecond)->UseRealTime();

// Cluster axis: 20 (base), 40, 60 GPUs, each after the previous with the same store.
void BM_Table9ClusterScale(benchmark::State& state)
{
    const int copies = static_cast<int>(state.range(0));
    memx::SearchResult r;
    for (auto _ : state) {
        state.PauseTiming();
        auto store = std::make_shared<memx::PredictionStore>();
        for (int k = 1; k < copies; ++k)
            memx::SearchEngine::run(request(k, {1, 2}, store));
        const auto req = request(copies, {1, 2}, store);
        state.ResumeTiming();
        r = memx::SearchEngine::run(req);
    }
    report(state, r);
}
BENCHMARK(BM_Table9ClusterScale)->DenseRange(1, 3)->ArgName("copies")->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
