#pragma once

#include "hardware/BandwidthScenario.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace memx {

// Reads memx-bandwidth-scenarios/1 (docs/FILE_FORMATS.md):
//
//   { "format": "memx-bandwidth-scenarios/1",
//     "scenarios": [
//       { "name": "InfiniBand at 50%", "scale": { "kind:InfiniBand": 0.5 } },
//       { "name": "congested hour", "profile": [
//           { "minutes": 20, "scale": {} },
//           { "minutes": 20, "scale": { "kind:InfiniBand": 0.4 } },
//           { "minutes": 20, "scale": {} } ] } ] }
//
// Every selector must name a link kind, link or shared medium of the
// cluster; factors lie in 0.01-10 (io/Ranges.h, overridable per scale
// object with "allow_outside_range"); names are unique. Problems are
// InputErrors naming the file, the JSON path and the reason.
struct BandwidthScenarioFile {
    static std::vector<BandwidthScenario> load(const std::string& file, const Cluster& cluster);
    static std::vector<BandwidthScenario> fromJson(const nlohmann::json& doc, const std::string& file,
                                                   const Cluster& cluster);
};

}  // namespace memx
