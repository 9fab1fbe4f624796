#pragma once

#include "search/BandwidthWhatIf.h"

#include <nlohmann/json.hpp>

#include <string>

namespace memx {

// The what-if bandwidth section of a search report (BandwidthWhatIf), as
// text for the CLI report and as the "what_if" object of memx-search/2.
struct WhatIfReport {
    static std::string text(const BandwidthWhatIf::Result& w, const SearchResult& r, const std::string& file);
    static nlohmann::json json(const BandwidthWhatIf::Result& w, const std::string& file);
};

}  // namespace memx
