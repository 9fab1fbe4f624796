#include "profile/RunScenario.h"

#include "hardware/ClusterGenerator.h"

#include "hardware/GpuCatalog.h"
#include "io/InputError.h"
#include "predict/AnalyticPredictor.h"
#include "predict/RecordingPredictor.h"
#include "profile/MeasuredRun.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <stdexcept>

namespace memx {

namespace {

void fillRequest(SearchRequest& req, const MeasuredRun& run, PlanSpec& spec)
{
    const Measurement& c = run.config;
    req.model = run.model();
    req.setup.globalBatch = c.gbs;
    req.setup.microBatches = {c.mbs};
    req.setup.seqLens = {c.seqLen};
    req.setup.queryGroups = {c.queryGroups};
    req.setup.tensorParallel = {c.tp};
    req.setup.maxPipelineStages = std::max(c.pp, 1);
    req.setup.sequenceParallel = true;
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

double RunPrediction::peakMemMiB() const
{
    double m = 0;
    for (const StagePlan& s : plan.stages)
        m = std::max(m, s.memory.totalMiB());
    return m;
}

double RunPrediction::uncertainty() const
{
    return plan.uncertainty;
}

Provenance RunPrediction::provenance() const
{
    return plan.provenance;
}

SearchRequest RunScenario::request(const MeasuredRun& run, const GpuCatalog& catalog, PlanSpec& spec,
                                   const std::string& file)
{
    const Measurement& c = run.config;
    const int w = c.tp * c.dp;
    nlohmann::json doc;
    doc["format"] = "memx-cluster/1";
    doc["name"] = "run " + run.runId;
    doc["description"] = "synthetic cluster of a measured run: one node per pipeline stage";
    doc["nodes"] = nlohmann::json::array();
    doc["links"] = nlohmann::json::array();
    spec.stageGroups.clear();
    for (const MeasuredStage& s : run.stages) {
        if (!catalog.find(s.gpuType))
            throw InputError(file, "run " + run.runId + ", stage " + std::to_string(s.stage) + ", gpu_type",
                             "unknown GPU type \"" + s.gpuType + "\"; `memx-cli gpus` lists the known types");
        const std::string node = "s" + std::to_string(s.stage);
        doc["nodes"].push_back({{"name", node}, {"gpus", {{{"type", s.gpuType}, {"count", w}}}}});
        if (w > 1) {
            const bool pcie = ClusterGenerator::intraNodeFabric(s.gpuType).kind == "PCIe";
            doc["links"].push_back({{"name", node + "-intra"},
                                    {"kind", pcie ? "PCIe" : "NVLink"},
                                    {"within", node},
                                    {"bandwidth_gbps", pcie ? 16 : 200},
                                    {"latency_us", pcie ? 6 : 3}});
        }
        spec.stageGroups.push_back(node);
    }
    for (int i = 0; i < c.pp; ++i)
        for (int j = i + 1; j < c.pp; ++j)
            doc["links"].push_back({{"name", "ib-" + std::to_string(i) + "-" + std::to_string(j)},
                                    {"kind", "InfiniBand"},
                                    {"between", {"s" + std::to_string(i), "s" + std::to_string(j)}},
                                    {"bandwidth_gbps", 25},
                                    {"latency_us", 5}});
    SearchRequest req{Cluster::fromJson(doc, file, catalog)};
    fillRequest(req, run, spec);
    return req;
}

SearchRequest RunScenario::request(const MeasuredRun& run, const Cluster& cluster, PlanSpec& spec)
{
    const Measurement& c = run.config;
    const int w = c.tp * c.dp;
    std::vector<int> used(cluster.groups().size(), 0);
    spec.stageGroups.clear();
    for (const MeasuredStage& s : run.stages) {
        bool placed = false;
        for (std::size_t g = 0; g < cluster.groups().size() && !placed; ++g) {
            const DeviceGroup& group = cluster.groups()[g];
            if (cluster.types()[group.type].name != s.gpuType)
                continue;
            if ((used[g] + 1) * w > static_cast<int>(group.devices.size()))
                continue;
            ++used[g];
            spec.stageGroups.push_back(group.name);
            placed = true;
        }
        if (!placed)
            throw InputError(cluster.name(), "run " + run.runId + ", stage " + std::to_string(s.stage),
                             "no device group of type " + s.gpuType + " has " + std::to_string(w) +
                                 " free GPUs (TP x DP) for this stage");
    }
    SearchRequest req{cluster};
    fillRequest(req, run, spec);
    return req;
}

RunPrediction RunScenario::predict(SearchRequest req, const PlanSpec& spec, std::shared_ptr<const Predictor> predictor)
{
    if (!predictor)
        predictor = std::make_shared<AnalyticPredictor>();
    auto recorder = std::make_shared<RecordingPredictor>(predictor);
    req.predictor = recorder;
    Evaluation ev = PlanEvaluator::evaluate(req, spec);
    RunPrediction out;
    out.plan = std::move(ev.plan);
    out.feasible = ev.feasible;
    out.problem = ev.problem;
    const auto entries = recorder->entries();
    const int P = static_cast<int>(out.plan.stages.size());
    for (int i = 0; i < P; ++i) {
        const StagePlan& s = out.plan.stages[i];
        const auto it = std::find_if(entries.begin(), entries.end(), [&](const RecordingPredictor::Entry& e) {
            const StageQuery& q = e.query;
            return q.gpu && q.gpu->name == s.gpuType && q.layers == s.layers && q.recompute == s.recompute &&
                   q.hasEmbedding == (i == 0) && q.hasOutput == (i == P - 1) && q.inflight == s.inflight;
        });
        if (it == entries.end())
            throw std::logic_error("RunScenario: no recorded query for stage " + std::to_string(i));
        out.queries.push_back(it->query);
    }
    const std::vector<GpuType>& types = req.cluster.types();
    out.gpuTypes = std::make_shared<const std::vector<GpuType>>(types);
    for (StageQuery& q : out.queries)
        q.gpu = &(*out.gpuTypes)[static_cast<std::size_t>(q.gpu - types.data())];
    return out;
}

std::optional<RunPrediction> RunScenario::predictSynthetic(const MeasuredRun& run, const GpuCatalog& catalog,
                                                          const std::string& file,
                                                          std::shared_ptr<const Predictor> predictor,
                                                          std::vector<std::string>& skipped)
{
    try {
        PlanSpec spec;
        SearchRequest req = request(run, catalog, spec, file);
        return predict(std::move(req), spec, std::move(predictor));
    } catch (const InputError& e) {
        skipped.push_back("run " + run.runId + ": " + e.reason());
        return std::nullopt;
    }
}

}  // namespace memx
