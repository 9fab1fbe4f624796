#include "predict/PredictionCache.h"

#include "predict/PredictionStore.h"
#include "predict/Predictor.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

namespace memx {

PredictionCache::PredictionCache(const Predictor& predictor, const PredictionStore* store)
    : predictor_(predictor)
    , store_(store)
{
}

void PredictionCache::mergeInto(PredictionStore& store) const
{
    for (const auto& e : entries_)
        store.insert(e.query, e.prediction);
}

const PredictionCache::Entry* PredictionCache::find(std::uint64_t sig, const StageQuery& q) const
{
    if (slots_.empty())
        return nullptr;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = sig & mask; slots_[i] != 0; i = (i + 1) & mask)
        if (slotSig_[i] == sig && entries_[slots_[i] - 1].query == q)
            return &entries_[slots_[i] - 1];
    return nullptr;
}

std::size_t PredictionCache::bytesPerEntry()
{
    // The entry with a vector's worst slack (x2 after a doubling), and the
    // table kept at most half full: two slots of (index, signature), doubled.
    return 2 * sizeof(Entry) + 4 * (sizeof(std::uint32_t) + sizeof(std::uint64_t));
}

void PredictionCache::insert(std::uint64_t sig, const StageQuery& q, const StagePrediction& p)
{
    if (capacity_ > 0 && entries_.size() >= capacity_) {
        entries_.clear();  // keeps the allocations: the next fill costs nothing more
        std::fill(slots_.begin(), slots_.end(), 0u);
        ++resets_;
    }
    if ((entries_.size() + 1) * 2 > slots_.size()) {
        // Grow to keep the table at most half full; re-place every entry.
        const std::size_t n = std::max<std::size_t>(1024, slots_.size() * 2);
        slots_.assign(n, 0);
        slotSig_.assign(n, 0);
        for (std::size_t k = 0; k < entries_.size(); ++k) {
            const std::uint64_t s = entries_[k].query.signature();
            std::size_t i = s & (n - 1);
            while (slots_[i] != 0)
                i = (i + 1) & (n - 1);
            slots_[i] = static_cast<std::uint32_t>(k + 1);
            slotSig_[i] = s;
        }
    }
    entries_.push_back(Entry{q, p});
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = sig & mask;
    while (slots_[i] != 0)
        i = (i + 1) & mask;
    slots_[i] = static_cast<std::uint32_t>(entries_.size());
    slotSig_[i] = sig;
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
        const Entry* hit = find(sig, queries[i]);
        if (hit) {
            out[i] = hit->prediction;
            ++hits_;
            continue;
        }
        if (store_) {
            if (const StagePrediction* p = store_->find(queries[i])) {
                out[i] = *p;
                insert(sig, queries[i], *p);
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
        insert(missSig[k], missQueries[k], answers[k]);
    for (std::size_t i = 0; i < queries.size(); ++i)
        if (slotOf[i] != SIZE_MAX)
            out[i] = answers[slotOf[i]];
}

}  // namespace memx
