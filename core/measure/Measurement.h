#pragma once

#include "model/LayerStyle.h"
#include "model/MemoryKind.h"
#include "model/MlpKind.h"
#include "model/Precision.h"
#include "model/Recompute.h"

#include <optional>
#include <string>
#include <vector>

namespace memx {

// Format tag of measurement files (docs/MEASUREMENTS.md).
inline constexpr const char* kMeasurementFormat = "memx-measurements/1";

// Where a measurement comes from: a real run, the reference simulator
// (core/sim), or interpolation augmentation of measured rows.
enum class MeasurementSource { Measured = 0, Simulated = 1, Interpolated = 2 };

const char* toString(MeasurementSource s);
bool parseMeasurementSource(const std::string& s, MeasurementSource& out);

// One row of a memx-measurements/1 file: either a whole run (run row: stage
// and stageLayers absent) or one pipeline stage of a run (stage row). A
// heterogeneous run comes as one stage row per stage, each with its own
// gpuType and recompute. At least one of the three targets is present.
struct Measurement {
    using Source = MeasurementSource;

    std::string runId;
    Source source = Source::Measured;
    // An interpolated row: the run ids of the rows whose values it was
    // interpolated between (Augmenter), so that cross-validation never trains
    // on a row made from a held-out run. Not part of the row's content: files
    // do not carry it, and rows compare equal whatever it holds.
    struct Origin {
        std::vector<std::string> runIds;
        bool operator==(const Origin&) const { return true; }
    };
    Origin derivedFrom;
    std::string gpuType;
    int numGpus = 0;
    int tp = 1;
    int pp = 1;
    int dp = 1;
    int vp = 1;  // virtual pipeline stages per stage (interleaving); 1 = none
    int mbs = 1;  // micro-batch size, sequences
    int gbs = 1;  // global batch size, sequences
    int seqLen = 0;  // tokens
    int numLayers = 0;  // transformer layers of the whole model
    int hidden = 0;
    int ffnHidden = 0;
    MlpKind mlp = MlpKind::SwiGlu;  // column mlp; empty: swiglu
    bool tiedEmbeddings = false;  // column tied_embeddings (true|false); empty: false
    // Columns position_embedding (rope|learned_absolute|none), normalization
    // (rmsnorm|layernorm), bias_linear (true|false); empty: LLaMA's rope,
    // rmsnorm, false (model/LayerStyle.h). Run-level.
    LayerStyle style;
    // Column attention (flash|unfused; empty: flash; model/AttentionKind.h)
    // and the dropout rates (columns attention_dropout, hidden_dropout in
    // [0, 1); empty: 0). All three are run-level.
    bool flashAttention = true;
    double attentionDropout = 0.0;
    double hiddenDropout = 0.0;
    // Megatron's --sequence-parallel and --use-distributed-optimizer as the
    // run used them (columns sequence_parallel, distributed_optimizer:
    // true|false; empty: true, the planner's defaults). Run-level.
    bool sequenceParallel = true;
    bool distributedOptimizer = true;
    // Megatron's --overlap-grad-reduce and --overlap-param-gather (columns
    // overlap_grad_reduce, overlap_param_gather: true|false; empty: false,
    // Megatron's default). Run-level.
    bool overlapGradReduce = false;
    bool overlapParamGather = false;
    int heads = 0;
    int queryGroups = 0;
    int vocab = 0;
    Recompute recompute = Recompute::None;
    std::optional<int> stage;  // 0-based pipeline stage; absent for a run row
    std::optional<int> stageLayers;  // transformer layers in that stage
    std::optional<double> iterationTimeMs;  // wall time of one training iteration
    std::optional<double> stageTimeMs;  // stage rows: the stage's compute time per iteration
    std::optional<double> peakMemMiB;  // run rows: max over GPUs; stage rows: that stage's GPU
    // The run's training precision (column precision; empty: bf16) and what
    // peak_mem_mib counts (column peak_mem_kind; empty: allocated, the
    // number Megatron logs as "max allocated"). Both are run-level.
    Precision precision = Precision::Bf16;
    // fp32 runs: whether the matmuls ran on TF32 (column fp32_matmul; a row
    // saying tf32 is read as precision tf32, so this is Unstated or Ieee).
    Fp32Matmul fp32Matmul = Fp32Matmul::Unstated;
    MemoryKind peakMemKind = MemoryKind::Allocated;

    // Optional annotations (not targets). Predictions written by `memx-cli
    // predict` say which predictor answered and how sure it is; a profiling
    // plan says what each run should cost.
    std::string provenance;  // analytic | learned | cached | extrapolated; empty: none
    std::optional<double> uncertainty;  // relative (0.1 = +-10%) of the targets on this row
    std::optional<double> estimatedGpuHours;  // cost of running this configuration for profiling
    // The cluster file the run was measured on, as written in the file
    // (relative to the measurements file unless absolute); empty: none named.
    // RunPlacement puts the run on it (docs/MEASUREMENTS.md, "Runs of several clusters").
    std::string cluster;

    bool isStageRow() const { return stage.has_value(); }
    bool isInterpolated() const { return source == MeasurementSource::Interpolated; }
    // Interpolated without saying between which runs (read from a file, not
    // made by this process's Augmenter): it may have come from any run.
    bool hasUnknownOrigin() const { return isInterpolated() && derivedFrom.runIds.empty(); }
    bool hasTarget() const { return iterationTimeMs || stageTimeMs || peakMemMiB; }

    bool operator==(const Measurement&) const = default;
};

}  // namespace memx
