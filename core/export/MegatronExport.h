#pragma once

#include "export/LaunchFiles.h"
#include "megatron/MegatronCommandLine.h"
#include "model/ModelSpec.h"
#include "model/Recompute.h"

#include <optional>
#include <string>
#include <vector>

namespace memx {

struct Plan;
struct PlanDocument;

// Megatron-LM (main @ d98e8a6) launch files for a plan (their argument lists
// from MegatronCommandLine): one torchrun script per
// node rank, a hostfile and a Slurm batch script (docs/EXPORT.md).
class MegatronExport {
public:
    // The one recompute level Megatron-LM runs for a plan: the plan's own when
    // every stage has the same level, else the most conservative level among
    // the stages (the nearest plan it can express).
    struct RecomputeChoice {
        bool exact = true;
        Recompute level = Recompute::None;
    };
    static RecomputeChoice recomputeFor(const Plan& plan);

    // The job of a plan document with the given recompute level on every stage.
    static MegatronJob jobFor(const PlanDocument& doc, Recompute level);

    // The predicted cost of the plan with these per-stage recompute levels
    // (one per stage), through PlanEvaluator (same tables as the search);
    // nullopt when it cannot be evaluated (the reason in `why`).
    struct NearestPlan {
        double iterationMs = 0;
        double maxMemMiB = 0;
        bool feasible = true;
        std::string whyInfeasible;
    };
    static std::optional<NearestPlan> nearestCost(const PlanDocument& doc, const std::vector<Recompute>& levels,
                                                  std::string& why);

    // Every file of the export: launch_node<R>.sh per node rank, hostfile, sbatch.sh.
    static std::vector<ExportedFile> files(const PlanDocument& doc);
};

}  // namespace memx
