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
    return f;
}

void GpuParamsFit::applyTo(GpuType& t) const
{
    t.calibration.efficiencyMultiplier = efficiencyMultiplier;
    t.calibration.bandwidthMultiplier = bandwidthMultiplier;
    t.launchOverheadUs = launchOverheadUs;
    t.commOverheadUs = commOverheadUs;
    t.iterationOverheadMs = iterationOverheadMs;
}

nlohmann::json GpuParamsFit::toJson() const
{
    return {{"gpu_type", type},
            {"efficiency_multiplier", efficiencyMultiplier},
            {"bandwidth_multiplier", bandwidthMultiplier},
            {"launch_overhead_us", launchOverheadUs},
            {"comm_overhead_us", commOverheadUs},
            {"iteration_overhead_ms", iterationOverheadMs},
            {"fitted", fitted},
            {"runs", runs},
            {"time_mape_catalog", mapeBefore},
            {"time_mape_fitted", mapeAfter},
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
    if (json.has("fitted")) {
        for (const auto& item : json.at("fitted").items())
            f.fitted.push_back(item.asString());
    }
    f.runs = static_cast<int>(json.number("runs", 0));
    f.mapeBefore = json.number("time_mape_catalog", 0);
    f.mapeAfter = json.number("time_mape_fitted", 0);
    f.note = json.string("note", "");
    return f;
}

}  // namespace memx
