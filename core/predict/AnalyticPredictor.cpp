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

AnalyticPredictor::AnalyticPredictor()
    : AnalyticPredictor(Params())
{
}

AnalyticPredictor::AnalyticPredictor(Params params)
    : params_(params)
    , cost_(params.operators)
{
}

ModelSpec AnalyticPredictor::modelOf(const StageQuery& q)
{
    ModelSpec m;
    m.numLayers = q.layers;
    m.hidden = q.hidden;
    m.heads = q.heads;
    m.headDim = q.headDim;
    m.queryGroups = q.queryGroups;
    m.ffnHidden = q.ffnHidden;
    m.vocab = q.vocab;
    m.seqLen = q.seqLen;
    return m;
}

void AnalyticPredictor::setCalibration(std::vector<GpuParamsFit> fits)
{
    fits_ = std::move(fits);
}

const GpuType& AnalyticPredictor::calibrated(const GpuType& gpu, GpuType& scratch) const
{
    for (const GpuParamsFit& f : fits_) {
        if (f.type == gpu.name) {
            scratch = gpu;
            f.applyTo(scratch);
            return scratch;
        }
    }
    return gpu;
}

double AnalyticPredictor::iterationOverheadMs(const GpuType& gpu) const
{
    GpuType scratch;
    return calibrated(gpu, scratch).iterationOverheadMs;
}

OperatorCost::Breakdown AnalyticPredictor::timeBreakdown(const StageQuery& q) const
{
    GpuType scratch;
    const GpuType& gpu = calibrated(*q.gpu, scratch);
    const ModelSpec m = modelOf(q);
    const int b = q.microBatch, s = q.seqLen, t = q.tp;
    const PathRate rate{q.tpLinkGBps, q.tpLatencyUs};
    using LO = LayerOperators;

    OperatorCost::Breakdown layer = cost_.time(gpu, LO::forward(m, b, s, t, q.sequenceParallel, q.flashAttention), t, rate);
    layer += cost_.time(gpu, LO::backward(m, b, s, t, q.sequenceParallel, q.flashAttention), t, rate);
    if (q.recompute != Recompute::None)
        layer += cost_.time(gpu, LO::recompute(m, b, s, t, q.sequenceParallel, q.flashAttention, q.recompute), t, rate);
    OperatorCost::Breakdown stage = layer.scaled(q.layers);
    if (q.hasOutput)
        stage += cost_.time(gpu, LO::outputLayer(m, b, s, t), t, rate);
    if (q.hasEmbedding)
        stage += cost_.time(gpu, LO::embedding(m, b, s, t), t, rate);
    // 1F1B: per micro-batch a stage receives and sends its activation forward
    // and its gradient backward; the wire time is the composer's hop term, the
    // host and synchronisation cost of each message is the stage's.
    const int messages = (q.hasEmbedding ? 0 : 2) + (q.hasOutput ? 0 : 2);
    stage.hostIdleMs += messages * gpu.commOverheadUs * 1e-3;
    return stage;
}

StagePrediction AnalyticPredictor::predictStage(const StageQuery& q) const
{
    const GpuType& gpu = *q.gpu;
    const ModelSpec m = modelOf(q);
    const int b = q.microBatch, s = q.seqLen, t = q.tp;
    using TM = TransformerMath;

    StagePrediction p;
    p.timeMs = timeBreakdown(q).totalMs();
    const double actBytes = TM::layerActivationBytes(m, b, s, t, q.flashAttention, Recompute::None, q.sequenceParallel);

    // --- peak memory per GPU, MiB ---
    double params = TM::stageParams(m, q.layers, t, q.hasEmbedding, q.hasOutput);
    double mult = gpu.calibration.memoryMultiplier;
    p.memory.weightsMiB = mult * params * TM::weightBytesPerParam() / kMiB;
    p.memory.gradientsMiB = mult * params * TM::gradBytesPerParam() / kMiB;
    p.memory.optimizerMiB = mult * params * TM::optimizerBytesPerParam(q.dp, q.distributedOptimizer) / kMiB;

    double perMicroBatch = q.layers * TM::layerActivationBytes(m, b, s, t, q.flashAttention, q.recompute, q.sequenceParallel);
    if (q.hasEmbedding)
        perMicroBatch += TM::boundaryActivationBytes(m, b, s, t);  // embedding output
    double act = q.inflight * perMicroBatch;
    if (q.recompute == Recompute::Full)
        act += actBytes;  // one layer's full activations while it is recomputed in backward
    if (q.hasOutput)
        act += TM::logitsBytes(m, b, s, t);  // logits live for the micro-batch in its loss
    p.memory.activationsMiB = mult * act / kMiB;
    p.memory.reserveMiB = gpu.reserveGiB() * 1024.0;
    p.provenance = Provenance::Analytic;
    p.uncertainty = params_.relativeUncertainty;
    return p;
}

void AnalyticPredictor::predict(std::span<const StageQuery> queries, std::span<StagePrediction> out) const
{
    for (std::size_t i = 0; i < queries.size(); ++i)
        out[i] = predictStage(queries[i]);
}

}  // namespace memx

namespace memx {

std::string AnalyticPredictor::identity() const
{
    char buf[320];
    const OperatorCost::Params& o = params_.operators;
    std::snprintf(buf, sizeof buf, "analytic-ops(%.17g,%.17g,%.17g,%.17g,%.17g,%.17g)", o.tileM, o.tileN,
                  o.halfEfficiencyK, o.halfEfficiencyGemmFlops, o.bandwidthFraction, params_.relativeUncertainty);
    std::string id = buf;
    for (const GpuParamsFit& f : fits_) {
        std::snprintf(buf, sizeof buf, "|%s:%.17g,%.17g,%.17g,%.17g,%.17g", f.type.c_str(), f.efficiencyMultiplier,
                      f.bandwidthMultiplier, f.launchOverheadUs, f.commOverheadUs, f.iterationOverheadMs);
        id += buf;
    }
    return id;
}

}  // namespace memx
