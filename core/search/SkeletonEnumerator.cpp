#include "search/Skeleton.h"

#include "search/SearchResult.h"

#include <algorithm>
#include <functional>
#include <set>

namespace memx {

namespace {

// Every distinct ordering of a multiset of group ids, in lexicographic order.
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

std::vector<int> tpCandidates(const SearchRequest& req, int maxGroup)
{
    std::vector<int> out;
    if (!req.setup.tensorParallel.empty()) {
        out = req.setup.tensorParallel;
    } else {
        for (int t = 1; t <= maxGroup; t *= 2)
            out.push_back(t);
    }
    return out;
}

}  // namespace

SkeletonList SkeletonEnumerator::enumerate(const SearchRequest& req)
{
    SkeletonList list;
    const auto& groups = req.cluster.groups();
    const TrainingSetup& setup = req.setup;
    const ModelSpec& model = req.model;
    int maxGroup = 0;
    for (const auto& g : groups)
        maxGroup = std::max(maxGroup, static_cast<int>(g.devices.size()));

    std::vector<int> seqs = setup.seqLens.empty() ? std::vector<int>{model.seqLen} : setup.seqLens;
    std::vector<int> qgs = setup.queryGroups.empty() ? std::vector<int>{model.queryGroups} : setup.queryGroups;
    const std::size_t orderLimit = 200000;

    for (int tp : tpCandidates(req, maxGroup)) {
        if (tp < 1 || tp > maxGroup) {
            ++list.excluded["rule 1: TP larger than every device group"];
            continue;
        }
        if (model.heads % tp != 0) {
            ++list.excluded["heads not divisible by TP"];
            continue;
        }
        for (int dp = 1; tp * dp <= maxGroup; ++dp) {
            const int w = tp * dp;
            // Stages per group: as many TP x DP blocks as fit.
            std::vector<int> perGroup;
            int stages = 0;
            bool idle = false;
            for (const auto& g : groups) {
                int k = static_cast<int>(g.devices.size()) / w;
                idle = idle || static_cast<int>(g.devices.size()) % w != 0;
                perGroup.push_back(k);
                stages += k;
            }
            if (idle && !setup.allowIdleGpus) {
                ++list.excluded["TP x DP leaves GPUs idle (idle GPUs not allowed)"];
                continue;
            }
            if (stages < 1) {
                ++list.excluded["rule 1: TP x DP larger than every device group"];
                continue;
            }
            if (stages > setup.maxPipelineStages) {
                ++list.excluded["more pipeline stages than --max-pp"];
                continue;
            }
            if (stages > model.numLayers) {
                ++list.excluded["more pipeline stages than layers"];
                continue;
            }
            // Stage orders.
            std::vector<std::vector<int>> orders;  // per order: group id of each stage
            if (setup.placement == PlacementMode::Contiguous) {
                std::vector<int> used;
                for (std::size_t g = 0; g < groups.size(); ++g)
                    if (perGroup[g] > 0)
                        used.push_back(static_cast<int>(g));
                multisetPermutations(used, [&](const std::vector<int>& order) {
                    std::vector<int> stageGroups;
                    for (int g : order)
                        for (int k = 0; k < perGroup[g]; ++k)
                            stageGroups.push_back(g);
                    orders.push_back(stageGroups);
                }, orderLimit);
            } else {
                std::vector<int> items;
                for (std::size_t g = 0; g < groups.size(); ++g)
                    for (int k = 0; k < perGroup[g]; ++k)
                        items.push_back(static_cast<int>(g));
                multisetPermutations(items, [&](const std::vector<int>& o) { orders.push_back(o); }, orderLimit);
                if (orders.size() >= orderLimit)
                    list.notes.push_back("stage orders capped at " + std::to_string(orderLimit)
                                         + " for TP=" + std::to_string(tp) + " DP=" + std::to_string(dp));
            }
            for (int mbs : setup.microBatches) {
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
                        struct Variant {
                            Schedule s;
                            int v;
                        };
                        std::vector<Variant> variants;
                        bool wantOne = setup.schedule != ScheduleMode::Interleaved;
                        bool wantInter = setup.schedule != ScheduleMode::OneF1B;
                        if (wantOne)
                            variants.push_back({Schedule::OneF1B, 1});
                        if (wantInter) {
                            for (int v : setup.virtualStages) {
                                if (v < 2) {
                                    ++list.excluded["virtual-stage size below 2"];
                                    continue;
                                }
                                if (stages < 2 || G % stages != 0) {
                                    ++list.excluded["interleaving needs PP >= 2 and G divisible by PP"];
                                    continue;
                                }
                                if (model.numLayers % v != 0 || model.numLayers < v * stages) {
                                    ++list.excluded["too few layers for the virtual stages"];
                                    continue;
                                }
                                variants.push_back({Schedule::Interleaved, v});
                            }
                        }
                        for (const auto& var : variants) {
                            for (const auto& order : orders) {
                                Skeleton s;
                                s.tp = tp;
                                s.dp = dp;
                                s.mbs = mbs;
                                s.seq = seq;
                                s.queryGroups = qg;
                                s.microBatches = G;
                                s.schedule = var.s;
                                s.virtualStages = var.v;
                                s.autoSchedule = setup.schedule == ScheduleMode::Auto;
                                s.stageGroup = order;
                                std::vector<int> seen(groups.size(), 0);
                                for (int g : order)
                                    s.stageSlice.push_back(seen[g]++);
                                list.skeletons.push_back(std::move(s));
                            }
                        }
                    }
                }
            }
        }
    }
    return list;
}

}  // namespace memx
