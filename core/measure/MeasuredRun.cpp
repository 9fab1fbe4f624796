#include "measure/MeasuredRun.h"

#include "io/InputError.h"
#include "io/Text.h"

#include <algorithm>
#include <map>

namespace memx {

bool MeasuredRun::heterogeneous() const
{
    for (const MeasuredStage& s : stages)
        if (s.gpuType != stages.front().gpuType)
            return true;
    return false;
}

std::vector<std::string> MeasuredRun::gpuTypes() const
{
    std::vector<std::string> types;
    for (const MeasuredStage& s : stages)
        types.push_back(s.gpuType);
    std::sort(types.begin(), types.end());
    types.erase(std::unique(types.begin(), types.end()), types.end());
    return types;
}

Measurement MeasuredRun::emptyRunRow(MeasurementSource source) const
{
    Measurement r = config;
    r.source = source;
    r.gpuType = stages.front().gpuType;
    r.tp = stages.front().tp;
    r.recompute = stages.front().recompute;
    r.stage.reset();
    r.stageLayers.reset();
    r.iterationTimeMs.reset();
    r.stageTimeMs.reset();
    r.peakMemMiB.reset();
    r.provenance.clear();
    r.uncertainty.reset();
    r.estimatedGpuHours.reset();
    return r;
}

Measurement MeasuredRun::emptyStageRow(std::size_t i, MeasurementSource source) const
{
    Measurement s = emptyRunRow(source);
    s.stage = static_cast<int>(i);
    s.stageLayers = stages[i].layers;
    s.gpuType = stages[i].gpuType;
    s.tp = stages[i].tp;
    s.recompute = stages[i].recompute;
    return s;
}

std::string MeasuredRun::configurationKey() const
{
    const Measurement& c = config;
    std::string key = c.gpuType + "|" + std::to_string(c.tp) + "|" + std::to_string(c.pp) + "|" + std::to_string(c.dp)
        + "|" + std::to_string(c.vp) + "|" + std::to_string(c.mbs) + "|" + std::to_string(c.gbs) + "|"
        + std::to_string(c.seqLen) + "|" + std::to_string(c.numLayers) + "|" + std::to_string(c.hidden) + "|"
        + std::to_string(c.ffnHidden) + "|" + std::to_string(c.heads) + "|" + std::to_string(c.queryGroups) + "|"
        + std::to_string(c.vocab) + "|" + toString(c.precision)
        + (c.fp32Matmul == Fp32Matmul::Unstated ? "" : std::string(" ") + toString(c.fp32Matmul)) + "|"
        + toString(c.mlp) + (c.tiedEmbeddings ? "|tied" : "") + (c.flashAttention ? "" : "|unfused");
    if (!(c.style == LayerStyle{}))
        key += std::string("|") + toString(c.style.position) + "," + toString(c.style.norm)
            + (c.style.linearBias ? ",bias" : "");
    if (c.attentionDropout > 0 || c.hiddenDropout > 0)
        key += "|dropout " + Text::shortest(c.attentionDropout) + "," + Text::shortest(c.hiddenDropout);
    if (!c.sequenceParallel && c.tp > 1)
        key += "|no sp";
    if (!c.distributedOptimizer && c.dp > 1)
        key += "|no distopt";
    if (c.overlapGradReduce && c.dp > 1)
        key += c.overlapParamGather ? "|overlap rs+ag" : "|overlap rs";
    for (const MeasuredStage& s : stages)
        key += "|" + s.gpuType + ":" + std::to_string(s.layers) + toString(s.recompute);
    return key;
}

ModelSpec MeasuredRun::model() const
{
    ModelSpec m;
    m.name = std::to_string(config.hidden) + "h" + std::to_string(config.numLayers) + "L";
    m.numLayers = config.numLayers;
    m.hidden = config.hidden;
    m.heads = config.heads;
    m.headDim = config.hidden / config.heads;
    m.queryGroups = config.queryGroups;
    m.ffnHidden = config.ffnHidden;
    m.mlp = config.mlp;
    m.tiedEmbeddings = config.tiedEmbeddings;
    m.style = config.style;
    m.vocab = config.vocab;
    m.seqLen = config.seqLen;
    m.source = "measurement run " + runId;
    return m;
}

namespace {

// Completes one run in place; throws InputError when it cannot.
void completeRun(MeasuredRun& run, const std::string& file)
{
    const Measurement& c = run.config;
    const std::string where = "run " + run.runId;
    int givenLayers = 0, missing = 0;
    const MeasuredStage* model = nullptr;  // the stage rows' common configuration, if they agree
    bool agree = true;
    for (const MeasuredStage& s : run.stages) {
        if (s.row >= 0) {
            givenLayers += s.layers;
            if (!model)
                model = &s;
            else if (s.gpuType != model->gpuType || s.tp != model->tp || s.recompute != model->recompute)
                agree = false;
        } else {
            ++missing;
        }
    }
    if (missing > 0) {
        if (run.runRow < 0 && !(model && agree))
            throw InputError(file, where,
                             std::to_string(missing) + " of its " + std::to_string(c.pp)
                                 + " stages have no stage row, and there is no run row (or stage rows that agree "
                                   "on GPU type, tp and recompute) to take their configuration from");
        const int rest = c.numLayers - givenLayers;
        if (rest < missing || rest % missing != 0)
            throw InputError(file, where,
                             std::to_string(rest) + " layers left for " + std::to_string(missing)
                                 + " stage(s) without a stage row do not split evenly; give stage rows with "
                                   "stage_layers");
        for (int i = 0; i < c.pp; ++i) {
            MeasuredStage& s = run.stages[i];
            if (s.row >= 0)
                continue;
            s.gpuType = run.runRow >= 0 ? c.gpuType : model->gpuType;
            s.tp = run.runRow >= 0 ? c.tp : model->tp;
            s.layers = rest / missing;
            s.recompute = run.runRow >= 0 ? c.recompute : model->recompute;
        }
    }
    for (int i = 0; i < c.pp; ++i) {
        run.stages[i].stage = i;
        if (run.stages[i].tp != run.stages.front().tp)
            throw InputError(file, where,
                             "stage " + std::to_string(i) + " has tp " + std::to_string(run.stages[i].tp)
                                 + " but stage 0 has tp " + std::to_string(run.stages.front().tp)
                                 + "; plans with a different TP per stage are not supported");
    }
    run.config.tp = run.stages.front().tp;
}

}  // namespace

std::vector<MeasuredRun> MeasuredRun::group(const std::vector<Measurement>& rows, const std::string& file,
                                            std::vector<std::string>* skipped)
{
    std::vector<MeasuredRun> runs;
    std::map<std::string, std::size_t> index;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const Measurement& m = rows[r];
        auto [it, fresh] = index.try_emplace(m.runId, runs.size());
        if (fresh) {
            MeasuredRun run;
            run.runId = m.runId;
            run.config = m;
            run.stages.resize(m.pp);
            runs.push_back(std::move(run));
        }
        MeasuredRun& run = runs[it->second];
        if (m.isStageRow()) {
            MeasuredStage& s = run.stages[*m.stage];
            s.gpuType = m.gpuType;
            s.tp = m.tp;
            s.layers = *m.stageLayers;
            s.recompute = m.recompute;
            s.stageTimeMs = m.stageTimeMs;
            s.peakMemMiB = m.peakMemMiB;
            s.row = static_cast<int>(r);
            if (m.iterationTimeMs && !run.iterationTimeMs)
                run.iterationTimeMs = m.iterationTimeMs;
        } else {
            run.config = m;  // the run row speaks for the run
            run.runRow = static_cast<int>(r);
            run.iterationTimeMs = m.iterationTimeMs;
            run.runPeakMemMiB = m.peakMemMiB;
        }
    }
    // An interpolated run is made from the neighbours of every one of its
    // rows (run and stage rows may come from different sweeps): the config
    // names them all, in row order, whichever row it was taken from.
    for (MeasuredRun& run : runs)
        run.config.derivedFrom.runIds.clear();
    for (std::size_t r = 0; r < rows.size(); ++r) {
        std::vector<std::string>& into = runs[index.at(rows[r].runId)].config.derivedFrom.runIds;
        for (const std::string& id : rows[r].derivedFrom.runIds)
            if (std::find(into.begin(), into.end(), id) == into.end())
                into.push_back(id);
    }

    std::vector<MeasuredRun> done;
    for (MeasuredRun& run : runs) {
        try {
            completeRun(run, file);
            done.push_back(std::move(run));
        } catch (const InputError& e) {
            if (!skipped)
                throw;
            skipped->push_back("run " + run.runId + ": " + e.reason());
        }
    }
    return done;
}

}  // namespace memx
