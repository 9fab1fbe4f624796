#include "io/Statistics.h"

#include <algorithm>

namespace memx {

double Statistics::variance(const std::vector<double>& values)
{
    if (values.empty())
        return 0;
    double mean = 0;
    for (double x : values)
        mean += x;
    mean /= values.size();
    double var = 0;
    for (double x : values)
        var += (x - mean) * (x - mean);
    return var / values.size();
}

double Statistics::median(std::vector<double> values)
{
    if (values.empty())
        return 0;
    std::size_t mid = values.size() / 2;
    std::nth_element(values.begin(), values.begin() + mid, values.end());
    double hi = values[mid];
    if (values.size() % 2 == 1)
        return hi;
    double lo = *std::max_element(values.begin(), values.begin() + mid);
    return 0.5 * (lo + hi);
}

double Statistics::weightedMedian(std::vector<std::pair<double, double>> points)
{
    if (points.empty())
        return 0;
    std::sort(points.begin(), points.end());
    double total = 0;
    for (const auto& p : points)
        total += p.second;
    double acc = 0;
    for (const auto& [x, w] : points) {
        acc += w;
        if (acc >= 0.5 * total)
            return x;
    }
    return points.back().first;
}

}  // namespace memx
