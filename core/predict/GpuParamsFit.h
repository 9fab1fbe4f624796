#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace memx {

class JsonReader;
struct GpuType;

// The physical parameters of one GPU type as fitted to measured runs
// (Calibrator), replacing the catalog's values in the analytic model. Each
// field holds the value in use: the fitted one, or the catalog's where the
// runs could not determine it (then it is not in `fitted`).
struct GpuParamsFit {
    std::string type;
    double efficiencyMultiplier = 1.0;  // on default_efficiency (GEMM and attention share of peak)
    double bandwidthMultiplier = 1.0;  // on the achieved share of memory bandwidth
    double launchOverheadUs = 0;  // host time per operator, us
    double commOverheadUs = 0;  // host time per collective or pipeline message, us
    double iterationOverheadMs = 0;  // per-iteration framework overhead, ms
    double stepOverheadUs = 0;  // host time per schedule step (forward or backward of a chunk), us
    double memoryMultiplier = 1.0;  // on weights, gradients, optimizer state and activations
    double frameworkMiB = 0;  // framework buffers per GPU beyond the model's tensors, MiB
    std::vector<std::string> fitted;  // names of the fields fitted ("efficiency_multiplier", ...)
    int runs = 0;  // measured runs of this type the fit used
    double mapeBefore = 0;  // time MAPE % of those runs with the catalog values
    double mapeAfter = 0;  // ... with the fitted values
    int memoryRuns = 0;  // stages of this type with a measured peak the memory fit used
    double memoryMapeBefore = 0;  // their peak memory MAPE % with the catalog values
    double memoryMapeAfter = 0;  // ... with the fitted values
    std::string memoryNote;  // why the memory parameters were not fitted ("" when they were or no peak was measured)
    std::string note;  // why something was not fitted ("" when all were)

    // The catalog's values of `t` (nothing fitted yet).
    static GpuParamsFit of(const GpuType& t);
    // Writes the values into a copy of the catalog type.
    void applyTo(GpuType& t) const;

    nlohmann::json toJson() const;
    // Throws InputError naming the file and field (non-finite or out of range).
    static GpuParamsFit fromJson(const JsonReader& json);
};

}  // namespace memx
