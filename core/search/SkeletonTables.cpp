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

// The builder's steps over one skeleton; SkeletonTables::build runs them in order.
class TablesBuilder {
public:
    TablesBuilder(const Problem& problem, const Skeleton& sk, const Topology& topo, PredictionCache& cache,
                  SkeletonTables& t, std::string& why, const std::vector<int>* onlyLayers, StageRowCache* rowCache)
        : problem_(problem)
        , cluster_(problem.cluster)
        , setup_(problem.setup)
        , sk_(sk)
        , topo_(topo)
        , cache_(cache)
        , terms_(cache.predictor().iterationTerms())
        , t_(t)
        , why_(why)
        , onlyLayers_(onlyLayers)
        , rowCache_(rowCache)
        , P_(sk.stages())
    {
    }

    bool run()
    {
        reset();
        if (!placeStages() || !linkStages())
            return false;
        fixedOverhead();
        if (findCachedRows())
            return true;
        predictMissing();
        return true;
    }

private:
    void reset()
    {
        t_.stages = P_;
        t_.layers = problem_.model.numLayers;
        t_.maxLayers = t_.layers - (P_ - 1);
        t_.model = problem_.model;
        t_.model.seqLen = sk_.seq;
        t_.model.queryGroups = sk_.queryGroups;
        t_.notes.clear();
        t_.precision = jobPrecision(problem_);
        t_.capacityMiB.assign(P_, 0);
        t_.devices.assign(P_, {});
        t_.inflight.assign(P_, 1);
        t_.hopMs.assign(std::max(0, P_ - 1), 0);
        tpRate_.assign(P_, {});
        dpRate_.assign(P_, {});
        t_.pipelineScale = terms_.pipeline;
    }

    // Where a missing link is, in the user's terms: nodes (device groups),
    // not stage slots, so that every skeleton that fails for the same gap
    // says the same thing.
    std::string nodesOf(const StageSlot& slot) const
    {
        std::string names;
        for (int g : slot.groups)
            names += (names.empty() ? "" : " and ") + cluster_.groups()[static_cast<std::size_t>(g)].name;
        return names;
    }
    const std::string& typeOf(const StageSlot& slot) const
    {
        return cluster_.types()[static_cast<std::size_t>(slot.type)].name;
    }
    std::string noLinkInside(const StageSlot& slot) const
    {
        return "no link joins the GPUs inside " + nodesOf(slot) + " (" + typeOf(slot)
            + "): add a link within the node (NVLink, xGMI, HCCS or PCIe)";
    }

    // Each stage's devices, capacity, TP and DP rings and in-flight micro-batches.
    bool placeStages()
    {
        for (int i = 0; i < P_; ++i) {
            const StageSlot& slot = sk_.slot(i);
            t_.devices[i] = slot.devices;
            t_.capacityMiB[i] = cluster_.types()[static_cast<std::size_t>(slot.type)].memoryMiB();
            const StageShape sh = sk_.shapeOf(i);
            tpRate_[i] = topo_.ring(Topology::tensorParallelRings(t_.devices[i], sh.tp, sh.dp));
            dpRate_[i] = topo_.ring(Topology::dataParallelRings(t_.devices[i], sh.tp, sh.dp));
            if ((sh.tp > 1 && !tpRate_[i].connected()) || (sh.dp > 1 && !dpRate_[i].connected())) {
                why_ = slot.groups.size() == 1 ? noLinkInside(slot)
                                               : "no path joins the GPUs of " + nodesOf(slot) + " (" + typeOf(slot)
                        + "), which one stage spans: add links within and between those nodes";
                return false;
            }
            t_.inflight[i] = sk_.schedule == Schedule::Interleaved
                ? IterationComposer::inflightInterleaved(i, P_, sk_.microBatchCount, sk_.virtualStages)
                : IterationComposer::inflight1F1B(i, P_, sk_.microBatchCount);
        }
        return true;
    }

    // The pipeline hops between neighbouring stages.
    bool linkStages()
    {
        t_.sumHopMs = 0;
        for (int i = 0; i + 1 < P_; ++i) {
            PathRate hop = topo_.pairwise(t_.devices[i], t_.devices[i + 1]);
            if (!hop.connected()) {
                const StageSlot& a = sk_.slot(i);
                const StageSlot& b = sk_.slot(i + 1);
                why_ = a.groups == b.groups && a.groups.size() == 1 ? noLinkInside(a)
                                                                    : "no link joins " + nodesOf(a) + " and "
                        + nodesOf(b) + " (between pipeline stages): add a link between those nodes";
                return false;
            }
            // Between meshes of other shapes FlagScale re-splits the activation
            // (its micro-batch and TP differ on the two sides): the hop takes as
            // long as the larger of the two sides' per-rank shares.
            const StageShape a = sk_.shapeOf(i), b = sk_.shapeOf(i + 1);
            const double bytes = std::max(TransformerMath::boundaryActivationBytes(t_.model, a.microBatch, sk_.seq,
                                                                                   a.tp, t_.precision),
                                          TransformerMath::boundaryActivationBytes(t_.model, b.microBatch, sk_.seq,
                                                                                   b.tp, t_.precision));
            t_.hopMs[i] = terms_.pipeline * Topology::transferMs(bytes, hop);
            t_.sumHopMs += t_.hopMs[i];
        }
        return true;
    }

    // Framework overhead outside the micro-batches (optimizer launch, gradient
    // zeroing, loss reduction, logging): every rank waits for the slowest.
    void fixedOverhead()
    {
        t_.fixedMs = 0;
        for (int i = 0; i < P_; ++i)
            t_.fixedMs = std::max(t_.fixedMs,
                                  cache_.predictor().iterationOverheadMs(
                                      cluster_.types()[static_cast<std::size_t>(sk_.slot(i).type)]));
        t_.fixedMs *= terms_.fixed;
    }

    // Rows already known (stages alike in everything a row reads); true
    // when every stage has one.
    bool findCachedRows()
    {
        t_.rows.assign(P_, nullptr);
        keys_.assign(P_, {});
        for (int i = 0; i < P_; ++i) {
            const StageShape sh = sk_.shapeOf(i);
            StageRowKey& k = keys_[i];
            k.type = sk_.slot(i).type;
            k.tp = sh.tp;
            k.dp = sh.dp;
            k.microBatch = sh.microBatch;
            k.seq = sk_.seq;
            k.queryGroups = sk_.queryGroups;
            k.virtualStages = sk_.schedule == Schedule::Interleaved ? sk_.virtualStages : 1;
            k.maxLayers = t_.maxLayers;
            k.first = i == 0;
            k.last = i == P_ - 1;
            k.inflight = t_.inflight[i];
            k.tpBandwidthGBps = sh.tp > 1 ? tpRate_[i].bandwidthGBps : 0;
            k.tpLatencyUs = sh.tp > 1 ? tpRate_[i].latencyUs : 0;
            k.dpBandwidthGBps = dpRate_[i].bandwidthGBps;
            k.dpLatencyUs = dpRate_[i].latencyUs;
            if (rowCache_ && !onlyLayers_)
                t_.rows[i] = rowCache_->find(k);
            if (!t_.rows[i])
                missing_.push_back(i);
        }
        return missing_.empty();
    }

    // Every (missing stage, n, level), or the n per stage asked for (and
    // n = 1, which the recomputation policy's exchange rates read).
    bool wanted(int i, int n) const
    {
        return !onlyLayers_ || n == 1 || (*onlyLayers_)[static_cast<std::size_t>(i)] == n;
    }

    StageQuery query(int i, int n, int lv) const
    {
        StagePlace place;
        place.gpu = &cluster_.types()[static_cast<std::size_t>(sk_.slot(i).type)];
        place.shape = sk_.shapeOf(i);
        place.first = i == 0;
        place.last = i == P_ - 1;
        place.inflight = t_.inflight[i];
        place.virtualStages = keys_[i].virtualStages;
        place.tpLinkGBps = keys_[i].tpBandwidthGBps;
        place.tpLatencyUs = keys_[i].tpLatencyUs;
        return SkeletonTables::queryOf(setup_, t_.model, t_.precision, place, n, lv);
    }

    void predictMissing()
    {
        std::vector<StageQuery> queries;
        queries.reserve(missing_.size() * (onlyLayers_ ? 2 : t_.maxLayers) * kRecomputeLevels);
        for (int i : missing_)
            for (int n = 1; n <= t_.maxLayers; ++n)
                if (wanted(i, n))
                    for (int lv = 0; lv < kRecomputeLevels; ++lv)
                        queries.push_back(query(i, n, lv));
        cache_.predict(queries, answers_);
        next_ = 0;
        for (int i : missing_) {
            auto row = buildRow(i);
            if (rowCache_ && !onlyLayers_)
                rowCache_->insert(keys_[i], row);
            t_.rows[i] = std::move(row);
        }
    }

    // A missing stage's row from the next answers: predictions, gradient
    // sync and optimizer step, then what the recomputation policy makes of them.
    std::shared_ptr<StageRow> buildRow(int i)
    {
        const std::size_t counts = static_cast<std::size_t>(t_.maxLayers) + 1;
        auto row = std::make_shared<StageRow>();
        StageRow& r = *row;
        r.pred.assign(counts, {});
        r.postMs.assign(counts, 0);
        r.dpMs.assign(counts, 0);
        r.allowed = levelsFor(setup_.recompute);
        syncAndStep(i, r);
        // Collapse selective when its exchange rate is discontinuous (MemX 3.1.1).
        if (setup_.recompute == RecomputeMode::Policy
            && RecomputePolicy::rates(r.pred[1], setup_.selectiveCollapseFraction).collapseSelective)
            r.allowed[1] = false;
        policyTables(i, r);
        return row;
    }

    // Predictions into the row, with the gradient sync and the optimizer step
    // of every layer count.
    void syncAndStep(int i, StageRow& r)
    {
        const std::size_t counts = static_cast<std::size_t>(t_.maxLayers) + 1;
        const GpuType& gpu = cluster_.types()[static_cast<std::size_t>(sk_.slot(i).type)];
        const StageShape sh = sk_.shapeOf(i);
        const StageShape first = sk_.shapeOf(0);
        std::vector<double> stageParams(counts, 0.0), owned(counts, 0.0), stepMs(counts, 0.0);
        // The first stage's last gradient bucket (the only one it cannot hide).
        const double lastBucket
            = IterationComposer::lastBucketParams(first.dp, TransformerMath::embeddingParamsOnRank(t_.model, first.tp));
        // The optimizer step of every layer count at once: the parameters a
        // GPU of the stage updates (its 1/DP share with the distributed
        // optimizer), timed by the predictor on the type as calibrated.
        for (int n = 1; n <= t_.maxLayers; ++n) {
            const std::size_t un = static_cast<std::size_t>(n);
            stageParams[un]
                = wanted(i, n) ? TransformerMath::stageParams(t_.model, n, sh.tp, i == 0, i == P_ - 1) : 0.0;
            owned[un] = setup_.distributedOptimizer ? stageParams[un] / sh.dp : stageParams[un];
        }
        cache_.predictor().optimizerStepMs(gpu, t_.precision, owned, stepMs);
        for (int n = 1; n <= t_.maxLayers; ++n) {
            if (!wanted(i, n))
                continue;
            const std::size_t un = static_cast<std::size_t>(n);
            for (int lv = 0; lv < kRecomputeLevels; ++lv)
                r.pred[un][static_cast<std::size_t>(lv)] = answers_[next_++];
            const double params = stageParams[un];
            IterationComposer::DataParallelComm comm
                = IterationComposer::dataParallelComm(params, sh.dp, setup_.distributedOptimizer,
                                                      dpRate_[i].bandwidthGBps, dpRate_[i].latencyUs, t_.precision);
            comm.reduceMs *= terms_.dataParallel;
            comm.gatherMs *= terms_.dataParallel;
            // The overlap window: one micro-batch of the stage without
            // recomputation, a third forward and two thirds backward (the
            // backward's FLOPs are twice the forward's). Recomputation only
            // lengthens the backward, so this never overstates the window.
            const double microBatchMs = r.pred[un][0].timeMs;
            r.dpMs[un]
                = IterationComposer::exposedDataParallelMs(comm, {setup_.overlapGradReduce, setup_.overlapParamGather},
                                                           i == 0, params, lastBucket, microBatchMs / 3.0,
                                                           2.0 * microBatchMs / 3.0);
            r.postMs[un] = r.dpMs[un] + terms_.fixed * stepMs[un];
        }
    }

    // Policy tables and memory limits.
    void policyTables(int i, StageRow& r) const
    {
        const std::size_t counts = static_cast<std::size_t>(t_.maxLayers) + 1;
        const double inf = std::numeric_limits<double>::infinity();
        r.policyLevel.assign(counts, -1);
        r.minTimeMs.assign(counts, inf);
        r.minMemMiB.assign(counts, inf);
        r.nMax = 0;
        const double capacity = t_.capacityMiB[i];
        for (int n = 1; n <= t_.maxLayers; ++n) {
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
    }

    const Problem& problem_;
    const Cluster& cluster_;
    const TrainingSetup& setup_;
    const Skeleton& sk_;
    const Topology& topo_;
    PredictionCache& cache_;
    const IterationTerms& terms_;
    SkeletonTables& t_;
    std::string& why_;
    const std::vector<int>* onlyLayers_;
    StageRowCache* rowCache_;
    const int P_;
    std::vector<PathRate> tpRate_, dpRate_;
    std::vector<StageRowKey> keys_;
    std::vector<int> missing_;
    std::vector<StagePrediction> answers_;
    std::size_t next_ = 0;  // the next answer buildRow reads
};

}  // namespace

StageQuery SkeletonTables::queryOf(const TrainingSetup& setup, const ModelSpec& model, Precision precision,
                                   const StagePlace& place, int layers, int level)
{
    StageQuery q;
    q.gpu = place.gpu;
    q.tp = place.shape.tp;
    q.dp = place.shape.dp;
    q.layers = layers;
    q.microBatch = place.shape.microBatch;
    q.seqLen = model.seqLen;
    q.hidden = model.hidden;
    q.heads = model.heads;
    q.headDim = model.headDim;
    q.queryGroups = model.queryGroups;
    q.ffnHidden = model.ffnHidden;
    q.mlp = model.mlp;
    q.tiedEmbeddings = model.tiedEmbeddings;
    q.style = model.style;
    q.vocab = model.vocab;
    q.hasEmbedding = place.first;
    q.hasOutput = place.last;
    q.distributedOptimizer = setup.distributedOptimizer;
    q.flashAttention = flashAttentionRuns(setup.flashAttention, precision, *place.gpu);
    q.dropout = setup.dropout();
    q.precision = precision;
    q.sequenceParallel = setup.sequenceParallel;
    q.recompute = static_cast<Recompute>(level);
    q.inflight = place.inflight;
    q.virtualStages = place.virtualStages;
    q.tpLinkGBps = place.tpLinkGBps;
    q.tpLatencyUs = place.tpLatencyUs;
    return q;
}

bool SkeletonTables::build(const Problem& problem, const Skeleton& sk, const Topology& topo, PredictionCache& cache,
                           SkeletonTables& t, std::string& why, const std::vector<int>* onlyLayers,
                           StageRowCache* rowCache)
{
    return TablesBuilder(problem, sk, topo, cache, t, why, onlyLayers, rowCache).run();
}

std::size_t StageRow::bytes() const
{
    return sizeof(StageRow) + pred.capacity() * sizeof(pred[0])
        + (postMs.capacity() + dpMs.capacity() + minTimeMs.capacity() + minMemMiB.capacity()) * sizeof(double)
        + policyLevel.capacity() * sizeof(int);
}

}  // namespace memx
