#pragma once

#include <string>
#include <vector>

namespace memx {

class Cluster;

// A set of GPUs of one type that can host one pipeline stage of TP x DP
// devices: part of a node (a TP x DP block of a device group), one node, or
// several whole nodes of one type. TP groups never leave a node; DP replicas
// may (their all-reduce then crosses the inter-node links).
struct StageSlot {
    int type = 0;  // index into Cluster::types()
    std::vector<int> groups;  // device groups it covers, cluster order (one unless it spans nodes)
    int slice = 0;  // which TP x DP block of its group (single-group slots; 0 otherwise)
    std::vector<int> devices;  // global device ids, TP-major: [dp0: tp0..tpT-1][dp1: ...], node-major
    std::string name;  // "a100#1" (group a100, block 1) or "n0+n1" (whole nodes)

    bool spansNodes() const { return groups.size() > 1; }
};

// The slots of one stage size, per GPU type in cluster order.
struct StageSlotSet {
    std::vector<StageSlot> all;
    int idleGpus = 0;  // GPUs no slot of this size uses
};

struct StageSlots {
    // Every device group hosts as many blocks of `stageSize` GPUs as fit; a
    // size larger than a group takes whole groups of the same type (cluster
    // order) whose sizes are multiples of `tp` and add up exactly.
    static StageSlotSet of(const Cluster& cluster, int stageSize, int tp);
    // Label of a stage in plans and files: "group#slice", or "g1+g2" when it
    // spans whole groups.
    static std::string label(const std::string& groupName, int slice, bool spansGroups);
    // The device groups a stage label names: "a100" or "n0+n1". Empty when a
    // name is not a group of the cluster.
    static std::vector<int> groupsNamed(const Cluster& cluster, const std::string& label);
};

}  // namespace memx
