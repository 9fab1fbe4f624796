// The shape of MemX Table 9 / Figure 6: with predictions kept across searches
// (PredictionStore), extending the cluster (more nodes of the same types: only
// more PP/DP combinations) costs almost no new predictor calls, while adding
// micro-batch options (a key performance parameter) costs new calls linearly.
// The predictor is a learned one (XGBoost), whose calls are what the cache saves.
// Run: build/tests/bench/bench_cache --benchmark_counters_tabular=true
#include "TestClusters.h"
#include "hardware/GpuCatalog.h"
#include "predict/AnalyticPredictor.h"
#include "predict/LearnedPredictor.h"
#include "predict/PredictionStore.h"
#include "search/SearchEngine.h"

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <memory>

namespace {

memx::Cluster a100Nodes(int nodes) { return memx::test::uniformNodes(nodes, 8, "A100-80GB"); }

// A learned predictor fitted to 10% above the analytic model: what it learns
// does not matter here, what its calls cost does. A fresh one (empty memo)
// per measured search; never kept in a static (XgboostModel.h says why).
std::shared_ptr<const memx::LearnedPredictor> learned()
{
    return [] {
        const memx::Cluster c = a100Nodes(1);
        const memx::AnalyticPredictor analytic;
        std::vector<memx::StageQuery> q;
        for (int tp : {1, 2, 4, 8})
            for (int layers : {2, 8, 16, 32})
                for (int mbs : {1, 2, 4, 8}) {
                    memx::StageQuery s;
                    s.gpu = &c.types()[0];
                    s.tp = tp;
                    s.layers = layers;
                    s.microBatch = mbs;
                    s.seqLen = 4096;
                    s.hidden = 4096;
                    s.heads = 32;
                    s.headDim = 128;
                    s.queryGroups = 32;
                    s.ffnHidden = 11008;
                    s.vocab = 32000;
                    s.tpLinkGBps = tp > 1 ? 240 : 0;
                    q.push_back(s);
                }
        std::vector<memx::StagePrediction> a(q.size());
        analytic.predict(q, a);
        std::vector<double> t, m;
        for (const auto& x : a) {
            t.push_back(x.timeMs * 1.1);
            m.push_back(x.memoryMiB() * 1.1);
        }
        memx::XgboostModel::TrainParams params;
        params.rounds = 100;
        return std::make_shared<const memx::LearnedPredictor>(memx::LearnedPredictor::fit(q, t, m, params));
    }();
}

memx::SearchRequest request(int nodes, std::vector<int> mbs)
{
    memx::SearchRequest req;
    req.problem.cluster = a100Nodes(nodes);
    req.problem.model = memx::ModelSpec::resolve("llama2-7b");
    req.problem.setup.globalBatch = 128;
    req.problem.setup.microBatchSizes = std::move(mbs);
    req.problem.setup.maxPipelineStages = 8;
    req.options.threads = 1;
    return req;
}

void report(benchmark::State& state, const memx::SearchResult& r, const memx::LearnedPredictor& p, std::uint64_t before)
{
    state.counters["booster_rows"] = static_cast<double>(p.boosterRows() - before);
    state.counters["configs"] = static_cast<double>(r.stats.explored);
    state.counters["predictor_calls"] = static_cast<double>(r.stats.cacheMisses);
    state.counters["from_store"] = static_cast<double>(r.stats.storeHits);
}

// Cluster extension: 1 node is the base; each search of N nodes starts from
// the store the base search left (warm) or from nothing (cold).
void BM_ExtendCluster(benchmark::State& state)
{
    const int nodes = static_cast<int>(state.range(0));
    const bool warm = state.range(1) != 0;
    memx::SearchResult last;
    std::shared_ptr<const memx::LearnedPredictor> p;
    std::uint64_t before = 0;
    for (auto _ : state) {
        state.PauseTiming();
        p = learned();
        auto store = std::make_shared<memx::PredictionStore>();
        if (warm) {
            auto base = request(1, {1, 2, 4});
            base.predictor = p;
            base.store = store;
            memx::SearchEngine::run(base);
        }
        before = p->boosterRows();
        auto req = request(nodes, {1, 2, 4});
        req.predictor = warm ? p : learned();
        req.store = warm ? store : nullptr;
        if (!warm) {
            p = std::static_pointer_cast<const memx::LearnedPredictor>(req.predictor);
            before = 0;
        }
        state.ResumeTiming();
        last = memx::SearchEngine::run(req);
    }
    report(state, last, *p, before);
}
BENCHMARK(BM_ExtendCluster)
    ->ArgsProduct({{1, 2, 3, 4}, {0, 1}})
    ->ArgNames({"nodes", "warm"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Micro-batch extension: the base searches micro-batch 1; each search adds
// options on top of the warm store. Every new option is new predictor calls.
void BM_ExtendMicroBatch(benchmark::State& state)
{
    const int options = static_cast<int>(state.range(0));
    std::vector<int> mbs;
    for (int k = 0; k < options; ++k)
        mbs.push_back(1 << k);
    memx::SearchResult last;
    std::shared_ptr<const memx::LearnedPredictor> p;
    std::uint64_t before = 0;
    for (auto _ : state) {
        state.PauseTiming();
        p = learned();
        auto store = std::make_shared<memx::PredictionStore>();
        auto base = request(2, {1});
        base.predictor = p;
        base.store = store;
        memx::SearchEngine::run(base);
        before = p->boosterRows();
        auto req = request(2, mbs);
        req.predictor = p;
        req.store = store;
        state.ResumeTiming();
        last = memx::SearchEngine::run(req);
    }
    report(state, last, *p, before);
}
BENCHMARK(BM_ExtendMicroBatch)->DenseRange(1, 4)->ArgName("mbs_options")->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
