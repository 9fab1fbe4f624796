#pragma once

#include "model/Recompute.h"
#include "search/Objective.h"
#include "space/Plan.h"

#include <memory>
#include <string>
#include <vector>

namespace memx {

class Predictor;
class PredictionStore;
struct Problem;

// A configuration chosen by hand (or read back from a plan file).
struct PlanSpec {
    int tp = 1, dp = 1, microBatch = 1;
    int seqLen = 0;  // 0: the model's
    int queryGroups = 0;  // 0: the model's
    Schedule schedule = Schedule::OneF1B;
    int virtualStages = 1;
    std::vector<std::string> stageGroups;  // device-group names in pipeline order
    std::vector<int> layers;  // per stage; must sum to the model's layers
    std::vector<Recompute> recompute;  // per stage; empty: the request's recompute policy
    // Per stage, for a per-mesh plan (FlagScale's process meshes); empty: every
    // stage has tp, dp and microBatch above. The first stage's shape must be
    // tp, dp and microBatch, and every stage processes dp x microBatch samples
    // per micro-batch (its own dp x micro-batch).
    std::vector<StageShape> shapes;

    // A searched plan's configuration, with these recompute levels per stage
    // (empty: the plan's own).
    static PlanSpec of(const Plan& plan, std::vector<Recompute> levels = {});
};

struct Evaluation {
    Plan plan;
    bool feasible = false;
    std::string whyInfeasible;  // why it is infeasible or invalid (empty when feasible)
};

// Predicts one given configuration with exactly the tables and composition
// the search uses, so "what would this plan cost" and the search agree.
// Throws InputError for a spec that cannot be built at all (unknown group,
// layer count mismatch, TP x DP larger than a group).
struct PlanEvaluator {
    // predictor null: analytic. variance: how the plan's memory variance is
    // measured (the search request's objective.variance).
    // store: predictions kept from earlier searches, read before the predictor.
    static Evaluation evaluate(const Problem& problem, const PlanSpec& spec,
                               std::shared_ptr<const Predictor> predictor = nullptr,
                               VarianceMode variance = VarianceMode::AbsoluteMiB,
                               const PredictionStore* store = nullptr);
};

}  // namespace memx
