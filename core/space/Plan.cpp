#include "space/Plan.h"

#include "space/StageSlots.h"

#include <algorithm>

namespace memx {

std::string StagePlan::label() const { return StageSlots::label(groupName, slice, spansGroups()); }

StageShape Plan::shapeOf(std::size_t stage) const
{
    StageShape sh{tp, dp, microBatch};
    if (stage < stages.size()) {
        const StagePlan& s = stages[stage];
        if (s.tp > 0)
            sh.tp = s.tp;
        if (s.dp > 0)
            sh.dp = s.dp;
        if (s.microBatch > 0)
            sh.microBatch = s.microBatch;
    }
    return sh;
}

bool Plan::perMesh() const
{
    const StageShape plan{tp, dp, microBatch};
    for (std::size_t i = 0; i < stages.size(); ++i)
        if (!(shapeOf(i) == plan))
            return true;
    return false;
}

std::string Plan::shapeString() const
{
    auto one = [](const StageShape& s) {
        return "TP " + std::to_string(s.tp) + " x DP " + std::to_string(s.dp) + ", mbs " + std::to_string(s.microBatch);
    };
    if (!perMesh())
        return one({tp, dp, microBatch});
    std::string out;
    for (std::size_t i = 0; i < stages.size(); ++i) {
        if (i > 0 && stages[i].gpuType == stages[i - 1].gpuType && shapeOf(i) == shapeOf(i - 1))
            continue;
        out += (out.empty() ? "" : " | ") + stages[i].gpuType + " " + one(shapeOf(i));
    }
    return out;
}

std::string Plan::meshValues(int StageShape::*field) const
{
    if (!perMesh())
        return std::to_string(StageShape{tp, dp, microBatch}.*field);
    std::string out;
    for (std::size_t i = 0; i < stages.size(); ++i)
        if (i == 0 || stages[i].gpuType != stages[i - 1].gpuType || !(shapeOf(i) == shapeOf(i - 1)))
            out += (out.empty() ? "" : "|") + std::to_string(shapeOf(i).*field);
    return out;
}

std::string Plan::orderString() const
{
    std::string out;
    for (const auto& s : stages) {
        if (!out.empty())
            out += ">";
        out += s.label();
    }
    return out;
}

std::string Plan::layersString() const
{
    std::string out;
    for (const auto& s : stages)
        out += (out.empty() ? "" : ",") + std::to_string(s.layers);
    return out;
}

std::string Plan::recomputeString() const
{
    std::string out;
    for (const auto& s : stages) {
        out += out.empty() ? "" : ",";
        out += s.recompute == Recompute::None ? "N" : s.recompute == Recompute::Selective ? "S" : "F";
    }
    return out;
}

double Plan::minHeadroomAtUpper() const
{
    double h = 1.0;
    for (const auto& s : stages)
        if (s.capacityMiB > 0)
            h = std::min(h, 1.0 - s.memory.totalMiB() * (1 + uncertainty) / s.capacityMiB);
    return h;
}

double Plan::minHeadroom() const
{
    double h = 1.0;
    for (const auto& s : stages)
        h = std::min(h, s.headroom());
    return h;
}

}  // namespace memx
