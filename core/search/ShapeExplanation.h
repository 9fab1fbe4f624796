#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace memx {

struct Problem;
class Predictor;

// "Why is there no plan of this shape?" A uniform (TP, PP, DP) shape is ruled
// out by the first of: the model (heads by TP), rule 1 (TP inside a node of
// one GPU type), the stage slots TP x DP cuts the cluster into (a uniform plan
// puts a stage on every slot, so PP is their count), the request's limits
// (--tp, --max-pp, --min-pp, idle GPUs, global batch by DP x micro-batch,
// query groups), or memory: then the closest miss of the shape's skeletons
// (how much more memory the binding GPU would need). The rules are the
// enumerator's own (SkeletonEnumerator, asked for this TP); only the words
// are added here.
struct ShapeExplanation {
    int tp = 0, pp = 0, dp = 0;
    bool fits = false;  // some plan of this shape fits in memory
    std::uint64_t plans = 0;  // how many (saturating at 2^64 - 1), when it fits
    std::size_t skeletonsChecked = 0;  // the shape's skeletons (orders, micro-batches, ...) tried for memory
    std::size_t skeletonsOfShape = 0;  // all of them
    std::vector<std::string> reasons;  // why not, most basic first; empty when it fits
    std::vector<std::string> hints;  // what would allow it (per-type meshes, --choose-nodes, a flag)

    // predictor: null for the analytic model. At most maxSkeletons of the
    // shape's skeletons are built for the memory answer (their count says so).
    static ShapeExplanation of(const Problem& problem, int tp, int pp, int dp,
                               const std::shared_ptr<const Predictor>& predictor = nullptr,
                               std::size_t maxSkeletons = 64);
    // Lines for a report: a heading, then the reasons or the count, then the hints.
    std::string text() const;
    // The "why_not" object of memx-search/2: tp, pp, dp, fits, plans,
    // skeletons_checked, skeletons_of_shape, reasons, hints.
    nlohmann::json toJson() const;
    // "TP,PP,DP" (e.g. "8,1,2"); false when it is not three whole numbers >= 1.
    static bool parseShape(const std::string& text, int& tp, int& pp, int& dp);
};

}  // namespace memx
