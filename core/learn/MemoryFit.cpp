#include "learn/MemoryFit.h"

#include "io/Statistics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <utility>

namespace memx {

double MemoryFit::predictedMiB(const MemoryObservation& o, double multiplier, double frameworkMiB)
{
    return (multiplier * o.tensorsMiB + frameworkMiB) * (1.0 + o.slack) + o.addMiB;
}

double MemoryFit::mape(const std::vector<MemoryObservation>& obs, double multiplier, double frameworkMiB)
{
    double sum = 0;
    for (const MemoryObservation& o : obs)
        sum += std::abs(predictedMiB(o, multiplier, frameworkMiB) - o.measuredMiB) / o.measuredMiB;
    return obs.empty() ? 0.0 : 100.0 * sum / static_cast<double>(obs.size());
}

double MemoryFit::bestFrameworkMiB(const std::vector<MemoryObservation>& obs, double multiplier)
{
    // |(a T + c)(1 + s) + r - M| / M = (1 + s) / M x |c - ((M - r) / (1 + s) - a T)|:
    // a weighted sum of distances, smallest at the weighted median; the loss
    // is convex in c, so clamping the median to the range is optimal there.
    std::vector<std::pair<double, double>> points;  // (value, weight)
    for (const MemoryObservation& o : obs)
        points.emplace_back((o.measuredMiB - o.addMiB) / (1.0 + o.slack) - multiplier * o.tensorsMiB,
                            (1.0 + o.slack) / o.measuredMiB);
    return std::clamp(Statistics::weightedMedian(std::move(points)), 0.0, kMaxFrameworkMiB);
}

MemoryFit::Result MemoryFit::fit(const std::vector<MemoryObservation>& obs, double multiplier0, double frameworkMiB0,
                                 double contradictionRatio)
{
    Result r;
    r.multiplier = multiplier0;
    r.frameworkMiB = frameworkMiB0;
    r.mapeBefore = r.mapeAfter = mape(obs, multiplier0, frameworkMiB0);
    if (obs.empty())
        return r;
    std::map<std::string, std::pair<double, double>> range;  // per configuration: lowest, highest peak
    for (const MemoryObservation& o : obs) {
        auto [it, added] = range.emplace(o.config, std::make_pair(o.measuredMiB, o.measuredMiB));
        it->second.first = std::min(it->second.first, o.measuredMiB);
        it->second.second = std::max(it->second.second, o.measuredMiB);
    }
    for (const auto& [config, lh] : range)
        if (lh.second > contradictionRatio * lh.first) {
            char buf[200];
            std::snprintf(buf, sizeof buf,
                          "peaks of one configuration differ %.1fx (%.0f vs %.0f MiB); catalog memory values kept",
                          lh.second / lh.first, lh.first, lh.second);
            r.note = buf;
            return r;
        }
    const std::size_t distinct = range.size();
    if (distinct < 2) {
        r.note = "peaks of only 1 distinct configuration; two are needed to fit framework buffers; catalog memory "
                 "values kept";
        return r;
    }
    double bestA = multiplier0, bestC = bestFrameworkMiB(obs, multiplier0), best = mape(obs, bestA, bestC);
    if (distinct >= 3) {
        constexpr int kSteps = 400;
        for (int i = 0; i <= kSteps; ++i) {
            const double a = kMinMultiplier + (kMaxMultiplier - kMinMultiplier) * i / kSteps;
            const double c = bestFrameworkMiB(obs, a);
            const double e = mape(obs, a, c);
            if (e < best - 1e-9) {
                best = e;
                bestA = a;
                bestC = c;
            }
        }
    }
    if (!(best < r.mapeBefore - 1e-6)) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "no fit lowers these peaks' error (%.1f%% with catalog values); kept",
                      r.mapeBefore);
        r.note = buf;
        return r;
    }
    r.fitted.push_back("framework_mib");
    if (bestA != multiplier0)
        r.fitted.push_back("memory_multiplier");
    else if (distinct < 3)
        r.note = "peaks of 2 distinct configurations: fitted the framework buffers only";
    r.multiplier = bestA;
    r.frameworkMiB = bestC;
    r.mapeAfter = best;
    return r;
}

}  // namespace memx
