#pragma once

#include "hardware/GpuType.h"
#include "predict/StageQuery.h"
#include "search/PlanEvaluator.h"
#include "space/Problem.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace memx {

class GpuCatalog;
class Predictor;
struct MeasuredRun;

// A run predicted by one predictor through the planner's own composition
// (PlanEvaluator), with the stage queries behind it.
struct RunPrediction {
    Plan plan;  // stage times per micro-batch, memory per GPU, iteration time
    std::vector<StageQuery> queries;  // one per pipeline stage, as the predictor saw it
    // Owns the GPU types the queries point to (the request's cluster is gone
    // by the time a caller reads them); copies share it.
    std::shared_ptr<const std::vector<GpuType>> gpuTypes;
    bool feasible = true;  // false: a stage exceeds its GPU's memory
    std::string whyInfeasible;

    double iterationMs() const { return plan.iterationMs; }
    double peakMemMiB(MemoryKind kind = MemoryKind::Device) const;  // max over stages, of that kind
    double uncertainty() const;  // max over stages (relative)
    Provenance provenance() const;  // of the stage predictions (Learned wins over Analytic)
};

// Turns a measured run into what the planner can evaluate: a Problem
// (cluster, model, setup) and the PlanSpec of the run's stages.
//
// Without a cluster the run gets a synthetic one: stage i on its own node
// "s<i>" of TP x DP GPUs of its type, joined inside by the fabric a server of
// that type has (ClusterGenerator::intraNodeFabric, as generate-cluster
// wires it: NVLink 300/450/900 GB/s for A100/H100/B200, a shared PCIe 4.0
// switch of 25 GB/s for PCIe cards: names with RTX, Titan, L4, A10, T4 or
// PCIe) and between nodes by InfiniBand (25 GB/s, 5 us). The
// measurements do not say how the GPUs were wired; this is the assumption,
// and a learned model absorbs what it gets wrong along with everything else.
// With a cluster each stage takes the next free TP x DP slice of a device
// group of its GPU type, in the cluster's group order; a stage larger than
// any group takes the next free whole groups of its type ("n0+n1"), as the
// search places stages that span nodes.
class RunScenario {
public:
    // Throws InputError naming `file` and the run for an unknown GPU type.
    static Problem problem(const MeasuredRun& run, const GpuCatalog& catalog, PlanSpec& spec, const std::string& file);
    // Throws InputError naming the cluster when no group can host a stage.
    static Problem problem(const MeasuredRun& run, const Cluster& cluster, PlanSpec& spec);

    // Evaluates `spec` with `predictor` (null: analytic). Throws InputError
    // when the plan cannot be built (e.g. more layers than a stage can hold).
    static RunPrediction predict(const Problem& problem, const PlanSpec& spec,
                                 std::shared_ptr<const Predictor> predictor);
    // Choosing between the two placements per run: RunPlacement.
};

}  // namespace memx
