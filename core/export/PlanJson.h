#pragma once

#include <nlohmann/json.hpp>

namespace memx {

struct Plan;
struct SearchResult;
struct SearchRequest;

// JSON documents written by the engine (formats in docs/FILE_FORMATS.md):
// memx-plan/1 for one plan, memx-search/1 for a whole search.
struct PlanJson {
    static nlohmann::json plan(const Plan& p);
    static nlohmann::json search(const SearchRequest& req, const SearchResult& result);
};

}  // namespace memx
