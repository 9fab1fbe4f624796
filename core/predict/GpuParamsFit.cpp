#include "predict/GpuParamsFit.h"

#include "hardware/GpuType.h"
#include "io/JsonReader.h"
#include "io/Ranges.h"

#include <nlohmann/json.hpp>

namespace memx {

GpuParamsFit GpuParamsFit::of(const GpuType& t)
{
    GpuParamsFit f;
    f.type = t.name;
    f.efficiencyMultiplier = t.calibration.efficiencyMultiplier;
    f.bandwidthMultiplier = t.calibration.bandwidthMultiplier;
    f.launchOverheadUs = t.launchOverheadUs;
    f.commOverheadUs = t.commOverheadUs;
    f.iterationOverheadMs = t.iterationOverheadMs;
    f.stepOverheadUs = t.stepOverheadUs;
    f.memoryMultiplier = t.calibration.memoryMultiplier;
    f.frameworkMiB = t.calibration.frameworkMiB;
    return f;
}

void GpuParamsFit::applyTo(GpuType& t) const
{
    t.calibration.efficiencyMultiplier = efficiencyMultiplier;
    t.calibration.bandwidthMultiplier = bandwidthMultiplier;
    t.launchOverheadUs = launchOverheadUs;
    t.commOverheadUs = commOverheadUs;
    t.iterationOverheadMs = iterationOverheadMs;
    t.stepOverheadUs = stepOverheadUs;
    t.calibration.memoryMultiplier = memoryMultiplier;
    t.calibration.frameworkMiB = frameworkMiB;
}

nlohmann::json GpuParamsFit::toJson() const
{
    return {{"gpu_type", type},
            {"efficiency_multiplier", efficiencyMultiplier},
            {"bandwidth_multiplier", bandwidthMultiplier},
            {"launch_overhead_us", launchOverheadUs},
            {"comm_overhead_us", commOverheadUs},
            {"iteration_overhead_ms", iterationOverheadMs},
            {"step_overhead_us", stepOverheadUs},
            {"memory_multiplier", memoryMultiplier},
            {"framework_mib", frameworkMiB},
            {"fitted", fitted},
            {"runs", runs},
            {"time_mape_catalog", mapeBefore},
            {"time_mape_fitted", mapeAfter},
            {"memory_stages", memoryRuns},
            {"memory_mape_catalog", memoryMapeBefore},
            {"memory_mape_fitted", memoryMapeAfter},
            {"memory_note", memoryNote},
            {"note", note}};
}

GpuParamsFit GpuParamsFit::fromJson(const JsonReader& json)
{
    GpuParamsFit f;
    f.type = json.string("gpu_type");
    f.efficiencyMultiplier = json.inRange("efficiency_multiplier", ranges::efficiencyMultiplier);
    f.bandwidthMultiplier = json.inRange("bandwidth_multiplier", ranges::bandwidthMultiplier);
    f.launchOverheadUs = json.inRange("launch_overhead_us", ranges::operatorOverheadUs);
    f.commOverheadUs = json.inRange("comm_overhead_us", ranges::commOverheadUs);
    f.iterationOverheadMs = json.inRange("iteration_overhead_ms", ranges::iterationOverheadMs);
    // Absent in model files written before schedule steps had a host cost:
    // none, as they were fitted and trained (their per-kernel and
    // per-iteration times already hold that time).
    f.stepOverheadUs = json.inRange("step_overhead_us", ranges::stepOverheadUs, 0.0);
    // Absent in model files written before memory was calibrated.
    f.memoryMultiplier = json.inRange("memory_multiplier", ranges::memoryMultiplier, 1.0);
    f.frameworkMiB = json.inRange("framework_mib", ranges::frameworkMiB, 0.0);
    if (json.has("fitted")) {
        for (const auto& item : json.at("fitted").items())
            f.fitted.push_back(item.asString());
    }
    f.runs = static_cast<int>(json.number("runs", 0));
    f.mapeBefore = json.number("time_mape_catalog", 0);
    f.mapeAfter = json.number("time_mape_fitted", 0);
    f.memoryRuns = static_cast<int>(json.number("memory_stages", 0));
    f.memoryMapeBefore = json.number("memory_mape_catalog", 0);
    f.memoryMapeAfter = json.number("memory_mape_fitted", 0);
    f.memoryNote = json.string("memory_note", "");
    f.note = json.string("note", "");
    return f;
}

}  // namespace memx
