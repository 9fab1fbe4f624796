#include "predict/PredictionStore.h"

#include "hardware/Cluster.h"
#include "model/ModelSpec.h"
#include "predict/Predictor.h"

#include <algorithm>
#include <cstdio>
#include <functional>

namespace memx {

PredictionContext PredictionContext::of(const Cluster& cluster, const ModelSpec& model, int globalBatch,
                                        const Predictor& predictor)
{
    PredictionContext c;
    char buf[1024];
    for (const GpuType& t : cluster.types()) {
        std::snprintf(buf, sizeof buf,
                      "%s|%.17g|%.17g|%.17g|%.17g|%d|%.17g|%.17g|%.17g|%.17g|%.17g|%.17g|%.17g|%.17g|%.17g",
                      t.name.c_str(), t.peakTflopsBf16, t.memoryGiB, t.memoryBandwidthGBps, t.defaultEfficiency,
                      t.smCount, t.launchOverheadUs, t.commOverheadUs, t.stepOverheadUs, t.iterationOverheadMs,
                      t.reserveGiB(), t.calibration.efficiencyMultiplier, t.calibration.bandwidthMultiplier,
                      t.calibration.memoryMultiplier, t.runtimeReserveGiB);
        std::string type = buf;
        // The per-precision peaks, the allocator slack and the vendor and
        // precisions (Transformer Engine's buffers) change answers too.
        type += "|" + t.vendor + "|";
        for (const std::string& p : t.precisions)
            type += p + ",";
        std::snprintf(buf, sizeof buf, "|slack %.17g|framework %.17g|peaks %.17g,%.17g,%.17g,%.17g,%.17g",
                      t.allocatorSlack, t.calibration.frameworkMiB, t.peakTflopsBy[0], t.peakTflopsBy[1],
                      t.peakTflopsBy[2], t.peakTflopsBy[3], t.peakTflopsBy[4]);
        c.gpuTypes.push_back(type + buf);
    }
    std::sort(c.gpuTypes.begin(), c.gpuTypes.end());
    std::snprintf(buf, sizeof buf, "L%d h%d a%d d%d g%d f%d V%d s%d tied%d", model.numLayers, model.hidden, model.heads,
                  model.headDim, model.queryGroups, model.ffnHidden, model.vocab, model.seqLen,
                  model.tiedEmbeddings ? 1 : 0);
    c.model = buf;
    if (model.mlp != MlpKind::SwiGlu)  // SwiGLU keys stay as they were before the MLP kind existed
        c.model += std::string(" ") + toString(model.mlp);
    if (!(model.style == LayerStyle{}))  // LLaMA-style keys stay as they were before the layer style existed
        c.model += std::string(" ") + toString(model.style.position) + " " + toString(model.style.norm)
            + (model.style.linearBias ? " bias" : "");
    c.globalBatch = globalBatch;
    c.predictor = predictor.identity();
    return c;
}

bool PredictionStore::use(const PredictionContext& context)
{
    if (hasContext_ && context == context_)
        return false;
    const bool dropped = !entries_.empty();
    if (dropped)
        ++invalidations_;
    entries_.clear();
    context_ = context;
    hasContext_ = true;
    return dropped;
}

const StagePrediction* PredictionStore::find(const StageQuery& q) const
{
    StageQuery portable;
    const std::uint64_t k = q.portableSignature(portable);
    const std::string name = q.gpu ? q.gpu->name : std::string();
    auto range = entries_.equal_range(k);
    for (auto it = range.first; it != range.second; ++it)
        if (it->second.gpuName == name && it->second.query == portable)
            return &it->second.prediction;
    return nullptr;
}

void PredictionStore::insert(const StageQuery& q, const StagePrediction& p)
{
    if (find(q))
        return;
    StageQuery portable;
    const std::uint64_t k = q.portableSignature(portable);
    entries_.emplace(k, Entry{q.gpu ? q.gpu->name : std::string(), portable, p});
}

}  // namespace memx
