#include "space/TrainingSetupJson.h"

#include "io/FieldSpelling.h"
#include "io/InputError.h"
#include "io/JsonReader.h"
#include "io/Ranges.h"
#include "space/TrainingSetup.h"

namespace memx {

nlohmann::json TrainingSetupJson::write(const TrainingSetup& s)
{
    nlohmann::json j = {{"global_batch", s.globalBatch},
                        {"micro_batch_sizes", s.microBatchSizes},
                        {"seq_lens", s.seqLens},
                        {"query_groups", s.queryGroups},
                        {"tensor_parallel", s.tensorParallel},
                        {"min_pipeline_stages", s.minPipelineStages},
                        {"max_pipeline_stages", s.maxPipelineStages},
                        {"virtual_stages", s.virtualStages},
                        {"distributed_optimizer", s.distributedOptimizer},
                        {"overlap_grad_reduce", s.overlapGradReduce},
                        {"overlap_param_gather", s.overlapParamGather},
                        {"flash_attention", s.flashAttention},
                        {"attention_dropout", s.attentionDropout},
                        {"hidden_dropout", s.hiddenDropout},
                        {"sequence_parallel", s.sequenceParallel},
                        {"precision", s.precision},
                        {"schedule", toString(s.schedule)},
                        {"recompute", toString(s.recompute)},
                        {"placement", toString(s.placement)},
                        {"meshes", toString(s.meshes)},
                        {"allow_idle_gpus", s.allowIdleGpus}};
    // A value the user marked as a real outlier reads back.
    if (!ranges::batch.plausible(s.globalBatch) || !ranges::pipelineStages.plausible(s.maxPipelineStages)
        || !ranges::pipelineStages.plausible(s.minPipelineStages))
        j["allow_outside_range"] = true;
    return j;
}

TrainingSetup TrainingSetupJson::read(const JsonReader& j)
{
    if (!j.node().is_object())
        j.fail("expected the training setup as an object");
    const TrainingSetup defaults;
    TrainingSetup s;
    s.globalBatch = j.integerInRange("global_batch", ranges::batch);
    const std::string sizes = FieldSpelling::of(j, "micro_batch_sizes", "micro_batches");
    if (j.has(sizes))
        s.microBatchSizes = j.intList(sizes, 1);
    s.seqLens = j.intList("seq_lens", 1);
    s.queryGroups = j.intList("query_groups", 1);
    s.tensorParallel = j.intList("tensor_parallel", 1);
    if (const std::vector<int> v = j.intList("virtual_stages", 1); !v.empty())  // an empty list keeps the default
        s.virtualStages = v;
    const std::string maxKey = FieldSpelling::of(j, "max_pipeline_stages", "max_pp");
    s.maxPipelineStages = j.integerInRange(maxKey, ranges::pipelineStages, defaults.maxPipelineStages);
    s.minPipelineStages = j.integerInRange("min_pipeline_stages", ranges::pipelineStages, defaults.minPipelineStages);
    s.distributedOptimizer = j.boolean("distributed_optimizer", defaults.distributedOptimizer);
    // Files written before the overlaps and dropout existed planned without them.
    s.overlapGradReduce = j.boolean("overlap_grad_reduce", false);
    s.overlapParamGather = j.boolean("overlap_param_gather", false);
    s.flashAttention = j.boolean("flash_attention", defaults.flashAttention);
    s.attentionDropout = j.number("attention_dropout", 0.0);
    s.hiddenDropout = j.number("hidden_dropout", 0.0);
    s.sequenceParallel = j.boolean("sequence_parallel", defaults.sequenceParallel);
    s.allowIdleGpus = j.boolean("allow_idle_gpus", defaults.allowIdleGpus);
    s.precision = j.string("precision", defaults.precision);
    if (!parseScheduleMode(j.string("schedule", toString(defaults.schedule)), s.schedule))
        j.fail("expected auto, 1f1b, interleaved or both", "schedule");
    if (!parseRecomputeMode(j.string("recompute", toString(defaults.recompute)), s.recompute))
        j.fail("expected policy, enumerate, none, selective or full", "recompute");
    if (!parsePlacementMode(j.string("placement", toString(defaults.placement)), s.placement))
        j.fail("expected contiguous or all", "placement");
    // Absent: a file from before per-mesh plans, whose searches were uniform;
    // it keeps planning the space it planned (the default is per-type now).
    if (!parseMeshMode(j.string("meshes", toString(MeshMode::Uniform)), s.meshes))
        j.fail("expected uniform or per-type", "meshes");
    try {
        s.validate();
    } catch (const InputError& e) {
        // validate() names the field by its key in this format.
        j.fail(e.reason(),
               e.field() == "micro_batch_sizes"         ? sizes
                   : e.field() == "max_pipeline_stages" ? maxKey
                                                        : e.field());
    }
    return s;
}

}  // namespace memx
