#include "search/ShapeExplanation.h"

#include "hardware/Cluster.h"
#include "hardware/Topology.h"
#include "io/Text.h"
#include "predict/AnalyticPredictor.h"
#include "predict/PredictionCache.h"
#include "search/NearMiss.h"
#include "search/Objective.h"
#include "search/Skeleton.h"
#include "search/SkeletonTables.h"
#include "search/SplitSearch.h"
#include "space/Problem.h"
#include "space/StageSlots.h"

#include <algorithm>
#include <limits>
#include <map>

namespace memx {

namespace {

std::string n(long long v) { return std::to_string(v); }

// "A100-80GB 2, H100-SXM 1": slots per GPU type, cluster order.
std::string slotsPerType(const Cluster& cluster, const StageSlotSet& set)
{
    std::map<int, int> count;
    for (const auto& s : set.all)
        ++count[s.type];
    std::string out;
    for (const auto& [type, k] : count)
        out += (out.empty() ? "" : ", ") + cluster.types()[static_cast<std::size_t>(type)].name + " " + n(k);
    return out;
}

// "A100-80GB: 16 GPUs in nodes of 8; H100-SXM: 8 GPUs in nodes of 8".
std::string gpusPerType(const Cluster& cluster)
{
    std::map<int, std::pair<int, std::vector<int>>> byType;
    for (const auto& g : cluster.groups()) {
        auto& [gpus, sizes] = byType[g.type];
        gpus += static_cast<int>(g.devices.size());
        if (std::find(sizes.begin(), sizes.end(), static_cast<int>(g.devices.size())) == sizes.end())
            sizes.push_back(static_cast<int>(g.devices.size()));
    }
    std::string out;
    for (const auto& [type, v] : byType)
        out += (out.empty() ? "" : "; ") + cluster.types()[static_cast<std::size_t>(type)].name + ": " + n(v.first)
            + " GPUs in nodes of " + Text::joinInts(v.second, " or ");
    return out;
}

std::uint64_t saturate(CandidateCount c)
{
    return c > std::numeric_limits<std::uint64_t>::max() ? std::numeric_limits<std::uint64_t>::max()
                                                         : static_cast<std::uint64_t>(c);
}

// The model's and rule 1's reasons, before any stage is cut.
void modelAndRuleOne(const Problem& problem, ShapeExplanation& e)
{
    const ModelSpec& m = problem.model;
    if (m.heads % e.tp != 0)
        e.reasons.push_back("Megatron-LM splits the attention heads evenly over TP: " + m.name + " has " + n(m.heads)
                            + " heads, which TP " + n(e.tp) + " does not divide");
    int largest = 0;
    std::string where;
    for (const auto& g : problem.cluster.groups())
        if (static_cast<int>(g.devices.size()) > largest) {
            largest = static_cast<int>(g.devices.size());
            where = g.name;
        }
    if (e.tp > largest)
        e.reasons.push_back("rule 1: a TP group stays inside one node and one GPU type; the largest such group here is "
                            + n(largest) + " GPUs (" + where + "), fewer than TP " + n(e.tp));
    const auto& tps = problem.setup.tensorParallel;
    if (!tps.empty() && std::find(tps.begin(), tps.end(), e.tp) == tps.end())
        e.reasons.push_back("TP " + n(e.tp) + " is not among the TP values searched (--tp " + Text::joinInts(tps, ",")
                            + ")");
}

// The stage slots TP x DP cuts the cluster into decide PP.
void stageSlots(const Problem& problem, ShapeExplanation& e)
{
    const Cluster& cluster = problem.cluster;
    const int w = e.tp * e.dp;
    const StageSlotSet set = StageSlots::of(cluster, w, e.tp);
    const int slots = static_cast<int>(set.all.size());
    if (slots == 0) {
        e.reasons.push_back("no GPU type can hold a stage of TP x DP = " + n(w)
                            + " GPUs (part of one node, or whole "
                              "nodes of one type whose sizes add up to it): "
                            + gpusPerType(cluster));
    } else if (slots != e.pp) {
        e.reasons.push_back("TP x DP = " + n(w) + " cuts the cluster into " + n(slots) + " stage slot"
                            + (slots == 1 ? "" : "s") + " (" + slotsPerType(cluster, set)
                            + ") and a uniform plan puts "
                              "a pipeline stage on every slot, so with TP "
                            + n(e.tp) + " and DP " + n(e.dp) + " its PP is " + n(slots) + ", not " + n(e.pp)
                            + (set.idleGpus > 0 ? " (" + n(set.idleGpus) + " GPUs no slot can use stay idle)" : ""));
    } else {
        const TrainingSetup& s = problem.setup;
        if (set.idleGpus > 0 && !s.allowIdleGpus)
            e.reasons.push_back("it leaves " + n(set.idleGpus) + " GPUs idle, and idle GPUs are not allowed");
        if (e.pp > s.maxPipelineStages)
            e.reasons.push_back("PP " + n(e.pp) + " is above the search's limit (--max-pp " + n(s.maxPipelineStages)
                                + ")");
        if (e.pp < s.minPipelineStages)
            e.reasons.push_back("PP " + n(e.pp) + " is below the search's limit (--min-pp " + n(s.minPipelineStages)
                                + ")");
        if (e.pp > problem.model.numLayers)
            e.reasons.push_back("PP " + n(e.pp) + " is more stages than " + problem.model.name + " has layers ("
                                + n(problem.model.numLayers) + ")");
        bool anyMbs = false;
        for (int mbs : s.microBatchSizes)
            anyMbs = anyMbs || (mbs >= 1 && s.globalBatch % (e.dp * mbs) == 0);
        if (!anyMbs)
            e.reasons.push_back("the global batch " + n(s.globalBatch) + " is not divisible by DP " + n(e.dp)
                                + " x any micro-batch size searched (" + Text::joinInts(s.microBatchSizes, ", ") + ")");
    }
    if (!e.reasons.empty() && cluster.types().size() >= 2) {
        e.hints.push_back("per-type meshes (--meshes per-type, or Meshes: per GPU type) give each GPU type's stages "
                          "their own TP and DP");
        e.hints.push_back("--choose-nodes (or Choose nodes in the What-if dock) searches the cluster without whole GPU "
                          "types, which makes fewer stage slots");
    }
}

}  // namespace

ShapeExplanation ShapeExplanation::of(const Problem& problem, int tp, int pp, int dp,
                                      const std::shared_ptr<const Predictor>& predictor, std::size_t maxSkeletons)
{
    ShapeExplanation e;
    e.tp = tp;
    e.pp = pp;
    e.dp = dp;
    if (tp < 1 || pp < 1 || dp < 1) {
        e.reasons.push_back("TP, PP and DP must each be at least 1");
        return e;
    }
    modelAndRuleOne(problem, e);
    if (e.reasons.empty())
        stageSlots(problem, e);
    if (!e.reasons.empty())
        return e;

    // The enumerator's own skeletons of this shape: its rules decide.
    Problem only = problem;
    only.setup.tensorParallel = {tp};
    only.setup.meshes = MeshMode::Uniform;
    const SkeletonList list = SkeletonEnumerator::enumerate(only);
    std::vector<const Skeleton*> mine;
    for (const auto& sk : list.skeletons)
        if (sk.dp == dp && sk.stages() == pp && !sk.perMesh())
            mine.push_back(&sk);
    e.skeletonsOfShape = mine.size();
    if (mine.empty()) {
        std::string rules;
        for (const auto& [rule, count] : list.excluded)
            rules += (rules.empty() ? "" : "; ") + rule;
        e.reasons.push_back("the search's rules for TP " + n(tp) + " leave no skeleton of this shape"
                            + (rules.empty() ? std::string() : ": " + rules));
        return e;
    }

    // Memory: count the plans that fit; where none does, the closest miss.
    const Topology topo(problem.cluster);
    const auto model = predictor ? predictor : std::make_shared<AnalyticPredictor>();
    PredictionCache cache(*model);
    const bool enumerateLevels = problem.setup.recompute == RecomputeMode::Enumerate;
    NearMiss closest;
    std::string unconnected;
    for (std::size_t k = 0; k < mine.size() && k < maxSkeletons; ++k) {
        const Skeleton& sk = *mine[k];
        SkeletonTables tables;
        std::string why;
        ++e.skeletonsChecked;
        if (!SkeletonTables::build(only, sk, topo, cache, tables, why)) {
            unconnected = why;
            continue;
        }
        const SplitSearch split(tables, sk, enumerateLevels, VarianceMode::AbsoluteMiB, k);
        const std::uint64_t fit = saturate(split.feasibleCount());
        e.plans = fit > std::numeric_limits<std::uint64_t>::max() - e.plans ? std::numeric_limits<std::uint64_t>::max()
                                                                            : e.plans + fit;
        if (fit == 0) {
            const NearMiss nm = NearMiss::of(problem.cluster, sk, tables);
            if (nm.ratio > 0 && (closest.ratio == 0 || nm.ratio < closest.ratio))
                closest = nm;
        }
    }
    e.fits = e.plans > 0;
    if (e.fits)
        return e;
    if (closest.ratio == 0 && !unconnected.empty()) {
        e.reasons.push_back("its stages cannot be joined: " + unconnected);
        return e;
    }
    e.reasons.push_back("memory: no layer split and recomputation of this shape fits"
                        + (closest.ratio > 0 ? "; " + closest.message : std::string()));
    e.hints.push_back("recomputation (--recompute enumerate), a smaller micro-batch (--mbs) or a larger TP lower the "
                      "memory per GPU");
    return e;
}

std::string ShapeExplanation::text() const
{
    const std::string shape = "TP " + n(tp) + ", PP " + n(pp) + ", DP " + n(dp);
    std::string out;
    if (fits) {
        out = "Shape " + shape + ": " + std::to_string(plans) + " plan" + (plans == 1 ? "" : "s")
            + " of this shape fit";
        if (skeletonsChecked < skeletonsOfShape)
            out += " in the first " + n(static_cast<long long>(skeletonsChecked)) + " of its "
                + n(static_cast<long long>(skeletonsOfShape)) + " stage orders and micro-batch sizes";
        return out + "; the search ranks them with the rest.\n";
    }
    out = "Why no plan has " + shape + ":\n";
    for (const auto& r : reasons)
        out += "  - " + r + "\n";
    if (skeletonsChecked > 0 && skeletonsChecked < skeletonsOfShape)
        out += "  (memory checked on the first " + n(static_cast<long long>(skeletonsChecked)) + " of "
            + n(static_cast<long long>(skeletonsOfShape)) + " stage orders and micro-batch sizes of the shape)\n";
    for (const auto& h : hints)
        out += "  what would allow it: " + h + "\n";
    return out;
}

nlohmann::json ShapeExplanation::toJson() const
{
    return {{"tp", tp},
            {"pp", pp},
            {"dp", dp},
            {"fits", fits},
            {"plans", plans},
            {"skeletons_checked", skeletonsChecked},
            {"skeletons_of_shape", skeletonsOfShape},
            {"reasons", reasons},
            {"hints", hints}};
}

bool ShapeExplanation::parseShape(const std::string& text, int& tp, int& pp, int& dp)
{
    int* out[3] = {&tp, &pp, &dp};
    std::size_t at = 0;
    for (int k = 0; k < 3; ++k) {
        const std::size_t end = k < 2 ? text.find(',', at) : text.size();
        if (end == std::string::npos)
            return false;
        const std::string part = text.substr(at, end - at);
        if (part.empty() || part.size() > 6 || part.find_first_not_of("0123456789") != std::string::npos)
            return false;
        *out[k] = std::stoi(part);
        if (*out[k] < 1)
            return false;
        at = end + 1;
    }
    return true;
}

}  // namespace memx
