#include "hardware/GpuCatalog.h"

#include "io/EmbeddedResources.h"
#include "io/InputError.h"
#include "io/JsonReader.h"

#include <nlohmann/json.hpp>

namespace memx {

const GpuCatalog& GpuCatalog::builtin()
{
    static const GpuCatalog catalog = [] {
        auto doc = JsonReader::parseText(resources::gpuCatalogJson(), "resources/gpu_catalog.json");
        return fromJson(doc, "resources/gpu_catalog.json");
    }();
    return catalog;
}

GpuCatalog GpuCatalog::fromFile(const std::string& file)
{
    return fromJson(JsonReader::parseFile(file), file);
}

GpuCatalog GpuCatalog::fromJson(const nlohmann::json& doc, const std::string& file)
{
    JsonReader root(doc, file);
    root.requireFormat("memx-gpu-catalog/1");
    GpuCatalog catalog;
    for (const auto& entry : root.at("gpus").items()) {
        std::string name = entry.string("name");
        if (catalog.types_.count(name))
            entry.fail("duplicate GPU type \"" + name + "\"", "name");
        catalog.types_[name] = parseType(entry, name, nullptr);
    }
    if (catalog.types_.empty())
        root.fail("the catalog lists no GPU types", "gpus");
    return catalog;
}

GpuType GpuCatalog::parseType(const JsonReader& json, const std::string& name, const GpuType* base)
{
    GpuType t = base ? *base : GpuType{};
    t.name = name;
    auto pos = [&](const char* key, double current) {
        return base ? json.positive(key, current) : json.positive(key);
    };
    t.vendor = json.string("vendor", base ? t.vendor : std::string("unknown"));
    t.peakTflopsBf16 = pos("peak_tflops_bf16", t.peakTflopsBf16);
    t.memoryGiB = pos("memory_gib", t.memoryGiB);
    t.memoryBandwidthGBps = pos("memory_bandwidth_gbps", t.memoryBandwidthGBps);
    t.defaultEfficiency = json.positive("default_efficiency", t.defaultEfficiency);
    if (t.defaultEfficiency > 1.0)
        json.fail("must be a fraction of peak in (0, 1]", "default_efficiency");
    t.launchOverheadUsPerLayer = json.number("launch_overhead_us_per_layer", t.launchOverheadUsPerLayer);
    if (t.launchOverheadUsPerLayer < 0)
        json.fail("must not be negative", "launch_overhead_us_per_layer");
    t.runtimeReserveGiB = json.number("runtime_reserve_gib", t.runtimeReserveGiB);
    if (t.runtimeReserveGiB < 0 || t.runtimeReserveGiB >= t.memoryGiB)
        json.fail("must be between 0 and the memory size", "runtime_reserve_gib");
    t.source = json.string("source", t.source);
    if (json.has("calibration")) {
        auto c = json.at("calibration");
        t.calibration.efficiencyMultiplier = c.positive("efficiency_multiplier", 1.0);
        t.calibration.memoryMultiplier = c.positive("memory_multiplier", 1.0);
        t.calibration.runtimeReserveGiB = c.number("runtime_reserve_gib", -1.0);
        if (c.has("runtime_reserve_gib")
            && (t.calibration.runtimeReserveGiB < 0 || t.calibration.runtimeReserveGiB >= t.memoryGiB))
            c.fail("must be between 0 and the memory size", "runtime_reserve_gib");
        if (t.defaultEfficiency * t.calibration.efficiencyMultiplier > 1.0)
            c.fail("efficiency times multiplier exceeds 1 (more than the GPU's peak)", "efficiency_multiplier");
    }
    return t;
}

const GpuType* GpuCatalog::find(const std::string& name) const
{
    auto it = types_.find(name);
    return it == types_.end() ? nullptr : &it->second;
}

std::vector<std::string> GpuCatalog::names() const
{
    std::vector<std::string> out;
    for (const auto& [name, type] : types_)
        out.push_back(name);
    return out;
}

}  // namespace memx
