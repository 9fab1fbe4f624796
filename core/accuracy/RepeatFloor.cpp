#include "accuracy/RepeatFloor.h"

#include "io/Statistics.h"

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
        std::vector<std::pair<double, double>> points;
        for (double y : values)
            points.emplace_back(y, 1.0 / y);
        const double c = Statistics::weightedMedian(std::move(points));
        for (double y : values)
            sum += std::abs(c - y) / y;
    }
    f.mapePct = f.n == 0 ? 0.0 : 100.0 * sum / static_cast<double>(f.n);
    return f;
}

}  // namespace memx
