#pragma once

#include <algorithm>
#include <utility>
#include <vector>

namespace memx {

// The value v minimising sum w_i |v - x_i| over (x_i, w_i) pairs with
// positive weights: the smallest x at which the cumulative weight reaches
// half the total. NaN-free input expected; 0 for an empty list. Used where a
// least-absolute-relative-error fit has a closed form (MemoryFit, RepeatFloor).
inline double weightedMedian(std::vector<std::pair<double, double>> points)
{
    if (points.empty())
        return 0;
    std::sort(points.begin(), points.end());
    double total = 0;
    for (const auto& p : points)
        total += p.second;
    double acc = 0;
    for (const auto& [x, w] : points) {
        acc += w;
        if (acc >= 0.5 * total)
            return x;
    }
    return points.back().first;
}

}  // namespace memx
