#include "hardware/Topology.h"

#include "hardware/Cluster.h"

#include <algorithm>
#include <limits>

namespace memx {

Topology::Topology(const Cluster& cluster)
    : cluster_(cluster)
    , linksOf_(static_cast<std::size_t>(cluster.deviceCount()))
{
    const auto& links = cluster.links();
    for (std::size_t l = 0; l < links.size(); ++l) {
        std::vector<int> touched = links[l].a;
        touched.insert(touched.end(), links[l].b.begin(), links[l].b.end());
        std::sort(touched.begin(), touched.end());
        touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
        for (int d : touched)
            if (d >= 0 && d < cluster.deviceCount())
                linksOf_[static_cast<std::size_t>(d)].push_back(static_cast<int>(l));
    }
}

std::vector<FlowRate> Topology::rates(const std::vector<Flow>& flows) const
{
    const auto& links = cluster_.links();
    // For each flow: indices of the links it uses, at most one per medium.
    std::vector<std::vector<int>> used(flows.size());
    std::vector<int> usage(static_cast<std::size_t>(cluster_.mediumCount()), 0);
    for (std::size_t f = 0; f < flows.size(); ++f) {
        std::vector<int> bestForMedium(usage.size(), -1);
        const int src = flows[f].src;
        const auto& candidates = src >= 0 && src < static_cast<int>(linksOf_.size())
            ? linksOf_[static_cast<std::size_t>(src)]
            : std::vector<int>{};
        for (int l : candidates) {
            if (!links[l].connects(flows[f].src, flows[f].dst))
                continue;
            int m = links[l].medium;
            if (m < 0) {
                used[f].push_back(l);
            } else if (bestForMedium[m] < 0 || links[l].bandwidthGBps > links[bestForMedium[m]].bandwidthGBps) {
                bestForMedium[m] = l;
            }
        }
        for (std::size_t m = 0; m < bestForMedium.size(); ++m) {
            if (bestForMedium[m] >= 0) {
                used[f].push_back(bestForMedium[m]);
                ++usage[m];
            }
        }
    }
    std::vector<FlowRate> out(flows.size());
    for (std::size_t f = 0; f < flows.size(); ++f) {
        double bw = 0, lat = std::numeric_limits<double>::infinity();
        for (int l : used[f]) {
            const Link& link = links[l];
            double share = link.medium >= 0 ? link.bandwidthGBps / std::max(1, usage[link.medium]) : link.bandwidthGBps;
            bw += share;
            lat = std::min(lat, link.latencyUs);
        }
        out[f].bandwidthGBps = bw;
        out[f].latencyUs = used[f].empty() ? 0 : lat;
    }
    return out;
}

namespace {
PathRate bottleneck(const std::vector<FlowRate>& rates)
{
    if (rates.empty())
        return {std::numeric_limits<double>::infinity(), 0};
    PathRate r{std::numeric_limits<double>::infinity(), 0};
    for (const auto& f : rates) {
        r.bandwidthGBps = std::min(r.bandwidthGBps, f.bandwidthGBps);
        r.latencyUs = std::max(r.latencyUs, f.latencyUs);
    }
    return r;
}
}  // namespace

PathRate Topology::bottleneckOf(const std::vector<Flow>& flows) const
{
    std::vector<int> key;
    key.reserve(flows.size() * 2);
    for (const auto& f : flows) {
        key.push_back(f.src);
        key.push_back(f.dst);
    }
    {
        std::lock_guard<std::mutex> lock(memoMutex_);
        auto it = memo_.find(key);
        if (it != memo_.end())
            return it->second;
    }
    PathRate r = bottleneck(rates(flows));
    std::lock_guard<std::mutex> lock(memoMutex_);
    memo_.emplace(std::move(key), r);
    return r;
}

PathRate Topology::ring(const std::vector<std::vector<int>>& rings) const
{
    std::vector<Flow> flows;
    for (const auto& r : rings) {
        if (r.size() < 2)
            continue;
        for (std::size_t i = 0; i < r.size(); ++i)
            flows.push_back({r[i], r[(i + 1) % r.size()]});
    }
    return bottleneckOf(flows);
}

PathRate Topology::pairwise(const std::vector<int>& from, const std::vector<int>& to) const
{
    std::vector<Flow> flows;
    for (std::size_t k = 0; k < std::min(from.size(), to.size()); ++k)
        if (from[k] != to[k])
            flows.push_back({from[k], to[k]});
    return bottleneckOf(flows);
}

std::vector<std::vector<int>> Topology::tensorParallelRings(const std::vector<int>& devices, int tp, int dp)
{
    std::vector<std::vector<int>> rings;
    for (int d = 0; d < dp; ++d)
        rings.emplace_back(devices.begin() + d * tp, devices.begin() + (d + 1) * tp);
    return rings;
}

std::vector<std::vector<int>> Topology::dataParallelRings(const std::vector<int>& devices, int tp, int dp)
{
    std::vector<std::vector<int>> rings;
    for (int r = 0; r < tp; ++r) {
        std::vector<int> ring;
        for (int d = 0; d < dp; ++d)
            ring.push_back(devices[d * tp + r]);
        rings.push_back(std::move(ring));
    }
    return rings;
}

double Topology::allReduceMs(double bytes, int k, const PathRate& rate)
{
    if (k <= 1 || bytes <= 0)
        return 0;
    double steps = 2.0 * (k - 1);
    // GB/s = 1e6 bytes per ms.
    return steps / k * bytes / (rate.bandwidthGBps * 1e6) + steps * rate.latencyUs * 1e-3;
}

double Topology::transferMs(double bytes, const PathRate& rate)
{
    if (bytes <= 0)
        return 0;
    return bytes / (rate.bandwidthGBps * 1e6) + rate.latencyUs * 1e-3;
}

}  // namespace memx
