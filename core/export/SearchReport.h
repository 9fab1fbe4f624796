#pragma once

#include "search/BandwidthWhatIf.h"
#include "search/NodeChoice.h"
#include "search/NodeLossWhatIf.h"
#include "search/ShapeExplanation.h"
#include "search/WeightSimplex.h"

#include <nlohmann/json.hpp>

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace memx {

struct SearchRequest;
struct SearchResult;

// What was asked beside a search: the analyses that run on its result.
struct SearchFollowUps {
    std::vector<BandwidthScenario> scenarios;  // what-if bandwidth; empty: none
    std::string scenarioFile;  // named in the report and the JSON
    BandwidthWhatIf::Options whatIf;
    bool chooseNodes = false;
    NodeChoice::Options choice;
    bool nodeLoss = false;
    NodeLossWhatIf::Options nodeLossOptions;
    std::optional<std::array<int, 3>> whyNot;  // TP, PP, DP
    bool simplex = false;  // the weight simplex over the kept plans
};

// The reports of one search and its follow-ups, for every front end: the
// follow-ups are run once (of), then written as the text report and as the
// search JSON's extra keys.
struct SearchReport {
    std::optional<BandwidthWhatIf::Result> whatIf;
    std::optional<NodeChoice::Result> choice;
    std::optional<NodeLossWhatIf::Result> nodeLoss;
    std::optional<ShapeExplanation> whyNot;
    std::optional<SimplexMap> simplex;

    // Runs the follow-ups the result allows: a search without a plan runs
    // only why-not. The what-if gets what the search left of --time-limit.
    static SearchReport of(const SearchRequest& request, const SearchResult& result, const SearchFollowUps& asked);

    // The search JSON (PlanJson::search) with what_if, node_loss,
    // node_choice and why_not added.
    nlohmann::json json(const SearchRequest& request, const SearchResult& result, const SearchFollowUps& asked) const;

    struct TextOptions {
        std::size_t top = 10;  // plans in the table
        bool stats = false;  // the statistics (with the notes)
        std::string topologyNote;  // said when there are no statistics
    };
    // The text report: the table and plan 1 in detail, the recomputation
    // ablation, the cost, the profile comparison, the baselines, then each
    // follow-up; for a search without a plan, why none.
    std::string text(const SearchRequest& request, const SearchResult& result, const SearchFollowUps& asked,
                     const TextOptions& options) const;
};

}  // namespace memx
