#pragma once

#include "search/PlanCost.h"
#include "search/SearchResult.h"

#include <string>
#include <vector>

namespace memx {

// Choosing which GPUs to use (issue #32 item 4): the search uses every stage
// slot of the cluster it is given, so a slow type can drag the pipeline.
// NodeChoice searches the cluster again with the nodes of some GPU types left
// out, every non-empty set of types up to 6 types (63 searches), beyond that
// the whole cluster and each type left out, and sets the best plans of each
// side by side with their tokens per second and, where every GPU type has a
// price, their cost per hour and per million tokens. A node holding a type
// left out is left out whole.
struct NodeChoice {
    enum class Rank { Throughput, Cost };  // --objective throughput|cost
    struct Options {
        Rank rank = Rank::Throughput;
        double maxCostPerHour = -1;  // rows above it are dropped (unknown cost: dropped too); < 0: off
        double minTokensPerS = -1;  // rows below it are dropped; < 0: off
    };
    struct Row {
        std::vector<std::string> types;  // the GPU types kept
        std::vector<std::string> left;  // the nodes left out
        int gpus = 0;  // GPUs of the kept nodes
        Plan plan;  // best plan under the request's objective
        PlanCost cost;
        bool whole = false;  // the whole cluster (the nominal search)
        bool meetsLimits = true;  // false only for the whole cluster, which is always shown
        std::string error;  // no plan fits, and why
    };
    struct Result {
        std::vector<Row> rows;  // ranked: best first; rows without a plan last
        std::size_t dropped = 0;  // rows the limits dropped (the whole cluster's row stays, marked)
        bool pricesKnown = false;  // every GPU type of the cluster has a price
        std::string error;
    };

    // `result`: the nominal search of `request` (its plan 1 is the whole-cluster row).
    static Result run(const SearchRequest& request, const SearchResult& result, const Options& options);
    static bool parseRank(const std::string& text, Rank& out);
};

}  // namespace memx
