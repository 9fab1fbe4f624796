#include "space/TrainingSetup.h"

#include "io/EnumNames.h"
#include "io/InputError.h"
#include "model/Precision.h"

#include <initializer_list>
#include <utility>

namespace memx {

const char* toString(ScheduleMode m)
{
    switch (m) {
    case ScheduleMode::Auto: return "auto";
    case ScheduleMode::OneF1B: return "1f1b";
    case ScheduleMode::Interleaved: return "interleaved";
    case ScheduleMode::Both: return "both";
    }
    return "?";
}

const char* toString(RecomputeMode m)
{
    switch (m) {
    case RecomputeMode::Policy: return "policy";
    case RecomputeMode::Enumerate: return "enumerate";
    case RecomputeMode::UniformNone: return "none";
    case RecomputeMode::UniformSelective: return "selective";
    case RecomputeMode::UniformFull: return "full";
    }
    return "?";
}

const char* toString(PlacementMode m) { return m == PlacementMode::Contiguous ? "contiguous" : "all"; }

const char* toString(MeshMode m) { return m == MeshMode::Uniform ? "uniform" : "per-type"; }

bool parseMeshMode(const std::string& s, MeshMode& out)
{
    return parseByName(s, out, {MeshMode::Uniform, MeshMode::PerType});
}

bool parseScheduleMode(const std::string& s, ScheduleMode& out)
{
    return parseByName(s, out,
                       {ScheduleMode::Auto, ScheduleMode::OneF1B, ScheduleMode::Interleaved, ScheduleMode::Both});
}

bool parseRecomputeMode(const std::string& s, RecomputeMode& out)
{
    return parseByName(s, out,
                       {RecomputeMode::Policy, RecomputeMode::Enumerate, RecomputeMode::UniformNone,
                        RecomputeMode::UniformSelective, RecomputeMode::UniformFull});
}

void TrainingSetup::validate() const
{
    auto atLeast = [](const char* field, const std::vector<int>& values, int lo) {
        for (int v : values)
            if (v < lo)
                throw InputError("training setup", field,
                                 "value " + std::to_string(v) + " must be at least " + std::to_string(lo));
    };
    atLeast("global_batch", {globalBatch}, 1);
    atLeast("micro_batch_sizes", microBatchSizes, 1);
    if (microBatchSizes.empty())
        throw InputError("training setup", "micro_batch_sizes", "give at least one micro-batch size");
    atLeast("seq_lens", seqLens, 16);
    atLeast("query_groups", queryGroups, 1);
    atLeast("tensor_parallel", tensorParallel, 1);
    atLeast("virtual_stages", virtualStages, 2);
    atLeast("max_pipeline_stages", {maxPipelineStages}, 1);
    atLeast("min_pipeline_stages", {minPipelineStages}, 1);
    if (minPipelineStages > maxPipelineStages)
        throw InputError("training setup", "min_pipeline_stages",
                         "is " + std::to_string(minPipelineStages) + ", above max_pipeline_stages ("
                             + std::to_string(maxPipelineStages) + ")");
    Precision p;
    if (precision != "auto" && !parsePrecision(precision, p))
        throw InputError("training setup", "precision",
                         "unknown precision \"" + precision + "\" (auto, " + precisionChoices() + ")");
    if (!(selectiveCollapseFraction >= 0 && selectiveCollapseFraction < 1))
        throw InputError("training setup", "selective_collapse_fraction", "must be in [0, 1)");
    for (auto [field, rate] :
         {std::pair{"attention_dropout", attentionDropout}, std::pair{"hidden_dropout", hiddenDropout}})
        if (!(rate >= 0 && rate < 1))
            throw InputError("training setup", field,
                             "dropout rate " + std::to_string(rate) + " must be in [0, 1) (0 turns it off)");
    // Megatron's own checks (megatron/training/arguments.py, validate_args).
    if (overlapParamGather && !distributedOptimizer)
        throw InputError("training setup", "overlap_param_gather",
                         "needs the distributed optimizer (Megatron: --overlap-param-gather only supported with "
                         "distributed optimizer)");
    if (overlapParamGather && !overlapGradReduce)
        throw InputError("training setup", "overlap_param_gather",
                         "needs overlap_grad_reduce (Megatron: --overlap-grad-reduce should be turned on when using "
                         "--overlap-param-gather)");
}

bool parsePlacementMode(const std::string& s, PlacementMode& out)
{
    return parseByName(s, out, {PlacementMode::Contiguous, PlacementMode::All});
}

}  // namespace memx
