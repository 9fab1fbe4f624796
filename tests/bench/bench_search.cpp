// Search throughput on the paper's 20-GPU cluster (MemX Table 5: 31,240
// configurations in 26.5 s). Run: build/tests/bench/bench_search
#include "search/SearchEngine.h"

#include <benchmark/benchmark.h>

namespace {

memx::SearchRequest paperRequest(int threads, bool enumerate)
{
    memx::SearchRequest req;
    req.problem.cluster = memx::Cluster::fromFile(std::string(MEMX_SAMPLE_CLUSTERS_DIR) + "/paper-20gpu-3vendor.json");
    req.problem.model = memx::ModelSpec::resolve("llama2-7b");
    req.problem.setup.globalBatch = 128;
    if (enumerate)
        req.problem.setup.recompute = memx::RecomputeMode::Enumerate;
    req.options.threads = threads;
    return req;
}

void BM_SearchPaperCluster(benchmark::State& state)
{
    const auto req = paperRequest(static_cast<int>(state.range(0)), state.range(1) != 0);
    std::uint64_t candidates = 0;
    for (auto _ : state) {
        auto r = memx::SearchEngine::run(req);
        candidates += r.stats.explored + r.stats.phase2Evaluated;
        benchmark::DoNotOptimize(r.best.data());
    }
    state.counters["candidates/s"] = benchmark::Counter(static_cast<double>(candidates), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SearchPaperCluster)->Args({1, 0})->Args({2, 0})->Unit(benchmark::kMillisecond)->UseRealTime();

// A space the size of the paper's (about 31k candidates): llama2-7b, PP <= 4.
void BM_SearchPaperSizedSpace(benchmark::State& state)
{
    auto req = paperRequest(static_cast<int>(state.range(0)), false);
    req.problem.setup.maxPipelineStages = 2;
    req.problem.setup.microBatchSizes = {1, 2, 4, 8};
    req.problem.setup.seqLens = {1024, 2048, 4096};
    req.problem.setup.recompute = memx::RecomputeMode::Enumerate;
    std::uint64_t candidates = 0;
    for (auto _ : state) {
        auto r = memx::SearchEngine::run(req);
        candidates = r.stats.explored;
        benchmark::DoNotOptimize(r.best.data());
    }
    state.counters["candidates"] = static_cast<double>(candidates);
}
BENCHMARK(BM_SearchPaperSizedSpace)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
