#pragma once

#include "search/NodeLossWhatIf.h"

#include <nlohmann/json.hpp>

#include <string>

namespace memx {

// The node-loss section of a search report (NodeLossWhatIf), as text for the
// CLI report and as the "node_loss" object of memx-search/2.
struct NodeLossReport {
    static std::string text(const NodeLossWhatIf::Result& w, const SearchResult& r);
    static nlohmann::json json(const NodeLossWhatIf::Result& w);
};

}  // namespace memx
