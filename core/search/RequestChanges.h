#pragma once

#include <string>
#include <vector>

namespace memx {

struct SearchRequest;

// What differs between the request a result was computed for and the one
// the front end would send now: a shown result is current only when nothing
// does. Compared by value (cluster and model through their JSON form, which
// leaves out descriptive notes), so an edit that is undone makes the result
// current again.
struct RequestChanges {
    // In a fixed order, each at most once: "cluster", "model", "setup",
    // "objective", "predictor". Empty: the same request.
    static std::vector<std::string> between(const SearchRequest& computedFor, const SearchRequest& now);
    // "the cluster and model", "the setup", "the cluster, model and objective"
    static std::string describe(const std::vector<std::string>& changes);
};

}  // namespace memx
