#include "ProjectFile.h"

#include "hardware/Cluster.h"
#include "hardware/GpuCatalog.h"
#include "io/AtomicFile.h"
#include "io/InputError.h"
#include "io/JsonReader.h"
#include "io/Ranges.h"
#include "model/ModelSpec.h"

#include <cmath>
#include <climits>
#include <stdexcept>

namespace memx {

namespace {
std::vector<int> ints(const JsonReader& r, const char* key)
{
    std::vector<int> out;
    if (!r.has(key))
        return out;
    for (const auto& item : r.at(key).items()) {
        // Range-check before narrowing: 4294967296 must not become 0.
        const long long v = item.asInteger();
        if (v < 1 || v > INT_MAX)
            item.fail("must be between 1 and " + std::to_string(INT_MAX) + " (got " + std::to_string(v) + ")");
        out.push_back(static_cast<int>(v));
    }
    return out;
}
}  // namespace

nlohmann::json Project::toJson() const
{
    nlohmann::json j;
    j["format"] = "memx-project/1";
    j["cluster"] = cluster;
    j["model"] = model;
    const auto& s = setup;
    j["setup"] = {{"global_batch", s.globalBatch},
                  {"micro_batches", s.microBatchSizes},
                  {"seq_lens", s.seqLens},
                  {"query_groups", s.queryGroups},
                  {"tensor_parallel", s.tensorParallel},
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
    if (!ranges::batch.plausible(s.globalBatch) || !ranges::pipelineStages.plausible(s.maxPipelineStages))
        j["setup"]["allow_outside_range"] = true;  // it was read with it
    const auto& o = objective;
    j["objective"] = {{"profile", toString(o.profile)},
                      {"custom_weights", {o.custom.time, o.custom.memory, o.custom.variance}},
                      {"variance", o.variance == VarianceMode::AbsoluteMiB ? "mib" : "util"},
                      {"epsilon_rule", toString(o.epsilonRule)}};
    if (o.epsilonRule == EpsilonRule::Fraction)
        j["objective"]["epsilon_fraction"] = o.epsilonFraction;
    else if (o.epsilonRule == EpsilonRule::Absolute)
        j["objective"]["epsilon"] = o.epsilonValue;  // MiB^2, or utilisation^2
    if (o.compareTasks != TaskCompare::PerTask)
        j["objective"]["compare_tasks"] = toString(o.compareTasks);
    if (o.minHeadroom > 0)
        j["objective"]["min_headroom"] = {{"fraction", o.minHeadroom}, {"at_upper_bound", o.headroomAtUpper}};
    if (o.maxSlowdown >= 0)
        j["objective"]["max_slowdown"] = o.maxSlowdown;
    j["predictor"] = predictor;
    if (!lastResult.is_null())
        j["last_result"] = lastResult;
    return j;
}

Project Project::fromJson(const nlohmann::json& doc, const std::string& file)
{
    JsonReader root(doc, file);
    root.requireFormat("memx-project/1");
    Project p;
    p.cluster = root.at("cluster").node();
    // Validate the embedded cluster now, with paths inside the project. A
    // project may hold an empty cluster (File > New, saved before any node was
    // added): the workbench's editor accepts it, a search refuses it.
    try {
        Cluster::fromEditorJson(p.cluster, file + " (cluster)", GpuCatalog::builtin());
    } catch (const InputError& e) {
        throw InputError(file, "/cluster" + e.field(), e.reason());
    }
    p.model = root.at("model").node();
    ModelSpec::fromJson(JsonReader(p.model, file, "/model"));  // validates, names /model/... on error
    auto s = root.at("setup");
    p.setup.globalBatch = s.integerInRange("global_batch", ranges::batch);
    p.setup.microBatchSizes = ints(s, "micro_batches");
    p.setup.seqLens = ints(s, "seq_lens");
    p.setup.queryGroups = ints(s, "query_groups");
    p.setup.tensorParallel = ints(s, "tensor_parallel");
    p.setup.virtualStages = ints(s, "virtual_stages");
    if (p.setup.virtualStages.empty())
        p.setup.virtualStages = {2};
    p.setup.maxPipelineStages = s.integerInRange("max_pipeline_stages", ranges::pipelineStages, 8);
    p.setup.distributedOptimizer = s.boolean("distributed_optimizer", true);
    p.setup.overlapGradReduce = s.boolean("overlap_grad_reduce", false);    // validated with the setup below
    p.setup.overlapParamGather = s.boolean("overlap_param_gather", false);
    p.setup.flashAttention = s.boolean("flash_attention", true);
    p.setup.attentionDropout = s.number("attention_dropout", 0.0);  // validated with the setup below
    p.setup.hiddenDropout = s.number("hidden_dropout", 0.0);
    p.setup.sequenceParallel = s.boolean("sequence_parallel", true);
    p.setup.allowIdleGpus = s.boolean("allow_idle_gpus", true);
    p.setup.precision = s.string("precision", "auto");  // validated with the setup below
    if (!parseScheduleMode(s.string("schedule", "auto"), p.setup.schedule))
        s.fail("expected auto, 1f1b, interleaved or both", "schedule");
    if (!parseRecomputeMode(s.string("recompute", "policy"), p.setup.recompute))
        s.fail("expected policy, enumerate, none, selective or full", "recompute");
    if (!parsePlacementMode(s.string("placement", "contiguous"), p.setup.placement))
        s.fail("expected contiguous or all", "placement");
    if (!parseMeshMode(s.string("meshes", "uniform"), p.setup.meshes))  // absent before per-mesh plans
        s.fail("expected uniform or per-type", "meshes");
    try {
        p.setup.validate();
    } catch (const InputError& e) {
        throw InputError(file, "/setup/" + e.field(), e.reason());
    }
    auto o = root.at("objective");
    if (!parseProfile(o.string("profile", "default"), p.objective.profile))
        o.fail("expected default, safety-first, throughput-first, balanced, custom or auto", "profile");
    if (o.has("custom_weights")) {
        auto w = o.at("custom_weights");
        if (!w.node().is_array() || w.node().size() != 3)
            w.fail("expected three weights [time, memory, variance]");
        p.objective.custom = {w.at(0).asNumber(), w.at(1).asNumber(), w.at(2).asNumber()};
        // The check `memx-cli search --weights` applies; the stored values
        // stay as written (the workbench normalises when it searches).
        try {
            Objective::normalised(p.objective.custom);
        } catch (const std::invalid_argument& e) {
            w.fail(e.what());
        }
    }
    std::string variance = o.string("variance", "mib");
    if (variance != "mib" && variance != "util")
        o.fail("expected mib or util", "variance");
    p.objective.variance = variance == "util" ? VarianceMode::Utilisation : VarianceMode::AbsoluteMiB;
    // eV's rule. A project written before the rule existed holds only
    // epsilon_fraction (the paper's eV = fraction x Vref), and keeps it.
    const std::string rule = o.string("epsilon_rule", o.has("epsilon_fraction") ? "fraction" : "uncertainty");
    if (rule == "uncertainty")
        p.objective.epsilonRule = EpsilonRule::Uncertainty;
    else if (rule == "fraction")
        p.objective.epsilonRule = EpsilonRule::Fraction;
    else if (rule == "absolute")
        p.objective.epsilonRule = EpsilonRule::Absolute;
    else
        o.fail("expected uncertainty, fraction or absolute", "epsilon_rule");
    p.objective.epsilonFraction = o.number("epsilon_fraction", 0.01);
    if (!(p.objective.epsilonFraction > 0 && p.objective.epsilonFraction < 1))  // as memx-cli search --eps
        o.fail("expected a small fraction in (0, 1)", "epsilon_fraction");
    if (p.objective.epsilonRule == EpsilonRule::Absolute) {
        p.objective.epsilonValue = o.number("epsilon");
        if (!(p.objective.epsilonValue >= 0 && std::isfinite(p.objective.epsilonValue)))  // as memx-cli search --ev
            o.fail("expected a finite number >= 0", "epsilon");
    }
    const std::string compare = o.string("compare_tasks", "per-task");
    if (!parseTaskCompare(compare, p.objective.compareTasks))
        o.fail("expected per-task or per-token", "compare_tasks");
    // The constraints, as memx-cli search --min-headroom / --max-slowdown check them.
    if (o.has("min_headroom")) {
        auto h = o.at("min_headroom");
        if (!h.node().is_object())
            h.fail("expected {\"fraction\": ..., \"at_upper_bound\": ...}");
        p.objective.minHeadroom = h.number("fraction");
        if (!(p.objective.minHeadroom >= 0 && p.objective.minHeadroom < 1))
            h.fail("expected a fraction in [0, 1)", "fraction");
        p.objective.headroomAtUpper = h.boolean("at_upper_bound", false);
    }
    if (o.has("max_slowdown")) {
        p.objective.maxSlowdown = o.number("max_slowdown");
        if (!(p.objective.maxSlowdown >= 0 && p.objective.maxSlowdown <= 100))
            o.fail("expected a fraction of at least 0 (0.1 = 10% slower than the fastest plan)", "max_slowdown");
    }
    p.predictor = root.string("predictor", "analytic");
    if (root.has("last_result"))
        p.lastResult = root.at("last_result").node();
    return p;
}

Project Project::load(const std::string& file)
{
    return fromJson(JsonReader::parseFile(file), file);
}

void Project::save(const std::string& file) const
{
    writeFileAtomically(file, toJson().dump(2) + "\n");
}

}  // namespace memx
