#pragma once

#include <string>
#include <vector>

namespace memx {

struct Plan;

// One row per plan; columns are documented in docs/FILE_FORMATS.md.
struct CandidateCsv {
    static std::string header();
    static std::string row(const Plan& p);
    static std::string write(const std::vector<Plan>& plans);
};

}  // namespace memx
