#include "space/Plan.h"

#include "space/StageSlots.h"

#include <algorithm>

namespace memx {

std::string StagePlan::label() const
{
    return StageSlots::label(groupName, slice, spansGroups());
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
