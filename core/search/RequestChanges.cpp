#include "search/RequestChanges.h"

#include "search/SearchResult.h"

namespace memx {

std::vector<std::string> RequestChanges::between(const SearchRequest& a, const SearchRequest& b)
{
    std::vector<std::string> out;
    if (a.problem.cluster.toJson() != b.problem.cluster.toJson())
        out.emplace_back("cluster");
    if (a.problem.model.toJson() != b.problem.model.toJson())  // not `source`, a note on where it came from
        out.emplace_back("model");
    if (!(a.problem.setup == b.problem.setup))
        out.emplace_back("setup");
    if (!(a.objective == b.objective))
        out.emplace_back("objective");
    if (a.predictor != b.predictor)
        out.emplace_back("predictor");
    return out;
}

std::string RequestChanges::describe(const std::vector<std::string>& changes)
{
    std::string s = "the ";
    for (std::size_t i = 0; i < changes.size(); ++i) {
        if (i > 0)
            s += i + 1 == changes.size() ? " and " : ", ";
        s += changes[i];
    }
    return changes.empty() ? std::string() : s;
}

}  // namespace memx
