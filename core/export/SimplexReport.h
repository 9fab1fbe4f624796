#pragma once

#include "hardware/Cluster.h"
#include "search/WeightSimplex.h"

#include <string>

namespace memx {

// The weight-simplex map as a CSV (one row per grid point: the weights, the
// winning plan and its T, M, V, Phi) and as a few report lines: how many
// distinct plans win, how far apart they are, and how wide the paper's three
// profiles' regions are.
struct SimplexReport {
    // Each winner's tokens per second and cost (PlanCost) come from `cluster`.
    static std::string csv(const SimplexMap& map, const Cluster& cluster);
    static std::string summary(const SimplexMap& map, const Cluster& cluster);
};

}  // namespace memx
