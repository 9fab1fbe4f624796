#pragma once

#include "hardware/GpuType.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace memx {

class JsonReader;

class GpuCatalog;

enum class LinkKind { NVLink, PCIe, xGMI, HCCS, CrossNUMA, InfiniBand, RoCE, Ethernet };
const char* toString(LinkKind kind);
bool parseLinkKind(const std::string& text, LinkKind& out);

struct Device {
    int node = 0;  // index into Cluster::nodes()
    int indexInNode = 0;  // 0-based position in the node's listing order
    int type = 0;  // index into Cluster::types()
    int group = 0;  // index into Cluster::groups()
};

struct Node {
    std::string name;
    std::vector<int> devices;  // global device ids
};

// GPUs of one type in one node: the unit that hosts pipeline stages. TP and DP
// groups never span groups (MemX pruning rule 1).
struct DeviceGroup {
    std::string name;  // "node" when the node has one type, else "node/type"
    int node = 0;
    int type = 0;
    std::vector<int> devices;
};

// One edge of the multi-edge device graph. `within` links connect every pair of
// devices in `a`; `across` links (a fabric shared by many nodes) every pair of
// devices in `a` that sit in different nodes; otherwise every device of `a`
// with every device of `b`.
// Links with the same `medium` (>= 0) share one physical medium whose bandwidth
// is split among the transfers that cross it at the same time.
struct Link {
    std::string name;
    LinkKind kind = LinkKind::PCIe;
    double bandwidthGBps = 0;  // per direction, GB/s
    double latencyUs = 0;  // one hop, microseconds
    bool within = false;
    bool across = false;
    std::vector<std::string> acrossSelectors;  // as written: node selectors, or "*" for every node
    std::vector<int> aNode;  // across: the node of each device of `a`
    std::vector<int> a;
    std::vector<int> b;
    int medium = -1;  // -1: not shared (switched fabric: every pair gets the full bandwidth)
    std::string aSelector;
    std::string bSelector;
    std::string mediumName;
    bool sharedFlag = false;

    bool connects(int x, int y) const;
};

class Cluster {
public:
    static Cluster fromFile(const std::string& file);
    static Cluster fromFile(const std::string& file, const GpuCatalog& catalog);
    static Cluster fromJson(const nlohmann::json& doc, const std::string& file, const GpuCatalog& catalog);
    // A cluster as the workbench may hold it: a cluster file's document, or
    // one with no nodes (and so no links) yet, whose other fields fromJson
    // checks as it would with a node; that one gives the empty Cluster. A
    // file on disk must have nodes (fromJson), a search refuses none.
    static Cluster fromEditorJson(const nlohmann::json& doc, const std::string& file, const GpuCatalog& catalog);
    static bool isEmptyDocument(const nlohmann::json& doc);  // an object whose "nodes" is an empty array
    nlohmann::json toJson() const;

    const std::string& name() const { return name_; }
    const std::string& description() const { return description_; }
    const std::vector<GpuType>& types() const { return types_; }
    const std::vector<Node>& nodes() const { return nodes_; }
    const std::vector<Device>& devices() const { return devices_; }
    const std::vector<DeviceGroup>& groups() const { return groups_; }
    const std::vector<Link>& links() const { return links_; }
    int mediumCount() const { return mediumCount_; }

    const GpuType& typeOf(int device) const { return types_[devices_[device].type]; }
    std::string deviceLabel(int device) const;  // "node:3"
    int deviceCount() const { return static_cast<int>(devices_.size()); }

    // The same cluster with link i's bandwidth multiplied by factors[i] (one
    // per link, in links() order): a what-if network (BandwidthScenario).
    Cluster withLinkBandwidthScaled(const std::vector<double>& factors) const;
    // The same cluster without these nodes (indices into nodes()): their GPUs,
    // their device groups, every link that reaches them, and a GPU type no
    // node has any more are gone; device, group and type indices are
    // renumbered in the same order. Throws std::invalid_argument for an index
    // out of range or when no node would be left.
    Cluster withoutNodes(const std::vector<int>& nodes) const;

    // Coefficient of variation of effective device compute (peak x efficiency),
    // the paper's GPU heterogeneity index.
    double heterogeneityIndex() const;

private:
    // fromJson's steps (Cluster.cpp).
    struct Reading;
    void readTypeOverrides(const JsonReader& root, Reading& r);
    int resolveType(const JsonReader& where, const std::string& name, Reading& r);
    void readNodes(const JsonReader& root, Reading& r);
    std::vector<int> selectDevices(const JsonReader& where, const std::string& field, const std::string& sel,
                                   const Reading& r) const;
    void readLinks(const JsonReader& root, Reading& r);
    void requireEveryNodePairJoined(const JsonReader& root) const;

    std::string name_;
    std::string description_;
    std::string source_;
    std::vector<GpuType> types_;
    std::vector<Node> nodes_;
    std::vector<Device> devices_;
    std::vector<DeviceGroup> groups_;
    std::vector<Link> links_;
    int mediumCount_ = 0;
    nlohmann::json typeOverrides_;  // the file's "gpu_types", written back verbatim
    std::vector<std::vector<std::pair<std::string, int>>> nodeGpus_;  // per node: (type, count)
};

}  // namespace memx
