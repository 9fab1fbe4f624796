#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace memx {

// The memx-cluster/1 document's spellings for every writer: Cluster::toJson,
// ClusterGenerator, RunScenario's synthetic clusters, and the workbench's
// editor (ClusterDocument, NodeTemplate). Readers go through Cluster::fromJson;
// the keys are documented in docs/FILE_FORMATS.md. A key spelled anywhere
// else in a writer is a second spelling to keep in step: use these.
struct ClusterJson {
    static constexpr const char* kFormat = "memx-cluster/1";

    // {"format", "name"[, "description"][, "source"], "nodes": [], "links": []}.
    static nlohmann::json document(const std::string& name, const std::string& description = {},
                                   const std::string& source = {});
    // {"type", "count"}: one entry of a node's "gpus".
    static nlohmann::json gpuEntry(const std::string& type, int count);
    // {"name", "gpus": [{"type", "count"}, ...]}.
    static nlohmann::json node(const std::string& name, const std::vector<std::pair<std::string, int>>& gpus);

    // One link. Exactly one of its scopes: `within` a selector ("n0",
    // "n0:0-3"), `between` two selectors, or `across` nodes ("*" or a list)
    // for one fabric joining the GPUs of different nodes.
    struct Link {
        std::string name;
        std::string kind;  // "NVLink", "InfiniBand", "PCIe", ...
        std::string within;
        std::vector<std::string> between;  // two selectors
        std::vector<std::string> across;  // {"*"}: every node
        double bandwidthGBps = 0;
        double latencyUs = 0;
        bool shared = false;  // one physical medium: concurrent transfers split it
        std::string medium;  // links sharing a medium name share its bandwidth
        bool allowOutsideRange = false;  // written back for a link read with it
    };
    static nlohmann::json link(const Link& l);
    static Link withinLink(std::string name, std::string kind, std::string selector, double gbps, double latencyUs);
    static Link betweenLink(std::string name, std::string kind, std::string a, std::string b, double gbps,
                            double latencyUs);
    static Link acrossLink(std::string name, std::string kind, std::vector<std::string> nodes, double gbps,
                           double latencyUs);
};

}  // namespace memx
