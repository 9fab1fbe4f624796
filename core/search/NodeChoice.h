#pragma once

#include "search/PlanCost.h"
#include "search/SearchResult.h"

#include <functional>
#include <string>
#include <vector>

namespace memx {

// Choosing which GPUs to use (issue #32 item 4): the search uses every stage
// slot of the cluster it is given, so a slow type can drag the pipeline, and
// a node count that divides badly can force a poor shape. NodeChoice searches
// the cluster again
//  - with the nodes of some GPU types left out: every non-empty set of types
//    up to 6 types (63 searches), beyond that each type left out; a node
//    holding a type left out is left out whole;
//  - with some nodes of one type left out, the others whole: each type of
//    n >= 2 nodes keeps k of them for every k of keptCounts(n), its last
//    n - k nodes in the cluster file left out;
//  - with every type that gained that way at its best count together;
// and sets the best plans side by side with their tokens per second and,
// where every GPU type has a price, their cost per hour and per million
// tokens.
struct NodeChoice {
    enum class Rank { Throughput, Cost };  // --objective throughput|cost
    struct Options {
        Rank rank = Rank::Throughput;
        double maxCostPerHour = -1;  // rows above it are dropped (unknown cost: dropped too); < 0: off
        double minTokensPerS = -1;  // rows below it are dropped; < 0: off
    };
    // A type of which only some nodes are kept.
    struct PartNodes {
        std::string type;
        int kept = 0, of = 0;  // nodes holding the type: kept, in the cluster
        bool operator==(const PartNodes&) const = default;
    };
    struct Row {
        std::vector<std::string> types;  // the GPU types kept
        std::vector<PartNodes> part;  // types of which some nodes are left out
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
        std::size_t notSearched = 0;  // choices the time limit left out (their rows say so)
        bool cancelled = false;  // stopped by the caller: the rows searched so far
        std::string error;
    };

    // Each choice is a search of its own, with at most this many per-type
    // skeletons unless the request sets --mesh-skeletons (at 120 GPUs of the
    // 128-GPU sample, 3,000 finds the same pick as 12,000 in half the time).
    static constexpr std::size_t meshSkeletons = 3000;
    static constexpr const char* timeRanOut = "not searched: the time limit (--time-limit) ran out";

    // `result`: the nominal search of `request` (its plan 1 is the whole-cluster
    // row). The request's --time-limit bounds all the choices' searches
    // together (SearchReport hands it what the search left).
    // `progress(done, total)` after each choice, from the calling thread
    // (total grows by one when the gaining counts are searched together);
    // `cancelled` is polled before each choice and inside its search.
    using Progress = std::function<void(std::size_t done, std::size_t total)>;
    using Cancel = std::function<bool()>;
    static Result run(const SearchRequest& request, const SearchResult& result, const Options& options,
                      const Progress& progress = {}, const Cancel& cancelled = {});
    static bool parseRank(const std::string& text, Rank& out);
    // The node counts a type of n nodes is searched with, most first: every
    // k in [1, n - 1] up to n = 7; beyond, n - 1, n - 2, the largest power
    // of two below n, 3n/4, n/2, n/4 and 1 (at most 7 searches a type).
    static std::vector<int> keptCounts(int n);
    // "A100-80GB + H100-SXM 3/4 nodes": the types kept, with the node counts
    // of those only partly kept.
    static std::string keptText(const Row& row, const char* separator = " + ");
};

}  // namespace memx
