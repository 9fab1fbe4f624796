#pragma once

#include "hardware/Cluster.h"
#include "model/ModelSpec.h"
#include "space/TrainingSetup.h"

namespace memx {

// What is being planned: which GPUs, which model, and what the user fixes
// about training. Everything that describes the space of plans (the skeleton
// enumerator, the per-skeleton tables, the plan evaluator) and everything
// that turns a plan back into files (plan JSON, the text report, the
// Megatron-LM and FlagScale exporters) takes this one value; how to search
// it (objective, predictor, threads) lives in SearchRequest beside it.
struct Problem {
    Cluster cluster;
    ModelSpec model;
    TrainingSetup setup;
};

}  // namespace memx
