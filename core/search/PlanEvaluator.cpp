#include "search/PlanEvaluator.h"

#include "hardware/Topology.h"
#include "io/InputError.h"
#include "predict/AnalyticPredictor.h"
#include "predict/PredictionCache.h"
#include "search/PlanBuilder.h"
#include "space/Problem.h"
#include "search/Skeleton.h"
#include "search/SkeletonTables.h"
#include "search/SplitSearch.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

namespace memx {

PlanSpec PlanSpec::of(const Plan& p, std::vector<Recompute> levels)
{
    PlanSpec spec;
    spec.tp = p.tp;
    spec.dp = p.dp;
    spec.microBatch = p.microBatch;
    spec.seqLen = p.seqLen;
    spec.queryGroups = p.queryGroups;
    spec.schedule = p.schedule;
    spec.virtualStages = p.virtualStages;
    if (p.perMesh())
        for (std::size_t i = 0; i < p.stages.size(); ++i)
            spec.shapes.push_back(p.shapeOf(i));
    for (const auto& s : p.stages) {
        spec.stageGroups.push_back(s.groupName);
        spec.layers.push_back(s.layers);
        if (levels.size() < p.stages.size())
            levels.push_back(s.recompute);
    }
    spec.recompute = std::move(levels);
    return spec;
}

namespace {

// The spec's counts and per-mesh shapes checked (FlagScale's rules); the
// skeleton without its stage slots.
Skeleton skeletonOf(const Problem& problem, const PlanSpec& spec)
{
    const int P = static_cast<int>(spec.stageGroups.size());
    if (P < 1)
        throw InputError("plan", "stages", "a plan needs at least one stage");
    if (static_cast<int>(spec.layers.size()) != P)
        throw InputError("plan", "layers", "one layer count per stage expected");
    if (std::accumulate(spec.layers.begin(), spec.layers.end(), 0) != problem.model.numLayers)
        throw InputError("plan", "layers",
                         "layers must add up to the model's " + std::to_string(problem.model.numLayers));
    if (!spec.recompute.empty() && static_cast<int>(spec.recompute.size()) != P)
        throw InputError("plan", "recompute", "one recomputation level per stage expected");
    Skeleton sk;
    sk.tp = spec.tp;
    sk.dp = spec.dp;
    sk.mbs = spec.microBatch;
    sk.seq = spec.seqLen > 0 ? spec.seqLen : problem.model.seqLen;
    sk.queryGroups = spec.queryGroups > 0 ? spec.queryGroups : problem.model.queryGroups;
    if (spec.tp < 1 || spec.dp < 1 || spec.microBatch < 1
        || problem.setup.globalBatch % (spec.dp * spec.microBatch) != 0)
        throw InputError("plan", "dp/micro_batch", "global batch must be divisible by DP x micro-batch");
    sk.microBatchCount = problem.setup.globalBatch / (spec.dp * spec.microBatch);
    if (!spec.shapes.empty()) {
        if (static_cast<int>(spec.shapes.size()) != P)
            throw InputError("plan", "stages", "one TP x DP shape per stage expected");
        const StageShape first{spec.tp, spec.dp, spec.microBatch};
        if (!(spec.shapes.front() == first))
            throw InputError("plan", "stages/0", "the first stage's TP, DP and micro-batch are the plan's");
        for (int i = 0; i < P; ++i) {
            const StageShape& s = spec.shapes[static_cast<std::size_t>(i)];
            if (s.tp < 1 || s.dp < 1 || s.microBatch < 1 || s.dp * s.microBatch != spec.dp * spec.microBatch)
                throw InputError("plan", "stages/" + std::to_string(i),
                                 "a mesh's micro-batch must be dp0 x mbs / dp (FlagScale's rule): "
                                     + std::to_string(spec.dp) + " x " + std::to_string(spec.microBatch) + " / "
                                     + std::to_string(s.dp) + " is not " + std::to_string(s.microBatch));
        }
        if (!std::all_of(spec.shapes.begin(), spec.shapes.end(), [&](const StageShape& s) { return s == first; }))
            sk.shapes = spec.shapes;
        if (sk.perMesh() && spec.schedule == Schedule::Interleaved)
            throw InputError("plan", "schedule",
                             "a per-mesh plan cannot interleave (FlagScale has no virtual pipeline "
                             "in heterogeneous training)");
    }
    sk.schedule = spec.schedule;
    sk.virtualStages = spec.schedule == Schedule::Interleaved ? spec.virtualStages : 1;
    return sk;
}

// A stage's slot from its group name: "a100" takes the group's next TP x DP
// block, "n0+n1" the named whole groups. `used` counts each group's slots.
StageSlot slotOf(const Cluster& cluster, const Skeleton& sk, int stage, const std::string& name, std::vector<int>& used)
{
    const int w = sk.shapeOf(stage).gpus();
    const int stageTp = sk.shapeOf(stage).tp;
    const std::vector<int> gs = StageSlots::groupsNamed(cluster, name);
    if (gs.empty())
        throw InputError("plan", "stage group", "no device group named \"" + name + "\" in cluster " + cluster.name());
    StageSlot slot;
    slot.groups = gs;
    slot.type = cluster.groups()[static_cast<std::size_t>(gs.front())].type;
    for (int g : gs) {
        const DeviceGroup& group = cluster.groups()[static_cast<std::size_t>(g)];
        if (group.type != slot.type)
            throw InputError("plan", "stage group", "stage " + name + " mixes GPU types; a stage holds one type");
        if (gs.size() > 1) {
            if (used[static_cast<std::size_t>(g)]++ > 0)
                throw InputError("plan", "stage group", "device group " + group.name + " is used by two stages");
            if (static_cast<int>(group.devices.size()) % stageTp != 0)
                throw InputError("plan", "stage group",
                                 "device group " + group.name
                                     + " is not a multiple of TP = " + std::to_string(stageTp));
            slot.devices.insert(slot.devices.end(), group.devices.begin(), group.devices.end());
        }
    }
    if (gs.size() == 1) {
        const int g = gs.front();
        const DeviceGroup& group = cluster.groups()[static_cast<std::size_t>(g)];
        slot.slice = used[static_cast<std::size_t>(g)]++;
        if ((slot.slice + 1) * w > static_cast<int>(group.devices.size()))
            throw InputError("plan", "stage group",
                             "device group " + name + " has too few GPUs for " + std::to_string(slot.slice + 1)
                                 + " stage(s) of TP x DP = " + std::to_string(w));
        const auto first = static_cast<std::ptrdiff_t>(slot.slice) * w;
        slot.devices.assign(group.devices.begin() + first, group.devices.begin() + first + w);
        slot.name = StageSlots::label(group.name, slot.slice, false);
    } else {
        slot.name = name;
        if (static_cast<int>(slot.devices.size()) != w)
            throw InputError("plan", "stage group",
                             "stage " + name + " has " + std::to_string(slot.devices.size())
                                 + " GPUs; TP x DP = " + std::to_string(w));
    }
    return slot;
}

// Each stage's level (the spec's, else the policy's, else full when nothing
// fits) and whether the split fits and runs.
std::vector<int> levelsOf(const PlanSpec& spec, const Skeleton& sk, const SkeletonTables& t, Evaluation& ev)
{
    const int P = t.stages;
    std::vector<int> levels(P);
    ev.feasible = true;
    for (int i = 0; i < P; ++i) {
        int n = spec.layers[i];
        if (!spec.recompute.empty()) {
            levels[i] = static_cast<int>(spec.recompute[i]);
        } else if (t.row(i).policyLevel[n] >= 0) {
            levels[i] = t.row(i).policyLevel[n];
        } else {
            levels[i] = static_cast<int>(Recompute::Full);  // nothing fits: show the most frugal level
        }
        const auto& pred = t.row(i).pred[n][levels[i]];
        if (pred.memoryMiB() > t.capacityMiB[i]) {
            char buf[160];
            std::snprintf(buf, sizeof buf, "stage %d (%s) needs %.1f GiB, has %.1f GiB", i, sk.slot(i).name.c_str(),
                          pred.memoryMiB() / 1024, t.capacityMiB[i] / 1024);
            ev.whyInfeasible += (ev.whyInfeasible.empty() ? "" : "; ") + std::string(buf);
            ev.feasible = false;
        }
        if (sk.schedule == Schedule::Interleaved && n % sk.virtualStages != 0) {
            ev.whyInfeasible += (ev.whyInfeasible.empty() ? "" : "; ") + std::string("stage ") + std::to_string(i)
                + " layers not divisible by the virtual stages";
            ev.feasible = false;
        }
    }
    return levels;
}

}  // namespace

Evaluation PlanEvaluator::evaluate(const Problem& problem, const PlanSpec& spec,
                                   std::shared_ptr<const Predictor> predictor, VarianceMode variance,
                                   const PredictionStore* store)
{
    const Cluster& cluster = problem.cluster;
    Skeleton sk = skeletonOf(problem, spec);
    const int P = static_cast<int>(spec.stageGroups.size());
    auto slotSet = std::make_shared<StageSlotSet>();
    std::vector<int> used(cluster.groups().size(), 0);
    for (int stage = 0; stage < P; ++stage) {
        sk.stageSlot.push_back(static_cast<int>(slotSet->all.size()));
        slotSet->all.push_back(slotOf(cluster, sk, stage, spec.stageGroups[static_cast<std::size_t>(stage)], used));
    }
    sk.slotSet = slotSet;

    if (!predictor)
        predictor = std::make_shared<AnalyticPredictor>();
    PredictionCache cache(*predictor, store);
    Topology topo(cluster);
    SkeletonTables t;
    // Evaluate the stage counts the spec asks for, even beyond what a search
    // would consider feasible: layers for each stage may be up to L - (P-1).
    std::string why;
    // Only the split's rows are predicted: check it first.
    for (int i = 0; i < P; ++i)
        if (spec.layers[static_cast<std::size_t>(i)] < 1
            || spec.layers[static_cast<std::size_t>(i)] > problem.model.numLayers - (P - 1))
            throw InputError("plan", "layers", "stage " + std::to_string(i) + " has an impossible layer count");
    if (!SkeletonTables::build(problem, sk, topo, cache, t, why, &spec.layers))
        throw InputError("plan", "placement", why);

    Evaluation ev;
    const std::vector<int> levels = levelsOf(spec, sk, t, ev);
    std::vector<double> scratch;
    Leaf leaf = SplitSearch::compose(t, sk, spec.layers.data(), levels.data(), variance, scratch);
    ev.plan = PlanBuilder::build(cluster, sk, t, leaf, problem.setup.globalBatch);
    return ev;
}

}  // namespace memx
