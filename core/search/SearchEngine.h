#pragma once

#include "search/SearchResult.h"

#include <functional>

namespace memx {

// The one search API every front end uses (CLI, GUI, tests, benchmarks).
// Takes its inputs by value, reports throttled progress (at most ~10 times a
// second, from the calling thread), stops soon after `cancelled` returns true,
// and returns a value. Results do not depend on the thread count.
class SearchEngine {
public:
    using ProgressFn = std::function<void(const SearchProgress&)>;
    using CancelFn = std::function<bool()>;

    static SearchResult run(SearchRequest request, const ProgressFn& progress = {}, const CancelFn& cancelled = {});
};

}  // namespace memx
