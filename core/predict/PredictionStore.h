#pragma once

#include "predict/StageQuery.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace memx {

class PredictionCache;
class Predictor;
class Cluster;
struct ModelSpec;

// What every prediction in a store was made for. The store is emptied when
// any of it changes: the paper's invalidation conditions (MemX 3.1.2: the
// set of GPU types with their definitions, the model structure, the global
// batch size) plus a change of predictor. Adding nodes of known types,
// changing the objective or the search options keeps it.
struct PredictionContext {
    std::vector<std::string> gpuTypes;  // one definition string per type, sorted
    std::string model;  // structure: layers, hidden, heads, head dim, groups, ffn, vocab, seq
    int globalBatch = 0;
    std::string predictor;  // name and identity of the predictor object

    static PredictionContext of(const Cluster& cluster, const ModelSpec& model, int globalBatch,
                                const Predictor& predictor);
    bool operator==(const PredictionContext&) const = default;
};

// Stage predictions kept across searches (MemX's hash-signature cache at the
// scope the paper uses it: a sequence of searches that extend the space).
// Keys are the queries with the GPU type identified by name, so a search on
// a larger cluster of the same types finds the entries of a smaller one.
// Reads are thread-safe while nobody writes; the search reads it from its
// workers and merges their new entries after they have finished.
class PredictionStore {
public:
    // Makes `context` current; empties the store when it differs from the
    // previous one. Returns true when entries were dropped.
    bool use(const PredictionContext& context);

    const StagePrediction* find(const StageQuery& q) const;
    void insert(const StageQuery& q, const StagePrediction& p);

    std::size_t size() const { return entries_.size(); }
    std::uint64_t invalidations() const { return invalidations_; }
    const PredictionContext& context() const { return context_; }

private:
    struct Entry {
        std::string gpuName;
        StageQuery query;  // gpu pointer cleared
        StagePrediction prediction;
    };

    PredictionContext context_;
    bool hasContext_ = false;
    std::unordered_multimap<std::uint64_t, Entry> entries_;
    std::uint64_t invalidations_ = 0;
};

}  // namespace memx
