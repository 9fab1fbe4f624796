#pragma once

#include "search/SearchResult.h"

#include <cstddef>
#include <string>

namespace memx {

// What a search may keep under SearchOptions::maxMemoryMiB: the (T, M, V)
// sample behind the medians and ranks, the Pareto fronts, the plot's sample
// the prediction caches and the stage-row caches. Each gets a share of the budget, priced at its
// worst case (every front full, every cache full, with vector slack), and is
// kept at its default size when that fits. The search's tables and the
// program itself come on top (docs/SCALING.md measures both).
class MemoryBudget {
public:
    struct Sizes {
        std::size_t sampleBudget = 0;  // SearchOptions fields, capped
        std::size_t estimateSamples = 0;
        std::size_t frontCapacity = 0;
        std::size_t plotPoints = 0;
        std::size_t cacheEntries = 0;  // per worker: without a budget, 128 MiB of answers
        std::size_t rowCacheBytes = 0;  // per worker (StageRowCache)
        double planBytes = 0;  // the price of one kept plan
        double fixedMiB = 0;  // the top-K lists, kept whatever the budget
    };

    // The sizes for `threads` workers searching `problem`. Throws
    // std::invalid_argument naming the least budget that works when
    // maxMemoryMiB cannot hold the smallest useful sizes. Without a budget
    // (0), the options' own sizes and prediction caches of 128 MiB per worker.
    static Sizes sizes(const SearchOptions& options, const Problem& problem, int threads, std::size_t rankedProfiles);
    // The worst-case bytes of one plan of `problem` (stages, device lists, strings).
    static double planBytes(const Problem& problem);
    // One line for the report: what the budget kept and what it cut.
    static std::string describe(const SearchOptions& options, const Sizes& s);
};

}  // namespace memx
