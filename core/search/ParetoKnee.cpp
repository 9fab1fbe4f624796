#include "search/ParetoKnee.h"

#include <cmath>

namespace memx {

std::vector<double> ParetoKnee::distances(const std::vector<std::pair<double, double>>& front)
{
    std::vector<double> d(front.size(), 0.0);
    if (front.size() < 3)
        return d;
    const double x0 = front.front().first, x1 = front.back().first;
    const double y0 = front.back().second, y1 = front.front().second;  // y descends along the front
    const double dx = x1 - x0, dy = y1 - y0;
    if (!(dx > 0) || !(dy > 0))
        return d;
    for (std::size_t i = 0; i < front.size(); ++i) {
        const double x = (front[i].first - x0) / dx;  // 0 at the fastest end
        const double y = (front[i].second - y0) / dy;  // 1 at the fastest end
        // Line through (0, 1) and (1, 0): x + y = 1; points below it are the bulge.
        d[i] = (1.0 - x - y) / std::sqrt(2.0);
    }
    return d;
}

std::size_t ParetoKnee::index(const std::vector<std::pair<double, double>>& front)
{
    const std::vector<double> d = distances(front);
    std::size_t best = 0;
    for (std::size_t i = 1; i < d.size(); ++i)
        if (d[i] > d[best] + 1e-12)  // a tie (to rounding) goes to the faster point
            best = i;
    return best;
}

}  // namespace memx
