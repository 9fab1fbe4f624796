#include "hardware/BandwidthScenario.h"

#include "io/Text.h"

namespace memx {

namespace {

bool matches(const Link& link, const std::string& selector)
{
    const auto colon = selector.find(':');
    if (colon == std::string::npos)
        return false;
    const std::string what = selector.substr(0, colon);
    const std::string name = selector.substr(colon + 1);
    if (what == "kind") {
        LinkKind kind;
        return parseLinkKind(name, kind) && kind == link.kind;
    }
    if (what == "link")
        return link.name == name;
    if (what == "medium")
        return link.medium >= 0 && link.mediumName == name;
    return false;
}

}  // namespace

std::vector<double> BandwidthScenario::factors(const Cluster& cluster, const std::vector<Scale>& scales)
{
    std::vector<double> out(cluster.links().size(), 1.0);
    for (std::size_t i = 0; i < out.size(); ++i)
        for (const Scale& s : scales)
            if (matches(cluster.links()[i], s.selector))
                out[i] *= s.factor;
    return out;
}

Cluster BandwidthScenario::apply(const Cluster& cluster, const std::vector<Scale>& scales)
{
    return cluster.withLinkBandwidthScaled(factors(cluster, scales));
}

std::string BandwidthScenario::describe(const std::vector<Scale>& scales)
{
    std::string out;
    for (const Scale& s : scales) {
        const auto colon = s.selector.find(':');
        const std::string what = s.selector.substr(0, colon);
        const std::string name = colon == std::string::npos ? s.selector : s.selector.substr(colon + 1);
        out += (out.empty() ? "" : ", ") + (what == "kind" ? name : what + " " + name) + " x"
            + Text::fmt("%g", s.factor);
    }
    return out.empty() ? "as described" : out;
}

std::string BandwidthScenario::unknownSelector(const Cluster& cluster, const std::string& selector)
{
    const auto colon = selector.find(':');
    const std::string what = colon == std::string::npos ? std::string() : selector.substr(0, colon);
    const std::string name = colon == std::string::npos ? std::string() : selector.substr(colon + 1);
    if (what != "kind" && what != "link" && what != "medium")
        return "\"" + selector + "\" is not kind:NAME, link:NAME or medium:NAME";
    if (what == "kind") {
        LinkKind kind;
        if (!parseLinkKind(name, kind))
            return "unknown link kind \"" + name
                + "\" (NVLink, PCIe, xGMI, HCCS, cross-NUMA, InfiniBand, RoCE or Ethernet)";
    }
    for (const Link& link : cluster.links())
        if (matches(link, selector))
            return {};
    if (what == "kind")
        return "cluster " + cluster.name() + " has no " + name + " link";
    return "cluster " + cluster.name() + " has no " + (what == "link" ? "link" : "shared medium") + " named \"" + name
        + "\"";
}

}  // namespace memx
