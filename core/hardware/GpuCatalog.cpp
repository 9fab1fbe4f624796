#include "hardware/GpuCatalog.h"

#include "io/EmbeddedResources.h"
#include "io/InputError.h"
#include "io/JsonReader.h"
#include "io/Ranges.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace memx {

namespace {
// Kernels of one transformer layer's forward and backward at TP 1
// (LayerOperators: 11 forward, 15 backward), to read the per-layer launch
// overhead of catalogs written before the operator-level model.
constexpr double kOperatorsPerLayer = 26.0;

bool validEnvName(const std::string& s)
{
    if (s.empty() || (s[0] >= '0' && s[0] <= '9'))
        return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
}
}  // namespace

const GpuCatalog& GpuCatalog::builtin()
{
    static const GpuCatalog catalog = [] {
        auto doc = JsonReader::parseText(resources::gpuCatalogJson(), "resources/gpu_catalog.json");
        return fromJson(doc, "resources/gpu_catalog.json");
    }();
    return catalog;
}

GpuCatalog GpuCatalog::fromFile(const std::string& file) { return fromJson(JsonReader::parseFile(file), file); }

GpuCatalog GpuCatalog::fromJson(const nlohmann::json& doc, const std::string& file)
{
    JsonReader root(doc, file);
    root.requireFormat("memx-gpu-catalog/1");
    GpuCatalog catalog;
    if (root.has("vendors")) {
        auto vendors = root.at("vendors");
        if (!vendors.node().is_object())
            vendors.fail("expected an object mapping vendor names to their runtimes");
        for (auto it = vendors.node().begin(); it != vendors.node().end(); ++it) {
            vendors.requireNameKey(it.key());
            JsonReader v(it.value(), file, vendors.path() + "/" + it.key());
            GpuVendor info;
            info.visibleDevicesEnv = v.string("visible_devices_env");
            if (!validEnvName(info.visibleDevicesEnv))
                v.fail("not an environment variable name", "visible_devices_env");
            info.verified = v.boolean("verified", true);
            info.source = v.string("source", "");
            catalog.vendors_[it.key()] = info;
        }
    }
    for (const auto& entry : root.at("gpus").items()) {
        std::string name = entry.name("name");
        if (catalog.types_.count(name))
            entry.fail("duplicate GPU type \"" + name + "\"", "name");
        GpuType t = parseType(entry, name, nullptr);
        catalog.applyVendor(t, entry.has("visible_devices_env"));
        catalog.types_[name] = t;
    }
    if (catalog.types_.empty())
        root.fail("the catalog lists no GPU types", "gpus");
    return catalog;
}

namespace {

// "peak_tflops": {"fp32": 19.5, "tf32": 156, ...}
void readPeaks(const JsonReader& json, GpuType& t)
{
    if (!json.has("peak_tflops"))
        return;
    const JsonReader peaks = json.at("peak_tflops");
    if (!peaks.node().is_object())
        peaks.fail("expected an object such as {\"fp32\": 19.5, \"tf32\": 156}");
    for (const auto& item : peaks.node().items()) {
        const std::string& key = item.key();
        Precision p;
        if (!parsePrecision(key, p))
            peaks.fail("unknown precision \"" + key + "\" (" + precisionChoices() + ")", key);
        t.peakTflopsBy[static_cast<int>(p)] = peaks.inRange(key, ranges::peakTflops);
    }
}

// "precisions": ["bf16", "fp16", ...]
void readPrecisions(const JsonReader& json, GpuType& t)
{
    if (!json.has("precisions"))
        return;
    const JsonReader list = json.at("precisions");
    if (!list.node().is_array())
        list.fail("expected a list such as [\"bf16\", \"fp16\"]");
    t.precisions.clear();
    for (const auto& p : list.items()) {
        if (!p.node().is_string())
            p.fail(std::string("expected a string (") + precisionChoices() + ")");
        const std::string v = p.asString();
        Precision parsed;
        if (!parsePrecision(v, parsed))
            p.fail("unknown precision \"" + v + "\" (" + precisionChoices() + ")");
        t.precisions.push_back(v);
    }
    if (t.precisions.empty())
        json.fail("lists no precision", "precisions");
}

// "calibration": the multipliers and offsets a calibration fitted.
void readCalibration(const JsonReader& json, GpuType& t)
{
    if (!json.has("calibration"))
        return;
    auto c = json.at("calibration");
    if (!c.node().is_object())
        c.fail("expected an object such as {\"efficiency_multiplier\": 0.9, \"memory_multiplier\": 1.1}");
    t.calibration.efficiencyMultiplier = c.inRange("efficiency_multiplier", ranges::efficiencyMultiplier, 1.0);
    t.calibration.memoryMultiplier = c.inRange("memory_multiplier", ranges::memoryMultiplier, 1.0);
    t.calibration.frameworkMiB = c.inRange("framework_mib", ranges::frameworkMiB, 0.0);
    t.calibration.bandwidthMultiplier = c.inRange("bandwidth_multiplier", ranges::bandwidthMultiplier, 1.0);
    t.calibration.runtimeReserveGiB = c.number("runtime_reserve_gib", -1.0);
    if (c.has("runtime_reserve_gib")
        && (t.calibration.runtimeReserveGiB < 0 || t.calibration.runtimeReserveGiB >= t.memoryGiB))
        c.fail("must be between 0 and the memory size", "runtime_reserve_gib");
    if (t.defaultEfficiency * t.calibration.efficiencyMultiplier > 1.0)
        c.fail("efficiency times multiplier exceeds 1 (more than the GPU's peak)", "efficiency_multiplier");
}

}  // namespace

GpuType GpuCatalog::parseType(const JsonReader& json, const std::string& name, const GpuType* base)
{
    GpuType t = base ? *base : GpuType{};
    t.name = name;
    auto pos = [&](const char* key, const Range& r, double current) {
        return base ? json.inRange(key, r, current) : json.inRange(key, r);
    };
    t.vendor = json.name("vendor", base ? t.vendor : std::string("unknown"));
    t.peakTflopsBf16 = pos("peak_tflops_bf16", ranges::peakTflops, t.peakTflopsBf16);
    readPeaks(json, t);
    t.memoryGiB = pos("memory_gib", ranges::gpuMemoryGiB, t.memoryGiB);
    t.memoryBandwidthGBps = pos("memory_bandwidth_gbps", ranges::memoryBandwidthGBps, t.memoryBandwidthGBps);
    t.defaultEfficiency = json.positive("default_efficiency", t.defaultEfficiency);
    if (t.defaultEfficiency > 1.0)
        json.fail("must be a fraction of peak in (0, 1]", "default_efficiency");
    t.smCount = static_cast<int>(json.integerInRange("sm_count", ranges::smCount, t.smCount));
    if (json.has("launch_overhead_us"))
        t.launchOverheadUs = json.inRange("launch_overhead_us", ranges::operatorOverheadUs);
    else if (json.has("launch_overhead_us_per_layer"))  // before the operator model (format kept readable)
        t.launchOverheadUs
            = json.inRange("launch_overhead_us_per_layer", ranges::launchOverheadUs) / kOperatorsPerLayer;
    t.commOverheadUs = json.inRange("comm_overhead_us", ranges::commOverheadUs, t.commOverheadUs);
    t.stepOverheadUs = json.inRange("step_overhead_us", ranges::stepOverheadUs, t.stepOverheadUs);
    t.iterationOverheadMs = json.inRange("iteration_overhead_ms", ranges::iterationOverheadMs, t.iterationOverheadMs);
    t.runtimeReserveGiB = json.number("runtime_reserve_gib", t.runtimeReserveGiB);
    if (t.runtimeReserveGiB < 0 || t.runtimeReserveGiB >= t.memoryGiB)
        json.fail("must be between 0 and the memory size", "runtime_reserve_gib");
    t.allocatorSlack = json.inRange("allocator_slack", ranges::allocatorSlack, t.allocatorSlack);
    t.source = json.string("source", t.source);
    if (json.has("price_per_gpu_hour") && !json.at("price_per_gpu_hour").node().is_null())
        t.pricePerHour = json.inRange("price_per_gpu_hour", ranges::pricePerGpuHour);
    readPrecisions(json, t);
    if (json.has("visible_devices_env")) {
        t.visibleDevicesEnv = json.string("visible_devices_env");
        if (!validEnvName(t.visibleDevicesEnv))
            json.fail("not an environment variable name", "visible_devices_env");
        t.visibleDevicesVerified = true;  // the file says so
    }
    readCalibration(json, t);
    return t;
}

const GpuVendor* GpuCatalog::vendor(const std::string& name) const
{
    auto it = vendors_.find(name);
    return it == vendors_.end() ? nullptr : &it->second;
}

void GpuCatalog::applyVendor(GpuType& t, bool typeSetItsOwn) const
{
    if (typeSetItsOwn)
        return;
    if (const GpuVendor* v = vendor(t.vendor)) {
        t.visibleDevicesEnv = v->visibleDevicesEnv;
        t.visibleDevicesVerified = v->verified;
    } else {
        t.visibleDevicesEnv = "CUDA_VISIBLE_DEVICES";
        t.visibleDevicesVerified = false;
    }
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
