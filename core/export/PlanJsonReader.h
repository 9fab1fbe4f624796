#pragma once

#include "space/Plan.h"
#include "space/Problem.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace memx {

class JsonReader;

// One plan with everything it was made for and by: what the exporters need.
struct PlanDocument {
    std::string file;  // where it was read from
    std::string format;  // "memx-plan/2" or "memx-search/2" (or /1, before 2026-12-06)
    std::string toolVersion;  // MemX version that wrote the file
    std::string predictor;  // predictor that produced the plan ("analytic", ...)
    Problem problem;
    Plan plan;
    int rank = 1;  // position in the search's "best" list (1 = best under Phi)
    std::string objective;  // search profile used ("default", ...); empty for a plan file
    // The state of the project the plan was computed for, when a front end
    // knows it (the workbench: project file, saved or not, when searched);
    // exported files say it in their header. Not read from or written to JSON.
    std::string origin;
    // Set when the search stopped early (its "incomplete" text): the plan is
    // the best found so far, and exported files say so.
    std::string incomplete;
};

// Reads memx-plan/2 (a self-contained plan document, PlanJson::planDocument)
// and memx-search/2 (memx-cli search --json) back. Every problem is an
// InputError naming the file, the JSON path and the reason.
class PlanJsonReader {
public:
    // rank: for a search, which plan of "best" (1-based; 0 = the best under
    // the search's objective). Must be 0 or 1 for a plan file.
    static PlanDocument read(const std::string& file, int rank = 0);
    static PlanDocument fromJson(const nlohmann::json& doc, const std::string& file, int rank = 0);

    // One memx-plan object (as inside "best"), checked against the cluster
    // and model it was made for: groups exist, devices belong to them,
    // TP x DP devices per stage, layers add up, G = gbs / (DP x mbs).
    // FlagScale's mesh rules for tied embeddings depend on the distributed
    // optimizer (space/MeshRules.h); without the setup, the strict reading.
    static Plan planFromJson(const JsonReader& j, const Cluster& cluster, const ModelSpec& model,
                             bool distributedOptimizer = true);
    // The "setup" object (PlanJson::setup); absent keys keep their defaults.
    // memx-plan/2 or /1; memx-search/2 or /1.
    static bool isPlanFormat(const std::string& format);
    static bool isSearchFormat(const std::string& format);
};

}  // namespace memx
