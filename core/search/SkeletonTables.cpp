#include "search/SkeletonTables.h"

#include "space/JobPrecision.h"

#include "hardware/Cluster.h"
#include "hardware/Topology.h"
#include "model/TransformerMath.h"
#include "predict/IterationComposer.h"
#include "predict/PredictionCache.h"
#include "predict/Predictor.h"
#include "search/RecomputePolicy.h"
#include "space/JobPrecision.h"
#include "space/Problem.h"
#include "search/Skeleton.h"
#include "search/StageRowCache.h"

#include <algorithm>
#include <limits>

namespace memx {

namespace {

std::array<bool, kRecomputeLevels> levelsFor(RecomputeMode mode)
{
    switch (mode) {
    case RecomputeMode::UniformNone: return {true, false, false};
    case RecomputeMode::UniformSelective: return {false, true, false};
    case RecomputeMode::UniformFull: return {false, false, true};
    default: return {true, true, true};
    }
}

}  // namespace

bool SkeletonTables::build(const Problem& problem, const Skeleton& sk, const Topology& topo, PredictionCache& cache,
                           SkeletonTables& t, std::string& why, const std::vector<int>* onlyLayers,
                           StageRowCache* rowCache)
{
    const Cluster& cluster = problem.cluster;
    const TrainingSetup& setup = problem.setup;
    const int P = sk.stages();
    t.stages = P;
    t.layers = problem.model.numLayers;
    t.maxLayers = t.layers - (P - 1);
    t.model = problem.model;
    t.model.seqLen = sk.seq;
    t.model.queryGroups = sk.queryGroups;
    t.notes.clear();
    t.precision = jobPrecision(problem);

    t.capacityMiB.assign(P, 0);
    t.devices.assign(P, {});
    t.inflight.assign(P, 1);
    t.hopMs.assign(std::max(0, P - 1), 0);
    std::vector<PathRate> tpRate(P), dpRate(P);
    // Where a missing link is, in the user's terms: nodes (device groups),
    // not stage slots, so that every skeleton that fails for the same gap
    // says the same thing.
    auto nodesOf = [&](const StageSlot& slot) {
        std::string names;
        for (int g : slot.groups)
            names += (names.empty() ? "" : " and ") + cluster.groups()[static_cast<std::size_t>(g)].name;
        return names;
    };
    auto typeOf = [&](const StageSlot& slot) { return cluster.types()[static_cast<std::size_t>(slot.type)].name; };

    for (int i = 0; i < P; ++i) {
        const StageSlot& slot = sk.slot(i);
        t.devices[i] = slot.devices;
        t.capacityMiB[i] = cluster.types()[static_cast<std::size_t>(slot.type)].memoryMiB();
        const StageShape sh = sk.shapeOf(i);
        tpRate[i] = topo.ring(Topology::tensorParallelRings(t.devices[i], sh.tp, sh.dp));
        dpRate[i] = topo.ring(Topology::dataParallelRings(t.devices[i], sh.tp, sh.dp));
        if ((sh.tp > 1 && !tpRate[i].connected()) || (sh.dp > 1 && !dpRate[i].connected())) {
            why = slot.groups.size() == 1 ? "no link joins the GPUs inside " + nodesOf(slot) + " (" + typeOf(slot)
                    + "): add a link within the node (NVLink, xGMI, HCCS or PCIe)"
                                          : "no path joins the GPUs of " + nodesOf(slot) + " (" + typeOf(slot)
                    + "), which one stage spans: add links within and between those nodes";
            return false;
        }
        t.inflight[i] = sk.schedule == Schedule::Interleaved
            ? IterationComposer::inflightInterleaved(i, P, sk.microBatchCount, sk.virtualStages)
            : IterationComposer::inflight1F1B(i, P, sk.microBatchCount);
    }
    const IterationTerms& terms = cache.predictor().iterationTerms();
    t.pipelineScale = terms.pipeline;
    t.sumHopMs = 0;
    for (int i = 0; i + 1 < P; ++i) {
        PathRate hop = topo.pairwise(t.devices[i], t.devices[i + 1]);
        if (!hop.connected()) {
            const StageSlot& a = sk.slot(i);
            const StageSlot& b = sk.slot(i + 1);
            why = a.groups == b.groups && a.groups.size() == 1 ? "no link joins the GPUs inside " + nodesOf(a) + " ("
                    + typeOf(a) + "): add a link within the node (NVLink, xGMI, HCCS or PCIe)"
                                                               : "no link joins " + nodesOf(a) + " and " + nodesOf(b)
                    + " (between pipeline stages): add a link "
                      "between those nodes";
            return false;
        }
        // Between meshes of other shapes FlagScale re-splits the activation
        // (its micro-batch and TP differ on the two sides): the hop takes as
        // long as the larger of the two sides' per-rank shares.
        const StageShape a = sk.shapeOf(i), b = sk.shapeOf(i + 1);
        const double bytes
            = std::max(TransformerMath::boundaryActivationBytes(t.model, a.microBatch, sk.seq, a.tp, t.precision),
                       TransformerMath::boundaryActivationBytes(t.model, b.microBatch, sk.seq, b.tp, t.precision));
        t.hopMs[i] = terms.pipeline * Topology::transferMs(bytes, hop);
        t.sumHopMs += t.hopMs[i];
    }
    // Framework overhead outside the micro-batches (optimizer launch, gradient
    // zeroing, loss reduction, logging): every rank waits for the slowest.
    t.fixedMs = 0;
    for (int i = 0; i < P; ++i)
        t.fixedMs = std::max(t.fixedMs,
                             cache.predictor().iterationOverheadMs(
                                 cluster.types()[static_cast<std::size_t>(sk.slot(i).type)]));
    t.fixedMs *= terms.fixed;

    // Rows already known (stages alike in everything a row reads).
    t.rows.assign(P, nullptr);
    const StageShape first = sk.shapeOf(0);
    std::vector<StageRowKey> keys(P);
    std::vector<int> missing;
    for (int i = 0; i < P; ++i) {
        const StageShape sh = sk.shapeOf(i);
        StageRowKey& k = keys[i];
        k.type = sk.slot(i).type;
        k.tp = sh.tp;
        k.dp = sh.dp;
        k.microBatch = sh.microBatch;
        k.seq = sk.seq;
        k.queryGroups = sk.queryGroups;
        k.virtualStages = sk.schedule == Schedule::Interleaved ? sk.virtualStages : 1;
        k.maxLayers = t.maxLayers;
        k.first = i == 0;
        k.last = i == P - 1;
        k.inflight = t.inflight[i];
        k.tpBandwidthGBps = sh.tp > 1 ? tpRate[i].bandwidthGBps : 0;
        k.tpLatencyUs = sh.tp > 1 ? tpRate[i].latencyUs : 0;
        k.dpBandwidthGBps = dpRate[i].bandwidthGBps;
        k.dpLatencyUs = dpRate[i].latencyUs;
        if (rowCache && !onlyLayers)
            t.rows[i] = rowCache->find(k);
        if (!t.rows[i])
            missing.push_back(i);
    }
    if (missing.empty())
        return true;

    // Stage queries for every (missing stage, n, level), or the n per stage
    // asked for (and n = 1, which the recomputation policy's exchange rates read).
    auto wanted
        = [&](int i, int n) { return !onlyLayers || n == 1 || (*onlyLayers)[static_cast<std::size_t>(i)] == n; };
    std::vector<StageQuery> queries;
    queries.reserve(missing.size() * (onlyLayers ? 2 : t.maxLayers) * kRecomputeLevels);
    for (int i : missing) {
        const StageShape sh = sk.shapeOf(i);
        for (int n = 1; n <= t.maxLayers; ++n) {
            if (!wanted(i, n))
                continue;
            for (int lv = 0; lv < kRecomputeLevels; ++lv) {
                StageQuery q;
                q.gpu = &cluster.types()[static_cast<std::size_t>(sk.slot(i).type)];
                q.tp = sh.tp;
                q.dp = sh.dp;
                q.layers = n;
                q.microBatch = sh.microBatch;
                q.seqLen = sk.seq;
                q.hidden = t.model.hidden;
                q.heads = t.model.heads;
                q.headDim = t.model.headDim;
                q.queryGroups = sk.queryGroups;
                q.ffnHidden = t.model.ffnHidden;
                q.mlp = t.model.mlp;
                q.tiedEmbeddings = t.model.tiedEmbeddings;
                q.style = t.model.style;
                q.vocab = t.model.vocab;
                q.hasEmbedding = i == 0;
                q.hasOutput = i == P - 1;
                q.distributedOptimizer = setup.distributedOptimizer;
                q.flashAttention = flashAttentionRuns(setup.flashAttention, t.precision, *q.gpu);
                q.dropout = setup.dropout();
                q.precision = t.precision;
                q.sequenceParallel = setup.sequenceParallel;
                q.recompute = static_cast<Recompute>(lv);
                q.inflight = t.inflight[i];
                q.virtualStages = keys[i].virtualStages;
                q.tpLinkGBps = keys[i].tpBandwidthGBps;
                q.tpLatencyUs = keys[i].tpLatencyUs;
                queries.push_back(q);
            }
        }
    }
    std::vector<StagePrediction> answers;
    cache.predict(queries, answers);

    std::size_t k = 0;
    const std::size_t counts = static_cast<std::size_t>(t.maxLayers) + 1;
    std::vector<double> stageParams(counts, 0.0), owned(counts, 0.0), stepMs(counts, 0.0);
    // The first stage's last gradient bucket (the only one it cannot hide).
    const double lastBucket
        = IterationComposer::lastBucketParams(first.dp, TransformerMath::embeddingParamsOnRank(t.model, first.tp));
    const std::array<bool, kRecomputeLevels> modeLevels = levelsFor(setup.recompute);
    for (int i : missing) {
        const GpuType& gpu = cluster.types()[static_cast<std::size_t>(sk.slot(i).type)];
        const StageShape sh = sk.shapeOf(i);
        auto row = std::make_shared<StageRow>();
        StageRow& r = *row;
        r.pred.assign(counts, {});
        r.postMs.assign(counts, 0);
        r.dpMs.assign(counts, 0);
        r.allowed = modeLevels;
        // The optimizer step of every layer count at once: the parameters a
        // GPU of the stage updates (its 1/DP share with the distributed
        // optimizer), timed by the predictor on the type as calibrated.
        for (int n = 1; n <= t.maxLayers; ++n) {
            const std::size_t un = static_cast<std::size_t>(n);
            stageParams[un] = wanted(i, n) ? TransformerMath::stageParams(t.model, n, sh.tp, i == 0, i == P - 1) : 0.0;
            owned[un] = setup.distributedOptimizer ? stageParams[un] / sh.dp : stageParams[un];
        }
        cache.predictor().optimizerStepMs(gpu, t.precision, owned, stepMs);
        for (int n = 1; n <= t.maxLayers; ++n) {
            if (!wanted(i, n))
                continue;
            const std::size_t un = static_cast<std::size_t>(n);
            for (int lv = 0; lv < kRecomputeLevels; ++lv)
                r.pred[un][static_cast<std::size_t>(lv)] = answers[k++];
            const double params = stageParams[un];
            IterationComposer::DataParallelComm comm
                = IterationComposer::dataParallelComm(params, sh.dp, setup.distributedOptimizer,
                                                      dpRate[i].bandwidthGBps, dpRate[i].latencyUs, t.precision);
            comm.reduceMs *= terms.dataParallel;
            comm.gatherMs *= terms.dataParallel;
            // The overlap window: one micro-batch of the stage without
            // recomputation, a third forward and two thirds backward (the
            // backward's FLOPs are twice the forward's). Recomputation only
            // lengthens the backward, so this never overstates the window.
            const double microBatchMs = r.pred[un][0].timeMs;
            r.dpMs[un]
                = IterationComposer::exposedDataParallelMs(comm, {setup.overlapGradReduce, setup.overlapParamGather},
                                                           i == 0, params, lastBucket, microBatchMs / 3.0,
                                                           2.0 * microBatchMs / 3.0);
            r.postMs[un] = r.dpMs[un] + terms.fixed * stepMs[un];
        }
        // Collapse selective when its exchange rate is discontinuous (MemX 3.1.1).
        if (setup.recompute == RecomputeMode::Policy
            && RecomputePolicy::rates(r.pred[1], setup.selectiveCollapseFraction).collapseSelective)
            r.allowed[1] = false;

        // Policy tables and memory limits.
        const double inf = std::numeric_limits<double>::infinity();
        r.policyLevel.assign(counts, -1);
        r.minTimeMs.assign(counts, inf);
        r.minMemMiB.assign(counts, inf);
        r.nMax = 0;
        const double capacity = t.capacityMiB[i];
        for (int n = 1; n <= t.maxLayers; ++n) {
            if (!wanted(i, n))
                continue;
            const std::size_t un = static_cast<std::size_t>(n);
            const int chosen = RecomputePolicy::choose(r.pred[un], r.allowed, capacity);
            r.policyLevel[un] = chosen;
            if (chosen >= 0)
                r.minTimeMs[un] = r.pred[un][static_cast<std::size_t>(chosen)].timeMs;
            for (std::size_t lv = 0; lv < kRecomputeLevels; ++lv)
                if (r.allowed[lv] && r.pred[un][lv].memoryMiB() <= capacity)
                    r.minMemMiB[un] = std::min(r.minMemMiB[un], r.pred[un][lv].memoryMiB());
            if (chosen >= 0)
                r.nMax = n;
        }
        if (rowCache && !onlyLayers)
            rowCache->insert(keys[i], row);
        t.rows[i] = std::move(row);
    }
    return true;
}

std::size_t StageRow::bytes() const
{
    return sizeof(StageRow) + pred.capacity() * sizeof(pred[0])
        + (postMs.capacity() + dpMs.capacity() + minTimeMs.capacity() + minMemMiB.capacity()) * sizeof(double)
        + policyLevel.capacity() * sizeof(int);
}

}  // namespace memx
