#include "search/PlanBuilder.h"

#include "hardware/Cluster.h"
#include "search/Skeleton.h"
#include "search/SkeletonTables.h"
#include "search/SplitSearch.h"

#include <algorithm>

namespace memx {

Plan PlanBuilder::build(const Cluster& cluster, const Skeleton& sk, const SkeletonTables& t, const Leaf& leaf,
                        int globalBatch)
{
    Plan p;
    p.tp = sk.tp;
    p.dp = sk.dp;
    p.pp = sk.stages();
    p.microBatch = sk.mbs;
    p.globalBatch = globalBatch;
    p.microBatchCount = sk.microBatchCount;
    p.seqLen = sk.seq;
    p.queryGroups = sk.queryGroups;
    p.schedule = sk.schedule;
    p.virtualStages = sk.virtualStages;
    p.hopMs = t.hopMs;
    p.key = leaf.key;
    p.idleGpus = sk.idleGpus;
    int first = 0;
    double uncertainty = 0;
    for (int i = 0; i < p.pp; ++i) {
        StagePlan s;
        const StageSlot& slot = sk.slot(i);
        s.group = slot.groups.front();
        s.groups = slot.groups;
        s.groupName = slot.spansNodes() ? slot.name : cluster.groups()[static_cast<std::size_t>(s.group)].name;
        s.gpuType = cluster.types()[static_cast<std::size_t>(slot.type)].name;
        s.slice = slot.slice;
        s.devices = t.devices[i];
        s.firstLayer = first;
        s.layers = leaf.layers[i];
        if (sk.perMesh()) {
            const StageShape sh = sk.shapeOf(i);
            s.tp = sh.tp;
            s.dp = sh.dp;
            s.microBatch = sh.microBatch;
        }
        first += s.layers;
        s.recompute = static_cast<Recompute>(leaf.levels[i]);
        s.inflight = t.inflight[i];
        const StagePrediction& pred = t.row(i).pred[s.layers][leaf.levels[i]];
        s.timeMs = pred.timeMs;
        s.memory = pred.memory;
        s.capacityMiB = t.capacityMiB[i];
        p.provenance = pred.provenance;
        uncertainty = std::max(uncertainty, pred.uncertainty);
        p.stages.push_back(std::move(s));
    }
    int post = leaf.postStage;
    p.dpMs = t.row(post).dpMs[leaf.layers[post]];
    p.fixedMs = t.fixedMs + (t.row(post).postMs[leaf.layers[post]] - p.dpMs);
    p.iterationMs = leaf.timeMs / sk.timeScale;
    p.rankScale = sk.timeScale;
    p.maxMemMiB = leaf.maxMemMiB;
    p.varMem = leaf.variance;
    p.uncertainty = uncertainty;
    return p;
}

}  // namespace memx
