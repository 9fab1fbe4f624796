#include "predict/AnalyticPredictor.h"

#include <cstdio>

#include "hardware/GpuType.h"
#include "hardware/Topology.h"
#include "model/LayerOperators.h"
#include "model/ModelSpec.h"
#include "model/TransformerMath.h"

namespace memx {

namespace {
constexpr double kMiB = 1024.0 * 1024.0;
}

AnalyticPredictor::AnalyticPredictor() : AnalyticPredictor(Params()) { }

AnalyticPredictor::AnalyticPredictor(Params params) : params_(params), cost_(params.operators) { }

ModelSpec AnalyticPredictor::modelOf(const StageQuery& q)
{
    ModelSpec m;
    m.numLayers = q.layers;
    m.hidden = q.hidden;
    m.heads = q.heads;
    m.headDim = q.headDim;
    m.queryGroups = q.queryGroups;
    m.ffnHidden = q.ffnHidden;
    m.mlp = q.mlp;
    m.vocab = q.vocab;
    m.tiedEmbeddings = q.tiedEmbeddings;
    m.style = q.style;
    m.seqLen = q.seqLen;
    return m;
}

void AnalyticPredictor::setCalibration(std::vector<GpuParamsFit> fits) { fits_ = std::move(fits); }

const GpuParamsFit* AnalyticPredictor::fitOf(const GpuType& gpu) const
{
    for (const GpuParamsFit& f : fits_)
        if (f.type == gpu.name)
            return &f;
    return nullptr;
}

const GpuType& AnalyticPredictor::calibrated(const GpuType& gpu, GpuType& scratch) const
{
    const GpuParamsFit* f = fitOf(gpu);
    if (!f)
        return gpu;
    scratch = gpu;
    f->applyTo(scratch);
    return scratch;
}

double AnalyticPredictor::iterationOverheadMs(const GpuType& gpu) const
{
    const GpuParamsFit* f = fitOf(gpu);  // once per stage of every skeleton: no copy of the type
    return f ? f->iterationOverheadMs : gpu.iterationOverheadMs;
}

void AnalyticPredictor::optimizerStepMs(const GpuType& gpu, Precision p, std::span<const double> ownedParams,
                                        std::span<double> out) const
{
    GpuType scratch;
    cost_.optimizerStepMs(calibrated(gpu, scratch), p, ownedParams, out);  // bandwidth and host time as fitted
}

AnalyticPredictor::StageCosts AnalyticPredictor::costsOf(const StageQuery& q) const
{
    GpuType scratch;
    const GpuType& gpu = calibrated(*q.gpu, scratch);
    const ModelSpec m = modelOf(q);
    const int b = q.microBatch, s = q.seqLen, t = q.tp;
    const PathRate rate{q.tpLinkGBps, q.tpLatencyUs};
    using LO = LayerOperators;

    StageCosts c;
    const Precision p = q.precision;
    const Dropout d = q.dropout;
    c.layer = cost_.time(gpu, LO::forward(m, b, s, t, q.sequenceParallel, q.flashAttention, p, d), t, rate);
    c.layer += cost_.time(gpu, LO::backward(m, b, s, t, q.sequenceParallel, q.flashAttention, p, d), t, rate);
    if (q.recompute != Recompute::None)
        c.layer += cost_.time(gpu, LO::recompute(m, b, s, t, q.sequenceParallel, q.flashAttention, q.recompute, p, d),
                              t, rate);
    c.output = cost_.time(gpu, LO::outputLayer(m, b, s, t, p), t, rate);
    c.embedding = cost_.time(gpu, LO::embedding(m, b, s, t, p), t, rate);
    c.messageMs = gpu.commOverheadUs * 1e-3;
    c.stepMs = gpu.stepOverheadUs * 1e-3;
    return c;
}

OperatorCost::Breakdown AnalyticPredictor::compose(const StageCosts& c, const StageQuery& q)
{
    OperatorCost::Breakdown stage = c.layer.scaled(q.layers);
    if (q.hasOutput)
        stage += c.output;
    if (q.hasEmbedding)
        stage += c.embedding;
    // 1F1B: per micro-batch a stage receives and sends its activation forward
    // and its gradient backward; the wire time is the composer's hop term, the
    // host and synchronisation cost of each message is the stage's. With v
    // model chunks (interleaved) every chunk does its own exchanges: only the
    // first chunk of the first stage receives no activation and the last
    // chunk of the last stage sends none (Megatron's interleaved schedule
    // communicates after every chunk's forward and backward step).
    const int v = std::max(1, q.virtualStages);
    const int messages = 4 * v - (q.hasEmbedding ? 2 : 0) - (q.hasOutput ? 2 : 0);
    stage.hostIdleMs += messages * c.messageMs;
    // Megatron's schedules run forward_step and backward_step once per
    // micro-batch and model chunk: 2 v host-side steps per micro-batch.
    stage.hostIdleMs += 2.0 * v * c.stepMs;
    return stage;
}

OperatorCost::Breakdown AnalyticPredictor::timeBreakdown(const StageQuery& q) const { return compose(costsOf(q), q); }

StagePrediction AnalyticPredictor::predictStage(const StageQuery& q) const { return predictStage(q, costsOf(q)); }

StagePrediction AnalyticPredictor::predictStage(const StageQuery& q, const StageCosts& costs) const
{
    const GpuType& gpu = *q.gpu;
    const ModelSpec m = modelOf(q);
    const int b = q.microBatch, s = q.seqLen, t = q.tp;
    using TM = TransformerMath;

    StagePrediction p;
    const OperatorCost::Breakdown time = compose(costs, q);
    p.timeMs = time.totalMs();
    if (p.timeMs > 0) {
        p.hostShare = static_cast<float>(time.hostIdleMs / p.timeMs);
        p.commShare = static_cast<float>(time.commMs / p.timeMs);
    }
    const Precision pr = q.precision;
    const double actBytes
        = TM::layerActivationBytes(m, b, s, t, q.flashAttention, Recompute::None, q.sequenceParallel, pr, q.dropout);

    // --- peak memory per GPU, MiB ---
    double params = TM::stageParams(m, q.layers, t, q.hasEmbedding, q.hasOutput);
    const GpuParamsFit* fit = fitOf(gpu);
    const double mult = fit ? fit->memoryMultiplier : gpu.calibration.memoryMultiplier;
    p.memory.weightsMiB = mult * params * TM::weightBytesPerParam(pr) / kMiB;
    p.memory.gradientsMiB = mult * params * TM::gradBytesPerParam(pr) / kMiB;
    // Transformer Engine's cached placeholder weight gradients.
    if (q.layers > 0 && gpu.runsTransformerEngine())
        p.memory.gradientsMiB += mult * TM::wgradBufferBytes(m, t, pr) / kMiB;
    p.memory.optimizerMiB = mult * params * TM::optimizerBytesPerParam(q.dp, q.distributedOptimizer, pr) / kMiB;

    double perMicroBatch = q.layers
        * TM::layerActivationBytes(m, b, s, t, q.flashAttention, q.recompute, q.sequenceParallel, pr, q.dropout);
    if (q.hasEmbedding)
        perMicroBatch += TM::boundaryActivationBytes(m, b, s, t, pr);  // embedding output
    double act = q.inflight * perMicroBatch;
    if (q.recompute == Recompute::Full)
        act += actBytes;  // one layer's full activations while it is recomputed in backward
    if (q.hasOutput)
        act += TM::logitsBytes(m, b, s, t, pr);  // logits live for the micro-batch in its loss
    p.memory.activationsMiB = mult * act / kMiB;
    p.memory.frameworkMiB = fit ? fit->frameworkMiB : gpu.calibration.frameworkMiB;
    p.memory.allocatorMiB = gpu.allocatorSlack * p.memory.allocatedMiB();
    p.memory.reserveMiB = gpu.reserveGiB() * 1024.0;
    p.provenance = Provenance::Analytic;
    p.uncertainty = params_.relativeUncertainty;
    return p;
}

namespace {
// Queries that differ only in layer count, place in the pipeline, in-flight
// micro-batches or DP share their per-layer costs (a search asks for every
// layer count of a stage in one batch).
bool sameLayerShape(const StageQuery& a, const StageQuery& b)
{
    return a.gpu == b.gpu && a.tp == b.tp && a.microBatch == b.microBatch && a.seqLen == b.seqLen
        && a.hidden == b.hidden && a.heads == b.heads && a.headDim == b.headDim && a.queryGroups == b.queryGroups
        && a.ffnHidden == b.ffnHidden && a.mlp == b.mlp && a.style == b.style && a.vocab == b.vocab
        && a.flashAttention == b.flashAttention && a.dropout == b.dropout && a.sequenceParallel == b.sequenceParallel
        && a.recompute == b.recompute && a.precision == b.precision && a.tpLinkGBps == b.tpLinkGBps
        && a.tpLatencyUs == b.tpLatencyUs;
}
}  // namespace

void AnalyticPredictor::predict(std::span<const StageQuery> queries, std::span<StagePrediction> out) const
{
    constexpr std::size_t kMemo = 8;
    std::vector<std::pair<const StageQuery*, StageCosts>> memo;
    memo.reserve(kMemo);
    std::size_t next = 0;  // the slot to replace when full
    for (std::size_t i = 0; i < queries.size(); ++i) {
        const StageQuery& q = queries[i];
        const StageCosts* costs = nullptr;
        for (const auto& [key, c] : memo)
            if (sameLayerShape(*key, q)) {
                costs = &c;
                break;
            }
        if (!costs) {
            if (memo.size() < kMemo) {
                memo.emplace_back(&q, costsOf(q));
                costs = &memo.back().second;
            } else {
                memo[next] = {&q, costsOf(q)};
                costs = &memo[next].second;
                next = (next + 1) % kMemo;
            }
        }
        out[i] = predictStage(q, *costs);
    }
}

}  // namespace memx

namespace memx {

std::string AnalyticPredictor::identity() const
{
    char buf[512];
    const OperatorCost::Params& o = params_.operators;
    std::snprintf(buf, sizeof buf, "analytic-ops(%.17g,%.17g,%.17g,%.17g,%.17g,%.17g)", o.tileM, o.tileN,
                  o.halfEfficiencyK, o.halfEfficiencyGemmFlops, o.bandwidthFraction, params_.relativeUncertainty);
    std::string id = buf;
    for (const GpuParamsFit& f : fits_) {
        std::snprintf(buf, sizeof buf, "|%s:%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", f.type.c_str(),
                      f.efficiencyMultiplier, f.bandwidthMultiplier, f.launchOverheadUs, f.commOverheadUs,
                      f.iterationOverheadMs, f.memoryMultiplier, f.frameworkMiB, f.stepOverheadUs);
        id += buf;
    }
    return id;
}

}  // namespace memx
