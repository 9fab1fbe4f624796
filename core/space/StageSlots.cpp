#include "space/StageSlots.h"

#include "hardware/Cluster.h"

namespace memx {

StageSlotSet StageSlots::of(const Cluster& cluster, int stageSize, int tp)
{
    StageSlotSet out;
    const auto& groups = cluster.groups();
    if (stageSize < 1 || tp < 1)
        return out;
    for (std::size_t t = 0; t < cluster.types().size(); ++t) {
        std::vector<int> pending;  // whole groups waiting to make up one multi-node slot
        int pendingSize = 0;
        for (std::size_t g = 0; g < groups.size(); ++g) {
            const DeviceGroup& group = groups[g];
            if (group.type != static_cast<int>(t))
                continue;
            const int size = static_cast<int>(group.devices.size());
            if (stageSize <= size) {
                const int k = size / stageSize;
                for (int s = 0; s < k; ++s) {
                    StageSlot slot;
                    slot.type = group.type;
                    slot.groups = {static_cast<int>(g)};
                    slot.slice = s;
                    slot.devices.assign(group.devices.begin() + s * stageSize,
                                        group.devices.begin() + (s + 1) * stageSize);
                    slot.name = label(group.name, s, false);
                    out.all.push_back(std::move(slot));
                }
                out.idleGpus += size - k * stageSize;
                continue;
            }
            // Larger than the group: whole groups, each a multiple of TP so
            // that no TP group leaves its node.
            if (size % tp != 0 || pendingSize + size > stageSize) {
                out.idleGpus += pendingSize;
                pending.clear();
                pendingSize = 0;
                if (size % tp != 0) {
                    out.idleGpus += size;
                    continue;
                }
            }
            pending.push_back(static_cast<int>(g));
            pendingSize += size;
            if (pendingSize == stageSize) {
                StageSlot slot;
                slot.type = group.type;
                slot.groups = pending;
                for (int pg : pending) {
                    const auto& d = groups[static_cast<std::size_t>(pg)].devices;
                    slot.devices.insert(slot.devices.end(), d.begin(), d.end());
                    slot.name += (slot.name.empty() ? "" : "+") + groups[static_cast<std::size_t>(pg)].name;
                }
                out.all.push_back(std::move(slot));
                pending.clear();
                pendingSize = 0;
            }
        }
        out.idleGpus += pendingSize;
    }
    return out;
}

std::string StageSlots::label(const std::string& groupName, int slice, bool spansGroups)
{
    return spansGroups ? groupName : groupName + "#" + std::to_string(slice);
}

std::vector<int> StageSlots::groupsNamed(const Cluster& cluster, const std::string& label)
{
    std::vector<int> out;
    std::size_t start = 0;
    for (;;) {
        std::size_t plus = label.find('+', start);
        std::string name = label.substr(start, plus == std::string::npos ? std::string::npos : plus - start);
        int found = -1;
        for (std::size_t g = 0; g < cluster.groups().size(); ++g)
            if (cluster.groups()[g].name == name)
                found = static_cast<int>(g);
        if (found < 0)
            return {};
        out.push_back(found);
        if (plus == std::string::npos)
            break;
        start = plus + 1;
    }
    return out;
}

}  // namespace memx
