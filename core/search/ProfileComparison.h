#pragma once

#include "search/Objective.h"

#include <string>

namespace memx {

struct Plan;

// Spells out how one plan differs from another, the way a person compares
// the winners of two weight profiles:
// "+9.3% time, memory variance 0.13 -> 2.79 GiB^2, +2.1% peak memory, lowest headroom 21% -> 38%".
// Memory variance is often near zero (a balanced plan), where a percentage
// says nothing ("+2066%"): it is given as both values, in the units of `mode`.
struct ProfileComparison {
    static std::string differences(const Plan& base, const Plan& other, VarianceMode mode = VarianceMode::AbsoluteMiB);
};

}  // namespace memx
