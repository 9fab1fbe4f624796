// The cost of one XgboostModel::predict call: one row against a batch of
// 10,000, with XGBoost's default threads and with one (TOOLCHAIN.md: one
// thread is best for one-row calls). Moved here from tst_xgboost_model, where
// it measured without asserting anything.
//
//     build/tests/bench/bench_xgboost --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include "predict/XgboostModel.h"

#include <benchmark/benchmark.h>

#include <memory>
#include <random>
#include <vector>

using memx::XgboostModel;

namespace {

// t = 3x + y, m = x * y on a 21 x 21 grid, a third column of noise: the
// synthetic booster of tst_xgboost_model (400 trees, depth 6 by default).
XgboostModel& model(int threads)
{
    static std::unique_ptr<XgboostModel> byDefault, single;
    auto& slot = threads == 1 ? single : byDefault;
    if (!slot) {
        std::vector<float> features, labels;
        std::mt19937 rng(7);
        std::uniform_real_distribution<float> noise(0.0f, 1.0f);
        for (int i = 0; i <= 20; ++i)
            for (int j = 0; j <= 20; ++j) {
                const float x = static_cast<float>(i) / 20.0f, y = static_cast<float>(j) / 20.0f;
                features.insert(features.end(), {x, y, noise(rng)});
                labels.insert(labels.end(), {3 * x + y, x * y});
            }
        slot = std::make_unique<XgboostModel>(
            XgboostModel::train(features, 441, 3, labels, XgboostModel::TrainParams()));
        if (threads == 1)
            slot->setThreads(1);
    }
    return *slot;
}

void BM_Predict(benchmark::State& state)
{
    const auto rows = static_cast<std::size_t>(state.range(0));
    const XgboostModel& m = model(static_cast<int>(state.range(1)));
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    std::vector<float> features(3 * rows), out(2 * rows);
    for (float& v : features)
        v = u(rng);
    for (auto _ : state) {
        m.predict(features.data(), rows, 3, out.data());
        benchmark::DoNotOptimize(out.data());
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * rows));
}

}  // namespace

// (rows per call, threads: 0 = XGBoost's default, 1 = one)
BENCHMARK(BM_Predict)->ArgNames({"rows", "threads"})->Args({1, 0})->Args({1, 1})->Args({10000, 0})->Args({10000, 1});

BENCHMARK_MAIN();
