#pragma once

#include "hardware/Cluster.h"

#include <string>
#include <vector>

namespace memx {

// One what-if network condition (Wu et al.'s time-varying bandwidth): links
// scaled by kind ("kind:InfiniBand"), by name ("link:ib-n0-n1") or by the
// shared medium they cross ("medium:nic0"), either steadily or as a time
// profile of segments (e.g. 100% -> 40% -> 100% over an hour). Read from
// memx-bandwidth-scenarios/1 files (BandwidthScenarioFile).
struct BandwidthScenario {
    struct Scale {
        std::string selector;  // "kind:NAME", "link:NAME" or "medium:NAME"
        double factor = 1;  // bandwidth multiplier
    };
    struct Segment {
        double minutes = 0;  // 0 for a steady scenario
        double share = 1;  // of the scenario's time
        std::vector<Scale> scales;
    };
    std::string name;
    std::vector<Segment> segments;  // one for a steady scenario

    bool timeProfile() const { return segments.size() > 1; }
    // Per link of the cluster: the product of the factors whose selector
    // matches it (1 where none does).
    static std::vector<double> factors(const Cluster& cluster, const std::vector<Scale>& scales);
    static Cluster apply(const Cluster& cluster, const std::vector<Scale>& scales);
    // "InfiniBand x0.5, link nv0 x0.8" ("as described" when nothing is scaled).
    static std::string describe(const std::vector<Scale>& scales);
    // Whether the selector names something in the cluster; empty when it
    // does, else the reason (unknown kind, no such link or medium).
    static std::string unknownSelector(const Cluster& cluster, const std::string& selector);
};

}  // namespace memx
