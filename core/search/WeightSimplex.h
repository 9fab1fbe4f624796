#pragma once

#include "search/Objective.h"
#include "space/Plan.h"

#include <cstddef>
#include <vector>

namespace memx {

struct SearchResult;

// Which plan wins at every weighting of Phi: a grid over the simplex
// wT + wM + wV = 1 (step 1/steps; 231 points at the default 0.05), each point
// re-ranking the kept candidates by Phi with the search's references. No new
// search: the candidates are the plans a search keeps (both Pareto fronts,
// the top lists, the plot's sample), so a winner outside them can be missed;
// `matchesSearch` says whether the map agrees with the search's own exact
// pick at the requested weights.
struct SimplexMap {
    struct Point {
        Weights weights;
        std::size_t winner = 0;  // index into plans
        double phi = 0;
    };
    std::vector<Plan> plans;  // the distinct winners, fastest first
    std::vector<std::size_t> regionSize;  // grid points each plan wins
    std::vector<Point> points;  // wT descending, then wM descending
    std::size_t candidates = 0;  // plans re-ranked at every point
    int steps = 20;

    // The grid point at these weights (rounded to the grid).
    const Point& at(const Weights& w) const;
};

class WeightSimplex {
public:
    // The map over `candidates` (duplicates by key are ignored; ties in Phi go
    // to the smaller key, as in the search's rankings). Throws
    // std::invalid_argument when there is no candidate or steps < 1.
    static SimplexMap map(const std::vector<Plan>& candidates, const References& ref, int steps = 20);
    // The plans a finished search keeps that meet its constraints (with several
    // tasks ranked each on its own, the lead task's: SearchResult::tasks).
    static std::vector<Plan> keptCandidates(const SearchResult& r);
};

}  // namespace memx
