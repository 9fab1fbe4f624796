#include "predict/PredictionCache.h"

#include "predict/PredictionStore.h"
#include "predict/Predictor.h"

#include <cstdint>

namespace memx {

PredictionCache::PredictionCache(const Predictor& predictor, const PredictionStore* store)
    : predictor_(predictor), store_(store)
{
}

void PredictionCache::mergeInto(PredictionStore& store) const
{
    for (const auto& [sig, e] : entries_) store.insert(e.query, e.prediction);
}

void PredictionCache::predict(const std::vector<StageQuery>& queries, std::vector<StagePrediction>& out)
{
    out.assign(queries.size(), StagePrediction{});
    std::vector<StageQuery> missQueries;
    std::vector<std::uint64_t> missSig;
    std::vector<std::size_t> slotOf(queries.size(), SIZE_MAX);  // index into missQueries, or SIZE_MAX
    std::unordered_multimap<std::uint64_t, std::size_t> pending;
    for (std::size_t i = 0; i < queries.size(); ++i) {
        const std::uint64_t sig = queries[i].signature();
        const Entry* hit = nullptr;
        auto range = entries_.equal_range(sig);
        for (auto it = range.first; it != range.second && !hit; ++it)
            if (it->second.query == queries[i])
                hit = &it->second;
        if (hit) {
            out[i] = hit->prediction;
            ++hits_;
            continue;
        }
        if (store_) {
            if (const StagePrediction* p = store_->find(queries[i])) {
                out[i] = *p;
                entries_.emplace(sig, Entry{queries[i], *p});
                ++hits_;
                ++storeHits_;
                continue;
            }
        }
        // A repeat inside this same batch is predicted once as well.
        auto prange = pending.equal_range(sig);
        for (auto it = prange.first; it != prange.second; ++it)
            if (missQueries[it->second] == queries[i])
                slotOf[i] = it->second;
        if (slotOf[i] != SIZE_MAX) {
            ++hits_;
            continue;
        }
        ++misses_;
        slotOf[i] = missQueries.size();
        pending.emplace(sig, missQueries.size());
        missQueries.push_back(queries[i]);
        missSig.push_back(sig);
    }
    if (missQueries.empty())
        return;
    std::vector<StagePrediction> answers(missQueries.size());
    predictor_.predict(missQueries, answers);
    for (std::size_t k = 0; k < missQueries.size(); ++k)
        entries_.emplace(missSig[k], Entry{missQueries[k], answers[k]});
    for (std::size_t i = 0; i < queries.size(); ++i)
        if (slotOf[i] != SIZE_MAX)
            out[i] = answers[slotOf[i]];
}

}  // namespace memx
