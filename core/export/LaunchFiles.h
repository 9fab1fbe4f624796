#pragma once

#include <string>
#include <vector>

namespace memx {

class Cluster;
struct Plan;
struct PlanDocument;

// One file an exporter produces (name relative to the output directory).
struct ExportedFile {
    std::string name;
    std::string content;
    bool executable = false;
};

// One torchrun agent (one "node" to torchrun): a contiguous range of global
// ranks on one host. Usually one per host; a host whose ranks are not
// contiguous in Megatron's order (its stages are not neighbours in the
// pipeline) runs one agent per contiguous range.
struct LaunchAgent {
    int nodeRank = 0;  // torchrun --node-rank
    int host = 0;  // index into LaunchLayout::hosts
    int firstRank = 0;  // global rank of local rank 0
    std::vector<int> devices;  // global device ids, in local-rank order
    std::vector<int> localDevices;  // the same devices' index within their node (CUDA_VISIBLE_DEVICES)
    std::vector<int> stages;  // pipeline stages with ranks on this agent, ascending
};

// One machine: a cluster node that runs at least one rank.
struct LaunchHost {
    std::string name;  // the cluster's node name, used as host name
    int node = 0;  // index into Cluster::nodes()
    int gpus = 0;  // GPUs of the node
    std::vector<std::string> gpuTypes;  // distinct types of the GPUs it uses, in device order
    std::vector<int> agents;  // indices into LaunchLayout::agents, ascending node rank
};

struct LaunchLayout {
    std::vector<LaunchAgent> agents;  // in node-rank order
    std::vector<LaunchHost> hosts;  // in order of their first node rank (hostfile order)
    std::vector<int> deviceOfRank;  // global rank -> global device id
    std::vector<int> stageOfRank;  // global rank -> pipeline stage
};

// Where each rank runs, and the files around the per-node scripts that do not
// depend on the framework: the header every exported file starts with, the
// hostfile, and the Slurm batch script.
class LaunchFiles {
public:
    // Places Megatron's global ranks (RankLayout's default order) on the
    // plan's devices: rank r = (tp, dp, pp) runs on stages[pp].devices[dp*TP + tp]
    // (StagePlan::devices is TP-major), and torchrun agents are cut where the
    // host changes, so rank r lands exactly on that device. A per-mesh plan
    // uses each stage's own TP and DP (FlagScale's RankMapper order).
    static LaunchLayout layout(const Cluster& cluster, const Plan& plan);

    // The comment block every exported file starts with: tool version,
    // target, source file, predictor, expected iteration time and per-GPU
    // peak memory of each stage. `prefix` starts each line ("# ").
    static std::string header(const PlanDocument& doc, const std::string& target, const std::string& prefix = "# ");

    // "host slots=N" per host in hostfile order; with `withType`, FlagScale's
    // " type=T" (only valid when every host has one GPU type).
    static std::string hostfile(const PlanDocument& doc, const LaunchLayout& layout, const std::string& target,
                                bool withType);

    // sbatch script: one task per host; each task finds its line in the
    // hostfile by host name and starts the launch scripts of that host.
    static std::string sbatch(const PlanDocument& doc, const LaunchLayout& layout, const std::string& target);

    // "launch_node<R>.sh"
    static std::string scriptName(int nodeRank);
};

}  // namespace memx
