#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace memx {

struct Plan;
struct SearchResult;
struct Problem;
struct TrainingSetup;

// JSON documents written by the engine (formats in docs/FILE_FORMATS.md):
// memx-plan/1 for one plan, memx-search/1 for a whole search.
struct PlanJson {
    static nlohmann::json plan(const Plan& p);
    static nlohmann::json search(const Problem& problem, const SearchResult& result);
    // A self-contained memx-plan/1 document: plan(p) plus what it was made
    // for and by (tool_version, predictor, cluster, model, setup), so that
    // PlanJsonReader can read it back and the exporters can use it alone.
    static nlohmann::json planDocument(const Problem& problem, const std::string& predictor, const Plan& p);
    // The "setup" object of both documents.
    static nlohmann::json setup(const TrainingSetup& s);
};

}  // namespace memx
