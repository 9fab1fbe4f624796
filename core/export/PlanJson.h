#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace memx {

struct Plan;
struct SearchResult;
struct Problem;
struct TrainingSetup;

// JSON documents written by the engine (formats in docs/FILE_FORMATS.md):
// memx-plan/2 for one plan, memx-search/2 for a whole search (the /1
// formats before 2026-12-06 still read: PlanJsonReader).
struct PlanJson {
    static nlohmann::json plan(const Plan& p);
    static nlohmann::json search(const Problem& problem, const SearchResult& result);
    // A self-contained memx-plan/2 document: plan(p) plus what it was made
    // for and by (tool_version, predictor, cluster, model, setup), so that
    // PlanJsonReader can read it back and the exporters can use it alone.
    static nlohmann::json planDocument(const Problem& problem, const std::string& predictor, const Plan& p);
};

}  // namespace memx
