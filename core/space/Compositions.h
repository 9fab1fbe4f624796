#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace memx {

// Ways to split L layers over P pipeline stages, every stage at least one
// layer (compositions of L into P parts): C(L-1, P-1).
struct Compositions {
    static std::uint64_t count(int layers, int parts);
    // Parts that must each be a multiple of `step` (interleaved schedules).
    static std::uint64_t countMultiples(int layers, int parts, int step);
    // Calls `visit` with every composition in lexicographic order.
    static void forEach(int layers, int parts, const std::function<void(const std::vector<int>&)>& visit);
    static std::uint64_t binomial(int n, int k);  // saturates at UINT64_MAX
};

}  // namespace memx
