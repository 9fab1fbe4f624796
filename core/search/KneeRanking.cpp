#include "search/KneeRanking.h"

#include "io/Text.h"
#include "search/ParetoKnee.h"

#include <algorithm>
#include <numeric>

namespace memx {

KneeRanking KneeRanking::of(const SearchResult& result, std::size_t topK)
{
    KneeRanking k;
    std::vector<const Plan*> plans;
    std::vector<std::pair<double, double>> front;
    for (const auto& pt : result.paretoTimeVariance.points()) {
        if (!result.constraints.admits(pt.plan))
            continue;
        plans.push_back(&pt.plan);
        front.emplace_back(pt.x, pt.y);
    }
    k.frontPlans = plans.size();
    if (plans.empty())
        return k;
    const std::vector<double> d = ParetoKnee::distances(front);
    std::vector<std::size_t> order(plans.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return d[a] > d[b]; });
    for (std::size_t i = 0; i < order.size() && k.plans.size() < topK; ++i) {
        k.plans.push_back(*plans[order[i]]);
        k.plans.back().rankPhi = k.plans.size();  // position under the balanced rule
    }
    k.reason = "the knee of the time-variance front (" + std::to_string(front.size())
        + " plans): farthest from the line between the fastest (" + Text::fmt("%.1f", front.front().first)
        + " ms) and the most balanced (" + Text::fmt("%.1f", front.back().first) + " ms) plan, at "
        + Text::fmt("%.1f", k.plans.front().iterationMs) + " ms";
    return k;
}

}  // namespace memx
