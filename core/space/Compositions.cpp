#include "space/Compositions.h"

#include <limits>

namespace memx {

std::uint64_t Compositions::binomial(int n, int k)
{
    if (k < 0 || n < 0 || k > n)
        return 0;
    if (k > n - k)
        k = n - k;
    __extension__ typedef unsigned __int128 u128;
    u128 r = 1;
    for (int i = 1; i <= k; ++i) {
        r = r * static_cast<unsigned>(n - k + i) / static_cast<unsigned>(i);
        if (r > std::numeric_limits<std::uint64_t>::max())
            return std::numeric_limits<std::uint64_t>::max();
    }
    return static_cast<std::uint64_t>(r);
}

std::uint64_t Compositions::count(int layers, int parts)
{
    if (parts <= 0 || layers < parts)
        return 0;
    return binomial(layers - 1, parts - 1);
}

std::uint64_t Compositions::countMultiples(int layers, int parts, int step)
{
    if (step <= 0 || layers % step != 0)
        return 0;
    return count(layers / step, parts);
}

namespace {
void recurse(int left, int parts, std::vector<int>& cur, const std::function<void(const std::vector<int>&)>& visit)
{
    if (parts == 1) {
        cur.push_back(left);
        visit(cur);
        cur.pop_back();
        return;
    }
    for (int n = 1; n <= left - (parts - 1); ++n) {
        cur.push_back(n);
        recurse(left - n, parts - 1, cur, visit);
        cur.pop_back();
    }
}
}  // namespace

void Compositions::forEach(int layers, int parts, const std::function<void(const std::vector<int>&)>& visit)
{
    if (parts <= 0 || layers < parts)
        return;
    std::vector<int> cur;
    recurse(layers, parts, cur, visit);
}

}  // namespace memx
