// Search time at cluster scale (issue: 32 / 128 / 512 GPUs of 8-GPU nodes,
// types cycling A100-80GB, H20, Ascend-910B, H100-SXM), and how fast a
// running search stops when cancelled. The clusters are generated here
// (ClusterGenerator, as `memx-cli generate-cluster` writes them).
// Run: build/tests/bench/bench_scaling --benchmark_repetitions=3
//      (add --benchmark_filter=512 for the 64-node case, which is slow)
#include "hardware/ClusterGenerator.h"
#include "hardware/GpuCatalog.h"
#include "search/SearchEngine.h"

#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace {

memx::SearchRequest scaleRequest(int nodes, const char* model, int gbs, int maxPp,
                                 memx::MeshMode meshes = memx::MeshMode::Uniform)
{
    memx::ClusterGenerator::Spec spec;
    spec.name = std::to_string(nodes * 8) + "gpu";
    spec.nodes = nodes;
    spec.types = {"A100-80GB", "H20", "Ascend-910B", "H100-SXM"};
    memx::SearchRequest req;
    req.problem.cluster
        = memx::Cluster::fromJson(memx::ClusterGenerator::generate(spec), spec.name, memx::GpuCatalog::builtin());
    req.problem.model = memx::ModelSpec::resolve(model);
    req.problem.setup.globalBatch = gbs;
    req.problem.setup.maxPipelineStages = maxPp;
    req.problem.setup.meshes = meshes;
    return req;
}

void runSearch(benchmark::State& state, const memx::SearchRequest& req)
{
    memx::SearchResult r;
    for (auto _ : state) {
        r = memx::SearchEngine::run(req);
        benchmark::DoNotOptimize(r.best.data());
    }
    state.counters["skeletons"] = static_cast<double>(r.stats.skeletons);
    state.counters["feasible"] = static_cast<double>(r.stats.feasible);
    state.counters["bb_nodes"] = static_cast<double>(r.stats.searchNodes);
    state.counters["composed"] = static_cast<double>(r.stats.explored + r.stats.phase2Evaluated);
    state.counters["front_tv"] = static_cast<double>(r.paretoTimeVariance.points().size());
    if (!r.error.empty())
        state.SkipWithError(r.error.c_str());
}

void BM_Scale32Gpus(benchmark::State& state) { runSearch(state, scaleRequest(4, "llama2-70b", 512, 8)); }
BENCHMARK(BM_Scale32Gpus)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

void BM_Scale128Gpus(benchmark::State& state) { runSearch(state, scaleRequest(16, "llama2-70b", 1024, 16)); }
BENCHMARK(BM_Scale128Gpus)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

void BM_Scale512Gpus(benchmark::State& state) { runSearch(state, scaleRequest(64, "llama3-70b", 2048, 16)); }
BENCHMARK(BM_Scale512Gpus)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

// Per-type meshes (issue #32's budgets: 128 GPUs < 10 s, 512 GPUs < 30 s on
// 2 cores); the default cap searches the 12,000 mesh choices of the lowest
// time bounds out of 1.4-1.6 million.
void BM_PerType128Gpus(benchmark::State& state)
{
    runSearch(state, scaleRequest(16, "llama2-70b", 1024, 16, memx::MeshMode::PerType));
}
BENCHMARK(BM_PerType128Gpus)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

void BM_PerType512Gpus(benchmark::State& state)
{
    runSearch(state, scaleRequest(64, "llama3-70b", 2048, 16, memx::MeshMode::PerType));
}
BENCHMARK(BM_PerType512Gpus)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

// From the cancel request to SearchEngine::run returning, on the 128-GPU
// search, cancelled `state.range(0)` ms after it started.
void BM_CancelLatency128Gpus(benchmark::State& state)
{
    const auto req = scaleRequest(16, "llama2-70b", 1024, 16);
    for (auto _ : state) {
        std::atomic<bool> cancel{false};
        std::chrono::steady_clock::time_point asked;
        std::thread stopper([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(state.range(0)));
            asked = std::chrono::steady_clock::now();
            cancel = true;
        });
        auto r = memx::SearchEngine::run(req, {}, [&] { return cancel.load(); });
        const auto returned = std::chrono::steady_clock::now();
        stopper.join();
        state.SetIterationTime(std::chrono::duration<double>(returned - asked).count());
        if (!r.cancelled)
            state.SkipWithError("search finished before the cancel");
    }
}
BENCHMARK(BM_CancelLatency128Gpus)
    ->Arg(300)
    ->Arg(1500)
    ->Arg(4000)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime()
    ->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
