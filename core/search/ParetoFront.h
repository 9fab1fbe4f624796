#pragma once

#include "space/Plan.h"

#include <cstddef>
#include <vector>

namespace memx {

// Non-dominated plans for two minimised metrics (e.g. iteration time against
// memory variance). Ties are broken by plan key so the front is the same
// whatever order the plans arrive in.
class ParetoFront {
public:
    struct Point {
        double x = 0;
        double y = 0;
        Plan plan;
    };

    explicit ParetoFront(std::size_t capacity = 20000);

    // Cheap test before building a Plan: would a point at (x, y, key) enter?
    bool accepts(double x, double y, std::uint64_t key) const;
    void insert(double x, double y, Plan plan);
    void merge(const ParetoFront& other);

    const std::vector<Point>& points() const { return points_; }  // sorted by x
    bool truncated() const { return truncated_; }
    // For annotating the plans (Phi, ranks) after the search; metrics stay.
    template <class Fn> void forEachPlan(Fn&& fn)
    {
        for (auto& p : points_)
            fn(p.plan);
    }

private:
    static bool dominates(double ax, double ay, std::uint64_t ak, double bx, double by, std::uint64_t bk);
    std::vector<Point> points_;
    std::size_t capacity_;
    bool truncated_ = false;
};

}  // namespace memx
