#include "profiling/PresampleMeasurements.h"

#include "hardware/GpuType.h"
#include "io/Statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>

namespace memx {

PresampleMeasurements::PresampleMeasurements(const std::vector<MeasuredRun>& runs)
{
    std::map<Shape, Values> profiles;
    for (const MeasuredRun& r : runs) {
        const Measurement& c = r.config;
        if (c.pp == 1 && c.dp == 1 && r.stages.size() == 1) {
            const MeasuredStage& st = r.stages.front();
            const std::optional<double> peak = r.runPeakMemMiB ? r.runPeakMemMiB : st.peakMemMiB;
            if (!r.iterationTimeMs && !peak) {
                ++ignored_;
                continue;
            }
            Values& v = runs_[shapeOf(st, c)];
            if (r.iterationTimeMs)
                v.times.push_back(*r.iterationTimeMs);
            if (peak)
                v.peaks.push_back(*peak);
            continue;
        }
        const int microBatches = r.microBatchCount();
        bool profiled = false;
        for (std::size_t s = 1; s + 1 < r.stages.size() && microBatches > 0; ++s) {
            const MeasuredStage& st = r.stages[s];
            if (!st.stageTimeMs || st.row < 0)
                continue;
            profiles[shapeOf(st, c)].times.push_back(*st.stageTimeMs / microBatches);
            profiled = true;
        }
        ignored_ += profiled ? 0 : 1;
    }
    // Stage profiles only for the types no single-stage run measured.
    std::set<std::string> wholeTypes;
    for (const auto& [shape, v] : runs_)
        wholeTypes.insert(shape.gpu);
    std::set<std::string> profiled;
    for (auto& [shape, v] : profiles)
        if (!wholeTypes.contains(shape.gpu)) {
            profiled.insert(shape.gpu);
            runs_.emplace(shape, std::move(v));
        }
    profiledTypes_.assign(profiled.begin(), profiled.end());
}

std::vector<int> PresampleMeasurements::profiledLayers(const std::string& gpu) const
{
    std::set<int> layers;
    if (std::binary_search(profiledTypes_.begin(), profiledTypes_.end(), gpu))
        for (const auto& [shape, v] : runs_)
            if (shape.gpu == gpu)
                layers.insert(shape.layers);
    return {layers.begin(), layers.end()};
}

std::pair<double, double> PresampleMeasurements::find(const StageQuery& q) const
{
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    const Shape
        shape{q.gpu ? q.gpu->name : std::string(), q.tp, q.microBatch, q.seqLen, q.layers, q.queryGroups, q.recompute};
    const auto it = runs_.find(shape);
    if (it == runs_.end())
        return {nan, nan};
    const Values& v = it->second;
    return {v.times.empty() ? nan : Statistics::median(v.times), v.peaks.empty() ? nan : Statistics::median(v.peaks)};
}

ProfilingPlanner::MeasureFn PresampleMeasurements::measure(std::vector<std::string>& missing,
                                                           std::vector<std::string>& noPeak) const
{
    return [this, &missing, &noPeak](const StageQuery& q) {
        const auto tm = find(q);
        if (std::isnan(tm.first) || std::isnan(tm.second)) {
            std::vector<std::string>& list = std::isnan(tm.first) ? missing : noPeak;
            const std::string id = runIdOf(q);
            if (std::find(list.begin(), list.end(), id) == list.end())
                list.push_back(id);
        }
        return tm;
    };
}

std::string PresampleMeasurements::runIdOf(const StageQuery& q)
{
    static const char* const rc[] = {"none", "sel", "full"};
    return (q.gpu ? q.gpu->name : std::string("gpu")) + "_tp" + std::to_string(q.tp) + "_mbs"
        + std::to_string(q.microBatch) + "_seq" + std::to_string(q.seqLen) + "_l" + std::to_string(q.layers) + "_g"
        + std::to_string(q.queryGroups) + "_rc" + rc[static_cast<int>(q.recompute)];
}

}  // namespace memx
