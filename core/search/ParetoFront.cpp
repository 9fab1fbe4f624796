#include "search/ParetoFront.h"

#include <algorithm>

namespace memx {

ParetoFront::ParetoFront(std::size_t capacity) : capacity_(capacity) { }

bool ParetoFront::dominates(double ax, double ay, std::uint64_t ak, double bx, double by, std::uint64_t bk)
{
    if (ax > bx || ay > by)
        return false;
    if (ax < bx || ay < by)
        return true;
    return ak < bk;  // identical metrics: the smaller key stays
}

bool ParetoFront::accepts(double x, double y, std::uint64_t key) const
{
    // points_ is sorted by x ascending with y strictly descending; only points
    // with px <= x can dominate, and of those the last has the smallest y.
    auto it = std::upper_bound(points_.begin(), points_.end(), x, [](double v, const Point& p) { return v < p.x; });
    if (it == points_.begin())
        return true;
    const Point& p = *(it - 1);
    if (p.x == x && p.y == y && p.plan.key == key)
        return false;  // this very plan, offered again
    return !dominates(p.x, p.y, p.plan.key, x, y, key);
}

void ParetoFront::insert(double x, double y, Plan plan)
{
    if (!accepts(x, y, plan.key))
        return;
    std::uint64_t key = plan.key;
    points_.erase(std::remove_if(points_.begin(), points_.end(),
                                 [&](const Point& p) { return dominates(x, y, key, p.x, p.y, p.plan.key); }),
                  points_.end());
    auto pos = std::lower_bound(points_.begin(), points_.end(), x, [](const Point& p, double v) { return p.x < v; });
    points_.insert(pos, Point{x, y, std::move(plan)});
    if (points_.size() > capacity_) {
        // Keep the extremes and thin the middle evenly; flagged to the user.
        truncated_ = true;
        std::vector<Point> kept;
        std::size_t n = points_.size();
        for (std::size_t i = 0; i < n; i += 2)
            kept.push_back(std::move(points_[i]));
        if ((n - 1) % 2 != 0)
            kept.push_back(std::move(points_[n - 1]));
        points_ = std::move(kept);
    }
}

void ParetoFront::merge(const ParetoFront& other)
{
    for (const auto& p : other.points_)
        insert(p.x, p.y, p.plan);
    truncated_ = truncated_ || other.truncated_;
}

}  // namespace memx
