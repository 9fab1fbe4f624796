#include "measure/RunScenario.h"

#include "hardware/ClusterGenerator.h"
#include "hardware/ClusterJson.h"

#include "hardware/GpuCatalog.h"
#include "io/InputError.h"
#include "predict/AnalyticPredictor.h"
#include "predict/RecordingPredictor.h"
#include "measure/MeasuredRun.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <stdexcept>

namespace memx {

namespace {

void fillProblem(Problem& problem, const MeasuredRun& run, PlanSpec& spec)
{
    const Measurement& c = run.config;
    problem.model = run.model();
    problem.setup.globalBatch = c.gbs;
    problem.setup.microBatchSizes = {c.mbs};
    problem.setup.seqLens = {c.seqLen};
    problem.setup.queryGroups = {c.queryGroups};
    problem.setup.tensorParallel = {c.tp};
    problem.setup.maxPipelineStages = std::max(c.pp, 1);
    problem.setup.sequenceParallel = c.sequenceParallel;
    problem.setup.distributedOptimizer = c.distributedOptimizer;
    problem.setup.overlapGradReduce = c.overlapGradReduce;
    problem.setup.overlapParamGather = c.overlapParamGather;
    // An fp32 run that does not say how its matmuls ran is read as the
    // default launcher runs it (kFp32MatmulDefault: TF32 where every GPU
    // type has it); the job's precision must hold on every type.
    bool everyTypeHasTf32 = true;
    for (const GpuType& t : problem.cluster.types())
        everyTypeHasTf32 = everyTypeHasTf32 && t.hasPrecision(Precision::Tf32);
    problem.setup.precision = toString(runPrecision(c.precision, c.fp32Matmul, everyTypeHasTf32));
    problem.setup.flashAttention = c.flashAttention;
    problem.setup.attentionDropout = c.attentionDropout;
    problem.setup.hiddenDropout = c.hiddenDropout;
    spec.tp = c.tp;
    spec.dp = c.dp;
    spec.microBatch = c.mbs;
    spec.seqLen = c.seqLen;
    spec.queryGroups = c.queryGroups;
    spec.schedule = c.vp > 1 ? Schedule::Interleaved : Schedule::OneF1B;
    spec.virtualStages = c.vp;
    spec.layers.clear();
    spec.recompute.clear();
    for (const MeasuredStage& s : run.stages) {
        spec.layers.push_back(s.layers);
        spec.recompute.push_back(s.recompute);
    }
}

}  // namespace

double RunPrediction::peakMemMiB(MemoryKind kind) const
{
    double m = 0;
    for (const StagePlan& s : plan.stages)
        m = std::max(m, s.memory.ofKind(kind));
    return m;
}

double RunPrediction::uncertainty() const { return plan.uncertainty; }

Provenance RunPrediction::provenance() const { return plan.provenance; }

Problem RunScenario::problem(const MeasuredRun& run, const GpuCatalog& catalog, PlanSpec& spec, const std::string& file)
{
    const Measurement& c = run.config;
    const int w = c.tp * c.dp;
    nlohmann::json doc
        = ClusterJson::document("run " + run.runId, "synthetic cluster of a measured run: one node per pipeline stage");
    spec.stageGroups.clear();
    for (const MeasuredStage& s : run.stages) {
        if (!catalog.find(s.gpuType))
            throw InputError(file, "run " + run.runId + ", stage " + std::to_string(s.stage) + ", gpu_type",
                             "unknown GPU type \"" + s.gpuType + "\"; `memx-cli gpus` lists the known types");
        const std::string node = "s" + std::to_string(s.stage);
        doc["nodes"].push_back(ClusterJson::node(node, {{s.gpuType, w}}));
        if (w > 1)
            doc["links"].push_back(ClusterGenerator::intraNodeLink(node, s.gpuType, node + "-intra"));
        spec.stageGroups.push_back(node);
    }
    for (int i = 0; i < c.pp; ++i)
        for (int j = i + 1; j < c.pp; ++j)
            doc["links"].push_back(ClusterJson::link(
                ClusterJson::betweenLink("ib-" + std::to_string(i) + "-" + std::to_string(j), "InfiniBand",
                                         "s" + std::to_string(i), "s" + std::to_string(j), 25, 5)));
    Problem problem{Cluster::fromJson(doc, file, catalog), {}, {}};
    fillProblem(problem, run, spec);
    return problem;
}

Problem RunScenario::problem(const MeasuredRun& run, const Cluster& cluster, PlanSpec& spec)
{
    const Measurement& c = run.config;
    const int w = c.tp * c.dp;
    std::vector<int> used(cluster.groups().size(), 0);
    spec.stageGroups.clear();
    const auto& groups = cluster.groups();
    auto ofType = [&](std::size_t g, const std::string& type) { return cluster.types()[groups[g].type].name == type; };
    for (const MeasuredStage& s : run.stages) {
        bool placed = false;
        // A slice of one group...
        for (std::size_t g = 0; g < groups.size() && !placed; ++g) {
            if (!ofType(g, s.gpuType) || (used[g] + 1) * w > static_cast<int>(groups[g].devices.size()))
                continue;
            ++used[g];
            spec.stageGroups.push_back(groups[g].name);
            placed = true;
        }
        // ...or the next free whole groups of the type, each a multiple of TP.
        std::vector<std::size_t> span;
        int gpus = 0;
        for (std::size_t g = 0; g < groups.size() && !placed && gpus < w; ++g) {
            if (!ofType(g, s.gpuType) || used[g] > 0 || static_cast<int>(groups[g].devices.size()) % c.tp != 0)
                continue;
            span.push_back(g);
            gpus += static_cast<int>(groups[g].devices.size());
        }
        if (!placed && span.size() > 1 && gpus == w) {
            std::string name;
            for (std::size_t g : span) {
                used[g] = static_cast<int>(groups[g].devices.size());  // whole group taken
                name += (name.empty() ? "" : "+") + groups[g].name;
            }
            spec.stageGroups.push_back(name);
            placed = true;
        }
        if (!placed)
            throw InputError(
                cluster.name(), "run " + run.runId + ", stage " + std::to_string(s.stage),
                "no device group of type " + s.gpuType + " has " + std::to_string(w)
                    + " free GPUs (TP x DP) for this stage, nor do free whole groups of that type add up to it");
    }
    Problem problem{cluster, {}, {}};
    fillProblem(problem, run, spec);
    return problem;
}

RunPrediction RunScenario::predict(const Problem& problem, const PlanSpec& spec,
                                   std::shared_ptr<const Predictor> predictor)
{
    if (!predictor)
        predictor = std::make_shared<AnalyticPredictor>();
    auto recorder = std::make_shared<RecordingPredictor>(predictor);
    Evaluation ev = PlanEvaluator::evaluate(problem, spec, recorder);
    RunPrediction out;
    out.plan = std::move(ev.plan);
    out.feasible = ev.feasible;
    out.whyInfeasible = ev.whyInfeasible;
    const auto entries = recorder->entries();
    const int P = static_cast<int>(out.plan.stages.size());
    for (int i = 0; i < P; ++i) {
        const StagePlan& s = out.plan.stages[i];
        const auto it = std::find_if(entries.begin(), entries.end(), [&](const RecordingPredictor::Entry& e) {
            const StageQuery& q = e.query;
            return q.gpu && q.gpu->name == s.gpuType && q.layers == s.layers && q.recompute == s.recompute
                && q.hasEmbedding == (i == 0) && q.hasOutput == (i == P - 1) && q.inflight == s.inflight;
        });
        if (it == entries.end())
            throw std::logic_error("RunScenario: no recorded query for stage " + std::to_string(i));
        out.queries.push_back(it->query);
    }
    const std::vector<GpuType>& types = problem.cluster.types();
    out.gpuTypes = std::make_shared<const std::vector<GpuType>>(types);
    for (StageQuery& q : out.queries)
        q.gpu = &(*out.gpuTypes)[static_cast<std::size_t>(q.gpu - types.data())];
    return out;
}

}  // namespace memx
