#pragma once

#include <map>
#include <mutex>
#include <vector>

namespace memx {

class Cluster;

// A transfer between two devices that runs at the same time as others.
struct Flow {
    int src = 0;
    int dst = 0;
};

// What one flow gets once every concurrent flow is placed on the links.
struct FlowRate {
    double bandwidthGBps = 0;  // 0 when no link joins the two devices
    double latencyUs = 0;
};

// Effective speed of a collective or hop: the slowest flow decides.
struct PathRate {
    double bandwidthGBps = 0;
    double latencyUs = 0;
    bool connected() const { return bandwidthGBps > 0; }
};

// Bandwidth queries over the multi-edge device graph of a cluster.
// A flow uses every link that joins its two devices (parallel links add up);
// two links on the same physical medium count once (the faster one); a
// shared medium splits its bandwidth evenly among all concurrent flows that
// cross it. Links without a medium are switched: each flow gets all of it.
class Topology {
public:
    explicit Topology(const Cluster& cluster);

    std::vector<FlowRate> rates(const std::vector<Flow>& flows) const;

    // Concurrent ring all-reduces (e.g. every TP group of a stage at once).
    // Returns the bottleneck hop over all rings. A ring of one device is free.
    PathRate ring(const std::vector<std::vector<int>>& rings) const;

    // The rings of one pipeline stage whose devices are laid out TP-major
    // ([dp0: tp0..tpT-1][dp1: ...]): TP rings are consecutive devices, DP
    // rings the same TP rank of every replica.
    static std::vector<std::vector<int>> tensorParallelRings(const std::vector<int>& stageDevices, int tp, int dp);
    static std::vector<std::vector<int>> dataParallelRings(const std::vector<int>& stageDevices, int tp, int dp);

    // Point-to-point: device from[k] sends to to[k], all k at the same time.
    PathRate pairwise(const std::vector<int>& from, const std::vector<int>& to) const;

    // Time in ms of a ring all-reduce of `bytes` per device over k devices:
    // 2(k-1)/k * bytes / B + 2(k-1) * latency (Patarasuk & Yuan's ring).
    static double allReduceMs(double bytes, int k, const PathRate& rate);
    // Time in ms to send `bytes` over one hop.
    static double transferMs(double bytes, const PathRate& rate);

private:
    PathRate bottleneckOf(const std::vector<Flow>& flows) const;

    const Cluster& cluster_;
    std::vector<std::vector<int>> linksOf_;  // per device: links that touch it
    // ring() and pairwise() answers by flow list: a search asks the same
    // stage rings and hops for many skeletons. Shared by worker threads.
    mutable std::mutex memoMutex_;
    mutable std::map<std::vector<int>, PathRate> memo_;
};

}  // namespace memx
