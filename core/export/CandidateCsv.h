#pragma once

#include <string>
#include <vector>

namespace memx {

struct Plan;
struct SearchResult;

// One row per plan; columns are documented in docs/FILE_FORMATS.md.
struct CandidateCsv {
    static std::string header();
    static std::string row(const Plan& p);
    static std::string write(const std::vector<Plan>& plans);
    // Every plan a search reports (top lists, fronts, candidate sample), each
    // once, best Phi first.
    static std::string write(const SearchResult& result);
};

}  // namespace memx
