#include "export/PlanJsonReader.h"
#include "io/FieldSpelling.h"
#include "space/TrainingSetupJson.h"

#include "model/Precision.h"

#include "space/MeshRules.h"
#include "space/StageSlots.h"

#include "hardware/GpuCatalog.h"
#include "io/InputError.h"
#include "io/JsonReader.h"
#include "io/Ranges.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include <climits>
#include <utility>

namespace memx {

namespace {

int intIn(const JsonReader& j, const std::string& key, long long lo, long long hi)
{
    long long v = j.integer(key);
    if (v < lo || v > hi)
        j.fail("must be between " + std::to_string(lo) + " and " + std::to_string(hi) + " (got " + std::to_string(v)
                   + ")",
               key);
    return static_cast<int>(v);
}

int intIn(const JsonReader& j, const std::string& key, long long lo, long long hi, int fallback)
{
    return j.has(key) ? intIn(j, key, lo, hi) : fallback;
}

Provenance parseProvenance(const JsonReader& j, const std::string& key)
{
    const std::string s = j.string(key, "analytic");
    for (Provenance p : {Provenance::Analytic, Provenance::Learned, Provenance::Cached, Provenance::Extrapolated})
        if (s == toString(p))
            return p;
    j.fail("unknown provenance \"" + s + "\"; expected analytic, learned, cached or extrapolated", key);
}

// The embedded cluster and model: their readers name paths from their own
// root, so prefix the key they sit under.
template <typename Fn> auto nested(const std::string& file, const std::string& prefix, Fn fn)
{
    try {
        return fn();
    } catch (const InputError& e) {
        const std::string& f = e.field();
        throw InputError(file, prefix + (f.empty() || f[0] == '/' ? f : "/" + f), e.reason());
    }
}

}  // namespace

bool PlanJsonReader::isPlanFormat(const std::string& format)
{
    return format == "memx-plan/2" || format == "memx-plan/1";
}

bool PlanJsonReader::isSearchFormat(const std::string& format)
{
    return format == "memx-search/2" || format == "memx-search/1";
}

namespace {

// The plan's shape and schedule, each checked against the others and the model.
void readShape(const JsonReader& j, const ModelSpec& model, Plan& p)
{
    p.tp = intIn(j, "tp", 1, 4096);
    p.pp = intIn(j, "pp", 1, 4096);
    p.dp = intIn(j, "dp", 1, 1 << 20);
    p.microBatch = intIn(j, "micro_batch", 1, 1 << 20);
    p.globalBatch = intIn(j, "global_batch", 1, 1 << 24);
    // memx-plan/1 (before 2026-12-06) calls the count G "micro_batches".
    const std::string countKey = FieldSpelling::of(j, "micro_batch_count", "micro_batches");
    p.microBatchCount = intIn(j, countKey, 1, 1 << 24);
    if (static_cast<long long>(p.microBatchCount) * p.dp * p.microBatch != p.globalBatch)
        j.fail("global_batch (" + std::to_string(p.globalBatch) + ") must equal " + countKey + " x dp x micro_batch ("
                   + std::to_string(p.microBatchCount) + " x " + std::to_string(p.dp) + " x "
                   + std::to_string(p.microBatch) + ")",
               countKey);
    p.seqLen = intIn(j, "seq_len", 16, 1 << 22);
    p.queryGroups = intIn(j, "query_groups", 1, 4096);
    if (model.heads % p.queryGroups != 0)
        j.fail("the model's " + std::to_string(model.heads) + " heads are not a multiple of "
                   + std::to_string(p.queryGroups) + " query groups",
               "query_groups");
    const std::string schedule = j.string("schedule");
    if (schedule == "1f1b")
        p.schedule = Schedule::OneF1B;
    else if (schedule == "interleaved")
        p.schedule = Schedule::Interleaved;
    else
        j.fail("unknown schedule \"" + schedule + "\"; expected 1f1b or interleaved", "schedule");
    p.virtualStages = intIn(j, "virtual_stages", 1, 1024, 1);
    if (p.schedule == Schedule::OneF1B && p.virtualStages != 1)
        j.fail("a 1f1b plan has virtual_stages 1", "virtual_stages");
    if (p.schedule == Schedule::Interleaved && p.virtualStages < 2)
        j.fail("an interleaved plan needs virtual_stages of at least 2", "virtual_stages");
}

// Predicted costs, ranks and provenance, as the search wrote them.
void readCosts(const JsonReader& j, Plan& p)
{
    p.iterationMs = j.inRange("iteration_ms", ranges::timeMs);
    if (j.has("per_token_ms") && p.iterationMs > 0)
        p.rankScale = j.inRange("per_token_ms", ranges::timeMs) / p.iterationMs;
    p.maxMemMiB = j.inRange("max_mem_mib", ranges::memoryMiB);
    p.varMem = j.number("mem_variance", 0);
    p.phi = j.number("phi", 0);
    const auto rank = [&](const char* key) {
        const long long v = j.integer(key, 0);
        if (v < 0)
            j.fail("must not be negative (got " + std::to_string(v) + ")", key);
        return static_cast<std::uint64_t>(v);
    };
    p.rankTime = rank("rank_time");
    p.rankPhi = rank("rank_phi");
    p.ranksApproximate = j.boolean("ranks_approximate", false);
    p.provenance = parseProvenance(j, "provenance");
    p.uncertainty = j.number("relative_uncertainty", 0);
    p.dpMs = j.number("dp_sync_ms", 0);
    p.fixedMs = j.number("fixed_ms", 0);
    if (j.has("pp_hop_ms"))
        for (const auto& h : j.at("pp_hop_ms").items()) {
            p.hopMs.push_back(h.asNumber());
        }
    if (j.has("key")) {
        if (!j.at("key").node().is_number_unsigned())
            j.fail("expected a non-negative integer", "key");
        p.key = j.at("key").node().get<std::uint64_t>();
    }
    if (j.has("idle_gpus")) {
        p.idleGpus = intIn(j, "idle_gpus", 0, INT_MAX);
    }
}

// The stage's device group (one GPU type) and the devices it may use.
std::vector<int> readStageGroup(const JsonReader& sj, const Cluster& cluster, StagePlan& s)
{
    s.groupName = sj.name("group");
    s.groups = StageSlots::groupsNamed(cluster, s.groupName);
    s.group = s.groups.empty() ? -1 : s.groups.front();
    if (s.group < 0) {
        std::string known;
        for (const auto& g : cluster.groups())
            known += (known.empty() ? "" : ", ") + g.name;
        sj.fail("no device group \"" + s.groupName + "\" in cluster " + cluster.name() + "; its groups are " + known,
                "group");
    }
    const DeviceGroup& group = cluster.groups()[static_cast<std::size_t>(s.group)];
    std::vector<int> groupDevices;
    for (int g : s.groups) {
        const DeviceGroup& other = cluster.groups()[static_cast<std::size_t>(g)];
        if (other.type != group.type)
            sj.fail("stage " + s.groupName + " mixes GPU types; a stage holds one type", "group");
        groupDevices.insert(groupDevices.end(), other.devices.begin(), other.devices.end());
    }
    s.gpuType = sj.name("gpu_type", cluster.types()[static_cast<std::size_t>(group.type)].name);
    if (s.gpuType != cluster.types()[static_cast<std::size_t>(group.type)].name)
        sj.fail("group " + group.name + " holds " + cluster.types()[static_cast<std::size_t>(group.type)].name
                    + ", not " + s.gpuType,
                "gpu_type");
    return groupDevices;
}

// The stage's mesh shape (FlagScale's rules) and its devices, each used once.
void readStageShape(const JsonReader& sj, const Cluster& cluster, const ModelSpec& model, const Plan& p,
                    const std::vector<int>& groupDevices, std::vector<int>& used, StagePlan& s)
{
    s.slice = intIn(sj, "slice", 0, 4096, 0);
    // A per-mesh plan (FlagScale's process meshes) gives a stage its own
    // TP, DP and micro-batch; absent, the stage has the plan's.
    s.tp = intIn(sj, "tp", 1, 4096, p.tp);
    s.dp = intIn(sj, "dp", 1, 1 << 20, p.dp);
    s.microBatch = intIn(sj, "micro_batch", 1, 1 << 20, p.microBatch);
    if (MeshRules::meshMicroBatch(p.dp, p.microBatch, s.dp) != s.microBatch)
        sj.fail("a mesh's micro-batch is dp0 x mbs / dp (FlagScale's rule, dp0 and mbs the plan's): "
                    + std::to_string(p.dp) + " x " + std::to_string(p.microBatch) + " / " + std::to_string(s.dp)
                    + " is not " + std::to_string(s.microBatch),
                "micro_batch");
    if (p.stages.empty() && (s.tp != p.tp || s.dp != p.dp))
        sj.fail("the first stage's TP and DP are the plan's (the global DP is the first mesh's)", "tp");
    if (model.heads % s.tp != 0)
        sj.fail("the model's " + std::to_string(model.heads) + " heads are not divisible by TP " + std::to_string(s.tp),
                "tp");
    s.devices = sj.intList("devices", 0);
    if (static_cast<int>(s.devices.size()) != s.tp * s.dp)
        sj.fail("holds " + std::to_string(s.devices.size()) + " devices; TP x DP = " + std::to_string(s.tp * s.dp),
                "devices");
    for (int d : s.devices) {
        if (d < 0 || d >= cluster.deviceCount()
            || std::find(groupDevices.begin(), groupDevices.end(), d) == groupDevices.end())
            sj.fail("device " + std::to_string(d) + " is not a device of group " + s.groupName, "devices");
        if (used[static_cast<std::size_t>(d)]++)
            sj.fail("device " + std::to_string(d) + " (" + cluster.deviceLabel(d) + ") is used by two stages",
                    "devices");
    }
}

// The stage's layers (in pipeline order from `layerSum`) and recomputation.
void readStageLayers(const JsonReader& sj, const ModelSpec& model, const Plan& p, int& layerSum, StagePlan& s)
{
    s.firstLayer = intIn(sj, "first_layer", 0, model.numLayers - 1, layerSum);
    s.layers = intIn(sj, "layers", 1, model.numLayers);
    if (s.firstLayer != layerSum)
        sj.fail("expected first_layer " + std::to_string(layerSum) + " (stages are in pipeline order)", "first_layer");
    if (p.schedule == Schedule::Interleaved && s.layers % p.virtualStages != 0)
        sj.fail("an interleaved stage's layers must be a multiple of virtual_stages (" + std::to_string(p.virtualStages)
                    + ")",
                "layers");
    layerSum += s.layers;
    const std::string rc = sj.string("recompute");
    if (!parseRecompute(rc, s.recompute))
        sj.fail("unknown recompute level \"" + rc + "\"; expected none, selective or full", "recompute");
    s.inflight = sj.number("inflight_micro_batches", 1);
    s.timeMs = sj.number("micro_batch_ms", 0);
    s.capacityMiB = sj.number("capacity_mib", 0);
}

void readStageMemory(const JsonReader& sj, StagePlan& s)
{
    if (sj.has("memory_mib")) {
        const JsonReader m = sj.at("memory_mib");
        s.memory.weightsMiB = m.number("weights", 0);
        s.memory.gradientsMiB = m.number("gradients", 0);
        s.memory.optimizerMiB = m.number("optimizer", 0);
        s.memory.activationsMiB = m.number("activations", 0);
        s.memory.frameworkMiB = m.number("framework", 0);  // absent before framework buffers were calibrated
        s.memory.allocatorMiB = m.number("allocator", 0);  // absent before allocator slack was modelled
        s.memory.reserveMiB = m.number("reserve", 0);
    } else {
        // Only the total is known: keep it, as activations.
        s.memory.activationsMiB = sj.number("peak_mib");
    }
}

// A uniform plan's stages say their shape with 0; a per-mesh plan keeps
// FlagScale's rules for process meshes (reference: its arguments.py).
void normaliseMeshes(const JsonReader& j, const ModelSpec& model, bool distributedOptimizer, Plan& p)
{
    if (!p.perMesh()) {
        // A uniform plan's stages have the plan's shape, which a Plan says
        // with 0 (PlanBuilder): the plan read is the plan written.
        for (StagePlan& s : p.stages)
            s.tp = s.dp = s.microBatch = 0;
    } else {
        // FlagScale's rules for process meshes (reference: its arguments.py).
        if (p.schedule == Schedule::Interleaved)
            j.fail("a per-mesh plan cannot interleave: FlagScale's heterogeneous training has no virtual pipeline",
                   "schedule");
        const StageShape first = p.shapeOf(0), last = p.shapeOf(p.stages.size() - 1);
        if (model.tiedEmbeddings)
            if (const std::string broken
                = MeshRules::tiedEmbeddings(first.tp, last.tp, first.dp, last.dp, distributedOptimizer);
                !broken.empty())
                j.fail(broken + " (FlagScale's rule)", "stages");
        // One mesh per GPU type: a type's stages are neighbours with one shape.
        std::vector<std::string> meshTypes;  // a mesh: a run of stages of one type and shape
        for (std::size_t i = 0; i < p.stages.size(); ++i) {
            if (i > 0 && p.stages[i - 1].gpuType == p.stages[i].gpuType && p.shapeOf(i - 1) == p.shapeOf(i))
                continue;
            if (std::find(meshTypes.begin(), meshTypes.end(), p.stages[i].gpuType) != meshTypes.end())
                j.fail("stage " + std::to_string(i) + " (" + p.stages[i].gpuType
                           + ") starts a second mesh of "
                             "its GPU type; FlagScale gives each device type one mesh of neighbouring stages with "
                             "one TP and DP",
                       "stages/" + std::to_string(i));
            meshTypes.push_back(p.stages[i].gpuType);
        }
    }
}

}  // namespace

Plan PlanJsonReader::planFromJson(const JsonReader& j, const Cluster& cluster, const ModelSpec& model,
                                  bool distributedOptimizer)
{
    if (!j.node().is_object())
        j.fail("expected a memx-plan/2 object");
    if (j.has("format") && !isPlanFormat(j.string("format")))
        j.fail("expected format \"memx-plan/2\" (or /1), got \"" + j.string("format") + "\"", "format");
    Plan p;
    readShape(j, model, p);
    readCosts(j, p);
    const auto stages = j.at("stages").items();
    if (static_cast<int>(stages.size()) != p.pp)
        j.fail("holds " + std::to_string(stages.size()) + " stages but pp is " + std::to_string(p.pp), "stages");
    std::vector<int> used(static_cast<std::size_t>(cluster.deviceCount()), 0);
    int layerSum = 0;
    for (const auto& sj : stages) {
        StagePlan s;
        const std::vector<int> groupDevices = readStageGroup(sj, cluster, s);
        readStageShape(sj, cluster, model, p, groupDevices, used, s);
        readStageLayers(sj, model, p, layerSum, s);
        readStageMemory(sj, s);
        p.stages.push_back(s);
    }
    if (layerSum != model.numLayers)
        j.fail("stage layers add up to " + std::to_string(layerSum) + " but model " + model.name + " has "
                   + std::to_string(model.numLayers),
               "stages");
    normaliseMeshes(j, model, distributedOptimizer, p);
    return p;
}

PlanDocument PlanJsonReader::read(const std::string& file, int rank)
{
    return fromJson(JsonReader::parseFile(file), file, rank);
}

PlanDocument PlanJsonReader::fromJson(const nlohmann::json& doc, const std::string& file, int rank)
{
    JsonReader root(doc, file);
    if (!doc.is_object())
        root.fail("expected a JSON object (memx-plan/2 or memx-search/2)");
    if (rank < 0)
        throw InputError(file, "--rank", "must be at least 1");
    PlanDocument d;
    d.file = file;
    d.format = root.string("format");
    if (!isPlanFormat(d.format) && !isSearchFormat(d.format))
        root.fail("expected \"memx-plan/2\" or \"memx-search/2\" (or their /1), got \"" + d.format + "\"", "format");
    for (const char* key : {"cluster", "model", "setup"})
        if (!root.has(key))
            root.fail(isPlanFormat(d.format)
                          ? "missing: this plan file does not say which cluster, model and setup it was made for "
                            "(written by an older MemX or by the workbench's Export Plan); export from the search "
                            "JSON (memx-cli search --json) or a plan written by memx-cli export --target json"
                          : "missing required field",
                      key);
    d.toolVersion = root.name("tool_version", "unknown");
    d.predictor = root.name("predictor", "unknown");
    d.problem.cluster
        = nested(file, "/cluster", [&] { return Cluster::fromJson(doc.at("cluster"), file, GpuCatalog::builtin()); });
    d.problem.model = nested(file, "/model", [&] { return ModelSpec::fromJson(JsonReader(doc.at("model"), file)); });
    d.problem.setup = TrainingSetupJson::read(root.at("setup"));
    if (isPlanFormat(d.format)) {
        if (rank > 1)
            throw InputError(file, "--rank", "a plan file holds one plan; --rank applies to search files");
        d.plan = planFromJson(root, d.problem.cluster, d.problem.model, d.problem.setup.distributedOptimizer);
        d.rank = static_cast<int>(d.plan.rankPhi);
    } else {
        if (root.has("error"))
            root.fail("the search found no feasible plan: " + root.string("error"), "error");
        const JsonReader best = root.at("best");
        const auto plans = best.items();
        if (plans.empty())
            best.fail("the search holds no ranked plan");
        const int want = rank == 0 ? 1 : rank;
        if (want > static_cast<int>(plans.size()))
            throw InputError(file, "--rank",
                             "the search holds " + std::to_string(plans.size()) + " ranked plans (\"best\"); rank "
                                 + std::to_string(want) + " is not among them (search with a larger --keep)");
        d.plan = planFromJson(plans[static_cast<std::size_t>(want - 1)], d.problem.cluster, d.problem.model,
                              d.problem.setup.distributedOptimizer);
        d.rank = want;
        if (root.has("objective"))
            d.objective = root.at("objective").name("profile_used", "");
        d.incomplete = root.name("incomplete", "");
    }
    if (d.plan.globalBatch != d.problem.setup.globalBatch)
        root.fail("the plan's global_batch (" + std::to_string(d.plan.globalBatch) + ") differs from the setup's ("
                      + std::to_string(d.problem.setup.globalBatch) + ")",
                  "setup/global_batch");
    return d;
}

}  // namespace memx
