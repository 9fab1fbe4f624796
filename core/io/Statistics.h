#pragma once

#include <utility>
#include <vector>

namespace memx {

// The few statistics the planner and its accuracy protocol share, in one
// place so that "the median" means one thing everywhere.
struct Statistics {
    // Population variance (the paper's V divides by n); 0 for an empty list.
    static double variance(const std::vector<double>& values);
    // The middle value, the mean of the two middle ones for an even count;
    // 0 for an empty list.
    static double median(std::vector<double> values);
    // The value v minimising sum w_i |v - x_i| over (x_i, w_i) pairs with
    // positive weights: the smallest x at which the cumulative weight reaches
    // half the total. NaN-free input expected; 0 for an empty list. Where a
    // least-absolute-relative-error fit has a closed form (MemoryFit, RepeatFloor).
    static double weightedMedian(std::vector<std::pair<double, double>> points);
};

}  // namespace memx
