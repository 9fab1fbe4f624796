#pragma once
// Clusters of identical nodes for tests and benchmarks: `nodes` nodes of
// `gpusPerNode` GPUs of `type` (the last node of `lastType` when given), NVLink
// inside each node and InfiniBand between every pair.

#include "hardware/Cluster.h"
#include "hardware/ClusterGenerator.h"
#include "hardware/GpuCatalog.h"

#include <nlohmann/json.hpp>

#include <string>

namespace memx::test {

inline Cluster uniformNodes(int nodes, int gpusPerNode, const std::string& type, const std::string& lastType = {})
{
    nlohmann::json doc{{"format", "memx-cluster/1"},
                       {"name", std::to_string(nodes) + "x" + std::to_string(gpusPerNode)}};
    doc["nodes"] = nlohmann::json::array();
    doc["links"] = nlohmann::json::array();
    for (int n = 0; n < nodes; ++n) {
        const std::string name = "n" + std::to_string(n);
        const std::string t = (!lastType.empty() && n == nodes - 1) ? lastType : type;
        doc["nodes"].push_back({{"name", name}, {"gpus", {{{"type", t}, {"count", gpusPerNode}}}}});
        doc["links"].push_back({{"name", name + "-nvl"},
                                {"kind", "NVLink"},
                                {"within", name},
                                {"bandwidth_gbps", 240},
                                {"latency_us", 3}});
        for (int m = 0; m < n; ++m)
            doc["links"].push_back({{"name", "ib" + std::to_string(m) + name},
                                    {"kind", "InfiniBand"},
                                    {"between", {"n" + std::to_string(m), name}},
                                    {"bandwidth_gbps", 25},
                                    {"latency_us", 5}});
    }
    return Cluster::fromJson(doc, "test cluster", GpuCatalog::builtin());
}

// `nodes` generated 8-GPU nodes whose types cycle A100-80GB, H20,
// Ascend-910B, H100-SXM (docs/SCALING.md's clusters; 4 nodes: 32 GPUs).
inline Cluster mixedNodes(int nodes, const std::string& name = "generated")
{
    ClusterGenerator::Spec spec;
    spec.name = name;
    spec.nodes = nodes;
    spec.types = {"A100-80GB", "H20", "Ascend-910B", "H100-SXM"};
    return Cluster::fromJson(ClusterGenerator::generate(spec), spec.name, GpuCatalog::builtin());
}

}  // namespace memx::test
