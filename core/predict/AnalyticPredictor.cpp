#include "predict/AnalyticPredictor.h"

#include <cstdio>

#include "hardware/GpuType.h"
#include "hardware/Topology.h"
#include "model/ModelSpec.h"
#include "model/TransformerMath.h"

namespace memx {

namespace {
constexpr double kMiB = 1024.0 * 1024.0;
}

AnalyticPredictor::AnalyticPredictor()
    : params_()
{
}

AnalyticPredictor::AnalyticPredictor(Params params)
    : params_(params)
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

double AnalyticPredictor::efficiency(const GpuType& gpu, double workFlops) const
{
    double base = gpu.defaultEfficiency * gpu.calibration.efficiencyMultiplier;
    return base * workFlops / (workFlops + params_.halfEfficiencyWorkFlops);
}

StagePrediction AnalyticPredictor::predictStage(const StageQuery& q) const
{
    const GpuType& gpu = *q.gpu;
    const ModelSpec m = modelOf(q);
    const int b = q.microBatch, s = q.seqLen, t = q.tp;
    using TM = TransformerMath;

    // --- time of one micro-batch, forward + backward, ms ---
    double layerWork = TM::layerForwardFlops(m, b, s, q.flashAttention) / t;
    double eff = efficiency(gpu, layerWork);
    double flopsPerGpu = q.layers * TM::layerTrainingFlops(m, b, s, q.flashAttention, q.recompute) / t;
    if (q.hasOutput)
        flopsPerGpu += TM::outputTrainingFlops(m, b, s) / t;
    double computeMs = flopsPerGpu / (gpu.peakTflopsBf16 * 1e12 * eff) * 1e3;

    // TP with sequence parallelism: per layer two all-gathers and two
    // reduce-scatters in forward and again in backward, equivalent to four ring
    // all-reduces of the 2sbh-byte activation (Korthikanti et al. 2022, sec. 4.2.2);
    // full recomputation repeats the forward pair.
    double commMs = 0;
    if (t > 1) {
        PathRate rate{q.tpLinkGBps, q.tpLatencyUs};
        double perLayer = q.recompute == Recompute::Full ? 6.0 : 4.0;
        double collectives = q.layers * perLayer + (q.hasEmbedding ? 1.0 : 0.0) + (q.hasOutput ? 1.0 : 0.0);
        commMs = collectives * Topology::allReduceMs(2.0 * s * double(b) * q.hidden, t, rate);
    }
    double launchFactor = q.recompute == Recompute::Full ? 4.0 / 3.0 : 1.0;
    double launchMs = q.layers * gpu.launchOverheadUsPerLayer * launchFactor * 1e-3;
    double actBytes = TM::layerActivationBytes(m, b, s, t, q.flashAttention, Recompute::None, q.sequenceParallel);
    double elementwiseMs = q.layers * params_.elementwiseTrafficFactor * actBytes * launchFactor
        / (gpu.memoryBandwidthGBps * 1e6);

    StagePrediction p;
    p.timeMs = computeMs + commMs + launchMs + elementwiseMs;

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
    char buf[160];
    std::snprintf(buf, sizeof buf, "analytic(%.17g,%.17g,%.17g)", params_.halfEfficiencyWorkFlops,
                  params_.elementwiseTrafficFactor, params_.relativeUncertainty);
    return buf;
}

}  // namespace memx
