#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace memx {

// What repeated measurements allow: runs of one configuration that differ
// (container, checkpoint resume, flags the file does not record) cannot all
// be predicted by anything that answers per configuration. The floor is the
// MAPE of the best such answer, per configuration the single value with the
// smallest summed relative error (the median of the repeats weighted by
// 1 / measured), over all the runs; 0 when nothing repeats.
struct RepeatFloor {
    std::size_t n = 0;  // measured values
    std::size_t configurations = 0;  // distinct configuration keys
    std::size_t repeated = 0;  // configurations measured more than once
    double mapePct = 0;

    // (configuration key, measured value > 0) pairs.
    static RepeatFloor of(const std::vector<std::pair<std::string, double>>& measured);
};

}  // namespace memx
