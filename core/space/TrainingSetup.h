#pragma once

#include "model/Dropout.h"

#include <string>
#include <vector>

namespace memx {

enum class ScheduleMode { Auto, OneF1B, Interleaved, Both };
// policy: the paper's two-level per-stage choice; enumerate: every per-stage
// combination; none/selective/full: one level on every stage.
enum class RecomputeMode { Policy, Enumerate, UniformNone, UniformSelective, UniformFull };
// contiguous: the stages of one device group sit next to each other and only
// the order of the groups varies; all: every ordering of the stages.
enum class PlacementMode { Contiguous, All };
// uniform: every stage has one TP x DP (Megatron-LM's rule); per-type: each GPU
// type's stages may also form a mesh of their own TP and DP (FlagScale's
// process meshes), beside every uniform plan.
enum class MeshMode { Uniform, PerType };

const char* toString(ScheduleMode m);
const char* toString(RecomputeMode m);
const char* toString(PlacementMode m);
const char* toString(MeshMode m);
bool parseMeshMode(const std::string& s, MeshMode& out);
bool parseScheduleMode(const std::string& s, ScheduleMode& out);
bool parseRecomputeMode(const std::string& s, RecomputeMode& out);
bool parsePlacementMode(const std::string& s, PlacementMode& out);

// What the user fixes about training; the search explores the rest.
struct TrainingSetup {
    int globalBatch = 128;  // sequences per iteration
    std::vector<int> microBatchSizes{1, 2, 4};  // candidate micro-batch sizes
    std::vector<int> seqLens;  // empty: the model's sequence length
    std::vector<int> queryGroups;  // empty: the model's query groups
    std::vector<int> tensorParallel;  // empty: every power of two that fits a group
    int maxPipelineStages = 8;
    int minPipelineStages = 1;  // fewer stages are skipped (--min-pp)
    std::vector<int> virtualStages{2};  // interleaved virtual sizes to try
    bool distributedOptimizer = true;
    // Megatron --overlap-grad-reduce: gradients are reduced bucket by bucket
    // while the last micro-batch's backward still runs. --overlap-param-gather
    // (distributed optimizer only, and only with the former) gathers the
    // updated weights during the next iteration's first forward. Both are off
    // by default, as in Megatron-LM (IterationComposer::exposedDataParallelMs).
    bool overlapGradReduce = false;
    bool overlapParamGather = false;
    bool flashAttention = true;
    // Megatron --attention-dropout / --hidden-dropout. Megatron's default is
    // 0.1; the planner's is 0 (LLaMA-style pretraining), and the exports
    // write whatever the setup holds. A rate above 0 keeps masks
    // (model/Dropout.h).
    double attentionDropout = 0.0;
    double hiddenDropout = 0.0;
    bool sequenceParallel = true;  // Megatron --sequence-parallel with TP > 1
    // "auto" (bf16 where every type has it, else fp16, else fp32) or one of
    // fp32, tf32, fp16, bf16, fp8 (jobPrecision, docs/PRECISION.md).
    std::string precision = "auto";
    std::string optimizer = "adam";
    ScheduleMode schedule = ScheduleMode::Auto;
    RecomputeMode recompute = RecomputeMode::Policy;
    PlacementMode placement = PlacementMode::Contiguous;
    // Per-type meshes search every uniform plan too, so they are the default;
    // on a cluster of one GPU type the two are the same space. Above a cap on
    // per-type skeletons the search keeps those of the lowest time bounds
    // (SkeletonEnumerator::Limits, docs/HETERO_MESHES.md).
    MeshMode meshes = MeshMode::PerType;
    // A device group whose size is not a multiple of TP x DP leaves GPUs idle;
    // when false such (TP, DP) pairs are skipped instead.
    bool allowIdleGpus = true;
    // Selective recomputation is dropped (treated as binary none/full) when it
    // saves less than this fraction of a stage's activation memory (MemX 3.1.1).
    double selectiveCollapseFraction = 0.05;
    // Auto schedule: interleaving needs this much memory headroom (pressure
    // index) and at most this heterogeneity (CV of device compute).
    double interleavePressureMin = 1.25;
    double interleaveHeterogeneityMax = 0.25;

    Dropout dropout() const { return dropoutOf(attentionDropout, hiddenDropout); }

    // Throws InputError naming the setup field when a value is impossible.
    void validate() const;

    bool operator==(const TrainingSetup&) const = default;
};

}  // namespace memx
