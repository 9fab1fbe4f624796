// The ranking metrics `evaluate` and `accuracy` compute per group of runs
// (issue #37 item 6: every metric linear or n log n in its input). Kendall's
// tau once counted every pair: 400 k rows in one group took over a minute.
// Run: build/tests/bench/bench_metrics
#include "accuracy/AccuracyMetrics.h"

#include <benchmark/benchmark.h>

#include <random>
#include <vector>

namespace {

void data(std::size_t n, std::vector<double>& a, std::vector<double>& b)
{
    std::mt19937 rng(11);
    std::uniform_int_distribution<int> pick(0, 1000);  // ties, as measured times have
    a.resize(n);
    b.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        a[i] = pick(rng);
        b[i] = a[i] + pick(rng) * 0.3;
    }
}

void BM_KendallTau(benchmark::State& state)
{
    std::vector<double> a, b;
    data(static_cast<std::size_t>(state.range(0)), a, b);
    for (auto _ : state)
        benchmark::DoNotOptimize(memx::AccuracyMetrics::kendallTau(a, b));
    state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_KendallTau)
    ->RangeMultiplier(10)
    ->Range(1000, 400000)
    ->Arg(400000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

void BM_Spearman(benchmark::State& state)
{
    std::vector<double> a, b;
    data(static_cast<std::size_t>(state.range(0)), a, b);
    for (auto _ : state)
        benchmark::DoNotOptimize(memx::AccuracyMetrics::spearman(a, b));
    state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_Spearman)
    ->RangeMultiplier(10)
    ->Range(1000, 400000)
    ->Arg(400000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

}  // namespace

BENCHMARK_MAIN();
