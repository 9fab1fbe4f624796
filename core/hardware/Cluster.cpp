// Over 600 lines: the cluster file's reader (types, nodes, selectors, links, shared media), its checks and
// the clusters derived from it (scaled links, nodes left out) in one place.
#include "hardware/Cluster.h"
#include "hardware/ClusterJson.h"

#include "hardware/GpuCatalog.h"
#include "io/InputError.h"
#include "io/JsonReader.h"
#include "io/Ranges.h"

#include <algorithm>
#include <functional>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

namespace memx {

namespace {

struct KindName {
    LinkKind kind;
    const char* name;
};
constexpr KindName kKinds[] = {
    {LinkKind::NVLink, "NVLink"},
    {LinkKind::PCIe, "PCIe"},
    {LinkKind::xGMI, "xGMI"},
    {LinkKind::HCCS, "HCCS"},
    {LinkKind::CrossNUMA, "cross-NUMA"},
    {LinkKind::InfiniBand, "InfiniBand"},
    {LinkKind::RoCE, "RoCE"},
    {LinkKind::Ethernet, "Ethernet"},
};

std::string validKinds()
{
    std::string out;
    for (const auto& k : kKinds)
        out += (out.empty() ? "" : ", ") + std::string(k.name);
    return out;
}

bool parseIndex(const std::string& text, int& out)
{
    if (text.empty() || text.size() > 6)
        return false;
    for (char c : text)
        if (c < '0' || c > '9')
            return false;
    out = std::stoi(text);
    return true;
}

}  // namespace

const char* toString(LinkKind kind)
{
    for (const auto& k : kKinds)
        if (k.kind == kind)
            return k.name;
    return "?";
}

bool parseLinkKind(const std::string& text, LinkKind& out)
{
    for (const auto& k : kKinds) {
        std::string a = k.name, b = text;
        std::transform(a.begin(), a.end(), a.begin(), ::tolower);
        std::transform(b.begin(), b.end(), b.begin(), ::tolower);
        if (a == b) {
            out = k.kind;
            return true;
        }
    }
    return false;
}

bool Link::connects(int x, int y) const
{
    if (x == y)
        return false;
    auto in = [](const std::vector<int>& v, int d) { return std::binary_search(v.begin(), v.end(), d); };
    if (across) {
        const auto ix = std::lower_bound(a.begin(), a.end(), x), iy = std::lower_bound(a.begin(), a.end(), y);
        if (ix == a.end() || *ix != x || iy == a.end() || *iy != y)
            return false;
        return aNode[static_cast<std::size_t>(ix - a.begin())] != aNode[static_cast<std::size_t>(iy - a.begin())];
    }
    if (within)
        return in(a, x) && in(a, y);
    return (in(a, x) && in(b, y)) || (in(a, y) && in(b, x));
}

Cluster Cluster::fromFile(const std::string& file) { return fromFile(file, GpuCatalog::builtin()); }

Cluster Cluster::fromFile(const std::string& file, const GpuCatalog& catalog)
{
    return fromJson(JsonReader::parseFile(file), file, catalog);
}

namespace {

// A link's ends: a fabric across nodes, a set of devices, or two sets.
using SelectDevices = std::function<std::vector<int>(const JsonReader&, const std::string&, const std::string&)>;

void readLinkEnds(const JsonReader& lj, bool hasAcross, bool hasWithin, const Cluster& self,
                  const SelectDevices& select, Link& link)
{
    if (hasAcross) {
        link.across = true;
        auto across = lj.at("across");
        if (across.node().is_string() && across.node().get<std::string>() == "*") {
            link.acrossSelectors = {"*"};
            for (const Node& n : self.nodes())
                link.a.insert(link.a.end(), n.devices.begin(), n.devices.end());
        } else {
            if (!across.node().is_array())
                across.fail("expected \"*\" (every node) or a list of node selectors, e.g. [\"n0\", \"n1\"]");
            const auto items = across.items();
            for (std::size_t k = 0; k < items.size(); ++k) {
                if (!items[k].node().is_string())
                    items[k].fail("expected a node selector (a string)");
                const std::string sel = items[k].node().get<std::string>();
                link.acrossSelectors.push_back(sel);
                const auto ids = select(lj, "across/" + std::to_string(k), sel);
                link.a.insert(link.a.end(), ids.begin(), ids.end());
            }
        }
        std::sort(link.a.begin(), link.a.end());
        if (std::adjacent_find(link.a.begin(), link.a.end()) != link.a.end())
            lj.fail("a device is listed twice", "across");
        for (int d : link.a)
            link.aNode.push_back(self.devices()[static_cast<std::size_t>(d)].node);
        if (link.aNode.empty() || link.aNode.front() == link.aNode.back())
            lj.fail("\"across\" must cover GPUs of at least two nodes", "across");
    } else if (hasWithin) {
        link.within = true;
        link.aSelector = lj.string("within");
        link.a = select(lj, "within", link.aSelector);
        if (link.a.size() < 2)
            lj.fail("\"within\" must cover at least two devices", "within");
    } else {
        auto between = lj.at("between");
        if (!between.node().is_array() || between.node().size() != 2 || !between.node()[0].is_string()
            || !between.node()[1].is_string())
            between.fail("expected two device selectors, e.g. [\"n0\", \"n1:0-3\"]");
        link.aSelector = between.node()[0].get<std::string>();
        link.bSelector = between.node()[1].get<std::string>();
        link.a = select(lj, "between/0", link.aSelector);
        link.b = select(lj, "between/1", link.bSelector);
        for (int d : link.a)
            if (std::find(link.b.begin(), link.b.end(), d) != link.b.end())
                lj.fail("the two ends overlap (device " + self.deviceLabel(d) + " is on both sides)", "between");
    }
}

}  // namespace

// What fromJson keeps while it reads: the file's own GPU type entries and
// the names seen so far.
struct Cluster::Reading {
    Reading(const std::string& f, const GpuCatalog& c, bool allow) : file(f), catalog(c), allowsOutsideRange(allow) { }
    const std::string& file;
    const GpuCatalog& catalog;
    bool allowsOutsideRange = false;
    std::map<std::string, GpuType> overrides;
    std::map<std::string, int> typeIndex;
    std::map<std::string, int> nodeIndex;
    std::map<std::string, int> mediumIndex;
};

Cluster Cluster::fromJson(const nlohmann::json& doc, const std::string& file, const GpuCatalog& catalog)
{
    JsonReader root(doc, file);
    root.requireFormat("memx-cluster/1");
    Cluster c;
    c.name_ = root.name("name", "cluster");
    c.description_ = root.string("description", "");
    c.source_ = root.string("source", "");
    Reading r(file, catalog, root.allowsOutsideRange());
    c.readTypeOverrides(root, r);
    c.readNodes(root, r);
    c.readLinks(root, r);
    c.requireEveryNodePairJoined(root);
    return c;
}

// GPU types: catalog entries, overridden or completed by the file.
void Cluster::readTypeOverrides(const JsonReader& root, Reading& r)
{
    const std::string& file = r.file;
    const GpuCatalog& catalog = r.catalog;
    if (root.has("gpu_types")) {
        auto types = root.at("gpu_types");
        if (!types.node().is_object())
            types.fail("expected an object mapping GPU type names to overrides");
        typeOverrides_ = types.node();
        for (auto it = types.node().begin(); it != types.node().end(); ++it) {
            types.requireNameKey(it.key());
            JsonReader entry(it.value(), file, types.path() + "/" + it.key());
            if (!it.value().is_object())
                entry.fail("expected an object");
            const GpuType* base = catalog.find(it.key());
            GpuType t = GpuCatalog::parseType(entry, it.key(), base);
            // A new type, or one whose vendor changed, takes its vendor's runtime variable.
            if (!base || t.vendor != base->vendor)
                catalog.applyVendor(t, entry.has("visible_devices_env"));
            r.overrides[it.key()] = t;
        }
    }
}

// The index of a GPU type (the file's entry, else the catalog's), added at its first use.
int Cluster::resolveType(const JsonReader& where, const std::string& name, Reading& r)
{
    auto found = r.typeIndex.find(name);
    if (found != r.typeIndex.end())
        return found->second;
    GpuType t;
    if (auto o = r.overrides.find(name); o != r.overrides.end()) {
        t = o->second;
    } else if (const GpuType* k = r.catalog.find(name)) {
        t = *k;
    } else {
        std::string known;
        for (const auto& n : r.catalog.names())
            known += (known.empty() ? "" : ", ") + n;
        where.fail("unknown GPU type \"" + name + "\"; known types: " + known + " (or define it under \"gpu_types\")",
                   "type");
    }
    int idx = static_cast<int>(types_.size());
    types_.push_back(t);
    r.typeIndex[name] = idx;
    return idx;
}

// Nodes, their devices, and one device group per (node, type).
void Cluster::readNodes(const JsonReader& root, Reading& r)
{
    auto nodes = root.at("nodes");
    for (const auto& nodeJson : nodes.items()) {
        Node node;
        node.name = nodeJson.name("name");
        if (node.name.empty() || node.name.find_first_of(":/+ ") != std::string::npos)
            nodeJson.fail("node names must be non-empty and contain no ':', '/', '+' or spaces", "name");
        if (r.nodeIndex.count(node.name))
            nodeJson.fail("duplicate node name \"" + node.name + "\"", "name");
        int ni = static_cast<int>(nodes_.size());
        r.nodeIndex[node.name] = ni;
        std::vector<std::pair<std::string, int>> listing;
        for (const auto& g : nodeJson.at("gpus").items()) {
            std::string typeName = g.name("type");
            int type = resolveType(g, typeName, r);
            const int count = g.integerInRange("count", ranges::gpusPerNode);
            const long long total = static_cast<long long>(devices_.size()) + count;
            if (const std::string why
                = ranges::gpusPerCluster.whyOutside(static_cast<double>(total), r.allowsOutsideRange, true,
                                                    "the cluster's top level");
                !why.empty())
                g.fail(why + " (this entry brings the cluster to " + std::to_string(total) + " GPUs)", "count");
            listing.emplace_back(typeName, count);
            // One device group per (node, type).
            int groupIdx = -1;
            for (std::size_t gi = 0; gi < groups_.size(); ++gi)
                if (groups_[gi].node == ni && groups_[gi].type == type)
                    groupIdx = static_cast<int>(gi);
            if (groupIdx < 0) {
                groupIdx = static_cast<int>(groups_.size());
                DeviceGroup dg;
                dg.node = ni;
                dg.type = type;
                groups_.push_back(dg);
            }
            for (long long k = 0; k < count; ++k) {
                Device d;
                d.node = ni;
                d.indexInNode = static_cast<int>(node.devices.size());
                d.type = type;
                d.group = groupIdx;
                int id = static_cast<int>(devices_.size());
                devices_.push_back(d);
                node.devices.push_back(id);
                groups_[groupIdx].devices.push_back(id);
            }
        }
        if (node.devices.empty())
            nodeJson.fail("a node needs at least one GPU", "gpus");
        nodes_.push_back(node);
        nodeGpus_.push_back(listing);
    }
    if (devices_.empty())
        nodes.fail("the cluster has no GPUs; add at least one node with \"gpus\"");
    for (auto& g : groups_) {
        int typesInNode = 0;
        for (const auto& other : groups_)
            typesInNode += other.node == g.node;
        g.name = nodes_[g.node].name;
        if (typesInNode > 1)
            g.name += "/" + types_[g.type].name;
    }
}

// The devices a selector names: "node", "node:i" or "node:i-j".
std::vector<int> Cluster::selectDevices(const JsonReader& where, const std::string& field, const std::string& sel,
                                        const Reading& r) const
{
    std::string nodeName = sel, range;
    if (auto colon = sel.find(':'); colon != std::string::npos) {
        nodeName = sel.substr(0, colon);
        range = sel.substr(colon + 1);
    }
    auto it = r.nodeIndex.find(nodeName);
    if (it == r.nodeIndex.end())
        where.fail("link endpoint \"" + sel + "\" names no node of this cluster", field);
    const Node& node = nodes_[it->second];
    int n = static_cast<int>(node.devices.size());
    int lo = 0, hi = n - 1;
    if (!range.empty()) {
        auto dash = range.find('-');
        bool ok = dash == std::string::npos
            ? parseIndex(range, lo)
            : parseIndex(range.substr(0, dash), lo) && parseIndex(range.substr(dash + 1), hi);
        if (dash == std::string::npos)
            hi = lo;
        if (!ok)
            where.fail("bad device selector \"" + sel + "\"; use node, node:i or node:i-j", field);
        if (lo > hi || hi >= n)
            where.fail("link endpoint \"" + sel + "\" refers to a device that does not exist (node \"" + nodeName
                           + "\" has GPUs 0-" + std::to_string(n - 1) + ")",
                       field);
    }
    std::vector<int> out(node.devices.begin() + lo, node.devices.begin() + hi + 1);
    return out;
}

void Cluster::readLinks(const JsonReader& root, Reading& r)
{
    std::set<std::string> linkNames;
    auto links = root.has("links") ? root.at("links").items() : std::vector<JsonReader>{};
    for (std::size_t li = 0; li < links.size(); ++li) {
        const auto& lj = links[li];
        Link link;
        link.name = lj.name("name", "link" + std::to_string(li));
        if (!linkNames.insert(link.name).second)
            lj.fail("duplicate link name \"" + link.name + "\"", "name");
        std::string kind = lj.string("kind");
        if (!parseLinkKind(kind, link.kind))
            lj.fail("unknown link kind \"" + kind + "\"; valid kinds: " + validKinds(), "kind");
        link.bandwidthGBps = lj.inRange("bandwidth_gbps", ranges::bandwidthGBps);
        link.latencyUs = lj.inRange("latency_us", ranges::latencyUs, 5.0);
        const bool hasWithin = lj.has("within"), hasBetween = lj.has("between"), hasAcross = lj.has("across");
        if (int(hasWithin) + int(hasBetween) + int(hasAcross) != 1)
            lj.fail("a link needs exactly one of \"within\" (a set of devices), \"between\" (two sets) or "
                    "\"across\" (a fabric joining the GPUs of different nodes: \"*\" or a list of nodes)");
        readLinkEnds(
            lj, hasAcross, hasWithin, *this,
            [&](const JsonReader& w, const std::string& f, const std::string& sel) {
                return selectDevices(w, f, sel, r);
            },
            link);
        std::sort(link.a.begin(), link.a.end());
        std::sort(link.b.begin(), link.b.end());
        link.sharedFlag = lj.boolean("shared", false);
        link.mediumName = lj.name("medium", "");
        if (!link.mediumName.empty()) {
            auto [it, inserted] = r.mediumIndex.emplace(link.mediumName, mediumCount_);
            if (inserted)
                ++mediumCount_;
            link.medium = it->second;
        } else if (link.sharedFlag) {
            link.medium = mediumCount_++;
        }
        links_.push_back(link);
    }
}

void Cluster::requireEveryNodePairJoined(const JsonReader& root) const
{
    // Every pair of nodes must be reachable directly, or collectives and
    // pipeline hops between them could not be costed. Each link marks the
    // node pairs it joins (a matrix of bits): linear in what the links cover,
    // where asking every link about every pair took minutes at 512 nodes.
    const std::size_t N = nodes_.size();
    std::vector<std::vector<bool>> joined(N, std::vector<bool>(N, false));
    auto nodesOf = [&](const std::vector<int>& ids) {
        std::vector<int> out;
        out.reserve(ids.size());
        for (int d : ids)
            out.push_back(devices_[static_cast<std::size_t>(d)].node);
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
        return out;
    };
    for (const Link& l : links_) {
        if (l.within)
            continue;  // a selector names one node
        const std::vector<int> na = nodesOf(l.a);
        const std::vector<int> nb = l.across ? na : nodesOf(l.b);
        for (int x : na)
            for (int y : nb)
                if (x != y)
                    joined[static_cast<std::size_t>(x)][static_cast<std::size_t>(y)]
                        = joined[static_cast<std::size_t>(y)][static_cast<std::size_t>(x)] = true;
    }
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
        for (std::size_t j = i + 1; j < nodes_.size(); ++j) {
            if (!joined[i][j])
                root.fail("no link joins node \"" + nodes_[i].name + "\" and node \"" + nodes_[j].name
                              + "\"; add a \"between\" link (e.g. InfiniBand or Ethernet)",
                          "links");
        }
    }
}

Cluster Cluster::withLinkBandwidthScaled(const std::vector<double>& factors) const
{
    Cluster out = *this;
    for (std::size_t i = 0; i < out.links_.size() && i < factors.size(); ++i)
        out.links_[i].bandwidthGBps *= factors[i];
    return out;
}

namespace {

// The links left when the nodes marked `gone` leave: device and node ids
// renumbered through the maps (-1: gone).
std::vector<Link> linksWithout(const std::vector<Link>& links, const std::vector<Node>& nodes,
                               const std::vector<Device>& devices, const std::vector<bool>& gone,
                               const std::vector<int>& deviceMap, const std::vector<int>& nodeMap)
{
    std::vector<Link> kept;
    auto remap = [&](const std::vector<int>& ids, std::vector<int>& to) {
        to.clear();
        for (int d : ids) {
            if (deviceMap[static_cast<std::size_t>(d)] < 0)
                return false;  // a selector names one node: all of it is gone
            to.push_back(deviceMap[static_cast<std::size_t>(d)]);
        }
        return true;
    };
    for (const Link& l : links) {
        Link k = l;
        if (l.across) {
            // A fabric loses the lost nodes' GPUs and stays while it still
            // joins two nodes.
            k.a.clear();
            k.aNode.clear();
            for (int d : l.a)
                if (deviceMap[static_cast<std::size_t>(d)] >= 0) {
                    k.a.push_back(deviceMap[static_cast<std::size_t>(d)]);
                    k.aNode.push_back(nodeMap[static_cast<std::size_t>(devices[static_cast<std::size_t>(d)].node)]);
                }
            if (l.acrossSelectors != std::vector<std::string>{"*"}) {
                k.acrossSelectors.clear();
                for (const std::string& sel : l.acrossSelectors) {
                    const std::string node = sel.substr(0, sel.find(':'));
                    const auto it
                        = std::find_if(nodes.begin(), nodes.end(), [&](const Node& n) { return n.name == node; });
                    if (it != nodes.end() && !gone[static_cast<std::size_t>(it - nodes.begin())])
                        k.acrossSelectors.push_back(sel);
                }
            }
            if (!k.aNode.empty() && k.aNode.front() != k.aNode.back())
                kept.push_back(std::move(k));
            continue;
        }
        if (remap(l.a, k.a) && remap(l.b, k.b))
            kept.push_back(std::move(k));
    }
    return kept;
}

}  // namespace

Cluster Cluster::withoutNodes(const std::vector<int>& drop) const
{
    std::vector<bool> gone(nodes_.size(), false);
    for (int n : drop) {
        if (n < 0 || static_cast<std::size_t>(n) >= nodes_.size())
            throw std::invalid_argument("Cluster::withoutNodes: no node " + std::to_string(n));
        gone[static_cast<std::size_t>(n)] = true;
    }
    if (std::all_of(gone.begin(), gone.end(), [](bool g) { return g; }))
        throw std::invalid_argument("Cluster::withoutNodes: no node would be left");
    Cluster out;
    out.name_ = name_;
    out.description_ = description_;
    out.source_ = source_;
    out.typeOverrides_ = typeOverrides_;
    out.mediumCount_ = mediumCount_;
    // Types some kept node still has, in their old order.
    std::vector<int> typeMap(types_.size(), -1), nodeMap(nodes_.size(), -1), groupMap(groups_.size(), -1),
        deviceMap(devices_.size(), -1);
    for (const Device& d : devices_)
        if (!gone[static_cast<std::size_t>(d.node)])
            typeMap[static_cast<std::size_t>(d.type)] = 0;
    for (std::size_t t = 0; t < types_.size(); ++t)
        if (typeMap[t] == 0) {
            typeMap[t] = static_cast<int>(out.types_.size());
            out.types_.push_back(types_[t]);
        }
    for (std::size_t n = 0; n < nodes_.size(); ++n)
        if (!gone[n]) {
            nodeMap[n] = static_cast<int>(out.nodes_.size());
            out.nodes_.push_back(Node{nodes_[n].name, {}});
            out.nodeGpus_.push_back(nodeGpus_[n]);
        }
    for (std::size_t g = 0; g < groups_.size(); ++g)
        if (!gone[static_cast<std::size_t>(groups_[g].node)]) {
            groupMap[g] = static_cast<int>(out.groups_.size());
            DeviceGroup dg = groups_[g];
            dg.node = nodeMap[static_cast<std::size_t>(dg.node)];
            dg.type = typeMap[static_cast<std::size_t>(dg.type)];
            dg.devices.clear();
            out.groups_.push_back(std::move(dg));
        }
    for (std::size_t i = 0; i < devices_.size(); ++i) {
        Device d = devices_[i];
        if (gone[static_cast<std::size_t>(d.node)])
            continue;
        deviceMap[i] = static_cast<int>(out.devices_.size());
        d.node = nodeMap[static_cast<std::size_t>(d.node)];
        d.type = typeMap[static_cast<std::size_t>(d.type)];
        d.group = groupMap[static_cast<std::size_t>(d.group)];
        out.nodes_[static_cast<std::size_t>(d.node)].devices.push_back(deviceMap[i]);
        out.groups_[static_cast<std::size_t>(d.group)].devices.push_back(deviceMap[i]);
        out.devices_.push_back(d);
    }
    out.links_ = linksWithout(links_, nodes_, devices_, gone, deviceMap, nodeMap);
    return out;
}

nlohmann::json Cluster::toJson() const
{
    nlohmann::json j = ClusterJson::document(name_, description_, source_);
    if (!ranges::gpusPerCluster.plausible(static_cast<double>(devices_.size())))
        j["allow_outside_range"] = true;  // it was read with it
    if (!typeOverrides_.is_null() && !typeOverrides_.empty())
        j["gpu_types"] = typeOverrides_;
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
        nlohmann::json n = ClusterJson::node(nodes_[i].name, nodeGpus_[i]);
        for (auto& g : n["gpus"])
            if (!ranges::gpusPerNode.plausible(g["count"].get<int>()))
                g["allow_outside_range"] = true;  // it was read with it
        j["nodes"].push_back(std::move(n));
    }
    for (const auto& l : links_) {
        ClusterJson::Link out;
        out.name = l.name;
        out.kind = toString(l.kind);
        if (l.across)
            out.across = l.acrossSelectors;
        else if (l.within)
            out.within = l.aSelector;
        else
            out.between = {l.aSelector, l.bSelector};
        out.bandwidthGBps = l.bandwidthGBps;
        out.latencyUs = l.latencyUs;
        // it was read with it
        out.allowOutsideRange
            = !ranges::bandwidthGBps.plausible(l.bandwidthGBps) || !ranges::latencyUs.plausible(l.latencyUs);
        out.medium = l.mediumName;
        out.shared = l.sharedFlag;
        j["links"].push_back(ClusterJson::link(out));
    }
    return j;
}

std::string Cluster::deviceLabel(int device) const
{
    const Device& d = devices_[device];
    return nodes_[d.node].name + ":" + std::to_string(d.indexInNode);
}

double Cluster::heterogeneityIndex() const
{
    if (devices_.empty())
        return 0;
    double sum = 0, sq = 0;
    for (const auto& d : devices_) {
        const GpuType& t = types_[d.type];
        double c = t.peakTflopsBf16 * t.defaultEfficiency * t.calibration.efficiencyMultiplier;
        sum += c;
        sq += c * c;
    }
    double n = static_cast<double>(devices_.size());
    double mean = sum / n;
    double var = std::max(0.0, sq / n - mean * mean);
    return mean > 0 ? std::sqrt(var) / mean : 0;
}

bool Cluster::isEmptyDocument(const nlohmann::json& doc)
{
    return doc.is_object() && doc.contains("nodes") && doc["nodes"].is_array() && doc["nodes"].empty();
}

Cluster Cluster::fromEditorJson(const nlohmann::json& doc, const std::string& file, const GpuCatalog& catalog)
{
    if (!isEmptyDocument(doc))
        return fromJson(doc, file, catalog);
    if (doc.contains("links") && !(doc["links"].is_array() && doc["links"].empty()))
        throw InputError(file, "/links", "a cluster without nodes can have no links");
    // Format, name and type overrides are checked as the validator checks
    // them, on a copy with one probe GPU.
    nlohmann::json probe = doc;
    probe["nodes"] = nlohmann::json::array({ClusterJson::node("probe", {{catalog.names().front(), 1}})});
    fromJson(probe, file, catalog);
    return Cluster{};
}

}  // namespace memx
