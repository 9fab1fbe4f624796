#pragma once

#include <string>

namespace memx {

// A plausible range for one kind of input value, with its unit. Every reader
// checks its numbers against these (JsonReader::inRange, the measurement CSV
// reader), so the limits live in one place. A value outside [min, max] is
// refused unless the user marks it as a real outlier ("allow_outside_range":
// true on the JSON object holding the field); the hard floor (> 0 or >= 0)
// and, for counts, `hardMax` (what the program can represent) hold even then.
struct Range {
    const char* what;  // "link bandwidth"
    double min;  // plausible, inclusive
    double max;  // plausible, inclusive
    const char* unit;  // "GB/s"; "" for plain counts
    bool zeroAllowed;  // hard floor: >= 0 if true, else > 0
    double hardMax;  // hard ceiling even with the override

    // Empty when v is acceptable; else the reason, naming the value, the
    // range and its unit (and the override when `overridable`).
    // `overrideAt` says where the flag goes.
    std::string whyOutside(double v, bool allowOutside, bool overridable = true,
                           const char* overrideAt = "this object") const;
    std::string describe() const;  // "0.01-10000 GB/s"
    // Inside [min, max]: a writer marks a value that is not with
    // "allow_outside_range" so that its file reads back.
    bool plausible(double v) const { return v >= min && v <= max; }
};

// The ranges, named after what they bound. Sizes that are products of others
// (GPUs per cluster) are checked in 64 bits before being narrowed to int.
namespace ranges {
inline constexpr double kIntMax = 2147483647.0;
inline constexpr double kHuge = 1.7976931348623157e308;

inline constexpr Range bandwidthGBps{"bandwidth", 0.01, 10000, "GB/s", false, kHuge};
inline constexpr Range latencyUs{"latency", 0, 10000, "us", true, kHuge};
inline constexpr Range efficiencyMultiplier{"efficiency multiplier", 0.05, 5, "", false, kHuge};
inline constexpr Range allocatorSlack{"allocator slack (reserved / allocated - 1)", 0, 1, "", true, 100};
inline constexpr Range memoryMultiplier{"memory multiplier", 0.05, 5, "", false, kHuge};
inline constexpr Range frameworkMiB{"framework buffers", 0, 65536, "MiB", true, kHuge};
inline constexpr Range gpuMemoryGiB{"GPU memory", 1, 1024, "GiB", false, kHuge};
inline constexpr Range peakTflops{"peak throughput", 0.1, 100000, "TFLOP/s", false, kHuge};
inline constexpr Range memoryBandwidthGBps{"memory bandwidth", 1, 100000, "GB/s", false, kHuge};
inline constexpr Range launchOverheadUs{"launch overhead", 0, 10000, "us per layer", true, kHuge};
inline constexpr Range operatorOverheadUs{"host time per operator", 0, 2000, "us", true, kHuge};
inline constexpr Range commOverheadUs{"host time per collective", 0, 20000, "us", true, kHuge};
inline constexpr Range stepOverheadUs{"host time per schedule step", 0, 100000, "us", true, kHuge};
inline constexpr Range pricePerGpuHour{"price per GPU-hour", 0, 1000, "per GPU-hour", true, kHuge};
inline constexpr Range iterationOverheadMs{"per-iteration overhead", 0, 100000, "ms", true, kHuge};
inline constexpr Range smCount{"streaming multiprocessors", 0, 10000, "", true, kIntMax};
inline constexpr Range bandwidthMultiplier{"bandwidth multiplier", 0.05, 5, "", false, kHuge};
inline constexpr Range termScale{"scale on an iteration term", 0.2, 5, "", false, kHuge};
inline constexpr Range bandwidthScale{"bandwidth scale factor", 0.01, 10, "", false, 1e6};
inline constexpr Range scenarioMinutes{"segment length", 0.001, 1000000, "minutes", false, 1e12};
inline constexpr Range numLayers{"number of layers", 1, 1000, "", false, kIntMax};
inline constexpr Range hidden{"hidden size", 1, 65536, "", false, kIntMax};
inline constexpr Range ffnHidden{"FFN hidden size", 1, 1048576, "", false, kIntMax};
inline constexpr Range heads{"attention heads", 1, 1024, "", false, kIntMax};
inline constexpr Range headDim{"head dimension", 1, 1024, "", false, kIntMax};
inline constexpr Range queryGroups{"query groups", 1, 1024, "", false, kIntMax};
inline constexpr Range vocab{"vocabulary size", 1, 10000000, "", false, kIntMax};
inline constexpr Range seqLen{"sequence length", 1, 10000000, "tokens", false, kIntMax};
inline constexpr Range gpusPerNode{"GPUs per node", 1, 4096, "", false, 1e6};
inline constexpr Range gpusPerCluster{"GPUs in a cluster", 1, 100000, "", false, 1e7};
inline constexpr Range tensorParallel{"tensor parallel size", 1, 4096, "", false, kIntMax};
inline constexpr Range pipelineStages{"pipeline stages", 1, 1000, "", false, kIntMax};
inline constexpr Range dataParallel{"data parallel size", 1, 100000, "", false, kIntMax};
inline constexpr Range batch{"batch size", 1, 10000000, "sequences", false, kIntMax};
inline constexpr Range timeMs{"time", 1e-3, 1e9, "ms", false, kHuge};
inline constexpr Range memoryMiB{"memory", 1e-3, 1048576, "MiB", false, kHuge};
inline constexpr Range gpuHours{"GPU-hours", 1e-9, 1e9, "GPU-hours", false, kHuge};
}  // namespace ranges

}  // namespace memx
