#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace memx {

// The knee of a two-objective Pareto front (both minimised), the rule of the
// "balanced" profile: the front point farthest from the straight line
// between the front's two ends, with both objectives normalised to [0, 1]
// over the front (so units do not matter). The ends themselves are at
// distance 0; on a front of one or two points, or a straight one, the first
// (fastest) point is the knee. Ties go to the earlier (faster) point.
struct ParetoKnee {
    // `front`: (x, y) sorted by x ascending (y then descends). Returns the
    // knee's index; the front must not be empty.
    static std::size_t index(const std::vector<std::pair<double, double>>& front);
    // Normalised distance of each point from the line between the ends
    // (0 at the ends, at most 1/sqrt(2)).
    static std::vector<double> distances(const std::vector<std::pair<double, double>>& front);
};

}  // namespace memx
