#pragma once

#include <algorithm>
#include <utility>
#include <vector>

namespace memx {

// The (x, y) points of a Pareto front of two minimised metrics, without their
// plans: what pruning needs, cheap to copy between search threads.
class Staircase {
public:
    void insert(double x, double y)
    {
        if (covers(x, y) || std::binary_search(points_.begin(), points_.end(), std::make_pair(x, y)))
            return;
        std::erase_if(points_, [&](const std::pair<double, double>& p) { return x <= p.first && y <= p.second; });
        points_.insert(std::lower_bound(points_.begin(), points_.end(), std::make_pair(x, y)), {x, y});
    }
    // True when every point at or above (x, y) in both metrics is dominated:
    // some point is no worse in both and better in one.
    bool covers(double x, double y) const
    {
        auto it = std::upper_bound(points_.begin(), points_.end(), x,
                                   [](double v, const std::pair<double, double>& p) { return v < p.first; });
        if (it == points_.begin())
            return false;
        --it;
        return it->second <= y && (it->first < x || it->second < y);
    }

private:
    std::vector<std::pair<double, double>> points_;  // x ascending, y strictly descending
};

}  // namespace memx
