#pragma once

#include "search/WeightSimplex.h"

#include <string>

namespace memx {

// The weight-simplex map as a CSV (one row per grid point: the weights, the
// winning plan and its T, M, V, Phi) and as a few report lines: how many
// distinct plans win, how far apart they are, and how wide the paper's three
// profiles' regions are.
struct SimplexReport {
    static std::string csv(const SimplexMap& map);
    static std::string summary(const SimplexMap& map);
};

}  // namespace memx
