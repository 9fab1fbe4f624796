#include "hardware/ClusterJson.h"

namespace memx {

nlohmann::json ClusterJson::document(const std::string& name, const std::string& description, const std::string& source)
{
    nlohmann::json j{{"format", kFormat}, {"name", name}};
    if (!description.empty())
        j["description"] = description;
    if (!source.empty())
        j["source"] = source;
    j["nodes"] = nlohmann::json::array();
    j["links"] = nlohmann::json::array();
    return j;
}

nlohmann::json ClusterJson::gpuEntry(const std::string& type, int count) { return {{"type", type}, {"count", count}}; }

nlohmann::json ClusterJson::node(const std::string& name, const std::vector<std::pair<std::string, int>>& gpus)
{
    nlohmann::json list = nlohmann::json::array();
    for (const auto& [type, count] : gpus)
        list.push_back(gpuEntry(type, count));
    return {{"name", name}, {"gpus", std::move(list)}};
}

nlohmann::json ClusterJson::link(const Link& l)
{
    nlohmann::json j{{"name", l.name}, {"kind", l.kind}};
    if (!l.across.empty())
        j["across"] = l.across == std::vector<std::string>{"*"} ? nlohmann::json("*") : nlohmann::json(l.across);
    else if (!l.between.empty())
        j["between"] = l.between;
    else
        j["within"] = l.within;
    j["bandwidth_gbps"] = l.bandwidthGBps;
    j["latency_us"] = l.latencyUs;
    if (l.allowOutsideRange)
        j["allow_outside_range"] = true;
    if (!l.medium.empty())
        j["medium"] = l.medium;
    if (l.shared)
        j["shared"] = true;
    return j;
}

namespace {
// What every link has: name, kind, rate and latency; the caller sets its scope.
ClusterJson::Link linkOf(std::string name, std::string kind, double gbps, double latencyUs)
{
    ClusterJson::Link l;
    l.name = std::move(name);
    l.kind = std::move(kind);
    l.bandwidthGBps = gbps;
    l.latencyUs = latencyUs;
    return l;
}
}  // namespace

ClusterJson::Link ClusterJson::withinLink(std::string name, std::string kind, std::string selector, double gbps,
                                          double latencyUs)
{
    Link l = linkOf(std::move(name), std::move(kind), gbps, latencyUs);
    l.within = std::move(selector);
    return l;
}

ClusterJson::Link ClusterJson::betweenLink(std::string name, std::string kind, std::string a, std::string b,
                                           double gbps, double latencyUs)
{
    Link l = linkOf(std::move(name), std::move(kind), gbps, latencyUs);
    l.between = {std::move(a), std::move(b)};
    return l;
}

ClusterJson::Link ClusterJson::acrossLink(std::string name, std::string kind, std::vector<std::string> nodes,
                                          double gbps, double latencyUs)
{
    Link l = linkOf(std::move(name), std::move(kind), gbps, latencyUs);
    l.across = std::move(nodes);
    return l;
}

}  // namespace memx
