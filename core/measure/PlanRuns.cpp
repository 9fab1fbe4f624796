#include "measure/PlanRuns.h"

#include "model/ModelSpec.h"
#include "space/JobPrecision.h"
#include "space/Plan.h"
#include "space/Problem.h"

namespace memx {

std::vector<Measurement> PlanRuns::rows(const Plan& plan, const Problem& problem, const std::string& runId)
{
    const ModelSpec& model = problem.model;
    Precision precision = Precision::Bf16;
    try {
        precision = jobPrecision(problem);  // what the search predicted the plan in
    } catch (const std::exception&) {
        // a plan of a problem whose precision no longer resolves: bf16, as the search would refuse it
    }
    std::vector<Measurement> out;
    const int P = static_cast<int>(plan.stages.size());
    for (int i = 0; i < P; ++i) {
        const StagePlan& s = plan.stages[i];
        Measurement m;
        m.runId = runId;
        m.gpuType = s.gpuType;
        m.numGpus = plan.tp * plan.dp * P;
        m.tp = plan.tp;
        m.pp = P;
        m.dp = plan.dp;
        m.vp = plan.schedule == Schedule::Interleaved ? plan.virtualStages : 1;
        m.mbs = plan.microBatch;
        m.gbs = plan.globalBatch;
        m.seqLen = plan.seqLen;
        m.numLayers = model.numLayers;
        m.hidden = model.hidden;
        m.ffnHidden = model.ffnHidden;
        m.mlp = model.mlp;
        m.tiedEmbeddings = model.tiedEmbeddings;
        m.style = model.style;
        m.heads = model.heads;
        m.queryGroups = plan.queryGroups;
        m.vocab = model.vocab;
        m.recompute = s.recompute;
        m.precision = precision;
        // A plan's fp32 is IEEE fp32 (tf32 is its own precision); said, so
        // the row is not read as the containers' TF32 default.
        if (precision == Precision::Fp32)
            m.fp32Matmul = Fp32Matmul::Ieee;
        // What the setup asked for, a run-level column: whether a stage's
        // GPU runs FlashAttention (none before Ampere) is decided per stage
        // when the row is predicted, as the search decided it.
        m.flashAttention = problem.setup.flashAttention;
        m.attentionDropout = problem.setup.attentionDropout;
        m.hiddenDropout = problem.setup.hiddenDropout;
        m.sequenceParallel = problem.setup.sequenceParallel;
        m.distributedOptimizer = problem.setup.distributedOptimizer;
        m.overlapGradReduce = problem.setup.overlapGradReduce;
        m.overlapParamGather = problem.setup.overlapParamGather;
        m.stage = i;
        m.stageLayers = s.layers;
        // First a run row (no stage, the first stage's type), which `predict`
        // fills with the iteration time; then one row per stage.
        if (i == 0) {
            Measurement run = m;
            run.stage.reset();
            run.stageLayers.reset();
            out.push_back(run);
        }
        out.push_back(m);
    }
    return out;
}

}  // namespace memx
