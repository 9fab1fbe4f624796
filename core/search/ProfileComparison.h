#pragma once

#include <string>

namespace memx {

struct Plan;

// Spells out how one plan differs from another, the way a person compares
// the winners of two weight profiles:
// "+9.3% time, -54% memory variance, +2.1% peak memory, lowest headroom 21% -> 38%".
struct ProfileComparison {
    static std::string differences(const Plan& base, const Plan& other);
};

}  // namespace memx
