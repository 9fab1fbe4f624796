#include "profiling/PresampleMeasurements.h"

#include "hardware/GpuType.h"
#include "io/Statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace memx {

PresampleMeasurements::PresampleMeasurements(const std::vector<MeasuredRun>& runs)
{
    for (const MeasuredRun& r : runs) {
        const Measurement& c = r.config;
        if (c.pp != 1 || c.dp != 1 || r.stages.size() != 1) {
            ++ignored_;
            continue;
        }
        const MeasuredStage& st = r.stages.front();
        const Shape shape{st.gpuType, st.tp, c.mbs, c.seqLen, st.layers, c.queryGroups, st.recompute};
        std::optional<double> time = r.iterationTimeMs;
        std::optional<double> peak = r.runPeakMemMiB ? r.runPeakMemMiB : st.peakMemMiB;
        if (!time && !peak) {
            ++ignored_;
            continue;
        }
        auto it = std::find_if(runs_.begin(), runs_.end(), [&](const Values& v) { return v.shape == shape; });
        if (it == runs_.end()) {
            runs_.push_back({shape, {}, {}});
            it = runs_.end() - 1;
        }
        if (time)
            it->times.push_back(*time);
        if (peak)
            it->peaks.push_back(*peak);
    }
}

std::pair<double, double> PresampleMeasurements::find(const StageQuery& q) const
{
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    const Shape
        shape{q.gpu ? q.gpu->name : std::string(), q.tp, q.microBatch, q.seqLen, q.layers, q.queryGroups, q.recompute};
    for (const Values& v : runs_)
        if (v.shape == shape)
            return {v.times.empty() ? nan : Statistics::median(v.times),
                    v.peaks.empty() ? nan : Statistics::median(v.peaks)};
    return {nan, nan};
}

ProfilingPlanner::MeasureFn PresampleMeasurements::measure(std::vector<std::string>& missing) const
{
    return [this, &missing](const StageQuery& q) {
        const auto tm = find(q);
        if (std::isnan(tm.first) || std::isnan(tm.second)) {
            const std::string id = runIdOf(q);
            if (std::find(missing.begin(), missing.end(), id) == missing.end())
                missing.push_back(id);
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
