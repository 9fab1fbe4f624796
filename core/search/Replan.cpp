#include "search/Replan.h"

#include <algorithm>

namespace memx {

SearchRequest replanRequest(const SearchRequest& request, Cluster cluster)
{
    SearchRequest again = request;
    const auto& before = request.problem.cluster.types();
    const auto& after = cluster.types();
    const bool sameTypes = before.size() == after.size()
        && std::equal(before.begin(), before.end(), after.begin(),
                      [](const GpuType& a, const GpuType& b) { return a.name == b.name; });
    if (!sameTypes)
        again.store.reset();
    again.problem.cluster = std::move(cluster);
    again.options.topK = 1;
    again.options.baselines = false;
    again.options.timeLimitS = 0;
    again.options.stopEarly = {};
    again.compareProfiles.clear();
    return again;
}

}  // namespace memx
