#pragma once

#include "search/SearchResult.h"

#include <cstddef>
#include <string>
#include <vector>

namespace memx {

// The balanced profile's ranking of a search's results: the plans of its
// time-variance front that meet its constraints, ordered by their distance
// from the line between the front's ends, knee first (ParetoKnee). The
// search ranks this way when the balanced profile is chosen; the workbench
// ranks a result it has this way when the user switches to it afterwards,
// without a new search (the front is all it needs).
struct KneeRanking {
    std::vector<Plan> plans;  // at most topK, knee first; rankPhi is the position
    std::size_t frontPlans = 0;  // front plans that meet the constraints
    std::string reason;  // "the knee of the time-variance front (N plans): ..."

    // Empty `plans` when no front plan meets the constraints.
    static KneeRanking of(const SearchResult& result, std::size_t topK);
};

}  // namespace memx
