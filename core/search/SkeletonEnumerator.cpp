#include "search/Skeleton.h"
#include "search/PerTypeSkeletons.h"
#include "search/SkeletonRules.h"

#include "space/Problem.h"

#include <algorithm>
#include <functional>

namespace memx {

namespace {

// Every distinct ordering of a multiset of ids, in lexicographic order.
void multisetPermutations(std::vector<int> items, const std::function<void(const std::vector<int>&)>& visit,
                          std::size_t limit)
{
    std::sort(items.begin(), items.end());
    std::size_t n = 0;
    do {
        visit(items);
        if (++n >= limit)
            return;
    } while (std::next_permutation(items.begin(), items.end()));
}

// Stage orders as slot indices: the slots of one GPU type are taken in
// cluster order; `typeOrders` says which type each pipeline position gets.
std::vector<std::vector<int>> stageOrders(const StageSlotSet& set, PlacementMode placement, std::size_t limit,
                                          bool& capped)
{
    std::vector<std::vector<int>> slotsOfType;
    for (std::size_t s = 0; s < set.all.size(); ++s) {
        const int t = set.all[s].type;
        if (static_cast<int>(slotsOfType.size()) <= t)
            slotsOfType.resize(static_cast<std::size_t>(t) + 1);
        slotsOfType[static_cast<std::size_t>(t)].push_back(static_cast<int>(s));
    }
    std::vector<int> items;
    for (std::size_t t = 0; t < slotsOfType.size(); ++t) {
        if (slotsOfType[t].empty())
            continue;
        if (placement == PlacementMode::Contiguous)
            items.push_back(static_cast<int>(t));
        else
            items.insert(items.end(), slotsOfType[t].size(), static_cast<int>(t));
    }
    std::vector<std::vector<int>> out;
    std::size_t visited = 0;
    multisetPermutations(
        items,
        [&](const std::vector<int>& typeOrder) {
            ++visited;
            std::vector<int> order;
            std::vector<std::size_t> next(slotsOfType.size(), 0);
            for (int t : typeOrder) {
                const auto& mine = slotsOfType[static_cast<std::size_t>(t)];
                if (placement == PlacementMode::Contiguous)
                    order.insert(order.end(), mine.begin(), mine.end());
                else
                    order.push_back(mine[next[static_cast<std::size_t>(t)]++]);
            }
            out.push_back(std::move(order));
        },
        limit);
    capped = visited >= limit;
    return out;
}

// The schedules a uniform skeleton of `stages` stages and G micro-batches
// can run: 1F1B, and interleaving with each virtual-stage size that
// Megatron's rules allow (each refused one counted in `excluded`).
struct ScheduleVariant {
    Schedule s;
    int v;
};

std::vector<ScheduleVariant> scheduleVariants(const TrainingSetup& setup, const ModelSpec& model, int stages, int G,
                                              std::map<std::string, std::uint64_t>& excluded)
{
    std::vector<ScheduleVariant> variants;
    if (setup.schedule != ScheduleMode::Interleaved)
        variants.push_back({Schedule::OneF1B, 1});
    if (setup.schedule == ScheduleMode::OneF1B)
        return variants;
    for (int v : setup.virtualStages) {
        if (v < 2) {
            ++excluded["virtual-stage size below 2"];
            continue;
        }
        if (stages < 2 || G % stages != 0) {
            ++excluded["interleaving needs PP >= 2 and G divisible by PP"];
            continue;
        }
        if (model.numLayers % v != 0 || model.numLayers < v * stages) {
            ++excluded["too few layers for the virtual stages"];
            continue;
        }
        variants.push_back({Schedule::Interleaved, v});
    }
    return variants;
}

// The stage slots every stage of a uniform TP x DP takes, or null (the
// reason counted in `excluded`) when no micro-batch size divides the global
// batch, no GPU type has TP x DP GPUs in whole nodes, GPUs would idle
// against the setup, or the stage count is outside the request.
std::shared_ptr<StageSlotSet> uniformSlots(const Problem& problem, int tp, int dp,
                                           std::map<std::string, std::uint64_t>& excluded)
{
    const TrainingSetup& setup = problem.setup;
    const bool anyMbs = std::any_of(setup.microBatchSizes.begin(), setup.microBatchSizes.end(),
                                    [&](int mbs) { return mbs >= 1 && setup.globalBatch % (dp * mbs) == 0; });
    if (!anyMbs) {
        ++excluded["global batch not divisible by DP x micro-batch"];
        return nullptr;
    }
    auto set = std::make_shared<StageSlotSet>(StageSlots::of(problem.cluster, tp * dp, tp));
    const int stages = static_cast<int>(set->all.size());
    const char* why = stages < 1                    ? "rule 1: no GPU type has TP x DP GPUs in whole nodes"
        : set->idleGpus > 0 && !setup.allowIdleGpus ? "TP x DP leaves GPUs idle (idle GPUs not allowed)"
                                                    : SkeletonRules::stageCountRefusal(stages, setup, problem.model);
    if (why) {
        ++excluded[why];
        return nullptr;
    }
    return set;
}

// `shape` once per schedule variant and stage order. The adaptive rule
// (`automatic`) picks between the two schedules; where interleaving is
// impossible, 1F1B stays and there is nothing to pick.
void addOrders(const Skeleton& shape, const std::vector<ScheduleVariant>& variants,
               const std::vector<std::vector<int>>& orders, bool automatic, std::vector<Skeleton>& out)
{
    const bool choice = variants.size() > 1;
    for (const auto& var : variants)
        for (const auto& order : orders) {
            Skeleton s = shape;
            s.schedule = var.s;
            s.virtualStages = var.v;
            s.autoSchedule = automatic && choice;
            s.stageSlot = order;
            out.push_back(std::move(s));
        }
}

}  // namespace

SkeletonList SkeletonEnumerator::enumerate(const Problem& problem, const Limits& limits)
{
    SkeletonList list;
    const auto& groups = problem.cluster.groups();
    const TrainingSetup& setup = problem.setup;
    const ModelSpec& model = problem.model;
    int maxGroup = 0;
    std::vector<int> perType(problem.cluster.types().size(), 0);
    for (const auto& g : groups) {
        maxGroup = std::max(maxGroup, static_cast<int>(g.devices.size()));
        perType[static_cast<std::size_t>(g.type)] += static_cast<int>(g.devices.size());
    }
    const int maxType = perType.empty() ? 0 : *std::max_element(perType.begin(), perType.end());

    std::vector<int> seqs = setup.seqLens.empty() ? std::vector<int>{model.seqLen} : setup.seqLens;
    std::vector<int> qgs = setup.queryGroups.empty() ? std::vector<int>{model.queryGroups} : setup.queryGroups;
    const std::size_t orderLimit = limits.stageOrders;

    for (int tp : SkeletonRules::tpCandidates(problem, maxGroup)) {
        if (tp < 1 || tp > maxGroup) {
            ++list.excluded["rule 1: TP larger than every device group (GPUs of one type in one node)"];
            continue;
        }
        if (model.heads % tp != 0) {
            ++list.excluded["heads not divisible by TP"];
            continue;
        }
        for (int dp = 1; tp * dp <= maxType; ++dp) {
            const int w = tp * dp;
            const auto set = uniformSlots(problem, tp, dp, list.excluded);
            if (!set)
                continue;
            const int stages = static_cast<int>(set->all.size());
            bool capped = false;
            const auto orders = stageOrders(*set, setup.placement, orderLimit, capped);
            if (capped) {
                const std::string what = "stage orders capped at " + std::to_string(orderLimit)
                    + " for TP=" + std::to_string(tp) + " DP=" + std::to_string(dp);
                list.notes.push_back(what);
                list.spaceCut += (list.spaceCut.empty() ? "" : "; ") + what + " (later orders were not searched)";
            }
            for (int mbs : setup.microBatchSizes) {
                if (mbs < 1 || setup.globalBatch % (dp * mbs) != 0) {
                    ++list.excluded["global batch not divisible by DP x micro-batch"];
                    continue;
                }
                const int G = setup.globalBatch / (dp * mbs);
                for (int seq : seqs) {
                    for (int qg : qgs) {
                        if (qg < 1 || model.heads % qg != 0 || (qg % tp != 0 && tp % qg != 0)) {
                            ++list.excluded["query groups incompatible with heads or TP"];
                            continue;
                        }
                        Skeleton shape;
                        shape.tp = tp;
                        shape.dp = dp;
                        shape.mbs = mbs;
                        shape.seq = seq;
                        shape.queryGroups = qg;
                        shape.microBatchCount = G;
                        shape.slotSet = set;
                        shape.idleGpus = problem.cluster.deviceCount() - stages * w;
                        addOrders(shape, scheduleVariants(setup, model, stages, G, list.excluded), orders,
                                  setup.schedule == ScheduleMode::Auto, list.skeletons);
                    }
                }
            }
        }
    }
    if (setup.meshes == MeshMode::PerType)
        PerTypeSkeletons(problem, seqs, qgs, limits.perTypeMeshes, limits.perTypeTimeBound, list).run();
    return list;
}

}  // namespace memx
