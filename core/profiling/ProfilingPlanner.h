#pragma once

#include "predict/StageQuery.h"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace memx {

struct ModelSpec;
struct GpuType;
class Predictor;

// One configuration parameter the profiler may vary (MemX section 3.2.1).
// Axis names understood by ProfilingPlanner::apply: "tp", "micro_batch",
// "seq_len", "layers", "recompute" (0 none, 1 selective, 2 full), "query_groups".
struct ParameterAxis {
    std::string name;
    std::vector<int> values;  // ascending, distinct
    int defaultValue = 0;
    bool powerOfTwo = false;  // sampled as min / central / max of the typical set
};

// One row of the key-parameter table: fluctuation amplitude (max - min) / mean
// of each metric over a single-parameter sweep around the defaults.
struct KeyParameter {
    std::string name;
    double timeAmplitude = 0;
    double memoryAmplitude = 0;
    bool highImpact = false;
    int points = 0;  // sweep points with a time (a MeasureFn answers NaN for one it has no value of)
    int memoryPoints = 0;  // of those, the points with a peak too
    bool unmeasured = false;  // the axis can vary but fewer than two of its points have a time
    bool memoryUnmeasured = false;  // timed at two points or more, but fewer than two have a peak
};

// One short profiling job: a single-stage (PP = 1, DP = 1) Megatron-LM run on
// `query.tp` GPUs of `query.gpu`'s type.
struct PlannedRun {
    StageQuery query;
    double estimatedMs = 0;  // estimated forward + backward of one micro-batch, ms
    double estimatedGpuHours = 0;  // tp GPUs x (start-up + (warm-up + measured) iterations)
};

struct ProfilingPlan {
    std::vector<ParameterAxis> axes;
    std::vector<KeyParameter> keyParameters;  // one per axis, same order
    std::vector<PlannedRun> runs;
    std::uint64_t exhaustiveCount = 0;  // product of all axis sizes
    std::uint64_t sampledCount = 0;  // 3^k x 1 for the fixed axes (before dropping invalid combinations)
    double totalGpuHours = 0;
};

// The minimal-set profiler of MemX section 3.2.1: key-parameter
// identification by single-parameter sweeps, then three-point sparse sampling
// of the high-impact parameters with the low-impact ones fixed at defaults.
class ProfilingPlanner {
public:
    // (time of one micro-batch in ms, peak memory in MiB) for a stage query:
    // the analytic model, a simulator, or real measurements.
    using MeasureFn = std::function<std::pair<double, double>(const StageQuery&)>;

    struct Options {
        // A parameter is high-impact when the time or the memory amplitude
        // exceeds this fraction (10%).
        double threshold = 0.10;
        int warmupIterations = 2;
        int measuredIterations = 10;
        int microBatchesPerIteration = 4;  // global batch = micro-batch x this (DP = 1)
        double startupSeconds = 60;  // process start, model build, first compile, per run
        // TP link of the profiling server (NVLink-class by default; set it from the cluster).
        double tpLinkGBps = 200;
        double tpLatencyUs = 3;
        // The training setup the runs measure (memx-cli profile-plan
        // --no-flash-attention, --attention-dropout, --hidden-dropout,
        // --no-sequence-parallel): the queries carry it and the launch
        // commands pass it to Megatron.
        bool flashAttention = true;
        bool sequenceParallel = true;
        double attentionDropout = 0.0;
        double hiddenDropout = 0.0;
    };

    // The typical axes for `model` on one GPU type: tp {1,2,4,8} (dividing heads),
    // micro-batch {1..16}, sequence length {1024..8192}, layers per stage
    // {4,8,...,num_layers}, recompute {0,1,2}, query groups (powers of two dividing heads).
    static std::vector<ParameterAxis> defaultAxes(const ModelSpec& model);

    // A single-stage query with every axis at its default (embedding and output
    // included: a PP = 1 run has both).
    static StageQuery baseQuery(const ModelSpec& model, const GpuType& gpu, const std::vector<ParameterAxis>& axes,
                                const Options& options);
    static StageQuery baseQuery(const ModelSpec& model, const GpuType& gpu, const std::vector<ParameterAxis>& axes)
    {
        return baseQuery(model, gpu, axes, Options{});
    }
    // Moves the defaults until the base query fits (`fits`, usually the
    // analytic memory against the GPU's), the smallest change first: more
    // TP, then fewer layers (TP from its default again), then more
    // recomputation. Sweeps around a base that cannot run measure
    // out-of-memory errors. Returns what it moved ("tp 1 -> 4"), empty when
    // nothing moved or nothing fits (the axes are then as they were).
    static std::string fitDefaults(std::vector<ParameterAxis>& axes, const ModelSpec& model, const GpuType& gpu,
                                   const Options& options, const std::function<bool(const StageQuery&)>& fits);
    // `q` with the named axis set to `value`; throws std::invalid_argument for an unknown name.
    static StageQuery apply(StageQuery q, const std::string& axis, int value);
    // TP divides heads, and query groups and TP divide one another (Megatron's checks).
    static bool valid(const StageQuery& q);

    // Values swept to identify key parameters: the three points plus the default.
    static std::vector<int> sweepValues(const ParameterAxis& axis);
    // The pre-sampling runs (paper section 3.2.1): the base query and every
    // axis's sweep values with the others at their defaults, each once, in
    // axis order; what identify() measures.
    static std::vector<StageQuery> presampleQueries(const StageQuery& base, const std::vector<ParameterAxis>& axes);
    // Fluctuation amplitude of time and memory over each axis's sweep. A
    // point the MeasureFn answers with a NaN time (not measured, out of
    // memory) is left out, one with a time but a NaN peak (a time-only
    // profile) counts for time only; an axis with fewer than two timed
    // points, or fewer than two with a peak, is high-impact, since nothing
    // shows it is not.
    static std::vector<KeyParameter> identify(const StageQuery& base, const std::vector<ParameterAxis>& axes,
                                              const MeasureFn& measure, double threshold = 0.10);

    // Three-point choice: linear axes take min, max and the value nearest the
    // midpoint (x_min + x_max) / 2 (the lower one on a tie), or the default when
    // `centreAtDefault`; power-of-two axes take min, the central element of the
    // typical set (index (n-1)/2: 1,8,64 from 1..64) and max. Fewer when the axis is shorter.
    static std::vector<int> threePoints(const ParameterAxis& axis, bool centreAtDefault = false);

    static std::uint64_t exhaustiveCount(const std::vector<ParameterAxis>& axes);
    // Product over high-impact axes of their three-point counts (1 for fixed axes).
    static std::uint64_t sampledCount(const std::vector<ParameterAxis>& axes, const std::vector<KeyParameter>& keys);

    // Cartesian product of the three-point values of the high-impact axes,
    // the others at defaults; combinations Megatron would refuse are dropped.
    static std::vector<StageQuery> sampleQueries(const StageQuery& base, const std::vector<ParameterAxis>& axes,
                                                 const std::vector<KeyParameter>& keys);

    static PlannedRun planRun(const StageQuery& q, const MeasureFn& estimate, const Options& options);
    static PlannedRun planRun(const StageQuery& q, const MeasureFn& estimate)
    {
        return planRun(q, estimate, Options{});
    }

    // Everything for one GPU type: identification with `measure`, sampling,
    // and cost estimates with `estimate` (usually the analytic predictor).
    static ProfilingPlan plan(const ModelSpec& model, const GpuType& gpu, const MeasureFn& measure,
                              const MeasureFn& estimate, const Options& options);
    static ProfilingPlan plan(const ModelSpec& model, const GpuType& gpu, const MeasureFn& measure,
                              const MeasureFn& estimate)
    {
        return plan(model, gpu, measure, estimate, Options{});
    }

    // A MeasureFn backed by a predictor (time ms, total memory MiB).
    static MeasureFn measureWith(const Predictor& predictor);

    // The key-parameter table as text, one line per parameter.
    static std::string formatTable(const std::vector<KeyParameter>& keys, double threshold = 0.10);

    // One Megatron-LM launch command (torchrun ... pretrain_gpt.py) for the run:
    // PP = 1, DP = 1, `query.layers` layers, the model's dimensions.
    static std::string megatronCommand(const PlannedRun& run, const ModelSpec& model);
    static std::string megatronCommand(const PlannedRun& run, const ModelSpec& model, const Options& options);
};

}  // namespace memx
