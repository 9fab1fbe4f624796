#pragma once

#include "search/NodeChoice.h"

#include <nlohmann/json.hpp>

#include <string>

namespace memx {

// The node-choice section of a search report (NodeChoice) and plan 1's
// throughput and cost line, as text and as the "node_choice" object of
// memx-search/2.
struct NodeChoiceReport {
    static std::string text(const NodeChoice::Result& c, const NodeChoice::Options& o);
    static nlohmann::json json(const NodeChoice::Result& c);
    // "Plan 1 delivers 24,420 tokens/s on 20 GPUs; $41.00/h, $0.47 per million tokens."
    static std::string costLine(const PlanCost& cost);
};

}  // namespace memx
