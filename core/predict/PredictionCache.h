#pragma once

#include "predict/StageQuery.h"

#include <cstdint>
#include <vector>

namespace memx {

class Predictor;
class PredictionStore;

// Hash-signature cache in front of a predictor (MemX section 3.1.2): queries
// with the same signature are answered once. Keys are compared in full, so a
// hash collision can never return another query's answer. Not thread-safe:
// the search gives each worker its own cache.
class PredictionCache {
public:
    // `store`: predictions of earlier searches, consulted (read-only) on a
    // miss before the predictor; mergeInto() hands this cache's own answers
    // to a store afterwards.
    explicit PredictionCache(const Predictor& predictor, const PredictionStore* store = nullptr);

    // At most `entries` answers kept (0: no limit). A full cache starts
    // over empty: answers are only ever remembered, never changed, so this
    // costs predictor calls, not results. Set before the first predict().
    void setCapacity(std::size_t entries) { capacity_ = entries; }
    // Bytes one kept answer costs at most (entry, two hash slots, vector slack).
    static std::size_t bytesPerEntry();
    std::uint64_t resets() const { return resets_; }

    // Fills `out` for all queries, sending only the misses to the predictor in
    // one batch.
    void predict(const std::vector<StageQuery>& queries, std::vector<StagePrediction>& out);

    std::uint64_t hits() const { return hits_; }
    std::uint64_t storeHits() const { return storeHits_; }  // part of hits()
    std::uint64_t misses() const { return misses_; }
    std::size_t size() const { return entries_.size(); }
    void mergeInto(PredictionStore& store) const;

    const Predictor& predictor() const { return predictor_; }

private:
    struct Entry {
        StageQuery query;
        StagePrediction prediction;
    };
    const Predictor& predictor_;
    const PredictionStore* store_ = nullptr;
    // Open addressing over flat arrays: a search's cache holds hundreds of
    // thousands of entries, and a node-based map took 200 ms to destroy,
    // which a cancelled search had to wait for.
    const Entry* find(std::uint64_t sig, const StageQuery& q) const;
    void insert(std::uint64_t sig, const StageQuery& q, const StagePrediction& p);
    std::vector<Entry> entries_;
    std::vector<std::uint32_t> slots_;  // 0: empty, else index into entries_ + 1
    std::vector<std::uint64_t> slotSig_;
    std::uint64_t hits_ = 0;
    std::uint64_t misses_ = 0;
    std::uint64_t storeHits_ = 0;
    std::size_t capacity_ = 0;
    std::uint64_t resets_ = 0;
};

}  // namespace memx
