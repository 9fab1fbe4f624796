#pragma once

#include <string>

namespace memx {

// Versions of the libraries linked into memx_core, for About boxes and
// `--version` output.
struct LibraryVersions {
    static std::string xgboost();  // e.g. "1.7.4"
    static std::string nlohmannJson();  // e.g. "3.11.2"
};

}  // namespace memx
