#include "profile/RepeatFloor.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace memx {

RepeatFloor RepeatFloor::of(const std::vector<std::pair<std::string, double>>& measured)
{
    std::map<std::string, std::vector<double>> byKey;
    for (const auto& [key, v] : measured)
        if (v > 0 && std::isfinite(v))
            byKey[key].push_back(v);
    RepeatFloor f;
    f.configurations = byKey.size();
    double sum = 0;
    for (auto& [key, values] : byKey) {
        f.n += values.size();
        if (values.size() < 2)
            continue;
        ++f.repeated;
        // sum |c - y| / y is smallest at the median weighted by 1 / y.
        std::sort(values.begin(), values.end());
        double total = 0;
        for (double y : values)
            total += 1.0 / y;
        double acc = 0, c = values.back();
        for (double y : values) {
            acc += 1.0 / y;
            if (acc >= 0.5 * total) {
                c = y;
                break;
            }
        }
        for (double y : values)
            sum += std::abs(c - y) / y;
    }
    f.mapePct = f.n == 0 ? 0.0 : 100.0 * sum / static_cast<double>(f.n);
    return f;
}

}  // namespace memx
