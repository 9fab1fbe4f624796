#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace memx {

// Writes memx-cluster/1 documents for clusters of identical-sized nodes: the
// scaling benchmark's clusters, `memx-cli generate-cluster`, and the
// synthetic clusters of measured runs.
struct ClusterGenerator {
    struct Spec {
        std::string name = "generated";
        int nodes = 4;
        int gpusPerNode = 8;
        std::vector<std::string> types{"A100-80GB"};  // node n gets types[n % size]
        double interNodeGBps = 50;  // per GPU and direction (one NIC per GPU, switched fabric)
        double interNodeLatencyUs = 5;
    };

    // Nodes "n0", "n1", ...; inside each node the fabric its GPU type ships
    // with (intraNodeFabric); one switched InfiniBand fabric ("across": "*")
    // joins the GPUs of different nodes.
    static nlohmann::json generate(const Spec& spec);

    struct Fabric {
        std::string kind;  // NVLink, HCCS, xGMI or PCIe
        double bandwidthGBps;  // per direction between two GPUs
        double latencyUs;
        bool shared;  // PCIe: one switch shared by the node's transfers
    };
    // The usual fabric inside an 8-GPU server of this type: NVSwitch for SXM
    // parts, HCCS for Ascend, Infinity Fabric for AMD, a shared PCIe switch
    // for PCIe cards. Bandwidths are per direction, from the vendors'
    // datasheets (NVLink 3/4/5: 300/450/900 GB/s, the H800's cut NVLink 4
    // 200 GB/s; HCCS 56 GB/s; xGMI 50 GB/s per link); PCIe 4.0 x16 about
    // 25 GB/s; GeForce and Titan boards, which have no PCIe peer-to-peer,
    // 6 GB/s through host memory (Sailor's measured median).
    static Fabric intraNodeFabric(const std::string& gpuType);
    // The memx-cluster/1 link of that fabric inside `node`, named `linkName`
    // (generate-cluster's nodes and a measured run's synthetic nodes alike).
    static nlohmann::json intraNodeLink(const std::string& node, const std::string& gpuType,
                                        const std::string& linkName);
};

}  // namespace memx
