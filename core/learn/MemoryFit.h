#pragma once

#include <string>
#include <vector>

namespace memx {

// One measured peak of one pipeline stage and the analytic model's terms for
// it, at memory multiplier 1 and without framework buffers.
struct MemoryObservation {
    std::string config;  // the configuration and stage (repeats of a run share it)
    double measuredMiB = 0;
    double tensorsMiB = 0;  // weights + gradients + optimizer state + activations
    double slack = 0;  // allocator slack applied on top (0 when the measure is `allocated`)
    double addMiB = 0;  // added after the slack (the runtime reserve when the measure is `device`)
};

// Fits one GPU type's memory parameters to measured stage peaks (issue #12,
// calibration): the multiplier a on the model's tensors and the framework
// buffers c (MiB per GPU, >= 0) in
//     predicted = (a x tensors + c) x (1 + slack) + add,
// minimising the mean absolute relative error (the memory MAPE), which is
// robust to a few odd runs. For a given a the best c is a weighted median
// (weights (1 + slack) / measured), so the fit scans a over [0.5, 1.5] and
// takes the median at each. The observations must show at least two distinct
// configurations for c and three for a as well; repeats of one configuration
// more than `contradictionRatio` apart, or no improvement over the starting
// values, keep those (`note` says why).
class MemoryFit {
public:
    struct Result {
        double multiplier = 1.0;
        double frameworkMiB = 0;
        std::vector<std::string> fitted;  // "framework_mib", "memory_multiplier"
        double mapeBefore = 0;  // % with the starting values
        double mapeAfter = 0;  // % with the result
        std::string note;  // why nothing (or not everything) was fitted
    };

    static constexpr double kMinMultiplier = 0.5;
    static constexpr double kMaxMultiplier = 1.5;
    static constexpr double kMaxFrameworkMiB = 65536;

    static double predictedMiB(const MemoryObservation& o, double multiplier, double frameworkMiB);
    static double mape(const std::vector<MemoryObservation>& obs, double multiplier, double frameworkMiB);
    // The c >= 0 that minimises the MAPE for a fixed multiplier.
    static double bestFrameworkMiB(const std::vector<MemoryObservation>& obs, double multiplier);
    static Result fit(const std::vector<MemoryObservation>& obs, double multiplier0, double frameworkMiB0,
                      double contradictionRatio = 3.0);
};

}  // namespace memx
