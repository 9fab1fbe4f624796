#include "profiling/MinimalSetSelector.h"

#include "measure/MeasuredRun.h"

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace memx {

namespace {

using Pair = std::tuple<std::string, std::string, long long>;  // (GPU type, parameter, value)

std::vector<std::pair<std::string, long long>> parametersOf(const MeasuredRun& run)
{
    const Measurement& c = run.config;
    // The model and the run's switches as one value: mixed field by field
    // (splitmix64 steps), since shifted fields overlapped (hidden 5120 with
    // one layer style matched hidden 4096 with another).
    std::uint64_t h = 0;
    for (long long v :
         {static_cast<long long>(c.hidden), static_cast<long long>(c.heads), static_cast<long long>(c.ffnHidden),
          static_cast<long long>(c.vocab), static_cast<long long>(c.mlp), static_cast<long long>(c.tiedEmbeddings),
          static_cast<long long>(!c.flashAttention), static_cast<long long>(c.attentionDropout > 0),
          static_cast<long long>(c.hiddenDropout > 0), static_cast<long long>(!c.sequenceParallel && c.tp > 1),
          static_cast<long long>(!c.distributedOptimizer && c.dp > 1),
          static_cast<long long>(c.overlapGradReduce && c.dp > 1),
          static_cast<long long>(c.overlapParamGather && c.dp > 1), static_cast<long long>(c.style.code())}) {
        h ^= static_cast<std::uint64_t>(v) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
        h ^= h >> 31;
        h *= 0xbf58476d1ce4e5b9ULL;
    }
    const long long shape = static_cast<long long>(h >> 1);
    return {{"mbs", c.mbs},  {"seq_len", c.seqLen},
            {"tp", c.tp},    {"pp", c.pp},
            {"dp", c.dp},    {"num_layers", c.numLayers},
            {"vp", c.vp},    {"recompute", static_cast<long long>(run.stages.front().recompute)},
            {"gbs", c.gbs},  {"query_groups", c.queryGroups},
            {"model", shape}};
}

// min, the value nearest the midpoint (the lower on a tie), max.
std::vector<long long> threePoints(const std::set<long long>& values)
{
    const long long lo = *values.begin(), hi = *values.rbegin();
    const double mid = (static_cast<double>(lo) + static_cast<double>(hi)) / 2;
    long long best = lo;
    for (long long v : values)
        if (std::abs(v - mid) < std::abs(best - mid))
            best = v;
    std::vector<long long> out{lo, best, hi};
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

}  // namespace

std::vector<int> MinimalSetSelector::select(const std::vector<MeasuredRun>& runs)
{
    // Values seen per (type, parameter); the run's type is its first stage's.
    std::map<std::pair<std::string, std::string>, std::set<long long>> seen;
    for (const MeasuredRun& run : runs)
        for (const auto& [name, value] : parametersOf(run))
            seen[{run.stages.front().gpuType, name}].insert(value);
    std::set<Pair> open;
    for (const auto& [key, values] : seen) {
        if (key.second == "model") {
            for (long long v : values)
                open.insert({key.first, key.second, v});
            continue;
        }
        if (values.size() < 2) {
            open.insert({key.first, key.second, *values.begin()});  // every type gets at least one run
            continue;
        }
        for (long long v : threePoints(values))
            open.insert({key.first, key.second, v});
    }
    std::vector<std::vector<Pair>> covers(runs.size());
    for (std::size_t r = 0; r < runs.size(); ++r)
        for (const auto& [name, value] : parametersOf(runs[r]))
            covers[r].push_back({runs[r].stages.front().gpuType, name, value});

    std::vector<int> chosen;
    std::vector<bool> taken(runs.size(), false);
    while (!open.empty()) {
        int best = -1;
        std::size_t bestGain = 0;
        for (std::size_t r = 0; r < runs.size(); ++r) {
            if (taken[r])
                continue;
            std::size_t gain = 0;
            for (const Pair& p : covers[r])
                gain += open.count(p);
            if (gain > bestGain) {
                bestGain = gain;
                best = static_cast<int>(r);
            }
        }
        if (best < 0)
            break;  // cannot happen: every open pair is held by some run
        taken[best] = true;
        chosen.push_back(best);
        for (const Pair& p : covers[best])
            open.erase(p);
    }
    std::sort(chosen.begin(), chosen.end());
    return chosen;
}

std::vector<int> MinimalSetSelector::rest(int n, const std::vector<int>& chosen)
{
    std::vector<int> out;
    const std::set<int> c(chosen.begin(), chosen.end());
    for (int i = 0; i < n; ++i)
        if (!c.count(i))
            out.push_back(i);
    return out;
}

}  // namespace memx
